"""pandas, polars and pyarrow tables at every public entry point give identical results.

Each test runs one entry point on the same table given as pandas (the reference), polars and
pyarrow, and compares the outcome with the pandas run. The boundary helper
:func:`primafacie.data.to_pandas` recognises a table by the package that defined its type, so
polars and pyarrow are not imported for a pandas user (checked in a fresh interpreter).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from primafacie import (
    SCM,
    AuditData,
    CertaintyRanking,
    MultipleSituationTest,
    PrincipalFairness,
    RecourseFairness,
    Rule,
    SituationTest,
)
from primafacie.config import AuditConfig
from primafacie.data import to_pandas
from primafacie.datasets.loan_world import make_loan_world
from primafacie.decisions import ModelDecider, predict_binary
from primafacie.errors import InputError

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")

KINDS = ["pandas", "polars", "pyarrow"]


def as_kind(frame: pd.DataFrame, kind: str):
    """``frame`` as a table of ``kind`` (a copy, index dropped)."""
    frame = frame.reset_index(drop=True)
    if kind == "pandas":
        return frame.copy()
    if kind == "polars":
        return pl.from_pandas(frame)
    return pa.Table.from_pandas(frame, preserve_index=False)


@pytest.fixture(scope="module")
def loans() -> pd.DataFrame:
    """A small loan world with a text protected column, a text categorical and an outcome."""
    df = make_loan_world(n=160, seed=3)
    rng = np.random.default_rng(0)
    df["gender"] = np.where(df["Gender"] == 1, "female", "male")
    df["region"] = rng.choice(["north", "south", "east"], len(df))
    df["repaid"] = rng.integers(0, 2, len(df))
    df["clerk"] = rng.integers(0, 2, len(df))
    return df.drop(columns="Gender").reset_index(drop=True)


ROLES = dict(
    features={"AnnualSalary": "numeric", "AccountBalance": "numeric"},
    protected={"gender": "female"},
    decision="LoanApproval",
    outcome="repaid",
)
EDGES = [("gender", "AnnualSalary"), ("gender", "AccountBalance"),
         ("AnnualSalary", "AccountBalance")]  # fmt: skip


@pytest.mark.parametrize("kind", KINDS)
def test_to_pandas_gives_the_same_columns_dtypes_and_values(loans, kind):
    out = to_pandas(as_kind(loans, kind))
    assert isinstance(out, pd.DataFrame)
    pd.testing.assert_frame_equal(out, loans)


def test_to_pandas_lazy_frames_and_datasets_and_a_clear_error(loans):
    import pyarrow.dataset as ds

    pd.testing.assert_frame_equal(to_pandas(pl.from_pandas(loans).lazy()), loans)
    pd.testing.assert_frame_equal(to_pandas(ds.dataset(pa.Table.from_pandas(loans))), loans)
    batch = pa.RecordBatch.from_pandas(loans, preserve_index=False)
    pd.testing.assert_frame_equal(to_pandas(batch), loans)
    with pytest.raises(InputError, match="pandas/polars/pyarrow table .* got ndarray"):
        to_pandas(np.zeros((2, 2)))


@pytest.mark.parametrize("kind", KINDS)
def test_audit_data(loans, kind):
    data = AuditData(as_kind(loans, kind), **ROLES)
    pd.testing.assert_frame_equal(data.frame, loans)
    assert data.protected_mask().tolist() == (loans["gender"] == "female").tolist()


@pytest.mark.parametrize("kind", KINDS)
def test_audit_config_audit_data_frame(loans, kind):
    cfg = AuditConfig.model_validate(
        {"data": "unused.csv", "decision": {"rule": "AnnualSalary > 50000"},
         "features": ROLES["features"], "protected": ROLES["protected"]}
    )  # fmt: skip
    got = cfg.audit_data(frame=as_kind(loans, kind)).decision_array()
    assert got.tolist() == (loans["AnnualSalary"] > 50000).astype(int).tolist()


@pytest.mark.parametrize("kind", KINDS)
def test_scm_fit_abduct_and_counterfactual(loans, kind):
    ref = SCM(EDGES).fit(loans)
    table = as_kind(loans, kind)
    scm = SCM(EDGES).fit(table)
    pd.testing.assert_frame_equal(scm.abduct(table), ref.abduct(loans))
    rows = (loans["gender"] == "female").to_numpy()
    cf = scm.counterfactual(table, {"gender": "male"}, rows=rows)
    pd.testing.assert_frame_equal(cf, ref.counterfactual(loans, {"gender": "male"}, rows=rows))


@pytest.fixture(scope="module")
def counterfactuals(loans) -> pd.DataFrame:
    scm = SCM(EDGES).fit(loans)
    rows = (loans["gender"] == "female").to_numpy()
    return scm.counterfactual(loans, {"gender": "male"}, rows=rows)


@pytest.mark.parametrize("kind", KINDS)
def test_situation_test_data_and_counterfactual_table(loans, counterfactuals, kind):
    test = SituationTest(methods=["st", "cst", "cf"], k=5)
    decider = Rule("AnnualSalary + 5 * AccountBalance > 225000")
    ref = test.run(AuditData(loans, **ROLES), counterfactuals=counterfactuals, decider=decider)
    got = test.run(
        AuditData(as_kind(loans, kind), **ROLES),
        counterfactuals=as_kind(counterfactuals, kind),
        decider=decider,
    )
    pd.testing.assert_frame_equal(got.to_frame(), ref.to_frame())
    assert got.to_frame()["method"].nunique() == 3


@pytest.mark.parametrize("kind", KINDS)
def test_multiple_situation_test_counterfactual_tables(loans, kind):
    frame = loans.assign(older=np.where(np.arange(len(loans)) % 3 == 0, "yes", "no"))
    roles = {**ROLES, "protected": {"gender": "female", "older": "yes"}}
    scm = SCM([*EDGES, ("older", "AccountBalance")]).fit(frame)
    cfs = {
        attr: scm.counterfactual(frame, {attr: ref}, rows=(frame[attr] == value).to_numpy())
        for attr, value, ref in (("gender", "female", "male"), ("older", "yes", "no"))
    }
    test = MultipleSituationTest(methods="cst", k=5)
    ref = test.run(AuditData(frame, **roles), counterfactuals=cfs)
    got = test.run(
        AuditData(as_kind(frame, kind), **roles),
        counterfactuals={a: as_kind(cf, kind) for a, cf in cfs.items()},
    )
    pd.testing.assert_frame_equal(got.to_frame(), ref.to_frame())


@pytest.mark.parametrize("kind", KINDS)
def test_recourse_audit_fit_on_a_raw_table(loans, kind):
    rule = Rule("AnnualSalary + 5 * AccountBalance > 225000")
    features = {"AnnualSalary": "numeric", "AccountBalance": "numeric", "region": "categorical"}
    audit = dict(protected="gender", support=0.1, features=features)
    ref = RecourseFairness(rule, **audit).fit(loans).evaluate(phi=[0.5], metrics=["EE", "ECR"])
    got = RecourseFairness(rule, **audit).fit(as_kind(loans, kind))
    got = got.evaluate(phi=[0.5], metrics=["EE", "ECR"])
    for label in ref.rankings:
        pd.testing.assert_frame_equal(
            got.rankings[label].to_frame(), ref.rankings[label].to_frame()
        )
    assert len(ref.rankings) >= 2


@pytest.mark.parametrize("kind", KINDS)
def test_principal_fairness_run_and_repair(loans, kind):
    pf = PrincipalFairness(definitions=[1, 2], covariates=["region"], min_group=1)
    ref = pf.run(AuditData(loans, **ROLES)).to_frame()
    got = pf.run(AuditData(as_kind(loans, kind), **ROLES)).to_frame()
    pd.testing.assert_frame_equal(got, ref)
    raw = PrincipalFairness(
        definitions=[1, 2], covariates=["region"], min_group=1, protected={"gender": "female"},
        decision="LoanApproval", outcome="repaid",
    )  # fmt: skip
    pd.testing.assert_frame_equal(raw.run(as_kind(loans, kind)).to_frame(), ref)
    repaired = raw.repair(as_kind(loans, kind), definition=1).to_frame()
    pd.testing.assert_frame_equal(repaired, raw.repair(loans, definition=1).to_frame())


@pytest.mark.parametrize("kind", KINDS)
def test_certainty_audit_on_a_raw_table_and_on_audit_data(loans, kind):
    dms = {"clerk": "clerk", "rule": Rule("AnnualSalary > 60000")}
    audit = CertaintyRanking(protected=["gender", "region"], min_group=1)
    ref = audit.run(loans, dms).to_frame()
    pd.testing.assert_frame_equal(audit.run(as_kind(loans, kind), dms).to_frame(), ref)
    data = AuditData(as_kind(loans, kind), **ROLES)
    pd.testing.assert_frame_equal(
        CertaintyRanking(min_group=1).run(data, dms).to_frame(),
        CertaintyRanking(min_group=1).run(AuditData(loans, **ROLES), dms).to_frame(),
    )


@pytest.mark.parametrize("kind", KINDS)
def test_rules_and_models_predict_on_any_table(loans, kind):
    from sklearn.linear_model import LogisticRegression

    table = as_kind(loans, kind)
    rule = Rule("AnnualSalary + 5 * AccountBalance > 225000")
    expected = rule.predict(loans)
    assert rule.predict(table).tolist() == expected.tolist()
    assert predict_binary(rule, table).tolist() == expected.tolist()
    cols = ["AnnualSalary", "AccountBalance"]
    model = LogisticRegression().fit(loans[cols], loans["LoanApproval"])
    ref = ModelDecider(model).predict(loans)
    assert ModelDecider(model).predict(table).tolist() == ref.tolist()


def test_pandas_users_do_not_import_polars():
    """The boundary recognises table types by their module name, never by importing. (pyarrow
    is not checked: pandas 3 itself imports it when installed, for its string dtype.)"""
    code = (
        "import sys, pandas as pd\n"
        "from primafacie import AuditData\n"
        "d = AuditData(pd.DataFrame({'x': [1.0, 2.0], 'g': ['a', 'b'], 'y': [0, 1]}),\n"
        "              features={'x': 'numeric'}, protected={'g': 'a'}, decision='y')\n"
        "print(d.frame.shape, 'polars' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "(2, 3) False", out.stdout + out.stderr
