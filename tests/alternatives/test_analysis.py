"""The search as an audit analysis: its run, numbers, tables and report section."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from primafacie.alternatives.analysis import ANALYSIS, check, headline_number, run, section
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
    assert headline_number(proxy_run) == f"found among {n['candidates']} candidates"
    assert list(proxy_run.tables) == ["alternatives_candidates"]
    assert proxy_run.headline == res.headline()


def test_section_has_the_verdict_figure_and_every_candidate(proxy_run):
    sec = section(proxy_run, None, {})
    assert sec["findings"][0] == proxy_run.headline
    assert sec["findings"][1].startswith("Search space: ")
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


def test_spec_refuses_unbounded_work():
    with pytest.raises(ValueError, match="analyses.alternatives.n_boot"):
        AlternativesSpec(n_boot=10**9)
    with pytest.raises(ValueError, match="estimators"):
        AlternativesSpec(estimators=["svm"])
