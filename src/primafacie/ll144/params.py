"""Every parameter of the Local Law 144 bias audit, declared once; :mod:`primafacie.params`
lists what is derived from the declarations (the engine's validation, ``analyses.ll144`` of
audit.yaml and its JSON Schema, the ``primafacie ll144`` options, docs/parameters.md).

>>> from primafacie.validation import check_value
>>> check_value("exclude_below", 0.7, PARAMETER_CONSTRAINTS["exclude_below"],
...             where=WHERE["exclude_below"])
Traceback (most recent call last):
...
ValueError: exclude_below must be a number in [0, 0.5); got 0.7 (--exclude-below, analyses.ll144.exclude_below)
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from numbers import Real
from typing import Any, Optional, Union

from ..params import REQUIRED, Param, constraints, where
from ..validation import BOOL, COLUMN, InstanceOf, Interval, Predicate

__all__ = ["PARAMS", "ENGINE_PARAMS", "PARAMETER_CONSTRAINTS", "WHERE", "DEFAULT_EXCLUDE_BELOW"]

#: The rule lets an auditor leave out of the impact ratios a category holding less than 2% of
#: the data (6 RCNY §5-301(d)).
DEFAULT_EXCLUDE_BELOW = 0.02


def _is_categories(value: Any) -> bool:
    """A non-empty ``{label: column}`` of text."""
    return (
        isinstance(value, Mapping)
        and len(value) > 0
        and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())
    )


def _is_date(value: Any) -> bool:
    """A date written YYYY-MM-DD (what the summary page prints)."""
    _dt.date.fromisoformat(str(value))  # raises: not satisfied
    return True


_CATEGORIES = Predicate(
    _is_categories,
    "a non-empty mapping {label: column}, e.g. {sex: gender, race/ethnicity: race}",
    bad={},
)
_DATE = Predicate(_is_date, "a date YYYY-MM-DD", bad="26/11/2026")
#: A value audit.yaml can write (the type of an ``unknown`` item).
_SCALAR = InstanceOf(bool, int, float, str, name="a value")
#: A list of such values, possibly empty (none is unknown besides blank cells).
_VALUES = Predicate(
    lambda v: isinstance(v, (list, tuple)) and all(_SCALAR.satisfied(x) for x in v),
    "a list of values (possibly empty)",
    bad="Unknown",
)
#: Free text (printed, escaped, on the summary page).
_TEXT = InstanceOf(str, name="text")

#: Every parameter, in the order of ``analyses.ll144`` in audit.yaml.
PARAMS: tuple[Param, ...] = (
    Param("categories", [_CATEGORIES], REQUIRED,
          "{label: column} of the rule's categories, e.g. {sex: gender, race/ethnicity: "
          "race}; their combinations are the intersectional categories.",
          flag="--category", type=dict[str, str]),
    Param("score", [BOOL, COLUMN], False,
          "false: selection rates from the audited decision; true: the score the decision "
          "is thresholded from (decision: {score: COLUMN, threshold: T}; with flags, "
          "--decision's column); or a score column. Scores give scoring rates (share above "
          "the median).",
          flag="--score"),
    Param("exclude_below", [Interval(Real, 0, 0.5, closed="left")], DEFAULT_EXCLUDE_BELOW,
          "Categories under this share of the data are listed but left out of the impact "
          "ratios, as the rule allows (0.02); 0 keeps them all.", flag="--exclude-below"),
    Param("unknown", [_VALUES], [],
          "Values meaning an unknown category (blank cells always do); counted apart.",
          flag="--unknown", type=list[Union[bool, int, float, str]]),
    Param("audit_date", [None, _DATE], None,
          "Date of the bias audit (YYYY-MM-DD), printed on the summary.",
          flag="--audit-date", type=Optional[str]),
    Param("distribution_date", [None, _DATE], None,
          "Distribution date of the tool audited (YYYY-MM-DD).",
          flag="--distribution-date", type=Optional[str]),
    Param("data_source", [None, _TEXT], None,
          "Where the data came from (historical data of the employer, test data).",
          flag="--data-source", type=Optional[str]),
)  # fmt: skip

#: Keys of ``analyses.ll144`` that say where the rates come from or what the summary prints,
#: rather than set an argument of :class:`~primafacie.ll144.LL144Tables`.
_SPEC_ONLY = ("score", "audit_date", "distribution_date", "data_source")

#: The parameters of :class:`~primafacie.ll144.LL144Tables`.
ENGINE_PARAMS: tuple[Param, ...] = tuple(p for p in PARAMS if p.name not in _SPEC_ONLY)

#: What each parameter of :class:`~primafacie.ll144.LL144Tables` accepts.
PARAMETER_CONSTRAINTS: dict[str, list[Any]] = constraints(ENGINE_PARAMS)

#: The flag and ``audit.yaml`` key behind each parameter, quoted in error messages.
WHERE: dict[str, str] = where(PARAMS, "ll144")
