"""Synthetic generators and loaders of the real datasets (read from a data directory)."""

from typing import TYPE_CHECKING

from .._lazy import getter

if TYPE_CHECKING:
    from .loan_world import LOAN_COLUMNS, LOAN_EDGES, loan_decision, make_loan_world
    from .null_worlds import make_gap_world, make_null_world

__all__ = [
    "make_loan_world",
    "LOAN_EDGES",
    "LOAN_COLUMNS",
    "loan_decision",
    "make_null_world",
    "make_gap_world",
]

#: Where each public name lives: imported on first use, so that a loader
#: (``datasets.cst_data``, behind ``primafacie reproduce cst-loan``) does not import every
#: generator (issue 22, start-up).
_LAZY = {
    "make_loan_world": "loan_world",
    "LOAN_EDGES": "loan_world",
    "LOAN_COLUMNS": "loan_world",
    "loan_decision": "loan_world",
    "make_null_world": "null_worlds",
    "make_gap_world": "null_worlds",
}

__getattr__ = getter(__name__, globals(), _LAZY)
