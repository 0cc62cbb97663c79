"""``primafacie diff``: the demo against itself changes nothing; two worlds whose loan officer
is more biased in the new one show a significant fall of the women's selection ratio and list
the complainants flagged only in the new audit; outputs are self-contained and escaped."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from typer.testing import CliRunner

from primafacie.cli import app
from primafacie.commands import _common
from tests.overtime.worlds import biased_audits, demo_audit

runner = CliRunner()


@pytest.fixture(autouse=True)
def wide_consoles(monkeypatch):
    monkeypatch.setattr(_common.err_console, "width", 400)
    monkeypatch.setattr(_common.console, "width", 300)


@pytest.fixture(scope="module")
def demo():
    return demo_audit()


@pytest.fixture(scope="module")
def worlds():
    return biased_audits()


def test_demo_against_itself_changes_nothing(demo, tmp_path):
    out = tmp_path / "diff"
    res = runner.invoke(app, ["diff", str(demo), str(demo / "results.json"), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "no significant change" in res.output
    doc = json.loads((out / "diff.json").read_text(encoding="utf-8"))
    changes = pd.DataFrame(doc["changes"])
    # every analysis of the demo contributes numbers, and none of them moved
    assert set(changes["analysis"]) == {"groups", "situation", "recourse", "principal", "certainty"}
    assert not changes["changed"].any()
    ranks = changes[changes["path"] == "recourse.rank"]
    assert len(ranks) and (ranks["change"] == 0).all()  # the top subgroups keep their ranks
    assert (changes["significant"] != True).all()  # noqa: E712 - None (no test) or False
    tested = changes[changes["p_value"].notna()]
    assert len(tested) > 20 and (tested["change"] == 0).all() and (tested["p_value"] == 1).all()
    assert doc["only_in"] == [] and doc["not_compared"] == []
    people = pd.read_csv(out / "diff_complainants.csv")
    assert len(people) and set(people["status"]) == {"stayed"}
    assert doc["complainants"] == [] and doc["complainants_stayed"] == len(people)
    # reruns are byte-identical
    again = tmp_path / "again"
    runner.invoke(app, ["diff", str(demo), str(demo), "--out", str(again)])
    for name in ("diff.json", "diff.csv", "diff.html", "diff_complainants.csv"):
        assert (out / name).read_bytes() == (again / name).read_bytes(), name


def test_raised_bias_is_significant_and_lists_new_complainants(worlds, tmp_path):
    old, new = worlds
    out = tmp_path / "diff"
    res = runner.invoke(app, ["diff", str(old), str(new), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "significant changes" in res.output and "groups.selection_ratio" in res.output
    changes = pd.read_csv(out / "diff.csv")
    ratio = changes[(changes["path"] == "groups.selection_ratio")].iloc[0]
    assert ratio["where"] == "attribute=gender; group=female"
    assert ratio["new"] < ratio["old"] and ratio["ci_high"] < 0 and ratio["significant"]
    ref = changes[changes["path"] == "groups.reference_rate"].iloc[0]
    assert not ref["significant"]  # men are decided as before
    people = pd.read_csv(out / "diff_complainants.csv", dtype={"id": str})
    appeared = people[people["status"] == "appeared"]
    assert len(appeared) > 50
    assert (appeared["new_significant"] & ~appeared["old_significant"]).all()
    old_flags = pd.read_csv(old / "tables/situation_single_gender.csv", dtype={"id": str})
    new_flags = pd.read_csv(new / "tables/situation_single_gender.csv", dtype={"id": str})
    flag = "significant_adjusted"
    only_new = set(new_flags.loc[new_flags[flag], "id"]) - set(old_flags.loc[old_flags[flag], "id"])
    assert set(appeared["id"]) == only_new
    listed = json.loads((out / "diff.json").read_text(encoding="utf-8"))["complainants"]
    assert {p["id"] for p in listed if p["status"] == "appeared"} == only_new
    flags = changes[changes["path"] == "situation.flags"].iloc[0]
    assert flags["significant"] and f"{len(appeared)} appeared" in flags["note"]
    html = (out / "diff.html").read_text(encoding="utf-8")
    assert "Complainants whose flag moved" in html and str(appeared["id"].iloc[0]) in html


def test_config_difference_is_listed_not_compared(demo, tmp_path):
    doc = json.loads((demo / "results.json").read_text(encoding="utf-8"))
    doc["config"]["analyses"]["situation"]["alpha"] = 0.01
    doc["config"]["protected"]["gender"] = ["male"]
    (tmp_path / "results.json").write_text(json.dumps(doc), encoding="utf-8")
    res = runner.invoke(app, ["diff", str(demo), str(tmp_path), "--out", str(tmp_path / "d")])
    assert res.exit_code == 0, res.output
    out = json.loads((tmp_path / "d" / "diff.json").read_text(encoding="utf-8"))
    keys = {d["key"] for d in out["not_compared"]}
    assert {"protected.gender", "analyses.situation.alpha"} <= keys
    assert out["changes"] == []  # a different protected group: nothing is comparable
    html = (tmp_path / "d" / "diff.html").read_text(encoding="utf-8")
    assert "Not compared: configuration differs" in html


def test_hostile_labels_are_escaped_and_nothing_is_fetched(demo, tmp_path):
    doc = json.loads((demo / "results.json").read_text(encoding="utf-8"))
    for side in ("old", "new"):
        d = json.loads(json.dumps(doc))
        for c in d["analyses"]["groups"]["numbers"]["comparisons"]:
            c["group"] = '<script>alert(1)</script>=HYPERLINK("http://x")'
        (tmp_path / side).mkdir()
        (tmp_path / side / "results.json").write_text(json.dumps(d), encoding="utf-8")
    res = runner.invoke(app, ["diff", str(tmp_path / "old"), str(tmp_path / "new"),
                              "--out", str(tmp_path / "d")])  # fmt: skip
    assert res.exit_code == 0, res.output
    html = (tmp_path / "d" / "diff.html").read_text(encoding="utf-8")
    assert "<script>alert" not in html and "&lt;script&gt;alert" in html
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert not re.search(r"(src|href)=\"https?:", html)


@pytest.mark.parametrize(
    "version, words", [("2", "schema_version '2' is not supported"), (None, "no schema_version")]
)
def test_unsupported_version_exits_2(demo, tmp_path, version, words):
    doc = json.loads((demo / "results.json").read_text(encoding="utf-8"))
    doc.pop("schema_version")
    if version is not None:
        doc["schema_version"] = version
    (tmp_path / "results.json").write_text(json.dumps(doc), encoding="utf-8")
    res = runner.invoke(app, ["diff", str(demo), str(tmp_path), "--out", str(tmp_path / "d")])
    assert res.exit_code == 2
    assert words in res.output and "Traceback" not in res.output
    assert not (tmp_path / "d").exists()


def test_missing_audit_exits_2(tmp_path):
    res = runner.invoke(app, ["diff", str(tmp_path / "a"), str(tmp_path / "b")])
    assert res.exit_code == 2 and "no audit found" in res.output
