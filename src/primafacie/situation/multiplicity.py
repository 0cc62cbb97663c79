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

from ..validation import Options, validate_params

# pandas is imported in the functions that use it: importing the situation engine must not
# load it (issue 22, start-up); the annotations name it only for type checkers.
if TYPE_CHECKING:
    import pandas as pd

__all__ = ["MULTIPLICITY", "MULTIPLICITY_NAMES", "adjust_p", "adjust_table"]

#: Accepted adjustment methods, in the order of the docs.
MULTIPLICITY = ("none", "bonferroni", "holm", "bh", "by")
#: How the narrative names each method.
MULTIPLICITY_NAMES = {
    "none": "no adjustment",
    "bonferroni": "Bonferroni",
    "holm": "Holm",
    "bh": "Benjamini–Hochberg",
    "by": "Benjamini–Yekutieli",
}
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
