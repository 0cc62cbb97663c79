"""u_topsis, u_norm, preference axioms and indifference curves."""

import math

import numpy as np
import pytest

from primafacie.certainty.utility import (
    check_trivial_preferences,
    get_utility,
    indifference_curve,
    indifference_delta,
    u_norm,
    u_topsis,
)
from primafacie.errors import InputError


def test_corner_values():
    r2 = math.sqrt(2)
    assert u_topsis(0, 0) == 1 and u_topsis(1, 0) == -1
    assert u_topsis(0, 1) == pytest.approx(r2 - 1)
    assert u_topsis(1, 1) == pytest.approx(1 - r2)
    assert u_norm(0, 1) == pytest.approx(0.70711, abs=1e-5)
    assert u_norm(1, 1) == pytest.approx(0.29289, abs=1e-5)
    assert u_norm(1, 0) == 0 and u_norm(0, 0) == 1


def test_sample_values_and_antisymmetry():
    s = np.array([0, 0.25, 0.5, 0.75, 1])
    np.testing.assert_allclose(u_topsis(0.2, s), [0.6, 0.518, 0.4049, 0.3204, 0.2608], atol=1e-4)
    np.testing.assert_allclose(u_topsis(0.8, s), -u_topsis(0.2, s), atol=1e-15)
    assert u_topsis(0.8, 0.5) == pytest.approx(-0.40488, abs=1e-5)
    assert u_topsis(0.8, 0.1) == pytest.approx(-0.58262, abs=1e-5)


def test_axioms_hold_for_paper_utilities():
    for u in (u_topsis, u_norm, "topsis", "norm"):
        check = check_trivial_preferences(u)
        assert check.holds and not check.violations and check.total_on_grid


def test_axioms_fail_for_violating_utilities():
    # ignores uncertainty: u(0,0) = u(0,1) breaks the strict preference
    flat = check_trivial_preferences(lambda d, s: 1 - d)
    assert not flat and any("u(0,0)" in v and "u(0,1)" in v for v in flat.violations)
    # plain distance to the ideal: prefers certainly unfair (1,0) over uncertainly unfair (1,1)
    ideal = check_trivial_preferences(lambda d, s: -np.hypot(d, s))
    assert not ideal.holds
    assert any(v.startswith("u(1,1)") for v in ideal.violations)
    # not total: undefined at the ideal corner
    with np.errstate(divide="ignore", invalid="ignore"):
        partial = check_trivial_preferences(lambda d, s: 1 / np.hypot(d, s) - d)
    assert not partial.total_on_grid and not partial


def test_axiom_check_to_dict_is_json_safe():
    import json

    with np.errstate(divide="ignore"):
        check = check_trivial_preferences(lambda d, s: 1 / d)
    json.dumps(check.to_dict(), allow_nan=False)


def test_indifference_curve_has_constant_utility():
    s = np.linspace(0, 1, 101)
    for c in (-0.8, -0.3, 0.0, 0.25, 0.9):
        d = indifference_delta(s, c)
        ok = np.isfinite(d)
        assert ok.any()
        np.testing.assert_allclose(u_topsis(d[ok], s[ok]), c, atol=1e-12)
    np.testing.assert_array_equal(indifference_delta(s, 0.0), np.full_like(s, 0.5))
    d, s2 = indifference_curve(0.75)
    assert ((d >= 0) & (d <= 1)).all() and len(d) == len(s2)
    with pytest.raises(InputError):
        indifference_delta(0.5, 1.0)


def test_unknown_utility_name():
    with pytest.raises(InputError, match="unknown utility"):
        get_utility("ratio")


def test_axiom_check_accepts_scalar_only_callable():
    # written with math (not numpy): used to raise TypeError on the totality grid
    def u(d, s):
        return math.hypot(d - 1, s) - math.hypot(d, s)

    check = check_trivial_preferences(u, grid=11)
    assert check.holds and check.total_on_grid


def test_axiom_check_reports_scalar_function_undefined_at_a_point():
    def u(d, s):  # math.log(0) raises at delta = 0 instead of returning -inf
        return -math.log(d) - s

    check = check_trivial_preferences(u, grid=11)
    assert not check.holds and not check.total_on_grid
