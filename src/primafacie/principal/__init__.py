"""Counterfactual fairness on principal strata (spec ``specs/principal-fairness.md``, seed 001).

A decision S is fair (Definition 1) when it does not depend on the protected attribute A among
people whose outcome Y would be the same under either value of A (strata Y(1)=Y(0)=1 and =0);
Definition 2 pools the two strata. These are only partially identified under Assumption 1, so
:class:`PrincipalFairness` can *refute* them (an interval excludes 0 or an LP is infeasible) but
never confirm them, and it computes the minimal randomised repair eps* (sum(eps*) = unfairness).
"""

from typing import TYPE_CHECKING

from .._lazy import getter

if TYPE_CHECKING:
    from .approx import alpha_star
    from .bounds import Prop1Bounds, corollary1, def3_gap, def4_bounds, prop1_bounds, stratum_bounds
    from .engine import PrincipalFairness, principal_arrays
    from .estimate import CellCounts, bootstrap_counts, count_cells, encode_cells
    from .evaluate import evaluate_margins
    from .lp import LPIntervals, lp_intervals
    from .repair import apply_eps, randomised_repair, solve_repair
    from .results import NOTE, PrincipalResult, RepairResult

__all__ = [
    "PrincipalFairness",
    "PrincipalResult",
    "RepairResult",
    "principal_arrays",
    "evaluate_margins",
    "prop1_bounds",
    "Prop1Bounds",
    "corollary1",
    "def3_gap",
    "def4_bounds",
    "stratum_bounds",
    "lp_intervals",
    "LPIntervals",
    "solve_repair",
    "apply_eps",
    "randomised_repair",
    "alpha_star",
    "count_cells",
    "encode_cells",
    "bootstrap_counts",
    "CellCounts",
    "NOTE",
]


#: Where each public name lives: imported on first use, so that the CLI can read this
#: package's declarations (:mod:`.params`) without loading the engine, numpy or pandas.
_LAZY = {
    "alpha_star": "approx",
    "Prop1Bounds": "bounds",
    "corollary1": "bounds",
    "def3_gap": "bounds",
    "def4_bounds": "bounds",
    "prop1_bounds": "bounds",
    "stratum_bounds": "bounds",
    "CellCounts": "estimate",
    "bootstrap_counts": "estimate",
    "count_cells": "estimate",
    "encode_cells": "estimate",
    "evaluate_margins": "evaluate",
    "PrincipalFairness": "engine",
    "principal_arrays": "engine",
    "LPIntervals": "lp",
    "lp_intervals": "lp",
    "apply_eps": "repair",
    "randomised_repair": "repair",
    "solve_repair": "repair",
    "NOTE": "results",
    "PrincipalResult": "results",
    "RepairResult": "results",
}

__getattr__ = getter(__name__, globals(), _LAZY)
