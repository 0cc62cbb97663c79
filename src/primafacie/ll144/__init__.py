"""NYC Local Law 144 bias audit tables (6 RCNY §5-301): selection or scoring rates and impact
ratios by sex, race/ethnicity and their intersection, against the category with the highest
rate; small categories may be excluded from the ratios, unknown categories are counted apart."""

from .engine import LL144Audit
from .results import LL144Result

__all__ = ["LL144Audit", "LL144Result"]
