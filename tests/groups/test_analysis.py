"""Group metrics in an audit: registered first, on by default, its section, results.json."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pandas as pd
import pytest
import yaml

from primafacie.analysis import Context
from primafacie.audit.registry import ANALYSES, requested
from primafacie.config import AuditConfig, config_schema, load_config
from primafacie.data import AuditData
from primafacie.groups.analysis import ANALYSIS, run, section
from primafacie.groups.spec import GroupsSpec


def _data() -> AuditData:
    df = pd.DataFrame({"sex": list("ffffmmmm"), "d": [1, 0, 0, 0, 1, 1, 0, 1],
                       "y": [1, 1, 0, 0, 1, 0, 0, 1]})  # fmt: skip
    return AuditData(df, features={}, protected={"sex": "f"}, decision="d", outcome="y")


def test_registered_first_and_on_by_default():
    assert ANALYSES[0] is ANALYSIS and ANALYSIS.default_on
    assert not any(a.default_on for a in ANALYSES[1:])


def _config(**analyses) -> AuditConfig:
    base = {"data": "x.csv", "decision": {"column": "d"}, "features": {},
            "protected": {"sex": "f"}}  # fmt: skip
    return AuditConfig(**base, **({"analyses": analyses} if analyses else {}))


def test_absent_section_runs_with_the_defaults_and_null_turns_it_off():
    assert _config().analyses.groups == GroupsSpec()
    assert [a.name for a in requested(_config())] == ["groups"]
    assert _config(groups=None).analyses.groups is None
    assert requested(_config(groups=None)) == []
    assert _config(groups={"min_group": 50}).analyses.groups.min_group == 50
    # other analyses keep their rule: absent means not run
    assert _config().analyses.certainty is None


def test_yaml_null_turns_it_off(tmp_path):
    (tmp_path / "x.csv").write_text("sex,d\nf,1\nm,0\n")
    text = "data: x.csv\ndecision: {column: d}\nfeatures: {}\nprotected: {sex: f}\n"
    (tmp_path / "a.yaml").write_text(text)
    (tmp_path / "b.yaml").write_text(text + "analyses: {groups: null}\n")
    assert load_config(tmp_path / "a.yaml").analyses.groups == GroupsSpec()
    assert load_config(tmp_path / "b.yaml").analyses.groups is None


def test_schema_describes_the_section_and_its_keys():
    text = json.dumps(config_schema())
    assert "on by default; groups: null turns it off" in text
    assert "Groups with fewer members are flagged" in text


def test_spec_constraints_name_the_flag_and_the_key():
    with pytest.raises(ValueError, match=r"alpha must be a number in \(0, 1\); got 0 "
                                         r"\(--alpha, analyses.groups.alpha\)"):  # fmt: skip
        GroupsSpec(alpha=0)
    with pytest.raises(ValueError, match="intersections"):
        GroupsSpec(intersections="pairs")
    assert GroupsSpec(protected="sex").protected == ["sex"]


def test_spec_builds_the_engine_with_its_defaults():
    from primafacie.groups import GroupMetrics

    built, plain = GroupsSpec().build(), GroupMetrics()
    assert repr(built) == repr(plain)
    assert GroupsSpec(min_group=7, alpha=0.1, intersections="none").build().intersections == "none"


def test_run_and_section_read_the_result():
    ctx = Context(config=SimpleNamespace(), data=_data())
    out = run(GroupsSpec(min_group=2), ctx)
    res = out.results["metrics"]
    assert out.headline == res.headline() and out.scope == res.scope()
    assert out.caveats == tuple(res.caveats())
    # f: 1 of 4 favourable, m: 3 of 4 -> ratio 1/3, below four-fifths
    assert out.numbers["below_four_fifths"] == 1 and out.numbers["protected_groups"] == 1
    assert out.numbers["comparisons"][0]["selection_k"] == 1
    # the run's numbers are the Result's own; the smallest ratio is f's 1/4 over m's 3/4
    assert dict(out.numbers) == res.numbers() and res.extra_tables() == {}
    low = out.numbers["min_selection_ratio"]
    assert low["value"] == pytest.approx(1 / 3) and (low["selection_k"], low["reference_k"]) == (
        1,
        3,
    )
    assert set(out.tables) == {"groups_metrics", "groups_metrics_summary"}
    sec = section(out, None, {})
    kinds = [b["kind"] for b in sec["blocks"]]
    assert kinds == ["figure", "table", "table"]
    text = str(sec["blocks"])
    assert "tables/groups_metrics_summary.csv" in text and "tables/groups_metrics.csv" in text
    assert "25.0% (1 of 4)" in text and "Katz" in text
    assert sec["findings"][0] == out.headline


def test_audit_results_json_validates_with_the_section(tmp_path):
    from primafacie.audit import run_audit
    from primafacie.report import validate_results
    from tests.shared import demo_inputs, private_copy

    path = private_copy(demo_inputs(n=300, seed=0), tmp_path / "in") / "audit.yaml"
    raw = yaml.safe_load(path.read_text())
    assert raw["analyses"]["groups"] == {"min_group": 30, "alpha": 0.05, "intersections": "all"}
    # group metrics alone: quick (the alternatives search runs by default with a model)
    raw["analyses"] = {"groups": raw["analyses"]["groups"], "alternatives": False}
    path.write_text(yaml.safe_dump(raw))
    res = run_audit(load_config(path), tmp_path / "out", progress=False)
    doc = json.loads((tmp_path / "out" / "results.json").read_text())
    validate_results(doc)
    groups = doc["analyses"]["groups"]
    assert groups["status"] == "ok" and groups["headline"].startswith("Four-fifths rule:")
    assert set(groups["tables"]) == {
        "tables/groups_metrics.csv", "tables/groups_metrics_summary.csv",
    }  # fmt: skip
    for rel in groups["tables"]:
        assert (tmp_path / "out" / rel).is_file()
    html = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert 'id="sec-groups"' in html and "Group metrics" in html
    assert res.summary()["status"].tolist() == ["ok"]


def test_check_names_an_unknown_attribute_before_any_data():
    from primafacie.errors import InputError
    from primafacie.groups.analysis import check

    check(GroupsSpec(protected=["sex"]), _config())
    with pytest.raises(InputError, match=r"analyses.groups.protected: \['age'\] are not "
                                         r"protected attributes; protected: \['sex'\]"):  # fmt: skip
        check(GroupsSpec(protected=["age"]), _config())
