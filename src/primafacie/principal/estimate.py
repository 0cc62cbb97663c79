"""Counts and plug-in estimates ``p'_{sya} = pr(S=s, Y=y | A=a)`` per covariate cell.

Cells are the distinct value combinations of the covariates X (Assumption 1 is taken to hold
within each cell). Counting is one ``np.bincount`` over ``8 * cell + 4 * a + 2 * s + y``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import InputError

__all__ = ["CellCounts", "encode_cells", "count_cells", "check_binary", "bootstrap_counts"]


def check_binary(values: np.ndarray, name: str) -> np.ndarray:
    """Return ``values`` as int8 0/1 or raise :class:`InputError` naming ``name``.

    Examples
    --------
    >>> check_binary(np.array([0, 1, 1]), "S").tolist()
    [0, 1, 1]
    """
    arr = np.asarray(values)
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise InputError(
            f"{name} has missing values (NaN at row {int(np.flatnonzero(np.isnan(arr))[0])})"
        )
    bad = ~np.isin(arr, (0, 1))
    if bad.any():
        raise InputError(
            f"{name} must be binary 0/1; found value {arr[bad][0]!r} at row {int(np.flatnonzero(bad)[0])}"
        )
    return arr.astype(np.int8)


def encode_cells(
    frame: pd.DataFrame, covariates: Sequence[str]
) -> tuple[np.ndarray, list[str], pd.DataFrame]:
    """Cell code per row and a label per cell for the covariates X.

    Parameters
    ----------
    frame
        The audit table.
    covariates
        Discrete columns defining the cells; empty means one cell ``"all"``.

    Returns
    -------
    codes, labels, keys
        ``(n,)`` int64 codes, labels such as ``"sex=F, address=U"`` and a frame of cell keys.

    Examples
    --------
    >>> codes, labels, _ = encode_cells(pd.DataFrame({"g": ["b", "a", "b"]}), ["g"])
    >>> codes.tolist(), labels
    ([1, 0, 1], ['g=a', 'g=b'])
    """
    covariates = list(covariates)
    n = len(frame)
    if not covariates:
        return np.zeros(n, dtype=np.int64), ["all"], pd.DataFrame(index=[0])
    for col in covariates:
        if col not in frame.columns:
            raise InputError(
                f"covariate column {col!r} is not in the data; columns are: {', '.join(map(str, frame.columns))}"
            )
        series = frame[col]
        if series.isna().any():
            first = int(np.flatnonzero(series.isna().to_numpy())[0])
            raise InputError(f"covariate {col!r} has missing values (first at row {first})")
        if n > 2 and series.nunique() == n:
            raise InputError(
                f"covariate {col!r} has a different value on every row ({n} values), so every cell "
                "holds one person and no cell can compare A=0 with A=1; bin it into a few levels first"
            )
    grouped = frame.groupby(covariates, sort=True, observed=True)
    codes = grouped.ngroup().to_numpy().astype(np.int64)
    keys = grouped.size().reset_index()[covariates]
    labels = [
        ", ".join(f"{c}={v}" for c, v in zip(covariates, row, strict=False))
        for row in keys.itertuples(index=False)
    ]
    return codes, labels, keys


@dataclass(frozen=True)
class CellCounts:
    """Counts ``n[c, a, s, y]`` per cell with their labels.

    ``p`` divides by the arm size ``n(A=a)`` within the cell; ``valid`` marks cells where both arms
    are non-empty; ``small`` marks valid cells with an arm below ``min_group``.
    """

    labels: tuple[str, ...]
    counts: np.ndarray
    min_group: int = 1

    @property
    def n_arm(self) -> np.ndarray:
        """``(C, 2)`` arm sizes n(A=0), n(A=1)."""
        return self.counts.sum(axis=(2, 3))

    @property
    def n(self) -> np.ndarray:
        """``(C,)`` cell sizes."""
        return self.counts.sum(axis=(1, 2, 3))

    @property
    def valid(self) -> np.ndarray:
        """Both arms non-empty."""
        return (self.n_arm > 0).all(axis=1)

    @property
    def small(self) -> np.ndarray:
        """An arm has fewer than ``min_group`` people (estimates too noisy to trust)."""
        return self.valid & (self.n_arm < self.min_group).any(axis=1)

    @property
    def p(self) -> np.ndarray:
        """``(C, 2, 2, 2)`` estimates ``pr(S=s, Y=y | A=a)``; NaN in an empty arm."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.counts / self.n_arm[:, :, None, None]


def count_cells(
    a: np.ndarray,
    s: np.ndarray,
    y: np.ndarray,
    codes: np.ndarray | None = None,
    labels: Sequence[str] | None = None,
    min_group: int = 1,
) -> CellCounts:
    """Count (A, S, Y) per cell with one ``bincount``.

    Examples
    --------
    >>> c = count_cells(np.array([0, 0, 1, 1]), np.array([1, 0, 1, 1]), np.array([1, 1, 0, 1]))
    >>> c.counts[0, 1].tolist(), float(c.p[0, 0, 1, 1])
    ([[0, 0], [1, 1]], 0.5)
    """
    a = check_binary(a, "protected attribute A")
    s = check_binary(s, "decision S")
    y = check_binary(y, "outcome Y")
    if codes is None:
        codes = np.zeros(len(a), dtype=np.int64)
        labels = ["all"] if labels is None else labels
    n_cells = int(codes.max()) + 1 if len(codes) else 0
    if labels is None:
        labels = [str(i) for i in range(n_cells)]
    n_cells = max(n_cells, len(labels))
    flat = 8 * codes.astype(np.int64) + 4 * a + 2 * s + y
    counts = np.bincount(flat, minlength=8 * n_cells).reshape(n_cells, 2, 2, 2)
    return CellCounts(tuple(labels), counts, int(min_group))


def bootstrap_counts(counts: np.ndarray, n_boot: int, seed: int | None = 0) -> np.ndarray:
    """Resample units within every (cell, arm): ``(n_boot, C, 2, 2, 2)`` bootstrap counts.

    [choice, not from the paper] The resampling is stratified by A within the cell (arm sizes kept):
    A plays the role of a randomised treatment under Assumption 1, and no replicate loses an arm.

    Examples
    --------
    >>> c = np.array([[[[5, 5], [5, 5]], [[2, 3], [4, 1]]]])
    >>> b = bootstrap_counts(c, 3, seed=0)
    >>> b.shape, b.sum(axis=(3, 4)).tolist()[0]
    ((3, 1, 2, 2, 2), [[20, 10]])
    """
    counts = np.asarray(counts)
    c = counts.shape[0]
    flat = counts.reshape(c, 2, 4).astype(np.int64)
    n_arm = flat.sum(axis=2)
    with np.errstate(divide="ignore", invalid="ignore"):
        pv = np.where(n_arm[:, :, None] > 0, flat / np.maximum(n_arm[:, :, None], 1), 0.25)
    rng = np.random.default_rng(seed)
    out = rng.multinomial(n_arm, pv, size=(n_boot, c, 2))
    return out.reshape(n_boot, c, 2, 2, 2)
