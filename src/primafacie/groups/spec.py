"""``analyses.groups`` of audit.yaml: the one place where configuration becomes engine arguments.

The audit (:mod:`primafacie.groups.analysis`) builds its :class:`~primafacie.groups.GroupMetrics`
through :meth:`GroupsSpec.build`; keys are checked with the engine's own constraints. The
section is on by default: an ``audit.yaml`` without it measures the groups with these
defaults, and ``groups: null`` turns it off.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, Optional

from pydantic import ValidationInfo, field_validator

from ..configbase import Strict as _Strict
from ..validation import check_value
from .params import DEFAULT_ALPHA, DEFAULT_MIN_GROUP, PARAMETER_CONSTRAINTS, WHERE

__all__ = ["GroupsSpec"]


class GroupsSpec(_Strict):
    """Group metrics: selection rates, four-fifths ratios, error-rate gaps per group.

    Examples
    --------
    >>> GroupsSpec().min_group, GroupsSpec().alpha, GroupsSpec().intersections
    (30, 0.05, 'all')
    >>> GroupsSpec(min_group=0)
    Traceback (most recent call last):
    ...
    pydantic_core._pydantic_core.ValidationError: 1 validation error for GroupsSpec
    min_group
      Value error, min_group must be an integer ≥ 1; got 0 (--min-group, analyses.groups.min_group) ...
    """

    #: What each key means (shown by editors through the audit.yaml schema).
    key_descriptions: ClassVar[dict[str, str]] = {
        "min_group": "Groups with fewer members are flagged 'small' (kept, never dropped).",
        "alpha": "Two-sided level of the Wilson, Newcombe and Katz intervals (0.05: 95%).",
        "intersections": "all (every combination of two or more protected attributes), "
        "full (all of them crossed) or none.",
        "protected": "Protected attributes to measure (default: all).",
    }

    min_group: int = DEFAULT_MIN_GROUP
    alpha: float = DEFAULT_ALPHA
    intersections: Literal["all", "full", "none"] = "all"
    protected: Optional[list[str]] = None

    @field_validator("protected", mode="before")
    @classmethod
    def _one_column(cls, v: Any) -> Any:
        return [v] if isinstance(v, str) else v

    @field_validator("min_group", "alpha", "intersections", "protected", mode="before")
    @classmethod
    def _engine_constraints(cls, v: Any, info: ValidationInfo) -> Any:
        name = info.field_name
        return check_value(name, v, PARAMETER_CONSTRAINTS[name], where=WHERE.get(name, ""))

    def build(self, data: Any = None, ctx: Any = None) -> Any:
        """The :class:`~primafacie.groups.GroupMetrics` this section configures.

        ``data`` and ``ctx`` are accepted so every spec builds alike; the roles (decision,
        favourable values, outcome) come from the AuditData the engine runs on.

        Examples
        --------
        >>> GroupsSpec(min_group=50).build()
        GroupMetrics(min_group=50, alpha=0.05, intersections='all')
        """
        from .engine import GroupMetrics

        return GroupMetrics(
            min_group=self.min_group,
            alpha=self.alpha,
            intersections=self.intersections,
            protected=list(self.protected) if self.protected else None,
        )
