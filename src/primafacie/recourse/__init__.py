"""FACTS: subgroup fairness of recourse (Kavouras et al., NeurIPS 2023).

>>> from primafacie.recourse import RecourseAudit  # doctest: +SKIP
>>> audit = RecourseAudit(model, protected="sex", support=0.01).fit(test_frame)  # doctest: +SKIP
>>> audit.rank("ECE", phi=0.7).to_frame().head()  # doctest: +SKIP
>>> print(audit.csc("ECE", phi=0.7, top=3).text)  # doctest: +SKIP
"""

from .audit import RecourseAudit
from .csc import CSCAction, CSCGroup, CSCRecord, CSCResult
from .items import ItemSpace, apply_bins, common_itemsets, frequent_itemsets
from .metrics import METRICS, RecourseTable, auto_budgets, dense_rank, resolve_metric
from .results import FactsResult, RankingResult

__all__ = [
    "RecourseAudit",
    "RankingResult",
    "FactsResult",
    "CSCResult",
    "CSCRecord",
    "CSCGroup",
    "CSCAction",
    "RecourseTable",
    "ItemSpace",
    "METRICS",
    "apply_bins",
    "frequent_itemsets",
    "common_itemsets",
    "auto_budgets",
    "dense_rank",
    "resolve_metric",
]
