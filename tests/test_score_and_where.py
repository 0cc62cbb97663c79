"""``decision: {score, threshold, favorable}`` and the ``where:`` row filter of audit.yaml."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from primafacie.cli import app
from primafacie.config import AuditConfig
from primafacie.decisions import score_decisions
from primafacie.errors import InputError


def _frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "decile": [1, 3, 4, 5, 7, 10, 2, 6, 9, 4],
            "sex": ["f", "f", "f", "f", "f", "m", "m", "m", "m", "m"],
            "age": [20, 30, 40, 50, 60, 20, 30, 40, 50, 60],
            "year": [2023, 2024] * 5,
        }
    )


def _cfg(tmp_path, **extra) -> AuditConfig:
    _frame().to_csv(tmp_path / "d.csv", index=False)
    doc = {
        "data": "d.csv",
        "decision": {"score": "decile", "threshold": 5, "favorable": "below"},
        "features": {"age": "numeric"},
        "protected": {"sex": "f"},
        **extra,
    }
    return AuditConfig.model_validate({**doc, "base_dir": tmp_path})


def test_score_threshold_by_hand():
    df = _frame()
    assert score_decisions(df, "decile", 5, "below").tolist() == [1, 1, 1, 0, 0, 0, 1, 0, 0, 1]
    assert score_decisions(df, "decile", 5, "above").tolist() == [0, 0, 0, 1, 1, 1, 0, 1, 1, 0]
    with pytest.raises(InputError, match="not numeric"):
        score_decisions(df, "sex", 5)


def test_config_decides_from_the_score(tmp_path):
    data = _cfg(tmp_path).audit_data()
    assert data.decision_array().tolist() == [1, 1, 1, 0, 0, 0, 1, 0, 0, 1]


def test_score_needs_a_threshold_and_keys_go_with_score():
    with pytest.raises(ValueError, match="needs a threshold"):
        AuditConfig.model_validate(
            {"data": "x.csv", "decision": {"score": "s"}, "features": {}, "protected": {"a": 1}}
        )
    with pytest.raises(ValueError, match="go with score"):
        AuditConfig.model_validate(
            {"data": "x.csv", "decision": {"column": "d", "threshold": 3}, "features": {},
             "protected": {"a": 1}}
        )  # fmt: skip


def test_where_selects_rows_and_counts_the_rest(tmp_path):
    data = _cfg(tmp_path, where="year == 2024 and age >= 30").audit_data()
    assert data.n == 4  # 2024 rows: ages 30, 50, 20(no), 40, 60 -> 30, 50, 40, 60
    assert data.frame.attrs["where"] == {
        "filter": "year == 2024 and age >= 30", "rows_read": 10, "left_out": 6,
    }  # fmt: skip
    with pytest.raises(InputError, match="selects none of the 10 rows"):
        _cfg(tmp_path, where="year == 1999").audit_data()
    with pytest.raises(InputError, match="where"):
        _cfg(tmp_path, where="yeer == 2024").audit_data()


def test_audit_records_the_filter_and_the_score(tmp_path):
    cfg = {
        "data": "d.csv",
        "decision": {"score": "decile", "threshold": 5, "favorable": "below"},
        "features": {"age": "numeric"},
        "protected": {"sex": "f"},
        "where": "year == 2024",
        "analyses": {"groups": {"min_group": 1}},
    }
    _frame().to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(cfg))
    # in-process (``main()`` is ``app()``): the outputs are checked, not the process
    run = CliRunner().invoke(app, ["audit", str(tmp_path / "audit.yaml"), "--out",
                                   str(tmp_path / "out")])  # fmt: skip
    assert run.exit_code == 0, (run.output, run.exception)
    res = json.loads((tmp_path / "out" / "results.json").read_text())
    data = res["data"]
    assert data["n"] == 5
    assert data["where"]["left_out"] == 5
    assert data["decision_source"] == "score 'decile', favourable below 5"


def test_a_model_that_never_predicts_the_favourable_label_stops_the_run(tmp_path):
    import numpy as np
    import skops.io as sio
    from sklearn.tree import DecisionTreeRegressor

    df = _frame()
    model = DecisionTreeRegressor().fit(df[["age"]], 2.0 * (df["age"] > 35))  # {0.0, 2.0}
    sio.dump(model, tmp_path / "m.skops")
    cfg = _cfg(tmp_path, decision={"model": "m.skops"}, favorable=1)
    with pytest.raises(InputError, match=r"decision.model m.skops: the model predicts the "
                       r"favourable label 1 \(favorable:\) for none of the 10 audited rows; it "
                       r"predicts 0.0, 2.0, so"):  # fmt: skip
        cfg.audit_data()
    # a classifier that rejects everyone predicts one of its labels: a finding, not a mistake
    # (the audit warns that every decision is unfavourable, tests/test_audit.py)
    from sklearn.linear_model import LogisticRegression

    clf = LogisticRegression().fit(df[["age"]], (df["age"] > 35).astype(int))
    clf.intercept_[:] = -1e6
    sio.dump(clf, tmp_path / "m.skops")
    assert np.asarray(cfg.audit_data().decision_array()).sum() == 0
    sio.dump(DecisionTreeRegressor().fit(df[["age"]], 1.0 * (df["age"] > 35)), tmp_path / "m.skops")
    assert np.asarray(cfg.audit_data().decision_array()).sum() == 6  # label 1 predicted: runs


@pytest.mark.parametrize(
    "extra, said",
    [({"where": "sex != 'F'"}, "where: \"sex != 'F'\": the value 'F' of compared column 'sex' "
      "does not occur as written; the data spell it 'f' (5 rows)"),
     ({"where": "sex == 'f' or sex == 'M'"}, "the value 'M' of compared column 'sex' does not "
      "occur as written; the data spell it 'm' (5 rows)"),
     ({"where": "sex != 'x'"}, "the value 'x' of compared column 'sex' never occurs"),
     ({"decision": {"rule": "decile > 3 and sex != 'F'"}}, "decision.rule \"decile > 3 and sex "
      "!= 'F'\": the value 'F' of compared column 'sex' does not occur as written")],
)  # fmt: skip
def test_quoted_values_the_data_do_not_spell_stop_the_run(tmp_path, extra, said):
    """`sex != 'F'` on data that spell it 'f' kept every row (exit 0), as `sex == 'f' or sex ==
    'M'` dropped the men: a compared value must occur as written, as protected values must."""
    with pytest.raises(InputError) as err:
        _cfg(tmp_path, **extra).audit_data()
    assert said in str(err.value)


def test_quoted_values_spelled_as_the_data_run(tmp_path):
    data = _cfg(tmp_path, where="sex == 'f' or year == 2024").audit_data()
    assert data.n == 8  # the 5 f rows and the 3 m rows of 2024
    from primafacie.decisions import Rule

    assert Rule("sex == 'f' and 'x' != kind").text_comparisons() == [("sex", "f"), ("kind", "x")]
