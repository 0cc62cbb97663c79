"""Synthetic generators and loaders of the real datasets (read from a data directory)."""

from __future__ import annotations

from .loan_world import LOAN_COLUMNS, LOAN_EDGES, loan_decision, make_loan_world

__all__ = ["make_loan_world", "LOAN_EDGES", "LOAN_COLUMNS", "loan_decision"]
