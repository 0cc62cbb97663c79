"""Every parameter of FACTS, declared once (:mod:`primafacie.params` lists what is derived):
the constructor's (:data:`PARAMETER_CONSTRAINTS`), those of ``run``/``evaluate``/``csc``
(:data:`RUN_CONSTRAINTS`) and the rank-stability bootstrap's.

>>> from primafacie.validation import validate_params
>>> validate_params("RecourseFairness", RUN_CONSTRAINTS, {"phi": [0.3, 1.2]}, PARAM_WHERE)
Traceback (most recent call last):
...
primafacie.errors.InputError: RecourseFairness: phi must be a number in [0, 1] or a non-empty list of them; got [0.3, 1.2] (--phi, analyses.recourse.phi)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from numbers import Integral, Real
from typing import Any, Literal, Union

from ..params import Param, Switch, constraints, where
from ..validation import BOOL, InstanceOf, Interval, ListOf, Options, Predicate, _is_bool, is_names

__all__ = [
    "PARAMS",
    "PARAMETER_CONSTRAINTS",
    "RUN_CONSTRAINTS",
    "SCORE_PARAM",
    "PARAM_WHERE",
    "DEFAULT_N_BOOT",
    "MAX_N_BOOT",
    "AUTO_BIN_LEVELS",
    "AUTO_BINS",
]

#: A numeric feature with more distinct values than this gets AUTO_BINS quantile bins unless
#: its bins are given (:func:`primafacie.recourse.items.default_bins`): one item per raw value
#: would make few values frequent and actions such as "age = 40" that no one reads as recourse.
AUTO_BIN_LEVELS = 10
AUTO_BINS = 5
#: The names of :data:`primafacie.recourse.metrics.METRICS`, for the help and the constraint's
#: text (that module loads numpy; tests/recourse/test_params.py keeps the two equal).
METRIC_NAMES = ("EE", "ECR", "EEWB", "ECE", "FECT", "ECMR")


def _is_metric(value: Any) -> bool:
    from .metrics import resolve_metric  # numpy: loaded only when a metric name is checked

    resolve_metric(value)  # raises for an unknown name: Predicate turns that into "not satisfied"
    return True


def _is_backend(value: Any) -> bool:
    if isinstance(value, (str, Mapping)):
        return True
    from ..compute import Backend  # loaded only when a backend object is checked

    return isinstance(value, Backend)


def _number_map(finite: bool) -> Predicate:
    """``{feature: number ≥ 0}`` (``finite``: inf refused too) as a constraint."""

    def ok(value: Any) -> bool:  # NaN fails v >= 0
        return isinstance(value, Mapping) and all(
            isinstance(v, Real) and not _is_bool(v) and v >= 0 and not (finite and math.isinf(v))
            for v in value.values()
        )

    what = f"a mapping {{feature: {'finite ' if finite else ''}number ≥ 0}}"
    return Predicate(ok, what, bad={"x": -1})


_NAMES = Predicate(is_names, "a column name or a list of column names", bad=3.5)

#: Rank-stability resamples in the audit (the engine function has no default: it is asked for).
#: 50 resamples give each share to about ±7 points at a cost of a few seconds on the demo;
#: ``n_boot: 0`` turns it off.
DEFAULT_N_BOOT = 50

#: Most bootstrap resamples of the rank stability: the Monte Carlo error of a share from B
#: resamples is at most 0.5/sqrt(B) (0.0016 at 100,000), finer than any reading of a rank; a
#: larger B only multiplies the run time (each resample re-weights every fitted flip).
MAX_N_BOOT = 100_000

#: The parameters of :class:`RecourseFairness`'s constructor (checked at ``fit``/``run``).
_INIT: tuple[Param, ...] = (
    Param("protected", [None, InstanceOf(str, name="a column name")], None,
          "Protected attribute audited (default: the only one).", flag="--protected"),
    Param("support", [Interval(Real, 0, 1, closed="right")], 0.01,
          "Minimum support of frequent itemsets, in (0, 1].", flag="--support"),
    Param("feature_weights", [None, _number_map(finite=True)], {},
          "Cost weight per feature (default 1).", flag="--weight", type=dict[str, float]),
    Param("immutable", [None, _NAMES], [],
          "Features an action may not change (protected ones never change).",
          flag="--immutable", type=list[str]),
    Param("monotone", [None, _NAMES], [], "Features that may not decrease.",
          flag="--monotone", type=list[str]),
    Param("max_step", [None, _number_map(finite=False)], None,
          "Largest change of a numeric feature in one action.", flag="--max-step", key="",
          type=dict[str, float]),
    Param("bins", [None, InstanceOf(Mapping, name="a mapping {numeric feature: q or [edges]}")],
          {}, "Numeric bins per feature: a number of quantiles or a list of edges (default: "
          f"{AUTO_BINS} quantile bins for a numeric feature with more than {AUTO_BIN_LEVELS} "
          "distinct values; actions move values between bins linearly).",
          flag="--bins", type=dict[str, Union[int, list[float]]]),
    Param("binary_cost", [None, _NAMES], None, "Features costed 0/1 (engine argument).", key=""),
    Param("features", [None, InstanceOf(Mapping, name="a mapping {column: kind}")], None,
          "Feature kinds (engine argument).", key=""),
    Param("missing_values", [InstanceOf(list, tuple, set, frozenset, name="a list of values")],
          None, "Values read as missing (engine argument).", key=""),
    Param("exact_features", [BOOL], True,
          "Actions change only the features of the subgroup (--loose: any).", flag="--loose",
          key="", switch=Switch(False, "Actions over any subset of features.")),
    Param("normalize",
          [BOOL, Predicate(lambda v: not isinstance(v, str) and is_names(v),
                            "a list of feature names", bad=3.5)],
          True, "Normalise numeric costs by their range (engine argument).", key=""),
    Param("max_len", [None, Interval(Integral, 1, None)], None,
          "Longest itemset mined (engine argument).", key=""),
    Param("legacy", [BOOL], False,
          "Reproduce the reference code's conventions (FECT over index-by-index lists).",
          flag="--legacy", key=""),
    Param("method", [Options("bitset", "mlxtend")], "bitset",
          "Frequent-itemset miner (engine argument).", key=""),
    Param("chunk_rows", [Interval(Integral, 1, None)], 2_000_000,
          "Rows per chunk of the effectiveness pass (engine argument).", key=""),
    Param("backend",
          [None, Predicate(_is_backend, "a compute backend name, mapping or Backend", bad=1)],
          None, "Compute backend.", key="", source="compute"),
)  # fmt: skip

#: What :meth:`RecourseFairness.run` / ``evaluate`` / ``csc`` accept beyond the constructor's.
_RUN: tuple[Param, ...] = (
    Param("phi", [ListOf(Interval(Real, 0, 1), scalar=True)], [0.3, 0.7],
          "Effectiveness thresholds of ECR and ECE.", flag="--phi"),
    Param("budgets", [Options("auto"), ListOf(Interval(Real, 0, None), scalar=True)], "auto",
          "Cost budgets of EE and EEWB (auto: from the costs).", flag="--budget", key=""),
    Param("metrics",
          [Options("all"),
           ListOf(Predicate(_is_metric, f"a metric name ({', '.join(METRIC_NAMES)})",
                            bad="XX"), scalar=True)],
          "all", f"all, or some of {', '.join(METRIC_NAMES)} (a list; comma-separated on "
          "the command line: EE,ECE).", flag="--metrics",
          type=Union[Literal["all"], list[str]]),
    Param("top", [Interval(Integral, 1, None)], 10,
          "Comparative subgroup counterfactuals per definition (tables and CSC files; the "
          "report shows the first).", flag="--top"),
    Param("show", [Options("relevant", "all")], "relevant",
          "Which subgroups a CSC shows (engine argument).", key=""),
)  # fmt: skip

#: ``analyses.recourse.n_boot`` and ``seed``: the rank-stability bootstrap
#: (:func:`~primafacie.recourse.stability.rank_stability`); 0 resamples turn it off.
_STABILITY: tuple[Param, ...] = (
    Param("n_boot", [Interval(Integral, 0, MAX_N_BOOT)], DEFAULT_N_BOOT,
          "Bootstrap resamples of the audited rows for the rank stability of the top 10 "
          "subgroups of each definition (0 = off; at most 100,000: its Monte Carlo error, at "
          "most 0.5/sqrt(n_boot), is then below 0.002). Re-weights the fitted flips: no model "
          "call.", flag="--n-boot"),
    Param("seed", [Interval(Integral, 0, None)], 0, "Seed of the rank-stability resamples.",
          flag="--seed"),
)  # fmt: skip

#: Every parameter of the FACTS analysis.
PARAMS: tuple[Param, ...] = (*_INIT, *_RUN, *_STABILITY)

#: What each parameter of :class:`RecourseFairness` accepts (checked at ``fit``/``run``).
PARAMETER_CONSTRAINTS: dict[str, list[Any]] = constraints(_INIT)

#: What :meth:`RecourseFairness.run` / :meth:`~RecourseFairness.evaluate` / :meth:`~RecourseFairness.csc`
#: accept beyond the constructor's parameters.
RUN_CONSTRAINTS: dict[str, list[Any]] = constraints(_RUN)

#: The CLI flag and ``audit.yaml`` key that set a parameter (appended to its error message).
PARAM_WHERE: dict[str, str] = where(PARAMS, "recourse")

#: The parameter of a single definition in :meth:`RecourseFairness.scores` / ``rank`` / ``csc``.
SCORE_PARAM: dict[str, list[Any]] = {
    "phi": [Interval(Real, 0, 1)],
    "budget": [Interval(Real, 0, None)],
}
