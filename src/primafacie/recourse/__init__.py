"""FACTS: subgroup fairness of recourse (Kavouras et al., NeurIPS 2023).

A rule that lets group ``a`` through with a mid education but asks ``b`` for a high one: the
cheapest action that helps half of the low-education subgroup costs 2 for ``a`` and 4 for ``b``.

>>> import pandas as pd
>>> from primafacie.decisions import Rule
>>> from primafacie.recourse import RecourseAudit
>>> df = pd.DataFrame({"g": ["a", "b"] * 60,
...                    "edu": ["lo", "lo", "mid", "mid", "hi", "lo"] * 20,
...                    "job": ["x"] * 60 + ["y"] * 60})
>>> rule = Rule("(edu == 'hi') or ((g == 'a') and (edu == 'mid'))")
>>> audit = RecourseAudit(rule, protected="g", support=0.1, feature_weights={"edu": 2},
...                       features={"edu": {"ordinal": ["lo", "mid", "hi"]}, "job": "categorical"})
>>> audit = audit.fit(df)
>>> print(audit.csc("ECE", phi=0.5, top=1).text)
If edu = lo:
    Protected Subgroup = 'a', 100.00% covered
        Make edu = mid with effectiveness 100.00%.
    Protected Subgroup = 'b', 66.67% covered
        Make edu = hi with effectiveness 100.00%.
    Bias against b due to Equal Cost of Effectiveness (threshold = 0.5). Unfairness score = 2.
<BLANKLINE>
"""

from .audit import RecourseAudit
from .csc import CSCAction, CSCGroup, CSCRecord, CSCResult
from .items import ItemSpace, apply_bins, common_itemsets, frequent_itemsets
from .metrics import METRICS, RecourseTable, auto_budgets, dense_rank, resolve_metric
from .results import EffectivenessCurves, FactsResult, FactsScope, RankingResult

__all__ = [
    "RecourseAudit",
    "RankingResult",
    "FactsResult",
    "FactsScope",
    "EffectivenessCurves",
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
