"""Sample weights (src/primafacie/weights.py): Kish's effective size by hand, bad weights."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from primafacie.errors import InputError
from primafacie.weights import check_weights, effective_counts, kish_n_eff


def test_kish_n_eff_by_hand():
    # weights 1, 2, 3, 4: (Σw)² / Σw² = 10² / 30 = 3.333...
    w = np.array([1.0, 2.0, 3.0, 4.0])
    assert float(kish_n_eff(w.sum(), (w**2).sum())) == pytest.approx(100 / 30)
    # equal weights: the number of rows, whatever the scale
    assert float(kish_n_eff(5 * 7.0, 5 * 49.0)) == pytest.approx(5.0)
    assert float(kish_n_eff(0.0, 0.0)) == 0.0


def test_effective_counts_keep_the_weighted_rate():
    # rows w = 1, 2, 3, 4 with ŷ = 1, 0, 1, 0: rate (1 + 3) / 10 = 0.4 of n_eff 10/3
    k, n = effective_counts(4.0, 10.0, 30.0)
    assert float(n) == pytest.approx(10 / 3)
    assert float(k) == pytest.approx(0.4 * 10 / 3)


@pytest.mark.parametrize(
    ("values", "words"),
    [
        ([1.0, -1.0, -2.0, 3.0], "2 negative value(s) (first at row 1"),
        ([1.0, None, None, 3.0], "2 missing value(s) (first at row 1"),
        ([0.0, 0.0, 0.0], "all 3 weights are zero"),
        ([1.0, np.inf], "1 infinite value(s)"),
    ],
)
def test_bad_weights_name_the_column_and_the_count(values, words):
    with pytest.raises(InputError, match="weights column 'w'") as err:
        check_weights(pd.Series(values, dtype=float), "w")
    assert words in str(err.value)


def test_text_weights_are_refused():
    with pytest.raises(InputError, match="must be numeric"):
        check_weights(pd.Series(["a", "b"]), "w")
