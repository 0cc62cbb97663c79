"""Cost model: weighted change sizes, equal for every member of a subgroup."""

from __future__ import annotations

import numpy as np
import pytest

from primafacie.recourse.costs import CostModel, FeatureCost, delta_matrix


def test_delta_kinds():
    assert delta_matrix("categorical", np.arange(3)).tolist() == [[0, 1, 1], [1, 0, 1], [1, 1, 0]]
    assert delta_matrix("ordinal", np.arange(4))[0, 3] == 3
    num = delta_matrix("numeric", np.array([0.0, 2500.0, 10000.0]), normalize_range=10000.0)
    assert num[0, 1] == pytest.approx(0.25) and num[2, 0] == pytest.approx(1.0)
    assert delta_matrix("numeric", np.array([3.0, 7.0]))[0, 1] == 4.0


def test_table1_subgroup2_costs():
    """Spec §3: hpw FullTime->OverTime (2) + occupation (4) = 6; adding Workclass (2) = 8."""
    hpw = FeatureCost("hours-per-week", "ordinal", 2.0, delta_matrix("ordinal", np.arange(5)))
    occ = FeatureCost("occupation", "categorical", 4.0, delta_matrix("categorical", np.arange(14)))
    wc = FeatureCost("Workclass", "categorical", 2.0, delta_matrix("categorical", np.arange(7)))
    cm = CostModel([wc, hpw, occ])
    cols = np.array([0, 1, 2])
    if_codes = np.array([3, 2, 0])  # Private, FullTime, Adm-clerical
    then = np.array([[3, 3, 4], [5, 3, 4], [3, 4, 4], [3, 2, 0]])
    assert cm.costs(cols, if_codes, then).tolist() == [6.0, 8.0, 8.0, 0.0]
