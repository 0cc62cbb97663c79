"""Paper reproductions behind ``primafacie reproduce NAME``.

Each entry maps a name to ``(module, function)`` inside this package; the function has the signature
``run(data_dir: Path | None, out_dir: Path, **options) -> list[Path]`` and writes its CSV(s)
into ``out_dir``. Options are the reproduce flags the user set (``legacy``, ``positive``,
``tau``, ``protected``, ``seed``); an experiment raises :class:`~primafacie.errors.InputError`
for an option it does not support.

:data:`COMPARISONS` maps the same names to ``compare(out_dir, data_dir, **options) ->
pandas.DataFrame``: the published numbers next to ours with a verdict per row (see
:mod:`primafacie.experiments.compare`), read from the CSVs the run wrote into ``out_dir``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import InputError

EXPERIMENTS: dict[str, tuple[str, str]] = {
    "cst-loan": ("cst", "run_loan"),
    "cst-law": ("cst", "run_law"),
    "facts-adult": ("facts", "run_adult"),
    "principal-examples": ("principal", "run_examples"),
    "principal-student": ("principal", "run_student"),
    "certainty-hiring": ("certainty", "run_hiring"),
    "certainty-synthetic": ("certainty", "run_synthetic"),
    "certainty-compas": ("certainty", "run_compas"),
}


#: Each reproduction's comparison sits beside its run, named after it (``run_loan`` ->
#: ``compare_loan``): derived, so a new reproduction cannot lose its comparison.
COMPARISONS: dict[str, tuple[str, str]] = {
    name: (module, "compare_" + func.removeprefix("run_"))
    for name, (module, func) in EXPERIMENTS.items()
}


def _module(name: str) -> Any:
    """A reproduction module, imported when first asked for (each loads its engines and
    data sets, which ``primafacie reproduce --help`` must not wait for)."""
    if name == "cst":
        from . import cst as module
    elif name == "facts":
        from . import facts as module
    elif name == "principal":
        from . import principal as module
    else:
        from . import certainty as module
    return module


def get_comparison(name: str) -> Callable[..., Any] | None:
    """The ours-vs-paper function of ``name`` (None when the reproduction has none)."""
    if name not in COMPARISONS:
        return None
    module, func = COMPARISONS[name]
    return getattr(_module(module), func, None)


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
        return getattr(_module(module), func)
    except (ModuleNotFoundError, AttributeError) as exc:
        raise InputError(f"reproduction {name!r} is not available in this build: {exc}") from exc
