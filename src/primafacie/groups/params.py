"""What the parameters of :class:`~primafacie.groups.GroupMetrics` accept, declared once.

:class:`~primafacie.groups.GroupMetrics` validates them at ``run``; the ``audit.yaml`` model
:class:`~primafacie.groups.spec.GroupsSpec` and the ``primafacie groups`` flags check the same
constraints (:func:`primafacie.validation.check_value`).

>>> from primafacie.validation import check_value
>>> check_value("min_group", 0, PARAMETER_CONSTRAINTS["min_group"])
Traceback (most recent call last):
...
ValueError: min_group must be an integer ≥ 1; got 0
"""

from __future__ import annotations

from collections.abc import Mapping
from numbers import Integral, Real
from typing import Any

from ..validation import InstanceOf, Interval, ListOf, Options

__all__ = [
    "DEFAULT_MIN_GROUP",
    "DEFAULT_ALPHA",
    "FOUR_FIFTHS",
    "INTERSECTIONS",
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

_COLUMN = InstanceOf(str, name="a column name")

#: What each parameter of :class:`GroupMetrics` accepts (see :mod:`primafacie.validation`);
#: ``audit.yaml``'s ``analyses.groups`` checks the same constraints.
PARAMETER_CONSTRAINTS: dict[str, list[Any]] = {
    "min_group": [Interval(Integral, 1, None)],
    "alpha": [Interval(Real, 0, 1, closed="neither")],
    "intersections": [Options(*INTERSECTIONS)],
    "protected": [
        None,
        _COLUMN,
        ListOf(_COLUMN),
        InstanceOf(Mapping, name="a mapping {column: protected value(s)}"),
    ],
    "decision": [None, _COLUMN],
    "outcome": [None, _COLUMN],
}

#: The ``primafacie groups`` flag and ``audit.yaml`` key that set a parameter, quoted in
#: error messages.
WHERE: dict[str, str] = {
    "min_group": "--min-group, analyses.groups.min_group",
    "alpha": "--alpha, analyses.groups.alpha",
    "intersections": "--intersections, analyses.groups.intersections",
    "protected": "analyses.groups.protected",
    "outcome": "outcome",
}
