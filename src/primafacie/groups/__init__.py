"""Group metrics: selection rates, the four-fifths ratio and error-rate gaps per group.

>>> from primafacie.groups import GroupMetrics  # doctest: +SKIP
>>> GroupMetrics(min_group=30).run(data).summary()  # doctest: +SKIP
"""

from typing import TYPE_CHECKING

from .._lazy import getter

if TYPE_CHECKING:
    from .engine import METRICS, OUTCOME_METRICS, GroupMetrics, group_codes
    from .results import METRIC_LABELS, GroupMetricsResult
    from .score_results import ScoreMetricsResult
    from .stats import abs_interval, katz_interval

__all__ = [
    "GroupMetrics",
    "GroupMetricsResult",
    "METRICS",
    "METRIC_LABELS",
    "OUTCOME_METRICS",
    "ScoreMetricsResult",
    "abs_interval",
    "group_codes",
    "katz_interval",
]

#: Where each public name lives: imported on first use, so that the CLI can read this
#: package's declarations (:mod:`.params`) without loading the engine, numpy or pandas.
_LAZY = {
    "GroupMetrics": "engine", "METRICS": "engine", "OUTCOME_METRICS": "engine",
    "group_codes": "engine", "GroupMetricsResult": "results", "METRIC_LABELS": "results",
    "abs_interval": "stats", "katz_interval": "stats", "ScoreMetricsResult": "score_results",
}  # fmt: skip

__getattr__ = getter(__name__, globals(), _LAZY)
