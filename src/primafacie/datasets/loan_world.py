"""Synthetic loan applications from the CST paper's Figure 1 SCM (spec §7.1).

The structural equations (adapted from Karimi et al. 2021, Fig. 1), with ``A = 1`` female::

    A  ~ Bernoulli(p_female)
    U1 = 10000 · Poi(10)                      (annual salary noise)
    U2 = 2500 · N(0, 1)                       (account balance noise)
    X1 = −1500 · Poi(10) · A + U1             (AnnualSalary)
    X2 = −300 · χ²(4) · A + 0.3 · X1 + U2     (AccountBalance)
    ŷ  = 1{X1 + 5 · X2 > 225000}              (LoanApproval)

The Poisson and χ² penalty factors are drawn independently for every person. Columns follow
the authors' published ``LoanApplication_v2.csv``: LoanApproval, AnnualSalary, AccountBalance,
u1, u2, Gender.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..data import AuditData
from ..errors import InputError

__all__ = ["make_loan_world", "loan_world_data", "LOAN_COLUMNS", "LOAN_EDGES", "loan_decision"]

#: Column order of the published file.
LOAN_COLUMNS = ["LoanApproval", "AnnualSalary", "AccountBalance", "u1", "u2", "Gender"]
#: The Figure 1 DAG over the observed columns (the decision is b(X), not a node).
LOAN_EDGES = [
    ("Gender", "AnnualSalary"),
    ("Gender", "AccountBalance"),
    ("AnnualSalary", "AccountBalance"),
]
_THRESHOLD = 225000.0


def loan_decision(salary: np.ndarray, balance: np.ndarray, signed: bool = False) -> np.ndarray:
    """The bank's rule ``b(X) = 1{X1 + 5·X2 > 225000}``.

    Parameters
    ----------
    salary, balance
        Arrays of X1 and X2.
    signed
        Return ``sign(X1 + 5·X2 − 225000)`` as float (the published file's ±1 coding, 0 on an
        exact tie) instead of 0/1 integers.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> loan_decision(np.array([100000, 100000]), np.array([25000.0, 25000.1])).tolist()
    [0, 1]
    """
    score = np.asarray(salary, dtype=float) + 5.0 * np.asarray(balance, dtype=float)
    if signed:
        return np.sign(score - _THRESHOLD)
    return (score > _THRESHOLD).astype(np.int64)


def make_loan_world(
    n: int = 5000,
    seed: int | np.random.Generator | None = 0,
    p_female: float = 0.35,
    drop_negative: bool = True,
    return_counterfactual: bool = False,
    signed_decision: bool = False,
    random_penalty: bool = True,
) -> pd.DataFrame | tuple[pd.DataFrame, pd.DataFrame]:
    """Generate the CST synthetic loan world (Figure 1 SCM, spec §7.1).

    Parameters
    ----------
    n
        Number of applicants drawn (before dropping negative rows).
    seed
        Seed or ``numpy.random.Generator``; the same seed gives an identical frame.
    p_female
        ``P(A = 1)``. The authors' generator used 0.35 (the paper's text says 0.45).
    drop_negative
        Drop rows with a negative salary or balance, as the authors did (row positions are
        renumbered 0..m-1 afterwards).
    return_counterfactual
        Also return the TRUE counterfactual table under ``do(A := 0)``: the same noise
        ``U1, U2`` with the penalty terms removed (``X1 = U1``, ``X2 = 0.3·U1 + U2``),
        the decision recomputed and ``Gender = 0``. Rows align with the factual frame; the
        rows of men are identical to their factual rows.
    signed_decision
        Code LoanApproval as ±1 floats like the published file instead of 0/1 integers.
    random_penalty
        ``True`` (the paper) draws ``Poi(10)`` and ``χ²(4)`` per person. ``False`` fixes them
        at their means (15000 and 1200), which makes the linear SCM exactly specified — useful
        to check that a fitted SCM recovers individual counterfactuals.

    Returns
    -------
    pandas.DataFrame or (pandas.DataFrame, pandas.DataFrame)
        Columns ``LoanApproval, AnnualSalary, AccountBalance, u1, u2, Gender``.

    Examples
    --------
    >>> world = make_loan_world(n=1000, seed=1)
    >>> list(world.columns)
    ['LoanApproval', 'AnnualSalary', 'AccountBalance', 'u1', 'u2', 'Gender']
    >>> bool(((world.AnnualSalary + 5 * world.AccountBalance > 225000)
    ...       == (world.LoanApproval == 1)).all())
    True
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InputError(f"n must be a positive integer, got {n!r}")
    if not 0.0 <= float(p_female) <= 1.0:
        raise InputError(f"p_female must be in [0, 1], got {p_female!r}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    n = int(n)
    a = (rng.random(n) < p_female).astype(np.int64)
    if random_penalty:
        pen1 = rng.poisson(10, n).astype(np.int64)
        pen2 = rng.chisquare(4, n)
    else:
        pen1 = np.full(n, 10, dtype=np.int64)
        pen2 = np.full(n, 4.0)
    u1 = 10000 * rng.poisson(10, n).astype(np.int64)
    u2 = 2500.0 * rng.standard_normal(n)

    def world(gender: np.ndarray) -> pd.DataFrame:
        x1 = -1500 * pen1 * gender + u1
        x2 = -300.0 * pen2 * gender + 0.3 * x1 + u2
        return pd.DataFrame(
            {
                "LoanApproval": loan_decision(x1, x2, signed_decision),
                "AnnualSalary": x1,
                "AccountBalance": x2,
                "u1": u1,
                "u2": u2,
                "Gender": gender,
            },
            columns=LOAN_COLUMNS,
        )

    factual = world(a)
    if drop_negative:
        keep = ((factual["AnnualSalary"] >= 0) & (factual["AccountBalance"] >= 0)).to_numpy()
        factual = factual[keep].reset_index(drop=True)
    if not return_counterfactual:
        return factual
    cf = world(np.zeros(n, dtype=np.int64))
    if drop_negative:
        cf = cf[keep].reset_index(drop=True)
    return factual, cf


def loan_world_data(n: int = 5000, seed: int | np.random.Generator | None = 0) -> AuditData:
    """:func:`make_loan_world` wrapped with its roles: the two numeric features, women
    (``Gender = 1``) protected, ``LoanApproval`` the decision (1 = favourable).

    Examples
    --------
    >>> data = loan_world_data(n=300, seed=1)
    >>> data.feature_names, list(data.protected), data.decision
    (['AnnualSalary', 'AccountBalance'], ['Gender'], 'LoanApproval')
    """
    return AuditData(
        make_loan_world(n=n, seed=seed),
        features={"AnnualSalary": "numeric", "AccountBalance": "numeric"},
        protected={"Gender": 1},
        decision="LoanApproval",
    )
