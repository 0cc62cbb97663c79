"""The auditee is an adversary (issue 19, items 2-6): hostile ids, category values, column
names, protected values and decision-maker names go through ``primafacie audit``; every page
carries the no-network CSP first in its head, no payload leaves escaped text, Chromium opens
every page without a single request (a local "attacker" server counts them) and shows the
verdicts and tables; CSV cells are never formulas; redaction leaves no trace in any output
file; mathtext and rich markup in labels do not crash the run.

In CI (``CI=true``) a missing Chromium or Playwright fails the browser test (as in
test_browser.py); elsewhere it is skipped with the reason.
"""

from __future__ import annotations

import html
import http.server
import json
import re
import threading
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from primafacie.cli import app
from primafacie.datasets.credit_world import generate_credit_world
from primafacie.report.html import CSP

from .test_browser import ARGS, CHROMIUM, _unavailable

runner = CliRunner()


class _Attacker(http.server.BaseHTTPRequestHandler):
    """Counts every request a page would make to the auditee's server."""

    hits: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self.hits.append(self.path)
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args) -> None:
        return None


@pytest.fixture(scope="module")
def attacker():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Attacker)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", _Attacker.hits
    server.shutdown()


def _payloads(url: str) -> list[str]:
    return [
        f'a"\n}} </style></title><script>fetch("{url}/script")</script>',
        f"$$ [/] \x1b[31m\x1b]8;;{url}/osc\x1b\\ url({url}/css) @import '{url}/imp';\u202e",
        f'=HYPERLINK("{url}/formula")',
        f"javascript:fetch('{url}/js') <img src={url}/img> [link={url}/rich]$",
    ]


def _world(folder: Path, url: str, redact: bool = False) -> Path:
    """The credit world (n = 240) with hostile values everywhere the auditee controls."""
    bad = _payloads(url)
    df = generate_credit_world(240, 5)
    df["id"] = [
        f"{bad[i % 4]} #{i}" if i % 3 == 0 else (f"-{i}" if i % 3 == 1 else f"@{i}")
        for i in range(len(df))
    ]  # fmt: skip
    if redact:  # ids with &, ' and < (all redacted below)
        df["id"] = [f"Smith & O'Neil <b>{i}</b>" for i in range(len(df))]
    for col in ("region", "employment"):
        levels = sorted(df[col].unique())
        df[col] = df[col].map({v: f"{bad[j % 4]}{j}" for j, v in enumerate(levels)})
    female = f"female{bad[0]}"
    df["gender"] = df["gender"].map({"female": female, "male": "male"})
    emp = f"employment{bad[1]}" if not redact else "Jobs & Co's <x>"
    df = df.rename(columns={"employment": emp})
    df.to_csv(folder / "world.csv", index=False)
    edges = [["race", "region"], ["gender", emp], ["race", emp], ["gender", "income"],
             [emp, "income"], ["race", "income"], ["income", "savings"]]  # fmt: skip
    dossiers = {"top": 3, "redact": [emp, *df["id"]]} if redact else {"top": 3}
    cfg = {
        "data": "world.csv",
        "id": "id",
        "decision": {"rule": "income + 2 * savings - 0.8 * loan_amount > 20"},
        "favorable": 1,
        "features": {"income": "numeric", "savings": "numeric", "loan_amount": "numeric",
                     "age": "numeric", emp: "categorical", "region": "categorical"},
        "protected": {"gender": female, "race": ["black", "hispanic"]},
        "causal": {"edges": edges, "mechanism": "linear"},
        "analyses": {
            "groups": {"min_group": 20},
            "situation": {"k": [10], "methods": ["st", "cst"], "dimensions": ["single"],
                          "dossiers": dossiers},
            "recourse": {"support": 0.05, "phi": [0.5], "immutable": ["age"],
                         "protected": "gender", "top": 3,
                         "dossiers": {"top": 2, **({"redact": [emp]} if redact else {})}},
            "certainty": {"criterion": "statistical_parity", "decision_makers": {
                f"officer{bad[0]}": {"column": "human"},
                f"rule{bad[3]}": {"rule": "income > 20"}}},
        },
        "seed": 0,
    }  # fmt: skip
    if redact:
        del cfg["analyses"]["certainty"]
    path = folder / "audit.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True))
    return path


@pytest.fixture(scope="module")
def hostile(tmp_path_factory, attacker):
    url, _ = attacker
    folder = tmp_path_factory.mktemp("hostile")
    path = _world(folder, url)
    out = folder / "out"
    res = runner.invoke(app, ["audit", str(path), "--out", str(out), "--no-progress"])
    assert res.exit_code == 0, res.output  # no mathtext, markup or name crashes the run
    assert not BIDI.search(res.output)  # a value's U+202E reversed the terminal's text too
    assert "Glyph" not in res.output  # matplotlib's warning carried the raw ESC to stderr
    return out, url


#: Unicode's direction controls: a data value holding one (U+202E, a payload above) reversed
#: the report's sentence around it, numbers included; pages show it as ⟨U+202E⟩.
BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def test_direction_controls_in_data_are_shown_never_applied(hostile):
    out, _ = hostile
    for page in _pages(out):
        text = page.read_text(encoding="utf-8")
        assert not BIDI.search(text), page.name
        assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]", text), page.name
    report = (out / "report.html").read_text(encoding="utf-8")
    assert "⟨U+202E⟩" in report and "⟨U+001B⟩" in report  # shown, as the data hold them


def _pages(out: Path) -> list[Path]:
    return [out / "report.html", *sorted((out / "dossiers").glob("*.html"))]


#: Attributes that hold escaped text only (tooltips, accessible names, sort keys).
TEXT_ATTRIBUTES = {"title", "aria-label", "data-figure", "data-table", "data-sort", "id"}


class _Tags(HTMLParser):
    """Every start tag with its attributes, and the text inside <style> and <script>."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.code: list[str] = []
        self._in = ""

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in = tag if tag in {"style", "script"} else ""

    def handle_endtag(self, tag):
        self._in = ""

    def handle_data(self, data):
        if self._in:
            self.code.append(data)


def test_every_page_has_the_policy_first_and_no_payload_outside_text(hostile):
    out, url = hostile
    pages = _pages(out)
    assert len(pages) >= 1 + 3 + 1, pages  # the report, person and subgroup dossiers
    policy = html.escape(CSP, quote=True).replace("&#x27;", "&#39;")
    for page in pages:
        text = page.read_text("utf-8")
        head = text.split("<head>", 1)[1].lstrip()
        assert head.startswith(f'<meta http-equiv="Content-Security-Policy" content="{policy}'), (
            page
        )
        meta = head.split(">", 1)[0]
        if page.name == "report.html":  # its sort script by hash, never 'unsafe-inline'
            assert re.search(r"; script-src &#39;sha256-[A-Za-z0-9+/=]{44}&#39;\"$", meta), meta
        else:
            assert meta.endswith(f'{policy}"'), meta
        parser = _Tags()
        parser.feed(text)
        names = {t for t, _ in parser.tags}
        assert not names & {"img", "iframe", "link", "object", "embed", "base", "form"}, page
        assert sum(t == "script" for t, _ in parser.tags) == (page.name == "report.html"), page
        styles = sum(t == "style" for t, _ in parser.tags)  # figures carry matplotlib's own
        assert styles == 1 or page.name == "report.html", page
        for tag, attrs in parser.tags:
            for key, value in attrs.items():
                assert not key.startswith("on"), (page, tag, key)
                if key in TEXT_ATTRIBUTES:  # escaped text a browser never loads or runs
                    continue
                assert url not in (value or ""), (page, tag, key, value)
                assert "javascript:" not in (value or ""), (page, tag, key, value)
            if "href" in attrs:  # an anchor in the page or a page/table of the run
                assert re.fullmatch(r"#[\w-]*|dossiers/[\w.-]+\.html", attrs["href"]), attrs
        code = "".join(parser.code)
        assert url not in code and "@import" not in code, page
        # the dossier footer is fixed text: no data in the print style sheet
        assert 'content: "primafacie dossier"' in text or page.name == "report.html"


def test_chromium_fetches_nothing_and_shows_verdicts_and_tables(hostile, attacker):
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package is not installed (pip install -e '.[test]')")
    if not CHROMIUM.is_file():
        _unavailable(f"{CHROMIUM} is absent (apt-get install chromium)")
    out, url = hostile
    _, hits = attacker
    requests: list[str] = []
    seen = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            for path in _pages(out):
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                page.on("request", lambda r: requests.append(r.url))
                page.goto(path.as_uri(), wait_until="load")
                page.wait_for_timeout(300)
                seen[path.name] = page.evaluate(
                    """() => ({
                      verdicts: Array.from(document.querySelectorAll(".verdict, .badge"))
                        .filter(e => e.getBoundingClientRect().height > 0).length,
                      tables: Array.from(document.querySelectorAll("table"))
                        .filter(e => e.getBoundingClientRect().height > 0).length,
                      h1: (document.querySelector("h1") || {}).textContent || ""})"""
                )
                page.close()
        finally:
            browser.close()
    assert hits == []  # the attacker's server got no request
    assert all(r.startswith("file://") for r in requests), requests
    for name, facts in seen.items():
        assert facts["verdicts"] >= 1 and facts["tables"] >= 1, (name, facts)


def test_csv_cells_are_values_and_results_json_keeps_the_raw_value(hostile):
    out, _ = hostile
    formula = re.compile(r"^[=+\-@\t\r]")
    checked = 0
    for csv in sorted((out / "tables").glob("*.csv")):
        frame = pd.read_csv(csv, dtype=object, keep_default_na=False)
        for col in frame.columns:
            assert not formula.match(str(col)), (csv.name, col)
            num = pd.to_numeric(frame[col], errors="coerce")
            text = frame[col][num.isna()]  # numbers (negative ones too) stay numbers
            bad = text[text.str.match(formula)]
            assert bad.empty, (csv.name, col, bad.head().tolist())
            checked += int(text.str.startswith("'").sum())
    assert checked > 0  # ids such as -1, @2 and =HYPERLINK(...) were written with a quote
    index = pd.read_csv(out / "tables" / "situation_dossiers.csv", dtype=object)
    assert index["id"].str.startswith("'").any()
    raw = json.loads((out / "results.json").read_text())
    assert '=HYPERLINK(\\"' in json.dumps(raw) or "=HYPERLINK(" in json.dumps(raw)


def test_redaction_leaves_no_trace_in_any_output_file(tmp_path, attacker):
    url, _ = attacker
    path = _world(tmp_path, url, redact=True)
    out = tmp_path / "out"
    res = runner.invoke(app, ["audit", str(path), "--out", str(out), "--no-progress"])
    assert res.exit_code == 0, res.output
    secrets = ["Jobs & Co's <x>", *(f"Smith & O'Neil <b>{i}</b>" for i in range(240))]
    forms = set()
    for s in secrets:
        forms |= {s, html.escape(s), html.escape(s).replace("&#x27;", "&#39;"),
                  html.escape(s, quote=False), json.dumps(s)[1:-1]}  # fmt: skip
    forms |= {"Smith &amp; O", "Smith & O", "Jobs &amp; Co", "Jobs & Co"}
    files = sorted((out / "dossiers").iterdir())
    assert any(f.name.startswith("redacted-") for f in files), files
    assert any(f.name.startswith("subgroup_") for f in files), files
    texts = {f.name: f.read_text("utf-8") for f in files}
    texts["situation_dossiers.csv"] = (out / "tables" / "situation_dossiers.csv").read_text()
    texts["recourse_dossiers.csv"] = (out / "tables" / "recourse_dossiers.csv").read_text()
    runs = json.loads((out / "results.json").read_text())
    # every dossiers Result in results.json (the echoed configuration lists the redact
    # entries, as audit.yaml does: it is the auditor's file, not a page to share)
    found = [v for k, v in _walk(runs) if k == "dossiers" and isinstance(v, dict) and "files" in v]
    assert len(found) == 2, [k for k, _ in _walk(runs)][:50]
    texts["results.json:dossiers"] = json.dumps(found, ensure_ascii=False)
    for name, text in texts.items():
        for form in forms:
            assert form not in text, (name, form)
        assert name == "results.json:dossiers" or "Smith" not in name
    # the same id always gets the same pseudonym (a rerun gives the same files)
    again = tmp_path / "again"
    assert (
        runner.invoke(app, ["audit", str(path), "--out", str(again), "--no-progress"]).exit_code
        == 0
    )
    assert sorted(p.name for p in (again / "dossiers").iterdir()) == [f.name for f in files]


def _walk(obj, key=None):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield k, v
            yield from _walk(v, k)
    elif isinstance(obj, list):
        for v in obj:
            yield from _walk(v, key)


def test_a_redaction_that_cannot_be_done_is_refused(tmp_path, attacker):
    url, _ = attacker
    path = _world(tmp_path, url, redact=True)
    cfg = yaml.safe_load(path.read_text())
    cfg["analyses"]["situation"]["dossiers"]["redact"] = ["gender"]
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    res = runner.invoke(app, ["audit", str(path), "--out", str(tmp_path / "o"), "--no-progress"])
    assert res.exit_code == 2 and "cannot be redacted" in res.output, res.output
    cfg["analyses"]["situation"]["dossiers"]["redact"] = ["no such thing"]
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    res = runner.invoke(app, ["audit", str(path), "--out", str(tmp_path / "o"), "--no-progress"])
    assert res.exit_code == 2 and "not columns of the data nor ids" in res.output, res.output
