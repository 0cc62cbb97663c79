"""Null and gap worlds (src/primafacie/datasets/null_worlds.py) and the calibration of situation
testing on them (issue 15): a CI-sized run, a fixed seed, a few seconds."""

from __future__ import annotations

import math

import numpy as np
import pytest

from primafacie.datasets.null_worlds import make_gap_world, make_null_world
from primafacie.errors import InputError
from primafacie.situation import SituationTest

ALPHA = 0.05


def _upper_band(tests: int, alpha: float = ALPHA) -> float:
    """α + 3·sqrt(α(1−α)/tests): the top of the binomial band of a share of ``tests``."""
    return alpha + 3 * math.sqrt(alpha * (1 - alpha) / tests)


def _shares(world, **settings):
    res = SituationTest(methods=["st", "cst", "cst_centers", "cf"], k=[15, 30], **settings).run(
        world.data, counterfactuals=world.counterfactuals
    )
    s = res.summary().set_index(["method", "k"])
    return s, res


def test_null_worlds_hold_the_null_by_construction():
    a = make_null_world(n=5000, kind="unaffected", seed=3)
    b = make_null_world(n=5000, kind="unused", shift=1.0, seed=3)
    fa, fb = a.data.frame, b.data.frame
    # (b) shifts x3 by one sd for the protected; (a) shifts nothing
    assert fb.x3[fb.a == 1].mean() - fb.x3[fb.a == 0].mean() == pytest.approx(1.0, abs=0.1)
    assert abs(fa.x3[fa.a == 1].mean() - fa.x3[fa.a == 0].mean()) < 0.1
    # the decision ignores A and x3: the same draws give the same decisions in both worlds
    assert (fa.y == fb.y).all()
    # the true counterfactual undoes the shift and keeps every decision
    assert np.allclose(b.counterfactuals.x3[fb.a == 1], fb.x3[fb.a == 1] - 1.0)
    assert (b.counterfactuals.y == fb.y).all() and (b.counterfactuals.a == 0).all()


def test_gap_world_rejects_the_protected_gap_points_more_often():
    w = make_gap_world(n=40000, gap=0.1, seed=4)
    f, cf = w.data.frame, w.counterfactuals
    prot = f.a == 1
    # same x distribution in both groups, so the rate gap is the direct effect
    assert f.y[~prot].mean() - f.y[prot].mean() == pytest.approx(0.1, abs=0.015)
    # do(a := 0) lifts exactly the protected people whose U fell in the gap
    flipped = (cf.y != f.y)[prot]
    assert flipped.mean() == pytest.approx(0.1, abs=0.01) and (cf.y >= f.y).all()


@pytest.mark.parametrize("interval", ["wald", "newcombe"])
@pytest.mark.parametrize("kind", ["unaffected", "unused"])
def test_significant_share_on_a_null_world_is_within_the_band_or_below(kind, interval):
    # The band is the binomial one of independent tests, α + 3·sqrt(α(1−α)/tests). Neighbour
    # groups overlap, so over many seeds the share spreads wider (design effect 3–19 in
    # docs/statistics.md); at this fixed seed it lies inside the strict band.
    world = make_null_world(n=3000, kind=kind, seed=2026)
    s, res = _shares(world, interval=interval)
    for method in ("st", "cst", "cst_centers"):
        for k in (15, 30):
            row = s.loc[(method, k)]
            share = row.n_significant / row.tested
            assert row.tested > 900
            assert share <= _upper_band(int(row.tested)), (method, k, share)
    # CF: the true counterfactual decision equals the factual one, so no case at all
    assert (s.xs("cf", level="method").cases == 0).all()
    # every BH discovery on a null world is a false one; at this seed there is none
    assert (s.n_significant_adjusted == 0).all()


def test_the_band_check_can_fail_on_a_world_with_discrimination():
    world = make_gap_world(n=3000, gap=0.2, seed=2026)
    s, _ = _shares(world)
    row = s.loc[("cst", 30)]
    assert row.n_significant / row.tested > _upper_band(int(row.tested))
    assert row.n_significant_adjusted > 0


def test_bad_arguments_name_the_parameter():
    with pytest.raises(InputError, match="kind"):
        make_null_world(kind="none")
    with pytest.raises(InputError, match="gap"):
        make_gap_world(gap=0.5)
