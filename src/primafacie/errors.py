"""Exception types shared by every analysis.

The CLI maps :class:`InputError` to exit code 2 (bad input) and :class:`AnalysisError`
to exit code 1 (the analysis itself failed), so raise the right one at the boundary.
"""

from __future__ import annotations


class InputError(ValueError):
    """Bad user input: a wrong column, value, key or file. The message names it."""


class AnalysisError(RuntimeError):
    """An analysis could not be completed on valid input (e.g. an infeasible solver state)."""


class DataMissingError(FileNotFoundError):
    """A dataset file needed by a loader or a reproduction is absent from the data directory."""
