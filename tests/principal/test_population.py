"""Paper Table 1 (spec §2 and §8.1): per-stratum rates and Definitions 1-4 from the joint."""

import numpy as np
import pytest

from primafacie.principal.population import joint_targets, margins_from_joint, table1_joint


def test_table1_rates_and_definitions():
    t = joint_targets(table1_joint())
    assert (t["rate_S1_11"], t["rate_S0_11"]) == pytest.approx((0.25, 0.25))
    assert (t["rate_S1_00"], t["rate_S0_00"]) == pytest.approx((0.75, 0.75))
    assert (t["rate_S1_10"], t["rate_S0_10"]) == pytest.approx((0.3, 0.7))
    assert (t["rate_S1_01"], t["rate_S0_01"]) == pytest.approx((0.85, 0.15))
    assert t["tau1"] == pytest.approx(0) and t["tau0"] == pytest.approx(0)  # Def 1 holds
    assert t["tau"] == pytest.approx(0)  # Def 2 holds: 0.5 vs 0.5
    assert (t["pr_S1"], t["pr_S0"]) == pytest.approx((4 / 7, 3 / 7))  # Def 3 fails
    assert (t["def4_S1"], t["def4_S0"]) == pytest.approx((0.55, 0.20))  # Def 4 fails


def test_table1_margins_are_the_papers_counts():
    p = margins_from_joint(table1_joint())[0] * 700
    # A=1: (S,Y) = (1,1) 80, (0,1) 220, (1,0) 320, (0,0) 80
    assert np.round(p[1]).tolist() == [[80, 220], [320, 80]]
    # A=0: (1,1) 80, (0,1) 320, (1,0) 220, (0,0) 80
    assert np.round(p[0]).tolist() == [[80, 320], [220, 80]]
