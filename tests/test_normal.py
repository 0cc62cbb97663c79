"""primafacie.normal: the normal CDF and quantile without SciPy, bit for bit SciPy's.

The p-values and every interval bound of the analyses are computed with these, so a last-bit
difference from ``scipy.special`` would move published numbers: the grids below cover every
branch of both rational approximations (the central range, both tails, the far tails beyond
exp(-32), the erf/erfc switch at 1/sqrt(2) and 1, underflow, ±inf, NaN), and each value must be
SciPy's exactly.
"""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

from primafacie.intervals import z_value
from primafacie.normal import ndtr, ndtri

special = pytest.importorskip("scipy.special")

#: z of one- and two-sided intervals at the levels the code, the configurations and the tests
#: use (0.05 / 2 and / 3: Bonferroni), typed from ``scipy.special.ndtri(1 - α)`` and
#: ``ndtri(1 - α / 2)`` (the textbook values to their printed digits: 1.645, 1.96, 2.326, 2.576).
Z_TABLE = {
    1e-10: (6.361340889697422, 6.466951074732418),
    0.001: (3.090232306167813, 3.2905267314919255),
    0.01: (2.3263478740408408, 2.5758293035489004),
    0.0125: (2.241402727604947, 2.497705474412374),
    0.05 / 3: (2.128045234184983, 2.3939797998185104),
    0.025: (1.959963984540054, 2.241402727604947),
    0.05: (1.6448536269514722, 1.959963984540054),
    0.1: (1.2815515655446004, 1.6448536269514722),
    0.12: (1.1749867920660904, 1.5547735945968535),
    0.18: (0.9153650878428143, 1.3407550336902165),
    0.2: (0.8416212335729143, 1.2815515655446004),
    0.35: (0.38532046640756773, 0.93458929107348),
    0.5: (0.0, 0.6744897501960817),
}


@pytest.mark.parametrize("alpha", sorted(Z_TABLE))
def test_z_value_pinned(alpha):
    one, two = Z_TABLE[alpha]
    assert z_value(alpha, "one") == one
    assert z_value(alpha, "two") == two


def test_pinned_values_are_the_textbook_quantiles():
    # the table is not circular: each value rounds to the printed quantile of a normal table
    assert round(Z_TABLE[0.05][0], 3) == 1.645 and round(Z_TABLE[0.05][1], 2) == 1.96
    assert round(Z_TABLE[0.01][0], 3) == 2.326 and round(Z_TABLE[0.01][1], 3) == 2.576
    assert round(Z_TABLE[0.5][1], 4) == 0.6745


def test_ndtri_equals_scipy_on_a_grid():
    rng = np.random.default_rng(20261127)
    ps = np.concatenate(
        [
            rng.random(100_000),  # the central range and both near tails
            10.0 ** -rng.uniform(0, 300, 20_000),  # lower tail, both log branches (x < 8, >= 8)
            1 - 10.0 ** -rng.uniform(0, 16, 20_000),  # upper tail
            1 - np.arange(1, 5001) / 5000,  # 1 - α on a grid of α
            1 - np.arange(1, 5001) / 10000,  # 1 - α/2
            [math.exp(-2), 1 - math.exp(-2), math.exp(-32), 0.5, 0.0, 1.0, 5e-324],
        ]
    )
    ours = np.array([ndtri(float(p)) for p in ps])
    np.testing.assert_array_equal(ours, special.ndtri(ps))


def test_ndtri_outside_the_unit_interval():
    assert ndtri(0.0) == -math.inf and ndtri(1.0) == math.inf
    assert all(math.isnan(ndtri(p)) for p in (-0.1, 1.1, math.nan))
    assert all(math.isnan(special.ndtri(p)) for p in (-0.1, 1.1, math.nan))


def test_ndtr_equals_scipy_on_a_grid():
    rng = np.random.default_rng(20261128)
    xs = np.concatenate(
        [
            rng.normal(0, 3, 300_000),
            rng.uniform(-40, 40, 100_000),  # erfc underflows beyond |x| ≈ 37.5
            np.linspace(-40, 40, 80_001),
            # the switches: |x|/sqrt(2) = 1/sqrt(2) (x = 1), = 1 (x = sqrt 2), = 8
            np.nextafter(
                np.repeat([1.0, math.sqrt(2), 8 * math.sqrt(2)], 3), [[-9], [0], [9]]
            ).ravel(),
            [0.0, -0.0, np.inf, -np.inf, 1e-300, -1e-300, 38.5, -38.5],
        ]
    )
    np.testing.assert_array_equal(ndtr(xs), special.ndtr(xs))
    # the branches are all reached
    s = np.abs(xs) / math.sqrt(2)
    assert ((s < 2**-0.5).any(), ((s >= 2**-0.5) & (s < 1)).any(), (s >= 8).any()) == (
        True,
        True,
        True,
    )


def test_ndtr_hand_values_and_shapes():
    # Φ(0) = 1/2, Φ(±inf) = 1, 0, and Φ(−z_{0.975}) = 0.025 to float precision
    assert float(ndtr(0.0)) == 0.5
    assert ndtr([-np.inf, np.inf]).tolist() == [0.0, 1.0]
    assert abs(float(ndtr(-1.959963984540054)) - 0.025) < 1e-16
    assert np.isnan(ndtr(np.nan))
    assert ndtr(np.zeros((2, 3))).shape == (2, 3)
    assert ndtr(np.array([], dtype=float)).shape == (0,)


def test_normal_module_imports_no_scipy():
    code = (
        "import sys, primafacie.normal, primafacie.intervals; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'scipy'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
