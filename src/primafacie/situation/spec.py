"""``analyses.situation`` of audit.yaml: the one place where configuration becomes engines.

The audit and ``primafacie situation`` build their engines through :meth:`SituationSpec.tests`
(or :meth:`SituationSpec.build` for one test).

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
  Value error, alpha must be a number in (0, 1); got 1.5 (--alpha, analyses.situation.alpha) ...
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Optional

from pydantic import Field, field_validator

from ..configbase import Redacting, spec_model
from ..configbase import Strict as _Strict
from .engine import SituationTest
from .multi import IntersectionalSituationTest, MultipleSituationTest
from .params import DIMENSIONS, PARAMS, _method_name
from .sensitivity import SensitivitySpec

__all__ = ["SituationSpec", "DossierSpec", "DIMENSIONS"]


class DossierSpec(Redacting):
    """``analyses.situation.dossiers``: write a page per top complainant.

    Examples
    --------
    >>> DossierSpec(top=5, redact=["postcode"]).top
    5
    """

    top: int = Field(20, ge=1, description="Pages for this many strongest complainants per test.")
    redact: list[str] = Field(
        default_factory=list,
        description="Columns hidden from every page (and its source), and ids replaced by a "
        "stable pseudonym (redacted-<8 hex>) everywhere, file names included.",
    )


_MULTI = {"multiple": MultipleSituationTest, "intersectional": IntersectionalSituationTest}


class _SituationBase(_Strict):
    """Situation testing: ST, CST w/o (``cst``), CST w/ (``cst_centers``), CF.

    The keys are derived from :data:`primafacie.situation.params.PARAMS`.
    """

    #: Keys that are not parameters of the engine (the declared ones are added to these).
    key_descriptions: ClassVar[dict[str, str]] = {
        "dossiers": "A printable page per top complainant: {top: 20, redact: [column, ...]}.",
        "sensitivity": "Robustness of CST verdicts to the causal model: edges_removed "
        "(default true), edges_added (default 10), mechanisms (default all three), graphs "
        "(alternative edge lists); absent = off, true = the defaults.",
    }

    #: Sub-models whose keys the audit.yaml schema also describes.
    nested_specs: ClassVar[tuple[type, ...]] = (SensitivitySpec,)

    @field_validator("sensitivity", mode="before", check_fields=False)
    @classmethod
    def _sensitivity_switch(cls, v: Any) -> Any:
        # `sensitivity: true` asks for the defaults, `false` turns it off
        return {} if v is True else (None if v is False else v)

    @field_validator("k", check_fields=False)
    @classmethod
    def _k_sizes(cls, v: list[int]) -> list[int]:
        return sorted(set(v))

    @field_validator("legacy", check_fields=False)
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

    @field_validator("methods", "dimensions", check_fields=False)
    @classmethod
    def _distinct(cls, v: list[str], info: Any) -> list[str]:
        if not v:
            raise ValueError(f"{info.field_name} must list at least one entry")
        return list(dict.fromkeys(v))

    def engine_kwargs(self) -> dict[str, Any]:
        """The engine arguments this section sets (the one config → engine mapping)."""
        args = self.engine_args()
        del args["dimensions"]  # chooses the tests, not an engine argument
        return {**args, "interval": {"wilson": "newcombe"}.get(self.interval, self.interval)}

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
        kwargs = {**self.engine_kwargs(), **({} if backend is None else {"backend": backend})}
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
        single = [(f"single_{a}", a, "single") for a in protected if "single" in self.dimensions]
        tests = single + [(d, None, d) for d in DIMENSIONS[1:] if d in self.dimensions]
        return {label: self.build(attr, dim, backend) for label, attr, dim in tests}


def _method_aliases(v: Any) -> Any:
    # the engine's spellings: any case, cst_wo / cst_w for CST without / with centres
    return [_method_name(m) if isinstance(m, str) else m for m in v] if isinstance(v, list) else v


SituationSpec = spec_model(
    "SituationSpec", _SituationBase, PARAMS, "situation",
    normalize={"methods": _method_aliases},
    nested={"dossiers": (Optional[DossierSpec], None, "legacy"),
            "sensitivity": (Optional[SensitivitySpec], None, "multiplicity")},
)  # fmt: skip
