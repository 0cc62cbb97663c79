"""Every parameter of :class:`~primafacie.groups.GroupMetrics`, declared once;
:mod:`primafacie.params` lists what is derived from the declarations.

>>> from primafacie.validation import check_value
>>> check_value("min_group", 0, PARAMETER_CONSTRAINTS["min_group"])
Traceback (most recent call last):
...
ValueError: min_group must be an integer ≥ 1; got 0
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from numbers import Integral, Real
from typing import Any, Optional

from ..params import Param, constraints, where
from ..validation import BOOL, COLUMN, InstanceOf, Interval, ListOf, Options, Predicate

__all__ = [
    "DEFAULT_MIN_GROUP",
    "DEFAULT_ALPHA",
    "FOUR_FIFTHS",
    "INTERSECTIONS",
    "MAX_THRESHOLDS",
    "SWEEP_POINTS",
    "FAVORABLE",
    "OUTCOME_FAVORABLE",
    "WEIGHTS",
    "PARAMS",
    "PARAMETER_CONSTRAINTS",
    "WHERE",
]

#: Groups with fewer members are flagged (``small``) and named in the caveats, never dropped.
#: 30 is the usual rule of thumb below which a normal-approximation reading of a rate is unsafe.
DEFAULT_MIN_GROUP = 30

#: Two-sided level of every interval (Wilson, Newcombe, Katz): 95% intervals by default.
DEFAULT_ALPHA = 0.05

#: The four-fifths (80%) rule of the US Uniform Guidelines (29 CFR 1607.4 D): a selection
#: rate below 4/5 of the reference group's rate is evidence of adverse impact.
FOUR_FIFTHS = 0.8

#: Which intersections of the protected attributes are measured besides each attribute alone.
INTERSECTIONS = ("all", "full", "none")

#: Largest number of thresholds a list may hold (the table has one row per threshold and group).
MAX_THRESHOLDS = 1000

#: ``sweep: true`` evaluates at most this many thresholds: the distinct score values when there
#: are no more, else the distinct quantiles 0, 0.01, …, 1 of the scores (observed values).
SWEEP_POINTS = 101


def _finite_numbers(value: Any) -> bool:
    """A non-empty list of at most MAX_THRESHOLDS finite numbers (booleans are not numbers)."""
    items = value if isinstance(value, (list, tuple)) else [value]
    return 0 < len(items) <= MAX_THRESHOLDS and all(
        isinstance(v, Real) and not isinstance(v, bool) and math.isfinite(float(v)) for v in items
    )


_THRESHOLDS = Predicate(
    _finite_numbers,
    f"a finite number or a non-empty list of at most {MAX_THRESHOLDS} finite numbers",
    bad=["five"],
)

#: A favourable value: a scalar as audit.yaml writes it, or several (a list).
_VALUES = Predicate(
    lambda v: isinstance(v, (list, tuple, set, frozenset)) or isinstance(v, Hashable),
    "a value or a list of values",
    bad={},
)

# The data roles an engine also takes as arguments (for a plain table), set in audit.yaml
# outside analyses.<name>: declared once here, certainty's PARAMS share them.
#: The favourable decision value(s).
FAVORABLE = Param("favorable", [None, _VALUES], None,
                  "Favourable decision value(s) (default: the data's, else 1).",
                  flag="--favorable", key="", source="favorable", cli="scalar")  # fmt: skip
#: The favourable true-outcome value(s).
OUTCOME_FAVORABLE = Param("outcome_favorable", [None, _VALUES], None,
                          "Favourable true-outcome value(s) (default: the data's, else 1).",
                          flag="--outcome-favorable", key="", source="outcome_favorable",
                          cli="scalar")  # fmt: skip
#: The column of sample weights.
WEIGHTS = Param("weights", [None, COLUMN], None,
                "Column of sample weights (default: the data's).", flag="--weights", key="",
                source="weights")  # fmt: skip

#: Every parameter, in the order of ``analyses.groups`` in audit.yaml.
PARAMS: tuple[Param, ...] = (
    Param(
        "min_group", [Interval(Integral, 1, None)], DEFAULT_MIN_GROUP,
        "Groups with fewer members are flagged 'small' (kept, never dropped).",
        flag="--min-group",
    ),
    Param(
        "alpha", [Interval(Real, 0, 1, closed="neither")], DEFAULT_ALPHA,
        "Two-sided level of the Wilson, Newcombe and Katz intervals (0.05: 95%).",
        flag="--alpha",
    ),
    Param(
        "intersections", [Options(*INTERSECTIONS)], "all",
        "all (every combination of two or more protected attributes), full (all of them "
        "crossed) or none.",
        flag="--intersections",
    ),
    Param(
        "protected",
        [None, COLUMN, ListOf(COLUMN),
         InstanceOf(Mapping, name="a mapping {column: protected value(s)}")],
        None, "Protected attributes to measure (default: all).",
        type=Optional[list[str]],
    ),
    Param("decision", [None, COLUMN], None, "Decision column (default: the data's).", key=""),
    Param("outcome", [None, COLUMN], None, "True-outcome column (default: the data's).",
          key="", source="outcome"),
    FAVORABLE,
    OUTCOME_FAVORABLE,
    Param(
        "thresholds", [None, _THRESHOLDS], None,
        "Score thresholds at which to measure every group's selection rate and the impact "
        "ratio (needs decision.score; the decision's favorable side applies).",
        flag="--thresholds", type=Optional[list[float]], cli="list",
    ),
    Param(
        "sweep", [BOOL], False,
        f"Measure at every distinct score value, or at the distinct percentiles when there are "
        f"more than {SWEEP_POINTS} (needs decision.score).",
        flag="--sweep",
    ),
    Param("score", [None, COLUMN], None, "Score column (default: decision.score).",
          flag="--score", key="", source="decision.score"),
    Param("score_favorable", [Options("above", "below")], "above",
          "Which side of a threshold is favourable (default: decision.favorable).",
          flag="--score-favorable", key="", source="decision.favorable"),
    Param("score_threshold", [None, Interval(Real, None, None)], None,
          "The audited threshold, added to the grid (default: decision.threshold).",
          key="", source="decision.threshold"),
    WEIGHTS,
)  # fmt: skip

#: What each parameter of :class:`GroupMetrics` accepts (see :mod:`primafacie.validation`).
PARAMETER_CONSTRAINTS: dict[str, list[Any]] = constraints(PARAMS)

#: The CLI flag and ``audit.yaml`` key that set a parameter, quoted in error messages.
WHERE: dict[str, str] = where(PARAMS, "groups")
