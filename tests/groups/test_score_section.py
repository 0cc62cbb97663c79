"""Score metrics in an audit (src/primafacie/groups/score_section.py): the check, the tables,
results.json, the report section and exit 2 for a bad key."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml

from primafacie.config import AuditConfig
from primafacie.errors import InputError
from primafacie.groups.analysis import check
from primafacie.groups.spec import GroupsSpec


def _inputs(tmp_path, groups: dict, decision: dict | None = None) -> dict:
    rng = np.random.default_rng(4)
    n = 400
    sex = rng.choice(["f", "m"], n)
    decile = np.clip(rng.integers(1, 11, n) + (sex == "f") * rng.integers(0, 3, n), 1, 10)
    y = (rng.random(n) < 0.9 - decile / 12).astype(int)
    pd.DataFrame({"sex": sex, "decile": decile, "norecid": y}).to_csv(tmp_path / "d.csv",
                                                                      index=False)  # fmt: skip
    return {
        "data": "d.csv",
        "decision": decision or {"score": "decile", "threshold": 5, "favorable": "below"},
        "outcome": "norecid", "features": {}, "protected": {"sex": "f"},
        "analyses": {"groups": groups},
    }  # fmt: skip


def test_check_needs_a_score_for_thresholds_or_sweep():
    base = {"data": "x.csv", "features": {}, "protected": {"sex": "f"}}
    column = AuditConfig(**base, decision={"column": "d"})
    scored = AuditConfig(**base, decision={"score": "s", "threshold": 2})
    for spec in (GroupsSpec(thresholds=[3, 5]), GroupsSpec(sweep=True)):
        check(spec, scored)
        with pytest.raises(InputError, match=r"analyses.groups.(thresholds|sweep) needs a score"):
            check(spec, column)
    check(GroupsSpec(), column)
    assert GroupsSpec(thresholds=5).thresholds == [5.0]  # one number is a list of one


def test_audit_writes_the_tables_numbers_figures_and_sentences(tmp_path):
    from primafacie.audit import run_audit
    from primafacie.config import load_config
    from primafacie.report import validate_results

    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(_inputs(tmp_path, {"sweep": True})))
    run_audit(load_config(tmp_path / "audit.yaml"), tmp_path / "out", progress=False)
    out = tmp_path / "out"
    doc = json.loads((out / "results.json").read_text())
    validate_results(doc)
    groups = doc["analyses"]["groups"]
    for name in ("thresholds", "auc", "calibration"):
        assert f"tables/groups_{name}.csv" in groups["tables"]
    thresholds = pd.read_csv(out / "tables" / "groups_thresholds.csv")
    assert sorted(thresholds["threshold"].unique()) == list(range(1, 11))  # a decile score
    scores = groups["numbers"]["scores"]
    assert scores["grid"] == "sweep" and scores["thresholds"] == 10
    assert scores["audited_threshold"] == 5 and scores["favorable"] == "below"
    # the audited threshold's row is the group metrics' comparison
    at = thresholds[thresholds["audited"] & (thresholds["role"] == "protected")].iloc[0]
    comparison = groups["numbers"]["comparisons"][0]
    assert (at["k"], at["n"]) == (comparison["selection_k"], comparison["selection_n"])
    assert at["ratio"] == pytest.approx(comparison["selection_ratio"], rel=1e-12)
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "Score decile: thresholds, AUC and calibration" in html
    assert "impact ratio and selection rates by threshold of decile" in html
    assert "calibration of decile" in html and "DeLong" in html
    first = scores["below_four_fifths"][0]
    if first["below"]:  # the sentence quotes the run of the table
        a, b = first["below_runs"][0]
        assert f"below 0.8 at thresholds from {a:g} to {b:g}" in html or f"threshold {a:g}" in html


@pytest.mark.parametrize(
    "groups, decision, message",
    [
        ({"thresholds": ["five"]}, None, "analyses.groups.thresholds"),
        ({"thresholds": []}, None, "analyses.groups.thresholds"),
        ({"sweep": "yes"}, None, "analyses.groups.sweep"),
        ({"sweep": True}, {"column": "decile"}, "analyses.groups.sweep needs a score"),
    ],
)
def test_a_bad_threshold_list_or_a_missing_score_exits_2(tmp_path, groups, decision, message):
    from typer.testing import CliRunner

    from primafacie.cli import app

    doc = _inputs(tmp_path, groups, decision)
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(doc))
    args = ["audit", str(tmp_path / "audit.yaml"), "--out", str(tmp_path / "out"), "--no-progress"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2, res.output
    assert message in " ".join(res.output.split())
    assert "Traceback" not in res.output and not (tmp_path / "out").exists()
