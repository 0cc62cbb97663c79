"""Utility and disparity under bootstrap weights, by hand and against scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from primafacie.alternatives.metrics import auc, bootstrap_weights, disparity, utility


def test_auc_matches_scikit_learn_with_ties_and_weights():
    rng = np.random.default_rng(3)
    s = rng.integers(0, 10, 400) / 10  # many ties
    y = rng.integers(0, 2, 400)
    w = rng.integers(0, 4, 400).astype(float)
    W = np.stack([np.ones(400), w])
    got = auc(s, y, W)
    assert got[0] == pytest.approx(roc_auc_score(y, s))
    assert got[1] == pytest.approx(roc_auc_score(y, s, sample_weight=w))


def test_utilities_by_hand():
    y = np.array([1, 1, 0, 0])
    d = np.array([[1, 0, 0, 1]])  # tp 1, fn 1, tn 1, fp 1
    one = np.ones((1, 4))
    assert utility("accuracy", d.astype(float), d, y, one)[0, 0] == 0.5
    assert utility("balanced_accuracy", d.astype(float), d, y, one)[0, 0] == 0.5
    gain = {"profit": {"tp": 10, "fp": -5, "fn": 0, "tn": 1}}
    assert utility(gain, d.astype(float), d, y, one)[0, 0] == pytest.approx((10 - 5 + 0 + 1) / 4)


def test_disparity_by_hand_in_the_disadvantaged_direction():
    # protected: rows 0-3, 1 of 4 selected; reference: rows 4-7, 3 of 4 selected
    d = np.array([[1, 0, 0, 0, 1, 1, 1, 0]], dtype=bool)
    prot = np.arange(8) < 4
    y = np.ones(8, dtype=int)
    groups = [(prot, ~prot)]
    one = np.ones((1, 8))
    ratio, rev = disparity("impact_ratio", d, y, groups, one, [True])
    assert ratio[0, 0] == pytest.approx(1 / 3) and rev[0, 0] == 1.0
    diff, rev = disparity("selection_difference", d, y, groups, one, [True])
    assert diff[0, 0] == pytest.approx(0.5) and rev[0, 0] == 0.0
    # seen from the other side, the same decisions are a reversal of 0.5
    diff, rev = disparity("selection_difference", d, y, groups, one, [False])
    assert diff[0, 0] == 0.0 and rev[0, 0] == pytest.approx(0.5)
    # past parity a ratio is capped at 1: no folding back
    ratio, rev = disparity("impact_ratio", d, y, groups, one, [False])
    assert ratio[0, 0] == 1.0 and rev[0, 0] == pytest.approx(1 / 3)


def test_bootstrap_weights_are_reproducible_resamples():
    a = np.concatenate(list(bootstrap_weights(50, 130, seed=4)))
    b = np.concatenate(list(bootstrap_weights(50, 130, seed=4)))
    assert a.shape == (130, 50)
    assert (a.sum(1) == 50).all()
    assert np.array_equal(a, b)
