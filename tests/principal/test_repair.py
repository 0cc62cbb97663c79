"""Post-processing program of Section 3.3 (spec §5, §8.3, §8.5-8.7)."""

import numpy as np
import pytest

from primafacie.principal.evaluate import evaluate_margins
from primafacie.principal.lp import lp_intervals
from primafacie.principal.population import (
    joint_from_strata,
    joint_targets,
    margins_from_joint,
)
from primafacie.principal.repair import apply_eps, randomised_repair, solve_repair

TABLE4 = np.array([[[0.53, 0.04], [0.11, 0.32]], [[0.90, 0.02], [0.03, 0.05]]])

# spec §8.7: strata (1,1), (1,0), (0,1), (0,0) with pr(stratum), pr(S(1)=1 | .), pr(S(0)=1 | .)
SIM = {
    (1, 1): (0.20, 0.7, 0.7),
    (1, 0): (0.05, 0.6, 0.4),
    (0, 1): (0.05, 0.3, 0.6),
    (0, 0): (0.70, 0.05, 0.6),
}


@pytest.mark.parametrize("definition", [1, 2])
def test_table4_eps(definition):
    eps, ok = solve_repair(TABLE4[None], definition)
    assert ok[0]
    np.testing.assert_allclose(eps[0], [0, 0, 0, 1 / 90], atol=1e-9)  # force S'=1 for A=1


def test_apply_eps_matches_the_papers_two_forms():
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(4), size=(3, 2)).reshape(3, 2, 2, 2)
    e = rng.uniform(0, 0.5, size=(3, 4))
    q = apply_eps(p, e)
    for a in (0, 1):
        for s in (0, 1):
            for y in (0, 1):
                form2 = (
                    e[:, 2 * a + s] * p[:, a, 1 - s, y] + (1 - e[:, 2 * a + 1 - s]) * p[:, a, s, y]
                )
                np.testing.assert_allclose(q[:, a, s, y], form2)
    np.testing.assert_allclose(q.sum(axis=(2, 3)), 1.0)


def test_post_repair_closes_the_gap_table4():
    v = evaluate_margins(TABLE4[None], definitions=(1, 2))
    assert v["violated_def1"][0] and v["violated_def2"][0]
    for d in (1, 2):
        assert v[f"post_def{d}_closed"][0]
    # after repair the range of tau' touches 0 from below (the repair is minimal)
    assert v["post_def2_hi"][0] == pytest.approx(0, abs=1e-9)


def test_eps_zero_when_fair_by_construction():
    # S = Y (no dependence on A at all) and S independent noise: Lemma 1 applies on the joint
    rng = np.random.default_rng(1)
    strata = {
        k: (rng.uniform(0.1, 1), r, r) for k, r in zip(SIM, rng.uniform(0, 1, 4), strict=False)
    }
    p = margins_from_joint(joint_from_strata(strata, rates=True))
    for d in (1, 2):
        eps, _ = solve_repair(p, d)
        assert eps.sum() == pytest.approx(0, abs=1e-10)


def test_lemma1_no_individual_effect_gives_eps_zero():
    """S(1) = S(0) for every unit (population margins, no noise) -> eps* = 0 for both definitions."""
    rng = np.random.default_rng(7)
    for _ in range(20):
        w = np.zeros((2, 2, 2, 2))
        mass = rng.dirichlet(np.ones(8)).reshape(2, 2, 2)  # [s, y0, y1]
        w[0, 0], w[1, 1] = mass[0], mass[1]
        p = margins_from_joint(w.reshape(16))
        for d in (1, 2):
            eps, _ = solve_repair(p, d)
            assert eps.sum() == pytest.approx(0, abs=1e-9)


def test_theorem1_def2_and_def3_verdicts_coincide_without_strata_b_c():
    rng = np.random.default_rng(11)
    for _ in range(30):
        w = np.zeros((2, 2, 2, 2))
        w[:, :, 0, 0] = rng.dirichlet(np.ones(4)).reshape(2, 2) * 0.6
        w[:, :, 1, 1] = rng.dirichlet(np.ones(4)).reshape(2, 2) * 0.4
        if rng.random() < 0.3:  # make S(1) and S(0) equally distributed in the pooled strata
            w = (w + w.transpose(1, 0, 2, 3)) / 2
        t = joint_targets(w.reshape(16))
        p = margins_from_joint(w.reshape(16))
        v = evaluate_margins(p, definitions=(2,))
        def3_violated = abs(t["pr_S1"] - t["pr_S0"]) > 1e-9
        # with Y(1) = Y(0) everywhere, pr(S(1)=1) - pr(S(0)=1) is exactly tau' (Theorem 1)
        assert t["tau'"] == pytest.approx(t["pr_S1"] - t["pr_S0"])
        if def3_violated:
            # the true tau' is non-zero; the LP can only refute when its range excludes 0
            assert v["lp_tau_lo"][0] <= t["tau'"] + 1e-9 <= v["lp_tau_hi"][0] + 2e-9
        else:
            assert not v["violated_def2"][0]


def test_eps_zero_iff_joint_test_passes_and_grows_with_discrimination():
    rng = np.random.default_rng(5)
    p = rng.dirichlet(np.ones(4), size=(200, 2)).reshape(200, 2, 2, 2)
    v = evaluate_margins(p, definitions=(1, 2))
    for d in (1, 2):
        np.testing.assert_array_equal(v[f"eps_sum_def{d}"] > 1e-7, v[f"violated_def{d}"])
        assert v[f"post_def{d}_closed"].all()
    # scaled examples: shift decisions of A=1 towards S=1 more and more
    sums = []
    # most people in stratum (1,1) so that d1 > 0 and the bounds are informative
    for k in (0.0, 0.2, 0.3, 0.4):
        strata = {
            key: (pi, min(1, r1 + k), r0)
            for key, (pi, r1, r0) in {
                (1, 1): (0.8, 0.2, 0.2),
                (1, 0): (0.01, 0.2, 0.2),
                (0, 1): (0.01, 0.2, 0.2),
                (0, 0): (0.18, 0.1, 0.1),
            }.items()
        }
        pk = margins_from_joint(joint_from_strata(strata, rates=True))
        sums.append(solve_repair(pk, 2)[0].sum())
    assert sums[0] == pytest.approx(0, abs=1e-9)
    assert (
        all(b >= a - 1e-12 for a, b in zip(sums, sums[1:], strict=False)) and sums[3] > sums[2] > 0
    )


def test_sim_true_values_spec_8_7():
    w = joint_from_strata(SIM, rates=True)
    t = joint_targets(w)
    assert t["tau0'"] == pytest.approx(-0.385) and t["tau1'"] == pytest.approx(0)
    r = lp_intervals(margins_from_joint(w))
    assert (r.tau[0][0], r.tau[1][0]) == pytest.approx((-0.52, -0.14), abs=1e-9)
    eps, _ = solve_repair(margins_from_joint(w), 2)
    np.testing.assert_allclose(eps[0], [0, 0, 0, 0.2], atol=1e-9)


def test_theorem2_consistency_root_n():
    """eps-hat error and the post-repair residual shrink ~1/sqrt(n) (spec §8.7; seeded, ~1 s)."""
    p_true = margins_from_joint(joint_from_strata(SIM, rates=True))[0]
    eps_true = np.array([0, 0, 0, 0.2])
    rng = np.random.default_rng(20261122)
    reps = 60
    err, resid = {}, {}
    for n in (500, 8000):
        n1 = rng.binomial(n, 0.5, size=reps)
        n_arm = np.stack([n - n1, n1], axis=1)
        cnt = rng.multinomial(n_arm, p_true.reshape(2, 4), size=(reps, 2))
        p_hat = (cnt / n_arm[:, :, None]).reshape(reps, 2, 2, 2)
        eps, ok = solve_repair(p_hat, 2)
        assert ok.all()
        err[n] = np.abs(eps - eps_true).sum(axis=1).mean()
        r = lp_intervals(apply_eps(np.repeat(p_true[None], reps, axis=0), eps))
        resid[n] = np.maximum(0, np.maximum(r.tau[0], -r.tau[1])).mean()
    # 16x more data: the errors should shrink ~4x (spec reports 0.043 -> 0.0115 and 0.0145 -> 0.004)
    assert 0.02 < err[500] < 0.08
    assert 2.5 < err[500] / err[8000] < 7
    assert 2.5 < resid[500] / max(resid[8000], 1e-12) < 7


def test_randomised_repair_seeded_and_in_distribution():
    rng = np.random.default_rng(0)
    n = 200_000
    a = rng.integers(0, 2, n)
    s = rng.integers(0, 2, n)
    eps = np.array([0.1, 0.0, 0.05, 0.2])
    s1 = randomised_repair(s, a, eps, seed=3)
    np.testing.assert_array_equal(s1, randomised_repair(s, a, eps, seed=3))
    # within A=1, S was 0: S'=1 with prob eps11 / S'=0 otherwise
    sel = (a == 1) & (s == 0)
    assert s1[sel].mean() == pytest.approx(0.2, abs=0.01)
    sel = (a == 0) & (s == 1)
    assert 1 - s1[sel].mean() == pytest.approx(0.1, abs=0.01)
