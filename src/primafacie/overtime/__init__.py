"""Audits over time: read saved audits, compare two (``diff``), gate a release (``check``),
and cut one decision log into time windows.

Modules: :mod:`~primafacie.overtime.reader` (the versioned ``results.json`` contract),
:mod:`~primafacie.overtime.stats` (tests of a change between two audits),
:mod:`~primafacie.overtime.diff` (what changed, with intervals and significance),
:mod:`~primafacie.overtime.gates` (release gates on JSON paths, JUnit XML) and
:mod:`~primafacie.overtime.windows` (per-window group rates and their trend).

Nothing here runs an analysis: it reads what an audit wrote (``results.json`` and its
``tables/*.csv``), so an old audit folder can be compared with a new one years later.
"""

from __future__ import annotations

__all__: list[str] = []
