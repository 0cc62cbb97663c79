"""Paper reproductions behind ``primafacie reproduce NAME``.

Each entry maps a name to ``"module:function"``; the function has the signature
``run(data_dir: Path | None, out_dir: Path, **options) -> list[Path]`` and writes its CSV(s)
into ``out_dir``. Options are the reproduce flags the user set (``legacy``, ``positive``,
``tau``, ``protected``, ``seed``); an experiment raises :class:`~primafacie.errors.InputError`
for an option it does not support.

:data:`COMPARISONS` maps the same names to ``compare(out_dir, data_dir, **options) ->
pandas.DataFrame``: the published numbers next to ours with a verdict per row (see
:mod:`primafacie.experiments.compare`), read from the CSVs the run wrote into ``out_dir``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import InputError

EXPERIMENTS: dict[str, tuple[str, str]] = {
    "cst-loan": ("primafacie.experiments.cst", "run_loan"),
    "cst-law": ("primafacie.experiments.cst", "run_law"),
    "facts-adult": ("primafacie.experiments.facts", "run_adult"),
    "principal-examples": ("primafacie.experiments.principal", "run_examples"),
    "principal-student": ("primafacie.experiments.principal", "run_student"),
    "certainty-hiring": ("primafacie.experiments.certainty", "run_hiring"),
    "certainty-synthetic": ("primafacie.experiments.certainty", "run_synthetic"),
    "certainty-compas": ("primafacie.experiments.certainty", "run_compas"),
}


COMPARISONS: dict[str, tuple[str, str]] = {
    "cst-loan": ("primafacie.experiments.cst", "compare_loan"),
    "cst-law": ("primafacie.experiments.cst", "compare_law"),
    "facts-adult": ("primafacie.experiments.facts", "compare_adult"),
    "principal-examples": ("primafacie.experiments.principal", "compare_examples"),
    "principal-student": ("primafacie.experiments.principal", "compare_student"),
    "certainty-hiring": ("primafacie.experiments.certainty", "compare_hiring"),
    "certainty-synthetic": ("primafacie.experiments.certainty", "compare_synthetic"),
    "certainty-compas": ("primafacie.experiments.certainty", "compare_compas"),
}


def get_comparison(name: str) -> Callable[..., Any] | None:
    """The ours-vs-paper function of ``name`` (None when the reproduction has none)."""
    if name not in COMPARISONS:
        return None
    module, func = COMPARISONS[name]
    return getattr(importlib.import_module(module), func, None)


def get_experiment(name: str) -> Callable[..., list[Path]]:
    """The function that reproduces ``name``; a clear error for an unknown name."""
    if name not in EXPERIMENTS:
        import difflib

        close = difflib.get_close_matches(name, EXPERIMENTS, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise InputError(
            f"unknown reproduction {name!r}{hint}; available: {', '.join(EXPERIMENTS)}"
        )
    module, func = EXPERIMENTS[name]
    try:
        return getattr(importlib.import_module(module), func)
    except (ModuleNotFoundError, AttributeError) as exc:
        raise InputError(f"reproduction {name!r} is not available in this build: {exc}") from exc
