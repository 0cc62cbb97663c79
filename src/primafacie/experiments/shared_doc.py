"""The docstring sections that every reproduction's ``compare_*`` shares, written once.

The comparisons (:data:`primafacie.experiments.COMPARISONS`) share one signature,
``(out_dir, data_dir=None, **options)``, so ``primafacie reproduce`` calls them alike; their
Parameters and Returns sections are therefore the same but for the CSVs each reads, the run
that wrote them, the options it honours and what its frame holds. This module imports no
pandas: a reproduction module loads it at import.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import Any

from ..docstrings import fill_doc

__all__ = ["compare_doc"]


def _wrapped(text: str) -> str:
    """``text`` wrapped to 88 columns and indented one level (never inside a ``literal``)."""
    lines = textwrap.wrap(text, 88, break_on_hyphens=False, break_long_words=False)
    return textwrap.indent("\n".join(lines), "    ")


def _entry(name: str, text: str) -> str:
    """A numpydoc entry: ``name`` and its description."""
    return f"{name}\n{_wrapped(text)}"


def compare_doc(files: str, run: str, options: str, frame: str = "") -> Callable[[Any], Any]:
    """The Parameters and Returns every ``compare_*`` shares, filled into its ``{{compare}}``.

    The comparisons share one signature, ``(out_dir, data_dir=None, **options)``, so
    ``primafacie reproduce`` calls them alike; the sections are written here once, and each
    comparison says only what is its own.

    Parameters
    ----------
    files
        The CSVs it reads from ``out_dir`` (``"``cst-law.csv``"``).
    run
        The run that wrote them (``":func:`run_law`"``).
    options
        What it does with the reproduce options.
    frame
        What its comparison frame holds, after the frame's name (``" (21 rows)"``).

    Returns
    -------
    Callable
        The decorator (:func:`primafacie.docstrings.fill_doc`).

    Examples
    --------
    >>> @compare_doc("``toy.csv``", ":func:`run_toy`", "Ignored.", " (2 rows)")
    ... def compare_toy(out_dir, data_dir=None, **options):
    ...     '''The toy table against the paper.
    ...
    ...     {{compare}}
    ...     '''
    >>> print(compare_toy.__doc__)  # doctest: +NORMALIZE_WHITESPACE
    The toy table against the paper.
        Parameters
        ----------
        out_dir
            Folder holding ``toy.csv`` written by :func:`run_toy`.
        data_dir
            Unused: a comparison reads only the CSVs in ``out_dir`` (accepted for the common
            signature).
        **options
            Ignored.
        Returns
        -------
        pandas.DataFrame
            A :func:`~primafacie.experiments.compare.comparison_frame` (2 rows).
    """
    unused = "Unused: a comparison reads only the CSVs in ``out_dir`` (accepted for the common signature)."
    text = "\n".join([
        "Parameters", "----------",
        _entry("out_dir", f"Folder holding {files} written by {run}."),
        _entry("data_dir", unused),
        _entry("**options", options),
        "", "Returns", "-------", "pandas.DataFrame",
        _wrapped(f"A :func:`~primafacie.experiments.compare.comparison_frame`{frame}."),
    ])  # fmt: skip
    return fill_doc(compare=text)
