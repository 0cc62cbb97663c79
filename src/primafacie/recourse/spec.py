"""``analyses.recourse`` of audit.yaml."""

from __future__ import annotations

from typing import Any, ClassVar, Literal, Optional, Union

from pydantic import Field

from ..configbase import Strict as _Strict

__all__ = ["RecourseSpec"]


class RecourseSpec(_Strict):
    """FACTS subgroup recourse audit."""

    #: What each key means (shown by editors through the audit.yaml schema).
    key_descriptions: ClassVar[dict[str, str]] = {
        "support": "Minimum support of frequent itemsets, in (0, 1].",
        "phi": "Effectiveness thresholds of ECR and ECE.",
        "metrics": "all, or a list such as [EE, ECE, FECT].",
        "feature_weights": "Cost weight per feature (default 1).",
        "immutable": "Features an action may not change (protected ones never change).",
        "monotone": "Features that may not decrease.",
        "bins": "Numeric bins per feature: a number of quantiles or a list of edges.",
        "protected": "Protected attribute audited (default: the only one).",
        "top": "Comparative subgroup counterfactuals shown per definition.",
    }

    support: float = Field(0.01, gt=0, le=1)
    phi: list[float] = Field(default_factory=lambda: [0.3, 0.7])
    metrics: Union[Literal["all"], list[str]] = "all"
    feature_weights: dict[str, float] = Field(default_factory=dict)
    immutable: list[str] = Field(default_factory=list)
    monotone: list[str] = Field(default_factory=list)
    bins: dict[str, Union[int, list[float]]] = Field(default_factory=dict)
    protected: Optional[str] = None
    top: int = Field(10, gt=0)

    def build(self, data: Any, decider: Any) -> Any:
        """The :class:`~primafacie.recourse.RecourseAudit` this section configures for ``data``
        and the decision model or rule ``decider``.

        Many-valued numeric features get quantile bins (:func:`~primafacie.recourse.items.
        default_bins`) unless ``bins`` says otherwise; protected attributes are immutable.

        Raises
        ------
        InputError
            When ``decider`` is None (a recorded column cannot be re-run on changed people).
        """
        from ..errors import InputError
        from .audit import RecourseAudit
        from .items import default_bins

        if decider is None:
            raise InputError(
                "analyses.recourse needs the decision model or rule (decision: {model: ...} or "
                "{rule: ...}) to test the effect of actions; a recorded column cannot be re-run"
            )
        attr = self.protected or next(iter(data.protected))
        immutable = list(dict.fromkeys([*self.immutable, *data.protected]))
        features = {name: f.kind for name, f in data.features.items()}
        return RecourseAudit(
            decider,
            protected=attr,
            support=self.support,
            feature_weights=dict(self.feature_weights) or None,
            immutable=immutable,
            monotone=list(self.monotone) or None,
            bins=default_bins(data.frame, features, self.bins) or None,
            favorable=1,
        )
