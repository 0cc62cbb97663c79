"""NYC Local Law 144 bias audit tables (6 RCNY §5-301): selection or scoring rates and impact
ratios by sex, race/ethnicity and their intersection, against the category with the highest
rate; small categories may be excluded from the ratios, unknown categories are counted apart."""

from typing import TYPE_CHECKING

from .._lazy import getter

if TYPE_CHECKING:
    from .engine import LL144Tables
    from .results import LL144Result

__all__ = ["LL144Tables", "LL144Result"]

#: Where each public name lives: imported on first use, so that the CLI can read this
#: package's declarations (:mod:`.params`) without loading the engine, numpy or pandas (a
#: name renamed in 0.2, :mod:`primafacie._renamed`, resolves with a DeprecationWarning).
_LAZY = {"LL144Tables": "engine", "LL144Result": "results"}

__getattr__ = getter(__name__, globals(), _LAZY)
