"""``analyses.principal`` of audit.yaml: the one place where configuration becomes engine arguments.

The audit (:mod:`primafacie.principal.analysis`) and ``primafacie principal`` (with ``--config``
or with flags) all build their :class:`~primafacie.principal.PrincipalFairness` through
:meth:`PrincipalSpec.build`; the keys are checked with the engine's own constraints
(:data:`~primafacie.principal.params.PARAMETER_CONSTRAINTS`), so a bad value gives the same
message wherever it comes from.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, Optional

from pydantic import Field, ValidationInfo, field_validator

from ..configbase import Strict as _Strict
from ..validation import check_value
from .params import PARAMETER_CONSTRAINTS, WHERE

__all__ = ["PrincipalSpec"]

#: The engine parameter behind each key (``definitions`` is the engine's ``definition``).
_PARAMETER = {"definitions": "definition"}


class PrincipalSpec(_Strict):
    """Principal-stratum counterfactual fairness (needs ``outcome``).

    Examples
    --------
    >>> PrincipalSpec(definitions=[2], n_boot=100).n_boot
    100
    >>> PrincipalSpec(n_boot=-1)
    Traceback (most recent call last):
    ...
    pydantic_core._pydantic_core.ValidationError: 1 validation error for PrincipalSpec
    n_boot
      Value error, n_boot must be an integer in [0, 100000]; got -1 (--n-boot, analyses.principal.n_boot) ...
    """

    #: What each key means (shown by editors through the audit.yaml schema).
    key_descriptions: ClassVar[dict[str, str]] = {
        "definitions": "1 (both strata) and/or 2 (pooled) counterfactual fairness on "
        "principal strata.",
        "covariates": "Columns defining the cells evaluated separately.",
        "protected": "Protected attribute (default: the first one).",
        "n_boot": "Bootstrap replicates for intervals (0 = none; at most 100,000, whose "
        "Monte Carlo error, about 0.5/sqrt(n_boot), is below 0.002).",
        "seed": "Seed of the bootstrap and of the repair.",
        "joint": "tau0: bound tau1' with tau0' = 0 fixed (the paper's Section 4); tau1: the "
        "other way round.",
        "min_group": "Cells with a group smaller than this are flagged as unreliable.",
        "empty_cells": "A covariate cell lacking one group: error, or skip it with a warning.",
    }

    definitions: list[Literal[1, 2]] = Field(default_factory=lambda: [1, 2])
    covariates: list[str] = Field(default_factory=list)
    protected: Optional[str] = None
    n_boot: int = 0
    seed: int = 0
    joint: Literal["tau0", "tau1"] = "tau0"
    min_group: int = 5
    empty_cells: Literal["error", "skip"] = "error"

    @field_validator("definitions", mode="before")
    @classmethod
    def _one_definition(cls, v: Any) -> Any:
        return [v] if isinstance(v, int) and not isinstance(v, bool) else v

    @field_validator(
        "definitions", "covariates", "protected", "n_boot", "seed", "joint", "min_group",
        "empty_cells", mode="before",
    )  # fmt: skip
    @classmethod
    def _engine_constraints(cls, v: Any, info: ValidationInfo) -> Any:
        name = info.field_name
        param = _PARAMETER.get(name, name)
        return check_value(name, v, PARAMETER_CONSTRAINTS[param], where=WHERE.get(param, ""))

    def build(self, data: Any, ctx: Any = None) -> Any:
        """The :class:`~primafacie.principal.PrincipalFairness` this section configures.

        Parameters
        ----------
        data
            The audited :class:`~primafacie.data.AuditData`; without ``protected`` the
            section evaluates its first protected attribute (as the audit always has).
        ctx
            The audit's :class:`~primafacie.analysis.Context`: its compute backend evaluates
            the bootstrap replicates (the method needs no model or SCM).

        Returns
        -------
        PrincipalFairness

        Raises
        ------
        InputError
            When ``protected`` is not a protected attribute of the data.

        Examples
        --------
        >>> import pandas as pd
        >>> from primafacie.data import AuditData
        >>> df = pd.DataFrame({"g": ["f", "m"], "r": ["a", "b"], "s": [0, 1], "y": [1, 1]})
        >>> data = AuditData(df, protected={"g": "f", "r": "a"}, decision="s", outcome="y")
        >>> PrincipalSpec(definitions=[2]).build(data).protected
        'g'
        """
        from ..errors import InputError
        from .fairness import PrincipalFairness

        if not data.protected:
            raise InputError("analyses.principal: the data declare no protected attribute")
        attr = self.protected or next(iter(data.protected))
        if attr not in data.protected:
            raise InputError(
                f"analyses.principal.protected: {attr!r} is not a protected attribute; "
                f"protected: {list(data.protected)}"
            )
        return PrincipalFairness(
            definition=list(self.definitions),
            covariates=list(self.covariates),
            protected=attr,
            n_boot=self.n_boot,
            seed=self.seed,
            joint=self.joint,
            min_group=self.min_group,
            empty_cells=self.empty_cells,
            backend=getattr(ctx, "backend", None),
        )
