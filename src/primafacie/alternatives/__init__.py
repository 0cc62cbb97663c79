"""The less-discriminatory-alternative search (``analyses.alternatives``).

When an audit finds disparity, the next question is whether another decision procedure serves
the same purpose about as well with less of it. :class:`AlternativeSearch` refits the audited
scikit-learn model with features neutralised, other estimators and other hyperparameters,
chooses the most certainly fair candidate within a utility tolerance on cross-validation, and
tests it against the audited model on rows held out from the whole choice.
"""

from typing import TYPE_CHECKING

from .._lazy import getter

if TYPE_CHECKING:
    from .engine import AlternativeSearch
    from .results import AlternativesResult

__all__ = ["AlternativeSearch", "AlternativesResult"]

#: Where each public name lives: imported on first use, so that the CLI can read this
#: package's declarations (:mod:`.params`) without loading the engine, numpy or pandas.
_LAZY = {"AlternativeSearch": "engine", "AlternativesResult": "results"}

__getattr__ = getter(__name__, globals(), _LAZY)
