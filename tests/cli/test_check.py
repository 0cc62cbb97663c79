"""``primafacie check`` on the demo: passing gates exit 0, a failing gate 1, a malformed gate
file 2 (naming the gate), JUnit XML with the structure the JUnit schema requires, and a
baseline gate against an earlier audit."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

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


def _check(tmp_path, results, text, *extra):
    gates = tmp_path / "gates.yaml"
    gates.write_text(text, encoding="utf-8")
    return runner.invoke(app, ["check", str(results), "--gates", str(gates), *extra])


PASSING = """
gates:
  groups.min_selection_ratio: {min: 0.01}
  situation.significant_adjusted_share: {max: 1.0, method: cst, k: 10}
  principal.violations: {max: 2}
  certainty.selected: {equals: [scorecard]}
  data.n: {equals: 200}
"""


def test_passing_gates_exit_0_with_junit(demo, tmp_path):
    junit = tmp_path / "gates.xml"
    # the selection of the small demo is read back so the gate is known to hold
    sel = json.loads((demo / "results.json").read_text())["analyses"]["certainty"]["numbers"]
    res = _check(tmp_path, demo, PASSING.replace("[scorecard]", json.dumps(sel["selected"])),
                 "--junit", str(junit))  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "all 5 gate(s) hold" in res.output
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite.get("tests") == "5" and suite.get("failures") == "0"
    assert [c.get("name") for c in suite.findall("testcase")][0] == "groups.min_selection_ratio"


def test_failing_gate_exits_1_and_junit_names_it(demo, tmp_path):
    junit = tmp_path / "gates.xml"
    res = _check(tmp_path, demo, "groups.min_selection_ratio: {min: 0.99}\ndata.n: {min: 1}\n",
                 "--junit", str(junit))  # fmt: skip
    assert res.exit_code == 1, res.output
    assert "1 of 2 gate(s) fail: groups.min_selection_ratio" in res.output
    root = ET.parse(junit).getroot()
    assert root.tag == "testsuites" and root.get("failures") == "1"
    suite = root.find("testsuite")
    for attr in ("name", "tests", "failures", "errors", "time", "timestamp", "hostname"):
        assert attr in suite.attrib, attr
    first, second = suite.findall("testcase")
    assert {"name", "classname", "time"} <= set(first.attrib)
    fail = first.find("failure")
    assert fail is not None and "min 0.99" in fail.get("message") and fail.get("type")
    assert second.find("failure") is None


@pytest.mark.parametrize(
    "text, words",
    [
        ("groups.min_selection_ratio: {min: high}\n",
         "gate 'groups.min_selection_ratio': min must be a number, got 'high'"),
        ("groups.min_ratio: {min: 0.8}\n", "gate 'groups.min_ratio': no such value"),
        ("groups.min_selection_ratio: {baseline: no_significant_fall}\n", "give --baseline"),
        ("a: [\n", "not valid YAML"),
    ],
)  # fmt: skip
def test_malformed_gate_file_exits_2(demo, tmp_path, text, words):
    res = _check(tmp_path, demo, text, "--junit", str(tmp_path / "x.xml"))
    assert res.exit_code == 2, res.output
    assert words in res.output and "Traceback" not in res.output
    assert not (tmp_path / "x.xml").exists()


def test_baseline_gate_catches_a_significant_fall(tmp_path):
    old, new = biased_audits()
    text = "groups.selection_ratio: {baseline: no_significant_fall, attribute: gender}\n"
    res = _check(tmp_path, new, text, "--baseline", str(old))
    assert res.exit_code == 1, res.output
    assert "no_significant_fall" in res.output
    res = _check(tmp_path, old, text, "--baseline", str(old))
    assert res.exit_code == 0, res.output
