"""``analyses.principal`` of audit.yaml."""

from __future__ import annotations

from typing import Any, ClassVar, Literal, Optional

from pydantic import Field

from ..configbase import Strict as _Strict

__all__ = ["PrincipalSpec"]


class PrincipalSpec(_Strict):
    """Principal-stratum counterfactual fairness (needs ``outcome``)."""

    #: What each key means (shown by editors through the audit.yaml schema).
    key_descriptions: ClassVar[dict[str, str]] = {
        "definitions": "1 (both strata) and/or 2 (pooled) counterfactual fairness on "
        "principal strata.",
        "covariates": "Columns defining the cells evaluated separately.",
        "protected": "Protected attribute (default: the only one).",
        "n_boot": "Bootstrap replicates for intervals (0 = none).",
        "seed": "Seed of the bootstrap and of the repair.",
    }

    definitions: list[Literal[1, 2]] = Field(default_factory=lambda: [1, 2])
    covariates: list[str] = Field(default_factory=list)
    protected: Optional[str] = None
    n_boot: int = Field(0, ge=0)
    seed: int = 0

    def build(self, data: Any) -> Any:
        """The :class:`~primafacie.principal.PrincipalFairness` this section configures for
        ``data`` (the protected attribute defaults to the data's first one).

        Raises
        ------
        InputError
            When ``protected`` is not a protected attribute of the data.
        """
        from ..errors import InputError
        from .fairness import PrincipalFairness

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
        )
