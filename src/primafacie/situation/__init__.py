"""Situation testing: k-NN ST, counterfactual situation testing (CST w/o, w/) and CF.

Single-attribute runs use :class:`SituationTest`; multiple and intersectional discrimination
use :class:`MultipleSituationTest` and :class:`IntersectionalSituationTest`.
"""

from typing import TYPE_CHECKING

from .._lazy import getter

if TYPE_CHECKING:
    from .engine import DEFAULT_K, METHOD_LABELS, METHODS, SituationTest
    from .multi import (
        IntersectionalSituationTest,
        MultipleResult,
        MultipleSituationTest,
        combine_multiple,
    )
    from .multiplicity import MULTIPLICITY, adjust_p
    from .results import SituationResult

__all__ = [
    "SituationTest",
    "SituationResult",
    "MultipleSituationTest",
    "IntersectionalSituationTest",
    "MultipleResult",
    "combine_multiple",
    "METHODS",
    "METHOD_LABELS",
    "DEFAULT_K",
    "MULTIPLICITY",
    "adjust_p",
]


#: Where each public name lives: imported on first use, so that the CLI can read this
#: package's declarations (:mod:`.params`) without loading the engine, numpy or pandas.
_LAZY = {
    "DEFAULT_K": "engine",
    "METHOD_LABELS": "engine",
    "METHODS": "engine",
    "SituationTest": "engine",
    "IntersectionalSituationTest": "multi",
    "MultipleResult": "multi",
    "MultipleSituationTest": "multi",
    "combine_multiple": "multi",
    "MULTIPLICITY": "multiplicity",
    "adjust_p": "multiplicity",
    "SituationResult": "results",
}

__getattr__ = getter(__name__, globals(), _LAZY)
