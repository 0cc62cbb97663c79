"""Ranking with ties and selection with a tie-breaker."""

import numpy as np
import pytest

from primafacie.certainty.select import rank, select_optimal
from primafacie.errors import InputError


def test_competition_ranks_with_float_noise_ties():
    u = np.array([0.1, 0.5, 0.1 + 1e-16, -0.2, 0.5])
    order, ranks = rank(u)
    assert ranks.tolist() == [3, 1, 3, 5, 1]
    assert order.tolist() == [1, 4, 0, 2, 3]  # stable within ties


def test_select_returns_all_maxima_and_breaks_ties():
    u = [-0.752685, 0.0, -0.752685, -0.507967]
    best, chosen = select_optimal(u)
    assert best.tolist() == [1] and chosen.tolist() == [1]
    # SVM and RF tie (Table 3): accuracy decides among them
    best, chosen = select_optimal([-0.75, -0.75, -0.9], tiebreak=[0.711, 0.702, 0.99])
    assert best.tolist() == [0, 1] and chosen.tolist() == [0]
    # the tie-breaker may tie too
    best, chosen = select_optimal([0.2, 0.2], tiebreak=[0.5, 0.5])
    assert chosen.tolist() == [0, 1]
    # NaN never wins
    _, chosen = select_optimal([0.2, 0.2], tiebreak=[np.nan, 0.1])
    assert chosen.tolist() == [1]


def test_select_bad_input():
    with pytest.raises(InputError, match="tie-breaker has 1 values"):
        select_optimal([0.1, 0.1], tiebreak=[1.0])
    with pytest.raises(InputError, match="NaN"):
        select_optimal([np.nan, 0.1])
    with pytest.raises(InputError, match="no decision-maker"):
        select_optimal([])
