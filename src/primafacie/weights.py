"""Sample weights: checked once, and the Kish effective sample size the intervals use.

With weights ``w`` a group's selection rate is ``Σ w·ŷ / Σ w``; its precision is that of a
simple random sample of Kish's effective size ``n_eff = (Σ w)² / Σ w²`` (Kish 1965), so the
Wilson, Newcombe and Katz intervals (and the Beta posterior of certainty) are computed on the
*effective counts* ``k_eff = rate · n_eff`` of ``n_eff`` trials. With equal weights ``n_eff``
is the number of rows and everything equals the unweighted computation.

Examples
--------
>>> float(kish_n_eff(4.0, 6.0))  # weights 1, 1, 2: (1 + 1 + 2)² / (1 + 1 + 4)
2.6666666666666665
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import InputError

# pandas is imported in the functions that use it: importing the situation engine must not
# load it (issue 22, start-up); the annotations name it only for type checkers.
if TYPE_CHECKING:
    import pandas as pd

__all__ = ["METHOD", "check_weights", "effective_counts", "kish_n_eff"]

#: How weighted intervals are computed, stated in every weighted output.
METHOD = (
    "weighted rates Σw·ŷ/Σw; intervals on the Kish effective sample size n_eff = (Σw)²/Σw² "
    "(Wilson for a rate, Newcombe for a difference, Katz for a ratio, on k_eff = rate·n_eff "
    "of n_eff)"
)


def check_weights(col: pd.Series, name: str) -> np.ndarray:
    """The weights of column ``name`` as float64, or an error naming the column and the count.

    Raises
    ------
    InputError
        Non-numeric, missing, negative or infinite values, or weights that are all zero.

    Examples
    --------
    >>> check_weights(pd.Series([1, 2.5]), "w").tolist()
    [1.0, 2.5]
    >>> check_weights(pd.Series([1, -2, -1]), "w")
    Traceback (most recent call last):
    ...
    primafacie.errors.InputError: weights column 'w' has 2 negative value(s) (first at row 1, -2.0); weights must be ≥ 0
    """
    import pandas as pd

    if not pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
        raise InputError(
            f"weights column {name!r} must be numeric; it holds values such as {col.iloc[0]!r}"
        )
    w = col.to_numpy(dtype=float, na_value=np.nan)
    for bad, what in ((np.isnan(w), "missing"), (np.isinf(w), "infinite"), (w < 0, "negative")):
        if bad.any():
            first = int(np.flatnonzero(bad)[0])
            shown = "" if what == "missing" else f", {float(w[first])!r}"
            raise InputError(
                f"weights column {name!r} has {int(bad.sum())} {what} value(s) (first at row "
                f"{first}{shown}); weights must be ≥ 0"
            )
    if not (w > 0).any():
        raise InputError(f"weights column {name!r}: all {len(w)} weights are zero")
    return w


def kish_n_eff(w_sum: Any, w2_sum: Any) -> np.ndarray:
    """Kish's effective sample size ``(Σw)² / Σw²`` (0 where there is no weight)."""
    w_sum, w2_sum = np.asarray(w_sum, dtype=float), np.asarray(w2_sum, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(w2_sum > 0, w_sum**2 / np.where(w2_sum > 0, w2_sum, 1.0), 0.0)


def effective_counts(k_w: Any, n_w: Any, n2_w: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(k_eff, n_eff)``: the weighted rate ``k_w / n_w`` as a count of ``n_eff`` trials.

    Parameters
    ----------
    k_w
        Σ w over the events (e.g. favourable decisions) of each group.
    n_w
        Σ w over the group's denominator rows.
    n2_w
        Σ w² over the same denominator rows.

    Examples
    --------
    >>> k, n = effective_counts(2.0, 4.0, 6.0)
    >>> float(k), float(n)
    (1.3333333333333333, 2.6666666666666665)
    """
    n_eff = kish_n_eff(n_w, n2_w)
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(np.asarray(n_w, dtype=float) > 0, np.asarray(k_w) / np.asarray(n_w), 0.0)
    return rate * n_eff, n_eff
