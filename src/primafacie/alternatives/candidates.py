"""The search space of the less-discriminatory-alternative search, and how a candidate is built.

A candidate is the audited estimator with (i) one or two features neutralised, (ii) another
scikit-learn estimator behind the same preprocessing, or (iii) other values of its own
hyperparameters. Neutralising a feature replaces it by one constant (its most frequent value),
so the audited pipeline (column transformers that name their columns) still fits, and no
information of the feature reaches the refitted model: the same as dropping it.

The protected attributes are neutralised in *every* candidate (a protected attribute as an
input is disparate treatment), and no candidate gets group-specific thresholds, for the same
reason.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError
from .params import ESTIMATOR_GRIDS

__all__ = ["Candidate", "association", "plan", "build_estimator", "neutralise"]


@dataclass(frozen=True)
class Candidate:
    """One decision procedure the search tries.

    Attributes
    ----------
    dropped
        Features neutralised (besides the protected attributes).
    estimator
        ``"audited"`` or a name of :data:`~.params.ESTIMATOR_GRIDS`.
    params
        Hyperparameters set on the estimator (``{}``: as audited / the grid's defaults).
    """

    dropped: tuple[str, ...] = ()
    estimator: str = "audited"
    params: tuple[tuple[str, Any], ...] = field(default_factory=tuple)

    @property
    def is_baseline(self) -> bool:
        """The audited estimator, refitted as it is."""
        return not self.dropped and self.estimator == "audited" and not self.params

    def describe(self) -> str:
        """Plain words: ``audited model without income, savings`` or ``decision_tree (max_depth=3)``."""
        if self.is_baseline:
            return "audited model (refitted)"
        text = "audited model" if self.estimator == "audited" else self.estimator
        if self.params:
            text += " (" + ", ".join(f"{k}={v!r}" for k, v in self.params) + ")"
        if self.dropped:
            text += " without " + ", ".join(self.dropped)
        return text


def association(frame: pd.DataFrame, features: Sequence[str], protected: np.ndarray) -> pd.Series:
    """How strongly each feature tells the protected group apart, in [0, 1].

    Numeric features: the absolute point-biserial correlation with the protected indicator;
    categorical and ordinal ones: Cramér's V of the feature against it (for a binary indicator
    ``sqrt(chi² / n)``). Both are 0 for an unrelated feature and 1 for a perfect proxy.

    Examples
    --------
    >>> df = pd.DataFrame({"x": [1.0, 2, 3, 4], "c": ["a", "a", "b", "b"]})
    >>> association(df, ["x", "c"], np.array([0, 0, 1, 1])).round(3).tolist()
    [0.894, 1.0]
    """
    a = np.asarray(protected, dtype=float)
    out = {}
    for col in features:
        values = frame[col]
        if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
            x = values.to_numpy(dtype=float)
            sx, sa = x.std(), a.std()
            out[col] = 0.0 if sx == 0 or sa == 0 else abs(float(np.corrcoef(x, a)[0, 1]))
            continue
        codes, _ = pd.factorize(values.astype(str))
        table = np.zeros((codes.max() + 1, 2))
        np.add.at(table, (codes, a.astype(int)), 1)
        expected = table.sum(1, keepdims=True) * table.sum(0, keepdims=True) / table.sum()
        with np.errstate(divide="ignore", invalid="ignore"):
            chi2 = np.nansum(np.where(expected > 0, (table - expected) ** 2 / expected, 0.0))
        out[col] = float(np.sqrt(chi2 / len(a))) if table.shape[0] > 1 else 0.0
    return pd.Series(out, dtype=float)


def _grid(params: Mapping[str, Sequence[Any]]) -> list[tuple[tuple[str, Any], ...]]:
    keys = sorted(params)
    return [
        tuple(zip(keys, combo, strict=True))
        for combo in itertools.product(*(params[k] for k in keys))
    ]


def plan(
    features: Sequence[str],
    ranked: Sequence[str],
    drop_features: bool,
    pairs: int,
    estimators: Sequence[str],
    params: Mapping[str, Sequence[Any]],
) -> list[Candidate]:
    """Every candidate of the search, the audited estimator first.

    Parameters
    ----------
    features
        The model's inputs that may be neutralised (protected attributes excluded).
    ranked
        ``features`` from the most to the least associated with the protected attribute: the
        pairs are drawn among the first ``pairs`` of them.
    drop_features, pairs, estimators, params
        As in :class:`~primafacie.alternatives.AlternativeSearch`.

    Examples
    --------
    >>> [c.describe() for c in plan(["a", "b", "c"], ["c", "a", "b"], True, 2, [], {})]
    ['audited model (refitted)', 'audited model without a', 'audited model without b', 'audited model without c', 'audited model without c, a']
    """
    out = [Candidate()]
    if drop_features:
        out += [Candidate(dropped=(f,)) for f in features]
        top = list(ranked)[:pairs]
        out += [Candidate(dropped=pair) for pair in itertools.combinations(top, 2)]
    for name in estimators:
        out += [Candidate(estimator=name, params=g) for g in _grid(ESTIMATOR_GRIDS[name])]
    if params:
        out += [Candidate(params=g) for g in _grid(params) if g]
    return list(dict.fromkeys(out))  # a grid may repeat the audited settings: keep the first


def neutralise(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """``frame`` with each of ``columns`` replaced by its most frequent value (a copy)."""
    out = frame.copy()
    for col in columns:
        mode = out[col].mode(dropna=True)
        out[col] = mode.iloc[0] if len(mode) else out[col].iloc[0]
    return out


def _named(name: str, seed: int) -> Any:
    from sklearn.ensemble import (
        GradientBoostingClassifier,
        HistGradientBoostingClassifier,
        RandomForestClassifier,
    )
    from sklearn.linear_model import LogisticRegression
    from sklearn.tree import DecisionTreeClassifier

    return {
        "logistic_regression": lambda: LogisticRegression(max_iter=1000),
        "decision_tree": lambda: DecisionTreeClassifier(random_state=seed),
        "random_forest": lambda: RandomForestClassifier(
            n_estimators=100, random_state=seed, n_jobs=1
        ),
        "gradient_boosting": lambda: GradientBoostingClassifier(random_state=seed),
        "hist_gradient_boosting": lambda: HistGradientBoostingClassifier(random_state=seed),
    }[name]()


def default_preprocessor(kinds: Mapping[str, str]) -> Any:
    """A column transformer for a bare estimator: one-hot categoricals, scaled numbers."""
    from sklearn.compose import ColumnTransformer
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    cat = [c for c, k in kinds.items() if k != "numeric"]
    num = [c for c, k in kinds.items() if k == "numeric"]
    return ColumnTransformer(
        [("num", StandardScaler(), num), ("cat", OneHotEncoder(handle_unknown="ignore"), cat)]
    )


def build_estimator(base: Any, candidate: Candidate, kinds: Mapping[str, str], seed: int) -> Any:
    """An unfitted estimator for ``candidate``: a clone of ``base``, its final step swapped or
    its parameters set. Named estimators keep the audited Pipeline's preprocessing, or get
    :func:`default_preprocessor` when the audited model is a bare estimator."""
    from sklearn.base import clone
    from sklearn.pipeline import Pipeline

    est = clone(base)
    if candidate.estimator != "audited":
        final = _named(candidate.estimator, seed).set_params(**dict(candidate.params))
        if isinstance(est, Pipeline):
            est.steps[-1] = (est.steps[-1][0], final)
        else:
            est = Pipeline([("prep", default_preprocessor(kinds)), ("clf", final)])
        return est
    if candidate.params:
        try:
            est.set_params(**dict(candidate.params))
        except ValueError as exc:
            valid = ", ".join(sorted(est.get_params(deep=True))[:30])
            raise InputError(
                f"analyses.alternatives.params: {exc}; the audited model's parameters: {valid}"
            ) from None
    return est
