"""Ours against the paper: one row per published number, with a verdict.

Every reproduction has a ``compare_*`` function (registered in
:data:`primafacie.experiments.COMPARISONS`) that reads the CSVs the run wrote and returns a
:func:`comparison_frame`. ``primafacie reproduce NAME`` writes it as ``NAME-vs-paper.csv`` and
prints it, so a reader sees at once which numbers are exact, which are within a stated
tolerance, and which differ (and why, in ``note``).

Verdicts (column ``status``):

* ``exact``: equal (numbers within 1e-9, or identical text);
* ``within tolerance``: ``|ours - paper| <= tol`` (``tol`` is in the row, absolute unless the row
  says ``rel``);
* ``differs``: outside the tolerance (``note`` says why when the reason is known);
* ``reference only``: the paper value is shown for context; no agreement is claimed (for example
  when the paper's setting is not published).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import InputError

__all__ = [
    "COLUMNS",
    "STATUSES",
    "Check",
    "check",
    "comparison_frame",
    "read_run_csv",
    "status_counts",
]

COLUMNS = ["table", "quantity", "ours", "paper", "status", "tolerance", "note"]
STATUSES = ("exact", "within tolerance", "differs", "reference only")

_EXACT = 1e-9


@dataclass(frozen=True)
class Check:
    """One published number next to ours (see :func:`check`)."""

    table: str
    quantity: str
    ours: object
    paper: object
    status: str
    tolerance: str = ""
    note: str = ""


def _number(x: object) -> float | None:
    if isinstance(x, bool):
        return None
    if isinstance(x, (int, float)):
        return float(x)
    if isinstance(x, str) and x.strip().lower() in ("inf", "+inf", "-inf"):
        return float(x)
    try:
        return float(str(x))
    except (TypeError, ValueError):
        return None


def check(
    table: str,
    quantity: str,
    ours: object,
    paper: object,
    tol: float = 0.0,
    rel: bool = False,
    note: str = "",
    reference_only: bool = False,
) -> Check:
    """Compare one value with the paper's.

    Parameters
    ----------
    table
        Where the paper prints it, e.g. ``"Table 1"``.
    quantity
        What it is, e.g. ``"CST w/o cases, k=15"``.
    ours, paper
        The two values: numbers (``"inf"`` allowed) or text (compared exactly).
    tol
        Accepted absolute difference (relative to ``|paper|`` when ``rel``); 0 asks for exact.
    rel
        Read ``tol`` as relative.
    note
        Why a value differs, or how it was obtained.
    reference_only
        Show the paper's value for context only (status ``reference only``).

    Returns
    -------
    Check

    Examples
    --------
    >>> check("Table 1", "ST cases, k=15", 55, 55).status
    'exact'
    >>> check("Table 12", "valid pairs", 99_967, 97_413, tol=0.10, rel=True).status
    'within tolerance'
    >>> check("Table 1", "SG1 ECE(0.7) rank", "Fair", "1").status
    'differs'
    """
    a, b = _number(ours), _number(paper)
    if rel:
        tol_text = f"±{100 * tol:g}%"
    else:
        tol_text = f"±{tol:g}" if tol else "exact"
    if reference_only:
        status = "reference only"
        tol_text = ""
    elif a is not None and b is not None:
        if math.isinf(a) or math.isinf(b):
            status = "exact" if a == b else "differs"
        else:
            diff = abs(a - b)
            limit = tol * abs(b) if rel else tol
            if diff <= _EXACT:
                status = "exact"
            elif diff <= limit + _EXACT:
                status = "within tolerance"
            else:
                status = "differs"
    else:
        status = "exact" if str(ours) == str(paper) else "differs"
        tol_text = "exact"
    return Check(table, quantity, ours, paper, status, tol_text, note)


def comparison_frame(checks: Iterable[Check]) -> pd.DataFrame:
    """The checks as a table with columns :data:`COLUMNS` (values kept as given)."""
    rows = [
        {
            "table": c.table,
            "quantity": c.quantity,
            "ours": c.ours,
            "paper": c.paper,
            "status": c.status,
            "tolerance": c.tolerance,
            "note": c.note,
        }
        for c in checks
    ]
    return pd.DataFrame(rows, columns=COLUMNS)


def status_counts(frame: pd.DataFrame) -> dict[str, int]:
    """How many rows have each verdict (every status listed, zeros included)."""
    counts = frame["status"].value_counts() if len(frame) else pd.Series(dtype=int)
    return {s: int(counts.get(s, 0)) for s in STATUSES}


def read_run_csv(out_dir: str | Path, name: str, **read_options: Any) -> pd.DataFrame:
    """The CSV ``name`` that the run wrote into ``out_dir``.

    Raises :class:`~primafacie.errors.InputError` naming the file when it is absent, since a
    comparison reads the run's output rather than recomputing it.
    """
    path = Path(out_dir) / name
    if not path.is_file():
        raise InputError(f"{path} not found: the comparison reads the CSV that the run wrote")
    return pd.read_csv(path, **read_options)
