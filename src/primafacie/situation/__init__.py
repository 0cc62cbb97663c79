"""Situation testing: k-NN ST, counterfactual situation testing (CST w/o, w/) and CF.

Single-attribute runs use :class:`SituationTest`; multiple and intersectional discrimination
use :class:`MultipleSituationTest` and :class:`IntersectionalSituationTest`.
"""

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
