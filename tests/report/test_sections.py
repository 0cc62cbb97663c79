"""Tests of the report context helpers (settings table, rate cells, assumptions)."""

from __future__ import annotations

import math

from primafacie.audit.registry import ANALYSES
from primafacie.report.blocks import rate_cell
from primafacie.report.sections import _assumptions, _flatten


def test_flatten_settings():
    out: list[tuple[str, str]] = []
    _flatten(
        "", {"a": None, "b": {}, "c": {"d": [1, 2], "e": [["x", "y"], ["y", "z"]]}, "f": 3}, out
    )
    assert out == [("b", "(none)"), ("c.d", "1, 2"), ("c.e", "x → y; y → z"), ("f", "3")]


def test_rate_cell_shows_denominator_and_sorts_by_rate():
    assert rate_cell(3, 12) == ("25.0% (3 of 12)", 0.25)
    text, key = rate_cell(0, 0)
    assert text == "— (0 of 0)" and math.isnan(key)


def test_assumptions_follow_the_configuration():
    cfg = {
        "causal": {"mechanism": "linear", "edges": [["a", "x"]]},
        "analyses": {
            "situation": {"k": [15, 30], "alpha": 0.05, "tau": 0.0, "interval": "wald",
                          "direction": "negative"},
            "principal": None, "certainty": None, "recourse": None,
        },
    }  # fmt: skip
    text = " ".join(_assumptions(cfg, ANALYSES))
    assert "linear structural equation" in text and "α = 0.05" in text and "Bonferroni" in text
    assert "unconfoundedness" not in text  # principal not run
    assert "k ∈ {15, 30}" in text  # a set of sizes, not an interval


# ---------------------------------------------------------------------- navigation (issue 14)
def _section_html(page: str, sid: str) -> str:
    start = page.index(f'<section id="{sid}"')
    return page[start : page.index("</section>", start)]


def test_headline_numbers_by_hand(demo_audit):
    from primafacie.report.sections import headline_number

    _, audit = demo_audit
    by_name = {a.name: a for a in ANALYSES}
    runs = audit.runs
    num = {name: headline_number(by_name[name], run) for name, run in runs.items()}
    # situation: significant cases (after the correction in force, BH) of each
    # single-attribute test's main method and k
    parts = []
    for label in ("single_gender", "single_race"):
        res = runs["situation"].results[label]
        method, k = res.main_test()
        row = res.summary().query("method == @method and k == @k").iloc[0]
        assert row["multiplicity"] == "bh"
        parts.append(f"{label[7:]} {row['n_significant_adjusted']} of {row['denominator']}")
    assert num["situation"] == "significant after BH: " + " · ".join(parts)
    # recourse: definitions whose first-ranked subgroup is against the protected group
    top = runs["recourse"].results["definitions"].top_subgroups()
    assert (
        num["recourse"]
        == f"{(top['bias_against'] == 'female').sum()} of 12 definitions against female"
    )
    groups = runs["groups"].numbers
    assert num["groups"] == (
        f"{groups['below_four_fifths']} of {groups['protected_groups']} groups below four-fifths"
    )
    # principal: every definition of the table is counted, the other ones too (issue 23)
    checks = runs["principal"].numbers
    summ = runs["principal"].results["evaluation"].summary()
    configured = list(runs["principal"].results["evaluation"].definitions)
    comp = summ[~summ["definition"].isin(configured) & summ["verdict"].ne("skipped")]
    assert (checks["other_checks"], checks["other_violations"]) == (
        len(comp),
        int((comp["verdict"] == "violated").sum()),
    )
    assert num["principal"] == (
        f"{checks['violations']} of {checks['checks']} checks refuted; other definitions "
        f"{checks['other_violations']} of {checks['other_checks']} violated"
    )
    table = runs["certainty"].results["ranking"].to_frame()
    sel = table[table["selected"]].iloc[0]
    assert num["certainty"] == (
        f"fairest of 4: {sel['decision_maker']}, disparity {sel['disparity']:.3f}"
    )


def test_a_failed_run_shows_its_status_as_headline_number():
    from primafacie.analysis import AnalysisRun
    from primafacie.report.sections import headline_number

    run = AnalysisRun(ANALYSES[0].name, "unavailable", message="no model")
    assert headline_number(ANALYSES[0], run) == "not available in this build"


def test_caveats_render_once_under_every_section(demo_audit):
    from markupsafe import escape

    out, audit = demo_audit
    page = (out / "report.html").read_text(encoding="utf-8")
    for name, run in audit.runs.items():
        body = _section_html(page, f"sec-{name}")
        assert run.caveats, name
        block = body[body.index('class="callout caveats"') :]
        block = block[: block.index("</div>")]
        for c in run.caveats:
            assert str(escape(c)) in block, (name, c)
            assert body.count(str(escape(c))) == 1, (name, c)  # not repeated by the section
        # under the findings, before the section's own blocks
        assert body.index('<ul class="findings">') < body.index('class="callout caveats"')


def test_toc_and_summary_carry_every_headline_number(demo_audit):
    from markupsafe import escape

    from primafacie.report.sections import headline_number

    out, audit = demo_audit
    page = (out / "report.html").read_text(encoding="utf-8")
    nav = page[page.index('<nav class="toc"') : page.index("</nav>")]
    glance = page[page.index('<div class="glance">') : page.index('<p class="lead">')]
    by_name = {a.name: a for a in ANALYSES}
    for name, run in audit.runs.items():
        number = str(escape(headline_number(by_name[name], run)))
        assert f'href="#sec-{name}"' in nav and number in nav
        assert number in glance
    # the executive summary opens with the headline cards, before the overview list
    assert page.index('<div class="glance">') < page.index('<dl class="overview">')


def test_situation_tests_are_collapsible_with_the_first_open(demo_audit):
    out, audit = demo_audit
    body = _section_html((out / "report.html").read_text(encoding="utf-8"), "sec-situation")
    n_tests = len(audit.runs["situation"].results)
    assert body.count('<details class="group"') == n_tests
    assert body.count('<details class="group" open>') == 1
    assert body.index('<details class="group" open>') == body.index('<details class="group"')


def test_recourse_labels_are_readable(demo_audit):
    import re

    out, audit = demo_audit
    body = _section_html((out / "report.html").read_text(encoding="utf-8"), "sec-recourse")
    assert not re.search(r"\(-?[0-9.]+, -?[0-9.]+\]", body)  # no pandas interval label left
    assert "Equal cost of effectiveness, φ = 0.3 (Ma.3)" in body
    assert "Equal effectiveness (EE)" in body
    # the CSV tables keep the exact labels (the paper reproductions compare them)
    csv = (out / "tables" / "recourse_rank_ma_3.csv").read_text(encoding="utf-8")
    assert re.search(r"\(-?[0-9.]+, -?[0-9.]+\]", csv)


# ---------------------------------------------------------------------- context pieces
def _fake_analysis(name="alpha"):
    from types import SimpleNamespace

    return SimpleNamespace(
        name=name,
        title=f"Title {name}",
        lead="lead text",
        headline_number=lambda run: "3 of 7",
        section=lambda run, data, cfg: {"findings": ["f"], "blocks": [{"kind": "x"}]},
    )


def test_section_of_a_completed_run_puts_its_message_above_its_blocks():
    from primafacie.analysis import AnalysisRun
    from primafacie.report.sections import _section

    run = AnalysisRun("alpha", "ok", message="note", caveats=("c1",))
    sec = _section("alpha", _fake_analysis(), run, "3 of 7", None, {})
    # no finding() given: a neutral "completed" badge (an analysis with one says its finding)
    assert sec["id"] == "sec-alpha" and sec["status_text"] == "completed"
    assert sec["level"] == "neutral"
    assert sec["findings"] == ["f"] and sec["caveats"] == ["c1"] and sec["number"] == "3 of 7"
    assert sec["blocks"] == [{"kind": "text", "text": "note"}, {"kind": "x"}]


def test_section_of_a_failed_run_is_its_status_only():
    from primafacie.analysis import AnalysisRun
    from primafacie.report.sections import _section

    run = AnalysisRun("alpha", "failed", message="boom", caveats=("c1",))
    sec = _section("alpha", _fake_analysis(), run, "failed", None, {})
    assert (sec["findings"], sec["blocks"], sec["caveats"]) == ([], [], [])
    assert sec["status_text"] == "failed" and sec["message"] == "boom"


def test_runs_keep_audit_order_and_share_the_headline_number():
    from types import SimpleNamespace

    from primafacie.analysis import AnalysisRun
    from primafacie.report.sections import _runs

    a, b = _fake_analysis("a"), _fake_analysis("b")
    runs = {
        "b": AnalysisRun("b", "ok", headline="hb", scope="all 10"),
        "a": AnalysisRun("a", "unavailable", message="no extra"),
    }
    result = SimpleNamespace(runs=runs, data=None, config={})
    heads, scopes, secs = _runs(result, {"a": a, "b": b})
    assert [h["id"] for h in heads] == [s["id"] for s in secs] == ["sec-b", "sec-a"]
    assert [h["number"] for h in heads] == ["3 of 7", "not available in this build"]
    assert [h["text"] for h in heads] == ["hb", "no extra"]
    assert scopes == [("Title b", "all 10")]  # a run without a scope adds no row


def test_overview_rows_by_hand():
    from types import SimpleNamespace

    from primafacie.analysis import AnalysisRun
    from primafacie.report.sections import _overview

    info = {
        "n": 8, "decision_source": "column y", "n_favourable": 2,
        "protected": {"gender": ["female"], "race": ["black", "asian"]},
        "outcome": "repaid", "n_outcome_favourable": 6, "warnings": ["tiny data"],
    }  # fmt: skip
    result = SimpleNamespace(data_info=info, runs={"a": AnalysisRun("a", "failed")})
    assert _overview(result, {"a": _fake_analysis("a")}) == [
        ("Warning", "tiny data"),
        ("People audited", "8 decisions"),
        ("Decision audited", "column y"),
        ("Favourable decisions", "25.0% (2 of 8)"),
        ("Protected attributes", "gender (female); race (black, asian)"),
        ("True outcome", "repaid: favourable for 75.0% (6 of 8)"),
        ("Analyses", "Title a (failed)"),
    ]


def test_parameters_table_lists_features_last():
    from primafacie.report.sections import _parameters_table

    cfg = {"features": {"edu": {"ordinal": ["lo", "hi"]}, "x": "numeric"}, "favorable": 1}
    rows = [[cell[0] for cell in row] for row in _parameters_table(cfg)["rows"]]
    assert rows == [
        ["favorable", "1"],
        ["features.edu", "ordinal ['lo', 'hi']"],
        ["features.x", "numeric"],
    ]


def test_context_sections_follow_the_runs(demo_audit):
    from primafacie.report.sections import build_context

    _, audit = demo_audit
    ctx = build_context(audit, ANALYSES)
    ids = [f"sec-{name}" for name in audit.runs]
    assert [h["id"] for h in ctx["headlines"]] == [s["id"] for s in ctx["sections"]] == ids
    assert [h["number"] for h in ctx["headlines"]] == [s["number"] for s in ctx["sections"]]
    # the demo has a causal graph: the appendix draws it and counts its edges
    edges = len(audit.config["causal"]["edges"])
    assert ctx["appendix"]["scm_caption"] == f"Causal graph with {edges} edges."
    assert ctx["appendix"]["scm_svg"].lstrip().startswith("<svg")


def test_sections_that_never_read_their_data_get_no_text_copy_of_it(tmp_path, monkeypatch):
    """An audit of dictionary-encoded data (read from Parquet) with group metrics and a
    situation test: the report's sections of analyses that ran on text columns are given
    the data's text copy only when they read it, and none of them does, so the report makes
    none (its text of every row was the Dask client's peak at 10^7 rows). Read, the lazy data
    is ``as_text`` of the data, or of its compared rows for an analysis given those."""
    import numpy as np
    import pandas as pd
    import yaml

    from primafacie.audit.run import compute_audit
    from primafacie.config import load_config
    from primafacie.report import build_report, sections

    rng = np.random.default_rng(0)
    n = 300
    pd.DataFrame({"id": np.arange(n), "gender": rng.choice(["female", "male", "other"], n),
                  "region": rng.choice(["urban", "rural"], n), "income": rng.normal(30, 5, n),
                  "approved": rng.integers(0, 2, n)}).to_parquet(tmp_path / "d.parquet")  # fmt: skip
    doc = {"data": "d.parquet", "id": "id", "decision": {"column": "approved"}, "favorable": 1,
           "features": {"income": "numeric", "region": "categorical"},
           "protected": {"gender": {"values": ["female"], "reference": ["male"]}},
           "analyses": {"groups": {}, "situation": {"k": [3], "methods": ["st"]}}}  # fmt: skip
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(doc))
    result = compute_audit(load_config(tmp_path / "audit.yaml"))
    assert isinstance(result.data.frame["region"].dtype, pd.CategoricalDtype)  # encoded
    made: list = []
    real = sections.as_text
    monkeypatch.setattr(sections, "as_text", lambda data: made.append(data) or real(data))
    html = build_report(result, ANALYSES)
    assert "Rates of every group" in html and made == []
    for compared in (False, True):
        lazy = sections._TextOnRead(result.data, compared)
        text = real(result.data)
        want = text.compared() if compared else text
        pd.testing.assert_frame_equal(lazy.frame, want.frame)
    assert len(made) == 2
    assert not isinstance(sections._TextOnRead(result.data, False).frame["region"].dtype,
                          pd.CategoricalDtype)  # fmt: skip
