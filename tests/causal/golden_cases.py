"""Counterfactual cases whose outputs were frozen before ``causal.py`` became a package.

``python tests/causal/golden_cases.py`` writes ``golden/counterfactuals.npz`` and
``golden/to_dict.json``; it was run on main at 016a48c (the single-module ``causal.py``), and
``test_golden.py`` asserts that today's code reproduces every float bit for bit. Do not
regenerate the files unless a change of numbers is intended and explained in the commit.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sklearn.linear_model import LinearRegression
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from primafacie.causal import SCM
from primafacie.data import AuditData
from primafacie.datasets.credit_world import (
    CREDIT_EDGES,
    CREDIT_FEATURES,
    CREDIT_PROTECTED,
    generate_credit_world,
)
from primafacie.datasets.loan_world import LOAN_EDGES, loan_world_data

GOLDEN = Path(__file__).parent / "golden"
N = 300


# The worlds and the plain fits are cached: several cases read the same fitted SCM (a fit is
# deterministic, and counterfactual / abduct / to_dict do not change it), and refitting it per
# case was most of this module's time. Cases whose SCM has clip / round settings fit their own.
@cache
def _loan() -> AuditData:
    return loan_world_data(n=N, seed=0)


@cache
def _credit() -> AuditData:
    return AuditData(
        generate_credit_world(N, seed=0),
        features=CREDIT_FEATURES,
        protected=CREDIT_PROTECTED,
        decision="human",
    )


@cache
def _fitted(world: str, name: str) -> SCM:
    """``SCM(<world>_EDGES, mechanism=<the mechanism called name>)`` fitted on the world."""
    if world == "loan":
        return SCM(LOAN_EDGES, mechanism=_loan_mechanisms()[name]).fit(_loan())
    return SCM(CREDIT_EDGES, mechanism=_credit_mechanisms()[name]).fit(_credit())


def _loan_mechanisms() -> dict[str, Any]:
    return {
        "linear": "linear",
        "random_forest": "random_forest",
        "gradient_boosting": "gradient_boosting",
        "linreg": LinearRegression(),
        "tree": DecisionTreeRegressor(max_depth=3, random_state=0),
        "mapping": {"AccountBalance": "random_forest"},
    }


def _credit_mechanisms() -> dict[str, Any]:
    return {
        "linear": "linear",
        "random_forest": "random_forest",
        "gradient_boosting": "gradient_boosting",
        "mapping": {
            "region": DecisionTreeClassifier(max_depth=3, random_state=0),
            "income": "gradient_boosting",
        },
    }


def cases() -> dict[str, Callable[[], pd.DataFrame]]:
    """Name -> a function returning one frozen table (a counterfactual or abducted noise)."""
    out: dict[str, Callable[[], pd.DataFrame]] = {}
    for name, mech in _loan_mechanisms().items():

        def loan_cf(name: str = name) -> pd.DataFrame:
            data = _loan()
            women = data.protected_mask("Gender")
            return _fitted("loan", name).counterfactual(data, {"Gender": 0}, rows=women)

        def loan_mid(name: str = name) -> pd.DataFrame:
            return _fitted("loan", name).counterfactual(_loan(), {"AnnualSalary": 50000.0})

        def loan_abduct(name: str = name) -> pd.DataFrame:
            return _fitted("loan", name).abduct(_loan())

        def loan_noise(mech: Any = mech) -> pd.DataFrame:
            data = _loan()
            scm = SCM(LOAN_EDGES, mechanism=mech, round={"AnnualSalary": 2}).fit(data)
            return scm.counterfactual(data, {"Gender": 0}, noise=scm.abduct(data).round(2))

        def loan_clip(mech: Any = mech) -> pd.DataFrame:
            data = _loan()
            scm = SCM(
                LOAN_EDGES,
                mechanism=mech,
                clip={"AnnualSalary": (0, 60000.0), "AccountBalance": (None, 15000.0)},
                round={"AnnualSalary": 2, "AccountBalance": 1},
            ).fit(data)
            return scm.counterfactual(data, {"Gender": 0}, rows=data.protected_mask("Gender"))

        out[f"loan/{name}/cf"] = loan_cf
        out[f"loan/{name}/mid"] = loan_mid
        out[f"loan/{name}/abduct"] = loan_abduct
        out[f"loan/{name}/noise"] = loan_noise
        out[f"loan/{name}/clip"] = loan_clip
    for name, mech in _credit_mechanisms().items():

        def credit_gender(name: str = name) -> pd.DataFrame:
            data = _credit()
            scm = _fitted("credit", name)
            return scm.counterfactual(data, {"gender": "male"}, rows=data.protected_mask("gender"))

        def credit_race(mech: Any = mech) -> pd.DataFrame:
            data = _credit()
            scm = SCM(
                CREDIT_EDGES,
                mechanism=mech,
                clip={"income": (0, None), "savings": (0, None)},
                round={"income": 0},
            ).fit(data)
            return scm.counterfactual(data, {"race": "white"}, rows=data.protected_mask("race"))

        def credit_all(name: str = name) -> pd.DataFrame:
            scm = _fitted("credit", name)
            return scm.counterfactual(_credit().frame, {"race": "black", "education": "tertiary"})

        def credit_abduct(name: str = name) -> pd.DataFrame:
            return _fitted("credit", name).abduct(_credit())

        def credit_noise(name: str = name) -> pd.DataFrame:
            data = _credit()
            scm = _fitted("credit", name)
            noise = scm.abduct(data).round(3)
            return scm.counterfactual(data, {"race": "white"}, noise=noise)

        def credit_merged(mech: Any = mech) -> pd.DataFrame:
            data = _credit()
            frame = data.frame.assign(
                gr=(data.protected_mask("gender") & data.protected_mask("race")).astype(int)
            )
            merged = SCM(CREDIT_EDGES, mechanism=mech).merge_nodes(["gender", "race"], "gr")
            merged.fit(frame)
            return merged.counterfactual(frame, {"gr": 0}, rows=frame["gr"].to_numpy() == 1)

        out[f"credit/{name}/gender"] = credit_gender
        out[f"credit/{name}/race"] = credit_race
        out[f"credit/{name}/all"] = credit_all
        out[f"credit/{name}/abduct"] = credit_abduct
        out[f"credit/{name}/noise"] = credit_noise
        out[f"credit/{name}/merged"] = credit_merged
    return out


def to_dicts() -> dict[str, Any]:
    """``SCM.to_dict()`` of fitted loan and credit SCMs (all finite numbers)."""
    loan = _loan()
    out = {}
    for name, mech in _loan_mechanisms().items():
        if name in ("linreg", "tree"):
            continue  # to_dict names the estimator class only
        scm = SCM(LOAN_EDGES, mechanism=mech, clip={"AnnualSalary": (0, None)})
        out[f"loan/{name}/unfitted"] = scm.to_dict()
        out[f"loan/{name}"] = scm.fit(loan).to_dict()
    for name in ("linear", "gradient_boosting"):
        out[f"credit/{name}"] = _fitted("credit", name).to_dict()
    return out


#: Columns an SCM can change (the other columns are copied, and are tested to be, elsewhere).
NODES = {v for e in LOAN_EDGES + CREDIT_EDGES for v in e} | {"gr"}


def table_arrays(frame: pd.DataFrame) -> dict[str, np.ndarray]:
    """Node columns storable without pickle (objects as unicode), plus dtypes and index."""
    arrays: dict[str, np.ndarray] = {"__index__": frame.index.to_numpy(dtype=np.int64)}
    dtypes = []
    for col in frame.columns:
        if col not in NODES:
            continue
        values = frame[col].to_numpy()
        if values.dtype == object or isinstance(frame[col].dtype, pd.CategoricalDtype):
            values = np.asarray(frame[col].astype(str).to_numpy(), dtype=str)
        arrays[str(col)] = values
        dtypes.append(f"{col}={frame[col].dtype}")
    arrays["__dtypes__"] = np.asarray(dtypes, dtype=str)
    return arrays


def main() -> None:
    GOLDEN.mkdir(exist_ok=True)
    store: dict[str, np.ndarray] = {}
    for name, make in cases().items():
        for key, arr in table_arrays(make()).items():
            store[f"{name}::{key}"] = arr
    np.savez_compressed(GOLDEN / "counterfactuals.npz", **store)
    (GOLDEN / "to_dict.json").write_text(json.dumps(to_dicts(), indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
