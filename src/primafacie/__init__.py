"""primafacie: audit automated and human decisions for discrimination.

The public API is re-exported here; everything else is internal.

Data and decisions
    :class:`AuditData` (a table with roles), :class:`Rule` (a safe rule expression),
    :func:`load_model`, :class:`SCM` (structural causal model for counterfactuals).
Situation testing
    :class:`SituationTest`, :class:`MultipleSituationTest`, :class:`IntersectionalSituationTest`.
Recourse fairness (FACTS)
    :class:`RecourseAudit`.
Principal-stratum fairness
    :class:`PrincipalFairness`.
Certainty of fairness
    :class:`CertaintyAudit` (and :func:`score_pairs` for counts alone).
The whole audit
    :func:`load_config` (``audit.yaml``), :func:`run_audit`, :func:`run_demo`.
"""

from __future__ import annotations

from .audit import AuditResult, run_audit, run_demo
from .causal import SCM
from .certainty import CertaintyAudit, CertaintyResult, score_pairs
from .config import AuditConfig, load_config
from .data import AuditData
from .decisions import Rule, load_model
from .errors import AnalysisError, InputError
from .principal import PrincipalFairness, PrincipalResult, RepairResult
from .recourse import CSCResult, FactsResult, RankingResult, RecourseAudit
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
    "RecourseAudit",
    "RankingResult",
    "FactsResult",
    "CSCResult",
    "PrincipalFairness",
    "PrincipalResult",
    "RepairResult",
    "CertaintyAudit",
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
