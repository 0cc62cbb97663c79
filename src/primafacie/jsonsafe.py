"""One JSON convention for every Result's ``to_dict()``.

NaN and missing values become ``None``; ``+inf``/``-inf`` become the strings ``"inf"``/``"-inf"``
(JSON has no infinity, and an infinite unfairness score is a meaningful answer); numpy and
pandas scalars become Python scalars; anything else without a JSON form becomes its ``str``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

import numpy as np

__all__ = ["json_safe"]


def json_safe(value: Any) -> Any:
    """Recursively convert ``value`` to JSON-safe Python.

    Examples
    --------
    >>> json_safe({"a": np.float64("nan"), "b": [np.int64(2), float("-inf")], 3: np.bool_(True)})
    {'a': None, 'b': [2, '-inf'], '3': True}
    """
    import pandas as pd

    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=str) if isinstance(value, (set, frozenset)) else value
        return [json_safe(v) for v in items]
    if isinstance(value, np.ndarray):
        return [json_safe(v) for v in value.tolist()]
    if isinstance(value, pd.DataFrame):
        return json_safe(value.to_dict(orient="records"))
    if isinstance(value, PurePath):
        return value.as_posix()
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return None
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return value
    if isinstance(value, str):
        return value
    return str(value)
