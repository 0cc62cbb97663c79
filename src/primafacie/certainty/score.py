"""Score and rank decision-makers from counts alone: fully vectorised, no data needed.

:func:`score_pairs` handles pairwise (two-group) counts for any number of decision-makers
(10^6 in well under a second); :func:`synthetic_grid` builds the 4,900 decision-makers of the
paper's Table 2.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .posterior import UNIFORM_PRIOR, as_counts, decision_maker, legacy_count_order, treatment
from .select import TIE_DECIMALS, rank
from .utility import get_utility

__all__ = ["score_pairs", "synthetic_grid", "pair_columns", "PAIR_COLUMNS"]

PAIR_COLUMNS = (
    "rank", "n_i", "k_i", "n_j", "k_j", "p_i", "p_j", "disparity", "uncertainty", "utility",
)  # fmt: skip


def pair_columns(ki, ni, kj, nj, disparity, uncertainty, utility) -> dict[str, np.ndarray]:
    """The per-decision-maker columns shared by every certainty table: counts, rates, scores.

    Counts come as ``(k, n)`` pairs like every function of the package; the table keeps its
    published column order ``n_i, k_i, n_j, k_j``.
    """
    return {
        "n_i": ni,
        "k_i": ki,
        "n_j": nj,
        "k_j": kj,
        "p_i": treatment(ki, ni),
        "p_j": treatment(kj, nj),
        "disparity": disparity,
        "uncertainty": uncertainty,
        "utility": utility,
    }


def score_pairs(
    ki,
    ni,
    kj,
    nj,
    kind: str = "frequentist",
    prior: Sequence[float] = UNIFORM_PRIOR,
    utility="topsis",
    tie_decimals: int = TIE_DECIMALS,
) -> dict[str, np.ndarray]:
    """Disparity, uncertainty, utility and rank of many two-group decision-makers.

    Parameters
    ----------
    ki, ni, kj, nj
        Counts ``(k, n)`` of groups i and j (successes, trials), 1-D arrays of equal length m
        (every n >= 1, 0 <= k <= n). The former order ``(ni, ki, nj, kj)`` is recognised
        (it makes k > n) and still works for one release with a DeprecationWarning.
    kind
        ``"frequentist"`` (paper) or ``"bayesian"`` disparity.
    prior
        Beta prior (default uniform).
    utility
        ``"topsis"``, ``"norm"`` or a callable ``u(delta, s)``.
    tie_decimals
        Utilities equal to this many decimals share a rank.

    Returns
    -------
    dict
        Arrays ``n_i, k_i, n_j, k_j, p_i, p_j, disparity, uncertainty, utility, rank``
        (competition rank, 1 = best) and ``order`` (indices best first, stable within ties).

    Examples
    --------
    >>> out = score_pairs([3, 1], [3, 1], [0, 0], [3, 1])
    >>> out["rank"].tolist(), [round(float(u), 3) for u in out["utility"]]
    ([2, 1], [-0.629, -0.414])
    """
    # validated before the int cast, which would silently truncate 2.5 to 2
    ki, ni, kj, nj = (as_counts(v).astype(np.int64).reshape(-1) for v in (ki, ni, kj, nj))
    if legacy_count_order(
        [(ki, ni), (kj, nj)], "score_pairs", "(ni, ki, nj, kj)", "(ki, ni, kj, nj)"
    ):
        ki, ni, kj, nj = ni, ki, nj, kj
    _, u = get_utility(utility)
    d, s = decision_maker(ki, ni, kj, nj, kind, prior)
    util = np.asarray(u(d, s), dtype=float)
    order, ranks = rank(util, tie_decimals)
    return {**pair_columns(ki, ni, kj, nj, d, s, util), "rank": ranks, "order": order}


def synthetic_grid(sizes: Sequence[int] = (1, 5, 10, 50)) -> pd.DataFrame:
    """Every decision-maker of the paper's synthetic experiment (Table 2), ranked.

    All ordered pairs ``(n_i, n_j)`` of ``sizes`` and every integer ``k_i <= n_i``,
    ``k_j <= n_j`` — (2+6+11+51)^2 = 4,900 rows for the default sizes. Integer k are
    enumerated directly (the authors' script skipped k = 29 for n = 50 through a float
    truncation; see the spec). Rows are sorted best first; ties keep the enumeration order.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`PAIR_COLUMNS`.

    Examples
    --------
    >>> grid = synthetic_grid()
    >>> len(grid), round(float(grid["utility"].iloc[0]), 3)
    (4900, 0.994)
    """
    sizes = [int(s) for s in sizes]
    per_size = [(np.full(s + 1, s), np.arange(s + 1)) for s in sizes]
    n_all = np.concatenate([p[0] for p in per_size])
    k_all = np.concatenate([p[1] for p in per_size])
    idx_i, idx_j = np.meshgrid(np.arange(n_all.size), np.arange(n_all.size), indexing="ij")
    idx_i, idx_j = idx_i.reshape(-1), idx_j.reshape(-1)
    out = score_pairs(k_all[idx_i], n_all[idx_i], k_all[idx_j], n_all[idx_j])
    order = out.pop("order")
    frame = pd.DataFrame({c: out[c] for c in PAIR_COLUMNS})
    return frame.iloc[order].reset_index(drop=True)
