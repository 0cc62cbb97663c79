"""Synthetic generators and loaders of the real datasets (read from a data directory)."""

from __future__ import annotations

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
