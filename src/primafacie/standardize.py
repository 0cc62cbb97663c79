"""scikit-learn's ``StandardScaler().fit`` in numpy alone, bit for bit.

The legacy CST distances (``scale="zscore"``) divide each numeric column by the standard
deviation scikit-learn's ``StandardScaler`` computes, as the authors' code does; their ties
depend on the last bit of it. Importing scikit-learn to fit that scaler cost about 2 CPU s of
a short command (scikit-learn imports ``scipy.stats``), so :func:`standard_scale` repeats its
arithmetic operation for operation (``sklearn.utils.extmath._incremental_mean_and_var`` on a
first fit, the corrected two-pass variance of Chan, Golub and LeVeque, then the near-constant
check of ``_is_constant_feature``). ``tests/test_standardize.py`` holds it equal with
``np.array_equal`` on random arrays.
"""

from __future__ import annotations

import numpy as np

__all__ = ["standard_scale"]


def standard_scale(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and scale of each column, exactly as ``StandardScaler().fit(X)`` gives them.

    Parameters
    ----------
    X
        A 2-D float array without missing values (its memory order is kept: a column sum
        depends on it in the last bit, as in scikit-learn).

    Returns
    -------
    (mean, scale)
        ``mean_`` and ``scale_``: the population standard deviation, 1 for a column that is
        constant up to rounding.

    Examples
    --------
    >>> mean, scale = standard_scale(np.array([[1.0, 5.0], [3.0, 5.0]]))
    >>> mean.tolist(), scale.tolist()
    ([2.0, 5.0], [1.0, 1.0])
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"standard_scale needs a 2-D array; got {X.ndim} dimension(s)")
    n = X.shape[0]
    # A first fit of _incremental_mean_and_var: the previous sum and count are zeros, which
    # scikit-learn still adds (0.0 + -0.0 is 0.0, so the additions are kept).
    last_sum = np.zeros(X.shape[1])
    new_sum = np.sum(X, axis=0)
    count = np.full(X.shape[1], float(n))  # n minus the missing values (there are none)
    mean = (last_sum + new_sum) / count
    temp = X - new_sum / count
    correction = np.sum(temp, axis=0)
    temp **= 2
    unnormalized = np.sum(temp, axis=0)
    unnormalized -= correction**2 / count
    var = unnormalized / count
    # _is_constant_feature with the integer count, then _handle_zeros_in_scale.
    eps = np.finfo(np.float64).eps
    constant = var <= n * eps * var + (n * mean * eps) ** 2
    scale = np.sqrt(var)
    scale[constant] = 1.0
    return mean, scale
