"""Low-cardinality text columns held dictionary-encoded (pandas categorical) from the read on.

An audit's protected attributes, categorical and ordinal features and text decisions hold a
handful of distinct values repeated on every row. As pandas text (Arrow strings) they cost
13–18 bytes per row each (the credit world's five such columns: 71 of the frame's 152 B per
row at 2·10^6); dictionary-encoded, one byte per row (an ``int8`` code) plus the levels once.

Which columns (:func:`dictionary_columns` decides, :func:`encode` applies):

* only those :meth:`~primafacie.config_reading.DataReading.read_frame` names by their declared
  role (categorical/ordinal features, protected attributes, the decision, the outcome), never
  the id, weights, time or any undeclared column; none that a model file reads (a model sees
  the dtypes it was trained on);
* only pandas ``str`` columns (pyarrow ``string``/``large_string`` in Parquet): numbers, mixed
  object columns and columns a Parquet file already stores as categorical stay as read;
* only when the distinct values are few: at most :data:`MAX_LEVELS` and at most half of the
  column's non-missing values (else the column stays text, exactly as before).

Encoded columns have their levels in sorted (code point) order, as ``astype("category")``
gives, unordered, with no level that no row holds; the values, the missing cells and every
check on them (spellings, listed values, thousands separators) are those of the text column.

Examples
--------
>>> import pandas as pd
>>> frame = pd.DataFrame({"g": ["m", "f", "f", "m", None, "f"], "x": [1, 2, 3, 4, 5, 6]})
>>> encode(frame, ["g", "x"])
['g']
>>> frame["g"].cat.categories.tolist(), frame["g"].isna().sum(), frame["x"].dtype
(['f', 'm'], np.int64(1), dtype('int64'))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "MAX_LEVELS",
    "as_text",
    "by_text",
    "compact",
    "decoded",
    "encodable",
    "encode",
    "frequent_texts",
    "is_plain_text",
    "level_texts",
    "value_counts",
]

#: Largest number of distinct values a column is encoded with (``int16`` codes at most).
MAX_LEVELS = 2**15 - 1


def is_plain_text(col: pd.Series) -> bool:
    """Whether ``col`` is pandas text (the ``str``/``string`` dtypes), not object or categorical."""
    import pandas as pd

    return isinstance(col.dtype, pd.StringDtype)


def encodable(levels: int, present: int) -> bool:
    """Whether a column with ``levels`` distinct values among ``present`` non-missing cells is
    held encoded: at most :data:`MAX_LEVELS`, and at most half of ``present``.

    Examples
    --------
    >>> encodable(2, 4), encodable(3, 4), encodable(40_000, 10**7)
    (True, False, False)
    """
    return levels <= MAX_LEVELS and 2 * levels <= present


def encode(
    frame: pd.DataFrame, columns: Sequence[str], read_encoded: Sequence[str] = ()
) -> list[str]:
    """Hold ``columns`` of ``frame`` dictionary-encoded where the rules above allow (in place).

    Parameters
    ----------
    frame
        The table just read (modified: its columns are replaced, never its rows).
    columns
        The candidate columns (absent ones are skipped).
    read_encoded
        Columns the reader already decoded as categorical from a text column (a Parquet file
        read with ``dictionary_columns``): their levels are sorted here, or, when they are too
        many, the column is turned back to the text it would have been.

    Returns
    -------
    list of str
        The columns now held encoded, also set as ``frame.attrs["encoded_columns"]`` (when
        any): pandas carries it to the frame's columns and row subsets, and
        :func:`value_counts` and :func:`compact` read it.
    """
    import pandas as pd

    done = []
    for name in dict.fromkeys(columns):
        if name not in frame.columns:
            continue
        col = frame[name]
        if name in read_encoded and isinstance(col.dtype, pd.CategoricalDtype):
            col = col.cat.remove_unused_categories()
            if not encodable(len(col.cat.categories), int(col.notna().sum())):
                frame[name] = col.astype("str")  # the dtype a text column is read as
                continue
            frame[name] = col.cat.reorder_categories(col.cat.categories.sort_values())
            done.append(name)
        elif is_plain_text(col):
            coded = col.astype("category")  # levels sorted, as the Parquet branch's
            if encodable(len(coded.cat.categories), int(coded.notna().sum())):
                frame[name] = coded
                done.append(name)
    if done:
        frame.attrs["encoded_columns"] = done
    return done


def compact(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """``frame`` with the levels no row holds removed from its encoded ``columns`` (after rows
    were filtered or dropped: a level of no row would otherwise count with 0 rows).

    Examples
    --------
    >>> import pandas as pd
    >>> f = pd.DataFrame({"g": pd.Series(["a", "b", "b"], dtype="category")}).iloc[1:]
    >>> compact(f, ["g"])["g"].cat.categories.tolist()
    ['b']
    """
    import pandas as pd

    names = [
        c for c in columns if c in frame.columns and isinstance(frame[c].dtype, pd.CategoricalDtype)
    ]
    if not names:
        return frame
    out = frame.copy(deep=False)
    for name in names:
        out[name] = out[name].cat.remove_unused_categories()
    out.attrs = dict(frame.attrs)
    return out


def decoded(frame: pd.DataFrame, keep: Sequence[str] = ()) -> pd.DataFrame:
    """``frame`` with its encoded columns (``attrs["encoded_columns"]``) as the text they
    encode, for a consumer that has not been shown to treat a categorical as its text (a
    copy of those columns only; ``frame`` itself when none is encoded). Columns in ``keep``
    (ones the consumer never reads) stay encoded and named in ``attrs``.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"g": ["a", "b", "a", "b"]})
    >>> text = decoded(frame if encode(frame, ["g"]) else frame)
    >>> str(text["g"].dtype), "encoded_columns" in text.attrs
    ('str', False)
    """
    import pandas as pd

    names = [
        c
        for c in frame.attrs.get("encoded_columns", ())
        if c in frame.columns and isinstance(frame[c].dtype, pd.CategoricalDtype)
    ]
    kept = [c for c in names if c in set(keep)]
    names = [c for c in names if c not in set(keep)]
    if not names:
        return frame
    out = frame.copy(deep=False)
    for name in names:
        out[name] = out[name].astype("str")
    out.attrs = {k: v for k, v in frame.attrs.items() if k != "encoded_columns"}
    if kept:
        out.attrs["encoded_columns"] = kept
    return out


def as_text(data: Any, keep: Sequence[str] = ()) -> Any:
    """An :class:`~primafacie.data.AuditData` with its encoded text columns as text
    (:func:`decoded`): the same rows, roles and comparison, not validated again (the values
    are the same); ``data`` itself when none is encoded.

    Parameters
    ----------
    data
        An ``AuditData`` (anything with a ``frame``).
    keep
        Columns left encoded (ones the consumer never reads).

    Returns
    -------
    AuditData
    """
    import copy

    frame = decoded(data.frame, keep)
    if frame is data.frame:
        return data
    out = copy.copy(data)
    out.frame = frame
    return out


def value_counts(col: pd.Series) -> pd.Series:
    """``col.value_counts(dropna=True)``; for a column :func:`encode` encoded (named in its
    ``attrs["encoded_columns"]``, which pandas carries from the frame), as the text column it
    encodes would give it: levels no row holds left out, ties in the order the values first
    occur (a categorical's own ``value_counts`` lists unheld levels with 0 and breaks ties by
    level order). A categorical the data came with keeps pandas' own counts, as before.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"g": pd.Series(["f", "M", "f", "M", None], dtype="str")})
    >>> text = frame["g"].value_counts()
    >>> encode(frame, ["g"])
    ['g']
    >>> list(value_counts(frame["g"]).items()) == list(text.items())
    True
    >>> list(frame["g"].value_counts().index), list(text.index)  # pandas' own: level order
    (['M', 'f'], ['f', 'M'])
    """
    import pandas as pd

    encoded = col.attrs.get("encoded_columns", ())
    if not isinstance(col.dtype, pd.CategoricalDtype) or col.name not in encoded:
        return col.value_counts(dropna=True)
    codes = col.cat.codes.to_numpy()
    levels, first, counts = np.unique(codes[codes >= 0], return_index=True, return_counts=True)
    order = np.argsort(first, kind="stable")  # first occurrence, as a hash table meets them
    index = pd.Index(col.cat.categories[levels[order]], name=col.name)
    # by count, ties kept in that order: what pandas gives for text (checked on random columns)
    out = pd.Series(counts[order], index=index, name="count")
    return out.sort_values(ascending=False, kind="stable")


def level_texts(col: pd.Series) -> pd.Series:
    """``col.astype(str)`` of a dictionary-encoded column's levels, then of a missing value
    (last: the code -1 reads it): the text of each row is that of its code, without making
    it (the text of every row is ~105 B per row at once under pandas 3: the report's group
    composition read three columns so at 10^7 rows, docs/scaling.md).

    Examples
    --------
    >>> import pandas as pd
    >>> level_texts(pd.Series(pd.Categorical(["b", "a", None]))).tolist()
    ['a', 'b', nan]
    """
    import pandas as pd

    codes = np.r_[np.arange(len(col.cat.categories)), -1]
    return pd.Series(pd.Categorical.from_codes(codes, dtype=col.dtype)).astype(str)


def by_text(col: pd.Series, of_text: Any, dtype: type) -> np.ndarray:
    """``of_text(col.astype(str)).to_numpy(dtype=dtype)``; on a dictionary-encoded column
    computed once per level and taken by the row codes (the same values).

    Examples
    --------
    >>> import pandas as pd
    >>> col = pd.Series(pd.Categorical(["b", "a", "b"]))
    >>> by_text(col, lambda t: t == "b", float).tolist()
    [1.0, 0.0, 1.0]
    """
    import pandas as pd

    if not isinstance(col.dtype, pd.CategoricalDtype):
        return of_text(col.astype(str)).to_numpy(dtype=dtype)
    per_level = of_text(level_texts(col)).to_numpy(dtype=dtype)
    return per_level[col.cat.codes.to_numpy()]


def frequent_texts(col: pd.Series) -> list[str]:
    """The values of ``col.astype(str).value_counts().index``: the texts by decreasing count,
    a tie in the order the rows first show them, missing values left out; on a
    dictionary-encoded column counted by code (the same list).

    Examples
    --------
    >>> import pandas as pd
    >>> col = pd.Series(pd.Categorical(["b", None, "a", "a", "b", "c"]))
    >>> frequent_texts(col), col.astype(str).value_counts().index.tolist()
    (['b', 'a', 'c'], ['b', 'a', 'c'])
    """
    import pandas as pd

    if not isinstance(col.dtype, pd.CategoricalDtype):
        return col.astype(str).value_counts().index.tolist()
    codes = col.cat.codes.to_numpy()
    per_code = np.bincount(codes.astype(np.int32) + 1, minlength=len(col.cat.categories) + 1)
    texts = level_texts(col)
    counts: dict[str, int] = {}  # text -> rows, in the order the rows first show it
    for code in pd.unique(codes):  # a loop over the levels present, never over rows
        text = texts.iloc[int(code)]
        if not pd.isna(text):
            counts[text] = counts.get(text, 0) + int(per_code[int(code) + 1])
    return sorted(counts, key=lambda text: -counts[text])  # stable: ties keep that order
