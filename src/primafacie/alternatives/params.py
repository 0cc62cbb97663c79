"""What the parameters of :class:`~primafacie.alternatives.AlternativeSearch` accept.

The engine validates them at ``run``; ``analyses.alternatives`` of ``audit.yaml``
(:class:`~primafacie.alternatives.spec.AlternativesSpec`) checks the same constraints.
"""

from __future__ import annotations

from collections.abc import Mapping
from numbers import Integral, Real
from typing import Any

from ..validation import InstanceOf, Interval, ListOf, Options

__all__ = [
    "DISPARITIES",
    "ESTIMATOR_GRIDS",
    "PARAMETER_CONSTRAINTS",
    "UTILITIES",
    "WHERE",
]

#: Utilities a candidate is judged by (higher is better). ``profit`` is a mapping
#: ``{profit: {tp, fp, fn, tn}}``: the mean gain per decision.
UTILITIES = ("auc", "accuracy", "balanced_accuracy")

#: How disparity is measured for every protected attribute (the worst attribute counts).
DISPARITIES = ("impact_ratio", "selection_difference", "equal_opportunity")

#: Estimators a search may try by name, each with its small documented grid (every combination
#: is one candidate). The audited model's preprocessing is kept when it is a Pipeline.
ESTIMATOR_GRIDS: dict[str, dict[str, list[Any]]] = {
    "logistic_regression": {"C": [0.1, 1.0, 10.0]},
    "decision_tree": {"max_depth": [3, 5, 8]},
    "random_forest": {"max_depth": [5, None]},
    "gradient_boosting": {"max_depth": [2, 3]},
    "hist_gradient_boosting": {"max_depth": [3, None]},
}

#: Upper bounds that keep a search's work stated and finite.
MAX_FOLDS = 20
MAX_BOOT = 10_000
MAX_PAIRS = 10

PARAMETER_CONSTRAINTS: dict[str, list[Any]] = {
    "drop_features": [InstanceOf(bool, name="true or false")],
    "pairs": [Interval(Integral, 0, MAX_PAIRS)],
    "estimators": [None, ListOf(Options(*ESTIMATOR_GRIDS))],
    "params": [None, InstanceOf(Mapping, name="a mapping {parameter: [values]}")],
    "utility": [
        Options(*UTILITIES),
        InstanceOf(Mapping, name="{profit: {tp: .., fp: .., fn: .., tn: ..}}"),
    ],
    "tolerance": [Interval(Real, 0, 1, closed="left")],
    "disparity": [Options(*DISPARITIES)],
    "folds": [Interval(Integral, 2, MAX_FOLDS)],
    "holdout": [Interval(Real, 0.05, 0.9)],
    "n_boot": [Interval(Integral, 50, MAX_BOOT)],
    "alpha": [Interval(Real, 0, 0.5, closed="neither")],
    "n_draws": [None, Interval(Integral, 1, 10_000_000)],
    "seed": [Interval(Integral, 0, None)],
}

#: The flag and ``audit.yaml`` key behind each parameter, for error messages.
WHERE: dict[str, str] = {name: f"analyses.alternatives.{name}" for name in PARAMETER_CONSTRAINTS}
