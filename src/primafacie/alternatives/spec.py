"""``analyses.alternatives`` of audit.yaml: the search's settings, checked with the engine's
own constraints, and the one place where they become an :class:`AlternativeSearch`."""

from __future__ import annotations

from typing import Any, ClassVar, Literal, Optional, Union

from pydantic import ValidationInfo, field_validator

from ..configbase import Strict as _Strict
from ..validation import check_value
from .params import PARAMETER_CONSTRAINTS, WHERE

__all__ = ["AlternativesSpec"]


class AlternativesSpec(_Strict):
    """The less-discriminatory-alternative search.

    Examples
    --------
    >>> AlternativesSpec().tolerance, AlternativesSpec().holdout
    (0.01, 0.3)
    >>> AlternativesSpec(n_boot=10**9)
    Traceback (most recent call last):
    ...
    pydantic_core._pydantic_core.ValidationError: 1 validation error for AlternativesSpec
    n_boot
      Value error, n_boot must be an integer in [50, 10000]; got 1000000000 (analyses.alternatives.n_boot) ...
    """

    key_descriptions: ClassVar[dict[str, str]] = {
        "drop_features": "Try the audited model with each feature neutralised, and with pairs "
        "of the features most associated with the protected attribute.",
        "pairs": "How many of the most associated features are paired (pairs·(pairs−1)/2 "
        "candidates).",
        "estimators": "Other scikit-learn estimators to try by name, each over a small grid: "
        "logistic_regression, decision_tree, random_forest, gradient_boosting, "
        "hist_gradient_boosting.",
        "params": "A grid on the audited estimator's own hyperparameters, {name: [values]} "
        "(Pipeline names such as clf__C).",
        "utility": "auc, accuracy, balanced_accuracy or {profit: {tp: .., fp: .., fn: .., "
        "tn: ..}}.",
        "tolerance": "Utility loss accepted (0.01: one point of AUC).",
        "disparity": "impact_ratio, selection_difference or equal_opportunity.",
        "folds": "Cross-validation folds on the search rows.",
        "holdout": "Share of rows held out from the whole choice for the final comparison.",
        "n_boot": "Bootstrap replicates of every interval (paired across candidates).",
        "alpha": "Level of the disparity test and of the utility non-inferiority test.",
        "n_draws": "Posterior draws of the certainty ranking's P(most fair); null skips it.",
        "seed": "Seed of the split, folds, estimators and bootstrap.",
    }

    drop_features: bool = True
    pairs: int = 4
    estimators: list[
        Literal[
            "logistic_regression",
            "decision_tree",
            "random_forest",
            "gradient_boosting",
            "hist_gradient_boosting",
        ]
    ] = []
    params: dict[str, list[Any]] = {}
    utility: Union[Literal["auc", "accuracy", "balanced_accuracy"], dict[str, dict[str, float]]] = (
        "auc"
    )
    tolerance: float = 0.01
    disparity: Literal["impact_ratio", "selection_difference", "equal_opportunity"] = "impact_ratio"
    folds: int = 5
    holdout: float = 0.3
    n_boot: int = 500
    alpha: float = 0.05
    n_draws: Optional[int] = 10_000
    seed: int = 0

    @field_validator(
        "drop_features", "pairs", "tolerance", "folds", "holdout", "n_boot", "alpha",
        "n_draws", "seed", "utility", "disparity", mode="before",
    )  # fmt: skip
    @classmethod
    def _engine_constraints(cls, v: Any, info: ValidationInfo) -> Any:
        name = info.field_name
        return check_value(name, v, PARAMETER_CONSTRAINTS[name], where=WHERE.get(name, ""))

    def build(self, data: Any = None, ctx: Any = None) -> Any:
        """The :class:`~primafacie.alternatives.AlternativeSearch` this section configures.

        Examples
        --------
        >>> AlternativesSpec(folds=3).build().folds
        3
        """
        from .engine import AlternativeSearch

        return AlternativeSearch(
            drop_features=self.drop_features,
            pairs=self.pairs,
            estimators=tuple(self.estimators),
            params=dict(self.params),
            utility=self.utility,
            tolerance=self.tolerance,
            disparity=self.disparity,
            folds=self.folds,
            holdout=self.holdout,
            n_boot=self.n_boot,
            alpha=self.alpha,
            n_draws=self.n_draws,
            seed=self.seed,
        )
