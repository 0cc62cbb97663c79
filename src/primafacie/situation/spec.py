"""``analyses.situation`` of audit.yaml."""

from __future__ import annotations

from typing import Any, ClassVar, Literal, Optional

from pydantic import Field, field_validator

from ..configbase import Strict as _Strict

__all__ = ["SituationSpec"]


class SituationSpec(_Strict):
    """Situation testing: ST, CST w/o (``cst``), CST w/ (``cst_centers``), CF."""

    #: What each key means (shown by editors through the audit.yaml schema).
    key_descriptions: ClassVar[dict[str, str]] = {
        "k": "Neighbourhood sizes (one search at the largest serves all).",
        "alpha": "Significance level of the one-sided interval.",
        "tau": "Tolerated difference in rejection rates before a case is flagged.",
        "methods": "st (situation testing), cst (counterfactual ST without centres), "
        "cst_centers (with centres), cf (counterfactual fairness).",
        "dimensions": "single (per attribute), multiple (Bonferroni over attributes), "
        "intersectional (protected on every attribute).",
        "direction": "negative (against the protected) or positive discrimination.",
        "interval": "Confidence interval of the rate difference.",
        "max_distance": "Optional largest Gower distance of a neighbour.",
        "legacy": "Reproduce the authors' code conventions (published tables).",
    }

    k: list[int] = Field(default_factory=lambda: [15, 30, 50])
    alpha: float = Field(0.05, gt=0, lt=1)
    tau: float = Field(0.0, ge=-1, le=1)
    methods: list[Literal["st", "cst", "cst_centers", "cf"]] = Field(
        default_factory=lambda: ["st", "cst", "cst_centers", "cf"]
    )
    dimensions: list[Literal["single", "multiple", "intersectional"]] = Field(
        default_factory=lambda: ["single"]
    )
    direction: Literal["negative", "positive"] = "negative"
    interval: Literal["wald", "newcombe", "wilson"] = "wald"
    max_distance: Optional[float] = Field(None, gt=0)
    legacy: bool = False

    @field_validator("k", mode="before")
    @classmethod
    def _k_list(cls, v: Any) -> Any:
        return [v] if isinstance(v, int) else v

    @field_validator("k")
    @classmethod
    def _k_positive(cls, v: list[int]) -> list[int]:
        if not v:
            raise ValueError("k must list at least one neighbourhood size")
        bad = [x for x in v if x <= 0]
        if bad:
            raise ValueError(f"k must be positive integers, got {bad}")
        return sorted(set(v))

    def engine_kwargs(self) -> dict[str, Any]:
        """The engine arguments this section sets (the one config → engine mapping)."""
        return dict(
            method=list(self.methods),
            k=list(self.k),
            alpha=self.alpha,
            tau=self.tau,
            direction=self.direction,
            interval={"wilson": "newcombe"}.get(self.interval, self.interval),
            legacy=self.legacy,
            max_distance=self.max_distance,
        )

    def build(
        self, attribute: str | None = None, dimension: str = "single", backend: Any = None
    ) -> Any:
        """The engine for one test: ``SituationTest`` for one attribute (``dimension="single"``),
        ``MultipleSituationTest`` or ``IntersectionalSituationTest``.

        Examples
        --------
        >>> SituationSpec(k=[15, 30]).build(attribute="gender").k
        [15, 30]
        """
        from .engine import SituationTest
        from .multi import IntersectionalSituationTest, MultipleSituationTest

        kwargs = self.engine_kwargs()
        if backend is not None:
            kwargs["backend"] = backend
        if dimension == "single":
            return SituationTest(attribute=attribute, **kwargs)
        cls = {"multiple": MultipleSituationTest, "intersectional": IntersectionalSituationTest}
        return cls[dimension](**kwargs)
