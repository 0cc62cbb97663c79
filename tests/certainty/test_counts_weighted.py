"""Weighted certainty counts (src/primafacie/certainty/counts.py ``weighted_counts``): the Beta
posterior's successes and trials are each group's weighted rate over its Kish effective size."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from primafacie.certainty import CertaintyRanking
from primafacie.certainty.counts import count_events, weighted_counts
from primafacie.data import AuditData


def test_hand_example():
    # group 0: weights 2, 1, 1 with E1 1, 0, 0 -> rate 2/4, n_eff 16/6 = 2.67 -> k 1.33 -> (1, 3)
    # group 1: weights 1, 1 with E1 1, 0 -> rate 1/2, n_eff 2 -> (1, 2)
    k, n = weighted_counts([0, 0, 0, 1, 1], 2, [1, 0, 0, 1, 0], None, [2.0, 1, 1, 1, 1])
    assert k.tolist() == [[1, 1]] and n.tolist() == [[3, 2]]


def test_equal_weights_give_the_unweighted_counts():
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 3, 500)
    e1 = rng.integers(0, 2, (500, 2)).astype(bool)
    e2 = rng.integers(0, 2, 500).astype(bool)
    k, n = weighted_counts(codes, 3, e1, e2, np.full(500, 3.5))
    k0, n0 = count_events(codes, 3, e1, e2)
    assert k.tolist() == k0.tolist() and n.tolist() == n0.tolist()


def test_certainty_with_weights_states_the_method():
    df = pd.DataFrame({"g": list("aaaabbbb"), "d": [1, 1, 0, 0, 1, 0, 0, 0],
                       "w": [1.0, 3, 1, 1, 1, 1, 1, 1]})  # fmt: skip
    plain = CertaintyRanking(protected="g").run(AuditData(df, features={}, decision="d"))
    res = CertaintyRanking(protected="g", weights="w").run(AuditData(df, features={}, decision="d"))
    # a: rate 4/6 over n_eff 36/12 = 3 -> 2 of 3; b: equal weights -> 1 of 4
    assert res.counts["k"].tolist() == [2, 1] and res.counts["n"].tolist() == [3, 4]
    assert res.counts["members"].tolist() == plain.counts["members"].tolist() == [4, 4]
    assert any("weighted by w" in c and "Kish" in c for c in res.caveats())


def test_bad_weights_name_the_column():
    from primafacie.errors import InputError

    df = pd.DataFrame({"g": list("aabb"), "d": [1, 0, 1, 0], "w": [1.0, -1, 1, 1]})
    with pytest.raises(InputError, match="weights column 'w' has 1 negative"):
        CertaintyRanking(protected="g", weights="w").run(AuditData(df, features={}, decision="d"))
