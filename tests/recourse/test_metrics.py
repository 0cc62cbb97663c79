"""FACTS definitions on hand-built flip matrices (spec §8 synthetic claims)."""

from __future__ import annotations

import numpy as np
import pytest

from primafacie.errors import InputError
from primafacie.recourse.metrics import (
    RecourseTable,
    conditional_mean_recourse,
    dense_rank,
    difficulty,
    ecd_inverse,
    fect,
    macro_ecd,
    micro_ecd,
    micro_from_flips,
    resolve_metric,
    unfairness,
)


def table_from(subgroups):
    """RecourseTable from a list of (flips (A, G), group_of_row, costs)."""
    K = max(int(g.max()) for _, g, _ in subgroups) + 1
    parts = [micro_from_flips(f, g, K, np.asarray(c, float)) for f, g, c in subgroups]
    n = np.array([np.bincount(g, minlength=K) for _, g, _ in subgroups])
    sizes = [len(c) for _, _, c in subgroups]
    starts = np.concatenate([[0], np.cumsum(sizes)])
    seq_order = np.concatenate([p["seq_order"] + starts[i] for i, p in enumerate(parts)])
    return RecourseTable(
        groups=tuple(range(K)),
        n=n,
        starts=starts,
        cost=np.concatenate([np.asarray(c, float) for _, _, c in subgroups]),
        eff=np.concatenate([p["eff"] for p in parts]),
        cum=np.concatenate([p["cum"] for p in parts]),
        n_rec=np.array([p["n_rec"] for p in parts]),
        rc_sum=np.array([p["rc_sum"] for p in parts]),
        seq_order=seq_order,
        seq_cum=np.concatenate([p["seq_cum"] for p in parts]),
    )


def flips_for_costs(rc_by_member, action_costs):
    """Flip matrix whose cheapest flipping action for member j costs rc_by_member[j]."""
    action_costs = np.asarray(action_costs, float)
    rc = np.asarray(rc_by_member, float)
    # an action flips a member exactly when it costs at least the member's recourse cost
    return action_costs[:, None] >= rc[None, :]


def toy_burden_table():
    costs = [1.0, 2.0, 2.5, 6.0]
    rc0 = [1, 2, 2, 2.5, 2.5]  # race 0
    rc1 = [1, 1, 1, 2, 6]  # race 1
    flips = np.concatenate([flips_for_costs(rc0, costs), flips_for_costs(rc1, costs)], axis=1)
    groups = np.array([0] * 5 + [1] * 5)
    return table_from([(flips, groups, costs)])


def test_toy_burden_mean_recourse_and_budget_disagree():
    """Fig. 1: burden 2 vs 2.2 (against race 1); EEWB(2) 60% vs 80% (against race 0)."""
    assert conditional_mean_recourse(np.array([1, 2, 2, 2.5, 2.5])) == pytest.approx(2.0)
    assert conditional_mean_recourse(np.array([1, 1, 1, 2, 6])) == pytest.approx(2.2)
    t = toy_burden_table()
    d_mr = difficulty(t, "ECMR")
    assert d_mr[0].tolist() == pytest.approx([2.0, 2.2])
    score, against = unfairness(d_mr, higher_is_better=False)
    assert score[0] == pytest.approx(0.2) and against[0] == 1
    d_b = difficulty(t, "EEWB", "micro", 2.0)
    assert d_b[0].tolist() == pytest.approx([0.6, 0.8])
    score, against = unfairness(d_b, higher_is_better=True)
    assert score[0] == pytest.approx(0.2) and against[0] == 0


def test_micro_ecd_matches_plain_definition():
    t = toy_burden_table()
    rc1 = np.array([1, 1, 1, 2, 6.0])
    for c in (0.5, 1, 2, 2.5, 6, 7):
        d = difficulty(t, "EEWB", "micro", c)
        assert d[0, 1] == pytest.approx(micro_ecd(rc1, 5, c))


def test_macro_two_thirds_vs_zero():
    """One action flips 2 of 3 in group 0 and none of group 1: EE macro 0.667, ECR(0.6) = 1."""
    flips = np.array([[True, True, False, False, False, False]])
    groups = np.array([0, 0, 0, 1, 1, 1])
    t = table_from([(flips, groups, [1.0])])
    d = difficulty(t, "EE", "macro")
    score, against = unfairness(d, True)
    assert score[0] == pytest.approx(2 / 3) and against[0] == 1
    s_ecr, a_ecr = unfairness(difficulty(t, "ECR", "macro", 0.6), True)
    assert s_ecr[0] == 1 and a_ecr[0] == 1
    s7, a7 = unfairness(difficulty(t, "ECR", "macro", 0.7), True)
    assert s7[0] == 0 and a7[0] == -1


def test_ecr_fig1c_flags_the_individual_with_fewer_choices():
    """x1 (group 0) has one effective action, x2 (group 1) has two."""
    flips = np.array([[True, True], [False, True]])
    t = table_from([(flips, np.array([0, 1]), [1.0, 1.0])])
    d = difficulty(t, "ECR", "macro", 0.5)
    assert d[0].tolist() == [1.0, 2.0]
    score, against = unfairness(d, True)
    assert score[0] == 1 and against[0] == 0


def test_threshold_is_inclusive_with_integer_counts():
    """7/10 passes φ = 0.7 (Fig. 3 lists exactly 70.00% as passing)."""
    flips = np.zeros((1, 20), bool)
    flips[0, :7] = True
    flips[0, 10:17] = True
    t = table_from([(flips, np.array([0] * 10 + [1] * 10), [3.0])])
    assert difficulty(t, "ECR", "macro", 0.7)[0].tolist() == [1.0, 1.0]
    assert difficulty(t, "ECE", "macro", 0.7)[0].tolist() == [3.0, 3.0]


def test_ece_inf_and_fair_and_ranking():
    # subgroup 0: group 1 never reaches φ -> inf; subgroup 1: nobody does -> Fair;
    # subgroup 2: costs 2 vs 5 -> score 3
    sg0 = (np.array([[True, False]]), np.array([0, 1]), [1.0])
    sg1 = (np.array([[False, False]]), np.array([0, 1]), [1.0])
    sg2 = (np.array([[True, False], [True, True]]), np.array([0, 1]), [2.0, 5.0])
    t = table_from([sg0, sg1, sg2])
    d = difficulty(t, "ECE", "macro", 0.5)
    assert d[0].tolist() == [1.0, np.inf]
    assert np.isinf(d[1]).all()
    score, against = unfairness(d, False)
    assert score.tolist() == [np.inf, 0.0, 3.0]
    assert against.tolist() == [1, -1, 1]
    assert dense_rank(score).tolist() == [1, 0, 2]
    mr = difficulty(t, "ECMR")
    s_mr, _ = unfairness(mr, False)
    assert np.isinf(s_mr[0]) and s_mr[1] == 0  # one group without recourse -> inf


def test_eewb_without_action_in_budget_is_fair():
    t = table_from([(np.array([[True, False]]), np.array([0, 1]), [10.0])])
    s, a = unfairness(difficulty(t, "EEWB", "micro", 5.0), True)
    assert s[0] == 0 and a[0] == -1


def test_ecd_properties_on_random_flips():
    rng = np.random.default_rng(7)
    for _ in range(20):
        A, G = rng.integers(1, 8), rng.integers(2, 30)
        flips = rng.random((A, G)) < 0.3
        groups = np.arange(G) % 2
        costs = rng.integers(1, 5, size=A).astype(float)
        t = table_from([(flips, groups, costs)])
        grid = np.unique(np.concatenate([[0.0], costs, costs + 0.5]))
        for i in range(2):
            members = groups == i
            rc = np.where(flips[:, members].any(0),
                          np.min(np.where(flips[:, members], costs[:, None], np.inf), axis=0),
                          np.inf)  # fmt: skip
            micro = [difficulty(t, "EEWB", "micro", c)[0, i] for c in grid]
            macro = [difficulty(t, "EEWB", "macro", c)[0, i] for c in grid]
            assert np.all(np.diff(micro) >= 0)
            assert np.all(np.array(macro) <= np.array(micro) + 1e-12)
            assert micro == pytest.approx([micro_ecd(rc, members.sum(), c) for c in grid])
            assert macro == pytest.approx(
                [macro_ecd(costs, flips[:, members].sum(1), members.sum(), c) for c in grid]
            )
            for phi in (0.1, 0.5, 0.9):
                inv = difficulty(t, "ECE", "micro", phi)[0, i]
                assert inv == ecd_inverse(grid, micro, phi) or (np.isinf(inv) and max(micro) < phi)
                if np.isfinite(inv):
                    assert micro_ecd(rc, members.sum(), inv) >= phi
                    below = grid[grid < inv]
                    assert all(micro_ecd(rc, members.sum(), c) < phi for c in below)
            # conditional mean = Σ Δcum · cost / cum_last along the group's list
            lo, hi = 0, A
            order = t.seq_order[lo:hi, i]
            cum = t.seq_cum[lo:hi, i]
            if cum[-1] > 0:
                delta = np.diff(np.concatenate([[0], cum]))
                cm = float((delta * t.cost[order]).sum() / cum[-1])
                assert difficulty(t, "ECMR")[0, i] == pytest.approx(cm)
                assert cm == pytest.approx(conditional_mean_recourse(rc))


def test_eewb_equals_ee_when_budget_above_every_cost():
    rng = np.random.default_rng(3)
    flips = rng.random((5, 40)) < 0.2
    groups = np.arange(40) % 2
    t = table_from([(flips, groups, [2.0] * 5)])
    assert difficulty(t, "EEWB", "micro", 2.0).tolist() == difficulty(t, "EE", "micro").tolist()
    assert difficulty(t, "EEWB", "micro", 100.0).tolist() == difficulty(t, "EE").tolist()


def test_fect_breakpoints_vs_legacy_index_order():
    """Two actions at the same cost; each group's list orders them differently.

    Group 0: a flips both members, b none. Group 1: a flips one of two, b the other.
    At the only breakpoint (cost 1) both ecds are 1, so KS = 0. The reference code's
    index-by-index lists: group 0 sorted (b, a) -> [0, 1]; group 1 (a, b) -> [.5, 1] -> 0.5.
    """
    flips = np.array([[True, True, True, False], [False, False, False, True]])
    t = table_from([(flips, np.array([0, 0, 1, 1]), [1.0, 1.0])])
    score, against, _ = fect(t, "micro")
    assert score[0] == 0 and against[0] == -1
    legacy, a_legacy, _ = fect(t, "micro", legacy=True)
    assert legacy[0] == pytest.approx(0.5) and a_legacy[0] == 0


def test_fect_direction_and_macro():
    flips = np.array([[True, True, False, False], [True, True, True, False]])
    t = table_from([(flips, np.array([0, 0, 1, 1]), [1.0, 2.0])])
    score, against, at = fect(t, "micro")
    assert score[0] == pytest.approx(1.0) and against[0] == 1
    assert at[0].tolist() == [1.0, 0.0]
    s_ma, a_ma, _ = fect(t, "macro")
    assert s_ma[0] == pytest.approx(1.0) and a_ma[0] == 1


def test_multi_valued_max_minus_min():
    d = np.array([[0.2, 0.5, 0.9], [np.inf, 1.0, 2.0], [np.inf, np.inf, np.inf]])
    s, a = unfairness(d, True)
    assert s[0] == pytest.approx(0.7) and a[0] == 0
    s, a = unfairness(d, False)
    assert np.isinf(s[1]) and a[1] == 0
    assert s[2] == 0 and a[2] == -1


def test_dense_rank_ties_and_inf():
    assert dense_rank(np.array([0.3, np.inf, 0.3, np.nan, 0.1, np.inf])).tolist() == [
        2,
        1,
        2,
        0,
        3,
        1,
    ]


def test_metric_names_and_viewpoints():
    assert resolve_metric("E(C)MR")[0].key == "ECMR"
    with pytest.raises(InputError, match="no 'micro' viewpoint"):
        resolve_metric("ECR", "micro")
    with pytest.raises(InputError, match="unknown recourse metric"):
        resolve_metric("XYZ")
    t = toy_burden_table()
    with pytest.raises(InputError, match="needs its parameter"):
        difficulty(t, "ECE")


def test_ks_critical_value_formula():
    from primafacie.recourse.metrics import ks_critical_value

    # sqrt(-ln(0.025) * 200 / (2 * 100 * 100)) = sqrt(3.6889 / 100)
    assert float(ks_critical_value(100, 100, 0.05)) == pytest.approx(0.19206, abs=1e-5)
    assert float(ks_critical_value(50, 200, 0.1)) == pytest.approx(
        np.sqrt(-np.log(0.05) * 250 / (2 * 50 * 200))
    )


def test_dense_rank_orders_distinct_fractions_that_round_to_one_float():
    """F45/F46 and F46/F47 (Fibonacci) differ by 1/(F46 F47) ~ 2e-19: one float, two values;
    F45/F46 is the larger (even-indexed convergents of 1/phi lie above it)."""
    from primafacie.recourse.metrics import exact_scores

    f45, f46, f47 = 1134903170, 1836311903, 2971215073
    assert f45 / f46 == f46 / f47
    score = np.array([f46 / f47, f45 / f46, 0.7])
    rank = dense_rank(score, exact=(np.array([f46, f45, 7]), np.array([f47, f46, 10])))
    assert rank.tolist() == [3, 2, 1]
    # a share that is not count / n keeps its float score (denominator 0)
    num, den = exact_scores(np.array([[0.5, 0.123456789]]), np.array([[2, 3]]))
    assert den.tolist() == [0]
    # exact zero is Fair even when float noise leaves 1e-17
    assert dense_rank(np.array([1e-17]), exact=(np.array([0]), np.array([1]))).tolist() == [0]
