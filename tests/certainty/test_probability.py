"""prob_most_fair: posterior probability of the smallest disparity, against quadrature."""

import numpy as np
import pytest
from scipy import integrate, stats

from primafacie.certainty import CertaintyRanking, score_counts
from primafacie.certainty.probability import mc_standard_error, prob_most_fair
from primafacie.errors import InputError


def _gap_cdf(a1, b1, a2, b2, t):
    """P(|X1 - X2| <= t) for independent X1 ~ Beta(a1, b1), X2 ~ Beta(a2, b2) (quadrature)."""
    f1, F2 = stats.beta(a1, b1).pdf, stats.beta(a2, b2).cdf
    val, _ = integrate.quad(lambda x: f1(x) * (F2(min(x + t, 1)) - F2(max(x - t, 0))), 0, 1)
    return val


def _gap_pdf(a1, b1, a2, b2, t):
    """Density of |X1 - X2| at t > 0: f1(x) (f2(x + t) + f2(x - t)) integrated over x."""
    f1, f2 = stats.beta(a1, b1).pdf, stats.beta(a2, b2).pdf
    val, _ = integrate.quad(lambda x: f1(x) * (f2(x + t) + f2(x - t)), 0, 1, limit=200)
    return val


def _p_first_smaller(A, B):
    """P(|A1 - A2| < |B1 - B2|) = ∫ F_A(t) f_B(t) dt, by nested quadrature."""
    val, _ = integrate.quad(lambda t: _gap_cdf(*A, t) * _gap_pdf(*B, t), 0, 1, limit=200)
    return val


def test_two_decision_makers_match_numerical_integration():
    # A: 30 of 50 vs 20 of 50 (uniform prior: Beta(31, 21), Beta(21, 31));
    # B: 10 of 20 vs 8 of 20 (Beta(11, 11), Beta(9, 13)): a smaller gap but far less certain
    k = np.array([[30, 20], [10, 8]])
    n = np.array([[50, 50], [20, 20]])
    exact_a = _p_first_smaller((31, 21, 21, 31), (11, 11, 9, 13))
    assert 0.2 < exact_a < 0.8  # a non-trivial case
    draws = 20_000
    p = prob_most_fair(k, n, n_draws=draws, seed=3)
    assert p.sum() == pytest.approx(1.0)
    # tolerance: 4 Monte Carlo standard errors (a false alarm about once in 16,000 seeds)
    tol = 4 * float(mc_standard_error(exact_a, draws))
    assert abs(p[0] - exact_a) < tol
    assert abs(p[1] - (1 - exact_a)) < tol


def test_three_groups_use_max_minus_min_of_every_group():
    # DM 0 is the same as DM 1 plus a third group far away: its gap is always larger
    k = np.array([[50, 50, 5], [50, 50, 50]])
    n = np.array([[100, 100, 100], [100, 100, 100]])
    assert prob_most_fair(k, n, n_draws=500).tolist() == [0.0, 1.0]


def test_empty_group_is_left_out():
    # n = 0 would give the prior Beta(1, 1) draws, far from 0.5; left out, DM 0 has two equal
    # well-measured groups and wins against a 40-point gap
    k = np.array([[500, 500, 0], [700, 300, 0]])
    n = np.array([[1000, 1000, 0], [1000, 1000, 5]])
    assert prob_most_fair(k, n, n_draws=500).tolist() == [1.0, 0.0]


def test_identical_posteriors_share_the_probability():
    p = prob_most_fair([[6, 0], [6, 0]], [[6, 4], [6, 4]], n_draws=40_000, seed=1)
    assert p == pytest.approx([0.5, 0.5], abs=4 * 0.0025)


def test_seeded_and_independent_of_the_block_size():
    k, n = np.array([[3, 1], [5, 2], [9, 9]]), np.array([[5, 4], [9, 7], [20, 20]])
    one = prob_most_fair(k, n, n_draws=3001, seed=7)
    assert np.array_equal(one, prob_most_fair(k, n, n_draws=3001, seed=7))
    # blocks of 1, 50 and all draws consume the generator in the same order
    for block in (6, 300, 10**9):
        assert np.array_equal(one, prob_most_fair(k, n, n_draws=3001, seed=7, max_block=block))
    assert not np.array_equal(one, prob_most_fair(k, n, n_draws=3001, seed=8))


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"n_draws": 0}, "n_draws must be an integer >= 1; got 0"),
        ({"n_draws": 2.5}, "n_draws must be an integer >= 1; got 2.5"),
        ({"k": [[1, 0]], "n": [[1, 0]]}, "fewer than two non-empty groups"),
        ({"k": [[1, 0]], "n": [[2, 1], [1, 1]]}, "k and n must be"),
    ],
)
def test_bad_input_names_what_is_wrong(kw, match):
    args = {"k": [[1, 0], [1, 1]], "n": [[2, 2], [2, 2]], **kw}
    with pytest.raises(InputError, match=match):
        prob_most_fair(**args)


def test_column_in_the_ranking_and_json():
    res = score_counts([[30, 20], [10, 8]], [[50, 50], [20, 20]], names=["A", "B"], seed=3)
    t = res.to_frame().set_index("decision_maker")
    assert t["p_most_fair"].sum() == pytest.approx(1.0)
    assert np.array_equal(
        t.loc[["A", "B"], "p_most_fair"].to_numpy(),
        prob_most_fair([[30, 20], [10, 8]], [[50, 50], [20, 20]], seed=3),
    )
    d = res.to_dict()
    assert d["n_draws"] == 10_000 and d["seed"] == 3
    assert {r["decision_maker"]: r["p_most_fair"] for r in d["decision_makers"]} == dict(
        t["p_most_fair"]
    )
    assert "p_most_fair" in res.summary().columns


def test_off_gives_nan_and_a_plain_headline():
    res = score_counts([[3, 0], [1, 0]], [[3, 3], [1, 1]], names=["A", "B"], n_draws=None)
    assert res.to_frame()["p_most_fair"].isna().all()
    assert "posterior probability" not in res.headline()
    assert res.to_dict()["n_draws"] is None


def test_engine_validates_n_draws_and_seed():
    import pandas as pd

    df = pd.DataFrame({"g": list("aabb"), "d": [1, 0, 1, 1]})
    with pytest.raises(InputError, match="n_draws"):
        CertaintyRanking(protected="g", n_draws=0).run(df, {"d": "d"})
    with pytest.raises(InputError, match="seed"):
        CertaintyRanking(protected="g", seed=-1).run(df, {"d": "d"})
