"""Reproductions of Duong & Conrad (ECAI 2024), Tables 1-3: ``certainty-hiring``,
``certainty-synthetic`` and ``certainty-compas``.

Tables 1 and 2 are deterministic functions of counts and match the paper to 3 decimals.
Table 3 cannot be reproduced exactly: the paper publishes neither its COMPAS features nor its
preprocessing, hyperparameters or seed. Our protocol (documented in :func:`run_compas`):
the authors' fairdo feature set without race (race is the protected attribute only),
one-hot categoricals, scikit-learn default estimators,
``train_test_split(test_size=0.2, random_state=seed)`` (not stratified), statistical parity
on the test predictions with "not rearrested" (Ŷ = 0) as the favourable event, six race groups.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..certainty import CertaintyAudit, score_counts, synthetic_grid
from ..errors import InputError

__all__ = ["run_hiring", "run_synthetic", "run_compas", "compas_models", "HIRING_COUNTS"]

#: Figure 1 / Table 1: recruiter -> (n_i, k_i, n_j, k_j) (yellow i, blue j).
HIRING_COUNTS = {"A": (3, 3, 3, 0), "B": (1, 1, 1, 0)}
#: Default seed of the COMPAS train/test split and of the random forest.
COMPAS_SEED = 0

_TABLE3_COLUMNS = [
    "model", "rank", "most_privileged", "least_privileged", "n_i", "k_i", "n_j", "k_j",
    "p_i", "p_j", "disparity", "uncertainty", "utility", "utility_norm", "accuracy",
    "accuracy_k", "accuracy_n", "selected",
]  # fmt: skip


def _only(options: dict[str, Any], allowed: set[str], name: str) -> None:
    extra = sorted(k for k, v in options.items() if k not in allowed | {"legacy"} and v is not None)
    if extra:
        raise InputError(f"reproduction {name!r} does not take option(s) {extra}")


def run_hiring(data_dir: Path | None, out_dir: Path, **options: Any) -> list[Path]:
    """Table 1: recruiters A (3+3 applicants) and B (1+1), statistical parity, u_topsis.

    Writes ``certainty-hiring.csv`` (columns ``recruiter, rank, n_i, k_i, n_j, k_j, p_i, p_j,
    disparity, uncertainty, utility``) in the paper's row order. ``legacy`` changes nothing
    (the paper and the authors' code agree here).
    """
    _only(options, set(), "certainty-hiring")
    names = list(HIRING_COUNTS)
    counts = np.array([HIRING_COUNTS[r] for r in names])
    res = score_counts(
        counts[:, [0, 2]], counts[:, [1, 3]], names=names, groups=["yellow", "blue"],
        ties="first",
    )  # fmt: skip
    table = res.to_frame().set_index("decision_maker").loc[names].reset_index()
    table = table.rename(columns={"decision_maker": "recruiter"})
    cols = ["recruiter", "rank", "n_i", "k_i", "n_j", "k_j", "p_i", "p_j", "disparity",
            "uncertainty", "utility"]  # fmt: skip
    path = Path(out_dir) / "certainty-hiring.csv"
    table[cols].to_csv(path, index=False, float_format="%.6f")
    return [path]


def run_synthetic(data_dir: Path | None, out_dir: Path, **options: Any) -> list[Path]:
    """Table 2: all 4,900 synthetic decision-makers, ranked by u_topsis (best first).

    Writes ``certainty-synthetic.csv`` with columns ``rank, n_i, k_i, n_j, k_j, disparity,
    uncertainty, utility``; ``rank`` is the competition rank (tied decision-makers share it,
    e.g. four rows share rank 4895 at utility -0.957912). ``legacy`` changes nothing: the
    authors' script's float truncation of k (which skips k = 29 for n = 50) is a bug the
    paper's Table 2 does not depend on.
    """
    _only(options, set(), "certainty-synthetic")
    grid = synthetic_grid()
    cols = ["rank", "n_i", "k_i", "n_j", "k_j", "disparity", "uncertainty", "utility"]
    path = Path(out_dir) / "certainty-synthetic.csv"
    grid[cols].to_csv(path, index=False, float_format="%.6f")
    return [path]


def compas_models(seed: int = COMPAS_SEED) -> dict[str, Any]:
    """The four Table 3 classifiers with scikit-learn defaults.

    Deviations from pure defaults, for determinism and convergence only: the random forest
    gets ``random_state=seed``; logistic regression gets ``max_iter=1000`` (lbfgs does not
    converge in the default 100 iterations on the unscaled counts).
    """
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.svm import SVC

    return {
        "LR": LogisticRegression(max_iter=1000),
        "KNN": KNeighborsClassifier(),
        "SVM": SVC(),
        "RF": RandomForestClassifier(random_state=seed),
    }


def compas_experiment(data_dir: Path | None, seed: int = COMPAS_SEED, legacy: bool = False):
    """Fit the four models on 80% of COMPAS and audit their test predictions.

    Returns
    -------
    CertaintyResult
        Statistical parity over the six race groups, favourable event Ŷ = 0 (not
        rearrested), u_topsis, accuracy as the tie-breaker (the paper's suggestion).
    """
    from sklearn.model_selection import train_test_split

    from ..datasets.compas import CERTAINTY_CATEGORICAL, CERTAINTY_FEATURES, load_compas_certainty

    df = load_compas_certainty(data_dir)
    X = pd.get_dummies(
        df[list(CERTAINTY_FEATURES)], columns=list(CERTAINTY_CATEGORICAL), dtype=float
    )
    y = df["two_year_recid"].to_numpy()
    idx_train, idx_test = train_test_split(np.arange(len(df)), test_size=0.2, random_state=seed)
    test = df.iloc[idx_test].reset_index(drop=True)
    preds = {}
    for name, model in compas_models(seed).items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X.iloc[idx_train].to_numpy(), y[idx_train])
        preds[name] = model.predict(X.iloc[idx_test].to_numpy())
    audit = CertaintyAudit(
        criterion="statistical_parity",
        protected="race",
        favorable=0,
        outcome="two_year_recid",
        outcome_favorable=0,
        tie_breaker="accuracy",
    )
    return audit.run(test, preds)


def run_compas(data_dir: Path | None, out_dir: Path, **options: Any) -> list[Path]:
    """Table 3: LR, KNN, SVM, RF on COMPAS, race with its six groups, 80/20 split.

    Writes ``certainty-compas.csv`` (columns ``model, rank, most_privileged,
    least_privileged, n_i, k_i, n_j, k_j, p_i, p_j, disparity, uncertainty, utility,
    utility_norm, accuracy, accuracy_k, accuracy_n, selected``), best first. Option ``seed`` (default 0) sets the split
    and the forest. Exact counts differ from the paper (features, preprocessing and seed are
    unpublished); see the module docstring.

    With seed 0 (fixed before looking at the result): Native American is the least privileged
    group for all four models and Asian the most privileged for LR, KNN and RF (SVM: Other);
    LR and RF tie at the top and accuracy selects LR, as in the paper. The outcome is driven
    by the ~6 Asian and ~4 Native American test rows and is fragile: over seeds 0-9 the
    selected model was LR 4 times, SVM 3, RF 3 — the small-group sensitivity the paper
    discusses in §7.
    """
    _only(options, {"seed"}, "certainty-compas")
    seed = options.get("seed")
    res = compas_experiment(data_dir, COMPAS_SEED if seed is None else int(seed))
    table = res.to_frame().rename(columns={"decision_maker": "model"})[_TABLE3_COLUMNS]
    path = Path(out_dir) / "certainty-compas.csv"
    table.to_csv(path, index=False, float_format="%.6f")
    return [path]
