"""Build the report context from an :class:`~primafacie.audit.AuditResult`.

Each analysis' own ``section`` (its :class:`~primafacie.analysis.Analysis`) turns its Results
into plain-language findings, figures (inline SVG) and sortable tables; the executive summary,
the "who was audited" table and the methods appendix are built here. Sections only read
results; they never recompute an analysis.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ..data_dictionary import as_text
from ..legal import legal_note
from . import plots
from .blocks import rate_cell
from .html import format_number, rate_text, readable_bins, table_from_frame
from .provenance import CORRECTION_NAMES

__all__ = [
    "build_context",
    "headline_number",
    "finding_of",
    "overall_verdict",
    "STATUS_TEXT",
    "LEGAL_NOTE",
]

STATUS_TEXT = {
    "ok": "completed",
    "unavailable": "not available in this build",
    "failed": "failed",
}

#: The EU legal note (the default jurisdiction); :func:`primafacie.legal.legal_note` gives the
#: note of any jurisdiction.
LEGAL_NOTE = legal_note("eu")
#: The badge of a run that found nothing to report on: by status (issue 23: a badge says the
#: finding, coloured by it; "completed" read as a pass).
_STATUS_FINDING = {
    "unavailable": {"level": "neutral", "badge": "not tested"},
    "failed": {"level": "failed", "badge": "failed"},
}


def finding_of(analysis: Any, run: Any) -> dict[str, Any]:
    """What a run found: the analysis' own ``finding(run)`` when it completed and gives one;
    ``not tested`` / ``failed`` by status; a neutral ``completed`` otherwise.

    Returns
    -------
    dict
        ``level`` (``concern``, ``clear``, ``neutral`` or ``failed``: the badge's colour),
        ``badge`` (its words), ``sentence`` and ``strength`` (see
        :class:`~primafacie.analysis.Analysis`).
    """
    if run.status == "ok" and getattr(analysis, "finding", None) is not None:
        return {"sentence": "", "strength": 0.0, **analysis.finding(run)}
    base = _STATUS_FINDING.get(run.status, {"level": "neutral", "badge": "completed"})
    return {"sentence": "", "strength": 0.0, **base}


def overall_verdict(rows: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
    """The first screen's answer to "is there a problem?": how many analyses found evidence
    and the strongest finding with its denominator (the largest share), or that none did.

    Parameters
    ----------
    rows
        ``(analysis title, finding)`` in the order the audit ran them.

    Examples
    --------
    >>> overall_verdict([("Group metrics", {"level": "concern", "strength": 0.5,
    ...     "sentence": "1 of 2 protected groups below four-fifths"}),
    ...     ("Certainty", {"level": "neutral", "strength": 0.0, "sentence": "x"})])
    'Evidence of potential discrimination in 1 of 1 analyses with a verdict. Strongest finding (group metrics): 1 of 2 protected groups below four-fifths.'
    >>> overall_verdict([("Group metrics", {"level": "clear", "strength": 0.0,
    ...     "sentence": "0 of 2 protected groups below four-fifths"})])
    'No evidence of potential discrimination in the 1 analysis with a verdict: 0 of 2 protected groups below four-fifths.'
    """
    tests = [(t, f) for t, f in rows if f["level"] in ("concern", "clear")]
    concerns = [(t, f) for t, f in tests if f["level"] == "concern"]
    failed = [t for t, f in rows if f["level"] == "failed"]
    tail = f" {len(failed)} analysis failed: {', '.join(failed)}." if failed else ""
    if not tests:
        return "No analysis with a verdict completed." + tail
    if not concerns:
        what = "; ".join(f["sentence"] for _, f in tests if f["sentence"])
        # "analyses", not "tests": a verdict may rest on a ranking with no test (recourse)
        run = f"the {len(tests)} analys{'es' if len(tests) > 1 else 'is'} with a verdict"
        return f"No evidence of potential discrimination in {run}: {what}." + tail
    title, best = max(concerns, key=lambda tf: tf[1]["strength"])  # first of equals wins
    return (
        f"Evidence of potential discrimination in {len(concerns)} of {len(tests)} analyses "
        "with a verdict. "
        f"Strongest finding ({title[:1].lower() + title[1:]}): {best['sentence']}." + tail
    )


# ---------------------------------------------------------------------- summary & appendix
def _groups_table(info: Mapping[str, Any]) -> dict[str, Any]:
    rows = []
    for g in info["groups"]:
        row = {
            "protected attribute": g["attribute"],
            "protected value(s)": ", ".join(g["protected_values"]),
            "protected people": (f"{g['n_protected']} of {g['n']}", g["n_protected"]),
            "favourable decision, protected": rate_cell(
                g["favourable_protected"], g["n_protected"]
            ),
            "favourable decision, others": rate_cell(
                g["favourable_non_protected"], g["n_non_protected"]
            ),
        }
        if "outcome_favourable_protected" in g:
            row["favourable outcome, protected"] = rate_cell(
                g["outcome_favourable_protected"], g["n_protected"]
            )
            row["favourable outcome, others"] = rate_cell(
                g["outcome_favourable_non_protected"], g["n_non_protected"]
            )
        rows.append(row)
    return table_from_frame(
        pd.DataFrame(rows),
        "",
        "Rates are shares of the group; the counts behind them are in brackets.",
        table_id="groups",
    )


def _assumptions(cfg: Mapping[str, Any], analyses: Sequence[Any]) -> list[str]:
    out = []
    an = cfg["analyses"]
    if cfg.get("causal"):
        out.append(
            "The causal graph in the appendix is correct and complete (no hidden common causes), "
            f"and each attribute follows a {cfg['causal']['mechanism']} structural equation with "
            "additive noise; counterfactuals are computed from it."
        )
    for analysis in analyses:
        if an.get(analysis.name):
            out += analysis.assumptions(an[analysis.name], cfg)
    return out


def _flatten(prefix: str, obj: Any, out: list[tuple[str, str]]) -> None:
    """Dotted settings; unset options (None) are left out, empty ones shown as "(none)"."""
    if obj is None:
        return
    if isinstance(obj, (Mapping, list)) and not obj:
        out.append((prefix, "(none)"))
        return
    if isinstance(obj, Mapping):
        for k, v in obj.items():
            _flatten(f"{prefix}.{k}" if prefix else str(k), v, out)
    elif isinstance(obj, list) and obj and all(isinstance(v, (list, tuple)) for v in obj):
        out.append((prefix, "; ".join(" → ".join(map(str, v)) for v in obj)))
    else:
        out.append((prefix, str(obj) if not isinstance(obj, list) else ", ".join(map(str, obj))))


def headline_number(analysis: Any, run: Any) -> str:
    """The few words beside a section's name in the table of contents and the summary.

    The analysis' own ``headline_number(run)`` when it completed and gives one, else the
    status in words (``"not available in this build"``).
    """
    if run.status == "ok" and analysis.headline_number is not None:
        return analysis.headline_number(run)
    return STATUS_TEXT.get(run.status, run.status)


def _headline(name: str, analysis: Any, run: Any, number: str) -> dict[str, Any]:
    """One row of the executive summary (and of the table of contents)."""
    found = finding_of(analysis, run)
    return {
        "id": f"sec-{name}",
        "title": analysis.title,
        "status": found["level"],
        "status_text": found["badge"],
        "finding": found,
        "number": number,
        # bins written for people (22–33); results.json keeps the exact labels
        "text": readable_bins(run.headline if run.status == "ok" else run.message),
    }


def _section(
    name: str, analysis: Any, run: Any, number: str, data: Any, cfg: Mapping[str, Any]
) -> dict[str, Any]:
    """One analysis' section: its own ``section`` blocks when it completed, else its status."""
    body: dict[str, Any] = {"findings": [], "blocks": []}
    found = finding_of(analysis, run)
    if run.status == "ok":
        body = analysis.section(run, data, cfg)
        if run.message:
            body["blocks"].insert(0, {"kind": "text", "text": run.message})
    return {
        "id": f"sec-{name}",
        "title": analysis.title,
        "status": run.status,
        "level": found["level"],
        "status_text": found["badge"],
        # the section's symbols and codes (τ, φ, Ma.3, …) are explained in the glossary
        "glossary": bool(getattr(analysis, "glossary", ())),
        "message": run.message,
        "lead": analysis.lead,
        "number": number,
        # the run's caveats, shown under the findings of every section alike
        "caveats": list(run.caveats) if run.status == "ok" else [],
        **body,
    }


def _runs(
    result: Any, by_name: Mapping[str, Any]
) -> tuple[list[dict[str, Any]], list[tuple[str, str]], list[dict[str, Any]]]:
    """``(headlines, scopes, sections)`` of the runs, in the order the audit ran them."""
    headlines: list[dict[str, Any]] = []
    scopes: list[tuple[str, str]] = []
    sections: list[dict[str, Any]] = []
    for name, run in result.runs.items():
        analysis = by_name[name]
        # computed once: the summary row and the section show the same words
        number = headline_number(analysis, run)
        headlines.append(_headline(name, analysis, run, number))
        if run.scope:
            scopes.append((analysis.title, readable_bins(run.scope)))
        data = result.data
        rows = getattr(analysis, "reference_rows", False)  # the rows it ran on (row numbers)
        if data is not None and not getattr(analysis, "encoded_text", False):
            data = _TextOnRead(data, rows)  # the text columns it was run on (audit/run.py)
        elif data is not None and rows:
            data = data.compared()
        sections.append(_section(name, analysis, run, number, data, result.config))
    return headlines, scopes, sections


class _TextOnRead:
    """The data a section whose analysis ran on text columns reads: :func:`as_text` of the
    data (then its compared rows, with ``compared``), made when the section first reads an
    attribute. Most sections never read their data, and the text of every encoded column was
    ~117 B per row at once: the Dask client's peak at 10^7 rows (+1.17 GB while the report
    was written, ``benchmarks/audit_memory.py --stacks``; docs/scaling.md).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> made = []
    >>> lazy = _TextOnRead(SimpleNamespace(frame="f", compared=lambda: made.append(1) or "c"), True)
    >>> made
    []
    """

    def __init__(self, data: Any, compared: bool) -> None:
        self._data, self._compared, self._text = data, compared, None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # copy, pickle and the like: not an attribute of the data
            raise AttributeError(name)
        if self._text is None:
            text = as_text(self._data)
            self._text = text.compared() if self._compared else text
        return getattr(self._text, name)


def _protected_text(info: Mapping[str, Any]) -> str:
    """``"gender (female); race (black, hispanic)"``."""
    return "; ".join(f"{k} ({', '.join(v)})" for k, v in info["protected"].items())


def _overview(result: Any, by_name: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The "at a glance" rows: warnings first, then who and what was audited."""
    info = result.data_info
    n = info["n"]
    overview = [("Warning", w) for w in info.get("warnings", [])]
    # what reading the file changed (rows dropped, repeated columns) or found (an id-like
    # feature): each sentence was written by audit.inputs from its numbers
    overview += [("Data note", note) for note in info.get("notes", [])]
    overview += [
        ("People audited", f"{n} decisions"),
        ("Decision audited", info["decision_source"]),
        ("Favourable decisions", rate_text(info["n_favourable"], n)),
        ("Protected attributes", _protected_text(info)),
    ]
    if info.get("comparisons"):  # a listed or highest reference: who is compared with whom
        from ..reference import describe

        overview.append(("Compared", "; ".join(describe(c) for c in info["comparisons"])))
    if info.get("weights"):
        w = info["weights"]
        overview.append(("Weights", f"column {w['column']} (Kish n_eff {w['n_eff']:,.1f} of "
                                    f"{n} rows): {w['method']}"))  # fmt: skip
    if info.get("outcome"):
        overview.append(
            (
                "True outcome",
                f"{info['outcome']}: favourable for {rate_text(info['n_outcome_favourable'], n)}",
            )
        )
    overview.append(
        (
            "Analyses",
            ", ".join(
                f"{by_name[k].title} ({STATUS_TEXT[r.status]})" for k, r in result.runs.items()
            ),
        )
    )
    return overview


def _parameters_table(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """The resolved configuration as ``setting | value`` rows (features last, one row each)."""
    params: list[tuple[str, str]] = []
    _flatten("", {k: v for k, v in cfg.items() if k != "features"}, params)
    for fname, kind in cfg["features"].items():
        params.append(
            (
                f"features.{fname}",
                kind if isinstance(kind, str) else f"ordinal {kind.get('ordinal')}",
            )
        )
    return table_from_frame(
        pd.DataFrame(params, columns=["setting", "value"]),
        "",
        "The resolved configuration, defaults filled in.",
        max_rows=500,
        table_id="parameters",
        wrap=True,
    )


_LEGAL_TITLES = {
    "eu": "What “potential” or “prima facie” discrimination means (EU law)",
    "us-employment": "What the findings mean under US employment law",
    "nyc-ll144": "New York City Local Law 144",
    "none": "What the findings mean",
}


def _appendix_notes(jurisdiction: str = "eu") -> list[dict[str, Any]]:
    """The appendix' notes: the jurisdiction's legal meaning, multiple testing, the numbers."""
    return [
        {
            "title": _LEGAL_TITLES[jurisdiction],
            "paragraphs": legal_note(jurisdiction),
        },
        {
            "title": "Corrections for multiple testing",
            "paragraphs": [
                "Situation testing runs one test per complainant, so at level α about "
                "α × (number of tests) complainants are flagged by chance alone even when "
                "no one is discriminated against; each headline states that number. Every "
                "complainant gets a p-value dual to its interval (p ≤ α exactly when the "
                "interval excludes τ). The p-values of each method and k are then adjusted "
                "across complainants (the analysis key multiplicity: none, bonferroni, "
                "holm, bh or by; default bh, the Benjamini–Hochberg false discovery rate "
                "at α), and the headline gives the significant cases before and after the "
                "adjustment; the unadjusted columns are kept, so the published tables "
                "reproduce. Neighbour groups overlap, so the tests are dependent: "
                "docs/statistics.md measures how often BH and the conservative "
                "Benjamini–Yekutieli (by, valid under any dependence) report a discovery "
                "in worlds without discrimination. Multiple discrimination (a case on "
                "every protected attribute) tests each attribute at the Bonferroni level "
                "α/q for q attributes; its p-value is q times the largest of the "
                "attributes' p-values, adjusted across complainants in the same way."
            ],
        },
        {
            "title": "How to read the numbers",
            "paragraphs": [
                "Every rate is shown with its count and denominator, e.g. 8.0% (123 of "
                "1530). All tables can be sorted by clicking a column header; the full "
                "tables are CSV files next to this report and every number is also in "
                "results.json."
            ],
        },
    ]


def _glossary(result: Any, by_name: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The terms of the analyses that ran (each analysis declares its own)."""
    out: list[tuple[str, str]] = []
    for name in result.runs:
        for term in getattr(by_name.get(name), "glossary", ()):
            if term not in out:
                out.append(term)
    return out


def _appendix(cfg: Mapping[str, Any], info: Mapping[str, Any]) -> dict[str, Any]:
    """The methods appendix: the causal graph, every setting and the fixed notes."""
    causal = cfg.get("causal")
    scm_svg = None
    if causal:
        scm_svg = plots.scm_graph_svg(causal["edges"], protected=list(info["protected"]))
    return {
        "scm_text": (
            "Arrows point from cause to effect; protected attributes are orange. Counterfactuals "
            "change a protected attribute and propagate the change along the arrows, keeping "
            "each person's own noise term (abduction, action, prediction)."
            if causal
            else "No causal model was given: only analyses that do not need one were run."
        ),
        "scm_svg": scm_svg,
        "scm_caption": f"Causal graph with {len(causal['edges'])} edges." if causal else "",
        "parameters": _parameters_table(cfg),
        "notes": _appendix_notes(cfg.get("jurisdiction", "eu")),
    }


def build_context(result: Any, analyses: Sequence[Any]) -> dict[str, Any]:
    """The template context of report.html for an :class:`~primafacie.audit.AuditResult`.

    Parameters
    ----------
    result
        The :class:`~primafacie.audit.AuditResult` to report.
    analyses
        The registered :class:`~primafacie.analysis.Analysis` definitions; each run's section
        is built by its own ``section`` (the report knows no analysis by name).

    Returns
    -------
    dict
        The keys ``report.html`` reads: title, lead, overview, headlines, scopes, groups,
        assumptions, sections, appendix, footer and the ``format_number`` filter.

    Examples
    --------
    An audit in which no analysis ran (``run_demo`` gives a full one):

    >>> from primafacie.audit import AuditResult
    >>> info = {"n": 4, "protected": {"gender": ["female"]}, "decision_source": "column y",
    ...         "n_favourable": 1, "groups": []}
    >>> res = AuditResult(config={"analyses": {}, "features": {"x": "numeric"}},
    ...                   data_info=info, runs={}, inputs=(), versions={}, seeds={})
    >>> ctx = build_context(res, [])
    >>> ctx["subtitle"]
    '4 decisions · column y · protected: gender (female)'
    >>> ctx["overview"][2]
    ('Favourable decisions', '25.0% (1 of 4)')
    """
    by_name = {a.name: a for a in analyses}
    cfg = result.config
    info = result.data_info
    n = info["n"]
    protected_txt = _protected_text(info)
    # the same order as before the split: sections first (their figures), then the appendix
    headlines, scopes, sections = _runs(result, by_name)
    overview = _overview(result, by_name)
    appendix = _appendix(cfg, info)
    appendix["glossary"] = _glossary(result, by_name)
    versions = result.versions
    return {
        "title": "primafacie audit report",
        "subtitle": f"{n} decisions · {info['decision_source']} · protected: {protected_txt}",
        "lead": (
            f"This report tests whether the decisions ({info['decision_source']}) on {n} people "
            f"treat members of protected groups ({protected_txt}) worse than comparable others. "
            "Each section starts with a plain-language explanation; the appendix lists every "
            "assumption and setting."
        ),
        "overview": overview,
        "verdict": overall_verdict([(h["title"], h["finding"]) for h in headlines]),
        "headlines": headlines,
        "scopes": scopes,
        "groups": _groups_table(info),
        "assumptions": _assumptions(cfg, analyses),
        "reading_guide": (
            "“Potential discrimination” means prima facie evidence that shifts the burden of "
            "proof; see the appendix. It is not a legal finding."
        ),
        "sections": sections,
        "appendix": appendix,
        "footer": {
            "generated": f"Generated by primafacie {versions.get('primafacie', '')}. The same "
            "inputs and settings give a byte-identical report.",
            "inputs": list(result.inputs),
            "versions": sorted(versions.items()),
            "provenance": dict(getattr(result, "provenance", None) or {}),
            "correction_names": CORRECTION_NAMES,
        },
        "format_number": format_number,
    }
