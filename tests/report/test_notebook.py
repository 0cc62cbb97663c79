"""Results render in a notebook: ``_repr_html_`` of every Result and of the audit.

Each fragment must be well-formed HTML (checked with the standard library's parser: every
element closed in order), show the Result's headline (the audit: each analysis' headline
number), and hold no script and no web address (an audit renders offline and notebook viewers
strip scripts). The fragments are also rendered through a real kernel with nbclient.
"""

from __future__ import annotations

import html
import os
import pickle
from html.parser import HTMLParser

import pandas as pd
import pytest

from primafacie.audit.registry import ANALYSES
from primafacie.base import HTMLReprMixin
from primafacie.report.html import CSP, readable_bins
from primafacie.report.notebook import result_html
from primafacie.report.sections import headline_number

#: Elements without an end tag in HTML.
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}  # fmt: skip

#: Every Result class an audit produces must render (the causal SCM has no summary/headline).
RESULT_CLASSES = {"SituationResult", "MultipleResult", "FactsResult", "RankingResult",
                  "CSCResult", "PrincipalResult", "RepairResult", "CertaintyResult",
                  "GroupMetricsResult"}  # fmt: skip


class _WellFormed(HTMLParser):
    """Fails on an end tag that closes anything but the innermost open element."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):  # <path .../> in SVG
        return None

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def check_fragment(fragment: str) -> str:
    """Assert ``fragment`` is a well-formed, offline, script-free fragment; return its text."""
    parser = _WellFormed()
    parser.feed(fragment)
    parser.close()
    assert parser.errors == [] and parser.stack == [], (parser.errors, parser.stack)
    assert fragment.lstrip().startswith('<div class="primafacie">')
    assert "<script" not in fragment.lower()
    csp = '<meta http-equiv="Content-Security-Policy" content="{}">'.format(
        html.escape(CSP, quote=True).replace("&#x27;", "&#39;")
    )
    # the no-network policy (a notebook ignores it; a fragment saved as a page keeps it)
    assert "http" not in fragment.replace(csp, "").lower()
    return " ".join(" ".join(parser.text).split())


def _squash(text: str) -> str:
    return " ".join(html.unescape(text).split())


def test_fragments_carry_the_no_network_policy():
    from primafacie.report.html import render_fragment

    frag = render_fragment(
        {"title": "t", "headline": "h", "facts": [], "caveats": [], "blocks": []}
    )
    assert frag.split("\n")[1] == (
        '<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; '
        'style-src &#39;unsafe-inline&#39;; img-src data:">'
    )


def test_checker_rejects_bad_fragments():
    with pytest.raises(AssertionError):
        check_fragment('<div class="primafacie"><p></div>')
    with pytest.raises(AssertionError):
        check_fragment('<div class="primafacie"><script>x()</script></div>')
    with pytest.raises(AssertionError):
        check_fragment('<div class="primafacie"><a href="https://x.org">x</a></div>')
    assert check_fragment('<div class="primafacie"><p>a<br>b</p></div>') == "a b"


def test_a_toy_result_renders_headline_table_and_escapes():
    class Toy(HTMLReprMixin):
        def headline(self):
            return "3 of 10 <cases> at age=(21.999, 33]"

        def summary(self):
            return pd.DataFrame({"k": [3], "n": [10]})

        def caveats(self):
            return ["small group"]

    frag = Toy()._repr_html_()
    text = check_fragment(frag)
    assert "3 of 10 <cases> at age=22–33" in text  # escaped in the markup, readable bins
    assert "&lt;cases&gt;" in frag
    assert "small group" in text and "<table" in frag
    assert frag == result_html(Toy())


def test_every_result_renders(demo_audit):
    _, audit = demo_audit
    seen = set()
    for run in audit.runs.values():
        for label, res in run.results.items():
            frag = res._repr_html_()
            text = check_fragment(frag)
            assert _squash(readable_bins(res.headline())) in text, label
            assert "<table" in frag, label  # the summary table
            if type(res).__name__ != "CSCResult":  # a CSC draws one subgroup's curves
                assert "<svg" in frag, label  # the main plot, inline
            seen.add(type(res).__name__)
    assert RESULT_CLASSES <= seen


def test_the_audit_renders_each_headline_number(demo_audit):
    _, audit = demo_audit
    frag = audit._repr_html_()
    text = check_fragment(frag)
    by_name = {a.name: a for a in ANALYSES}
    for name, run in audit.runs.items():
        number = headline_number(by_name[name], run)
        assert number and _squash(number) in text, name
        assert by_name[name].title in text
    assert "<svg" in frag  # the overview plot


def test_to_html_writes_the_report(demo_audit, tmp_path):
    out, audit = demo_audit
    path = audit.to_html(tmp_path / "sub" / "copy.html")
    assert path == tmp_path / "sub" / "copy.html"
    assert path.read_bytes() == (out / "report.html").read_bytes()


def _kernel_unavailable(reason: str) -> None:
    if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
        pytest.fail(f"notebook test cannot run in CI: {reason}")
    pytest.skip(reason)


def test_reprs_render_in_a_notebook(demo_audit, tmp_path):
    """Execute a small notebook in a real kernel: the audit and one Result display as HTML."""
    try:
        import nbformat
        from nbclient import NotebookClient
    except ImportError:
        _kernel_unavailable("nbclient/nbformat are not installed (pip install -e '.[test]')")
    _, audit = demo_audit
    pickled = tmp_path / "audit.pkl"
    pickled.write_bytes(pickle.dumps(audit))
    first = next(iter(audit.runs.values()))
    label = next(iter(first.results))
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            f"import pickle\naudit = pickle.load(open({str(pickled)!r}, 'rb'))"
        ),
        nbformat.v4.new_code_cell("audit"),
        nbformat.v4.new_code_cell(f"audit.runs[{first.name!r}].results[{label!r}]"),
    ]
    client = NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=False,
                            resources={"metadata": {"path": str(tmp_path)}})  # fmt: skip
    try:
        client.execute()
    except Exception as exc:  # no kernel: say why (a failure in CI)
        if "No such kernel" in str(exc) or "kernel" in type(exc).__name__.lower():
            _kernel_unavailable(f"no python3 kernel: {exc}")
        raise
    shown = [o["data"]["text/html"] for cell in nb.cells[1:] for o in cell.outputs
             if o.get("output_type") == "execute_result"]  # fmt: skip
    assert len(shown) == 2
    assert shown[0] == audit._repr_html_()
    assert shown[1] == first.results[label]._repr_html_()
