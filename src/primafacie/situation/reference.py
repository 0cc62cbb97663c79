"""The value do() sets for a protected attribute: one function for the engine and the dossier.

Examples
--------
>>> import pandas as pd
>>> from primafacie.data import AuditData
>>> df = pd.DataFrame({"g": ["f", "m", "f", "m"], "d": [0, 1, 0, 1]})
>>> data = AuditData(df, features={}, protected={"g": "f"}, decision="d")
>>> reference_value(data, "g")
'm'
>>> reference_value(data, "g", reference="x")
Traceback (most recent call last):
...
primafacie.errors.InputError: reference value 'x' of 'g' never occurs in the data
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError

__all__ = ["reference_value"]


def reference_value(
    data: Any, attribute: str, reference: Any = None, prot: np.ndarray | None = None
) -> Any:
    """The non-protected value that do(``attribute`` := value) sets.

    Parameters
    ----------
    data
        The audited :class:`~primafacie.data.AuditData`.
    attribute
        The protected attribute intervened on.
    reference
        The value asked for (``SituationTest(reference=...)``: one value, or a mapping
        ``{attribute: value}``); None: the attribute's one non-protected value.
    prot
        The attribute's protected mask, when the caller has it already.

    Returns
    -------
    Any
        The value (a numpy scalar as its Python value).

    Raises
    ------
    InputError
        The value asked for never occurs, or there is no single non-protected value to
        choose (the message says to pass ``reference=``).
    """
    ref = reference.get(attribute) if isinstance(reference, Mapping) else reference
    if ref is not None:
        col = data.frame[attribute]
        if not (col.isin([ref]).any() or col.astype(str).isin([str(ref)]).any()):
            raise InputError(f"reference value {ref!r} of {attribute!r} never occurs in the data")
        return ref
    mask = data.protected_mask(attribute) if prot is None else prot
    others = pd.unique(data.frame.loc[~mask, attribute])
    if len(others) != 1:
        raise InputError(
            f"{attribute!r} has {len(others)} non-protected values "
            f"{sorted(map(str, others))[:5]}: say which one do() sets with reference=..."
        )
    value = others[0]
    return value.item() if hasattr(value, "item") else value
