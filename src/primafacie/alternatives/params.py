"""What the parameters of :class:`~primafacie.alternatives.AlternativeSearch` accept, declared
once.

:class:`~primafacie.alternatives.AlternativeSearch` validates them at ``run``; the
``audit.yaml`` model :class:`~primafacie.alternatives.spec.AlternativesSpec`, the
``primafacie alternatives`` flags and ``docs/parameters.md`` are derived from :data:`PARAMS`
(see :mod:`primafacie.params`).

>>> from primafacie.validation import check_value
>>> check_value("folds", 1, PARAMETER_CONSTRAINTS["folds"], where=WHERE["folds"])
Traceback (most recent call last):
...
ValueError: folds must be an integer in [2, 20]; got 1 (--folds, analyses.alternatives.folds)
"""

from __future__ import annotations

from collections.abc import Mapping
from numbers import Integral, Real
from typing import Any, Literal, Optional, Union

from ..params import Param, constraints, where
from ..validation import InstanceOf, Interval, ListOf, Options

__all__ = [
    "DISPARITIES",
    "ESTIMATOR_GRIDS",
    "PARAMS",
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

#: Every parameter of :class:`~primafacie.alternatives.AlternativeSearch`, declared once (see
#: :mod:`primafacie.params`): the engine's constraints, ``analyses.alternatives`` of
#: audit.yaml, the ``primafacie alternatives`` options and docs/parameters.md derive from it.
PARAMS: tuple[Param, ...] = (
    Param("drop_features", [InstanceOf(bool, name="true or false")], True,
          "Try the audited model with each feature neutralised, and with each pair among the "
          "`pairs` features most associated with the protected attribute neutralised.",
          flag="--drop-features/--no-drop-features"),
    Param("pairs", [Interval(Integral, 0, MAX_PAIRS)], 4,
          "How many of the most associated features are paired (pairs·(pairs−1)/2 "
          "candidates; at most 10, 45 pairs).", flag="--pairs"),
    Param("estimators", [None, ListOf(Options(*ESTIMATOR_GRIDS))], None,
          "Other scikit-learn estimators to try by name (none by default), each over its "
          "small grid: "
          "logistic_regression (C 0.1, 1, 10), decision_tree (max_depth 3, 5, 8), "
          "random_forest (max_depth 5, none), gradient_boosting (max_depth 2, 3), "
          "hist_gradient_boosting (max_depth 3, none).",
          flag="--estimators", cli="list",
          type=Optional[list[Literal[tuple(ESTIMATOR_GRIDS)]]]),  # type: ignore[misc]
    Param("params", [None, InstanceOf(Mapping, name="a mapping {parameter: [values]}")], {},
          "A grid on the audited estimator's own hyperparameters, {name: [values]} (Pipeline "
          "names such as clf__C).", type=dict[str, list[Any]]),
    Param("utility",
          [Options(*UTILITIES),
           InstanceOf(Mapping, name="{profit: {tp: .., fp: .., fn: .., tn: ..}}")],
          "auc", "auc, accuracy, balanced_accuracy or {profit: {tp: .., fp: .., fn: .., tn: ..}} "
          "(the gain of each kind of decision; the utility is the mean gain; audit.yaml only).",
          flag="--utility",
          type=Union[Literal[UTILITIES], dict[str, dict[str, float]]]),  # type: ignore[valid-type]
    Param("tolerance", [Interval(Real, 0, 1, closed="left")], 0.01,
          "Utility loss accepted (0.01: one point of AUC).", flag="--tolerance"),
    Param("disparity", [Options(*DISPARITIES)], "impact_ratio",
          "impact_ratio (selection-rate ratio, capped at parity), selection_difference or "
          "equal_opportunity (TPR gap), for every protected attribute; the worst counts.",
          flag="--disparity"),
    Param("folds", [Interval(Integral, 2, MAX_FOLDS)], 5,
          "Cross-validation folds on the search rows.", flag="--folds"),
    Param("holdout", [Interval(Real, 0.05, 0.9)], 0.3,
          "Share of the audited rows held out from the whole choice for the final comparison "
          "(without a train file).", flag="--holdout"),
    Param("n_boot", [Interval(Integral, 50, MAX_BOOT)], 500,
          "Bootstrap replicates of every interval (paired across candidates).", flag="--n-boot"),
    Param("alpha", [Interval(Real, 0, 0.5, closed="neither")], 0.05,
          "Level of the disparity test (two-sided) and of the utility non-inferiority test "
          "(one-sided).", flag="--alpha"),
    Param("n_draws", [None, Interval(Integral, 1, 10_000_000)], 10_000,
          "Posterior draws of the certainty ranking's P(most fair); null skips it.",
          flag="--n-draws", type=Optional[int]),
    Param("seed", [Interval(Integral, 0, None)], 0,
          "Seed of the split, folds, estimators, bootstrap and posterior draws.", flag="--seed"),
)  # fmt: skip

#: What each parameter of :class:`AlternativeSearch` accepts (see :mod:`primafacie.validation`).
PARAMETER_CONSTRAINTS: dict[str, list[Any]] = constraints(PARAMS)

#: The flag and ``audit.yaml`` key behind each parameter, quoted in error messages.
WHERE: dict[str, str] = where(PARAMS, "alternatives")
