"""``analyses.recourse`` of audit.yaml: the one place where configuration becomes FACTS arguments.

The keys reuse the engine's constraints (:mod:`primafacie.recourse.params`) through
:func:`~primafacie.validation.check_value`, so ``support: 1.5`` in audit.yaml, ``--support 1.5``
on the command line and ``RecourseAudit(support=1.5)`` are refused with the same words.
:meth:`RecourseSpec.build` makes the engine and :meth:`RecourseSpec.run_kwargs` the arguments of
:meth:`~primafacie.recourse.RecourseAudit.run`; the audit and ``primafacie recourse --config``
both go through them.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, Optional, Union

from pydantic import Field, ValidationInfo, field_validator

from ..configbase import Strict as _Strict
from ..report.dossier import SubgroupDossierSpec
from ..validation import check_value
from .params import PARAM_WHERE, PARAMETER_CONSTRAINTS, RUN_CONSTRAINTS, STABILITY_CONSTRAINTS

__all__ = ["RecourseSpec"]

#: audit.yaml key -> the engine's constraints it reuses (``None`` left out: a key of
#: audit.yaml is never None, its default stands for "not set").
_CHECKED = {
    key: [c for c in {**PARAMETER_CONSTRAINTS, **RUN_CONSTRAINTS}[key] if c is not None]
    for key in ("support", "feature_weights", "phi", "metrics", "top")
} | {key: STABILITY_CONSTRAINTS[key] for key in ("n_boot", "seed")}

#: Rank-stability resamples in the audit (the engine function has no default: it is asked for).
#: 50 resamples give each share to about ±7 points at a cost of a few seconds on the demo;
#: ``n_boot: 0`` turns it off.
DEFAULT_N_BOOT = 50


class RecourseSpec(_Strict):
    """FACTS subgroup recourse audit.

    Examples
    --------
    >>> spec = RecourseSpec(support=0.05, phi=0.5)
    >>> spec.phi, spec.run_kwargs()
    ([0.5], {'phi': [0.5], 'budgets': 'auto', 'metrics': 'all'})
    >>> RecourseSpec(support=1.5)
    Traceback (most recent call last):
    ...
    pydantic_core._pydantic_core.ValidationError: 1 validation error for RecourseSpec
    support
      Value error, support must be a number in (0, 1]; got 1.5 ...
    """

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
        "top": "Comparative subgroup counterfactuals per definition (tables and CSC files; "
        "the report shows the first).",
        "dossiers": "A printable page per top subgroup: {top: 5}.",
        "n_boot": "Bootstrap resamples of the audited rows for the rank stability of the top "
        "10 subgroups of each definition (0 = off; at most 100,000: its Monte Carlo error, at "
        "most 0.5/sqrt(n_boot), is then below 0.002). Re-weights the fitted flips: no model call.",
        "seed": "Seed of the rank-stability resamples.",
    }

    support: float = 0.01
    phi: list[float] = Field(default_factory=lambda: [0.3, 0.7])
    metrics: Union[Literal["all"], list[str]] = "all"
    feature_weights: dict[str, float] = Field(default_factory=dict)
    immutable: list[str] = Field(default_factory=list)
    monotone: list[str] = Field(default_factory=list)
    bins: dict[str, Union[int, list[float]]] = Field(default_factory=dict)
    protected: Optional[str] = None
    top: int = 10
    dossiers: Optional[SubgroupDossierSpec] = None
    n_boot: int = DEFAULT_N_BOOT
    seed: int = 0

    @field_validator("phi", mode="before")
    @classmethod
    def _phi_list(cls, v: Any) -> Any:
        return [v] if isinstance(v, (int, float)) and not isinstance(v, bool) else v

    @field_validator(*_CHECKED)
    @classmethod
    def _engine_constraints(cls, v: Any, info: ValidationInfo) -> Any:
        name = info.field_name
        # the rank-stability keys name their flag and key (as principal's and certainty's do),
        # so `--n-boot -1` and `n_boot: -1` read alike
        where = PARAM_WHERE[name] if name in STABILITY_CONSTRAINTS else ""
        return check_value(name, v, _CHECKED[name], where=where)

    def build(self, data: Any, ctx: Any) -> Any:
        """The :class:`~primafacie.recourse.RecourseAudit` this section configures.

        Parameters
        ----------
        data
            The audited :class:`~primafacie.data.AuditData`.
        ctx
            The audit's :class:`~primafacie.analysis.Context`; its ``decider`` (the decision
            model or rule) is what FACTS re-runs on changed people.

        Returns
        -------
        RecourseAudit
            Not fitted. Many-valued numeric features get quantile bins
            (:func:`~primafacie.recourse.items.default_bins`) unless ``bins`` says otherwise;
            every protected attribute is immutable.

        Raises
        ------
        InputError
            When the decision is a recorded column (it cannot be re-run on changed people) or
            ``protected`` is not a protected attribute of the data.
        """
        from ..errors import InputError
        from .audit import RecourseAudit
        from .items import default_bins

        if ctx.decider is None:
            raise InputError(
                "analyses.recourse needs the decision model or rule (decision: {model: ...} or "
                "{rule: ...}) to test the effect of actions; a recorded column cannot be re-run"
            )
        attr = self.protected or next(iter(data.protected))
        if attr not in data.protected:
            raise InputError(
                f"analyses.recourse.protected: {attr!r} is not a protected attribute; "
                f"protected: {list(data.protected)}"
            )
        features = {name: f.kind for name, f in data.features.items()}
        return RecourseAudit(
            ctx.decider,
            protected=attr,
            support=self.support,
            feature_weights=dict(self.feature_weights) or None,
            immutable=list(dict.fromkeys([*self.immutable, *data.protected])),
            monotone=list(self.monotone) or None,
            bins=default_bins(data.frame, features, self.bins) or None,
            favorable=1,
            backend=getattr(ctx, "backend", None),
        )

    def run_kwargs(self) -> dict[str, Any]:
        """The arguments of :meth:`RecourseAudit.run` this section sets (budgets: automatic)."""
        return {"phi": list(self.phi), "budgets": "auto", "metrics": self.metrics}
