"""The search as an audit analysis: its run, numbers, tables and report section."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from primafacie.alternatives.analysis import (
    ANALYSIS,
    check,
    default_when,
    finding,
    headline_number,
    run,
    section,
)
from primafacie.alternatives.spec import AlternativesSpec
from primafacie.analysis import Context
from primafacie.decisions import ModelDecider
from primafacie.errors import InputError

from .worlds import world


@pytest.fixture(scope="module")
def proxy_run():
    data, model = world("proxy")
    spec = AlternativesSpec(folds=3, n_boot=200)
    return run(spec, Context(config=None, data=data, decider=ModelDecider(model)))


def test_numbers_follow_the_result(proxy_run):
    n = proxy_run.numbers
    res = proxy_run.results["candidates"]
    assert n["lda_found"] is True and n["candidates"] == len(res.table) - 1
    for side in ("baseline", "best"):
        lo, hi = n[side]["utility_ci"]
        assert lo <= n[side]["utility"] <= hi
    assert n["best"]["estimator"] == "audited" and "proxy" in n["best"]["dropped"]
    best = res.best
    assert n["best"]["params"] == "" and n["best"]["threshold"] == best["threshold"]
    assert n["best"]["certainty_rank"] == int(best["certainty_rank"]) >= 1
    assert 0 <= n["best"]["p_most_fair"] <= 1
    assert n["baseline"]["disparity"] == res.baseline["holdout_disparity"]
    assert n["train"] == "audited rows" and "no training data file" in proxy_run.scope
    assert headline_number(proxy_run) == f"found among {n['candidates']} candidates"
    f = finding(proxy_run)
    assert (f["level"], f["badge"]) == ("concern", "alternative found")
    assert f["sentence"].endswith(f"found among {n['candidates']} candidates")
    assert list(proxy_run.tables) == ["alternatives_candidates", "alternatives_candidates_summary"]
    assert proxy_run.headline == res.headline()


def test_section_has_the_verdict_figure_and_every_candidate(proxy_run):
    sec = section(proxy_run, None, {})
    assert sec["findings"][0] == proxy_run.headline
    n = len(proxy_run.results["candidates"].table) - 1
    assert sec["findings"][1].startswith(
        f"Search space: {n} candidates besides the audited model ("
    )
    kinds = [b["kind"] for b in sec["blocks"] if b]
    assert "figure" in kinds and "table" in kinds
    table = next(b for b in sec["blocks"] if b and b["kind"] == "table")
    assert len(table["rows"]) == len(proxy_run.results["candidates"].table)


def test_needs_a_model_to_refit():
    cfg = SimpleNamespace(decision=SimpleNamespace(model=None, column="d", rule=None))
    with pytest.raises(InputError, match="decision: \\{model: FILE\\}"):
        check(AlternativesSpec(), cfg)
    data, _ = world("fair", n=200)
    with pytest.raises(InputError, match="refits the audited model"):
        run(AlternativesSpec(), Context(config=None, data=data, decider=None))
    assert ANALYSIS.needs_outcome and not ANALYSIS.default_on
    assert ANALYSIS.default_when is default_when


def test_on_by_default_only_with_a_refittable_model_and_an_outcome():
    model = {"decision": {"model": "m.skops"}, "outcome": "y"}
    assert default_when(model)
    assert not default_when({**model, "outcome": None})
    assert not default_when({"decision": {"model": "m.ONNX"}, "outcome": "y"})
    assert not default_when({"decision": {"column": "d"}, "outcome": "y"})
    assert not default_when({"decision": {"rule": "x > 1"}, "outcome": "y"})


def test_an_onnx_decision_is_unavailable_by_default_and_refused_when_asked():
    from primafacie.config import _implicit
    from primafacie.modelfiles import OnnxModel

    data, _ = world("fair", n=200)
    onnx = SimpleNamespace(estimator=OnnxModel.__new__(OnnxModel))
    ctx = Context(config=None, data=data, decider=onnx)
    res = run(_implicit(AlternativesSpec), ctx)
    assert res.status == "unavailable"
    assert "ONNX model cannot be refitted" in res.message and "scikit-learn" in res.message
    with pytest.raises(InputError, match="ONNX model cannot be refitted"):
        run(AlternativesSpec(), ctx)


def test_the_section_names_its_model_file():
    spec = AlternativesSpec(model="other.skops")
    assert [(role, key) for role, _, key in spec.model_files()] == [
        ("alternatives model", "analyses.alternatives.model")
    ]
    assert AlternativesSpec().model_files() == [] and not AlternativesSpec().by_default
    with pytest.raises(ValueError, match="model"):
        AlternativesSpec(model={"column": "d"})
    cfg = SimpleNamespace(decision=SimpleNamespace(model=None))
    check(spec, cfg)  # a column as the decision, the section's own model to refit: fine


def test_spec_refuses_unbounded_work():
    with pytest.raises(ValueError, match="analyses.alternatives.n_boot"):
        AlternativesSpec(n_boot=10**9)
    with pytest.raises(ValueError, match="estimators"):
        AlternativesSpec(estimators=["svm"])
    assert AlternativesSpec(estimators=[]).estimators is None  # asks for no other estimator
    assert AlternativesSpec.params[0].name == "drop_features"  # the declarations, not the key
    assert AlternativesSpec(params={"clf__C": [1.0]}).params == {"clf__C": [1.0]}


def test_the_candidate_table_names_its_disparity_measure_and_its_direction(proxy_run):
    """The columns said "disparity" over an impact ratio, which is better when higher: a lower
    value read as an improvement. The heading names the measure, the caption its direction."""
    from primafacie.alternatives.analysis import tables
    from primafacie.alternatives.results import DISPARITY_LABELS, DISPARITY_READS

    res = proxy_run.results["candidates"]
    (table,) = tables(res)
    kind = DISPARITY_LABELS[res.settings["disparity"]]
    assert res.settings["disparity"] == "impact_ratio"
    assert f"{kind} (CV)" in table["columns"] and f"{kind} (held out)" in table["columns"]
    assert not any(c.startswith("disparity") for c in table["columns"])
    assert "capped at 1 (higher is less disparity)" in table["caption"]
    assert set(DISPARITY_READS) == set(DISPARITY_LABELS)  # every measure reads in words
    shown = table["columns"].index(f"{kind} (CV)")
    first = res.to_frame()["cv_disparity"].iloc[0]
    assert table["rows"][0][shown][0] == f"{first:.3f}"
