"""``analyses.groups`` of audit.yaml: the one place where configuration becomes engine arguments.

On by default: an ``audit.yaml`` without it measures the groups with these defaults, and
``groups: null`` turns it off.
"""

from __future__ import annotations

from typing import Any

from ..configbase import Strict as _Strict
from ..configbase import spec_model
from .params import PARAMS

__all__ = ["GroupsSpec"]


class _GroupsBase(_Strict):
    """Group metrics: selection rates, four-fifths ratios, error-rate gaps per group.

    The keys are derived from :data:`primafacie.groups.params.PARAMS`.

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

    def build(self, data: Any = None, ctx: Any = None) -> Any:
        """The :class:`~primafacie.groups.GroupMetrics` this section configures.

        ``data`` and ``ctx`` are accepted so every spec builds alike; the roles (decision,
        favourable values, outcome) come from the AuditData the engine runs on, the score
        (``decision: {score, threshold, favorable}``) from the configuration in ``ctx``.

        Examples
        --------
        >>> GroupsSpec(min_group=50).build()
        GroupMetrics(min_group=50)
        """
        from .engine import GroupMetrics

        decision = getattr(getattr(ctx, "config", None), "decision", None)
        score = getattr(decision, "score", None)
        return GroupMetrics(
            **self.engine_args(),
            score=score,
            score_favorable=(decision.favorable or "above") if score else "above",
            score_threshold=decision.threshold if score else None,
        )


GroupsSpec = spec_model("GroupsSpec", _GroupsBase, PARAMS, "groups")
