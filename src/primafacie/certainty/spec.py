"""``analyses.certainty`` of audit.yaml: the one place where configuration becomes engine arguments.

:meth:`CertaintySpec.decision_makers_of` picks the decision-makers (the audit and ``primafacie
certainty`` alike).
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

from pydantic import Field, model_validator

from ..configbase import DecisionSpec, spec_model
from ..configbase import Strict as _Strict
from ..errors import InputError
from .params import DEFAULT_DECISION_MAKER, PARAMS, RENAMED, canonical_criterion

__all__ = ["CertaintySpec", "DecisionMakerSpec"]


class DecisionMakerSpec(DecisionSpec):
    """One decision-maker of the certainty ranking: a column, a model file or a rule."""

    #: What each key means (shown by editors through the audit.yaml schema).
    key_descriptions: ClassVar[dict[str, str]] = {
        "column": "Column holding this decision-maker's decisions.",
        "model": "Fitted estimator file of this decision-maker.",
        "rule": "Rule expression of this decision-maker.",
        "score": "Not for a decision-maker: write its threshold as a rule, e.g. "
        "{rule: 'decile_score < 5'}.",
        "threshold": "Not for a decision-maker (see score).",
        "favorable": "Not for a decision-maker (see score).",
        "trust": "pickle: allow this pickle/joblib model file, which runs its author's code "
        "when loaded (only for a file you trust).",
        "trusted_types": "skops types of this model to trust beyond scikit-learn's classes.",
    }

    @model_validator(mode="after")
    def _no_score(self) -> DecisionMakerSpec:
        if self.score is not None:
            raise ValueError(
                f"a decision-maker takes a column, a model or a rule; write the score's "
                f"threshold as a rule, e.g. {{rule: '{self.score} < {self.threshold:g}'}}"
            )
        return self


class _CertaintyBase(_Strict):
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

    #: Keys that are not parameters of the engine (the declared ones are added to these).
    key_descriptions: ClassVar[dict[str, str]] = {
        "decision_makers": "Decision-makers to rank: {name: {column|model|rule}} "
        f"(default: the audited decision, named {DEFAULT_DECISION_MAKER!r}).",
    }

    @model_validator(mode="before")
    @classmethod
    def _renamed(cls, values: Any) -> Any:
        """Read a key's former name (:data:`~.params.RENAMED`) with a DeprecationWarning."""
        if not isinstance(values, dict):
            return values
        out = dict(values)
        for old, new in ((o, n) for o, n in RENAMED.items() if o in out):
            warnings.warn(
                f"analyses.certainty.{old} is deprecated and will be removed in the next "
                f"release; write analyses.certainty.{new}",
                DeprecationWarning,
                stacklevel=2,
            )
            value = out.pop(old)
            if new in out and out[new] != value:
                raise ValueError(f"give {new} only ({new} and its former name {old} differ)")
            out[new] = value
        return out

    def build(self, data: Any = None, ctx: Any = None) -> Any:
        """The :class:`~primafacie.certainty.CertaintyRanking` this section configures.

        ``data`` and ``ctx`` are accepted so every spec builds alike; the favourable values
        and the outcome come from the AuditData the engine runs on.

        Examples
        --------
        >>> CertaintySpec().build().criterion
        'statistical_parity'
        """
        from .engine import CertaintyRanking

        return CertaintyRanking(**self.engine_args(), backend=getattr(ctx, "backend", None))

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


def _criterion(v: Any) -> Any:
    # an alias (sp, eo, pp) becomes the full name; an unknown name is left for the check
    try:
        return canonical_criterion(v) if isinstance(v, str) else v
    except InputError:
        return v


CertaintySpec = spec_model(
    "CertaintySpec", _CertaintyBase, PARAMS, "certainty",
    normalize={"criterion": _criterion},
    nested={"decision_makers": (dict[str, DecisionMakerSpec], Field(default_factory=dict),
                                "criterion")},
)  # fmt: skip
