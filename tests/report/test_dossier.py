"""The dossier pages (src/primafacie/report/dossier.py): numbers equal the engine's row, the twin's
path by hand, redaction everywhere, identical pages on rerun, and the printed PDF.

The print test drives Debian's /usr/bin/chromium (``--print-to-pdf``) and poppler's
``pdftotext``/``pdfinfo``; in CI (``CI=true``) a missing tool is a failure, elsewhere a skip.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from primafacie import SCM, AuditData
from primafacie.errors import InputError
from primafacie.report import validate_results
from primafacie.report.dossier import SECTION_TITLES, PageLink, select_ids
from primafacie.situation import SituationTest
from primafacie.situation.dossier import build_dossiers
from primafacie.situation.spec import DossierSpec

CHROMIUM = Path("/usr/bin/chromium")


class _Tables(HTMLParser):
    """Rows of the tables of every ``<section id=...>``: ``{section id: [[cell text]]}``."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: dict[str, list[list[str]]] = {}
        self._sec: str | None = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "section":
            self._sec = dict(attrs).get("id")
            self.sections.setdefault(self._sec, [])
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.sections[self._sec].append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def _tables(html: str) -> dict[str, list[list[str]]]:
    p = _Tables()
    p.feed(html)
    return p.sections


@pytest.fixture(scope="module")
def world():
    """A linear world: g → income (−4 for g = 1), income → savings (0.5), age exogenous."""
    rng = np.random.default_rng(7)
    n = 160
    g = (rng.random(n) < 0.45).astype(int)
    age = rng.integers(20, 60, n).astype(float)
    income = 30 + 0.1 * age - 4 * g + rng.normal(0, 2, n)
    savings = 0.5 * income + rng.normal(0, 1, n)
    df = pd.DataFrame(
        {"pid": np.arange(1000, 1000 + n), "g": g, "age": age, "income": income,
         "savings": savings, "postcode": rng.integers(1000, 9999, n)}
    )  # fmt: skip
    df["approved"] = (df.income + df.savings > 44).astype(int)
    data = AuditData(
        df,
        features={"age": "numeric", "income": "numeric", "savings": "numeric"},
        protected={"g": 1},
        decision="approved",
        id_column="pid",
    )
    scm = SCM([("g", "income"), ("income", "savings")]).fit(data)
    res = SituationTest(methods=["st", "cst"], k=[5, 10], alpha=0.05).run(data, scm=scm)
    return data, scm, res


def test_numbers_equal_the_engine_row(world):
    data, scm, res = world
    ids = select_ids({"single_g": res}, 3)
    book = build_dossiers({"single_g": res}, data, scm=scm, ids=ids)
    frame = res.to_frame(neighbors=True)
    main = frame[(frame["method"] == "cst") & (frame["k"] == 10)].set_index("id")
    for rec in book.to_frame().itertuples(index=False):
        row = main.loc[rec.id]
        assert (rec.p_c, rec.p_t, rec.delta) == (row["p_c"], row["p_t"], row["delta"])
        page = book.pages()[rec.file]
        tables = _tables(page)
        ctrl = tables["control-1"][1:]  # header row first
        test = tables["test-1"][1:]
        assert ctrl[0][0] == f"{rec.id} (complainant)" and test[0][0] == "twin (counterfactual)"
        assert [int(r[0]) for r in ctrl[1:]] == row["control_ids"]
        assert [int(r[0]) for r in test[1:]] == row["test_ids"]
        rates = {r[0]: r[1] for r in tables["rates-1"]}
        assert rates["p_c (control rejected / control size)"].startswith(
            f"{row['neg_c']} / {row['k_c']} = "
        )


def test_distances_are_the_gower_distances_by_hand(world):
    data, scm, res = world
    ident = select_ids({"single_g": res}, 1)[0]
    book = build_dossiers({"single_g": res}, data, scm=scm, ids=[ident])
    ctrl = _tables(next(iter(book.pages().values())))["control-1"]
    frame = data.frame.set_index("pid")
    feats = ["age", "income", "savings"]
    rng_ = frame[feats].max() - frame[feats].min()
    me = frame.loc[ident, feats]
    for r in ctrl[2:]:
        other = frame.loc[int(r[0]), feats]
        by_hand = float(((me - other).abs() / rng_).mean())
        assert float(r[-1]) == pytest.approx(by_hand, abs=5e-4)  # shown with 3 decimals
    # the engine keeps them unrounded, column for column with the neighbour lists
    ctrl_rows, _ = res.neighbors[("cst", 10)]
    ctrl_d, _ = res.neighbor_distances[("cst", 10)]
    i = int(np.flatnonzero(res.table.query("method == 'cst' and k == 10")["id"] == ident)[0])
    X = data.frame[feats].to_numpy()
    mine = data.frame.index[data.frame["pid"] == ident][0]
    by_hand = (np.abs(X[ctrl_rows[i]] - X[mine]) / rng_.to_numpy()).mean(axis=1)
    assert ctrl_d.dtype == np.float32
    np.testing.assert_allclose(ctrl_d[i], by_hand, atol=1e-6)  # float32 keeps ~7 digits
    assert np.all(np.diff(ctrl_d[i]) >= 0)


def test_the_twin_path_is_on_the_page(world):
    data, scm, res = world
    ident = select_ids({"single_g": res}, 1)[0]
    page = build_dossiers({"single_g": res}, data, scm=scm, ids=[ident]).pages()
    rows = {r[0]: r for r in _tables(next(iter(page.values())))["twin-1"][1:]}
    coef = scm.coefficients().set_index(["node", "term"])["coef"]
    g_income = coef[("income", "g[1]")] * (0 - 1)  # binary g: one dummy, g[1]
    assert f"g → income: {g_income:.3f}" in rows["income"][4]
    assert "income → savings" in rows["savings"][4]


def test_every_section_in_order_and_sensitivity_not_run(world):
    data, scm, res = world
    page = next(iter(build_dossiers({"single_g": res}, data, scm=scm, top=1).pages().values()))
    at = [page.index(title.replace("'", "&#39;")) for title in SECTION_TITLES]
    assert at == sorted(at)
    assert "Sensitivity to the causal model: not run" in page
    assert "<script" not in page and "http://" not in page and "https://" not in page


def test_sensitivity_variants_are_listed(world):
    data, scm, res = world

    calls = []

    class Sens:
        def overturning(self, row, test=None):
            calls.append((row, test))
            return ["without g → income"]

    ident = select_ids({"single_g": res}, 1)[0]
    book = build_dossiers({"single_g": res}, data, scm=scm, ids=[ident], sensitivity=Sens())
    page = next(iter(book.pages().values()))
    assert "<li>without g → income</li>" in page
    row = int(np.flatnonzero(data.frame["pid"].to_numpy() == ident)[0])
    assert calls == [(row, "single_g")]  # the data-row position and the test label


def test_redaction_removes_the_column_from_the_source(world):
    data, scm, res = world
    book = build_dossiers({"single_g": res}, data, scm=scm, top=3, redact=["savings"])
    for page in book.pages().values():
        assert "savings" not in page
        assert "income" in page
    # columns outside the audit's roles are never shown, redacted or not
    plain = build_dossiers({"single_g": res}, data, scm=scm, top=3)
    assert not any("postcode" in p for p in plain.pages().values())


def test_identical_pages_on_rerun(world):
    data, scm, res = world
    a = build_dossiers({"single_g": res}, data, scm=scm, top=4)
    again = SituationTest(methods=["st", "cst"], k=[5, 10]).run(data, scm=scm)
    b = build_dossiers({"single_g": again}, data, scm=scm, top=4)
    assert a.pages() == b.pages()


def test_bad_ids_and_columns_are_input_errors(world):
    data, scm, res = world
    with pytest.raises(InputError, match=r"--id '99'.*no row has this id.*'pid'"):
        build_dossiers({"single_g": res}, data, ids=["99"])
    outsider = int(data.frame.loc[data.frame["g"] == 0, "pid"].iloc[0])
    with pytest.raises(InputError, match=rf"--id {outsider} is not a complainant.*'g'"):
        build_dossiers({"single_g": res}, data, ids=[outsider])
    with pytest.raises(InputError, match=r"redact: \['nope'\] are not columns"):
        build_dossiers({"single_g": res}, data, top=1, redact=["nope"])
    with pytest.raises(ValueError, match="top"):
        DossierSpec(top=0)


def test_ids_given_as_text_match(world):
    data, scm, res = world
    ident = select_ids({"single_g": res}, 1)[0]
    book = build_dossiers({"single_g": res}, data, scm=scm, ids=[str(ident)])
    assert book.to_frame()["id"].tolist() == [ident]
    assert book.links() == {str(ident): f"dossiers/{ident}.html"}


def test_page_link_renders_as_markup():
    from markupsafe import escape

    assert str(escape(PageLink('d/"x".html'))) == '<a href="d/&#34;x&#34;.html">page</a>'


# ---------------------------------------------------------------- the audit writes them
@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    from primafacie.audit import run_audit
    from primafacie.config import load_config
    from primafacie.datasets.credit_world import write_demo_inputs

    folder = tmp_path_factory.mktemp("dossier_audit")
    cfg_path = write_demo_inputs(folder, n=400, seed=1)
    cfg = load_config(cfg_path)
    situation = cfg.analyses.situation.model_copy(
        update={"dimensions": ["single"], "k": [10, 15],
                "dossiers": DossierSpec(top=2, redact=["loan_amount"])}
    )  # fmt: skip
    only = cfg.analyses.model_copy(  # the default alternatives search: off (no dossiers)
        update={"situation": situation, "recourse": None, "principal": None, "certainty": None,
                "alternatives": None}
    )  # fmt: skip
    cfg = cfg.model_copy(update={"analyses": only})
    res = run_audit(cfg, folder / "out", progress=False)
    plain = cfg.model_copy(
        update={"analyses": only.model_copy(
            update={"situation": situation.model_copy(update={"dossiers": None})})}
    )  # fmt: skip
    run_audit(plain, folder / "plain", progress=False)
    return folder, res


def test_audit_writes_pages_index_links_and_valid_json(audited):
    import json

    folder, res = audited
    out = folder / "out"
    pages = sorted(p.name for p in (out / "dossiers").glob("*.html"))
    index = pd.read_csv(out / "tables" / "situation_dossiers.csv")
    assert sorted(Path(f).name for f in index["file"].unique()) == pages and pages
    assert set(index["test"]) == {"single_gender", "single_race"}
    report = (out / "report.html").read_text()
    for f in index["file"].unique():
        assert f'<a href="{f}">page</a>' in report
    doc = json.loads((out / "results.json").read_text())
    validate_results(doc)
    assert doc["analyses"]["situation"]["results"]["dossiers"]["files"] == sorted(
        index["file"].unique()
    )
    assert all(f in doc["files"] for f in index["file"])
    for page in (out / "dossiers").glob("*.html"):
        assert "loan_amount" not in page.read_text()
    # the same complainant rows as the audit's own table
    table = pd.read_csv(out / "tables" / "situation_single_gender.csv")
    main = table[(table["method"] == "cst") & (table["k"] == 15)].set_index("id")
    for rec in index[index["test"] == "single_gender"].itertuples():
        assert rec.p_c == main.loc[rec.id, "p_c"] and rec.delta == main.loc[rec.id, "delta"]


def test_report_without_dossiers_has_no_link_column(audited):
    folder, _ = audited
    report = (folder / "plain" / "report.html").read_text()
    assert "dossiers/" not in report and '<th scope="col">dossier</th>' not in report
    assert not (folder / "plain" / "dossiers").exists()


# ---------------------------------------------------------------- printed
def _tool(path: str) -> str:
    found = shutil.which(path)
    if found is None:
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail(f"dossier print test cannot run in CI: {path} is absent")
        pytest.skip(f"{path} is absent (apt-get install chromium poppler-utils); fails in CI")
    return found


def test_printed_pdf_has_every_section_and_page_numbers(world, tmp_path):
    chromium = str(CHROMIUM) if CHROMIUM.is_file() else _tool("chromium")
    pdftotext, pdfinfo = _tool("pdftotext"), _tool("pdfinfo")
    data, scm, res = world
    book = build_dossiers({"single_g": res}, data, scm=scm, top=1)
    html = tmp_path / "page.html"
    html.write_text(next(iter(book.pages().values())), encoding="utf-8")
    pdf = tmp_path / "page.pdf"
    subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer",
         "--disable-background-networking", "--no-first-run", f"--print-to-pdf={pdf}",
         html.as_uri()],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    info = subprocess.run([pdfinfo, str(pdf)], check=True, capture_output=True, text=True)
    pages = int(re.search(r"Pages:\s+(\d+)", info.stdout).group(1))
    assert 2 <= pages <= 6  # k = 10: two groups of 11 rows and the notes fit a few A4 pages
    text = subprocess.run(
        [pdftotext, "-layout", str(pdf), "-"], check=True, capture_output=True, text=True
    ).stdout
    text = re.sub(r"\s+", " ", text)
    for i, title in enumerate(SECTION_TITLES, 1):
        assert f"{i}. {title}" in text, title
    assert f"page 1 of {pages}" in text and f"page {pages} of {pages}" in text


# ---------------------------------------------------------------- recourse subgroups
def _csc(title, records):
    from primafacie.recourse.csc import CSCResult

    return CSCResult(title[:3], title, records=tuple(records))


def _record(label, rank, score, groups):
    from primafacie.recourse.csc import CSCAction, CSCGroup, CSCRecord

    return CSCRecord(
        subgroup=dict(item.split("=") for item in label.split("; ")),
        label=label, rank=rank, score=score, bias_against="f" if score else None, title="t",
        groups=tuple(
            CSCGroup(g, n, cov, diff, tuple(CSCAction(*a) for a in acts))
            for g, n, cov, diff, acts in groups
        ),
    )  # fmt: skip


def test_subgroup_pages_expand_the_card_with_counts_actions_and_costs(tmp_path):
    from primafacie.report.dossier import SUBGROUP_SECTION_TITLES, build_subgroup_dossiers

    a = _record("job=temp; edu=low", 1, 0.25, [
        ("f", 40, 0.2, 0.5, [({"edu": "high"}, 0.25, 10, 40, 1.5, True)]),
        ("m", 20, 0.1, 0.25, [({"edu": "high"}, 0.5, 10, 20, 1.5, True)]),
    ])  # fmt: skip
    b = _record("age=old", 2, 0.1, [("f", 5, 0.01, 1.0, []), ("m", 7, 0.02, 0.0, [])])
    results = {"definitions": object(), "csc_EE": _csc("Equal Effectiveness", [a, b]),
               "csc_ECR": _csc("Equal Choice for Recourse", [a])}  # fmt: skip
    book = build_subgroup_dossiers(results, top=1)
    assert list(book.pages()) == ["dossiers/subgroup_job_temp_edu_low.html"]
    index = book.to_frame()
    assert index["test"].tolist() == ["Equal Effectiveness", "Equal Choice for Recourse"]
    assert index["rank"].tolist() == [1, 1] and index["score"].tolist() == [0.25, 0.25]
    page = book.pages()["dossiers/subgroup_job_temp_edu_low.html"]
    tables = _tables(page)
    members = tables["definition-1"][1:3]
    assert members == [["f", "40", "20.0%", "0.500"], ["m", "20", "10.0%", "0.250"]]
    actions = tables["definition-1"][4:]
    # costs keep one number of decimals per column: 3 significant digits of the largest
    assert actions[0] == ["f", "edu = high", "10 of 40", "25.0%", "1.50"]
    assert "bias against f (unfairness score 0.25)" in page
    at = [page.index(t) for t in SUBGROUP_SECTION_TITLES]
    assert at == sorted(at) and "<script" not in page
    both = build_subgroup_dossiers(results, top=5)
    assert len(both.pages()) == 2
    old = both.pages()["dossiers/subgroup_age_old.html"]
    assert "no action changes the decision under this definition" in old
    assert build_subgroup_dossiers(results, top=5).pages() == both.pages()


def _test_group_rows(page: str) -> list[list[str]]:
    return _tables(page)["test-1"][1:]


def test_another_tests_reference_does_not_hide_the_twin(world):
    """The intersectional test records reference 0 for its own indicator column; the twin of
    an attribute uses that attribute's test (the demo's dossiers said "no causal model was
    given" beside a causal graph)."""
    data, scm, res = world
    other = dataclasses.replace(res, params={**res.params, "attribute": "g×h", "reference": 0})
    ident = select_ids({"single_g": res}, 1)[0]
    results = {"single_g": res, "intersectional": other}
    page = next(iter(build_dossiers(results, data, scm=scm, ids=[ident]).pages().values()))
    assert "The twin cannot be shown" not in page
    assert _test_group_rows(page)[0][0] == "twin (counterfactual)"
    assert "most similar to the counterfactual twin, the twin first" in page


def test_a_counterfactual_test_without_its_twin_shows_no_factual_centre(world):
    """CST searched around the counterfactual: without it, the page says why and lists the
    test group without a first row of the factual record (its features are not the centre)."""
    data, _, res = world
    ident = select_ids({"single_g": res}, 1)[0]
    page = next(iter(build_dossiers({"single_g": res}, data, ids=[ident]).pages().values()))
    assert res.main_test()[0] == "cst"
    assert "The twin cannot be shown: no causal model was given (the counterfactuals came " in page
    assert "most similar to the complainant’s counterfactual, which this page cannot show" in page
    rows = _test_group_rows(page)
    assert not any("(complainant)" in r[0] for r in rows)
    assert float(rows[0][-1]) > 0  # the nearest member, at its own distance from the centre
    k = res.main_test()[1]
    assert len(rows) == k and len(_tables(page)["control-1"][1:]) == k + 1


def test_the_finding_at_a_glance_writes_p_as_a_relation():
    """A p-value below 0.0001 read "p = < 0.0001"; it is "p < 0.0001", others "p = 0.012"."""
    from primafacie.report.dossier import _p_text

    row = pd.Series({"p_value": 3e-7, "p_adjusted": 0.0123})
    assert _p_text(row, {"multiplicity": "bh"}) == ", p < 0.0001, adjusted p = 0.0123"
    assert _p_text(row, {"multiplicity": "none"}) == ", p < 0.0001"
    assert _p_text(pd.Series({"p_value": 0.5}), {}) == ", p = 0.5"


def test_a_single_test_page_names_its_attribute_in_the_finding(world):
    """A page with one test did not say which protected attribute it tested."""
    data, scm, res = world
    ident = select_ids({"single_g": res}, 1)[0]
    page = next(
        iter(build_dossiers({"single_g": res}, data, scm=scm, ids=[ident]).pages().values())
    )
    (verdict,) = re.findall(r'<p class="verdict">([^<]*)</p>', page)
    assert verdict.startswith("g: CST without centres, k=10 (α = 0.05, τ = 0): Δp = ")
