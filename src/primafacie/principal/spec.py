"""``analyses.principal`` of audit.yaml: the one place where configuration becomes engine arguments.

The audit (:mod:`primafacie.principal.analysis`) and ``primafacie principal`` (with ``--config``
or with flags) all build their :class:`~primafacie.principal.PrincipalFairness` through
:meth:`PrincipalSpec.build`; the keys are checked with the engine's own constraints
(:data:`~primafacie.principal.params.PARAMS`, from which the keys are derived), so a bad value
gives the same message wherever it comes from.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..configbase import Strict as _Strict
from ..configbase import spec_model
from ..params import Param
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

    params: ClassVar[tuple[Param, ...]] = ()
    key_descriptions: ClassVar[dict[str, str]] = {}

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
        from .engine import PrincipalFairness

        if not data.protected:
            raise InputError("analyses.principal: the data declare no protected attribute")
        attr = self.protected or next(iter(data.protected))
        if attr not in data.protected:
            raise InputError(
                f"analyses.principal.protected: {attr!r} is not a protected attribute; "
                f"protected: {list(data.protected)}"
            )
        return PrincipalFairness(
            definitions=list(self.definitions),
            covariates=list(self.covariates),
            protected=attr,
            n_boot=self.n_boot,
            seed=self.seed,
            joint=self.joint,
            min_group=self.min_group,
            empty_cells=self.empty_cells,
            backend=getattr(ctx, "backend", None),
        )


def _one_definition(v: Any) -> Any:
    return [v] if isinstance(v, int) and not isinstance(v, bool) else v


PrincipalSpec = spec_model(
    "PrincipalSpec", _PrincipalBase, PARAMS, "principal", normalize={"definitions": _one_definition}
)
