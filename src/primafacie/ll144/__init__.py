"""NYC Local Law 144 bias audit tables (6 RCNY §5-301): selection or scoring rates and impact
ratios by sex, race/ethnicity and their intersection, against the category with the highest
rate; small categories may be excluded from the ratios, unknown categories are counted apart."""

from typing import Any

from .engine import LL144Tables
from .results import LL144Result

__all__ = ["LL144Tables", "LL144Result"]


def __getattr__(name: str) -> Any:
    """Only the names renamed in 0.2 (:mod:`primafacie._renamed`), with a DeprecationWarning."""
    from .._lazy import load

    return load(__name__, globals(), {}, name)
