"""The comparison columns of the group-metrics summary that test one group against its
reference: the Uniform Guidelines' adverse-impact reading (Fisher, pooled z, shortfall, the
four-fifths and statistical criteria) and the error-rate gaps (TPR, FPR, equalized odds)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from .stats import abs_interval, fisher_exact_p, newcombe_interval, pooled_z, shortfall


def _criteria(practical: Any, statistical: Any) -> str:
    """Which adverse-impact criteria hold: the four-fifths rule and Fisher's test at alpha."""
    if pd.isna(practical) or pd.isna(statistical):
        return "undefined"
    return {
        (True, True): "practical and statistical",
        (True, False): "practical only",
        (False, True): "statistical only",
        (False, False): "neither",
    }[(bool(practical), bool(statistical))]


def adverse_impact(out: pd.DataFrame, *, weighted: bool, alpha: float) -> None:
    """Add the Uniform Guidelines' adverse-impact reading to ``out`` (in place).

    29 CFR 1607.4(D) reads the four-fifths rule (practical significance) together with
    statistical significance. Columns: ``fisher_p`` (Fisher's exact test, two-sided),
    ``z_pooled`` (two-proportion z with pooled variance; the "two standard deviations"
    test flags |z| > 2), ``shortfall`` (favourable decisions the group lacks to reach the
    reference rate), ``statistical`` (``fisher_p < alpha``) and ``adverse_impact``: which
    of the practical (below four-fifths) and statistical criteria hold.
    """
    counts = [out[c].to_numpy() for c in ("selection_k", "selection_n",
                                           "reference_k", "reference_n")]  # fmt: skip
    exact = counts
    if weighted:
        # weighted: the tests on the Kish effective counts (Fisher's on them rounded), the
        # shortfall in weight units (Σ w of the group times the rate gap)
        ne, rne = out["selection_n_eff"].to_numpy(), out["reference_n_eff"].to_numpy()
        rate, rrate = out["selection_rate"].to_numpy(), out["reference_rate"].to_numpy()
        counts = [rate * ne, ne, rrate * rne, rne]
        exact = [np.rint(c) for c in counts]
        wn, rwn = out["selection_weighted_n"].to_numpy(), out["reference_weighted_n"].to_numpy()
        out["fisher_p"] = fisher_exact_p(*exact)
        out["z_pooled"] = pooled_z(*counts)
        counts = [rate * wn, wn, rrate * rwn, rwn]
    else:
        out["fisher_p"] = fisher_exact_p(*exact)
        out["z_pooled"] = pooled_z(*counts)
    out["two_sd"] = pd.array(
        [pd.NA if np.isnan(z) else bool(abs(z) > 2) for z in out["z_pooled"]], dtype="boolean"
    )
    out["shortfall"] = shortfall(*counts)
    p = out["fisher_p"].to_numpy(dtype=float)
    stat = pd.array([pd.NA if np.isnan(v) else bool(v < alpha) for v in p], "boolean")
    out["statistical"] = stat
    out["adverse_impact"] = [
        _criteria(practical, statistical)
        for practical, statistical in zip(out["four_fifths"], stat, strict=True)
    ]


def error_gaps(
    out: pd.DataFrame, rates: Callable[[str], pd.DataFrame], *, weighted: bool, alpha: float
) -> None:
    """Add the TPR / FPR gaps and the equalized-odds difference to ``out`` (in place)."""
    half = {}
    for metric, name in (("tpr", "equal_opportunity_diff"), ("fpr", "fpr_diff")):
        rows = rates(metric)
        prot = rows[rows["role"] == "protected"]
        ref = rows[rows["role"] == "reference"].set_index("attribute").loc[prot["attribute"]]
        out[metric] = prot["rate"].to_numpy()
        out[f"reference_{metric}"] = ref["rate"].to_numpy()
        out[name] = prot["diff"].to_numpy()
        out[f"{name}_low"] = prot["diff_low"].to_numpy()
        out[f"{name}_high"] = prot["diff_high"].to_numpy()
        k, n, kr, nr = (prot["k"].to_numpy(), prot["n"].to_numpy(), ref["k"].to_numpy(),
                        ref["n"].to_numpy())  # fmt: skip
        if weighted:  # the Kish effective counts, as for every interval
            n, nr = prot["n_eff"].to_numpy(), ref["n_eff"].to_numpy()
            k, kr = prot["rate"].to_numpy() * n, ref["rate"].to_numpy() * nr
        lo, hi = newcombe_interval(k, n, kr, nr, alpha / 2, sided="two")
        half[metric] = abs_interval(lo, hi)
    gaps = np.abs(out[["equal_opportunity_diff", "fpr_diff"]].to_numpy(dtype=float))
    with np.errstate(invalid="ignore"):
        # NaN when either gap is undefined (an empty denominator): the max is not known
        out["equalized_odds_diff"] = np.where(np.isnan(gaps).any(axis=1), np.nan, gaps.max(1))
        out["equalized_odds_low"] = np.maximum(half["tpr"][0], half["fpr"][0])
        out["equalized_odds_high"] = np.maximum(half["tpr"][1], half["fpr"][1])
