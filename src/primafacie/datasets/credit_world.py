"""The demo credit world: a seeded structural causal model of a loan market and its deciders.

The generator is ours (no external data). Its structural equations, in topological order
(``N(·)`` is independent Gaussian noise, ``minority`` = race in {black, hispanic}):

=============  ==============================================================================
node           equation
=============  ==============================================================================
gender         female with probability 0.5 (exogenous, protected)
race           white 0.60 / black 0.22 / hispanic 0.18 (exogenous, protected)
age            21 + Gamma(shape 4, scale 5), rounded, capped at 75 (exogenous)
loan_amount    5 + Gamma(shape 3, scale 5) thousand, rounded to 0.1 (exogenous)
region         categorical urban / suburban / rural; minority applicants live more often in
               urban areas (multinomial logit on race)
education      ordinal primary < secondary < tertiary < postgraduate; a latent score
               ``0.5·[urban] + 0.3·[suburban] − 0.6·minority + N(0, 1)`` cut at fixed points
employment     categorical permanent / temporary / self_employed; women and minority applicants
               are more often in temporary jobs, education raises the odds of a permanent one
income         ``18 + 7·edu + 6·[permanent] − 3·[temporary] + 0.35·(age − 21) − 6·female
               − 5·minority + N(0, 6)`` thousand per year, floored at 5
savings        ``0.18·income + 0.12·(age − 21) − 2.5·minority + N(0, 3)``, floored at 0
repaid (Y)     Bernoulli(sigmoid(−1.2 + 0.06·income + 0.12·savings − 0.07·loan_amount
               + 0.6·[permanent] − 0.4·[temporary])); protected attributes act on Y only
               through income, savings and employment (no direct edge)
human          a noisy loan officer: approves when ``0.05·income + 0.1·savings − 0.06·loan
               − 0.5·female + N(0, 0.8) > 0.6`` (direct, illegal use of gender)
=============  ==============================================================================

The decision-makers trained on the world (:func:`train_decision_makers`) are a logistic
regression and a gradient-boosting classifier fitted to Y on the non-protected features, and a
hand-written scorecard rule (:data:`SCORECARD_RULE`) that penalises urban applicants — a proxy
for race ("redlining"). With the ``human`` column that makes four decision-makers to rank.

Examples
--------
>>> frame = generate_credit_world(n=200, seed=1)
>>> sorted(frame.columns)[:4]
['age', 'education', 'employment', 'gender']
>>> int(frame["gender"].isin(["female", "male"]).all())
1
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from ..errors import InputError
from ..io import atomic_write_bytes, atomic_write_csv, atomic_write_text

__all__ = [
    "CREDIT_EDGES",
    "CREDIT_FEATURES",
    "CREDIT_PROTECTED",
    "EDUCATION_LEVELS",
    "SCORECARD_RULE",
    "DEFAULT_N",
    "generate_credit_world",
    "train_decision_makers",
    "write_demo_inputs",
    "demo_config",
]

#: Default population size of ``primafacie demo`` (the whole audit runs in well under 2 minutes
#: on a 2-core machine at this size; see ``benchmarks/demo.py``).
DEFAULT_N = 3000

EDUCATION_LEVELS = ["primary", "secondary", "tertiary", "postgraduate"]
REGIONS = ["urban", "suburban", "rural"]
EMPLOYMENT = ["permanent", "temporary", "self_employed"]

#: Non-protected features with the kinds :class:`~primafacie.data.AuditData` takes.
CREDIT_FEATURES: dict[str, Any] = {
    "income": "numeric",
    "savings": "numeric",
    "loan_amount": "numeric",
    "age": "numeric",
    "employment": "categorical",
    "education": {"ordinal": EDUCATION_LEVELS},
    "region": "categorical",
}
#: Protected attributes and their protected values.
CREDIT_PROTECTED: dict[str, Any] = {"gender": "female", "race": ["black", "hispanic"]}

#: The causal DAG of the generator (parent, child); protected attributes have no parents.
CREDIT_EDGES: list[tuple[str, str]] = [
    ("race", "region"),
    ("race", "education"),
    ("region", "education"),
    ("gender", "employment"),
    ("race", "employment"),
    ("education", "employment"),
    ("gender", "income"),
    ("race", "income"),
    ("education", "income"),
    ("employment", "income"),
    ("age", "income"),
    ("race", "savings"),
    ("income", "savings"),
    ("age", "savings"),
]

#: A biased scorecard: sensible on income and savings, but it docks urban applicants, a
#: proxy for race in this world.
SCORECARD_RULE = "income + 2 * savings - 0.8 * loan_amount > 20 and region != 'urban'"

_NUMERIC = ["income", "savings", "loan_amount", "age"]
_CATEGORICAL = ["employment", "region"]


def _softmax_draw(rng: np.random.Generator, logits: np.ndarray, labels: list[str]) -> np.ndarray:
    """One categorical draw per row from row-wise logits, vectorised (inverse CDF)."""
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    u = rng.random(len(p))[:, None]
    idx = (u > np.cumsum(p, axis=1)).sum(axis=1)
    return np.asarray(labels, dtype=object)[np.minimum(idx, len(labels) - 1)]


def generate_credit_world(
    n: int = DEFAULT_N, seed: int = 0, officer_bias: float = 0.5
) -> pd.DataFrame:
    """Draw ``n`` loan applicants from the credit-world SCM.

    Parameters
    ----------
    n
        Number of applicants (at least 50, so every group has members).
    seed
        Seed of the single random generator every draw comes from.
    officer_bias
        How much the loan officer (column ``human``) docks a female applicant's score (0.5 in
        the module's equations). Every other draw is the same for any value, so two worlds of
        one seed hold the same people and differ only in the officer's decisions (used to test
        audits over time).

    Returns
    -------
    pandas.DataFrame
        Columns ``id, gender, race, age, region, education, employment, income, savings,
        loan_amount, repaid, human``; ``repaid`` is the true outcome Y (1 = repays) and
        ``human`` the loan officer's decision (1 = approve).

    Examples
    --------
    >>> df = generate_credit_world(500, seed=3)
    >>> len(df), bool(df["repaid"].isin([0, 1]).all())
    (500, True)
    """
    if not isinstance(n, (int, np.integer)) or n < 50:
        raise InputError(f"n must be an integer of at least 50 applicants, got {n!r}")
    rng = np.random.default_rng(seed)
    female = rng.random(n) < 0.5
    race = _softmax_draw(
        rng, np.log(np.tile([0.60, 0.22, 0.18], (n, 1))), ["white", "black", "hispanic"]
    )
    minority = (race != "white").astype(float)
    age = np.minimum(np.round(21 + rng.gamma(4.0, 5.0, n)), 75)
    loan = np.round(5 + rng.gamma(3.0, 5.0, n), 1)

    region_logits = np.column_stack([0.9 * minority, np.zeros(n), 0.2 - 0.6 * minority])
    region = _softmax_draw(rng, region_logits, REGIONS)

    latent = 0.5 * (region == "urban") + 0.3 * (region == "suburban") - 0.6 * minority
    latent = latent + rng.normal(0.0, 1.0, n)
    edu = np.searchsorted(np.array([-0.8, 0.5, 1.6]), latent)  # 0..3
    education = np.asarray(EDUCATION_LEVELS, dtype=object)[edu]

    emp_logits = np.column_stack(
        [0.6 * edu - 0.5 * female - 0.4 * minority, 0.4 * female + 0.3 * minority, -0.8 + 0.1 * edu]
    )
    employment = _softmax_draw(rng, emp_logits, EMPLOYMENT)

    income = (
        18
        + 7 * edu
        + 6 * (employment == "permanent")
        - 3 * (employment == "temporary")
        + 0.35 * (age - 21)
        - 6 * female
        - 5 * minority
        + rng.normal(0.0, 6.0, n)
    )
    income = np.round(np.maximum(income, 5.0), 1)
    savings = 0.18 * income + 0.12 * (age - 21) - 2.5 * minority + rng.normal(0.0, 3.0, n)
    savings = np.round(np.maximum(savings, 0.0), 1)

    logit = (
        -1.2
        + 0.06 * income
        + 0.12 * savings
        - 0.07 * loan
        + 0.6 * (employment == "permanent")
        - 0.4 * (employment == "temporary")
    )
    repaid = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.int8)
    officer = (
        0.05 * income + 0.1 * savings - 0.06 * loan - officer_bias * female + rng.normal(0, 0.8, n)
    )
    human = (officer > 0.6).astype(np.int8)

    return pd.DataFrame(
        {
            "id": np.arange(1, n + 1),
            "gender": np.where(female, "female", "male"),
            "race": race.astype(str),
            "age": age.astype(int),
            "region": region.astype(str),
            "education": education.astype(str),
            "employment": employment.astype(str),
            "income": income,
            "savings": savings,
            "loan_amount": loan,
            "repaid": repaid,
            "human": human,
        }
    )


def _preprocessor() -> Any:
    from sklearn.compose import ColumnTransformer
    from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder, StandardScaler

    return ColumnTransformer(
        [
            ("num", StandardScaler(), _NUMERIC),
            ("cat", OneHotEncoder(handle_unknown="ignore"), _CATEGORICAL),
            (
                "ord",
                OrdinalEncoder(
                    categories=[EDUCATION_LEVELS],
                    handle_unknown="use_encoded_value",
                    unknown_value=-1,
                ),
                ["education"],
            ),
        ]
    )


def train_decision_makers(frame: pd.DataFrame, seed: int = 0) -> dict[str, Any]:
    """Fit the two learned decision-makers on Y (``repaid``) from the non-protected features.

    Parameters
    ----------
    frame
        A table from :func:`generate_credit_world`.
    seed
        Seed of the gradient-boosting subsampling.

    Returns
    -------
    dict
        ``{"lr": Pipeline, "gb": Pipeline}``; both take a DataFrame with the feature columns and
        predict 1 (approve) or 0 (reject).

    Examples
    --------
    >>> models = train_decision_makers(generate_credit_world(300, seed=0))
    >>> sorted(models)
    ['gb', 'lr']
    """
    from sklearn.ensemble import GradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import Pipeline

    X = frame[list(CREDIT_FEATURES)]
    y = frame["repaid"].to_numpy()
    lr = Pipeline([("prep", _preprocessor()), ("clf", LogisticRegression(max_iter=1000))])
    gb = Pipeline(
        [
            ("prep", _preprocessor()),
            (
                "clf",
                GradientBoostingClassifier(
                    n_estimators=80, max_depth=3, subsample=0.8, random_state=seed
                ),
            ),
        ]
    )
    return {"lr": lr.fit(X, y), "gb": gb.fit(X, y)}


def demo_config(n: int) -> dict[str, Any]:
    """The ``audit.yaml`` of the demo, as a mapping (paths relative to the demo folder).

    The audited decision b() is the logistic regression; the certainty analysis ranks all four
    decision-makers. Situation testing uses k = 15 and 30 at the demo size.
    """
    k = [15, 30] if n >= 400 else [5, 10]
    return {
        "data": "inputs/credit_world.csv",
        "id": "id",
        "decision": {"model": "inputs/lr.skops"},
        "favorable": 1,
        "outcome": "repaid",
        "outcome_favorable": 1,
        "features": CREDIT_FEATURES,
        "protected": CREDIT_PROTECTED,
        "causal": {"edges": [list(e) for e in CREDIT_EDGES], "mechanism": "linear"},
        "analyses": {
            # on by default; shown so the demo file documents every section
            "groups": {"min_group": 30, "alpha": 0.05, "intersections": "all"},
            "situation": {
                "k": k,
                "alpha": 0.05,
                "tau": 0.0,
                "methods": ["st", "cst", "cst_centers", "cf"],
                "dimensions": ["single", "multiple", "intersectional"],
            },
            "recourse": {
                "support": 0.05,
                "phi": [0.3, 0.7],
                "metrics": "all",
                "immutable": ["age"],
                "protected": "gender",
                "top": 5,
            },
            "principal": {"definitions": [1, 2], "covariates": [], "protected": "gender"},
            "certainty": {
                "criterion": "statistical_parity",
                "decision_makers": {
                    "logistic_regression": {"model": "inputs/lr.skops"},
                    "gradient_boosting": {"model": "inputs/gb.skops"},
                    "scorecard": {"rule": SCORECARD_RULE},
                    "loan_officer": {"column": "human"},
                },
            },
        },
        "compute": {"backend": "local"},
        "seed": 0,
    }


_YAML_HEADER = """\
# primafacie demo audit: the generated credit world (see primafacie.datasets.credit_world).
# Re-run it from this folder with:  primafacie audit audit.yaml --out rerun
# Paths are relative to this file. Every key is documented by `primafacie schema`.
"""


def write_demo_inputs(folder: str | os.PathLike, n: int = DEFAULT_N, seed: int = 0) -> Path:
    """Generate the world, train the models and write the demo inputs into ``folder``.

    Writes ``inputs/credit_world.csv``, ``inputs/lr.skops``, ``inputs/gb.skops`` and
    ``audit.yaml``. ``folder`` is normally a staging folder of
    :func:`~primafacie.io.atomic_output_dir`.

    Parameters
    ----------
    folder
        Destination folder.
    n, seed
        Population size and seed of :func:`generate_credit_world`.

    Returns
    -------
    pathlib.Path
        The written ``audit.yaml``.
    """
    from ..modelfiles import skops_bytes

    folder = Path(folder)
    frame = generate_credit_world(n, seed)
    models = train_decision_makers(frame, seed)
    atomic_write_csv(folder / "inputs" / "credit_world.csv", frame)
    for name, model in models.items():
        # skops, not pickle: the demo's models load without trusting code (docs/security.md)
        atomic_write_bytes(folder / "inputs" / f"{name}.skops", skops_bytes(model))
    cfg = demo_config(n)
    cfg["seed"] = int(seed)
    text = _YAML_HEADER + yaml.safe_dump(cfg, sort_keys=False, default_flow_style=None, width=100)
    return atomic_write_text(folder / "audit.yaml", text)
