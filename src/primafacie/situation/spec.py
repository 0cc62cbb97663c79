"""``analyses.situation`` of audit.yaml: the one place where configuration becomes engines.

The audit (:mod:`primafacie.situation.analysis`), ``primafacie situation --config`` and
``primafacie situation`` with flags all build their engines through :meth:`SituationSpec.tests`
(or :meth:`SituationSpec.build` for one test), and the CLI's option defaults are this model's
defaults. Values are checked with the engine's own ``_parameter_constraints`` (through
:func:`~primafacie.validation.check_value`), so a constraint is written once.

Examples
--------
>>> spec = SituationSpec(k=30, methods=["st"])
>>> list(spec.tests(["gender", "race"]))
['single_gender', 'single_race']
>>> SituationSpec(alpha=1.5)
Traceback (most recent call last):
...
pydantic_core._pydantic_core.ValidationError: 1 validation error for SituationSpec
alpha
  Value error, alpha must be a number in (0, 1); got 1.5 [type=value_error, input_value=1.5, input_type=float]
...
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Literal, Optional

from pydantic import Field, field_validator

from ..configbase import Strict as _Strict
from ..report.dossier import DossierSpec
from ..validation import check_value
from .engine import DEFAULT_K, SituationTest, _method_name
from .multi import IntersectionalSituationTest, MultipleSituationTest
from .sensitivity import SensitivitySpec

__all__ = ["SituationSpec", "DIMENSIONS"]

#: The kinds of test, in the order the audit runs them.
DIMENSIONS = ("single", "multiple", "intersectional")

_MULTI = {"multiple": MultipleSituationTest, "intersectional": IntersectionalSituationTest}
_CONSTRAINTS = SituationTest._parameter_constraints


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
        "interval": "Confidence interval of the rate difference: newcombe (default; its "
        "p-values keep the adjustment calibrated) or wald (the paper's; needed with legacy).",
        "max_distance": "Optional largest Gower distance of a neighbour.",
        "legacy": "Reproduce the authors' code conventions (published tables).",
        "dossiers": "A printable page per top complainant: {top: 20, redact: [column, ...]}.",
        "multiplicity": "Adjustment across complainants of each (method, k): none, "
        "bonferroni, holm, bh (Benjamini-Hochberg, false discovery rate at alpha; default) "
        "or by (Benjamini-Yekutieli, valid under any dependence). Adds p_adjusted and "
        "significant_adjusted; the unadjusted columns are unchanged.",
        "sensitivity": "Robustness of CST verdicts to the causal model: edges_removed "
        "(default true), edges_added (default 10), mechanisms (default all three), graphs "
        "(alternative edge lists); absent = off, true = the defaults.",
    }

    #: Sub-models whose keys the audit.yaml schema also describes.
    nested_specs: ClassVar[tuple[type, ...]] = (SensitivitySpec,)

    k: list[int] = Field(default_factory=lambda: list(DEFAULT_K))
    alpha: float = 0.05
    tau: float = 0.0
    methods: list[Literal["st", "cst", "cst_centers", "cf"]] = Field(
        default_factory=lambda: ["st", "cst", "cst_centers", "cf"]
    )
    dimensions: list[Literal["single", "multiple", "intersectional"]] = Field(
        default_factory=lambda: ["single"]
    )
    direction: Literal["negative", "positive"] = "negative"
    interval: Literal["wald", "newcombe", "wilson"] = "newcombe"
    max_distance: Optional[float] = None
    legacy: bool = False
    dossiers: Optional[DossierSpec] = None
    multiplicity: Literal["none", "bonferroni", "holm", "bh", "by"] = "bh"
    sensitivity: Optional[SensitivitySpec] = None

    @field_validator("sensitivity", mode="before")
    @classmethod
    def _sensitivity_switch(cls, v: Any) -> Any:
        # `sensitivity: true` asks for the defaults, `false` turns it off
        return {} if v is True else (None if v is False else v)

    @field_validator("methods", mode="before")
    @classmethod
    def _method_aliases(cls, v: Any) -> Any:
        # the engine's spellings: any case, cst_wo / cst_w for CST without / with centres
        return (
            [_method_name(m) if isinstance(m, str) else m for m in v] if isinstance(v, list) else v
        )

    @field_validator("k", mode="before")
    @classmethod
    def _k_list(cls, v: Any) -> Any:
        return [v] if isinstance(v, int) and not isinstance(v, bool) else v

    @field_validator("k")
    @classmethod
    def _k_sizes(cls, v: list[int]) -> list[int]:
        return sorted(set(check_value("k", v, _CONSTRAINTS["k"])))

    @field_validator("alpha", "tau", "max_distance", "methods")
    @classmethod
    def _engine_constraint(cls, v: Any, info: Any) -> Any:
        name = {"methods": "method"}.get(info.field_name, info.field_name)
        return check_value(info.field_name, v, _CONSTRAINTS[name])

    @field_validator("multiplicity", mode="before")
    @classmethod
    def _multiplicity(cls, v: Any) -> Any:
        # before the Literal check, so that a wrong name reads as the engine's own message
        return check_value("multiplicity", v, _CONSTRAINTS["multiplicity"])

    @field_validator("legacy")
    @classmethod
    def _legacy_needs_wald(cls, v: bool, info: Any) -> bool:
        # The authors' code uses the Wald interval; the default is Newcombe, so a legacy run
        # must ask for Wald by name (checked here so that audit.yaml fails before any run).
        interval = info.data.get("interval")
        if v and interval is not None and interval != "wald":
            raise ValueError(
                f"legacy reproduces the authors' Wald interval; set interval: wald (--interval "
                f"wald) with it (got interval: {interval}; the default is newcombe)"
            )
        return v

    @field_validator("methods", "dimensions")
    @classmethod
    def _distinct(cls, v: list[str], info: Any) -> list[str]:
        if not v:
            raise ValueError(f"{info.field_name} must list at least one entry")
        return list(dict.fromkeys(v))

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
            multiplicity=self.multiplicity,
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
        kwargs = self.engine_kwargs()
        if backend is not None:
            kwargs["backend"] = backend
        if dimension == "single":
            return SituationTest(attribute=attribute, **kwargs)
        return _MULTI[dimension](**kwargs)

    def tests(self, protected: Sequence[str], backend: Any = None) -> dict[str, Any]:
        """Every test this section asks for, labelled as in the audit's tables: one
        ``single_<attribute>`` per protected attribute, then ``multiple`` and
        ``intersectional``.

        Parameters
        ----------
        protected
            The protected attributes of the data, in order.
        backend
            The :mod:`primafacie.compute` backend (None: local).

        Returns
        -------
        dict
            ``{label: engine}``, in the order the audit runs them.
        """
        out: dict[str, Any] = {}
        for dim in DIMENSIONS:
            if dim not in self.dimensions:
                continue
            if dim == "single":
                for attr in protected:
                    out[f"single_{attr}"] = self.build(attribute=attr, backend=backend)
            else:
                out[dim] = self.build(dimension=dim, backend=backend)
        return out
