"""Issue 23, item 1: every dossier page of a demo audit states the verdict of the audit's own
table under the correction in force (``significant_adjusted``), with the p-value, the
adjusted p-value, the correction and how many tests it spanned; ``primafacie dossier`` on one
person gives the same verdict as the audit (its family is every complainant)."""

from __future__ import annotations

import html
import re

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from primafacie.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def audit(tmp_path_factory):
    """The demo world (n = 600) audited with dossiers for the 40 strongest complainants of
    each single-attribute test (BH, the default correction)."""
    from primafacie.datasets.credit_world import write_demo_inputs

    folder = tmp_path_factory.mktemp("dossier_verdicts")
    path = write_demo_inputs(folder, n=600, seed=4)
    cfg = yaml.safe_load(path.read_text())
    cfg["analyses"] = {
        "situation": {"k": [10, 20], "methods": ["st", "cst", "cst_centers"],
                      "dimensions": ["single"], "interval": "wald", "dossiers": {"top": 40}},
        "alternatives": None,  # on by default with the demo's model; it writes no dossier
    }  # fmt: skip
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    out = folder / "audit"
    res = runner.invoke(app, ["audit", str(path), "--out", str(out), "--no-progress"])
    assert res.exit_code == 0, res.output
    return folder, path, out


def _text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def _rates_row(page: str, header: str, nth: int) -> str:
    """The value beside ``header`` in the page's ``nth`` rates table."""
    found = re.findall(rf"<th scope=\"row\">{re.escape(header)}</th><td[^>]*>([^<]*)</td>", page)
    return html.unescape(found[nth])


def test_every_dossier_verdict_agrees_with_the_adjusted_table(audit):
    _, _, out = audit
    pages = sorted((out / "dossiers").glob("*.html"))
    assert len(pages) >= 40
    tables = {
        p.stem.removeprefix("situation_"): pd.read_csv(p)
        for p in (out / "tables").glob("situation_single_*.csv")
        if not p.stem.endswith("_summary")
    }
    index = pd.read_csv(out / "tables" / "situation_dossiers.csv")
    checked = 0
    seen: dict[str, int] = {}  # a page holds one verdict per test, in the index's order
    for rec in index.itertuples():
        nth = seen[rec.file] = seen.get(rec.file, -1) + 1
        table = tables[rec.test]
        row = table[(table["id"] == rec.id) & (table["method"] == rec.method)
                    & (table["k"] == rec.k)].iloc[0]  # fmt: skip
        assert rec.significant == row["significant_adjusted"]
        assert rec.p_adjusted == pytest.approx(row["p_adjusted"], rel=1e-12)
        page = (out / rec.file).read_text()
        verdicts = re.findall(r'<p class="verdict[^"]*">([^<]*)</p>', page)
        verdict = html.unescape(verdicts[nth])
        assert f"Δp = {row['delta']:.3f}" in verdict
        if row["significant_adjusted"]:
            assert "a significant case of potential discrimination after the " in verdict
        else:
            assert "significant case" not in verdict
        # the p-value, the adjusted one, the correction and how many tests it spanned
        p, p_adj = row["p_value"], row["p_adjusted"]
        shown = _rates_row(page, "p-value (one-sided)", nth)
        assert shown == ("< 0.0001" if p < 1e-4 else f"{p:.3g}")
        shown = _rates_row(page, "adjusted p-value", nth)
        assert shown == ("< 0.0001" if p_adj < 1e-4 else f"{p_adj:.3g}")
        family = table[(table["method"] == rec.method) & (table["k"] == rec.k)]
        n_tests = int(family["p_value"].notna().sum())
        correction = _rates_row(page, "multiple-testing correction", nth)
        assert correction.startswith("Benjamini–Hochberg (bh) across the ")
        assert f" {n_tests:,} tested complainants" in correction
        checked += 1
    assert checked == len(index) >= 40


def test_dossier_command_uses_the_audits_family(audit):
    folder, path, out = audit
    table = pd.read_csv(out / "tables" / "situation_single_gender.csv")
    main = table[(table["method"] == "cst") & (table["k"] == 20)]
    # a person significant before BH and not after: the command must not call it significant
    gone = main[main["significant"] & ~main["significant_adjusted"]]
    assert len(gone), "the fixture world needs such a person"
    ident = str(gone["id"].iloc[0])
    pages = folder / "pages"
    res = runner.invoke(app, ["dossier", str(path), "--id", ident, "--out", str(pages)])
    assert res.exit_code == 0, res.output
    assert "(not significant after bh)" in res.output.replace("\n", "")
    index = pd.read_csv(pages / "dossiers.csv")
    rec = index[index["test"] == "single_gender"].iloc[0]
    assert not rec["significant"]
    assert rec["p_adjusted"] == pytest.approx(gone["p_adjusted"].iloc[0], rel=1e-12)
    text = _text((pages / f"{ident}.html").read_text())
    assert "not significant after the Benjamini–Hochberg adjustment (significant before it)" in (
        re.sub(r"\s+", " ", text)
    )
