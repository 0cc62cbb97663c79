"""primafacie: audit automated and human decisions for discrimination.

The public API is re-exported here (lazily: ``import primafacie`` loads no engine, pandas or
scipy; each name is imported on first use); everything else is internal.

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

from typing import TYPE_CHECKING, Any

from .errors import AnalysisError, InputError

if TYPE_CHECKING:  # for type checkers and IDEs; at run time the names load on first use
    from .audit import AuditResult, run_audit, run_demo
    from .causal import SCM
    from .certainty import CertaintyAudit, CertaintyResult, score_pairs
    from .config import AuditConfig, load_config
    from .data import AuditData
    from .decisions import Rule, load_model
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


def __getattr__(name: str) -> Any:
    """Import a public name on first use, so ``import primafacie`` (and the CLI, which
    imports this package) loads no engine, pandas or scipy until one is used.

    Plain ``from .x import y`` statements, one group per module, so a missing or renamed name
    is an ImportError at its first use and the import graph stays visible to tools.
    """
    if name in {"AuditResult", "run_audit", "run_demo"}:
        from .audit import AuditResult, run_audit, run_demo

        value = {"AuditResult": AuditResult, "run_audit": run_audit, "run_demo": run_demo}
    elif name == "SCM":
        from .causal import SCM

        value = {"SCM": SCM}
    elif name in {"CertaintyAudit", "CertaintyResult", "score_pairs"}:
        from .certainty import CertaintyAudit, CertaintyResult, score_pairs

        value = {
            "CertaintyAudit": CertaintyAudit,
            "CertaintyResult": CertaintyResult,
            "score_pairs": score_pairs,
        }
    elif name in {"AuditConfig", "load_config"}:
        from .config import AuditConfig, load_config

        value = {"AuditConfig": AuditConfig, "load_config": load_config}
    elif name == "AuditData":
        from .data import AuditData

        value = {"AuditData": AuditData}
    elif name in {"Rule", "load_model"}:
        from .decisions import Rule, load_model

        value = {"Rule": Rule, "load_model": load_model}
    elif name in {"PrincipalFairness", "PrincipalResult", "RepairResult"}:
        from .principal import PrincipalFairness, PrincipalResult, RepairResult

        value = {
            "PrincipalFairness": PrincipalFairness,
            "PrincipalResult": PrincipalResult,
            "RepairResult": RepairResult,
        }
    elif name in {"CSCResult", "FactsResult", "RankingResult", "RecourseAudit"}:
        from .recourse import CSCResult, FactsResult, RankingResult, RecourseAudit

        value = {
            "CSCResult": CSCResult,
            "FactsResult": FactsResult,
            "RankingResult": RankingResult,
            "RecourseAudit": RecourseAudit,
        }
    elif name in {
        "IntersectionalSituationTest",
        "MultipleResult",
        "MultipleSituationTest",
        "SituationResult",
        "SituationTest",
    }:
        from .situation import (
            IntersectionalSituationTest,
            MultipleResult,
            MultipleSituationTest,
            SituationResult,
            SituationTest,
        )

        value = {
            "IntersectionalSituationTest": IntersectionalSituationTest,
            "MultipleResult": MultipleResult,
            "MultipleSituationTest": MultipleSituationTest,
            "SituationResult": SituationResult,
            "SituationTest": SituationTest,
        }
    else:
        raise AttributeError(f"module 'primafacie' has no attribute {name!r}")
    globals().update(value)  # later uses are plain attribute look-ups
    return value[name]


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
