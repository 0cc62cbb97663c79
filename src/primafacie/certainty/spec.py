"""``analyses.certainty`` of audit.yaml."""

from __future__ import annotations

from typing import Any, ClassVar, Literal, Optional

from pydantic import Field

from ..configbase import DecisionSpec
from ..configbase import Strict as _Strict

__all__ = ["CertaintySpec", "DecisionMakerSpec"]


class DecisionMakerSpec(DecisionSpec):
    """One decision-maker of the certainty ranking: a column, a model file or a rule."""

    #: What each key means (shown by editors through the audit.yaml schema).
    key_descriptions: ClassVar[dict[str, str]] = {
        "column": "Column holding this decision-maker's decisions.",
        "model": "Fitted estimator file of this decision-maker.",
        "rule": "Rule expression of this decision-maker.",
    }


class CertaintySpec(_Strict):
    """Certainty-of-fairness ranking of decision-makers."""

    #: Models nested in this section (their keys are described in the schema too).
    nested_specs: ClassVar[tuple[type, ...]] = (DecisionMakerSpec,)

    #: What each key means (shown by editors through the audit.yaml schema).
    key_descriptions: ClassVar[dict[str, str]] = {
        "criterion": "Fairness criterion whose disparity is ranked.",
        "decision_makers": "Decision-makers to rank: {name: {column|model|rule}} "
        "(default: the audited decision).",
        "protected": "Protected columns (default: all, crossed into groups).",
        "tie_breaker": "accuracy, to break ties in utility (needs outcome).",
        "max_levels": "Largest number of values of a protected column (each value is "
        "a group); null allows any.",
    }

    criterion: Literal["statistical_parity", "equal_opportunity", "predictive_parity"] = (
        "statistical_parity"
    )
    decision_makers: dict[str, DecisionMakerSpec] = Field(default_factory=dict)
    protected: Optional[list[str]] = None
    tie_breaker: Optional[str] = None
    max_levels: Optional[int] = Field(20, ge=1)

    def build(self) -> Any:
        """The :class:`~primafacie.certainty.CertaintyAudit` this section configures.

        Examples
        --------
        >>> CertaintySpec().build().criterion
        'statistical_parity'
        """
        from .audit import CertaintyAudit

        return CertaintyAudit(
            criterion=self.criterion,
            protected=list(self.protected) if self.protected else None,
            tie_breaker=self.tie_breaker,
            max_levels=self.max_levels,
        )
