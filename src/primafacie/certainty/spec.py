"""``analyses.certainty`` of audit.yaml: the one place where configuration becomes engine arguments.

The audit (:mod:`primafacie.certainty.analysis`) and ``primafacie certainty`` (with ``--config``
or with flags) build their :class:`~primafacie.certainty.CertaintyAudit` through
:meth:`CertaintySpec.build`, and pick the decision-makers through
:meth:`CertaintySpec.decision_makers_of`; keys are checked with the engine's own constraints.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, Optional

from pydantic import Field, ValidationInfo, field_validator

from ..configbase import DecisionSpec
from ..configbase import Strict as _Strict
from ..validation import check_value
from .counts import MAX_PROTECTED_LEVELS, canonical_criterion
from .params import DEFAULT_DECISION_MAKER, PARAMETER_CONSTRAINTS, WHERE
from .probability import DEFAULT_DRAWS

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
    """Certainty-of-fairness ranking of decision-makers.

    Examples
    --------
    >>> CertaintySpec(criterion="equal_opportunity", epsilon=0.1).epsilon
    0.1
    >>> CertaintySpec(on_empty="drop")
    Traceback (most recent call last):
    ...
    pydantic_core._pydantic_core.ValidationError: 1 validation error for CertaintySpec
    on_empty
      Value error, on_empty must be one of 'error', 'skip'; got 'drop' ...
    """

    #: Models nested in this section (their keys are described in the schema too).
    nested_specs: ClassVar[tuple[type, ...]] = (DecisionMakerSpec,)

    #: What each key means (shown by editors through the audit.yaml schema).
    key_descriptions: ClassVar[dict[str, str]] = {
        "criterion": "Fairness criterion whose disparity is ranked.",
        "decision_makers": "Decision-makers to rank: {name: {column|model|rule}} "
        f"(default: the audited decision, named {DEFAULT_DECISION_MAKER!r}).",
        "protected": "Protected columns (default: all, crossed into groups).",
        "tie_breaker": "accuracy, to break ties in utility (needs outcome).",
        "max_levels": "Largest number of values of a protected column (each value is "
        "a group; at most 1,000, the data's own limit of a categorical column); null allows "
        "any.",
        "utility": "topsis (the paper) or norm.",
        "disparity": "frequentist (the paper: gap of the rates) or bayesian (gap of the "
        "posterior means).",
        "epsilon": "Also report the posterior probability that the disparity exceeds it.",
        "on_empty": "A group with no row in the criterion's denominator: error, or skip it.",
        "min_group_size": "Pool the groups with fewer members into one (null: no pooling).",
        "n_draws": "Posterior draws behind p_most_fair, the probability that each "
        "decision-maker has the smallest disparity (null: not computed; at most 10^7, whose "
        "Monte Carlo error, at most 0.5/sqrt(n_draws), is below 0.0002).",
        "seed": "Seed of those posterior draws.",
    }

    criterion: Literal["statistical_parity", "equal_opportunity", "predictive_parity"] = (
        "statistical_parity"
    )
    decision_makers: dict[str, DecisionMakerSpec] = Field(default_factory=dict)
    protected: Optional[list[str]] = None
    tie_breaker: Optional[Literal["accuracy"]] = None
    max_levels: Optional[int] = MAX_PROTECTED_LEVELS
    utility: Literal["topsis", "norm"] = "topsis"
    disparity: Literal["frequentist", "bayesian"] = "frequentist"
    epsilon: Optional[float] = None
    on_empty: Literal["error", "skip"] = "error"
    min_group_size: Optional[int] = None
    n_draws: Optional[int] = DEFAULT_DRAWS
    seed: int = 0

    @field_validator("protected", mode="before")
    @classmethod
    def _one_column(cls, v: Any) -> Any:
        return [v] if isinstance(v, str) else v

    @field_validator("criterion", mode="before")
    @classmethod
    def _criterion(cls, v: Any) -> Any:
        check_value("criterion", v, PARAMETER_CONSTRAINTS["criterion"], where=WHERE["criterion"])
        return canonical_criterion(v)  # an alias (sp, eo, pp) becomes the full name

    @field_validator(
        "protected", "tie_breaker", "max_levels", "utility", "disparity", "epsilon",
        "on_empty", "min_group_size", "n_draws", "seed", mode="before",
    )  # fmt: skip
    @classmethod
    def _engine_constraints(cls, v: Any, info: ValidationInfo) -> Any:
        name = info.field_name
        return check_value(name, v, PARAMETER_CONSTRAINTS[name], where=WHERE.get(name, ""))

    def build(self, data: Any = None, ctx: Any = None) -> Any:
        """The :class:`~primafacie.certainty.CertaintyAudit` this section configures.

        ``data`` and ``ctx`` are accepted so every spec builds alike; the favourable values
        and the outcome come from the AuditData the engine runs on.

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
            utility=self.utility,
            disparity=self.disparity,
            epsilon=self.epsilon,
            on_empty=self.on_empty,
            min_group_size=self.min_group_size,
            n_draws=self.n_draws,
            seed=self.seed,
            backend=getattr(ctx, "backend", None),
        )

    def decision_makers_of(self, config: Any, data: Any) -> dict[str, Any]:
        """The decision-makers to rank: the section's list (models loaded, rules parsed), or
        the audited decision alone, named :data:`DEFAULT_DECISION_MAKER`.

        Parameters
        ----------
        config
            The :class:`~primafacie.config.AuditConfig` (it resolves model paths).
        data
            The audited :class:`~primafacie.data.AuditData` (its decision column).
        """
        return config.decision_makers() or {DEFAULT_DECISION_MAKER: data.decision}
