"""The principal analysis in an audit: run adapter (through the spec) and report section."""

import numpy as np
import pandas as pd
import pytest

from primafacie.analysis import Context
from primafacie.data import AuditData
from primafacie.principal.analysis import ANALYSIS, run, section
from primafacie.principal.spec import PrincipalSpec

TABLE4 = np.array([[[0.53, 0.04], [0.11, 0.32]], [[0.90, 0.02], [0.03, 0.05]]])


@pytest.fixture(scope="module")
def data():
    parts = []
    for a, label in enumerate(("f", "m")):
        for s in (0, 1):
            for y in (0, 1):
                k = int(round(TABLE4[a, s, y] * 100))
                parts.append(pd.DataFrame({"g": [label] * k, "s": s, "y": y}))
    df = pd.concat(parts, ignore_index=True)
    return AuditData(df, features={}, protected={"g": "f"}, decision="s", outcome="y")


def test_run_takes_words_from_the_results(data):
    spec = PrincipalSpec(definitions=[2])
    out = run(spec, Context(config=None, data=data))
    res = out.results["evaluation"]
    assert (
        out.headline
        == res.headline()
        == (
            "1 of 1 checks refute principal-stratum fairness for g (200 people) — "
            "Definition 2 (all): violated, minimal repair ε = 0.0111. Also checked, the table's "
            "other definitions (3 and 4 are comparisons, not principal-stratum fairness): 3 of "
            "3 violated — Definition 1 (all): violated; Definition 3 (all): violated; "
            "Definition 4 (all): violated"
        )
    )
    assert out.scope == res.scope()
    assert out.scope.startswith("g: 100 protected (f, A=0) and 100 other people (m, A=1)")
    assert out.caveats[0] == res.note and len(out.caveats) == len(set(out.caveats))
    assert out.numbers["violations"] == 1 and out.numbers["checks"] == 1
    assert set(out.tables) == {
        "principal_evaluation", "principal_evaluation_summary", "principal_repair",
        "principal_repair_summary",
    }  # fmt: skip


def test_run_builds_through_the_spec(data, monkeypatch):
    calls = []
    original = PrincipalSpec.build

    def spy(self, d, ctx=None):
        calls.append((self, d, ctx))
        return original(self, d, ctx)

    monkeypatch.setattr(PrincipalSpec, "build", spy)
    ctx = Context(config=None, data=data)
    run(PrincipalSpec(definitions=[2]), ctx)
    assert len(calls) == 1 and calls[0][1] is data and calls[0][2] is ctx


def test_section_reads_the_results_only(data):
    out = run(PrincipalSpec(definitions=[2]), Context(config=None, data=data))
    sec = section(out, None, {})  # no configuration needed: the Results carry the definitions
    assert sec["findings"][0] == "Coding of the protected attribute: A=1: g = m; A=0: g = f."
    assert sec["findings"][1].startswith("Definition 2, cell all (100 with A=1 = m, 100 with")


def test_definition():
    assert ANALYSIS.name == "principal" and ANALYSIS.spec is PrincipalSpec
    assert ANALYSIS.needs_outcome


def test_the_section_states_the_pooled_values_of_a_listed_reference():
    df = pd.DataFrame({"race": list("bowhx") * 40, "s": [0, 1, 1, 1, 0] * 40,
                       "y": [1, 0, 1, 0, 1] * 40})  # fmt: skip
    data = AuditData(df, features={}, decision="s", outcome="y", protected={
        "race": {"values": ["b", "o"], "reference": ["w", "h"]}}).compared()  # fmt: skip
    spec = PrincipalSpec(definitions=[2])
    ANALYSIS.check_data(spec, data, None)  # binary by construction: no error
    out = run(spec, Context(config=None, data=data))
    text = str(section(out, data, {}))
    assert "A=1: race = h, w (pooled); A=0: race = b, o (pooled)" in text
    assert out.scope.startswith("race: 80 protected (b, o (pooled), A=0) and 80 other people")
