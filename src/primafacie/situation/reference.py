"""The reference value: what ``do(attribute := reference)`` sets the protected attribute to.

Counterfactual situation testing compares each complainant with the twin it would have been
had its protected attribute taken the *reference* value. That value is either given
(``SituationTest(reference=...)``, one value or ``{attribute: value}``) or, for a two-valued
attribute, the one value the non-protected rows hold (the complement of the protected value).
The engine and the dossier pages both read it from here, so the twin a dossier draws is the
twin the engine tested.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..data import AuditData
from ..errors import InputError

__all__ = ["reference_value"]


def reference_value(
    data: AuditData,
    attribute: str,
    reference: Any = None,
    protected: np.ndarray | None = None,
) -> Any:
    """The value ``do()`` sets ``attribute`` to: ``reference`` when given, else the complement.

    Parameters
    ----------
    data
        The audited data; ``attribute`` is one of its protected attributes.
    attribute
        The protected attribute intervened on.
    reference
        The value asked for, or ``{attribute: value}`` (other attributes' entries are ignored),
        or None for the complement: the only value of the non-protected rows.
    protected
        The protected mask of ``attribute`` when the caller has it (saves recomputing it).

    Returns
    -------
    Any
        The given value as given, or the complement as a Python scalar (``numpy`` scalars are
        unwrapped, so it prints and serialises as the data spell it).

    Raises
    ------
    InputError
        A given value that never occurs in the column (compared as is and as text), or no
        value given and the non-protected rows hold none or several values (the message lists
        up to five of them and says how to choose). A caller that only wants the value when
        there is one (the dossier) catches it.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"g": ["f", "m", "f", "m"], "d": [0, 1, 1, 1]})
    >>> data = AuditData(df, features={}, protected={"g": "f"}, decision="d")
    >>> reference_value(data, "g")
    'm'
    >>> reference_value(data, "g", {"g": "m", "other": "x"})
    'm'
    >>> reference_value(data, "g", "x")
    Traceback (most recent call last):
    ...
    primafacie.errors.InputError: reference value 'x' of 'g' never occurs in the data
    """
    import pandas as pd

    ref = reference.get(attribute) if isinstance(reference, Mapping) else reference
    if ref is not None:
        col = data.frame[attribute]
        if not (col.isin([ref]).any() or col.astype(str).isin([str(ref)]).any()):
            raise InputError(f"reference value {ref!r} of {attribute!r} never occurs in the data")
        return ref
    prot = data.protected_mask(attribute) if protected is None else protected
    others = pd.unique(data.frame.loc[~prot, attribute])
    if len(others) != 1:
        raise InputError(
            f"{attribute!r} has {len(others)} non-protected values "
            f"{sorted(map(str, others))[:5]}: say which one do() sets with reference=..."
        )
    value = others[0]
    return value.item() if hasattr(value, "item") else value
