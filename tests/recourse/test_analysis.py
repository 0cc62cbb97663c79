"""The recourse analysis (src/primafacie/recourse/analysis.py): run adapter and report section.

The world is the one of tests/recourse/test_results.py (counted by hand there): rejected 20 a
and 60 b; edu=lo needs cost 2 for a and 4 for b.
"""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from primafacie.analysis import AnalysisRun, Context, table_stem
from primafacie.audit.registry import ANALYSES
from primafacie.data import AuditData
from primafacie.decisions import Rule
from primafacie.recourse import CSCResult, FactsResult, RecourseFairness
from primafacie.recourse.analysis import ANALYSIS, run, section, shown_subgroups
from primafacie.recourse.spec import RecourseSpec

RULE = Rule("(edu == 'hi') or ((g == 'a') and (edu == 'mid'))")
KINDS = {"edu": {"ordinal": ["lo", "mid", "hi"]}, "job": "categorical"}


def world() -> AuditData:
    df = pd.DataFrame(
        {
            "g": ["a", "b"] * 60,
            "edu": ["lo", "lo", "mid", "mid", "hi", "lo"] * 20,
            "job": ["x"] * 60 + ["y"] * 60,
        }
    )
    return AuditData(df, features=KINDS, protected={"g": "b"})


@pytest.fixture(scope="module")
def done() -> AnalysisRun:
    data = world()
    ticks = []
    ctx = Context(config=None, data=data, decider=RULE, tick=lambda d, t, n: ticks.append(n))
    spec = RecourseSpec(support=0.1, phi=[0.5], feature_weights={"edu": 2}, top=2)
    out = run(spec, ctx)
    assert ticks[0].startswith("FACTS: frequent itemsets") and ticks[-1].startswith(
        "FACTS: counter"
    )
    return out


def test_registered_once():
    assert [a for a in ANALYSES if a.name == "recourse"] == [ANALYSIS]
    assert ANALYSIS.spec is RecourseSpec and ANALYSIS.run is run and ANALYSIS.section is section


def test_run_takes_words_from_the_result(done):
    facts = done.results["definitions"]
    assert isinstance(facts, FactsResult)
    assert done.headline == facts.headline()
    assert done.headline.startswith(
        "6 of 8 recourse definitions rank first a subgroup biased against the protected group "
        "(b) of g; 5 subgroups audited"
    )
    assert done.scope == facts.scope() and done.caveats == tuple(facts.caveats())
    assert done.numbers["top_by_definition"][0] == {
        "definition": "Ma.5", "title": "Equal Cost of Effectiveness (threshold = 0.5)",
        "subgroup": "edu=lo", "bias_against": "b", "score": 2.0,
    }  # fmt: skip


def test_run_builds_csc_with_spec_top_for_ranked_definitions_only(done):
    cscs = {k: v for k, v in done.results.items() if k.startswith("csc_")}
    ranked = [lab for lab, r in done.results["definitions"].rankings.items() if len(r.ranked())]
    assert sorted(cscs) == sorted(f"csc_{lab}" for lab in ranked)
    assert all(isinstance(c, CSCResult) and len(c.records) <= 2 for c in cscs.values())
    assert len(cscs["csc_Ma.5"].records) == 2  # three subgroups tie at rank 1; top = 2


def test_curves_table_is_the_results_curves(done):
    facts = done.results["definitions"]
    shown = shown_subgroups(done.results)
    assert shown[0] == "edu=lo"
    table = done.tables[table_stem("recourse", "curves")]
    first = table[table["subgroup"] == "edu=lo"].drop(columns="subgroup").reset_index(drop=True)
    pd.testing.assert_frame_equal(first, facts.effectiveness_curves("edu=lo"))


def _objects(obj, seen=None):
    """Every object reachable through dataclass fields, dicts, lists and tuples."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return
    seen.add(id(obj))
    yield obj
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        children = [getattr(obj, f.name) for f in dataclasses.fields(obj)]
    elif isinstance(obj, dict):
        children = list(obj.values())
    elif isinstance(obj, (list, tuple)):
        children = list(obj)
    else:
        children = []
    for child in children:
        yield from _objects(child, seen)


def test_results_carry_no_engine(done):
    """The report reads Results only: nothing in them leads back to the fitted engine."""
    assert not any(isinstance(o, RecourseFairness) for o in _objects(dict(done.results)))


def test_section_reads_only_results(done):
    body = section(done, None, {})
    facts = done.results["definitions"]
    assert body["findings"][0] == (
        "Equal cost of effectiveness, φ = 0.5 (Ma.5): most unfair subgroup 'edu=lo', bias "
        "against b (score 2)."
    )  # the definition named in words, its code in brackets
    assert len(body["findings"]) == len(facts.top_subgroups())
    kinds = [b["kind"] for b in body["blocks"]]
    assert kinds[0] == "table" and "cards" in kinds and kinds[-1] == "table"
    titles = [b.get("title", "") for b in body["blocks"]]
    assert "Subgroup edu=lo" in titles  # each subgroup's curves in a collapsible group
    group = body["blocks"][titles.index("Subgroup edu=lo")]
    assert group["kind"] == "group" and group["open"] is True
    assert [b["title"] for b in group["blocks"]] == ["Cumulative effectiveness: edu=lo"]
    assert body["blocks"][-1]["note"].endswith("full table: tables/recourse_rank_ma_5.csv")
    assert (table_stem("recourse", "rank_Ma.5")) in done.tables  # the link names a written table
    # a run holding the results and nothing else gives the same section
    bare = AnalysisRun("recourse", "ok", results=dict(done.results))
    assert section(bare, None, {})["findings"] == body["findings"]


def test_rank_stability_in_the_run_tables_and_section(done):
    from primafacie.recourse.spec import DEFAULT_N_BOOT
    from primafacie.recourse.stability import RankStabilityResult

    stab = done.results["rank_stability"]
    assert isinstance(stab, RankStabilityResult) and stab.n_boot == DEFAULT_N_BOOT
    assert table_stem("recourse", "rank_stability") in done.tables
    body = section(done, None, {})
    titles = [b.get("title", "") for b in body["blocks"]]
    assert f"Rank stability over {DEFAULT_N_BOOT} resamples" in titles
    assert ANALYSIS.seeds(RecourseSpec()) == {"recourse_rank_stability": 0}


def test_rank_stability_off_with_n_boot_0():
    ctx = Context(config=None, data=world(), decider=RULE)
    spec = RecourseSpec(support=0.1, phi=[0.5], feature_weights={"edu": 2}, top=2, n_boot=0)
    out = run(spec, ctx)
    assert "rank_stability" not in out.results
    assert ANALYSIS.seeds(spec) == {}
    with pytest.raises(ValueError, match="n_boot"):
        RecourseSpec(n_boot=-1)


def test_run_arguments_replace_the_spec_ones():
    """``run(..., budgets=...)`` (the CLI's --budget) replaces the automatic budgets; the
    engine given is the one run (the command adjusts it with --legacy/--loose)."""
    data = world()
    spec = RecourseSpec(support=0.1, phi=[0.5], metrics=["EEWB"], n_boot=0)
    engine = spec.build(data, Context(config=None, data=data, decider=RULE))
    out = run(spec, Context(config=None, data=data, decider=RULE), audit=engine, budgets=[1.5])
    facts = out.results["definitions"]
    assert facts.budgets == (1.5,) and list(facts.rankings) == ["B1.5"]
    assert engine.table_ is not None  # fitted: the run used the engine given
    auto = run(spec, Context(config=None, data=data, decider=RULE)).results["definitions"]
    assert auto.budgets != (1.5,)


def test_a_card_shows_the_action_behind_the_score_and_says_it_is_cut():
    """EE compares each group's most effective action: the demo's card listed the three
    cheapest (19.6% vs 40.3%) under a score of 0.336 = 61.0% − 27.5%, and never said it was
    cut short."""
    from primafacie.recourse.analysis import _csc_card
    from primafacie.recourse.csc import CSCAction, CSCGroup, CSCRecord
    from primafacie.recourse.results import RankingResult

    def acts(counts, n):
        return tuple(CSCAction({"x": f"v{i}"}, k / n, k, n, 1.0 + i, False)
                     for i, k in enumerate(counts))  # fmt: skip

    female = CSCGroup("female", 51, 0.1, 14 / 51, acts([5, 10, 7, 14], 51))
    male = CSCGroup("male", 77, 0.1, 47 / 77, acts([31, 20], 77))
    score = 47 / 77 - 14 / 51
    rec = CSCRecord({"x": "a"}, "x=a", 1, score, "female", "EE", (female, male))
    ranking = RankingResult("EE", "macro", None, "EE", "EE", ("female", "male"), pd.DataFrame())
    text = [line["text"] for line in _csc_card(ranking, rec)["lines"]]
    actions = [t for t in text if t.startswith("  make")]
    assert actions[:4] == [
        "  make x = v0: 9.8% (5 of 51) obtain the favourable decision",
        "  make x = v1: 19.6% (10 of 51) obtain the favourable decision",
        "  make x = v3: 27.5% (14 of 51) obtain the favourable decision",  # the best, kept
        "  make x = v0: 40.3% (31 of 77) obtain the favourable decision",
    ]
    assert "  3 of 4 actions shown (every one in csc_EE.txt)" in text
    assert sum("actions shown" in t for t in text) == 1  # male's two are all shown
    assert text[-1] == f"bias against female (score {score:.3g})" and f"{score:.3g}" == "0.336"
