"""LP ranges of Section 3.2 on the paper's examples (spec §4, §8.2-8.3)."""

import numpy as np
import pytest

from primafacie.principal.lp import A_MARGIN_FULL, T, lp_intervals, margin_rhs, solve_blocks, widx
from primafacie.principal.population import margins_from_joint, table1_joint

TABLE4 = np.array([[[0.53, 0.04], [0.11, 0.32]], [[0.90, 0.02], [0.03, 0.05]]])


def test_index_and_margin_matrix():
    assert widx(0, 1, 1, 1) == 7 and widx(1, 0, 1, 1) == 11 and widx(0, 1, 0, 0) == 4
    assert np.linalg.matrix_rank(A_MARGIN_FULL) == 7  # 8 equalities, rank 7 (spec §3)
    # product coupling of the two arms satisfies (8): (8) is always feasible
    p = TABLE4
    w = np.einsum("ij,kl->ikjl", p[0], p[1])  # [s0, y0] x [s1, y1] -> [s0, s1, y0, y1]
    np.testing.assert_allclose(A_MARGIN_FULL @ w.reshape(16), margin_rhs(p[None])[0])


def test_table4_ranges():
    r = lp_intervals(TABLE4[None])
    assert (r.tau[0][0], r.tau[1][0]) == pytest.approx((-0.13, -0.01), abs=1e-9)
    assert (r.tau0[0][0], r.tau0[1][0]) == pytest.approx((-0.11, -0.01), abs=1e-9)
    assert (r.tau1[0][0], r.tau1[1][0]) == pytest.approx((-0.02, 0.04), abs=1e-9)
    assert not r.cond_feasible[0]  # (8) + {tau0' = 0} is empty
    assert np.isnan(r.cond[0][0]) and np.isnan(r.cond[1][0])


def test_table4_tau_zero_is_infeasible_directly():
    v, ok = solve_blocks(np.zeros((1, 16)), margin_rhs(TABLE4[None]), extra_rows=T[None])
    assert not ok[0]


def test_table1_ranges():
    r = lp_intervals(margins_from_joint(table1_joint()))
    assert (r.tau0[0][0], r.tau0[1][0]) == pytest.approx((-4 / 35, 4 / 35), abs=1e-9)
    assert (r.tau1[0][0], r.tau1[1][0]) == pytest.approx((-4 / 35, 4 / 35), abs=1e-9)
    assert (r.tau[0][0], r.tau[1][0]) == pytest.approx((-8 / 35, 8 / 35), abs=1e-9)
    assert r.cond_feasible[0]


def test_joint_variant_tau1_first():
    r = lp_intervals(TABLE4[None], joint="tau1")
    # tau1' = 0 is attainable (range [-0.02, 0.04]); tau0' given tau1'=0 stays below 0
    assert r.cond_feasible[0]
    assert r.cond[1][0] < 0
    with pytest.raises(ValueError):
        lp_intervals(TABLE4[None], joint="both")


def test_stacked_equals_single_and_infeasible_block_is_isolated():
    rng = np.random.default_rng(3)
    p = rng.dirichlet(np.ones(4), size=(5, 2)).reshape(5, 2, 2, 2)
    p = np.concatenate([p, TABLE4[None]])
    r = lp_intervals(p)
    for i in range(6):
        single = lp_intervals(p[i : i + 1])
        assert r.tau[0][i] == pytest.approx(single.tau[0][0], abs=1e-9)
        assert r.cond_feasible[i] == single.cond_feasible[0]
    assert not r.cond_feasible[5]
    v, ok = solve_blocks(np.zeros((6, 16)), margin_rhs(p), extra_rows=T[None])
    assert ok.tolist()[5] is False and ok[:5].sum() >= 1


def test_closed_form_single_ranges_equal_the_lp():
    from primafacie.principal.lp import T0, T1, single_ranges

    rng = np.random.default_rng(11)
    n = 300
    conc = rng.choice([0.3, 1.0, 5.0], size=n)
    p = np.stack([rng.dirichlet(np.full(4, c), size=2) for c in conc]).reshape(n, 2, 2, 2)
    p[:20, 1, 0, :] = 0  # some empty (A, S) cells
    p[:20, 1] /= p[:20, 1].sum(axis=(1, 2), keepdims=True)
    v, ok = solve_blocks(
        np.tile(np.stack([T0, -T0, T1, -T1]), (n, 1)), np.repeat(margin_rhs(p), 4, axis=0)
    )
    assert ok.all()
    v = v.reshape(n, 4)
    lo0, hi0, lo1, hi1 = single_ranges(p)
    np.testing.assert_allclose(lo0, v[:, 0], atol=2e-7)  # HiGHS feasibility tolerance
    np.testing.assert_allclose(hi0, -v[:, 1], atol=2e-7)  # HiGHS feasibility tolerance
    np.testing.assert_allclose(lo1, v[:, 2], atol=2e-7)  # HiGHS feasibility tolerance
    np.testing.assert_allclose(hi1, -v[:, 3], atol=2e-7)  # HiGHS feasibility tolerance


def test_closed_form_tau_range_equals_the_lp():
    """The closed-form range of tau' (four-cell Gale argument) against HiGHS, degenerate cases too."""
    from primafacie.principal.lp import tau_range

    rng = np.random.default_rng(29)
    n = 1500
    conc = rng.choice([0.1, 0.3, 1.0, 5.0], size=n)
    p = np.stack([rng.dirichlet(np.full(4, c), size=2) for c in conc]).reshape(n, 2, 2, 2)
    p[:200] = np.round(p[:200], 1)  # ties and exact zeros
    p[200:300, 0, 1, :] = 0  # an arm where S is never 1
    p[300:400, 1, :, 1] = 0  # an arm where Y is never 1
    p /= p.sum(axis=(2, 3), keepdims=True)
    lo, hi = tau_range(p)
    v, ok = solve_blocks(np.tile(np.stack([T, -T]), (n, 1)), np.repeat(margin_rhs(p), 2, axis=0))
    assert ok.all()
    v = v.reshape(n, 2)
    np.testing.assert_allclose(lo, v[:, 0], atol=2e-7)  # HiGHS feasibility tolerance
    np.testing.assert_allclose(hi, -v[:, 1], atol=2e-7)
    assert (lo <= hi + 1e-12).all()


@pytest.mark.parametrize("joint", ["tau0", "tau1"])
def test_closed_form_conditional_range_equals_the_lp(joint):
    """Range of tau1' given tau0'=0 (and the reverse) in closed form against HiGHS, with ties,
    empty cells and infeasible cases (review: replaces one linprog call per evaluation)."""
    from primafacie.principal.lp import T0, T1, cond_range

    rng = np.random.default_rng(41 if joint == "tau0" else 42)
    n = 400
    conc = rng.choice([0.2, 0.5, 1.0, 5.0], size=n)
    p = np.stack([rng.dirichlet(np.full(4, c), size=2) for c in conc]).reshape(n, 2, 2, 2)
    p[:80] = np.round(p[:80], 1)  # ties and exact zeros
    p[80:120, 0, 1, :] = 0  # an arm where S is never 1
    p[120:160, 1, :, 0] = 0  # an arm where Y is never 0
    p[:160, :, 0, 0] += 1e-3 * (p[:160].sum(axis=(2, 3)) == 0)  # keep every arm non-empty
    p /= p.sum(axis=(2, 3), keepdims=True)
    fixed, free = (T0, T1) if joint == "tau0" else (T1, T0)
    v, ok = solve_blocks(
        np.tile(np.stack([free, -free]), (n, 1)),
        np.repeat(margin_rhs(p), 2, axis=0),
        extra_rows=fixed[None],
    )
    ok = ok.reshape(n, 2).all(axis=1)
    v = v.reshape(n, 2)
    lo, hi, feasible = cond_range(p, joint, tol=1e-9)
    assert 20 < (~ok).sum() < n - 20  # both feasible and infeasible cases occur
    np.testing.assert_array_equal(feasible, ok)
    np.testing.assert_allclose(lo[ok], v[ok, 0], atol=2e-7)  # HiGHS feasibility tolerance
    np.testing.assert_allclose(hi[ok], -v[ok, 1], atol=2e-7)
    assert np.isnan(lo[~ok]).all() and np.isnan(hi[~ok]).all()
