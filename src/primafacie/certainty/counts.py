"""Per-group counts n (event E2) and k (E1 and E2) for the fairness criteria (paper §3, eq. 5-6).

| criterion           | E1              | E2              |
|---------------------|-----------------|-----------------|
| statistical_parity  | Ŷ favourable    | every sample    |
| equal_opportunity   | Ŷ favourable    | Y favourable    |
| predictive_parity   | Y favourable    | Ŷ favourable    |

Counting is vectorised over many decision-makers: with a one-hot matrix H (rows x groups) and
a 0/1 predictions matrix P (rows x decision-makers), ``n = H^T E2`` and ``k = H^T (E1 & E2)``.
Rows are processed in chunks so memory stays bounded.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError
from ..groupcodes import SEP, combination_label, cross_codes, value_codes
from .params import _ALIASES, CRITERIA, MAX_PROTECTED_LEVELS, canonical_criterion  # noqa: F401

__all__ = [
    "count_partitioned",
    "CRITERIA",
    "E2_TEXT",
    "GroupCodes",
    "group_codes",
    "criterion_events",
    "group_counts",
    "count_events",
    "count_matrix",
    "weighted_counts",
]


#: Who a criterion's rates are computed over (the event E2, the denominator n), in words.
E2_TEXT = {
    "statistical_parity": "rows",
    "equal_opportunity": "rows with a favourable true outcome",
    "predictive_parity": "rows with a favourable decision",
}


def needs_outcome(criterion: str) -> bool:
    """Whether the criterion needs the true outcome Y."""
    return canonical_criterion(criterion) != "statistical_parity"


@dataclass(frozen=True)
class GroupCodes:
    """Integer group code per row plus the group labels (sorted), member counts and columns."""

    codes: np.ndarray
    labels: tuple[str, ...]
    values: tuple[tuple, ...]
    members: np.ndarray
    columns: tuple[str, ...]

    @property
    def n_groups(self) -> int:
        return len(self.labels)


# over 80 lines only through its numpy-style docstring; the body is under 60
def group_codes(
    frame: pd.DataFrame,
    columns: str | Sequence[str],
    min_group_size: int | None = None,
    max_levels: int | None = MAX_PROTECTED_LEVELS,
) -> GroupCodes:
    """Code the groups of one protected column or of several (intersectional, Cartesian).

    Groups are the value combinations that occur, sorted by value (the order used for
    tie-breaking between groups). With several columns a label is ``"a × b"``; combinations
    that never occur are not groups. A single pandas Categorical column keeps every declared
    category in its declared order, so a category without rows is reported as an empty group
    (``members`` = 0).

    Parameters
    ----------
    frame
        The data.
    columns
        One column name or a list of names (intersectional groups).
    min_group_size
        Optional guard against the manipulation the paper discusses (§7): groups with fewer
        members are merged into one group labelled ``"merged: a, b, ..."``.
    max_levels
        A column with more distinct values is an :class:`InputError` (a numeric column such as
        age would otherwise give one group per value); None disables the check.

    Returns
    -------
    GroupCodes

    Examples
    --------
    >>> gc = group_codes(pd.DataFrame({"s": ["f", "m", "f"], "r": [1, 1, 2]}), ["s", "r"])
    >>> gc.labels, gc.codes.tolist()
    (('f × 1', 'f × 2', 'm × 1'), [0, 2, 1])
    """
    cols = [columns] if isinstance(columns, str) else list(columns)
    if not cols:
        raise InputError("name at least one protected column")
    if len(set(cols)) != len(cols):
        raise InputError(f"a protected column is listed twice: {cols}")
    per_column, uniques = [], []
    for col in cols:
        if col not in frame.columns:
            name, sep, _ = str(col).partition("=")
            hint = (
                f" (certainty takes a column name and compares all its values: use {name!r})"
                if sep and name in frame.columns
                else ""
            )
            raise InputError(
                f"protected column {col!r} is not in the data{hint}; columns are: "
                f"{', '.join(map(str, frame.columns))}"
            )
        series = frame[col]
        if series.isna().any():
            first = int(np.flatnonzero(series.isna().to_numpy())[0])
            raise InputError(f"protected column {col!r} has missing values (first at row {first})")
        levels = series.nunique()
        if max_levels is not None and levels > max_levels:
            raise InputError(
                f"protected column {col!r} has {levels} distinct values (more than {max_levels}): "
                "every value would be a group of its own; bin it into a few groups first "
                "(e.g. age bands), or pass max_levels=None if these groups are meant"
            )
        codes, uniq = value_codes(series)
        per_column.append(codes)
        uniques.append(uniq)
    if len(cols) == 1 and isinstance(frame[cols[0]].dtype, pd.CategoricalDtype):
        # declared categories without rows are kept, so they are reported as empty groups
        series = frame[cols[0]]
        inverse = series.cat.codes.to_numpy()
        uniques = [list(series.cat.categories)]
        parts = np.arange(len(uniques[0]))[:, None]
    else:
        # the one group coder: combinations sorted by value, labelled "a × b"
        inverse, parts = cross_codes(per_column, [len(u) for u in uniques])
    values = [tuple(_plain(uniques[j][c]) for j, c in enumerate(row)) for row in parts.tolist()]
    labels = [combination_label(vals) for vals in values]
    inverse = inverse.reshape(-1).astype(np.int64)
    members = np.bincount(inverse, minlength=len(labels))
    if min_group_size is not None and min_group_size > 1:
        labels, values, inverse, members = _merge_small_groups(
            labels, values, inverse, members, min_group_size
        )
    if len(labels) < 2:
        raise InputError(
            f"protected attribute {SEP.join(cols)} has a single group ({labels[0]!r}): "
            "there is nothing to compare"
        )
    return GroupCodes(inverse, tuple(labels), tuple(values), members, tuple(cols))


def _merge_small_groups(
    labels: list[str],
    values: list[tuple],
    inverse: np.ndarray,
    members: np.ndarray,
    min_group_size: int,
) -> tuple[list[str], list[tuple], np.ndarray, np.ndarray]:
    """Pool the groups with fewer than ``min_group_size`` members into one, labelled last."""
    small = members < min_group_size
    if small.any() and (~small).any():
        merged_label = "merged: " + ", ".join(np.asarray(labels)[small])
        keep = np.flatnonzero(~small)
        new_index = np.full(len(labels), len(keep), dtype=np.int64)
        new_index[keep] = np.arange(len(keep))
        inverse = new_index[inverse]
        labels = [labels[i] for i in keep] + [merged_label]
        values = [values[i] for i in keep] + [("merged",)]
        members = np.bincount(inverse, minlength=len(labels))
        if members[-1] < min_group_size:
            warnings.warn(
                f"group {merged_label!r} has only {members[-1]} member(s) after merging, "
                f"still fewer than min_group_size={min_group_size}",
                stacklevel=3,
            )
    elif small.all():
        warnings.warn(
            f"every group has fewer than min_group_size={min_group_size} members; "
            "nothing was merged",
            stacklevel=3,
        )
    return labels, values, inverse, members


def _plain(value):
    """numpy scalars -> Python scalars so labels and JSON stay clean."""
    return value.item() if isinstance(value, np.generic) else value


def _indicator(values, what: str) -> np.ndarray:
    """A 0/1 (or boolean) array as booleans; any other value is an error, never truthiness."""
    arr = np.asarray(values)
    if arr.dtype == bool:
        return arr
    if arr.dtype.kind not in "iuf" or (
        arr.size
        and not (
            # min/max first: two fast reductions suffice for integer arrays
            arr.min() >= 0
            and arr.max() <= 1
            and (arr.dtype.kind != "f" or bool(((arr == 0) | (arr == 1)).all()))
        )
    ):
        bad = np.unique(arr.reshape(-1)[:100_000].astype(str))[:5].tolist()
        raise InputError(
            f"{what} must be 0/1 indicators (1 = favourable); got values such as {bad}"
        )
    return arr.astype(bool)


def criterion_events(criterion: str, y_pred, y_true=None) -> tuple[np.ndarray, np.ndarray | None]:
    """Events (E1, E2) of a criterion from favourable indicators (1 = favourable).

    Parameters
    ----------
    criterion
        ``statistical_parity``, ``equal_opportunity`` or ``predictive_parity``.
    y_pred
        0/1 favourable indicator of the decisions, shape (N,) or (N, m).
    y_true
        0/1 favourable indicator of the true outcome, shape (N,); needed except for
        statistical parity.

    Returns
    -------
    (e1, e2)
        Boolean arrays; ``e2`` is None for Ω (every sample).

    Examples
    --------
    >>> e1, e2 = criterion_events("predictive_parity", [1, 0, 1], [1, 1, 0])
    >>> e1.tolist(), e2.tolist()
    ([True, True, False], [True, False, True])
    """
    crit = canonical_criterion(criterion)
    pred = _indicator(y_pred, "decisions (y_pred)")
    if crit == "statistical_parity":
        return pred, None
    if y_true is None:
        raise InputError(
            f"criterion {crit!r} needs the true outcome (outcome column: --outcome on the CLI, outcome: in audit.yaml, outcome=... in Python)"
        )
    truth = _indicator(y_true, "outcome (y_true)")
    if truth.shape[0] != pred.shape[0]:
        raise InputError(f"outcome has {truth.shape[0]} rows, decisions have {pred.shape[0]}")
    if pred.ndim == 2:
        truth = truth[:, None]
    if crit == "equal_opportunity":
        return pred, np.broadcast_to(truth, pred.shape)
    return np.broadcast_to(truth, pred.shape), pred


def group_counts(z, e1, e2=None) -> dict:
    """``{group: (n, k)}`` for one decision-maker from raw arrays (spec API).

    The pair keeps the spec's ``(n, k)`` order (``specs/uncertain-fairness.md``); the array
    functions, :func:`count_events` first, return and take ``(k, n)``.

    ``n = |{Z=i} ∩ E2|`` and ``k = |E1 ∩ {Z=i} ∩ E2|``; ``e2=None`` means Ω.

    Examples
    --------
    >>> group_counts([0, 0, 0, 1, 1, 1], [1, 1, 1, 1, 1, 0])
    {0: (3, 3), 1: (3, 2)}
    """
    z = np.asarray(z)
    e1 = _indicator(e1, "E1")
    if e1.shape != z.shape:
        raise InputError(f"E1 has {e1.shape[0]} entries, the group labels {z.shape[0]}")
    e2 = np.ones_like(e1) if e2 is None else _indicator(e2, "E2")
    if e2.shape != z.shape:
        raise InputError(f"E2 has {e2.shape[0]} entries, the group labels {z.shape[0]}")
    uniq, codes = np.unique(z, return_inverse=True)
    codes = codes.reshape(-1)
    n = np.bincount(codes, weights=e2, minlength=len(uniq)).astype(np.int64)
    k = np.bincount(codes, weights=e1 & e2, minlength=len(uniq)).astype(np.int64)
    return {_plain(g): (int(a), int(b)) for g, a, b in zip(uniq, n, k, strict=True)}


def count_matrix(
    codes, n_groups: int, e1, e2=None, chunk_cells: int = 1 << 22
) -> tuple[np.ndarray, np.ndarray]:
    """Deprecated: :func:`count_events` returns the same counts in the package's ``(k, n)`` order.

    Returns ``(n, k)`` as before, with a :class:`DeprecationWarning`.
    """
    warnings.warn(
        "count_matrix is deprecated and will be removed in the next release; use "
        "count_events, which returns (k, n) (successes before trials) like every function "
        "of primafacie.certainty",
        DeprecationWarning,
        stacklevel=2,
    )
    k, n = count_events(codes, n_groups, e1, e2, chunk_cells)
    return n, k


def count_events(
    codes, n_groups: int, e1, e2=None, chunk_cells: int = 1 << 22
) -> tuple[np.ndarray, np.ndarray]:
    """Counts ``(k, n)`` for many decision-makers at once.

    Each (row, decision-maker) cell gets a state — 0: not in E2, 1: in E2 only,
    2: in E1 and E2 — and one ``np.bincount`` over ``(dm * G + group) * 3 + state`` per block
    of rows counts every decision-maker and group together (no Python loop over rows or
    decision-makers; memory bounded by ``chunk_cells`` cells per block).

    Parameters
    ----------
    codes
        Group code per row, ints in ``[0, n_groups)``, shape (N,).
    n_groups
        Number of groups G.
    e1, e2
        Boolean/0-1 arrays of shape (N,) or (N, m); ``e2=None`` means Ω. A 1-D array is
        shared by every decision-maker.
    chunk_cells
        Cells (rows x decision-makers) per block.

    Returns
    -------
    (k, n)
        int64 arrays of shape (m, G): ``k = |E1 ∩ E2 ∩ {Z=g}|`` (successes) and
        ``n = |E2 ∩ {Z=g}|`` (trials).

    Examples
    --------
    >>> k, n = count_events([0, 0, 1, 1], 2, [[1, 0], [1, 1], [0, 0], [1, 0]])
    >>> k.tolist(), n.tolist()
    ([[2, 1], [1, 0]], [[2, 2], [2, 2]])
    """
    codes = np.asarray(codes).reshape(-1).astype(np.int64, copy=False)
    n_rows = codes.shape[0]
    if n_rows and (codes.min() < 0 or codes.max() >= n_groups):
        raise InputError(f"group codes must lie in [0, {n_groups})")
    # work decision-maker-major, (m, N): a block of rows is then contiguous per decision-maker
    # when the caller passes the transpose of an (m, N) array, as CertaintyRanking does
    e1 = np.asarray(e1)
    e1 = e1[None, :] if e1.ndim == 1 else e1.T
    if e1.shape[1] != n_rows:
        raise InputError(f"the events have {e1.shape[1]} rows, the group codes {n_rows}")
    if e2 is not None:
        e2 = np.asarray(e2)
        e2 = e2[None, :] if e2.ndim == 1 else e2.T
        if e2.shape[1] != n_rows:
            raise InputError(f"E2 has {e2.shape[1]} rows, the group codes {n_rows}")
    m = max(e1.shape[0], 1 if e2 is None else e2.shape[0])
    n_states = 2 if e2 is None else 3
    size = m * n_groups * n_states
    total = np.zeros(size, dtype=np.int64)
    offsets = (np.arange(m, dtype=np.int64) * (n_groups * n_states))[:, None]
    step = max(1, chunk_cells // m)
    for start in range(0, n_rows, step):
        stop = min(start + step, n_rows)
        idx = offsets + codes[None, start:stop] * n_states  # (m, rows), C order
        a = e1[:, start:stop].astype(bool, copy=False)
        if e2 is None:
            np.add(idx, a, out=idx, casting="unsafe")
        else:
            b = e2[:, start:stop].astype(bool, copy=False)
            np.add(idx, b, out=idx, casting="unsafe")
            np.add(idx, a & b, out=idx, casting="unsafe")
        total += np.bincount(idx.reshape(-1), minlength=size)
    total = total.reshape(m, n_groups, n_states)
    if e2 is None:
        return total[:, :, 1].copy(), total.sum(axis=2)
    return total[:, :, 2].copy(), total[:, :, 1] + total[:, :, 2]


#: Rows per partition of :func:`count_partitioned` on a backend.
PARTITION_ROWS = 1 << 20


def _count_partition(part: tuple) -> tuple[np.ndarray, np.ndarray]:
    """:func:`count_events` of one row partition (a backend task)."""
    codes, n_groups, e1, e2 = part
    return count_events(codes, n_groups, e1, e2)


def count_partitioned(
    codes,
    n_groups: int,
    e1,
    e2=None,
    backend: Any = None,
    partition_rows: int = PARTITION_ROWS,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`count_events` over row partitions mapped on a :mod:`primafacie.compute` backend.

    Each partition (its group codes and event rows) is sent to one task only; the integer
    counts of the partitions are summed, so the result equals :func:`count_events` exactly on
    every backend and partitioning.

    Parameters
    ----------
    codes, n_groups, e1, e2
        As :func:`count_events`.
    backend
        ``None`` counts here in one pass; a backend (threads, Dask) counts the partitions in
        parallel.
    partition_rows
        Rows per partition.

    Returns
    -------
    (k, n)
        As :func:`count_events`.

    Examples
    --------
    >>> k, n = count_partitioned([0, 0, 1, 1], 2, [1, 0, 0, 1], partition_rows=3,
    ...                          backend="local")
    >>> k.tolist(), n.tolist()
    ([[1, 1]], [[2, 2]])
    """
    if backend is None:
        return count_events(codes, n_groups, e1, e2)
    from ..compute import chunk_slices, get_backend

    codes = np.asarray(codes).reshape(-1)
    e1 = np.asarray(e1)
    e2 = None if e2 is None else np.asarray(e2)
    if e1.shape[0] != codes.shape[0]:
        raise InputError(f"the events have {e1.shape[0]} rows, the group codes {codes.shape[0]}")
    parts = [
        (codes[sl], n_groups, e1[sl], None if e2 is None else e2[sl])
        for sl in chunk_slices(codes.shape[0], partition_rows)
    ] or [(codes, n_groups, e1, e2)]
    counted = get_backend(backend).map(_count_partition, parts)
    return sum(c[0] for c in counted), sum(c[1] for c in counted)


#: How weighted counts enter the Beta posterior, stated in a weighted result's caveats.
WEIGHTED_NOTE = (
    "weighted by {column}: each group's successes and trials are its weighted rate "
    "Σw·E1/Σw over the Kish effective sample size n_eff = (Σw)²/Σw² of its E2 rows (k = rate · "
    "n_eff of n_eff trials), rounded to whole numbers for the Beta posterior; the members "
    "column stays the unweighted row count"
)


def weighted_counts(codes, n_groups: int, e1, e2, w) -> tuple[np.ndarray, np.ndarray]:
    """Kish-effective ``(k, n)`` per (decision-maker, group) from sample weights.

    Parameters
    ----------
    codes, n_groups, e1, e2
        As :func:`count_events`: ``e1`` of shape (N,) or (N, m), ``e2`` None (every row),
        (N,) or (N, m).
    w
        Non-negative weight per row (:func:`primafacie.weights.check_weights`).

    Returns
    -------
    (k, n)
        int64 arrays of shape (m, G): ``n`` the rounded ``n_eff`` of the group's E2 rows, ``k``
        the rounded ``rate · n_eff`` with ``rate = Σ w·[E1∩E2] / Σ w·[E2]``. With equal
        weights, exactly the unweighted counts.

    Examples
    --------
    >>> k, n = weighted_counts([0, 0, 0, 1, 1], 2, [1, 0, 0, 1, 0], None, [2.0, 1, 1, 1, 1])
    >>> k.tolist(), n.tolist()
    ([[1, 1]], [[3, 2]])
    """
    from ..weights import effective_counts

    codes = np.asarray(codes).reshape(-1).astype(np.int64, copy=False)
    w = np.asarray(w, dtype=float)
    e1 = np.asarray(e1, dtype=bool)
    e1 = e1[:, None] if e1.ndim == 1 else e1
    e2 = np.ones((len(codes), 1), dtype=bool) if e2 is None else np.asarray(e2, dtype=bool)
    e2 = e2[:, None] if e2.ndim == 1 else e2
    m = e1.shape[1]
    k = np.zeros((m, n_groups), dtype=np.int64)
    n = np.zeros((m, n_groups), dtype=np.int64)
    for j in range(m):  # one pass of bincounts per decision-maker (a handful), never per row
        den = e2[:, min(j, e2.shape[1] - 1)]
        kw = np.bincount(codes, weights=w * (e1[:, j] & den), minlength=n_groups)
        nw = np.bincount(codes, weights=w * den, minlength=n_groups)
        n2w = np.bincount(codes, weights=w * w * den, minlength=n_groups)
        ke, ne = effective_counts(kw, nw, n2w)
        n[j] = np.rint(ne).astype(np.int64)
        k[j] = np.minimum(np.rint(ke).astype(np.int64), n[j])
    return k, n
