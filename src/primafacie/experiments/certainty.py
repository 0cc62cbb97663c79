"""Reproductions of Duong & Conrad (ECAI 2024), Tables 1-3: ``certainty-hiring``,
``certainty-synthetic`` and ``certainty-compas``.

Tables 1 and 2 are deterministic functions of counts and match the paper to 3 decimals.
Table 3 cannot be reproduced exactly: the paper publishes neither its COMPAS features nor its
preprocessing, hyperparameters or seed. Our protocol (documented in :func:`run_compas`):
the authors' fairdo feature set without race (race is the protected attribute only),
one-hot categoricals, scikit-learn default estimators,
``train_test_split(test_size=0.2, random_state=seed)`` (not stratified), statistical parity
on the test predictions with "not rearrested" (Ŷ = 0) as the favourable event, six race groups.

``compare_hiring``, ``compare_synthetic`` and ``compare_compas`` put the printed numbers next to
ours (``NAME-vs-paper.csv``): Tables 1 and 2 within half a unit of the printed digit (plus the
spec's 6-decimal values), Table 3 as reference only apart from the paper's findings (Asian most
and Native American least privileged, LR selected) and the test-set size.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..certainty import CertaintyRanking, score_counts, synthetic_grid
from ..errors import InputError
from .compare import Check, check, comparison_frame, read_run_csv
from .shared_doc import compare_doc

__all__ = [
    "run_hiring",
    "run_synthetic",
    "run_compas",
    "compas_models",
    "compare_hiring",
    "compare_synthetic",
    "compare_compas",
    "HIRING_COUNTS",
    "PAPER_TABLE1",
    "PAPER_TABLE2",
    "PAPER_TABLE3",
]

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
        counts[:, [1, 3]], counts[:, [0, 2]], names=names, groups=["yellow", "blue"],
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
    audit = CertaintyRanking(
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


# ---------------------------------------------------------------------- ours vs paper
#: Table 1 as printed: recruiter -> (n_i, k_i, n_j, k_j, p_i, p_j, disparity, uncertainty, utility).
PAPER_TABLE1 = {
    "A": (3, 3, 3, 0, 1.00, 0.00, 1.000, 0.480, -0.629),
    "B": (1, 1, 1, 0, 1.00, 0.00, 1.000, 1.000, -0.414),
}
#: Table 2 as printed: rank -> (n_i, k_i, n_j, k_j, disparity, uncertainty, utility); the
#: p-hat columns are k/n of the printed counts.
PAPER_TABLE2 = {
    1: (50, 50, 50, 50, 0.000, 0.006, 0.994),
    2: (50, 0, 50, 0, 0.000, 0.006, 0.994),
    3: (50, 49, 50, 49, 0.000, 0.013, 0.988),
    4: (50, 1, 50, 1, 0.000, 0.013, 0.988),
    4897: (50, 0, 50, 49, 0.980, 0.009, -0.958),
    4898: (50, 49, 50, 0, 0.980, 0.009, -0.958),
    4899: (50, 50, 50, 0, 1.000, 0.006, -0.994),
    4900: (50, 0, 50, 50, 1.000, 0.006, -0.994),
}
#: §6.1: number of synthetic decision-makers ((2 + 6 + 11 + 51)^2; Table 2's last rank).
PAPER_N_SYNTHETIC = 4900
#: Table 3 as printed: model -> (most privileged, least privileged, n_i, k_i, n_j, k_j, p_i, p_j,
#: disparity, uncertainty, utility, accuracy), in the paper's (utility) order.
PAPER_TABLE3 = {
    "LR": ("Asian", "Native American", 6, 6, 4, 2, 1.0, 0.5, 0.500, 0.431, 0.0, 0.72),
    "KNN": ("Asian", "Native American", 6, 5, 4, 0, 0.8333, 0.0, 0.833, 0.366, -0.508, 0.6681),
    "SVM": ("Asian", "Native American", 6, 6, 4, 0, 1.0, 0.0, 1.000, 0.288, -0.753, 0.7110),
    "RF": ("Asian", "Native American", 6, 6, 4, 0, 1.0, 0.0, 1.000, 0.288, -0.753, 0.7020),
}
#: §6.2: 7,214 samples, 80/20 split.
PAPER_COMPAS_N, PAPER_TEST_SHARE = 7214, 0.2
#: §6.2 text: the selected model (highest utility, and highest accuracy).
PAPER_COMPAS_SELECTED = "LR"

#: The paper prints 3 decimals (2 for percentages): half a unit of the last printed digit.
_TOL3 = 0.0005
_TOL_PCT = 0.005
_TOL4, _TOL5, _TOL6 = 0.00005, 0.000005, 0.0000005  # the spec's 4, 5 and 6 decimals
#: spec §5.2/§7 [derived]: (n_i, k_i, n_j, k_j) -> (uncertainty, utility) to 6 decimals.
SPEC_TABLE2_EXACT = {
    (50, 50, 50, 50): (0.006406, 0.993615),
    (50, 49, 50, 49): (0.012560, 0.987519),
    (50, 0, 50, 49): (0.009483, -0.957912),
    (50, 50, 50, 0): (0.006406, -0.993615),
}
#: spec §5.2 [derived]: how many DMs share the utility of each printed tie.
SPEC_TABLE2_TIES = {
    (50, 50, 50, 50): 2,
    (50, 49, 50, 49): 2,
    (50, 0, 50, 49): 4,
    (50, 50, 50, 0): 2,
}
_COUNT_COLUMNS = ("n_i", "k_i", "n_j", "k_j")
_DM_COLUMNS = ("disparity", "uncertainty", "utility")


@compare_doc(
    "``certainty-hiring.csv``",
    ":func:`run_hiring`",
    "Reproduce options (``legacy`` changes nothing here).",
    " (21 rows)",
)
def compare_hiring(out_dir: Path, data_dir: Path | None = None, **options: Any) -> pd.DataFrame:
    """Table 1 (recruiters A and B) next to ours.

    Counts are exact; p-hat, disparity, uncertainty and utility are within half a unit of the
    paper's last printed digit (spec §7: all rows match to 3 decimals). One more row checks
    the paper's conclusion, B preferred to A; two ``spec §7 [derived]`` rows check the
    utilities to the CSV's 6 decimals (-0.629234 and 1 - sqrt(2)).

    {{compare}}

    Examples
    --------
    >>> import tempfile
    >>> out = Path(tempfile.mkdtemp())
    >>> _ = run_hiring(None, out)
    >>> compare_hiring(out).status.value_counts().to_dict()
    {'exact': 18, 'within tolerance': 3}
    """
    t = read_run_csv(out_dir, "certainty-hiring.csv").set_index("recruiter")
    cols = (*_COUNT_COLUMNS, "p_i", "p_j", *_DM_COLUMNS)
    rows: list[Check] = []
    for name, printed in PAPER_TABLE1.items():
        for col, paper in zip(cols, printed, strict=True):
            ours = t.loc[name, col]
            if col in _COUNT_COLUMNS:
                rows.append(check("Table 1", f"recruiter {name} {col}", int(ours), paper))
            else:
                tol = _TOL_PCT if col in ("p_i", "p_j") else _TOL3
                rows.append(
                    check(
                        "Table 1",
                        f"recruiter {name} {col}",
                        float(ours),
                        paper,
                        tol=tol,
                        note="paper rounds to the printed digits",
                    )
                )
    best = str(t["rank"].idxmin())
    rows.append(check("§6 text", "preferred recruiter (highest utility)", best, "B"))
    for name, paper, text in (("A", -0.629234, "-0.629234"), ("B", 1 - np.sqrt(2), "1 - sqrt(2)")):
        rows.append(
            check(
                "spec §7 [derived]",
                f"recruiter {name} utility (6 decimals)",
                float(t.loc[name, "utility"]),
                float(paper),
                tol=_TOL6,
                note=f"{text}; the CSV holds 6 decimals",
            )
        )
    return comparison_frame(rows)


def _rank_check(quantity: str, ours: pd.DataFrame, paper_rank: int) -> Check:
    """The paper's rank against the ranks our tie group occupies (competition ranking)."""
    lo = int(ours["rank"].iloc[0])
    hi = lo + int(ours["tie_size"].iloc[0]) - 1
    text = str(lo) if lo == hi else f"{lo}-{hi}"
    if lo == hi == paper_rank:
        return Check("Table 2", quantity, text, str(paper_rank), "exact", "exact", "")
    if lo <= paper_rank <= hi:
        return Check(
            "Table 2",
            quantity,
            text,
            str(paper_rank),
            "within tolerance",
            "tie range",
            f"{hi - lo + 1} decision-makers tie; order inside a tie is arbitrary "
            "(the paper's comes from an unstable sort, spec §6)",
        )
    return Check("Table 2", quantity, text, str(paper_rank), "differs", "tie range", "")


@compare_doc(
    "``certainty-synthetic.csv``",
    ":func:`run_synthetic`",
    "Reproduce options (``legacy`` changes nothing here).",
    " (50 rows)",
)
def compare_synthetic(out_dir: Path, data_dir: Path | None = None, **options: Any) -> pd.DataFrame:
    """Table 2 (top 4 and bottom 4 of the 4,900 synthetic decision-makers) next to ours.

    Each printed row is found in ours by its counts (n_i, k_i, n_j, k_j); its rank, disparity,
    uncertainty and utility are then compared (3 decimals as printed, spec §7). The rank is
    ``within tolerance`` when the paper's rank lies inside the ranks our tied group occupies
    (ranks 1-2, 3-4, 4895-4898 and 4899-4900 are ties; spec §5.2). p-hat is k/n of the
    matched counts and is not repeated. One more row checks the number of decision-makers
    (§6.1). Rows ``spec §5.2 [derived]`` check the spec's exact values: the printed DMs'
    uncertainty and utility to 6 decimals, the tie sizes (2, 2, 4, 2), ranks 5-6, the mean
    and median utility (4 decimals) and the 120 DMs with disparity 0.5.

    {{compare}}

    Examples
    --------
    >>> import tempfile
    >>> out = Path(tempfile.mkdtemp())
    >>> _ = run_synthetic(None, out)
    >>> compare_synthetic(out).status.value_counts().to_dict()
    {'within tolerance': 27, 'exact': 23}
    """
    t = read_run_csv(out_dir, "certainty-synthetic.csv")
    t = t.assign(tie_size=t.groupby("rank")["rank"].transform("size"))
    rows = [check("§6.1 text", "number of decision-makers", len(t), PAPER_N_SYNTHETIC)]
    for rank, (ni, ki, nj, kj, *dm) in PAPER_TABLE2.items():
        key = f"({ni},{ki},{nj},{kj})"
        hit = _counts_row(t, ni, ki, nj, kj)
        if hit.empty:
            rows.append(check("Table 2", f"{key} rank", "missing", rank))
            continue
        rows.append(_rank_check(f"{key} rank", hit, rank))
        for col, paper in zip(_DM_COLUMNS, dm, strict=True):
            rows.append(
                check(
                    "Table 2",
                    f"{key} {col}",
                    float(hit[col].iloc[0]),
                    paper,
                    tol=_TOL3,
                    note="paper rounds to 3 decimals",
                )
            )
    rows += _synthetic_derived(t)
    return comparison_frame(rows)


def _counts_row(t: pd.DataFrame, ni: int, ki: int, nj: int, kj: int) -> pd.DataFrame:
    """The rows of ``t`` with these counts (a printed row is found by its counts, not its
    rank, since tied ranks may be printed in either order)."""
    return t[(t.n_i == ni) & (t.k_i == ki) & (t.n_j == nj) & (t.k_j == kj)]


def _synthetic_derived(t: pd.DataFrame) -> list[Check]:
    """Spec §5.2/§7 [derived]: Table 2's values to 6 decimals, the ties and grid summaries."""
    rows: list[Check] = []
    tag = "spec §5.2 [derived]"
    for key, (unc, util) in SPEC_TABLE2_EXACT.items():
        ni, ki, nj, kj = key
        hit = _counts_row(t, ni, ki, nj, kj)
        ours_u = float(hit["uncertainty"].iloc[0]) if len(hit) else float("nan")
        ours_v = float(hit["utility"].iloc[0]) if len(hit) else float("nan")
        name = f"({ni},{ki},{nj},{kj})"
        rows.append(check(tag, f"{name} uncertainty (6 decimals)", ours_u, unc, tol=_TOL6))
        rows.append(check(tag, f"{name} utility (6 decimals)", ours_v, util, tol=_TOL6))
    for key, size in SPEC_TABLE2_TIES.items():
        ni, ki, nj, kj = key
        hit = _counts_row(t, ni, ki, nj, kj)
        ours = int(hit["tie_size"].iloc[0]) if len(hit) else 0
        rows.append(
            check(
                tag, f"({ni},{ki},{nj},{kj}) tie size", ours, size, note="DMs sharing its utility"
            )
        )
    fifth = t[t["rank"] == 5]
    rows.append(
        check(
            tag,
            "ranks 5-6 (k_i = k_j, n = 50)",
            ", ".join(sorted(f"({a},{b})" for a, b in fifth[["k_i", "k_j"]].to_numpy())),
            "(2,2), (48,48)",
        )
    )
    rows.append(check(tag, "ranks 5-6 utility", float(fifth["utility"].iloc[0]), 0.98171,
                      tol=_TOL5))  # fmt: skip
    u = t["utility"]
    rows.append(check(tag, "mean utility", float(u.mean()), 0.2624, tol=_TOL4))
    rows.append(check(tag, "median utility", float(u.median()), 0.3460, tol=_TOL4))
    half = int(np.isclose(t["disparity"], 0.5, atol=1e-9).sum())
    rows.append(check(tag, "DMs with disparity 0.5 (u = 0)", half, 120))
    return rows


@compare_doc(
    "``certainty-compas.csv``",
    ":func:`run_compas`",
    "Reproduce options (``seed`` is reflected in the CSV; it is named in the notes).",
    " (51 rows)",
)
def compare_compas(out_dir: Path, data_dir: Path | None = None, **options: Any) -> pd.DataFrame:
    """Table 3 (four COMPAS models) next to ours.

    Exact counts are not reproducible (spec §5.3: features, preprocessing, hyperparameters and
    seed are unpublished; acceptance checks structure only), so the counts, rates, decision-maker
    coordinates, utilities, accuracies and the ranking are ``reference only``. Checked: the
    test-set size (20 % of 7,214, within one row), the paper's findings that Asian is the most
    and Native American the least privileged group for every model, and that LR is selected.

    {{compare}}

    Examples
    --------
    >>> _ = run_compas(None, Path("out"))  # doctest: +SKIP
    >>> compare_compas(Path("out")).status.value_counts()  # doctest: +SKIP
    """
    t = read_run_csv(out_dir, "certainty-compas.csv").set_index("model")
    seed = options.get("seed")
    seed_text = f"seed {COMPAS_SEED if seed is None else int(seed)}"
    unpublished = f"features, preprocessing and seed unpublished (ours: {seed_text}); spec §5.3"
    rows: list[Check] = []
    test_n = int(t["accuracy_n"].iloc[0])
    rows.append(
        check(
            "§6.2 text",
            "test-set size (20% of 7,214)",
            test_n,
            round(PAPER_TEST_SHARE * PAPER_COMPAS_N, 1),
            tol=1.0,
            note="train_test_split rounds the test share up",
        )
    )
    cols = (
        "most_privileged",
        "least_privileged",
        *_COUNT_COLUMNS,
        "p_i",
        "p_j",
        *_DM_COLUMNS,
        "accuracy",
    )
    for model, printed in PAPER_TABLE3.items():
        for col, paper in zip(cols, printed, strict=True):
            ours = t.loc[model, col]
            if col in ("most_privileged", "least_privileged"):
                note = "paper's finding (Asian most, Native American least, every model)"
                if str(ours) != paper:
                    n = int(t.loc[model, "n_i" if col == "most_privileged" else "n_j"])
                    note = f"{ours}: {n} test rows; tiny groups make it fragile ({seed_text})"
                rows.append(check("Table 3", f"{model} {col}", str(ours), paper, note=note))
            else:
                ours = int(ours) if col in _COUNT_COLUMNS else float(ours)
                rows.append(
                    check(
                        "Table 3",
                        f"{model} {col}",
                        ours,
                        paper,
                        reference_only=True,
                        note=unpublished,
                    )
                )
    by_utility = t.sort_values(["rank", "accuracy"], ascending=[True, False])
    groups = [
        " = ".join(sorted(g.index, key=list(by_utility.index).index))
        for _, g in by_utility.groupby("rank", sort=True)
    ]
    rows.append(
        check(
            "Table 3",
            "ranking by utility",
            " > ".join(groups),
            "LR > KNN > SVM = RF",
            reference_only=True,
            note=f"{unpublished}; driven by the tiny Asian and Native American "
            "test groups (over seeds 0-9 our selected model was LR 4x, SVM 3x, "
            "RF 3x)",
        )
    )
    selected = t.index[t["selected"].astype(bool)].tolist()
    rows.append(
        check(
            "§6.2 text",
            "selected model (utility, then accuracy)",
            ", ".join(selected),
            PAPER_COMPAS_SELECTED,
            note=f"paper's finding; fragile across seeds ({seed_text})",
        )
    )
    return comparison_frame(rows)
