"""Group metrics: selection rates, the four-fifths ratio and error-rate gaps per group.

>>> from primafacie.groups import GroupMetrics  # doctest: +SKIP
>>> GroupMetrics(min_group=30).run(data).summary()  # doctest: +SKIP
"""

from .engine import METRICS, OUTCOME_METRICS, GroupMetrics, group_codes
from .results import METRIC_LABELS, GroupMetricsResult
from .stats import abs_interval, katz_interval

__all__ = [
    "GroupMetrics",
    "GroupMetricsResult",
    "METRICS",
    "METRIC_LABELS",
    "OUTCOME_METRICS",
    "abs_interval",
    "group_codes",
    "katz_interval",
]
