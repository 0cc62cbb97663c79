"""What the parameters of :class:`~primafacie.certainty.CertaintyAudit` accept, declared once.

:class:`~primafacie.certainty.CertaintyAudit` validates them at ``run``; the ``audit.yaml``
model :class:`~primafacie.certainty.spec.CertaintySpec` and the ``primafacie certainty`` flags
check the same constraints (:func:`primafacie.validation.check_value`).

>>> from primafacie.validation import check_value
>>> check_value("on_empty", "drop", PARAMETER_CONSTRAINTS["on_empty"])
Traceback (most recent call last):
...
ValueError: on_empty must be one of 'error', 'skip'; got 'drop'
"""

from __future__ import annotations

from collections.abc import Mapping
from numbers import Integral, Real
from typing import Any

from ..validation import InstanceOf, Interval, ListOf, Options, Predicate
from .counts import CRITERIA, canonical_criterion
from .posterior import check_prior

__all__ = ["DEFAULT_DECISION_MAKER", "PARAMETER_CONSTRAINTS", "WHERE"]

#: Name of the audited decision when a configuration lists no decision-makers (the audit,
#: ``primafacie certainty --config`` and the report all use it).
DEFAULT_DECISION_MAKER = "audited decision"


_COLUMN = InstanceOf(str, name="a column name")

#: What each parameter of :class:`CertaintyAudit` accepts (see :mod:`primafacie.validation`);
#: Most posterior draws behind p_most_fair: its Monte Carlo error is at most 0.5/sqrt(n)
#: (0.00016 at 10^7); the draws are made in blocks of bounded memory, so a larger n only
#: multiplies the run time.
MAX_DRAWS = 10_000_000

#: Most values of a protected column (each value is a group): the AuditData limit of a
#: categorical column (primafacie.data.MAX_LEVELS); past it a column is an identifier.
MAX_LEVELS_BOUND = 1000

#: ``audit.yaml``'s ``analyses.certainty`` and the CLI check the same constraints.
PARAMETER_CONSTRAINTS: dict[str, list[Any]] = {
    "criterion": [
        Predicate(
            canonical_criterion,  # raises for an unknown name: "not satisfied"
            "one of " + ", ".join(repr(c) for c in CRITERIA) + " (or sp, eo, pp)",
            bad="fairness",
        )
    ],
    "protected": [None, _COLUMN, ListOf(_COLUMN)],
    "outcome": [None, _COLUMN],
    "tie_breaker": [None, Options("accuracy"), InstanceOf(Mapping, name="a mapping {name: score}")],
    "utility": [Options("topsis", "norm"), Predicate(callable, "a callable u(delta, s)", bad=1)],
    "disparity": [Options("frequentist", "bayesian")],
    "prior": [Predicate(check_prior, "a pair (alpha0, beta0) of finite numbers > 0", bad=(0, 1))],
    "ties": [Options("first", "most_uncertain")],
    "on_empty": [Options("error", "skip")],
    "min_group_size": [None, Interval(Integral, 1, None)],
    "epsilon": [None, Interval(Real, 0, 1, closed="left")],
    "ci_level": [Interval(Real, 0, 1, closed="neither")],
    "features": [None, ListOf(_COLUMN)],
    "max_levels": [None, Interval(Integral, 1, MAX_LEVELS_BOUND)],
    "n_draws": [None, Interval(Integral, 1, MAX_DRAWS)],
    "seed": [Interval(Integral, 0, None)],
}

#: The CLI flag and ``audit.yaml`` key that set a parameter, quoted in error messages.
WHERE: dict[str, str] = {
    "criterion": "--criterion, analyses.certainty.criterion",
    "protected": "--protected, analyses.certainty.protected",
    "outcome": "--outcome, outcome",
    "tie_breaker": "--tie-breaker, analyses.certainty.tie_breaker",
    "utility": "--utility, analyses.certainty.utility",
    "disparity": "--disparity, analyses.certainty.disparity",
    "on_empty": "--on-empty, analyses.certainty.on_empty",
    "min_group_size": "--min-group-size, analyses.certainty.min_group_size",
    "epsilon": "--epsilon, analyses.certainty.epsilon",
    "max_levels": "--max-levels, analyses.certainty.max_levels",
    "n_draws": "--n-draws, analyses.certainty.n_draws",
    "seed": "--seed, analyses.certainty.seed",
}
