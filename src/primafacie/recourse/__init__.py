"""FACTS: subgroup fairness of recourse (Kavouras et al., NeurIPS 2023).

A rule that lets group ``a`` through with a mid education but asks ``b`` for a high one: the
cheapest action that helps half of the low-education subgroup costs 2 for ``a`` and 4 for ``b``.

>>> import pandas as pd
>>> from primafacie.decisions import Rule
>>> from primafacie.recourse import RecourseFairness
>>> df = pd.DataFrame({"g": ["a", "b"] * 60,
...                    "edu": ["lo", "lo", "mid", "mid", "hi", "lo"] * 20,
...                    "job": ["x"] * 60 + ["y"] * 60})
>>> rule = Rule("(edu == 'hi') or ((g == 'a') and (edu == 'mid'))")
>>> audit = RecourseFairness(rule, protected="g", support=0.1, feature_weights={"edu": 2},
...                       features={"edu": {"ordinal": ["lo", "mid", "hi"]}, "job": "categorical"})
>>> res = audit.run(df, phi=0.5, metrics=["ECE"])
>>> print(audit.csc("ECE", phi=0.5, top=1).text)
If edu = lo:
    Protected Subgroup = 'a', 100.00% covered
        Make edu = mid with effectiveness 100.00%.
    Protected Subgroup = 'b', 66.67% covered
        Make edu = hi with effectiveness 100.00%.
    Bias against b due to Equal Cost of Effectiveness (threshold = 0.5). Unfairness score = 2.
<BLANKLINE>
"""

from typing import TYPE_CHECKING

from .._lazy import getter

if TYPE_CHECKING:
    from .csc import CSCAction, CSCGroup, CSCRecord, CSCResult
    from .engine import RecourseFairness
    from .items import ItemSpace, apply_bins, common_itemsets, frequent_itemsets
    from .metrics import METRICS, RecourseTable, auto_budgets, dense_rank, resolve_metric
    from .results import EffectivenessCurves, FactsResult, FactsScope, RankingResult

__all__ = [
    "RecourseFairness",
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


#: Where each public name lives: imported on first use, so that the CLI can read this
#: package's declarations (:mod:`.params`) without loading the engine, numpy or pandas.
_LAZY = {
    "RecourseFairness": "engine",
    "CSCAction": "csc",
    "CSCGroup": "csc",
    "CSCRecord": "csc",
    "CSCResult": "csc",
    "ItemSpace": "items",
    "apply_bins": "items",
    "common_itemsets": "items",
    "frequent_itemsets": "items",
    "METRICS": "metrics",
    "RecourseTable": "metrics",
    "auto_budgets": "metrics",
    "dense_rank": "metrics",
    "resolve_metric": "metrics",
    "EffectivenessCurves": "results",
    "FactsResult": "results",
    "FactsScope": "results",
    "RankingResult": "results",
}

__getattr__ = getter(__name__, globals(), _LAZY)
