"""Program (9) of Theorem 3 (spec §5): closed form for Definition 2, certified QP for Definition 1."""

import numpy as np
import pytest
from scipy.optimize import linprog

from primafacie.errors import InputError
from primafacie.principal.approx import _alpha_def1, alpha_star
from primafacie.principal.lp import A_MARGIN, T0, T1, lp_intervals
from primafacie.principal.population import joint_from_strata, margins_from_joint
from primafacie.principal.repair import apply_eps, solve_repair

TABLE4 = np.array([[[0.53, 0.04], [0.11, 0.32]], [[0.90, 0.02], [0.03, 0.05]]])
SIM = {
    (1, 1): (0.20, 0.7, 0.7),
    (1, 0): (0.05, 0.6, 0.4),
    (0, 1): (0.05, 0.3, 0.6),
    (0, 0): (0.70, 0.05, 0.6),
}


def test_table4_by_hand():
    zero = np.zeros((1, 4))
    # Def 2: tau' in [-0.13, -0.01] -> 0.01^2. Def 1: tau0' in [-0.11, -0.01] cannot reach 0, so
    # alpha >= 0.01^2; it is attained at (tau0', tau1') = (-0.01, 0), certified by the
    # supporting-hyperplane LP min(-tau0') over (8) = 0.01
    assert alpha_star(TABLE4[None], zero, 2)[0] == pytest.approx(1e-4, abs=1e-12)
    assert alpha_star(TABLE4[None], zero, 1)[0] == pytest.approx(1e-4, abs=1e-9)
    np.testing.assert_allclose(_alpha_def1(TABLE4)[1], [-0.01, 0], atol=1e-6)
    assert _support_lp(TABLE4, np.array([-1.0, 0.0])) == pytest.approx(0.01, abs=1e-9)
    for d in (1, 2):
        eps, _ = solve_repair(TABLE4[None], d)
        assert alpha_star(TABLE4[None], eps, d)[0] == pytest.approx(0, abs=1e-10)


def _support_lp(m, u):
    """min u . (tau0', tau1') over (8) at margins m: the supporting-hyperplane lower bound."""
    res = linprog(u[0] * T0 + u[1] * T1, A_eq=A_MARGIN, b_eq=m.reshape(8)[:7], method="highs")
    return res.fun


def test_def1_qp_is_optimal_by_supporting_hyperplane_certificate():
    rng = np.random.default_rng(8)
    p = rng.dirichlet(np.ones(4) * 0.7, size=(40, 2)).reshape(40, 2, 2, 2)
    alpha = alpha_star(p, np.zeros((40, 4)), 1)
    r = lp_intervals(p)
    not_refuted = r.cond_feasible & (r.cond[0] <= 1e-9) & (r.cond[1] >= -1e-9)
    np.testing.assert_allclose(alpha[not_refuted], 0, atol=1e-10)
    assert (~not_refuted).sum() >= 5  # the certificate below is exercised
    for c in np.flatnonzero(~not_refuted):
        value, t = _alpha_def1(p[c])
        d = np.sqrt(alpha[c])
        assert value == pytest.approx(alpha[c]) and np.hypot(*t) == pytest.approx(d, abs=1e-9)
        assert d > 1e-6
        # every feasible (tau0', tau1') has u . t >= |t*| with u = t* / |t*|: t* is the nearest
        # point to 0, so the QP optimum is certified by one LP
        assert _support_lp(p[c], t / d) >= d - 1e-7


def test_def2_matches_distance_of_lp_range():
    rng = np.random.default_rng(9)
    p = rng.dirichlet(np.ones(4), size=(30, 2)).reshape(30, 2, 2, 2)
    e = rng.uniform(0, 0.3, size=(30, 4))
    r = lp_intervals(apply_eps(p, e))
    dist = np.maximum(0, np.maximum(r.tau[0], -r.tau[1]))
    np.testing.assert_allclose(alpha_star(p, e, 2), dist**2, atol=1e-14)


@pytest.mark.parametrize("definition", [1, 2])
def test_theorem3_alpha_shrinks_with_n(definition):
    """eps-hat from samples of size n, plugged into (9) with the true p': alpha* -> 0."""
    p_true = margins_from_joint(joint_from_strata(SIM, rates=True))[0]
    rng = np.random.default_rng(3)
    reps = 30
    mean = {}
    for n in (300, 20000):
        n1 = rng.binomial(n, 0.5, size=reps)
        n_arm = np.stack([n - n1, n1], axis=1)
        cnt = rng.multinomial(n_arm, p_true.reshape(2, 4), size=(reps, 2))
        eps, ok = solve_repair((cnt / n_arm[:, :, None]).reshape(reps, 2, 2, 2), definition)
        assert ok.all()
        mean[n] = alpha_star(np.repeat(p_true[None], reps, axis=0), eps, definition).mean()
    assert mean[300] > 0
    assert mean[20000] < mean[300] / 8  # 66x more data; alpha is a squared distance


def test_bad_input():
    with pytest.raises(InputError, match="definition"):
        alpha_star(TABLE4[None], np.zeros((1, 4)), 3)
    with pytest.raises(InputError, match="shape"):
        alpha_star(TABLE4[None], np.zeros((2, 4)), 2)
