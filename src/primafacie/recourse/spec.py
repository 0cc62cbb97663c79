"""``analyses.recourse`` of audit.yaml: the one place where configuration becomes FACTS arguments.

:meth:`RecourseSpec.build` makes the engine and :meth:`RecourseSpec.run_kwargs` the arguments of
:meth:`~primafacie.recourse.RecourseFairness.run`, for the audit and ``primafacie recourse``.
"""

from __future__ import annotations

from typing import Any, ClassVar, Optional

from pydantic import Field

from ..configbase import Redacting, spec_model
from ..configbase import Strict as _Strict
from .params import DEFAULT_N_BOOT, PARAMS

__all__ = ["RecourseSpec", "SubgroupDossierSpec", "DEFAULT_N_BOOT"]


class SubgroupDossierSpec(Redacting):
    """``analyses.recourse.dossiers``: a page per top subgroup.

    Examples
    --------
    >>> SubgroupDossierSpec().top
    5
    """

    top: int = Field(5, ge=1, description="Pages for this many subgroups (first ranked first).")
    redact: list[str] = Field(
        default_factory=list,
        description="Columns whose names and values are hidden from every subgroup page and "
        "its file name.",
    )


class _RecourseBase(_Strict):
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

    #: Keys that are not parameters of the engine (the declared ones are added to these).
    key_descriptions: ClassVar[dict[str, str]] = {
        "dossiers": "A printable page per top subgroup: {top: 5}.",
    }

    def build(self, data: Any, ctx: Any, features: dict[str, Any] | None = None) -> Any:
        """The :class:`~primafacie.recourse.RecourseFairness` this section configures.

        Parameters
        ----------
        data
            The audited :class:`~primafacie.data.AuditData`, or with ``features`` a plain
            table (``primafacie recourse`` from flags).
        ctx
            The audit's :class:`~primafacie.analysis.Context`; its ``decider`` (the decision
            model or rule) is what FACTS re-runs on changed people.
        features
            ``{column: kind}`` of the columns mined from a plain table, whose protected
            attribute is then the section's ``protected`` (the table declares none).

        Returns
        -------
        RecourseFairness
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
        from .engine import RecourseFairness
        from .items import default_bins

        if ctx.decider is None:
            raise InputError(
                "analyses.recourse needs the decision model or rule (decision: {model: ...} or "
                "{rule: ...}) to test the effect of actions; a recorded column cannot be re-run"
            )
        if features is None:
            attr, frame, protected = self.protected_of(data, "recourse"), data.frame, data.protected
            kinds = {name: f.kind for name, f in data.features.items()}
        else:  # a table mines the columns given (the engine reads them from ``features``)
            attr, frame, protected, kinds = self.protected, data, [self.protected], features
        return RecourseFairness(
            ctx.decider,
            protected=attr,
            support=self.support,
            feature_weights=dict(self.feature_weights) or None,
            immutable=list(dict.fromkeys([*self.immutable, *protected])),
            monotone=list(self.monotone) or None,
            bins=default_bins(frame, kinds, self.bins) or None,
            features=features,
            favorable=1,
            backend=getattr(ctx, "backend", None),
        )

    def run_kwargs(self) -> dict[str, Any]:
        """The arguments of :meth:`RecourseFairness.run` this section sets (budgets: automatic)."""
        return {"phi": list(self.phi), "budgets": "auto", "metrics": self.metrics}


#: The order of the keys as audit.yaml and the report show them (the engine's declarations
#: are grouped by constructor, run and bootstrap).
_ORDER = ("support", "phi", "metrics", "feature_weights", "immutable", "monotone", "bins",
          "protected", "top", "n_boot", "seed")  # fmt: skip

RecourseSpec = spec_model(
    "RecourseSpec", _RecourseBase,
    sorted((p for p in PARAMS if p.config_key), key=lambda p: _ORDER.index(p.config_key)),
    "recourse",
    nested={"dossiers": (Optional[SubgroupDossierSpec], None, "top")},
)  # fmt: skip
RecourseSpec.params = PARAMS  # every declaration, flag-only ones included (docs/parameters.md)
