"""What the parameters of the FACTS engine accept, declared once as data.

:class:`~primafacie.recourse.RecourseAudit` validates its constructor's parameters against
:data:`PARAMETER_CONSTRAINTS` at ``fit``/``run`` and the arguments of ``run``/``evaluate``/``csc``
against :data:`RUN_CONSTRAINTS`; ``analyses.recourse`` in ``audit.yaml`` and the CLI flags reuse
the same constraints (:func:`primafacie.validation.check_value`), so a rule is written once and
every violation reads the same::

    RecourseAudit: support must be a number in (0, 1]; got 1.5 (--support, analyses.recourse.support)

>>> from primafacie.validation import validate_params
>>> validate_params("RecourseAudit", RUN_CONSTRAINTS, {"phi": [0.3, 1.2]}, PARAM_WHERE)
Traceback (most recent call last):
...
primafacie.errors.InputError: RecourseAudit: phi must be a number in [0, 1] or a non-empty list of them; got [0.3, 1.2] (--phi, analyses.recourse.phi)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from numbers import Integral, Real
from typing import Any

import numpy as np

from ..compute import Backend
from ..validation import InstanceOf, Interval, ListOf, Options, Predicate
from .metrics import resolve_metric

__all__ = [
    "PARAMETER_CONSTRAINTS",
    "RUN_CONSTRAINTS",
    "SCORE_PARAM",
    "PARAM_WHERE",
    "STABILITY_CONSTRAINTS",
]


def _is_names(value: Any) -> bool:
    """A column name, or a list/tuple/set of them (what ``immutable=`` and friends accept)."""
    if isinstance(value, str):
        return True
    return isinstance(value, (list, tuple, set, frozenset)) and all(
        isinstance(v, str) for v in value
    )


def _is_number_map(value: Any, low: float, finite: bool) -> bool:
    """``{column: number >= low}`` (finite numbers only when ``finite``)."""
    if not isinstance(value, Mapping):
        return False
    for v in value.values():
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (Real, np.integer, np.floating)):
            return False
        x = float(v)
        if math.isnan(x) or x < low or (finite and math.isinf(x)):
            return False
    return True


def _is_metric(value: Any) -> bool:
    resolve_metric(value)  # raises for an unknown name: Predicate turns that into "not satisfied"
    return True


def _number_map(finite: bool) -> Predicate:
    """``{feature: number ≥ 0}`` (``finite``: inf refused too) as a constraint."""
    return Predicate(
        lambda v: _is_number_map(v, 0.0, finite=finite),
        f"a mapping {{feature: {'finite ' if finite else ''}number ≥ 0}}",
        bad={"x": -1},
    )


#: Most bootstrap resamples of the rank stability: the Monte Carlo error of a share from B
#: resamples is at most 0.5/sqrt(B) (0.0016 at 100,000), finer than any reading of a rank; a
#: larger B only multiplies the run time (each resample re-weights every fitted flip).
MAX_N_BOOT = 100_000

_NAMES = Predicate(_is_names, "a column name or a list of column names", bad=3.5)

#: What each parameter of :class:`RecourseAudit` accepts (checked at ``fit``/``run``).
PARAMETER_CONSTRAINTS: dict[str, list[Any]] = {
    "protected": [None, InstanceOf(str, name="a column name")],
    "support": [Interval(Real, 0, 1, closed="right")],
    "feature_weights": [None, _number_map(finite=True)],
    "immutable": [None, _NAMES],
    "monotone": [None, _NAMES],
    "max_step": [None, _number_map(finite=False)],
    "bins": [None, InstanceOf(Mapping, name="a mapping {numeric feature: q or [edges]}")],
    "binary_cost": [None, _NAMES],
    "features": [None, InstanceOf(Mapping, name="a mapping {column: kind}")],
    "missing_values": [InstanceOf(list, tuple, set, frozenset, name="a list of values")],
    "exact_features": [InstanceOf(bool, name="a boolean")],
    "normalize": [
        InstanceOf(bool, name="a boolean"),
        Predicate(
            lambda v: not isinstance(v, str) and _is_names(v), "a list of feature names", bad=3.5
        ),
    ],
    "max_len": [None, Interval(Integral, 1, None)],
    "legacy": [InstanceOf(bool, name="a boolean")],
    "method": [Options("bitset", "mlxtend")],
    "chunk_rows": [Interval(Integral, 1, None)],
    "backend": [
        None,
        InstanceOf(str, Mapping, Backend, name="a compute backend name, mapping or Backend"),
    ],
}

#: What :meth:`RecourseAudit.run` / :meth:`~RecourseAudit.evaluate` / :meth:`~RecourseAudit.csc`
#: accept beyond the constructor's parameters.
RUN_CONSTRAINTS: dict[str, list[Any]] = {
    "phi": [ListOf(Interval(Real, 0, 1), scalar=True)],
    "budgets": [Options("auto"), ListOf(Interval(Real, 0, None), scalar=True)],
    "metrics": [
        Options("all"),
        ListOf(
            Predicate(_is_metric, "a metric name (EE, ECR, EEWB, ECE, FECT, ECMR)", bad="XX"),
            scalar=True,
        ),
    ],
    "top": [Interval(Integral, 1, None)],
    "show": [Options("relevant", "all")],
}

#: The CLI flag and ``audit.yaml`` key that set a parameter (appended to its error message).
PARAM_WHERE: dict[str, str] = {
    "backend": "compute",
    "protected": "--protected, analyses.recourse.protected",
    "support": "--support, analyses.recourse.support",
    "feature_weights": "--weight, analyses.recourse.feature_weights",
    "immutable": "--immutable, analyses.recourse.immutable",
    "monotone": "--monotone, analyses.recourse.monotone",
    "max_step": "--max-step",
    "bins": "--bins, analyses.recourse.bins",
    "exact_features": "--loose",
    "legacy": "--legacy",
    "phi": "--phi, analyses.recourse.phi",
    "budgets": "--budget",
    "metrics": "--metrics, analyses.recourse.metrics",
    "top": "--top, analyses.recourse.top",
    "n_boot": "--n-boot, analyses.recourse.n_boot",
    "seed": "--seed, analyses.recourse.seed",
}


#: The parameter of a single definition in :meth:`RecourseAudit.scores` / ``rank`` / ``csc``.
SCORE_PARAM: dict[str, list[Any]] = {
    "phi": [Interval(Real, 0, 1)],
    "budget": [Interval(Real, 0, None)],
}

#: ``analyses.recourse.n_boot`` and ``seed``: the rank-stability bootstrap
#: (:func:`~primafacie.recourse.stability.rank_stability`); 0 resamples turn it off.
STABILITY_CONSTRAINTS: dict[str, list[Any]] = {
    "n_boot": [Interval(Integral, 0, MAX_N_BOOT)],
    "seed": [Interval(Integral, 0, None)],
}
