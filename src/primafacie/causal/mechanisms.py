"""Causal mechanisms: one structural equation per endogenous node, with fit, noise, evaluate.

Every mechanism maps a node's parents (a design matrix, see :mod:`.encoding`) and a noise
term to the node's value, and can recover the noise of an observed row (abduction):

* :class:`LinearANM` — ``x = b0 + X b + u``, ordinary least squares with an intercept.
* :class:`EstimatorANM` — ``x = f(X) + u`` with ``f`` any scikit-learn regressor.
* :class:`CategoricalCDF` — a categorical node ``P(x = c_k | X)`` from a classifier over a
  fixed category order; the noise is the midpoint ``u`` of the observed category's
  cumulative-probability interval and ``evaluate`` returns the first category whose
  cumulative probability reaches ``u`` (DoWhy gcm's ``ClassifierFCM`` idea, deterministic).

:func:`make_mechanism` builds the right one from an :class:`~primafacie.causal.SCM`'s
``mechanism`` setting. The counterfactual loop only calls :meth:`Mechanism.noise`,
:meth:`Mechanism.evaluate` and :meth:`Mechanism.counterfactual` (both at once).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

__all__ = [
    "MECHANISMS",
    "AdditiveNoiseModel",
    "CategoricalCDF",
    "EstimatorANM",
    "LinearANM",
    "Mechanism",
    "default_classifier",
    "is_estimator",
    "make_mechanism",
    "named_regressor",
]

#: Mechanism names accepted as strings (config files use these).
MECHANISMS = ("linear", "random_forest", "gradient_boosting")


def is_estimator(obj: Any) -> bool:
    """Whether ``obj`` looks like a scikit-learn estimator (``fit`` and a predictor).

    Examples
    --------
    >>> from sklearn.linear_model import LinearRegression
    >>> is_estimator(LinearRegression()), is_estimator("linear")
    (True, False)
    """
    return hasattr(obj, "fit") and (hasattr(obj, "predict") or hasattr(obj, "predict_proba"))


def named_regressor(name: str) -> Any:
    """The unfitted regressor behind ``"random_forest"`` or ``"gradient_boosting"``.

    Examples
    --------
    >>> type(named_regressor("gradient_boosting")).__name__
    'HistGradientBoostingRegressor'
    """
    # Fixed random_state: the same data must give the same counterfactuals.
    if name == "random_forest":
        from sklearn.ensemble import RandomForestRegressor

        return RandomForestRegressor(n_estimators=100, min_samples_leaf=5, random_state=0)
    if name == "gradient_boosting":
        from sklearn.ensemble import HistGradientBoostingRegressor

        return HistGradientBoostingRegressor(random_state=0)
    raise ValueError(f"no named regressor {name!r}; known: {list(MECHANISMS[1:])}")


def default_classifier() -> Any:
    """Standardised multinomial ``LogisticRegression`` (the default categorical mechanism).

    Examples
    --------
    >>> [type(s).__name__ for _, s in default_classifier().steps]
    ['StandardScaler', 'LogisticRegression']
    """
    # Standardising first keeps lbfgs well conditioned when parents are on a salary scale.
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))


def _pipeline_name(model: Any) -> str:
    steps = getattr(model, "steps", None)
    if steps:
        return "+".join(type(s[1]).__name__ for s in steps)
    return type(model).__name__


class Mechanism(ABC):
    """A structural equation ``x = f(X_parents, u)`` that can be fitted and inverted in ``u``.

    Subclasses implement :meth:`fit`, :meth:`noise` and :meth:`evaluate`; ``kind`` says
    whether the node is ``"numeric"`` (float values) or ``"categorical"`` (integer codes).
    """

    kind: ClassVar[str] = "numeric"

    @abstractmethod
    def fit(self, X: np.ndarray, y: np.ndarray) -> Mechanism:
        """Fit on the factual parents ``X`` (n × p design) and node values ``y``; ``self``."""

    @abstractmethod
    def noise(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Abduction: the noise of each row given its parents ``X`` and value ``y``."""

    @abstractmethod
    def evaluate(self, X: np.ndarray, noise: np.ndarray) -> np.ndarray:
        """Prediction: the node's value under parents ``X`` and the given ``noise``."""

    @property
    @abstractmethod
    def label(self) -> str:
        """Short name for reports (``"linear"``, an estimator's class name, ...)."""

    def counterfactual(self, X_factual: np.ndarray, y: np.ndarray, X_cf: np.ndarray) -> np.ndarray:
        """Abduction then prediction for one node: ``evaluate(X_cf, noise(X_factual, y))``.

        Subclasses may override it with an algebraically equal, cheaper or more exact form.

        Parameters
        ----------
        X_factual, X_cf
            Designs of the factual and counterfactual parents (same shape).
        y
            Factual values (floats, or codes for a categorical node).

        Returns
        -------
        numpy.ndarray
        """
        return self.evaluate(X_cf, self.noise(X_factual, y))


class AdditiveNoiseModel(Mechanism):
    """``x = f(X) + u``: the noise is the residual ``u = x − f(X)``."""

    @abstractmethod
    def predict(self, X: np.ndarray) -> np.ndarray:
        """``f(X)`` as floats."""

    def noise(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Residuals ``y − f(X)``."""
        return y - self.predict(X)

    def evaluate(self, X: np.ndarray, noise: np.ndarray) -> np.ndarray:
        """``f(X) + noise``."""
        return self.predict(X) + noise


class LinearANM(AdditiveNoiseModel):
    """Linear additive noise: ``x = b0 + X b + u``, fitted by least squares (``np.linalg.lstsq``).

    Attributes
    ----------
    coef_ : numpy.ndarray
        ``[b0, b1, ..., bp]``, the intercept first.

    Examples
    --------
    >>> X = np.array([[0.0], [0.0], [1.0], [1.0]])
    >>> mech = LinearANM().fit(X, np.array([1.0, 2.0, 4.0, 5.0]))
    >>> mech.coef_.round(6).tolist(), mech.noise(X, np.array([1.0, 2.0, 4.0, 5.0])).round(6).tolist()
    ([1.5, 3.0], [-0.5, 0.5, -0.5, 0.5])
    """

    @property
    def label(self) -> str:
        return "linear"

    def fit(self, X: np.ndarray, y: np.ndarray) -> LinearANM:
        design = np.column_stack([np.ones(len(X)), X])
        self.coef_, *_ = np.linalg.lstsq(design, y, rcond=None)
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.coef_[0] + X @ self.coef_[1:]

    def counterfactual(self, X_factual: np.ndarray, y: np.ndarray, X_cf: np.ndarray) -> np.ndarray:
        """``y + (X_cf − X_factual) b``: the intercept cancels, so fewer rounding steps."""
        return (X_cf - X_factual) @ self.coef_[1:] + y


class EstimatorANM(AdditiveNoiseModel):
    """Additive noise around any scikit-learn regressor: ``x = f(X) + u``.

    Parameters
    ----------
    estimator
        An unfitted regressor; :meth:`fit` fits a clone, so the argument is never changed.
    name
        Label in reports; by default the estimator's class name.

    Attributes
    ----------
    estimator_
        The fitted clone.

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeRegressor
    >>> X = np.array([[1.0], [2.0], [5.0], [6.0]])
    >>> mech = EstimatorANM(DecisionTreeRegressor(max_depth=1)).fit(X, np.array([0.0, 2, 10, 12]))
    >>> mech.noise(X, np.array([0.0, 2, 10, 12])).tolist(), mech.label
    ([-1.0, 1.0, -1.0, 1.0], 'DecisionTreeRegressor')
    """

    def __init__(self, estimator: Any, name: str | None = None) -> None:
        self.estimator = estimator
        self.name = name

    @property
    def label(self) -> str:
        return self.name or type(self.estimator).__name__

    def fit(self, X: np.ndarray, y: np.ndarray) -> EstimatorANM:
        from sklearn.base import clone

        self.estimator_ = clone(self.estimator)
        self.estimator_.fit(X, y)
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.asarray(self.estimator_.predict(X), dtype=float)

    def counterfactual(self, X_factual: np.ndarray, y: np.ndarray, X_cf: np.ndarray) -> np.ndarray:
        """``f(X_cf) + (y − f(X_factual))`` with one predict call on the stacked designs."""
        both = self.predict(np.vstack([X_factual, X_cf]))
        u = y - both[: len(X_factual)]
        return both[len(X_factual) :] + u


class CategoricalCDF(Mechanism):
    """A categorical node: a classifier's CDF over a fixed category order, inverted at ``u``.

    Categories are integer codes ``0 .. n_categories − 1``. The noise of a row with category
    ``k`` is the midpoint ``u = (F(k−1) + F(k)) / 2`` of its cumulative-probability interval
    under its parents (deterministic, rather than a draw from the interval); ``evaluate``
    returns the first category whose cumulative probability reaches ``u``. When only one
    category occurs in the data no classifier is fitted and that category has probability 1.

    Parameters
    ----------
    n_categories
        Size of the category domain (categories unseen at fit get probability 0).
    classifier
        An unfitted classifier with ``predict_proba`` (cloned at fit); ``None`` for
        :func:`default_classifier`.

    Attributes
    ----------
    classifier_
        The fitted clone, or ``None`` when one category occurred.
    constant_ : int or None
        That category's code in the one-category case.

    Examples
    --------
    >>> mech = CategoricalCDF(3).fit(np.zeros((2, 1)), np.array([1, 1]))  # only code 1 seen
    >>> mech.cdf(np.zeros((1, 1))).tolist(), mech.noise(np.zeros((1, 1)), np.array([1])).tolist()
    ([[0.0, 1.0, 1.0]], [0.5])
    >>> mech.evaluate(np.zeros((2, 1)), np.array([0.25, 1.0])).tolist()
    [1, 1]
    """

    kind: ClassVar[str] = "categorical"

    def __init__(self, n_categories: int, classifier: Any = None) -> None:
        self.n_categories = n_categories
        self.classifier = classifier

    @property
    def label(self) -> str:
        if not hasattr(self, "classifier_"):
            return "classifier"  # not fitted yet
        if self.classifier_ is None:
            return "constant"
        return f"classifier:{_pipeline_name(self.classifier_)}"

    def fit(self, X: np.ndarray, y: np.ndarray) -> CategoricalCDF:
        present = np.unique(y)
        if len(present) == 1:
            # One observed category: every counterfactual keeps it; no classifier to fit.
            self.constant_: int | None = int(present[0])
            self.classifier_: Any = None
            return self
        from sklearn.base import clone

        from ..budget import CAUSAL_BYTES_PER_ROW_CATEGORY, Need, require

        # the probabilities and the CDF grow with rows x categories: refused before fitting
        require(
            Need(
                "causal model",
                f"a categorical node ({len(y)} rows x {self.n_categories} categories)",
                "the number of values of the categorical node (bin it, or leave it out of "
                "causal.edges)",
                len(y) * self.n_categories * CAUSAL_BYTES_PER_ROW_CATEGORY,
            )
        )
        self.constant_ = None
        base = self.classifier if self.classifier is not None else default_classifier()
        self.classifier_ = clone(base)
        self.classifier_.fit(X, y)
        return self

    def cdf(self, X: np.ndarray) -> np.ndarray:
        """Cumulative probabilities, one row per design row, one column per category.

        Examples
        --------
        >>> CategoricalCDF(3).fit(np.zeros((2, 1)), np.array([2, 2])).cdf(np.zeros((1, 1)))
        array([[0., 0., 1.]])
        """
        if self.classifier_ is None:
            cdf = np.zeros((len(X), self.n_categories))
            cdf[:, self.constant_ :] = 1.0
            return cdf
        clf = self.classifier_
        proba = np.asarray(clf.predict_proba(X), dtype=float)
        # Classes are integer codes; put each probability column at its code's position so the
        # category order is the fixed stored order even if some category never occurred.
        full = np.zeros((len(X), self.n_categories))
        full[:, np.asarray(clf.classes_, dtype=np.int64)] = proba
        return np.cumsum(full, axis=1)

    def noise(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Midpoints ``(F(k−1) + F(k)) / 2`` of the observed codes ``y`` (``F(−1) = 0``)."""
        cdf = self.cdf(X)
        rows = np.arange(len(y))
        hi = cdf[rows, y]
        lo = np.where(y > 0, cdf[rows, np.maximum(y - 1, 0)], 0.0)
        return (lo + hi) / 2.0

    def evaluate(self, X: np.ndarray, noise: np.ndarray) -> np.ndarray:
        """Codes: the first category whose cumulative probability under ``X`` reaches ``noise``."""
        cdf = self.cdf(X)
        return np.minimum((cdf < noise[:, None]).sum(axis=1), cdf.shape[1] - 1).astype(np.int64)


def make_mechanism(setting: Any, kind: str, n_categories: int | None = None) -> Mechanism:
    """The unfitted mechanism for one node from its ``mechanism`` setting.

    Parameters
    ----------
    setting
        ``"linear"``, ``"random_forest"``, ``"gradient_boosting"`` or an unfitted
        scikit-learn estimator (validated by the caller).
    kind
        ``"numeric"`` or ``"categorical"``.
    n_categories
        The category count of a categorical node.

    Returns
    -------
    Mechanism
        Numeric: :class:`LinearANM` for ``"linear"``, else :class:`EstimatorANM`.
        Categorical: :class:`CategoricalCDF` with the estimator when it has
        ``predict_proba``, else with the default classifier.

    Examples
    --------
    >>> type(make_mechanism("linear", "numeric")).__name__
    'LinearANM'
    >>> make_mechanism("random_forest", "numeric").label
    'random_forest'
    >>> make_mechanism("linear", "categorical", 3).classifier is None
    True
    """
    if kind == "categorical":
        if n_categories is None:
            raise ValueError("a categorical mechanism needs n_categories")
        usable = is_estimator(setting) and hasattr(setting, "predict_proba")
        return CategoricalCDF(n_categories, setting if usable else None)
    if isinstance(setting, str):
        if setting == "linear":
            return LinearANM()
        return EstimatorANM(named_regressor(setting), name=setting)
    return EstimatorANM(setting)
