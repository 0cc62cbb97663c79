"""One group coder: integer codes of a column's values and of their combinations, one label format.

Group metrics, certainty, LL144 and the reference groups all code groups here, so a group is
ordered and named alike everywhere: the values of a column in sorted order (by their text when
the types do not sort together), a combination of several columns in lexicographic order of
the per-column codes, and an intersection labelled ``"a × b"`` (:data:`SEP`).

Examples
--------
>>> import pandas as pd
>>> codes, values = value_codes(pd.Series(["m", "f", "m"]))
>>> codes.tolist(), values
([1, 0, 1], ['f', 'm'])
>>> combination_label(("f", 1))
'f × 1'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

# pandas is imported in the functions that use it: importing the situation engine must not
# load it (issue 22, start-up); the annotations name it only for type checkers.
if TYPE_CHECKING:
    import pandas as pd

__all__ = ["SEP", "combination_label", "cross_codes", "value_codes"]

#: Separator of the values (and of the attribute names) of an intersection.
SEP = " × "


def value_codes(col: pd.Series) -> tuple[np.ndarray, list[Any]]:
    """Integer codes of a column with its distinct values in sorted order.

    Parameters
    ----------
    col
        The column (no missing values: the callers check them with the column's name).

    Returns
    -------
    (codes, values)
        ``codes``: int64 code of each row (0..V-1); ``values``: the distinct values in sorted
        order, compared as text when values of several types do not sort together.
    """
    import pandas as pd

    try:
        codes, uniques = pd.factorize(col, sort=True)
    except TypeError:  # values of several types do not sort together: order by their text
        codes, uniques = pd.factorize(col.astype(str), sort=True)
    return codes.astype(np.int64), list(uniques)


def cross_codes(codes: Sequence[np.ndarray], sizes: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Cross per-attribute codes into one code per observed combination, in sorted order.

    Parameters
    ----------
    codes
        One int array of codes per attribute (all of the same length).
    sizes
        Number of distinct values of each attribute.

    Returns
    -------
    (group, parts)
        ``group``: code of each row's combination (0..G-1, combinations sorted
        lexicographically by attribute codes); ``parts``: (G, attributes) array of the
        per-attribute codes of each combination. Combinations that never occur are no group.

    Examples
    --------
    >>> g, parts = cross_codes([np.array([1, 0, 1, 1]), np.array([0, 2, 2, 0])], [2, 3])
    >>> g.tolist(), parts.tolist()
    ([1, 0, 2, 1], [[0, 2], [1, 0], [1, 2]])
    """
    combined = np.zeros(len(codes[0]), dtype=np.int64)
    n_combined = 1
    # renumber the observed combinations 0..G-1 after each step, so codes stay < rows and the
    # product never overflows int64; a bincount does it in O(rows + span) while the span is
    # small (the usual case), a sort (np.unique) otherwise
    for c, size in zip(codes, sizes, strict=True):
        combined = combined * int(size) + c
        span = n_combined * int(size)
        if span <= 4 * len(combined) + 1024:
            present = np.bincount(combined, minlength=span) > 0
            combined = (np.cumsum(present) - 1)[combined]
            n_combined = int(present.sum())
        else:
            uniq, combined = np.unique(combined, return_inverse=True)
            n_combined = len(uniq)
        combined = combined.reshape(-1).astype(np.int64, copy=False)
    first = np.zeros(n_combined, dtype=np.int64)
    first[combined[::-1]] = np.arange(len(combined))[::-1]  # first row of each group
    parts = np.stack([c[first] for c in codes], axis=1)
    return combined, parts


def combination_label(values: Iterable[Any]) -> str:
    """The label of a group: its value, or its values joined by :data:`SEP` (``"f × 1"``)."""
    return SEP.join(str(v) for v in values)
