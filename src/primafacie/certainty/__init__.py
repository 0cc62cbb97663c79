"""Certainty of fairness: Bayesian disparity, uncertainty, utility ranking and selection.

Implements Duong & Conrad, "(Un)certainty of (Un)fairness: Preference-Based Selection of
Certainly Fair Decision-Makers" (ECAI 2024). Each decision-maker (model, rule or human) is a
point (disparity, uncertainty) where the uncertainty is the normalised variance of the Beta
posteriors of the two groups defining the disparity; a utility encoding "certainly fair >
uncertainly fair > uncertainly unfair > certainly unfair" ranks them.

>>> from primafacie.certainty import decision_maker, u_topsis
>>> d, s = decision_maker(3, 3, 0, 3)          # Table 1, recruiter A
>>> round(float(u_topsis(d, s)), 3)
-0.629
"""

from typing import TYPE_CHECKING

from .._lazy import getter

if TYPE_CHECKING:
    from .counts import (
        CRITERIA,
        GroupCodes,
        count_events,
        count_matrix,
        criterion_events,
        group_codes,
        group_counts,
    )
    from .engine import DEFAULT_DECISION_MAKER, CertaintyRanking, score_counts
    from .posterior import (
        UNIFORM_PRIOR,
        as_counts,
        beta_mean,
        beta_var,
        credible_interval,
        decision_maker,
        decision_maker_multigroup,
        disparity,
        group_normalized_var,
        max_posterior_var,
        normalized_var,
        posterior,
        prob_disparity_exceeds,
        treatment,
        uncertainty,
    )
    from .results import CertaintyResult, plot_decision_makers
    from .score import score_pairs, synthetic_grid
    from .select import rank, select_optimal
    from .utility import (
        AxiomCheck,
        check_trivial_preferences,
        indifference_curve,
        indifference_delta,
        u_norm,
        u_topsis,
    )

__all__ = [
    "CRITERIA",
    "DEFAULT_DECISION_MAKER",
    "UNIFORM_PRIOR",
    "AxiomCheck",
    "as_counts",
    "CertaintyRanking",
    "CertaintyResult",
    "GroupCodes",
    "beta_mean",
    "beta_var",
    "check_trivial_preferences",
    "count_events",
    "count_matrix",
    "credible_interval",
    "criterion_events",
    "decision_maker",
    "decision_maker_multigroup",
    "disparity",
    "group_codes",
    "group_counts",
    "group_normalized_var",
    "indifference_curve",
    "indifference_delta",
    "max_posterior_var",
    "normalized_var",
    "plot_decision_makers",
    "posterior",
    "prob_disparity_exceeds",
    "rank",
    "score_counts",
    "score_pairs",
    "select_optimal",
    "synthetic_grid",
    "treatment",
    "u_norm",
    "u_topsis",
    "uncertainty",
]


#: Where each public name lives: imported on first use, so that the CLI can read this
#: package's declarations (:mod:`.params`) without loading the engine, numpy or pandas.
_LAZY = {
    "DEFAULT_DECISION_MAKER": "engine",
    "CertaintyRanking": "engine",
    "score_counts": "engine",
    "CRITERIA": "counts",
    "GroupCodes": "counts",
    "count_events": "counts",
    "count_matrix": "counts",
    "criterion_events": "counts",
    "group_codes": "counts",
    "group_counts": "counts",
    "UNIFORM_PRIOR": "posterior",
    "as_counts": "posterior",
    "beta_mean": "posterior",
    "beta_var": "posterior",
    "credible_interval": "posterior",
    "decision_maker": "posterior",
    "decision_maker_multigroup": "posterior",
    "disparity": "posterior",
    "group_normalized_var": "posterior",
    "max_posterior_var": "posterior",
    "normalized_var": "posterior",
    "posterior": "posterior",
    "prob_disparity_exceeds": "posterior",
    "treatment": "posterior",
    "uncertainty": "posterior",
    "CertaintyResult": "results",
    "plot_decision_makers": "results",
    "score_pairs": "score",
    "synthetic_grid": "score",
    "rank": "select",
    "select_optimal": "select",
    "AxiomCheck": "utility",
    "check_trivial_preferences": "utility",
    "indifference_curve": "utility",
    "indifference_delta": "utility",
    "u_norm": "utility",
    "u_topsis": "utility",
}

__getattr__ = getter(__name__, globals(), _LAZY)
