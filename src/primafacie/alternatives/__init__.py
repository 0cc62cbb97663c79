"""The less-discriminatory-alternative search (``analyses.alternatives``).

When an audit finds disparity, the next question is whether another decision procedure serves
the same purpose about as well with less of it. :class:`AlternativeSearch` refits the audited
scikit-learn model with features neutralised, other estimators and other hyperparameters,
chooses the most certainly fair candidate within a utility tolerance on cross-validation, and
tests it against the audited model on rows held out from the whole choice.
"""

from .engine import AlternativeSearch
from .results import AlternativesResult

__all__ = ["AlternativeSearch", "AlternativesResult"]
