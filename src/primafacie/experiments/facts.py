"""FACTS paper reproduction on Adult (protected sex or race), spec §6.1–6.3.

Setting: the paper's preprocessing (:func:`primafacie.datasets.adult.load_adult_facts`);
LogisticRegression (C=1, max_iter=1500) on one-hot categoricals with education-num, capital-gain
and capital-loss passed through unchanged. Stratified 70/30 split with seed 131313 of the rows
in adult.data-then-adult.test order; FACTS on the test split at support 0.01 with φ ∈ {0.3, 0.7}
and the automatic budgets. Cost weights of the paper's Table 2 (race and sex 100 as in the
reference code); feasibility: sex (and, by default, race) immutable, age and education-num may
not decrease, education-num may rise by at most 2 and age by at most 2 bins, no move to a
missing value. ``legacy=True`` follows the reference code: race may change in the sex audit
(weight 100) and FECT compares the lists index by index.

What was checked against the authors' notebook and libraries (review, 2026-11-22):

* Row order: the notebook's ``df.head()`` after ``clean_dataset`` shows adult.data's first rows
  (index 0..4), so the fairtest ``adult.csv`` is adult.data followed by adult.test; ``"?"`` rows
  are dropped after concatenation, which is row-wise and leaves the order of the kept rows
  unchanged. Its test-split label supports (10,205 / 3,362) equal ours, so adult.test's
  trailing ``"."`` was already stripped there (we strip it; whitespace via
  ``skipinitialspace``).
* Model inputs: OmniXAI ``TabularTransform`` = sklearn ``OneHotEncoder(handle_unknown="ignore")``
  (no dropped level, sorted categories) on the object/category columns (age bins, Workclass,
  marital-status, occupation, relationship, race, sex, hours-per-week bands, native-country)
  and ``Identity`` on education-num, capital-gain, capital-loss: the same features as ours. The
  L2 penalty is invariant to a permutation of columns, so category order does not change the
  optimum.
* Solver: sklearn 1.0.2's lbfgs minimises the *summed* objective Σ log-loss + ||w||²/2 and stops
  by scipy's relative-reduction test at iteration 621 (no ConvergenceWarning, as in the
  notebook). Recent scikit-learn averages the loss, so the same ``lbfgs`` call runs into
  max_iter instead. Emulating the 1.0.2 objective exactly (same column order, same
  ``L-BFGS-B`` options) gives 10,762 affected rows and 135 of 13,567 test predictions that
  differ from the exact optimum, but Table 1 moves no closer: SG2 ECE(0.7) becomes +inf and SG3's
  male Exec-managerial effectiveness 31.11% (paper 39.74%). We therefore fit the exact
  optimum (``newton-cholesky``, independent of the optimiser path and library version).
* Legacy feasibility (race mutable at weight 100) leaves every Table 1 rank-1 cell unchanged;
  it moves the counts to those of the reference code (valid pairs 105,610 vs its measured
  106,051; ours by default 99,967) and the budgets to {5.15, 10, 20} (paper ≈ {5.08, 10, 18}).
* The authors' declared environment (``conda_env.yml``: Python 3.9, scikit-learn 1.1.3, scipy
  1.11.3, numpy 1.24.2, pandas 1.5.3, OmniXAI 1.2.5), running the notebook's steps
  (``tools/facts_authors_env.py``, measured 2026-11-22): lbfgs stops after 504 iterations,
  accuracy 0.8483, 10,753 affected. SG1's best action (marry) flips 35/68 women and 29/67 men,
  exactly as with our optimum, so ECE(0.7) is Fair there too; audited here, that model also
  puts SG2 under ECR(0.7) at rank 3, score 4, against Female, as ours; SG3 ECE(0.3) becomes
  Fair (its men reach only 18/83 = 21.69% with Exec-managerial, paper 39.74%), one cell further
  from the paper than our optimum.

Not reproducible: Table 1 SG1 under ECE(0.7) (paper: rank 1, +inf against Male) and SG2 under
ECR(0.7) (paper: rank 1, score 6). Fig. 3's own numbers cannot come from one run on this data:
female coverage is |G ∩ D_F| / |D_F| with one denominator, yet SG1 (43/61 = 70.49% at 1.47%)
needs |D_F| in [4136, 4163] and SG2 (38/51 = 74.51% at 3.51%) needs |D_F| ≈ 1,453; the test
split holds only 60 SG2 women, and a classifier with accuracy ≥ 0.845 leaves at least 1,837
women affected, so 3.51% is out of reach for any such model
(``tests/reproduce/test_facts.py::test_paper_fig3_coverages_are_not_one_affected_set``).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import Pipeline

from ..datasets.adult import load_adult_facts
from ..errors import InputError
from ..io import atomic_write_csv
from .shared_doc import compare_doc

__all__ = [
    "OneHotCodes",
    "ADULT_WEIGHTS",
    "ADULT_TABLE1",
    "adult_setting",
    "fit_adult_model",
    "run_adult_audit",
    "write_adult_outputs",
    "run_adult",
    "compare_adult",
    "PAPER_TABLE12",
    "PAPER_BUDGETS",
    "PAPER_CELLS",
]

ADULT_WEIGHTS = {
    "race": 100, "sex": 100, "marital-status": 5, "relationship": 5, "age": 10, "occupation": 4,
    "Workclass": 2, "native-country": 4, "hours-per-week": 2, "capital-gain": 1,
    "capital-loss": 1, "education-num": 3,
}  # fmt: skip
NUMERIC = ("education-num", "capital-gain", "capital-loss")

#: Table 1 subgroups of the paper (Adult, protected = sex).
ADULT_TABLE1 = (
    "age=(41, 50]; marital-status=Never-married; race=White; relationship=Not-in-family",
    "Workclass=Private; hours-per-week=FullTime; marital-status=Married-civ-spouse; "
    "occupation=Adm-clerical; race=White",
    "age=(41, 50]; occupation=Sales",
)


class OneHotCodes(TransformerMixin, BaseEstimator):
    """One-hot encode categorical columns (sparse), pass numeric columns through.

    Equivalent to scikit-learn's ``OneHotEncoder(handle_unknown="ignore")`` + passthrough, but
    reads pandas ``Categorical`` codes directly, which keeps millions of FACTS predictions fast.

    Parameters
    ----------
    numeric
        Columns passed through as numbers; every other column is one-hot encoded.
    """

    def __init__(self, numeric: tuple[str, ...] = ()) -> None:
        self.numeric = numeric

    def fit(self, X: pd.DataFrame, y: Any = None) -> OneHotCodes:
        self.columns_ = list(X.columns)
        self.feature_names_in_ = np.asarray(self.columns_, dtype=object)
        self.categories_ = {}
        for c in self.columns_:
            if c in self.numeric:
                continue
            col = X[c]
            if isinstance(col.dtype, pd.CategoricalDtype):
                cats = [str(v) for v in col.cat.categories]
            else:
                cats = sorted(pd.unique(col.astype(str)))
            self.categories_[c] = cats
        return self

    def transform(self, X: pd.DataFrame) -> sparse.csr_matrix:
        n = len(X)
        blocks = []
        for c in self.columns_:
            col = X[c]
            if c in self.numeric:
                blocks.append(sparse.csr_matrix(col.to_numpy(dtype=float).reshape(-1, 1)))
                continue
            index = pd.Index(self.categories_[c])
            cats = self.categories_[c]
            if isinstance(col.dtype, pd.CategoricalDtype):
                # map the column's own categories once, then its codes (unknown -> -1)
                lookup = np.append(index.get_indexer(col.cat.categories.astype(str)), -1)
                raw = col.cat.codes.to_numpy()
                codes = lookup[np.where(raw < 0, len(lookup) - 1, raw)]
            else:
                codes = index.get_indexer(col.astype(str))
            ok = codes >= 0
            rows = np.flatnonzero(ok)
            blocks.append(
                sparse.csr_matrix((np.ones(len(rows)), (rows, codes[ok])), shape=(n, len(cats)))
            )
        return sparse.hstack(blocks, format="csr")


def adult_setting(protected: str = "sex") -> tuple[pd.DataFrame, str]:
    """Validate the protected attribute name (``sex`` or ``race``)."""
    if protected not in ("sex", "race"):
        raise InputError(f"facts-adult: protected must be 'sex' or 'race', got {protected!r}")
    return protected


def fit_adult_model(
    data_dir: Path | None = None, seed: int = 131313, protected: str = "sex"
) -> tuple[Pipeline, pd.DataFrame, pd.DataFrame, pd.Series, pd.Series]:
    """Load Adult, split 70/30 (stratified, ``seed``) and fit the paper's LogisticRegression.

    For ``protected="race"`` the race column is binarised to White / Non-White first.

    Returns
    -------
    (model, X_train, X_test, y_train, y_test)
    """
    df = load_adult_facts(data_dir)
    if protected == "race":
        df["race"] = np.where(df["race"] == "White", "White", "Non-White")
    y = df.pop("income")
    X_train, X_test, y_train, y_test = train_test_split(
        df, y, train_size=0.7, stratify=y, shuffle=True, random_state=seed
    )
    model = Pipeline(
        [
            ("onehot", OneHotCodes(numeric=NUMERIC)),
            ("lr", LogisticRegression(max_iter=1500, solver="newton-cholesky")),
        ]
    )
    model.fit(X_train, y_train)
    return (model, X_train.reset_index(drop=True), X_test.reset_index(drop=True),
            y_train.reset_index(drop=True), y_test.reset_index(drop=True))  # fmt: skip


def run_adult_audit(
    data_dir: Path | None = None,
    protected: str = "sex",
    support: float = 0.01,
    legacy: bool = False,
    seed: int = 131313,
    exact_features: bool = True,
    progress: Any = None,
):
    """Fit the model and the FACTS audit on the Adult test split.

    ``exact_features=False`` is the paper's looser reading of valid actions (any frequent
    unaffected itemset over a subset of the subgroup's features, spec §4.3); ``progress`` is
    passed to :meth:`RecourseFairness.run`.

    Returns
    -------
    (audit, model, X_test, y_test, accuracy)
    """
    from ..recourse import RecourseFairness

    adult_setting(protected)
    model, _, X_test, _, y_test = fit_adult_model(data_dir, seed=seed, protected=protected)
    accuracy = float((model.predict(X_test) == y_test.to_numpy()).mean())
    features = {c: "categorical" for c in X_test.columns}
    features.update({"education-num": {"ordinal": list(range(1, 17))},
                     "capital-gain": "numeric", "capital-loss": "numeric",
                     "hours-per-week": {"ordinal": list(X_test["hours-per-week"].cat.categories)},
                     "age": {"ordinal": list(X_test["age"].cat.categories)}})  # fmt: skip
    other = "race" if protected == "sex" else "sex"
    # reference code: sex is hard-coded immutable, race may change (weight 100) in the sex audit
    immutable = sorted({protected, "sex"}) if legacy else [protected, other]
    audit = RecourseFairness(
        model,
        protected=protected,
        support=support,
        feature_weights=ADULT_WEIGHTS,
        immutable=immutable,
        monotone=["age", "education-num"],
        max_step={"age": 2, "education-num": 2},
        binary_cost=["age"],
        features=features,
        normalize=["capital-gain", "capital-loss"],
        legacy=legacy,
        exact_features=exact_features,
    )
    # the one verb fits and scores the paper's parameters; the outputs re-score the fitted
    # engine (score reads the fitted flip counts: no model call)
    audit.run(X_test, phi=(0.3, 0.7), budgets="auto", progress=progress)
    return audit, model, X_test, y_test, accuracy


def run_adult(data_dir: Path | None, out_dir: Path, **options: Any) -> list[Path]:
    """``primafacie reproduce facts-adult``: ranked tables and Table 12 statistics as CSV.

    Options: ``legacy`` (reference-code conventions), ``protected`` (``sex``/``race``),
    ``seed`` (split seed, default 131313).

    Returns
    -------
    list of Path
        ``facts-adult.csv`` (metric, viewpoint, param, rank, score, bias_against, subgroup) and
        ``facts-adult-stats.csv`` (statistic, value).
    """
    allowed = {"legacy", "protected", "seed"}
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise InputError(f"facts-adult does not support option(s) {unknown}")
    legacy = bool(options.get("legacy", False))
    protected = adult_setting(options.get("protected", "sex") or "sex")
    seed = int(options.get("seed", 131313) if options.get("seed") is not None else 131313)
    audit, _, X_test, y_test, acc = run_adult_audit(
        data_dir, protected=protected, legacy=legacy, seed=seed
    )
    return write_adult_outputs(audit, X_test, y_test, acc, Path(out_dir))


def write_adult_outputs(
    audit: Any, X_test: pd.DataFrame, y_test: pd.Series, accuracy: float, out_dir: Path
) -> list[Path]:
    """Evaluate every definition and write ``facts-adult.csv`` and ``facts-adult-stats.csv``.

    Scores are written with full precision (``inf`` for +inf); subgroups as ``feature=value``
    items joined by ``; `` in name order.
    """
    result = audit.score(phi=(0.3, 0.7), budgets="auto")
    table = result.to_frame()
    table["score"] = table["score"].map(lambda x: "inf" if np.isinf(x) else repr(float(x)))
    main = atomic_write_csv(out_dir / "facts-adult.csv", table, index=False)
    extra = pd.DataFrame(
        [("test_rows", len(X_test)), ("accuracy", round(accuracy, 4)),
         ("true_label_negative", int((y_test == 0).sum()))],
        columns=["statistic", "value"],
    )  # fmt: skip
    analysis = result.ranking_analysis()
    rows = []
    for _, r in analysis.iterrows():
        rows.append((f"rank1[{r['metric']}]", int(r["rank1"])))
        for g in result.groups:
            rows.append((f"top10_against[{r['metric']}][{g}]", int(r[f"top10_against[{g}]"])))
    stats = pd.concat([extra, result.stats_frame(), pd.DataFrame(rows, columns=["statistic", "value"])],
                      ignore_index=True)  # fmt: skip
    # integers stay integers in the CSV (a mixed float column would print 13567.0)
    stats["value"] = pd.Series(
        [int(v) if float(v).is_integer() else float(v) for v in stats["value"].to_numpy(float)],
        dtype=object,
    )
    side = atomic_write_csv(out_dir / "facts-adult-stats.csv", stats, index=False)
    return [main, side]


# ---------------------------------------------------------------------- ours vs the paper
#: Table 12 (fp-growth output), per protected attribute: statistic -> published count
PAPER_TABLE12 = {
    "sex": {"subgroups[Male]": 27_510, "subgroups[Female]": 28_176, "actions": 57_008,
            "common_subgroups": 13_300, "valid_pairs": 97_413, "subgroups": 12_556},
    "race": {"subgroups[White]": 27_767, "subgroups[Non-White]": 24_664, "actions": 56_394,
             "common_subgroups": 18_692, "valid_pairs": 112_879, "subgroups": 15_672},
}  # fmt: skip
#: automatic budgets from spec §6.1 (Adult-sex ≈ {5.08, 10, 18}, race {1.15, 10.07, 21}); the paper
#: prints them only as the column heads c = 5/10/18 (Table 1) and 1.15/10.0/21.0 (Table 7)
PAPER_BUDGETS = {"sex": (5.08, 10.0, 18.0), "race": (1.15, 10.07, 21.0)}

#: Table 1 (sex) and Table 7 (race) rows: (label, metric, viewpoint, param); EEWB's param is the
#: index of the automatic budget (the paper's c = 5/10/18 and 1.15/10/21 are its three budgets)
_DEFS = (
    ("EE", "EE", "micro", None),
    ("ECR(0.3)", "ECR", "macro", 0.3),
    ("ECR(0.7)", "ECR", "macro", 0.7),
    ("EEWB(c1)", "EEWB", "micro", 0),
    ("EEWB(c2)", "EEWB", "micro", 1),
    ("EEWB(c3)", "EEWB", "micro", 2),
    ("ECE(0.3)", "ECE", "macro", 0.3),
    ("ECE(0.7)", "ECE", "macro", 0.7),
    ("FECT", "FECT", "micro", None),
    ("E(C)MR", "ECMR", "micro", None),
)
_FAIR = None  # a Fair cell
#: (rank, bias against, score) per definition (order of _DEFS) for SG1, SG2, SG3
PAPER_CELLS = {
    "sex": (
        ADULT_TABLE1,
        [
            ((2950, "Male", 0.11), (10063, "Female", 0.0004), (275, "Female", 0.32)),
            (_FAIR, (12, "Female", 2), _FAIR),
            ((6, "Male", 1), (1, "Female", 6), _FAIR),
            (_FAIR, (2806, "Female", 0.056), (70, "Female", 0.3)),
            ((2350, "Male", 0.11), (8518, "Female", 0.0004), (226, "Female", 0.3)),
            ((2675, "Male", 0.11), (9222, "Female", 0.0004), (272, "Female", 0.3)),
            (_FAIR, _FAIR, (1, "Female", math.inf)),
            ((1, "Male", math.inf), (12, "Female", 2), _FAIR),
            ((4065, "Male", 0.11), (3579, "Female", 0.13), (306, "Female", 0.32)),
            (_FAIR, (3145, "Female", 0.35), _FAIR),
        ],
    ),
    "race": (
        (
            "Workclass=Private; age=(34, 41]; capital-gain=0; capital-loss=0; "
            "marital-status=Never-married; native-country=United-States; "
            "relationship=Not-in-family",
            "hours-per-week=FullTime; native-country=United-States; occupation=Adm-clerical; "
            "relationship=Married",
            "hours-per-week=PartTime; marital-status=Divorced; native-country=United-States",
        ),
        [
            (_FAIR, (3047, "Non-White", 0.115), (1682, "Non-White", 0.162)),
            ((1, "Non-White", 10), (10, "Non-White", 1), _FAIR),
            (_FAIR, _FAIR, _FAIR),
            (_FAIR, _FAIR, _FAIR),
            ((303, "Non-White", 0.242), (2201, "Non-White", 0.115), (4035, "Non-White", 0.071)),
            (_FAIR, (2978, "Non-White", 0.115), (1663, "Non-White", 0.162)),
            ((18, "Non-White", 0.15), (1, "Non-White", math.inf), _FAIR),
            (_FAIR, _FAIR, _FAIR),
            ((909, "Non-White", 0.242), (4597, "Non-White", 0.115), (2644, "Non-White", 0.162)),
            ((5897, "White", 0.021), (5309, "White", 0.047), (1, "Non-White", math.inf)),
        ],
    ),
}
_RANK_NOTE = (
    "rank among ~10^4 subgroups depends on the exact fitted model (not recoverable, see "
    "primafacie.experiments.facts)"
)


def _cells(table: pd.DataFrame, budgets: list[float]) -> dict[tuple[str, str], tuple]:
    """(definition label, subgroup) -> (rank, bias against, score) for every non-Fair row."""
    out: dict[tuple[str, str], tuple] = {}
    for label, metric, viewpoint, param in _DEFS:
        sel = table[(table["metric"] == metric) & (table["viewpoint"] == viewpoint)]
        if metric == "EEWB":
            if param >= len(budgets):
                continue
            sel = sel[np.isclose(sel["param"].astype(float), budgets[param])]
        elif param is not None:
            sel = sel[np.isclose(sel["param"].astype(float), param)]
        for r in sel.itertuples():
            out[(label, r.subgroup)] = (int(r.rank), str(r.bias_against), float(r.score))
    return out


@compare_doc(
    "``facts-adult.csv`` and ``facts-adult-stats.csv``",
    ":func:`run_adult`",
    "``protected`` (``sex`` or ``race``) as given to the run; other options are ignored.",
)
def compare_adult(out_dir: Path, data_dir: Path | None = None, **options: Any) -> pd.DataFrame:
    """FACTS Adult against the paper: data, Table 12, budgets and Table 1 (sex) / Table 7 (race).

    Tolerances: Table 12 counts ±10% (spec §7: the authors' released code itself lands at +8.9%
    on valid pairs); test split and label counts exact; accuracy ±0.01; budgets ±0.05. Table
    cells: the verdict (Fair or the group the bias is against) is compared exactly; scores ±0.05
    (inf exactly); ranks exactly for the rank-1 cells the paper discusses, for context only
    otherwise (a rank among ~10^4 subgroups moves with the fitted model).

    {{compare}}

    Examples
    --------
    >>> compare_adult("out/reproduce")  # doctest: +SKIP
    """
    from .compare import check, comparison_frame, read_run_csv

    protected = adult_setting(options.get("protected", "sex") or "sex")
    out_dir = Path(out_dir)
    table = read_run_csv(out_dir, "facts-adult.csv", keep_default_na=False)
    raw = read_run_csv(out_dir, "facts-adult-stats.csv").set_index("statistic")["value"]
    stats = raw.astype(float)
    checks = [
        check("spec §6.2", "test rows", int(stats["test_rows"]), 13_567),
        check(
            "App. F",
            "true label 0 (the paper's 'affected')",
            int(stats["true_label_negative"]),
            10_205,
        ),  # fmt: skip
        check("spec §8", "LR test accuracy", float(stats["accuracy"]), 0.85, tol=0.01),
    ]
    for key, paper in PAPER_TABLE12[protected].items():
        checks.append(check("Table 12", key, int(stats[key]), paper, tol=0.10, rel=True))
    budgets = sorted(float(v) for k, v in stats.items() if str(k).startswith("budget["))
    for i, paper in enumerate(PAPER_BUDGETS[protected]):
        ours = round(budgets[i], 4) if i < len(budgets) else "none"
        note = "" if i < len(budgets) else "fewer distinct budgets"
        if i < len(budgets) and abs(budgets[i] - paper) > 0.05:
            note = "percentile of the micro ECE(0.5) costs: depends on the fitted model"
        checks.append(check("spec §6.1", f"budget {i + 1}", ours, paper, tol=0.05, note=note))
    subgroups, rows = PAPER_CELLS[protected]
    where = "Table 1" if protected == "sex" else "Table 7"
    cells = _cells(table, budgets)
    for (label, *_), paper_row in zip(_DEFS, rows, strict=True):
        for j, (sg, paper) in enumerate(zip(subgroups, paper_row, strict=True)):
            ours = cells.get((label, sg))
            name = f"SG{j + 1} {label}"
            verdict = "Fair" if ours is None else f"against {ours[1]}"
            paper_verdict = "Fair" if paper is None else f"against {paper[1]}"
            checks.append(check(where, f"{name} verdict", verdict, paper_verdict))
            if paper is None and ours is None:
                continue
            o_rank, o_score = (0, 0.0) if ours is None else (ours[0], ours[2])
            p_rank, p_score = (0, 0.0) if paper is None else (paper[0], paper[2])
            score_ours = "inf" if math.isinf(o_score) else round(o_score, 4)
            score_paper = "inf" if math.isinf(p_score) else p_score
            checks.append(check(where, f"{name} score", score_ours, score_paper, tol=0.05))
            claim = p_rank == 1
            checks.append(
                check(
                    where,
                    f"{name} rank",
                    o_rank if ours else "Fair",
                    p_rank if paper else "Fair",
                    reference_only=not claim,
                    note="" if claim else _RANK_NOTE,
                )  # fmt: skip
            )
    return comparison_frame(_explain(c, protected) for c in checks)


_CELL_NOTE = "model-dependent cell: the paper's fitted model is not recoverable (experiments.facts)"
_AUTHORS_ENV = (
    "the authors' pipeline in its declared environment gives ours (tools/facts_authors_env.py); "
    "Fig. 3 is inconsistent (test_paper_fig3_coverages_are_not_one_affected_set)"
)


def _explain(c: Any, protected: str) -> Any:
    """Attach the known reason to a Table 1/7 cell that differs."""
    from dataclasses import replace

    if c.status == "differs" and c.table == "Table 12" and not c.note:
        return replace(
            c,
            note="the authors' released code itself lands at +8.9% on Adult-sex valid pairs (spec §7)",
        )
    if c.status != "differs" or c.note or c.table not in ("Table 1", "Table 7"):
        return c
    claims = ("SG1 ECE(0.7)", "SG2 ECR(0.7)")
    if protected == "sex" and c.quantity.startswith(claims):
        return replace(c, note=_AUTHORS_ENV)
    return replace(c, note=_CELL_NOTE)
