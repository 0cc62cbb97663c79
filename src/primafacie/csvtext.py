"""CSV text of a table, each distinct cell formatted once: the bytes pandas writes, faster.

``DataFrame.to_csv`` turns every float into text one cell at a time (``astype(str)``) and
hands every cell to Python's ``csv`` writer: a 10^6-row per-complainant table of a situation
test (24 columns) costs ~10 CPU s. Its columns hold few distinct values (a rate, an
interval or a p-value is a function of four small counts), so :func:`csv_bytes` formats each
distinct value of a column once, with the very conversion pandas uses, and joins the cells
of a row in Arrow. The bytes are ``frame.to_csv(index=False, lineterminator="\\n")``'s
(tested on every handled dtype, missing values, ±0, ±inf); anything it does not handle —
a cell or column name that Python's ``csv`` writer would quote, an empty text cell, a dtype
not listed below, other ``to_csv`` options — returns None and the caller writes with pandas.

Handled: numpy float64 (pandas: ``values.astype(str)``, NaN as an empty cell), numpy
integers and booleans (``astype(str)``), pandas' nullable integers and booleans and its
string dtype (``str`` of each value, missing as an empty cell), and object columns holding
only text and missing values.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__ = ["csv_bytes"]

#: Characters that make Python's csv writer (QUOTE_MINIMAL, pandas' default) quote a field.
_QUOTED = (",", '"', "\r", "\n")


def _plain(texts: list[str]) -> bool:
    """Whether every text is written as it is (not quoted, not empty)."""
    return all(t and not any(c in t for c in _QUOTED) for t in texts)


def _column(values: pd.Series) -> tuple[np.ndarray, np.ndarray] | None:
    """``(codes, texts)``: the text of each distinct value and which one each row holds, as
    pandas writes the column; None when the column is not handled."""
    dtype = values.dtype
    if isinstance(dtype, np.dtype):
        array = values.to_numpy()
        if dtype == np.float64:
            # distinct by bit pattern, so -0.0 keeps its sign and every NaN is one value
            codes, uniq = pd.factorize(array.view(np.int64))
            floats = uniq.view(np.float64)
            texts = floats.astype(str).astype(object)
            texts[np.isnan(floats)] = ""
            return codes, texts
        if dtype.kind in "iub":
            codes, uniq = pd.factorize(array)
            return codes, np.asarray(uniq).astype(str).astype(object)
        if dtype.kind != "O":
            return None
    elif not isinstance(
        dtype, pd.StringDtype | pd.BooleanDtype | pd.core.arrays.integer.IntegerDtype
    ):
        return None
    codes, uniq = pd.factorize(values, use_na_sentinel=True)
    uniq = list(uniq)
    if isinstance(dtype, pd.StringDtype) or getattr(dtype, "kind", "") == "O":
        if not all(isinstance(u, str) for u in uniq) or not _plain(uniq):
            return None  # a number in an object column, a cell csv would quote, an empty one
        texts = uniq
    else:
        texts = [str(u) for u in uniq]
    # missing values (code -1) are written as empty cells
    texts = np.array([*texts, ""], dtype=object)
    codes = np.where(codes < 0, len(texts) - 1, codes)
    return codes, texts


def csv_bytes(frame: pd.DataFrame, header: bool = True, **kwargs: Any) -> bytes | None:
    """``frame.to_csv(index=False, lineterminator="\\n", header=header)`` encoded as UTF-8,
    or None when the table is not one this function writes (the caller uses pandas).

    Parameters
    ----------
    frame
        The table (at least two columns and one row).
    header
        Write the column names first.
    **kwargs
        Other ``to_csv`` options: only ``index=False`` and ``lineterminator="\\n"`` are
        accepted (anything else returns None).

    Returns
    -------
    bytes or None

    Examples
    --------
    >>> f = pd.DataFrame({"a": [0.1, np.nan, -0.0], "b": [1, 2, 3], "c": ["x", "y", "x"]})
    >>> csv_bytes(f) == f.to_csv(index=False, lineterminator="\\n").encode()
    True
    >>> csv_bytes(pd.DataFrame({"a": ["x,y"], "b": [1]})) is None  # csv would quote it
    True
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if kwargs.pop("index", False) is not False or kwargs.pop("lineterminator", "\n") != "\n":
        return None
    if kwargs or frame.shape[1] < 2 or not len(frame) or not isinstance(header, bool):
        return None
    names = [str(c) for c in frame.columns]
    if not frame.columns.is_unique or not _plain(names):
        return None
    columns = []
    for i in range(frame.shape[1]):
        cells = _column(frame.iloc[:, i])
        if cells is None:
            return None
        codes, texts = cells
        if i == frame.shape[1] - 1:
            texts = texts + "\n"  # the row's end rides on its last cell
        text = pa.array(texts, type=pa.large_string())
        columns.append(pc.take(text, pa.array(codes.astype(np.int64, copy=False))))
    rows = pc.binary_join_element_wise(*columns, pa.scalar(",", pa.large_string()))
    # the rows joined end to end are the body: one slice of the result's data buffer
    _, offsets, data = rows.buffers()
    at = np.frombuffer(offsets, dtype=np.int64)[rows.offset : rows.offset + len(rows) + 1]
    body = memoryview(data)[at[0] : at[-1]].tobytes() if data is not None else b""
    head = (",".join(names) + "\n").encode("utf-8") if header else b""
    return head + body
