"""Every parameter of :class:`~primafacie.certainty.CertaintyRanking`, declared once;
:mod:`primafacie.params` lists what is derived from the declarations.

>>> from primafacie.validation import check_value
>>> check_value("on_empty", "drop", PARAMETER_CONSTRAINTS["on_empty"])
Traceback (most recent call last):
...
ValueError: on_empty must be one of 'error', 'skip'; got 'drop'
"""

from __future__ import annotations

from collections.abc import Mapping
from numbers import Integral, Real
from typing import Any, Optional

from ..errors import InputError
from ..groups.params import FAVORABLE, OUTCOME_FAVORABLE, WEIGHTS  # the roles, declared once
from ..params import Param, constraints, where
from ..validation import COLUMN, InstanceOf, Interval, ListOf, Options, Predicate

__all__ = [
    "DEFAULT_DECISION_MAKER",
    "PARAMS",
    "PARAMETER_CONSTRAINTS",
    "WHERE",
    "CRITERIA",
    "canonical_criterion",
    "MAX_PROTECTED_LEVELS",
    "DEFAULT_DRAWS",
]

#: Name of the audited decision when a configuration lists no decision-makers (the audit,
#: ``primafacie certainty --config`` and the report all use it).
DEFAULT_DECISION_MAKER = "audited decision"

#: The fairness criteria whose disparity is ranked.
CRITERIA = ("statistical_parity", "equal_opportunity", "predictive_parity")
_ALIASES = {**{c: c for c in CRITERIA}, "sp": "statistical_parity",
            "demographic_parity": "statistical_parity", "eo": "equal_opportunity",
            "equality_of_opportunity": "equal_opportunity", "pp": "predictive_parity"}  # fmt: skip


def canonical_criterion(criterion: str) -> str:
    """Full criterion name for a name or alias (``sp``, ``eo``, ``pp``)."""
    key = str(criterion).lower().replace("-", "_").replace(" ", "_")
    if key not in _ALIASES:
        raise InputError(f"unknown criterion {criterion!r}; use one of {', '.join(CRITERIA)}")
    return _ALIASES[key]


def _check_prior(value: Any) -> Any:
    from .posterior import check_prior  # numpy: loaded only when a prior is checked

    return check_prior(value)


#: Default largest number of values of a protected column (each value is a group); a column
#: with more is refused (see counts.group_codes).
MAX_PROTECTED_LEVELS = 20

#: Default posterior draws behind p_most_fair (Monte Carlo error <= 0.005 per probability).
DEFAULT_DRAWS = 10_000

#: Most posterior draws behind p_most_fair: its Monte Carlo error is at most 0.5/sqrt(n)
#: (0.00016 at 10^7); the draws are made in blocks of bounded memory, so a larger n only
#: multiplies the run time.
MAX_DRAWS = 10_000_000

#: Most values of a protected column (each value is a group): the AuditData limit of a
#: categorical column (primafacie.data.MAX_LEVELS); past it a column is an identifier.
MAX_LEVELS_BOUND = 1000

_CRITERION = Predicate(
    canonical_criterion,  # raises for an unknown name: "not satisfied"
    "one of " + ", ".join(repr(c) for c in CRITERIA) + " (or sp, eo, pp)",
    bad="fairness",
    values=CRITERIA,
)

#: Every parameter, in the order of ``analyses.certainty`` in audit.yaml.
PARAMS: tuple[Param, ...] = (
    Param("criterion", [_CRITERION], "statistical_parity",
          "Fairness criterion whose disparity is ranked: statistical_parity, "
          "equal_opportunity or predictive_parity (or sp, eo, pp).",
          flag="--criterion"),
    Param("protected", [None, COLUMN, ListOf(COLUMN)], None,
          "Protected columns (default: all, crossed into groups).", flag="--protected",
          type=Optional[list[str]]),
    FAVORABLE,
    Param("outcome", [None, COLUMN], None, "True-outcome column.", flag="--outcome", key="",
          source="outcome"),
    OUTCOME_FAVORABLE,
    Param("tie_breaker",
          [None, Options("accuracy"), InstanceOf(Mapping, name="a mapping {name: score}")],
          None, "accuracy, to break ties in utility (needs outcome).", flag="--tie-breaker"),
    Param("max_levels", [None, Interval(Integral, 1, MAX_LEVELS_BOUND)], MAX_PROTECTED_LEVELS,
          "Largest number of values of a protected column (each value is a group; at most "
          "1,000, the data's own limit of a categorical column); null allows any.",
          flag="--max-levels"),
    Param("utility",
          [Options("topsis", "norm"), Predicate(callable, "a callable u(delta, s)", bad=1)],
          "topsis", "topsis (the paper) or norm.", flag="--utility"),
    Param("disparity", [Options("frequentist", "bayesian")], "frequentist",
          "frequentist (the paper: gap of the rates) or bayesian (gap of the posterior means).",
          flag="--disparity"),
    Param("epsilon", [None, Interval(Real, 0, 1, closed="left")], None,
          "Also report the posterior probability that the disparity exceeds it.",
          flag="--epsilon"),
    Param("on_empty", [Options("error", "skip")], "error",
          "A group with no row in the criterion's denominator: error, or skip it.",
          flag="--on-empty"),
    Param("min_group", [None, Interval(Integral, 1, None)], None,
          "Pool the groups with fewer members into one (null: no pooling; formerly "
          "min_group_size, still read with a deprecation warning).",
          flag="--min-group"),
    Param("n_draws", [None, Interval(Integral, 1, MAX_DRAWS)], DEFAULT_DRAWS,
          "Posterior draws behind p_most_fair, the probability that each decision-maker has "
          "the smallest disparity (null: not computed; at most 10^7, whose Monte Carlo error, "
          "at most 0.5/sqrt(n_draws), is below 0.0002).", flag="--n-draws"),
    Param("seed", [Interval(Integral, 0, None)], 0, "Seed of those posterior draws.",
          flag="--seed"),
    Param("prior",
          [Predicate(_check_prior, "a pair (alpha0, beta0) of finite numbers > 0", bad=(0, 1))],
          (1.0, 1.0), "Beta prior of every rate (engine argument).", key=""),
    Param("ties", [Options("first", "most_uncertain")], "first",
          "How equal utilities are ordered (engine argument).", key=""),
    Param("ci_level", [Interval(Real, 0, 1, closed="neither")], 0.95,
          "Level of the credible intervals (engine argument).", key=""),
    Param("features", [None, ListOf(COLUMN)], None,
          "Model input columns (engine argument).", key=""),
    WEIGHTS,
)  # fmt: skip

#: What each parameter of :class:`CertaintyRanking` accepts (see :mod:`primafacie.validation`).
PARAMETER_CONSTRAINTS: dict[str, list[Any]] = constraints(PARAMS)

#: The CLI flag and ``audit.yaml`` key that set a parameter, quoted in error messages.
WHERE: dict[str, str] = where(PARAMS, "certainty")

#: Former names of parameters, read for one release with a DeprecationWarning: ``{old: new}``.
RENAMED: dict[str, str] = {"min_group_size": "min_group"}
