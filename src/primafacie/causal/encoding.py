"""How node columns become numbers: node kinds, category orders, codes and design matrices.

A categorical node is stored as integer codes into a FIXED category order (sorted values, or
the declared ordinal levels); as a parent it enters a mechanism as a drop-first one-hot block
(code 0, the first category, is the baseline). A numeric node is a float column.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError

__all__ = [
    "codes",
    "design",
    "infer_kinds",
    "intervention_value",
    "node_kind",
    "parent_block",
    "sorted_categories",
    "terms",
]


def sorted_categories(values: np.ndarray | pd.Series) -> list:
    """Distinct values in sorted order (by type name, then text, when types are mixed).

    A column given as a Series is reduced to its distinct values by its own dtype (a text
    column by Arrow, no Python object per row).

    Examples
    --------
    >>> sorted_categories(np.array(["m", "f", "m"], dtype=object))
    ['f', 'm']
    """
    uniq = pd.unique(pd.Series(values))
    try:
        return sorted(uniq.tolist())
    except TypeError:  # mixed types: a stable, documented order is all that matters
        return sorted(uniq.tolist(), key=lambda v: (type(v).__name__, str(v)))


def node_kind(col: pd.Series, spec: Any = None, declared: str | None = None) -> str:
    """``"numeric"`` or ``"categorical"`` for one node column.

    Parameters
    ----------
    col
        The node's factual column.
    spec
        The column's :class:`~primafacie.data.AuditData` feature spec (with ``kind`` and
        ``order``), or ``None``.
    declared
        The kind given in the SCM's ``kinds`` setting, which wins.

    Returns
    -------
    str
        Declared kind, else categorical for a categorical or leveled-ordinal feature, a
        boolean or non-numeric column, or an undeclared numeric column holding only 0/1;
        numeric otherwise.

    Examples
    --------
    >>> node_kind(pd.Series([0, 1, 1])), node_kind(pd.Series([0.5, 1.0]))
    ('categorical', 'numeric')
    """
    if declared is not None:
        return declared
    if spec is not None and spec.kind == "categorical":
        return "categorical"
    if spec is not None and spec.kind == "ordinal" and spec.order is not None:
        return "categorical"
    if pd.api.types.is_bool_dtype(col) or not pd.api.types.is_numeric_dtype(col):
        return "categorical"
    if spec is not None and spec.kind in ("numeric", "ordinal"):
        return "numeric"
    values = pd.unique(col)
    if len(values) <= 2 and set(np.asarray(values, dtype=float).tolist()) <= {0.0, 1.0}:
        return "categorical"
    return "numeric"


def codes(node: str, values: np.ndarray | pd.Series, categories: Sequence[Any]) -> np.ndarray:
    """Integer codes of ``values`` in the fixed order ``categories``.

    A pandas categorical column is coded through its categories (each looked up once) and a
    pyarrow-backed text column by Arrow's ``index_in``, without a Python object per row (at
    10^6 rows: ~130 MB and 0.2–0.3 CPU s per text column otherwise); both give the codes the
    row-by-row lookup gives, to which any value they do not match exactly falls back.

    Raises
    ------
    InputError
        A value that is not one of ``categories`` (also not by its text).

    Examples
    --------
    >>> codes("g", np.array(["m", "f"], dtype=object), ["f", "m"]).tolist()
    [1, 0]
    >>> codes("a", np.array(["1", "0"], dtype=object), [0, 1]).tolist()
    [1, 0]
    """
    cats = list(categories)
    if isinstance(values, pd.Series):
        fast = _series_codes(values, cats)
        if fast is not None:
            return fast
        values = values.to_numpy()
    # get_indexer matches like pd.Categorical(values, categories).codes (-1 when absent),
    # without the pandas deprecation warning for values outside the categories.
    out = pd.Index(cats).get_indexer(values).astype(np.int64)
    if (out < 0).any():
        # CSV round-trips turn 1 into "1": match on the string form before giving up.
        str_cats = [str(c) for c in cats]
        out = pd.Index(str_cats).get_indexer(pd.Series(values).astype(str)).astype(np.int64)
        if (out < 0).any():
            bad = values[np.flatnonzero(out < 0)[0]]
            raise InputError(
                f"node {node!r} has value {bad!r} that was not seen at fit; known values: "
                f"{cats[:10]}"
            )
    return out


def _series_codes(col: pd.Series, cats: list) -> np.ndarray | None:
    """:func:`codes` of a categorical or pyarrow-text column without per-row Python objects;
    ``None`` (the caller's row-by-row lookup decides) for another dtype, a missing value or a
    value not exactly one of ``cats``."""
    dtype = col.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        own = col.cat.codes.to_numpy()
        if (own < 0).any():  # a missing value
            return None
        out = pd.Index(cats).get_indexer(dtype.categories).astype(np.int64)[own]
        return None if (out < 0).any() else out
    if not (isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow"):
        return None
    if not all(isinstance(c, str) for c in cats):
        return None
    import pyarrow as pa
    import pyarrow.compute as pc

    arr = col.array.__arrow_array__()
    found = pc.index_in(arr, value_set=pa.array(cats, type=arr.type))
    if found.null_count:  # a missing value or one that matches only by its text
        return None
    return np.asarray(found.to_numpy(), dtype=np.int64)


def parent_block(values: np.ndarray, n_categories: int | None) -> np.ndarray:
    """One parent's columns of a design: drop-first one-hot of codes, or the float column.

    Parameters
    ----------
    values
        Codes of a categorical parent, or floats of a numeric one.
    n_categories
        Number of categories of a categorical parent; ``None`` for a numeric parent.

    Examples
    --------
    >>> parent_block(np.array([0, 2, 1]), 3).tolist()
    [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0]]
    """
    if n_categories is not None:
        # Drop-first one-hot: category 0 (first in the stored order) is the baseline.
        return (values[:, None] == np.arange(1, n_categories)[None, :]).astype(float)
    return values[:, None]


def design(
    parents: Sequence[str],
    values: Mapping[str, np.ndarray],
    categories: Mapping[str, Sequence[Any]],
) -> np.ndarray:
    """A mechanism's input: the parents' blocks side by side, in parent order.

    Parameters
    ----------
    parents
        The node's parents.
    values
        ``{node: codes or floats}`` holding every parent.
    categories
        ``{node: categories}`` of the categorical nodes (a parent absent from it is numeric).

    Examples
    --------
    >>> design(["g", "x"], {"g": np.array([0, 1]), "x": np.array([2.5, 3.0])}, {"g": ["f", "m"]})
    array([[0. , 2.5],
           [1. , 3. ]])
    """
    blocks = [
        parent_block(values[p], len(categories[p]) if p in categories else None) for p in parents
    ]
    return np.hstack(blocks)


def terms(parents: Sequence[str], categories: Mapping[str, Sequence[Any]]) -> list[str]:
    """Names of a design's columns: ``p`` for a numeric parent, ``p[value]`` per non-baseline
    category of a categorical one.

    Examples
    --------
    >>> terms(["g", "x"], {"g": ["f", "m"]})
    ['g[m]', 'x']
    """
    out: list[str] = []
    for p in parents:
        if p in categories:
            out += [f"{p}[{c}]" for c in list(categories[p])[1:]]
        else:
            out.append(p)
    return out


def infer_kinds(
    nodes: Sequence[str],
    frame: pd.DataFrame,
    features: Mapping[str, Any],
    declared: Mapping[str, str],
) -> tuple[dict[str, str], dict[str, list]]:
    """Each node's kind and each categorical node's category order, checking the columns.

    Parameters
    ----------
    nodes
        The graph's nodes (all columns of ``frame``).
    frame
        The factual data.
    features
        AuditData feature specs by column (``{}`` for a plain table).
    declared
        The SCM's ``kinds`` setting.

    Returns
    -------
    tuple of dict
        ``({node: kind}, {categorical node: categories})``; the categories are the declared
        ordinal levels, or the sorted distinct values.

    Raises
    ------
    InputError
        A node with missing values, or declared numeric but holding non-numbers.

    Examples
    --------
    >>> df = pd.DataFrame({"g": ["m", "f"], "x": [1.5, 2.0]})
    >>> infer_kinds(["g", "x"], df, {}, {})
    ({'g': 'categorical', 'x': 'numeric'}, {'g': ['f', 'm']})
    """
    kinds: dict[str, str] = {}
    categories: dict[str, list] = {}
    for v in nodes:
        col = frame[v]
        if col.isna().any():
            first = int(np.flatnonzero(col.isna().to_numpy())[0])
            raise InputError(f"node {v!r} has missing values (first at row {first})")
        spec = features.get(v)
        kinds[v] = node_kind(col, spec, declared.get(v))
        if kinds[v] == "categorical":
            if spec is not None and spec.kind == "ordinal" and spec.order is not None:
                categories[v] = list(spec.order)
            else:
                categories[v] = sorted_categories(col)
        elif not pd.api.types.is_numeric_dtype(col):
            raise InputError(f"node {v!r} is declared numeric but holds {col.iloc[0]!r}")
    return kinds, categories


def intervention_value(node: str, value: Any, categories: Sequence[Any] | None) -> Any:
    """The code (categorical node) or float (numeric node) that ``do(node := value)`` sets.

    Parameters
    ----------
    node
        The intervened node.
    value
        The user's value; a category may also be given by its text (``"1"`` for ``1``).
    categories
        The node's category order, or ``None`` for a numeric node.

    Examples
    --------
    >>> intervention_value("g", "m", ["f", "m"]), intervention_value("a", "1", [0, 1])
    (1, 1)
    >>> intervention_value("x", 3, None)
    3.0
    """
    if categories is not None:
        cats = list(categories)
        if value in cats:
            return cats.index(value)
        matches = [i for i, c in enumerate(cats) if str(c) == str(value)]
        if len(matches) == 1:
            return matches[0]
        raise InputError(f"intervention value {value!r} is not in the domain of {node!r}: {cats}")
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(f"intervention on numeric node {node!r} needs a number, got {value!r}")
    if not math.isfinite(float(value)):
        raise InputError(f"intervention on {node!r} must be finite, got {value!r}")
    return float(value)
