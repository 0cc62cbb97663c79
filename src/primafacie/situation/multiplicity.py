"""Multiplicity across complainants: adjusted p-values per (method, k) family (issue 15).

Situation testing runs one test per complainant, so at level α about ``α × tests`` flags are
expected by chance alone when nobody is discriminated against. The adjustments here turn the
per-complainant p-values of one (method, k) family into adjusted p-values; a complainant is
significant after adjustment when its adjusted p-value is at most α:

* ``"none"``: the p-values as they are (the papers' tables);
* ``"bonferroni"``: ``min(1, m p)``, family-wise error rate ≤ α under any dependence;
* ``"holm"``: Holm's step-down, the same guarantee, uniformly more powerful;
* ``"bh"``: Benjamini–Hochberg step-up, false discovery rate ≤ α for independent or
  positively dependent (PRDS) tests;
* ``"by"``: Benjamini–Yekutieli, BH times ``c(m) = Σ_{i≤m} 1/i``, FDR ≤ α under ANY
  dependence (neighbour groups overlap, so the tests are dependent: the conservative choice).

``m`` is the number of tested complainants of the family (NaN p-values, i.e. untested
complainants, are left out and stay NaN). Everything is vectorised (one sort per family).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..corrections import MULTIPLICITY, MULTIPLICITY_NAMES  # declared once, with their names
from ..validation import Options, validate_params

# pandas is imported in the functions that use it: importing the situation engine must not
# load it (issue 22, start-up); the annotations name it only for type checkers.
if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "MULTIPLICITY",
    "MULTIPLICITY_NAMES",
    "adjust_p",
    "adjust_distinct",
    "adjust_table",
    "p_histogram",
    "merge_histograms",
]

_METHOD = [Options(*MULTIPLICITY)]


def adjust_p(p, method: str = "bh") -> np.ndarray:
    """Adjusted p-values of one family of tests (NaN entries are not tests and stay NaN).

    Parameters
    ----------
    p
        p-values, one per test; NaN for an untested complainant.
    method
        ``"none"``, ``"bonferroni"``, ``"holm"``, ``"bh"`` or ``"by"``.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values in the input order, capped at 1. Rejecting where the adjusted value
        is ≤ α is the method's procedure at level α. ``"bh"`` and ``"by"`` equal
        ``scipy.stats.false_discovery_control(p, method=...)``.

    Examples
    --------
    >>> # m = 4, sorted p = .01 .02 .03 .5: BH p·m/i = .04 .04 .04 .5 (running minimum from
    >>> # the top); Holm p·(m−i+1) = .04 .06 .06 .5 (running maximum from the bottom)
    >>> adjust_p([0.02, 0.5, 0.01, 0.03], "bh").round(4).tolist()
    [0.04, 0.5, 0.04, 0.04]
    >>> adjust_p([0.02, 0.5, 0.01, 0.03], "holm").round(4).tolist()
    [0.06, 0.5, 0.04, 0.06]
    """
    validate_params("adjust_p", {"method": _METHOD}, {"method": method})
    p = np.asarray(p, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    q = p[ok]
    m = q.size
    if m == 0 or method == "none":
        out[ok] = q
        return out
    if method == "bonferroni":
        out[ok] = np.minimum(1.0, q * m)
        return out
    order = np.argsort(q, kind="stable")
    ranked = q[order]
    i = np.arange(1, m + 1, dtype=float)
    if method == "holm":
        # step-down: the i-th smallest is multiplied by m − i + 1; adjusted values never fall
        adj = np.maximum.accumulate(ranked * (m - i + 1))
    else:
        scale = float(np.sum(1.0 / i)) if method == "by" else 1.0
        # step-up: p_(i)·m·c(m)/i, then the running minimum from the largest down
        adj = np.minimum.accumulate((ranked * m * scale / i)[::-1])[::-1]
    back = np.empty(m)
    back[order] = np.minimum(1.0, adj)
    out[ok] = back
    return out


def p_histogram(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct p-values of a family (NaN left out), ascending, and how often each occurs.

    A part of a family is summarised by this histogram: with the parts' histograms merged
    (:func:`merge_histograms`), :func:`adjust_distinct` gives every adjusted p-value without
    the p-values themselves in one place. A situation test's p-value is a function of four
    small counts, so a family of millions has a few thousand distinct values.

    Examples
    --------
    >>> v, c = p_histogram(np.array([0.5, 0.01, np.nan, 0.5]))
    >>> v.tolist(), c.tolist()
    ([0.01, 0.5], [1, 2])
    """
    p = np.asarray(p, dtype=float)
    values, counts = np.unique(p[~np.isnan(p)], return_counts=True)
    return values, counts.astype(np.int64)


def merge_histograms(
    parts: list[tuple[np.ndarray, np.ndarray]],
) -> tuple[np.ndarray, np.ndarray]:
    """The histogram of a whole family from the histograms of its parts (:func:`p_histogram`).

    Examples
    --------
    >>> a, b = p_histogram(np.array([0.2, 0.1])), p_histogram(np.array([0.2]))
    >>> [x.tolist() for x in merge_histograms([a, b])]
    [[0.1, 0.2], [1, 2]]
    """
    if not parts:
        return np.empty(0), np.empty(0, dtype=np.int64)
    values, inverse = np.unique(np.concatenate([v for v, _ in parts]), return_inverse=True)
    counts = np.zeros(len(values), dtype=np.int64)
    np.add.at(counts, inverse.ravel(), np.concatenate([c for _, c in parts]))
    return values, counts


def adjust_distinct(values: np.ndarray, counts: np.ndarray, method: str = "bh") -> np.ndarray:
    """The adjusted p-value of each distinct p-value of a family, from its histogram.

    Bit for bit what :func:`adjust_p` gives every member of the family holding that value:
    the step-up and step-down adjustments give tied p-values one adjusted value (BH and BY:
    the one computed at the last rank of the tie, Holm: at the first), so the ranks of a
    value's first and last occurrence, read from the cumulative counts, are all they need;
    the arithmetic is :func:`adjust_p`'s, operation for operation. This is the client's half
    of the two-pass correction over partitions (the parts send their histograms, the client
    sends back this table, each part looks its p-values up).

    Parameters
    ----------
    values
        The distinct p-values, ascending (NaN excluded).
    counts
        How many tests hold each value (their sum is the family's m).
    method
        As for :func:`adjust_p`.

    Returns
    -------
    numpy.ndarray
        The adjusted value of each entry of ``values``.

    Examples
    --------
    >>> p = np.array([0.02, 0.5, 0.01, 0.03, 0.02])
    >>> v, c = p_histogram(p)
    >>> adj = adjust_distinct(v, c, "bh")
    >>> bool(np.array_equal(adj[np.searchsorted(v, p)], adjust_p(p, "bh")))
    True
    """
    validate_params("adjust_distinct", {"method": _METHOD}, {"method": method})
    values = np.asarray(values, dtype=float)
    m = int(np.sum(counts))
    if m == 0 or method == "none":
        return values.copy()
    if method == "bonferroni":
        return np.minimum(1.0, values * m)
    last = np.cumsum(counts).astype(float)  # rank of a value's last occurrence
    if method == "holm":
        first = last - np.asarray(counts, dtype=float) + 1  # and of its first
        adj = np.maximum.accumulate(values * (m - first + 1))
    else:
        # c(m) summed as adjust_p sums it (pairwise, over the same array): the same bits
        scale = float(np.sum(1.0 / np.arange(1, m + 1, dtype=float))) if method == "by" else 1.0
        adj = np.minimum.accumulate((values * m * scale / last)[::-1])[::-1]
    return np.minimum(1.0, adj)


def adjust_table(table: pd.DataFrame, method: str, alpha: float) -> pd.DataFrame:
    """Add ``p_adjusted`` and ``significant_adjusted`` to a per-complainant table.

    Each (method, k) pair is its own family: the same complainants tested by one method at
    one k. The unadjusted ``p_value`` and ``significant`` columns are left as they are.

    Parameters
    ----------
    table
        Rows with columns method, k and p_value.
    method
        The adjustment (see :data:`MULTIPLICITY`).
    alpha
        The run's α, used as the family-wise level or the FDR level.

    Returns
    -------
    pandas.DataFrame
        A copy with ``p_adjusted`` (NaN when untested) and ``significant_adjusted``
        (``p_adjusted ≤ α``; with ``"none"`` exactly ``significant``).

    Examples
    --------
    >>> t = pd.DataFrame({"method": "st", "k": 15, "p_value": [0.01, 0.04, np.nan]})
    >>> adjust_table(t, "bonferroni", 0.05)[["p_adjusted", "significant_adjusted"]].values.tolist()
    [[0.02, True], [0.08, False], [nan, False]]
    """
    validate_params("adjust_table", {"method": _METHOD}, {"method": method})
    out = table.copy()
    adjusted = np.full(len(out), np.nan)
    p = out["p_value"].to_numpy(dtype=float)
    for _, idx in out.groupby(["method", "k"], sort=False).indices.items():
        adjusted[idx] = adjust_p(p[idx], method)
    out["p_adjusted"] = adjusted
    with np.errstate(invalid="ignore"):
        out["significant_adjusted"] = adjusted <= alpha
    return out
