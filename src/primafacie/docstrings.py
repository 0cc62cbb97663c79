"""Docstring parts written once and filled into every docstring that shares them.

Functions with one role and one signature (the reproductions' ``compare_*``), or two entry
points of one computation, document a parameter, a return value or an example's set-up the
same way. The text is declared once, as a *part*, and each docstring marks where it goes with
a line holding only ``{{name}}``. :func:`fill_doc` (for a function, method or class) and
:func:`fill` (for a module's ``__doc__``) put the part there, indented as the marker is, when
the object is defined, so ``help()``, Sphinx (which reads ``__doc__``) and doctests all read
the whole text.

pandas' ``@doc`` and matplotlib's ``Substitution`` fill templates the same way with
``str.format`` or ``%``. A whole-line marker leaves alone the braces of a dict in an example and
the ``%`` of a rate, and a marker without a part, or a part without a marker, is an error when
the module is imported, never a docstring that silently lacks its text.

Examples
--------
>>> DATA = '''data
...     The audited rows: an AuditData or a pandas / polars / pyarrow table.'''
>>> @fill_doc(data=DATA)
... def run(data):
...     '''Run the analysis.
...
...     Parameters
...     ----------
...     {{data}}
...     '''
>>> print(run.__doc__.strip())
Run the analysis.
<BLANKLINE>
    Parameters
    ----------
    data
        The audited rows: an AuditData or a pandas / polars / pyarrow table.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from typing import TypeVar

__all__ = ["fill", "fill_doc", "AUDIT_DATA_RETURNS", "SITUATION_SETUP"]

T = TypeVar("T")

#: The set-up of the situation-testing examples that the dossier pages and the headline share:
#: eight rows, one numeric feature, four protected (``a == 1``), the decision ``y``.
SITUATION_SETUP = """\
>>> import pandas as pd
>>> from primafacie.data import AuditData
>>> from primafacie.situation import SituationTest
>>> df = pd.DataFrame({"x": [0.0, 1, 2, 10, 0.5, 1.5, 2.5, 3.5],
...                    "a": [1] * 4 + [0] * 4, "y": [0, 0, 1, 0, 1, 1, 0, 1]})
>>> data = AuditData(df, features={"x": "numeric"}, protected={"a": 1}, decision="y")
"""

#: The Returns and Raises headings of the two functions that build an AuditData from an
#: engine's input (:func:`primafacie.base.as_audit_data` and the situation test's
#: :func:`~primafacie.situation.engine.audit_data`); each says under them when it raises.
AUDIT_DATA_RETURNS = """\
Returns
-------
AuditData

Raises
------
InputError"""

#: A line holding only ``{{name}}`` (and the indentation the part takes).
MARKER = re.compile(r"^(?P<indent>[ \t]*)\{\{(?P<name>\w+)\}\}[ \t]*$", flags=re.M)


def fill(doc: str | None, **parts: str) -> str | None:
    """``doc`` with each marker line ``{{name}}`` replaced by ``parts[name]``.

    Parameters
    ----------
    doc
        A docstring (``None`` under ``python -OO``, which strips them: returned as it is).
    **parts
        ``{name: text}``; each text is dedented, stripped of blank first and last lines and
        indented as its marker is (a part may hold several entries or sections).

    Returns
    -------
    str or None

    Raises
    ------
    ValueError
        A marker that no part fills, or a part that no marker asks for (a typo either way).

    Examples
    --------
    >>> print(fill("Returns\\n-------\\n{{frame}}\\nDone.", frame="DataFrame\\n    One row."))
    Returns
    -------
    DataFrame
        One row.
    Done.
    >>> fill("{{setup}}", other="x")
    Traceback (most recent call last):
    ...
    ValueError: docstring marker {{setup}} has no part (given: other)
    """
    if doc is None:
        return None
    used: set[str] = set()

    def put(match: re.Match[str]) -> str:
        name = match["name"]
        if name not in parts:
            raise ValueError(
                f"docstring marker {{{{{name}}}}} has no part (given: {', '.join(sorted(parts))})"
            )
        used.add(name)
        text = textwrap.dedent(parts[name]).strip("\n")
        return textwrap.indent(text, match["indent"])

    out = MARKER.sub(put, doc)
    unused = sorted(set(parts) - used)
    if unused:
        raise ValueError(f"docstring parts without a marker: {', '.join(unused)}")
    return out


def fill_doc(**parts: str) -> Callable[[T], T]:
    """A decorator that fills the markers of a function's, method's or class' docstring
    (see :func:`fill`); the object itself is returned unchanged.

    Parameters
    ----------
    **parts
        ``{name: text}`` for the markers ``{{name}}`` of the docstring.

    Returns
    -------
    Callable
        The decorator.

    Examples
    --------
    >>> @fill_doc(returns="int\\n    The answer.")
    ... class Answer:
    ...     '''Returns
    ...     -------
    ...     {{returns}}'''
    >>> print(Answer.__doc__)
    Returns
        -------
        int
            The answer.
    """

    def decorate(obj: T) -> T:
        obj.__doc__ = fill(obj.__doc__, **parts)
        return obj

    return decorate
