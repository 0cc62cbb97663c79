"""primafacie: audit automated and human decisions for discrimination.

The public API is re-exported here (lazily: ``import primafacie`` loads no engine, pandas or
scipy; each name is imported on first use); everything else is internal.

Data and decisions
    :class:`AuditData` (a table with roles), :class:`Rule` (a safe rule expression),
    :func:`load_model`, :class:`SCM` (structural causal model for counterfactuals).
Situation testing
    :class:`SituationTest`, :class:`MultipleSituationTest`, :class:`IntersectionalSituationTest`.
Recourse fairness (FACTS)
    :class:`RecourseFairness`.
Principal-stratum fairness
    :class:`PrincipalFairness`.
Certainty of fairness
    :class:`CertaintyRanking` (and :func:`score_pairs` for counts alone).
The whole audit
    :func:`load_config` (``audit.yaml``), :func:`run_audit`, :func:`run_demo`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import AnalysisError, InputError

if TYPE_CHECKING:  # for type checkers and IDEs; at run time the names load on first use
    from .audit import AuditResult, run_audit, run_demo
    from .causal import SCM
    from .certainty import CertaintyRanking, CertaintyResult, score_pairs
    from .config import AuditConfig, load_config
    from .data import AuditData
    from .decisions import Rule, load_model
    from .principal import PrincipalFairness, PrincipalResult, RepairResult
    from .recourse import CSCResult, FactsResult, RankingResult, RecourseFairness
    from .situation import (
        IntersectionalSituationTest,
        MultipleResult,
        MultipleSituationTest,
        SituationResult,
        SituationTest,
    )

__version__ = "0.1.0"

__all__ = [
    "AuditData",
    "Rule",
    "load_model",
    "SCM",
    "SituationTest",
    "MultipleSituationTest",
    "IntersectionalSituationTest",
    "SituationResult",
    "MultipleResult",
    "RecourseFairness",
    "RankingResult",
    "FactsResult",
    "CSCResult",
    "PrincipalFairness",
    "PrincipalResult",
    "RepairResult",
    "CertaintyRanking",
    "CertaintyResult",
    "score_pairs",
    "AuditConfig",
    "load_config",
    "run_audit",
    "run_demo",
    "AuditResult",
    "InputError",
    "AnalysisError",
    "__version__",
]


#: Where each public name lives (imported on first use by :func:`__getattr__`).
_LAZY: dict[str, str] = {
    "AuditResult": "audit",
    "run_audit": "audit",
    "run_demo": "audit",
    "SCM": "causal",
    "CertaintyRanking": "certainty",
    "CertaintyResult": "certainty",
    "score_pairs": "certainty",
    "AuditConfig": "config",
    "load_config": "config",
    "AuditData": "data",
    "Rule": "decisions",
    "load_model": "decisions",
    "PrincipalFairness": "principal",
    "PrincipalResult": "principal",
    "RepairResult": "principal",
    "CSCResult": "recourse",
    "FactsResult": "recourse",
    "RankingResult": "recourse",
    "RecourseFairness": "recourse",
    "IntersectionalSituationTest": "situation",
    "MultipleResult": "situation",
    "MultipleSituationTest": "situation",
    "SituationResult": "situation",
    "SituationTest": "situation",
}


def __getattr__(name: str) -> Any:
    """Import a public name on first use, so ``import primafacie`` (and the CLI, which
    imports this package) loads no engine, pandas or scipy until one is used.

    The ``TYPE_CHECKING`` block above spells the same imports for type checkers, and
    ``tests/test_startup.py`` checks that every name of ``__all__`` resolves.
    """
    from ._lazy import load

    return load(__name__, globals(), _LAZY, name)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
