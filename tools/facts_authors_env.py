"""Fit the FACTS Adult/sex model as the authors' released pipeline does, in their environment.

This is a measurement tool, not part of the package: it answers "does the authors' own pipeline,
in the environment they declare, give the paper's Table 1 / Fig. 3 numbers?" (it does not; see
``primafacie.experiments.facts``). It re-implements the notebook's steps (fairtest-style
``adult.csv`` = adult.data then adult.test with values kept as read, ``clean_dataset('adult')``,
the stratified 70/30 split with seed 131313, OmniXAI ``TabularTransform`` + scikit-learn
``LogisticRegression(max_iter=1500)``) and prints, for the three Table 1 subgroups, the
affected counts per sex and the effectiveness of the actions Fig. 3 shows.

Set-up (the versions of the authors' ``conda_env.yml``; Python 3.9 from pyenv)::

    ~/.pyenv/versions/3.9.18/bin/python -m venv /tmp/f39
    /tmp/f39/bin/pip install numpy==1.24.2 scipy==1.11.3 scikit-learn==1.1.3 pandas==1.5.3
    /tmp/f39/bin/pip install --no-deps omnixai==1.2.5
    /tmp/f39/bin/python tools/facts_authors_env.py ../shared/data/adult

Measured on 2026-11-22 (lbfgs stops after 504 iterations; accuracy 0.8483; 10,753 affected):
SG1 marry: women 35/68, men 29/67 (paper 43/61 women, no male action) -> ECE(0.7) Fair;
SG3 occupation=Exec-managerial: men 18/83 = 21.69% (paper 39.74%).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

COLUMNS = [
    "age", "Workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
    "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week",
    "native-country", "income",
]  # fmt: skip

SUBGROUPS = {
    "SG1": {"age": "(41.0, 50.0]", "marital-status": "Never-married", "race": "White",
            "relationship": "Not-in-family"},
    "SG2": {"Workclass": "Private", "hours-per-week": "FullTime",
            "marital-status": "Married-civ-spouse", "occupation": "Adm-clerical", "race": "White"},
    "SG3": {"age": "(41.0, 50.0]", "occupation": "Sales"},
}  # fmt: skip

ACTIONS = {
    "SG1": [{"marital-status": " Married-civ-spouse", "relationship": " Married"}],
    "SG2": [{"Workclass": " Self-emp-inc", "hours-per-week": "OverTime",
             "occupation": " Exec-managerial"},
            {"hours-per-week": "OverTime", "occupation": " Exec-managerial"}],
    "SG3": [{"occupation": " Exec-managerial"}, {"occupation": " Prof-specialty"},
            {"occupation": " Tech-support"}],
}  # fmt: skip


def load(folder: Path) -> pd.DataFrame:
    """adult.data then adult.test, values as read (leading spaces kept, as in fairtest's copy)."""
    train = pd.read_csv(folder / "adult.data", header=None, names=COLUMNS)
    test = pd.read_csv(folder / "adult.test", header=None, names=COLUMNS, skiprows=1)
    test["income"] = test["income"].str.rstrip(".")
    df = pd.concat([train, test], ignore_index=True).drop(columns=["fnlwgt", "education"])
    df = df.replace([" ?"], np.nan).dropna()
    df["relationship"] = df["relationship"].replace([" Husband", " Wife"], " Married")
    df["hours-per-week"] = pd.cut(
        df["hours-per-week"],
        bins=[0.9, 25, 39, 40, 55, 100],
        labels=["PartTime", "MidTime", "FullTime", "OverTime", "BrainDrain"],
    )
    df["age"] = pd.qcut(df["age"], q=5)
    df["income"] = np.where(df["income"] == " <=50K", 0, 1)
    return df


def main(folder: Path) -> None:
    from omnixai.data.tabular import Tabular
    from omnixai.preprocessing.tabular import TabularTransform
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split

    df = load(folder)
    y = df.pop("income")
    cate = df.select_dtypes(include=["object", "category"]).columns.to_list()
    X_tr, X_te, y_tr, y_te = train_test_split(
        df, y, train_size=0.7, random_state=131313, stratify=y
    )
    X_tr, X_te = X_tr.reset_index(drop=True), X_te.reset_index(drop=True)
    y_tr, y_te = y_tr.reset_index(drop=True), y_te.reset_index(drop=True)
    transform = TabularTransform()
    tab = Tabular(X_tr.assign(income=y_tr), categorical_columns=cate, target_column="income")
    transform.fit(tab)
    x = transform.transform(tab)
    clf = LogisticRegression(max_iter=1500).fit(x[:, :-1], x[:, -1])

    def predict(frame: pd.DataFrame) -> np.ndarray:
        return clf.predict(transform.transform(Tabular(frame, categorical_columns=cate)))

    pred = predict(X_te)
    print(f"rows {len(X_te)}  lbfgs iterations {int(clf.n_iter_[0])}  "
          f"accuracy {(pred == y_te.to_numpy()).mean():.4f}  affected {(pred == 0).sum()}")  # fmt: skip
    for name, items in SUBGROUPS.items():
        member = np.ones(len(X_te), dtype=bool)
        for col, val in items.items():
            member &= (X_te[col].astype(str).str.strip() == val).to_numpy()
        for sex in (" Male", " Female"):
            group = (X_te["sex"] == sex).to_numpy() & (pred == 0)
            rows = X_te[member & group]
            print(f"{name} {sex.strip():6s} {len(rows):3d} affected "
                  f"({100 * len(rows) / group.sum():.2f}% covered)")  # fmt: skip
            for action in ACTIONS[name]:
                moved = rows.copy()
                for col, val in action.items():
                    if isinstance(moved[col].dtype, pd.CategoricalDtype):
                        val = pd.Categorical(
                            [val] * len(moved), categories=moved[col].cat.categories
                        )
                    moved[col] = val
                flipped = int((predict(moved) == 1).sum())
                print(f"    {action}: {flipped}/{len(rows)}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/adult"))
