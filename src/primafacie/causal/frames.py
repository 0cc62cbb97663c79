"""Table plumbing of the counterfactual loop: row selections, column checks, noise tables and
writing counterfactual values back into a copy of the input table with its dtypes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError

__all__ = ["align_noise", "require_columns", "row_positions", "write_back"]


def row_positions(rows: Any, n: int) -> np.ndarray:
    """Sorted unique row positions from a boolean mask, integer positions or ``None`` (all).

    Negative positions count from the end, as in Python.

    Examples
    --------
    >>> row_positions([3, -1, 0, 3], 5).tolist(), row_positions([True, False, True], 3).tolist()
    ([0, 3, 4], [0, 2])
    """
    if rows is None:
        return np.arange(n)
    arr = np.asarray(rows)
    if arr.dtype == bool:
        if arr.shape != (n,):
            raise InputError(f"rows mask has length {arr.size}, the frame has {n} rows")
        return np.flatnonzero(arr)
    if arr.ndim != 1 or (arr.size and not np.issubdtype(arr.dtype, np.integer)):
        raise InputError("rows must be a boolean mask or a list of integer row positions")
    arr = arr.astype(np.int64)
    if arr.size and (arr.min() < -n or arr.max() >= n):
        raise InputError(f"rows has a position outside 0..{n - 1}")
    return np.unique(np.where(arr < 0, arr + n, arr))


def require_columns(frame: pd.DataFrame, nodes: Iterable[str]) -> None:
    """Raise :class:`InputError` naming the first node that is not a column of ``frame``."""
    for v in nodes:
        if v not in frame.columns:
            raise InputError(
                f"node {v!r} is not a column of the frame; columns are: "
                f"{', '.join(map(str, frame.columns))}"
            )


def align_noise(noise: pd.DataFrame, nodes: Sequence[str], idx: np.ndarray) -> pd.DataFrame:
    """The user's noise table reindexed to the selected row positions, checked to cover them.

    Examples
    --------
    >>> align_noise(pd.DataFrame({"x": [0.1, 0.2, 0.3]}), ["x"], np.array([2, 0]))["x"].tolist()
    [0.3, 0.1]
    """
    missing = [v for v in nodes if v not in noise.columns]
    if missing:
        raise InputError(f"noise has no column for node {missing[0]!r}")
    noise = noise.reindex(idx)
    if noise[list(nodes)].isna().to_numpy().any():
        raise InputError(
            "noise does not cover every selected row: index it by row position, as abduct() does"
        )
    return noise


def write_back(
    src: pd.DataFrame,
    idx: np.ndarray,
    values: Mapping[str, np.ndarray],
    categories: Mapping[str, Sequence[Any]],
) -> pd.DataFrame:
    """A copy of ``src`` whose rows ``idx`` of each column in ``values`` are replaced.

    Parameters
    ----------
    src
        The input table (never modified).
    idx
        Row positions that were changed.
    values
        ``{node: new values for the rows idx}``: codes for a node in ``categories``, floats
        otherwise.
    categories
        ``{node: category order}`` decoding the codes.

    Returns
    -------
    pandas.DataFrame
        Categorical columns keep their dtype when the decoded values fit it (else become
        object); numeric nodes become float.

    Examples
    --------
    >>> df = pd.DataFrame({"g": ["f", "m"], "x": [1, 2]})
    >>> out = write_back(df, np.array([1]), {"g": np.array([0]), "x": np.array([5.5])},
    ...                  {"g": ["f", "m"]})
    >>> out.to_dict("list")
    {'g': ['f', 'f'], 'x': [1.0, 5.5]}
    """
    out = src.copy()
    for v, new in values.items():
        col = src[v].to_numpy()
        if v in categories:
            decoded = np.asarray(categories[v], dtype=object)[new]
            try:
                newcol = col.copy()
                newcol[idx] = decoded.astype(col.dtype) if col.dtype != object else decoded
            except (TypeError, ValueError):
                newcol = col.astype(object)
                newcol[idx] = decoded
        else:
            newcol = col.astype(float, copy=True)
            newcol[idx] = new
        series = pd.Series(newcol, index=src.index)
        if isinstance(src[v].dtype, pd.CategoricalDtype):
            series = series.astype(src[v].dtype)
        out[v] = series
    return out
