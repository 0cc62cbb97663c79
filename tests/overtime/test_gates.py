"""Release gates: parsing and validation (each error names the gate), evaluation on a
hand-made results.json, strict intervals, baseline gates and the JUnit XML."""

from __future__ import annotations

import copy
import json
import xml.etree.ElementTree as ET

import pytest

from primafacie.errors import InputError
from primafacie.overtime.gates import evaluate_gates, junit_xml, load_gates
from primafacie.overtime.reader import read_results

DOC = {
    "schema_version": "1",
    "config": {"protected": {"gender": ["female"]}, "analyses": {}},
    "data": {"n": 500},
    "files": [],
    "analyses": {
        "groups": {
            "status": "ok",
            "numbers": {
                "min_selection_ratio": {"value": 0.85, "value_low": 0.78, "value_high": 0.93,
                                        "selection_k": 170, "selection_n": 250,
                                        "reference_k": 200, "reference_n": 250},
                "comparisons": [{"attribute": "gender", "group": "female", "selection_k": 170,
                                 "selection_n": 250, "reference_k": 200, "reference_n": 250,
                                 "selection_ratio": 0.85}],
            },
        },
        "situation": {
            "status": "ok",
            "numbers": {"by_test": [
                {"test": "single_gender", "method": "cst", "k": 30, "significant_share": 0.04,
                 "significant_share_low": 0.02, "significant_share_high": 0.07},
                {"test": "single_gender", "method": "st", "k": 30, "significant_share": 0.2},
            ]},
        },
        "principal": {"status": "unavailable", "message": "no outcome", "numbers": {}},
    },
}  # fmt: skip


@pytest.fixture
def rec(tmp_path):
    (tmp_path / "results.json").write_text(json.dumps(DOC), encoding="utf-8")
    return read_results(tmp_path)


def _gates(tmp_path, text):
    p = tmp_path / "gates.yaml"
    p.write_text(text, encoding="utf-8")
    return load_gates(p)


def _run(tmp_path, rec, text, baseline=None):
    return evaluate_gates(rec, _gates(tmp_path, text), baseline)


def test_passing_and_failing_gates(tmp_path, rec):
    out = _run(
        tmp_path,
        rec,
        """
groups.min_selection_ratio: {min: 0.8}
situation.significant_share: {max: 0.05, method: cst, k: 30}
data.n: {min: 100, max: 1000}
situation.status: {equals: ok}
""",
    )
    assert [o.holds for o in out] == [True, True, True, True]
    assert "0.85 [0.78, 0.93]" in out[0].details[0]
    out = _run(
        tmp_path,
        rec,
        """
gates:
  groups.min_selection_ratio: {min: 0.9}
  situation.significant_share: {max: 0.05, k: 30}
""",
    )
    assert [o.holds for o in out] == [False, False]
    assert len(out[1].details) == 2  # both records with k = 30 are checked


def test_strict_needs_the_interval_to_clear(tmp_path, rec):
    out = _run(
        tmp_path,
        rec,
        """
strict: true
gates:
  groups.min_selection_ratio: {min: 0.8}
  situation.significant_share: {max: 0.05, method: cst}
""",
    )
    assert [o.holds for o in out] == [False, False]  # 0.78 < 0.8 and 0.07 > 0.05
    out = _run(tmp_path, rec, "groups.min_selection_ratio: {min: 0.75, strict: true}\n")
    assert out[0].holds
    with pytest.raises(InputError, match="strict.*no interval"):
        _run(tmp_path, rec, "situation.significant_share: {max: 0.5, method: st, strict: true}")


def test_an_analysis_that_did_not_run_fails_the_gate(tmp_path, rec):
    (o,) = _run(tmp_path, rec, "principal.violations: {equals: 0}\n")
    assert not o.holds and "did not run" in o.details[0]


@pytest.mark.parametrize(
    "text, words",
    [
        (
            "groups.min_selection_ratio: {min: high}\n",
            "'groups.min_selection_ratio': min must be a number, got 'high'",
        ),
        ("groups.min_selection_ratio: {above: 0.8}\n", "give at least one of min, max"),
        ("groups.min_selection_ratio: 0.8\n", "expected a mapping"),
        ("groups.min_selection_ratio: {min: 0.9, max: 0.1}\n", "min 0.9 is above max 0.1"),
        ("groups.min_selection_ratio: {min: 0.8, strict: maybe}\n", "strict must be true or false"),
        ("x: {baseline: up}\n", "baseline must be one of"),
        ("situation.significant_share: {max: 0.1, k: [1, 2]}\n", "filter k must be a single value"),
        ("- a\n- b\n", "expected a mapping of gates"),
        ("a: [\n", "not valid YAML"),
        ("gates: {}\n", "non-empty mapping"),
        ("..x: {min: 1}\n", "dotted JSON path"),
    ],
)
def test_malformed_gate_files_name_the_gate(tmp_path, text, words):
    with pytest.raises(InputError, match=words.replace("[", r"\[").replace("(", r"\(")):
        _gates(tmp_path, text)


def test_unknown_path_or_filter_is_bad_input(tmp_path, rec):
    with pytest.raises(InputError, match="no such value.*numbers has: comparisons, min_selection"):
        _run(tmp_path, rec, "groups.max_ratio: {min: 1}\n")
    with pytest.raises(InputError, match="filter 'methd' is not a field"):
        _run(tmp_path, rec, "situation.significant_share: {max: 1, methd: cst}\n")


def test_baseline_gate(tmp_path, rec):
    worse = copy.deepcopy(DOC)
    comp = worse["analyses"]["groups"]["numbers"]["comparisons"][0]
    comp.update(selection_k=100, selection_ratio=0.5)
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "results.json").write_text(json.dumps(worse), encoding="utf-8")
    new = read_results(tmp_path / "new")
    text = "groups.selection_ratio: {baseline: no_significant_fall, attribute: gender}\n"
    (fell,) = _run(tmp_path, new, text, baseline=rec)
    assert not fell.holds and "0.85 -> 0.5" in fell.details[0]
    (same,) = _run(tmp_path, rec, text, baseline=rec)
    assert same.holds
    (rise,) = _run(tmp_path, new, text.replace("fall", "rise"), baseline=rec)
    assert rise.holds
    with pytest.raises(InputError, match="give --baseline"):
        _run(tmp_path, new, text)


def test_junit_xml_has_the_schema_required_structure(tmp_path, rec, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    out = _run(
        tmp_path,
        rec,
        """
groups.min_selection_ratio: {min: 0.9}
'<script>&': {min: 0}
data.n: {min: 1}
""".replace("'<script>&': {min: 0}\n", ""),
    )
    xml = junit_xml(out)
    assert xml == junit_xml(out)  # deterministic with SOURCE_DATE_EPOCH
    root = ET.fromstring(xml)
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    # attributes the JUnit (Ant) schema requires of a testsuite and of a testcase
    for attr in ("name", "tests", "failures", "errors", "time", "timestamp", "hostname"):
        assert attr in suite.attrib
    assert suite.get("timestamp") == "1970-01-01T00:00:00"
    cases = suite.findall("testcase")
    assert int(suite.get("tests")) == len(cases) == 2
    assert int(suite.get("failures")) == 1
    for case in cases:
        assert {"name", "classname", "time"} <= set(case.attrib)
    failure = cases[0].find("failure")
    assert failure is not None and {"message", "type"} <= set(failure.attrib)
    assert cases[1].find("failure") is None
