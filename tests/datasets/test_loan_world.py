"""Tests for the CST Figure 1 loan-world generator and the SCM's recovery of its counterfactuals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from primafacie.causal import SCM
from primafacie.datasets.loan_world import LOAN_COLUMNS, LOAN_EDGES, make_loan_world
from primafacie.errors import InputError


def test_same_seed_identical_frame():
    a = make_loan_world(n=2000, seed=7)
    b = make_loan_world(n=2000, seed=7)
    pd.testing.assert_frame_equal(a, b)
    c = make_loan_world(n=2000, seed=8)
    assert not a.equals(c)


def test_columns_match_published_file(require_data):
    path = require_data("loan_application", "LoanApplication_v2.csv")
    published = pd.read_csv(path, sep="|", nrows=5)
    assert list(published.columns) == LOAN_COLUMNS
    world = make_loan_world(n=100, seed=0)
    assert list(world.columns) == LOAN_COLUMNS


def test_structural_equations_and_decision_rule():
    world = make_loan_world(n=20000, seed=3, drop_negative=False)
    x1, x2 = world["AnnualSalary"], world["AccountBalance"]
    assert (world["LoanApproval"] == (x1 + 5 * x2 > 225000).astype(int)).all()
    men = world["Gender"] == 0
    # Men carry no penalty: X1 = U1 and X2 = 0.3 X1 + U2 exactly.
    assert (x1[men] == world["u1"][men]).all()
    np.testing.assert_allclose(x2[men], 0.3 * x1[men] + world["u2"][men], rtol=0, atol=1e-9)
    women = ~men
    # Women's salary penalty is -1500 * Poi(10): a non-positive multiple of 1500, mean -15000.
    pen1 = x1[women] - world["u1"][women]
    assert (pen1 <= 0).all() and (pen1 % 1500 == 0).all()
    assert abs(pen1.mean() + 15000) < 4 * 1500 * np.sqrt(10 / women.sum())
    # Balance penalty -300 * chi2(4): non-positive, mean -1200 (sd 300*sqrt(8)).
    pen2 = x2[women] - 0.3 * x1[women] - world["u2"][women]
    assert (pen2 <= 1e-9).all()
    assert abs(pen2.mean() + 1200) < 4 * 300 * np.sqrt(8 / women.sum())


def test_female_share_close_to_p_female():
    n = 50000
    for p in (0.35, 0.6):
        world = make_loan_world(n=n, seed=1, p_female=p, drop_negative=False)
        # 4 binomial standard errors
        assert abs(world["Gender"].mean() - p) < 4 * np.sqrt(p * (1 - p) / n)


def test_drop_negative_and_signed_decision():
    world = make_loan_world(n=20000, seed=2, p_female=0.9, signed_decision=True)
    assert (world["AnnualSalary"] >= 0).all() and (world["AccountBalance"] >= 0).all()
    assert world.index.equals(pd.RangeIndex(len(world)))
    assert set(np.unique(world["LoanApproval"])) <= {-1.0, 1.0}
    raw = make_loan_world(n=20000, seed=2, p_female=0.9, drop_negative=False)
    assert len(raw) == 20000 and len(world) < 20000  # balances of poor women go negative


def test_true_counterfactual_table():
    world, cf = make_loan_world(n=5000, seed=4, return_counterfactual=True)
    assert cf.shape == world.shape and list(cf.columns) == LOAN_COLUMNS
    assert (cf["Gender"] == 0).all()
    assert (cf["AnnualSalary"] == world["u1"]).all()
    np.testing.assert_allclose(cf["AccountBalance"], 0.3 * world["u1"] + world["u2"], atol=1e-9)
    men = world["Gender"] == 0
    pd.testing.assert_frame_equal(cf[men], world[men])  # men are their own counterfactual
    assert (cf["LoanApproval"] == (cf.AnnualSalary + 5 * cf.AccountBalance > 225000)).all()


def test_bad_arguments():
    with pytest.raises(InputError, match="n must be"):
        make_loan_world(n=0)
    with pytest.raises(InputError, match="p_female"):
        make_loan_world(p_female=1.5)


N_BIG = 200_000


def _fit_and_errors(random_penalty: bool):
    world, truth = make_loan_world(
        n=N_BIG, seed=11, drop_negative=False, return_counterfactual=True,
        random_penalty=random_penalty,
    )  # fmt: skip
    women = (world["Gender"] == 1).to_numpy()
    scm = SCM(LOAN_EDGES).fit(world)
    cf = scm.counterfactual(world, {"Gender": 0}, rows=women)
    err = {c: (cf[c] - truth[c]).to_numpy()[women] for c in ("AnnualSalary", "AccountBalance")}
    return world, women, err


def test_fitted_scm_recovers_true_counterfactuals_exact_linear_world():
    # Penalties fixed at their means: the linear SCM is correctly specified, every woman's
    # error is the same constant (the coefficient estimation error). Standard error of the
    # Gender coefficient: sd(U1) * sqrt(1/n_f + 1/n_m) ~= 31623 * 0.0047 ~= 147 at n = 2e5.
    # Tolerance: 2% of the true shift (300 for salary, 15000 shift; 114 for balance, 5700
    # shift), i.e. about 2 standard errors.
    _, _, err = _fit_and_errors(random_penalty=False)
    for col, shift in (("AnnualSalary", 15000.0), ("AccountBalance", 5700.0)):
        assert np.ptp(err[col]) < 1e-6  # constant across women
        assert np.abs(err[col]).max() < 0.02 * shift


def test_fitted_scm_recovers_true_counterfactuals_paper_world():
    # With per-person penalties (the paper's model) the individual penalty is not
    # identifiable from (A, X1, X2): the salary error of a woman is -1500 (P1 - 10) up to
    # the estimation error, sd 1500 sqrt(10) = 4743; the balance error is -300 (P2 - 4)
    # - 450 (P1 - 10), sd sqrt(300^2 * 8 + 450^2 * 10) = 1657. The fitted SCM is unbiased:
    # the mean error over women is within 4 standard errors for salary (~4 * 147) and within
    # 2% of the 5700 shift for balance (as in the exactly specified world above).
    _, women, err = _fit_and_errors(random_penalty=True)
    n_f, n_m = women.sum(), (~women).sum()
    se = 10000 * np.sqrt(10) * np.sqrt(1 / n_f + 1 / n_m)
    assert abs(err["AnnualSalary"].mean()) < 4 * se
    assert abs(err["AccountBalance"].mean()) < 0.02 * 5700
    assert err["AnnualSalary"].std() == pytest.approx(1500 * np.sqrt(10), rel=0.03)
    assert err["AccountBalance"].std() == pytest.approx(np.sqrt(300**2 * 8 + 450**2 * 10), rel=0.03)


def test_loan_world_data_roles_match_the_frame():
    from primafacie.datasets.loan_world import loan_world_data, make_loan_world

    data = loan_world_data(n=400, seed=2)
    df = make_loan_world(n=400, seed=2)
    assert data.n == len(df)
    assert data.decision_array().tolist() == df["LoanApproval"].tolist()
    assert int(data.protected_mask().sum()) == int((df["Gender"] == 1).sum())
