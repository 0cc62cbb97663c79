"""Write a diff: ``diff.html`` (self-contained, the report's style and safety rules),
``diff.json``, ``diff.csv`` and ``diff_complainants.csv``, all staged and swapped in at once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from ..io import atomic_output_dir, atomic_write_csv, atomic_write_json, atomic_write_text
from ..report.html import format_number, table_from_frame, template_environment
from .diff import DiffResult

__all__ = ["render_diff", "write_diff", "csv_safe", "METHOD_NOTES"]

#: The method section of diff.html, one paragraph each.
METHOD_NOTES = (
    "A rate (selection rate, share of significant complainants) is compared between the two "
    "audits as two independent samples: the change is new minus old, its interval Newcombe's "
    "hybrid score interval and its p-value the pooled two-proportion z test.",
    "A selection ratio is compared on the log scale (Katz's delta-method variance of each "
    "log ratio, summed); the interval of log(R_new / R_old) is mapped back to R_new - R_old.",
    "A difference of two rates (certainty's disparity) is compared with a Wald interval and "
    "test on the sum of the four binomial variances.",
    "Complainants present in both audits are matched by id; those flagged in one audit only "
    "are listed, and the discordant pairs are tested with McNemar's exact binomial test.",
    "All p-values of this comparison are adjusted together with Holm's step-down method; "
    "'significant' means significant after that adjustment, while each interval is at the "
    "unadjusted 95% level (so an interval may exclude 0 for a change that is not significant). "
    "When both audits hold the same "
    "people, the independent-sample intervals are conservative (too wide).",
    "Ranks, verdicts and selections are categorical: they are shown as same or changed, with "
    "no test.",
)

_CHANGE = "change [95% CI, unadjusted]"
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """Text cells that a spreadsheet would run as a formula get a leading apostrophe."""
    out = frame.copy()
    for col in out.columns:
        if out[col].dtype == object:
            out[col] = out[col].map(
                lambda v: "'" + v if isinstance(v, str) and v.startswith(_FORMULA_START) else v
            )
    return out


def _p_text(p: Any) -> str:
    """A p-value as read in a table: ``< 0.001`` for tiny ones, blank when there is no test."""
    if p is None or pd.isna(p):
        return "—"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def _interval(row: dict[str, Any]) -> str:
    if pd.isna(row["change"]) or row["kind"] == "label":
        return "changed" if row["changed"] else "same"
    text = format_number(row["change"])
    if not pd.isna(row["ci_low"]):
        text += f" [{format_number(row['ci_low'])}, {format_number(row['ci_high'])}]"
    return text


def _changes_table(diff: DiffResult, rows: pd.DataFrame, title: str) -> dict[str, Any]:
    recs = rows.to_dict(orient="records")
    frame = pd.DataFrame({
        "analysis": [r["analysis"] for r in recs],
        "number": [r["label"] for r in recs],
        "where": [r["where"] for r in recs],
        "old": [format_number(r["old"]) for r in recs],
        "new": [format_number(r["new"]) for r in recs],
        _CHANGE: [_interval(r) for r in recs],
        "p (Holm)": [(_p_text(r["p_adjusted"]), r["p_adjusted"]) for r in recs],
        "significant": ["yes" if r["significant"] is True else ("no" if r["significant"] is False
                        else "no test") for r in recs],
        "note": [r["note"] for r in recs],
    }, columns=["analysis", "number", "where", "old", "new", _CHANGE, "p (Holm)",
                "significant", "note"])  # fmt: skip
    return table_from_frame(frame, title, max_rows=1000, csv="diff.csv", wrap=True)


def render_diff(diff: DiffResult, old_label: str, new_label: str) -> str:
    """The complete ``diff.html`` document (every value escaped by the template engine)."""
    sig = diff.significant
    blocks = [
        {"id": "significant", "heading": "Significant changes",
         "text": "" if len(sig) else "No change is significant after Holm's adjustment.",
         "table": _changes_table(diff, sig, "Changes significant after Holm's adjustment")
         if len(sig) else None},
        {"id": "all", "heading": "Every number compared", "text": "",
         "table": _changes_table(diff, diff.changes, "All numbers present in both audits")},
    ]  # fmt: skip
    moved = diff.complainants[diff.complainants["status"] != "stayed"]
    if len(diff.complainants):
        blocks.append({"id": "complainants", "heading": "Complainants whose flag moved",
                       "text": "Present in both audits (matched by id): significant in one "
                               "audit only.",
                       "table": table_from_frame(moved, "Flags that appeared or disappeared",
                                                 max_rows=500, csv="diff_complainants.csv")})  # fmt: skip
    if diff.not_compared:
        blocks.append({"id": "not-compared", "heading": "Not compared: configuration differs",
                       "text": "These settings differ, so the numbers they govern are not "
                               "compared.",
                       "table": table_from_frame(pd.DataFrame(diff.not_compared).astype(str),
                                                 "Configuration differences", wrap=True)})  # fmt: skip
    if diff.only_in:
        blocks.append({"id": "only-in", "heading": "Present in one audit only", "text": "",
                       "table": table_from_frame(pd.DataFrame(diff.only_in),
                                                 "Numbers in one audit only", max_rows=500,
                                                 wrap=True)})  # fmt: skip
    context = {
        "title": "primafacie: what changed between two audits",
        "subtitle": f"old: {old_label} · new: {new_label}",
        "headline": diff.headline(),
        "overview": [
            ("old audit", old_label),
            ("new audit", new_label),
            ("family-wise α", format_number(diff.alpha)),
            ("numbers compared", str(len(diff.changes))),
            ("significant changes", str(len(sig))),
        ],  # fmt: skip
        "notes": diff.notes,
        "blocks": blocks,
        "method": METHOD_NOTES,
    }
    env = template_environment(num=format_number, svg=lambda s: "")  # the diff draws no SVG
    return env.get_template("diff.html.j2").render(**context)


def write_diff(diff: DiffResult, out: str | Path, inputs: tuple[Any, ...] = ()) -> list[str]:
    """Write the four files into ``out`` atomically (all or nothing); their names."""
    # the folders as the user named them (relative stays relative: nothing about the machine)
    old_label, new_label = str(Path(diff.old).parent), str(Path(diff.new).parent)
    with atomic_output_dir(out, owner="diff", keep=inputs) as stage:
        atomic_write_csv(stage / "diff.csv", csv_safe(diff.changes))
        atomic_write_csv(stage / "diff_complainants.csv", csv_safe(diff.complainants))
        atomic_write_json(stage / "diff.json", diff.to_dict())
        atomic_write_text(stage / "diff.html", render_diff(diff, old_label, new_label))
    return ["diff.csv", "diff_complainants.csv", "diff.html", "diff.json"]
