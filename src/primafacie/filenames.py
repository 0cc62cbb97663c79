"""File names derived from data (attribute names, ids, subgroup labels): safe and distinct.

The auditee controls the values a file name is made from, so a name is never the value
itself: :func:`slug` keeps ASCII letters, digits, ``.``, ``_`` and ``-`` and truncates a long
name with a hash of the whole value; :func:`distinct_names` gives every value of one run its
own name even on a case-insensitive file system: values whose slugs clash (``A 3`` and
``A_3``, ``Gender`` and ``gender``, ``φύλο`` and ``φυλή``) each get a short hash of the value.
A name depends only on the values of the run, so reruns give the same files.

Examples
--------
>>> distinct_names(["A 3", "A_3", "B"])
{'A 3': 'A_3_0931c615', 'A_3': 'A_3_d325da4f', 'B': 'B'}
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

__all__ = ["MAX_NAME", "short_hash", "slug", "distinct_names"]

#: Longest name (before the extension): well under the 255 bytes most file systems allow.
MAX_NAME = 100

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def short_hash(value: Any, width: int = 8) -> str:
    """The first ``width`` hex digits of the SHA-256 of ``str(value)`` (UTF-8).

    Examples
    --------
    >>> short_hash("A 3")
    '0931c615'
    """
    return hashlib.sha256(str(value).encode("utf-8")).hexdigest()[:width]


def slug(value: Any, max_len: int = MAX_NAME, lower: bool = False) -> str:
    """A file-name-safe form of ``value``: runs of other characters become ``_``; a leading
    dot is dropped (no hidden file, no ``..``); longer than ``max_len``, it is cut and ends
    with ``_`` and the value's :func:`short_hash`.

    Parameters
    ----------
    value
        Anything; its ``str`` is used.
    max_len
        Longest result.
    lower
        Lower-case the result (table names).

    Returns
    -------
    str
        Never empty (``"x"`` plus a hash when nothing is left).

    Examples
    --------
    >>> slug("Equal Effectiveness (EE)", lower=True), slug("../etc")
    ('equal_effectiveness_ee_', '_etc')
    >>> len(slug("x" * 300))
    100
    """
    text = _UNSAFE.sub("_", str(value)).lstrip(".")
    text = text.lower() if lower else text
    if not text.strip("_"):
        text = "x_" + short_hash(value)
    if len(text) > max_len:
        text = text[: max_len - 9] + "_" + short_hash(value)
    return text


def distinct_names(
    values: Iterable[Any],
    max_len: int = MAX_NAME,
    lower: bool = False,
    reserved: Iterable[str] = (),
) -> dict[Any, str]:
    """A distinct file name for each value: its :func:`slug`, with ``_`` and a short hash of
    the value added to every value whose slug clashes with another's (compared without
    case, as on macOS and Windows) or with a ``reserved`` prefix.

    Parameters
    ----------
    values
        The values of one run (repeats are ignored).
    max_len
        Longest name.
    lower
        Lower-case names.
    reserved
        Prefixes other names of the folder use (e.g. ``subgroup_``); a value whose slug
        starts with one gets a hash, so it cannot take another page's name.

    Returns
    -------
    dict
        ``{value: name}``, names pairwise different without case.

    Examples
    --------
    >>> distinct_names(["Gender", "gender"], lower=True)
    {'Gender': 'gender_a04630ef', 'gender': 'gender_de9feaea'}
    """
    values = list(dict.fromkeys(values))
    prefixes = tuple(p.casefold() for p in reserved)
    names = {v: slug(v, max_len, lower) for v in values}
    for v, n in names.items():
        if prefixes and n.casefold().startswith(prefixes):  # "_" + ...: no longer the prefix
            names[v] = "_" + slug(v, max_len - 10, lower) + "_" + short_hash(v)
    for width in (8, 16, 64):
        groups: dict[str, list[Any]] = defaultdict(list)
        for v, n in names.items():
            groups[n.casefold()].append(v)
        clash = [v for vs in groups.values() if len(vs) > 1 for v in vs]
        if not clash:
            return names
        for v in clash:
            head = "_" if names[v].startswith("_") and prefixes else ""
            names[v] = head + slug(v, max_len - width - 2, lower) + "_" + short_hash(v, width)
    # values with equal text (e.g. 3 and "3"): their position tells them apart
    seen: dict[str, int] = defaultdict(int)
    for v in values:
        key = names[v].casefold()
        seen[key] += 1
        if seen[key] > 1:
            names[v] = f"{names[v]}_{seen[key]}"
    return names
