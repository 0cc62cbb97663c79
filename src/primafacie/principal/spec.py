"""``analyses.principal`` of audit.yaml: the one place where configuration becomes engine arguments."""

from __future__ import annotations

from typing import Any

from ..configbase import Strict as _Strict
from ..configbase import spec_model
from .params import PARAMS

__all__ = ["PrincipalSpec"]


class _PrincipalBase(_Strict):
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
        from .engine import PrincipalFairness

        args = {**self.engine_args(), "protected": self.protected_of(data, "principal")}
        return PrincipalFairness(**args, backend=getattr(ctx, "backend", None))


PrincipalSpec = spec_model("PrincipalSpec", _PrincipalBase, PARAMS, "principal")
