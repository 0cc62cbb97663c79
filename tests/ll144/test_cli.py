"""``primafacie ll144 --config`` and the audit's ll144 section on a hiring table."""

from __future__ import annotations

import json
import traceback
from types import SimpleNamespace

import pandas as pd
import yaml
from typer.testing import CliRunner

from primafacie.cli import app

from .test_engine import hiring


def _config(tmp_path, **ll144):
    # the category columns have blanks (unknown), so the audit's protected role is another column
    df = hiring().assign(score=range(200), grp=["a", "b"] * 100)
    df.to_csv(tmp_path / "hiring.csv", index=False)
    cfg = {
        "data": "hiring.csv",
        "decision": {"column": "sel"},
        "favorable": 1,
        "features": {"score": "numeric"},
        "protected": {"grp": "a"},
        "analyses": {
            "groups": None,
            "ll144": {"categories": {"sex": "sex", "race/ethnicity": "race"}, **ll144},
        },
    }
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(cfg))
    return tmp_path / "audit.yaml"


def _run(*args):
    """``primafacie *args`` in-process (``main()`` is ``app()``; a new process costs a second
    of start-up and is not what these tests check): ``returncode``, ``stdout``, ``stderr``."""
    res = CliRunner().invoke(app, list(args))
    crash = "" if res.exception is None or isinstance(res.exception, SystemExit) else (
        "".join(traceback.format_exception(res.exception))
    )  # fmt: skip
    return SimpleNamespace(returncode=res.exit_code, stdout=res.stdout, stderr=res.stderr + crash)


def test_command_writes_the_summary_and_equals_the_audit(tmp_path):
    cfg = _config(tmp_path, unknown=["Unknown"], audit_date="2026-11-26",
                  data_source="employer's <historical> data")  # fmt: skip
    got = _run("ll144", "--config", str(cfg), "--out", str(tmp_path / "ll"))
    assert got.returncode == 0, got.stderr
    page = (tmp_path / "ll" / "summary.html").read_text()
    assert "default-src 'none'" in page
    assert "employer&#39;s &lt;historical&gt; data" in page  # escaped, never markup
    assert "2026-11-26" in page and "excluded" in page
    rates = pd.read_csv(tmp_path / "ll" / "rates.csv")
    audit = _run("audit", str(cfg), "--out", str(tmp_path / "audit"))
    assert audit.returncode == 0, audit.stderr
    table = pd.read_csv(tmp_path / "audit" / "tables" / "ll144_rates.csv")
    pd.testing.assert_frame_equal(rates, table)
    res = json.loads((tmp_path / "audit" / "results.json").read_text())
    numbers = res["analyses"]["ll144"]["numbers"]
    assert numbers["unknown"]["sex"] == 7 and numbers["audit_date"] == "2026-11-26"


def test_bad_date_and_score_column_exit_2(tmp_path):
    got = _run("ll144", "--config", str(_config(tmp_path, audit_date="26/11/2026")))
    assert got.returncode == 2 and "YYYY-MM-DD" in got.stderr + got.stdout
    got = _run("ll144", "--config", str(_config(tmp_path, score="nope")))
    assert got.returncode == 2 and "nope" in got.stderr + got.stdout


def test_hostile_category_values_stay_values(tmp_path):
    """Category values are the auditee's: a formula stays text in the CSVs, markup stays
    escaped in the summary page, and `$` in a plot label is not mathtext."""
    df = hiring()
    df["sex"] = df["sex"].replace({"Female": '=HYPERLINK("http://x")', "Male": "$$ </td><script>"})
    df = df.assign(score=range(200), grp=["a", "b"] * 100)
    df.to_csv(tmp_path / "hiring.csv", index=False)
    cfg = {
        "data": "hiring.csv", "decision": {"column": "sel"}, "favorable": 1,
        "features": {"score": "numeric"}, "protected": {"grp": "a"},
        "analyses": {"groups": None, "ll144": {"categories": {"sex": "sex"}}},
    }  # fmt: skip
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(cfg))
    got = _run("ll144", "--config", str(tmp_path / "audit.yaml"), "--out", str(tmp_path / "ll"))
    assert got.returncode == 0, got.stderr
    rates = (tmp_path / "ll" / "rates.csv").read_text()
    assert "'=HYPERLINK" in rates and "\n=HYPERLINK" not in rates
    page = (tmp_path / "ll" / "summary.html").read_text()
    assert "<script>" not in page and "&lt;script&gt;" in page
    audit = _run("audit", str(tmp_path / "audit.yaml"), "--out", str(tmp_path / "audit"))
    assert audit.returncode == 0, audit.stderr  # the impact-ratio figure drew the `$$` label
    assert "'=HYPERLINK" in (tmp_path / "audit" / "tables" / "ll144_rates.csv").read_text()


def test_score_true_reads_the_decision_column_as_a_score(tmp_path):
    """``--score true``: --decision names a score, not a 0/1 decision (it is never checked as
    binary); the scoring rates equal the engine's on that column, and the config form
    ``score: true`` reads the score a ``decision: {score, threshold}`` is thresholded from."""
    from primafacie.ll144 import LL144Tables

    df = hiring().assign(points=[(7 * i) % 23 for i in range(200)])
    df.to_csv(tmp_path / "h.csv", index=False)
    got = _run("ll144", "--data", str(tmp_path / "h.csv"), "--decision", "points",
               "--score", "true", "--category", "sex=sex", "--out", str(tmp_path / "ll"))  # fmt: skip
    assert got.returncode == 0, got.stderr
    want = LL144Tables(categories={"sex": "sex"}).run(df, score=df["points"].to_numpy(float))
    assert want.scoring
    rates = pd.read_csv(tmp_path / "ll" / "rates.csv")
    assert len(rates) and "scoring" in got.stdout.lower()
    sel = want.to_frame()
    assert sorted(rates.columns) == sorted(sel.columns)
    cfg = {
        "data": "h.csv", "decision": {"score": "points", "threshold": 11}, "favorable": 1,
        "features": {"points": "numeric"}, "protected": {"sel": 1},
        "analyses": {"ll144": {"categories": {"sex": "sex"}, "score": True}},
    }  # fmt: skip
    (tmp_path / "a.yaml").write_text(yaml.safe_dump(cfg))
    audit = _run("ll144", "--config", str(tmp_path / "a.yaml"), "--out", str(tmp_path / "cfg"))
    assert audit.returncode == 0, audit.stderr
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "cfg" / "rates.csv"), rates)
    bad = _run("ll144", "--data", str(tmp_path / "h.csv"), "--decision", "sex",
               "--score", "true", "--category", "sex=race")  # fmt: skip
    assert bad.returncode == 2 and "--score" in bad.stderr + bad.stdout
