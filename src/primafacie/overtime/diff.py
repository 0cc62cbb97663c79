"""What changed between two audits: every headline number present in both, with an interval
and a test, the numbers present in only one, and the configuration differences that make a
comparison invalid (listed, never compared).

The numbers compared (each row of :attr:`DiffResult.changes` names its JSON ``path`` and the
record it came from in ``where``):

==============================  =========================================================
path                            change, interval and test
==============================  =========================================================
groups.selection_rate           rate p_new - p_old: Newcombe interval, two-proportion z test
groups.reference_rate           the same, for the reference group of the comparison
groups.selection_ratio          R_new - R_old: log-ratio Wald (Katz) interval and test
groups.min_selection_ratio      the same, for the smallest ratio of each audit
situation.significant_share     share of tested complainants significant (after the audit's
                                multiplicity correction): Newcombe interval, z test
situation.flags                 the complainants present in both audits (matched by id):
                                flags appeared / disappeared, McNemar's exact test
recourse.top_subgroup           the first-ranked subgroup per definition: same or changed
recourse.rank                   the rank of each of the first five ranked subgroups per
                                definition: old and new rank, no test; a subgroup out of
                                the first five in one audit is listed as present in one only
principal.verdict               each definition's verdict: same or changed
certainty.selected              the selected decision-maker(s): same or changed
certainty.disparity             p_i - p_j per decision-maker: Wald interval and test
==============================  =========================================================

All p-values of one diff are adjusted together with Holm's method; "significant" means
significant after it. See :mod:`primafacie.overtime.stats` for the formulas.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import norm

from ..jsonsafe import json_safe
from .reader import AuditRecord
from .stats import holm, rate_change, ratio_change

__all__ = ["DiffResult", "diff_audits", "CHANGE_COLUMNS", "COMPLAINANT_COLUMNS"]

CHANGE_COLUMNS = [
    "analysis", "path", "where", "label", "kind", "old", "new", "change", "ci_low", "ci_high",
    "p_value", "p_adjusted", "significant", "changed", "note",
]  # fmt: skip
COMPLAINANT_COLUMNS = ["test", "method", "k", "id", "status", "old_significant", "new_significant"]

#: Settings that change who is compared with whom or what counts as favourable: a difference
#: in any of them makes every number of the two audits incomparable.
#: (``time:`` is not among them: windows add trends and leave the whole-period numbers alone.)
GLOBAL_KEYS = ("protected", "favorable", "outcome_favorable", "filter", "population")

#: Settings of an analysis that only choose which rows exist (rows present in one audit are
#: listed as such) or how much is shown; any other difference invalidates that analysis.
ROW_KEYS = frozenset({"k", "methods", "dimensions", "top", "dossiers", "sensitivity"})

Item = dict[str, Any]


def _where_text(where: Mapping[str, Any]) -> str:
    return "; ".join(f"{k}={v}" for k, v in where.items())


def _item(path: str, where: Mapping[str, Any], label: str, kind: str, value: Any, **counts) -> Item:
    return {"path": path, "where": dict(where), "label": label, "kind": kind, "value": value,
            **counts}  # fmt: skip


def _groups_items(rec: AuditRecord) -> Iterator[Item]:
    num = rec.numbers("groups")
    for c in num.get("comparisons", []) or []:
        where = {"attribute": c["attribute"], "group": c["group"]}
        k, n, rk, rn = c["selection_k"], c["selection_n"], c["reference_k"], c["reference_n"]
        yield _item("groups.selection_rate", where, f"selection rate of {c['group']}", "rate",
                    k / n if n else None, k=k, n=n)  # fmt: skip
        yield _item("groups.reference_rate", where, f"reference rate for {c['group']}", "rate",
                    rk / rn if rn else None, k=rk, n=rn)  # fmt: skip
        yield _item("groups.selection_ratio", where, f"selection ratio of {c['group']}", "ratio",
                    c.get("selection_ratio"), k=k, n=n, rk=rk, rn=rn)  # fmt: skip
    low = num.get("min_selection_ratio")
    if isinstance(low, Mapping) and low.get("value") is not None:
        yield _item("groups.min_selection_ratio", {}, "smallest selection ratio", "ratio",
                    low["value"], k=low["selection_k"], n=low["selection_n"],
                    rk=low["reference_k"], rn=low["reference_n"])  # fmt: skip


def _situation_items(rec: AuditRecord) -> Iterator[Item]:
    for t in rec.numbers("situation").get("by_test", []) or []:
        where = {"test": t["test"], "method": t["method"], "k": t["k"]}
        adjusted = t.get("multiplicity", "none") != "none" and "n_significant_adjusted" in t
        k = t["n_significant_adjusted"] if adjusted else t["n_significant"]
        n = t.get("denominator", t.get("tested"))
        label = "share significant" + (f" (after {t['multiplicity']})" if adjusted else "")
        yield _item("situation.significant_share", where, label, "rate",
                    k / n if n else None, k=k, n=n)  # fmt: skip


#: Subgroups per recourse definition whose rank is followed from one audit to the next.
TOP_RANKS = 5


def _recourse_items(rec: AuditRecord) -> Iterator[Item]:
    from ..analysis import table_path

    for t in rec.numbers("recourse").get("top_by_definition", []) or []:
        value = f"{t['subgroup']} (against {t['bias_against']})"
        yield _item("recourse.top_subgroup", {"definition": t["definition"]},
                    "first-ranked subgroup", "label", value)  # fmt: skip
        ranks = rec.table(table_path("recourse", f"rank_{t['definition']}"))
        if ranks is None or not {"rank", "subgroup"} <= set(ranks.columns):
            continue
        # rank 0 = not ranked (no bias found); ties keep the table's order
        top = ranks[ranks["rank"] >= 1].sort_values("rank", kind="stable").head(TOP_RANKS)
        for r in top.to_dict(orient="records"):
            where = {"definition": t["definition"], "subgroup": r["subgroup"]}
            yield _item("recourse.rank", where, "rank of the subgroup", "rank", int(r["rank"]))


def _principal_items(rec: AuditRecord) -> Iterator[Item]:
    for v in rec.numbers("principal").get("verdicts", []) or []:
        where = {"definition": v["definition"], "cell": v["cell"]}
        yield _item("principal.verdict", where, "verdict", "label", v["verdict"])


def _certainty_items(rec: AuditRecord) -> Iterator[Item]:
    num = rec.numbers("certainty")
    if "selected" in num:
        yield _item("certainty.selected", {}, "selected decision-maker", "label",
                    ", ".join(map(str, num["selected"])))  # fmt: skip
    table = rec.table("tables/certainty_ranking.csv") if num else None
    if table is None or not {"n_i", "k_i", "n_j", "k_j"} <= set(table.columns):
        return
    for row in table.to_dict(orient="records"):
        yield _item("certainty.disparity", {"decision_maker": row["decision_maker"]},
                    "disparity p_i - p_j", "disparity", row["disparity"], k=row["k_i"],
                    n=row["n_i"], rk=row["k_j"], rn=row["n_j"])  # fmt: skip


#: ``{analysis: extractor}``: the headline numbers each analysis' ``numbers`` offer to a diff.
EXTRACTORS: dict[str, Callable[[AuditRecord], Iterator[Item]]] = {
    "groups": _groups_items,
    "situation": _situation_items,
    "recourse": _recourse_items,
    "principal": _principal_items,
    "certainty": _certainty_items,
}


def _flatten(obj: Any, prefix: str) -> dict[str, Any]:
    if isinstance(obj, Mapping):
        out: dict[str, Any] = {}
        for k, v in obj.items():
            out.update(_flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    return {prefix: obj}


def config_differences(old: AuditRecord, new: AuditRecord) -> list[dict[str, Any]]:
    """Settings that differ in a way that makes numbers incomparable, one entry per key path.

    Each entry: ``key`` (e.g. ``analyses.situation.alpha``), ``old``, ``new`` and ``scope``
    (``"all"`` for :data:`GLOBAL_KEYS`, else the analysis name).
    """
    a, b = old.doc.get("config", {}), new.doc.get("config", {})
    out = []
    for key in GLOBAL_KEYS:
        fa, fb = _flatten(a.get(key), key), _flatten(b.get(key), key)
        for path in sorted(set(fa) | set(fb)):
            if fa.get(path) != fb.get(path):
                out.append({"key": path, "old": fa.get(path), "new": fb.get(path), "scope": "all"})
    for name in EXTRACTORS:
        ca, cb = old.analysis_config(name) or {}, new.analysis_config(name) or {}
        fa = {k: v for k, v in _flatten(ca, "").items() if k.split(".")[0] not in ROW_KEYS}
        fb = {k: v for k, v in _flatten(cb, "").items() if k.split(".")[0] not in ROW_KEYS}
        if not ca or not cb:
            continue  # an analysis that ran in one audit only: its numbers are "only in one"
        for path in sorted(set(fa) | set(fb)):
            if fa.get(path) != fb.get(path):
                out.append({"key": f"analyses.{name}.{path}", "old": fa.get(path),
                            "new": fb.get(path), "scope": name})  # fmt: skip
    return out


def _key(analysis: str, item: Item) -> tuple:
    return (analysis, item["path"], tuple(item["where"].items()))


def _collect(rec: AuditRecord, skip: set[str], notes: list[str]) -> dict[tuple, Item]:
    """Every comparable item of ``rec``; an analysis whose numbers are not in the layout of
    its schema_version (an edited or foreign file) is left out with a note, never a crash."""
    out = {}
    for name, extract in EXTRACTORS.items():
        if name in skip:
            continue
        try:
            items = {_key(name, item): {"analysis": name, **item} for item in extract(rec)}
        except (KeyError, TypeError, ValueError, AttributeError, ZeroDivisionError) as exc:
            notes.append(f"{name} in {rec.path}: numbers not in the expected layout "
                         f"({type(exc).__name__}: {exc}); not compared")  # fmt: skip
            continue
        out.update(items)
    return out


@dataclass(frozen=True)
class DiffResult:
    """The comparison of two audits.

    Attributes
    ----------
    old, new
        The two ``results.json`` files compared.
    alpha
        Family-wise significance level (Holm across every test of the diff).
    changes
        One row per number present in both audits (:data:`CHANGE_COLUMNS`).
    complainants
        Situation-testing complainants present in both audits whose flag appeared,
        disappeared or stayed (:data:`COMPLAINANT_COLUMNS`); empty without ids.
    only_in
        Numbers present in one audit only: ``{"audit", "analysis", "path", "where", "label"}``.
    not_compared
        Configuration differences that invalidate a comparison (see
        :func:`config_differences`); the analyses they touch are not compared.
    notes
        Why a part could not be compared (e.g. no ``id`` column to match complainants).
    """

    old: str
    new: str
    alpha: float
    changes: pd.DataFrame
    complainants: pd.DataFrame
    only_in: list[dict[str, Any]] = field(default_factory=list)
    not_compared: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def significant(self) -> pd.DataFrame:
        """The rows whose change is significant after Holm's adjustment."""
        return self.changes[self.changes["significant"].fillna(False).astype(bool)]

    def headline(self) -> str:
        """One sentence generated from the counts of the diff."""
        n, sig = len(self.changes), len(self.significant)
        tested = int(self.changes["p_value"].notna().sum())
        changed = int(
            (self.changes["kind"].isin(["label", "rank"]) & self.changes["changed"]).sum()
        )
        text = (
            f"{n} numbers compared; {sig} of {tested} tested changes are significant "
            f"(Holm-adjusted, family-wise α = {self.alpha:g})"
        )
        if changed:
            text += f"; {changed} categorical result(s) differ (ranks, verdicts, selections)"
        if self.not_compared:
            text += f"; {len(self.not_compared)} configuration difference(s) not compared"
        return text + "."

    def to_frame(self) -> pd.DataFrame:
        """The changes table (what ``diff.csv`` holds)."""
        return self.changes

    summary = to_frame

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe content of ``diff.json``."""
        moved = self.complainants[self.complainants["status"] != "stayed"]
        return json_safe({
            "diff_version": "1",
            "old": self.old,
            "new": self.new,
            "alpha": self.alpha,
            "correction": "holm",
            "headline": self.headline(),
            "changes": self.changes.to_dict(orient="records"),
            # only the flags that moved: the stayed ones are in diff_complainants.csv
            "complainants": moved.to_dict(orient="records"),
            "complainants_stayed": int((self.complainants["status"] == "stayed").sum()),
            "only_in": self.only_in,
            "not_compared": self.not_compared,
            "notes": self.notes,
        })  # fmt: skip


def _test_rows(frame: pd.DataFrame, alpha: float) -> pd.DataFrame:
    """Fill change, ci_low, ci_high and p_value by the kind of each row (vectorised per kind)."""
    for col in ("change", "ci_low", "ci_high", "p_value"):
        frame[col] = np.nan
    get = lambda side, col, m: frame.loc[m, f"{side}_{col}"].astype(float).to_numpy()  # noqa: E731
    m = frame["kind"].eq("rate").to_numpy()
    if m.any():
        res = rate_change(get("o", "k", m), get("o", "n", m), get("n", "k", m), get("n", "n", m),
                          alpha)  # fmt: skip
        frame.loc[m, ["change", "ci_low", "ci_high", "p_value"]] = np.column_stack(res)
    m = frame["kind"].eq("ratio").to_numpy()
    if m.any():
        cols = ("k", "n", "rk", "rn")
        res = ratio_change(tuple(get("o", c, m) for c in cols), tuple(get("n", c, m) for c in cols),
                           alpha)  # fmt: skip
        frame.loc[m, ["change", "ci_low", "ci_high", "p_value"]] = np.column_stack(res)
    m = frame["kind"].eq("rank").to_numpy()
    if m.any():  # a rank moves, with no test: ranks are not sampling statistics
        frame.loc[m, "change"] = frame.loc[m, "new"].astype(float) - frame.loc[m, "old"].astype(
            float
        )
    m = frame["kind"].eq("disparity").to_numpy()
    if m.any():
        frame.loc[m, ["change", "ci_low", "ci_high", "p_value"]] = np.column_stack(
            _disparity_change(frame.loc[m], alpha)
        )
    return frame


def _disparity_change(rows: pd.DataFrame, alpha: float) -> tuple[np.ndarray, ...]:
    """Change of a difference of two proportions between independent audits: Wald."""
    z = float(norm.ppf(1 - alpha / 2))

    def var(side: str) -> np.ndarray:
        k, n = rows[f"{side}_k"].to_numpy(float), rows[f"{side}_n"].to_numpy(float)
        rk, rn = rows[f"{side}_rk"].to_numpy(float), rows[f"{side}_rn"].to_numpy(float)
        p, q = k / n, rk / rn
        return p * (1 - p) / n + q * (1 - q) / rn

    change = rows["new"].to_numpy(float) - rows["old"].to_numpy(float)
    se = np.sqrt(var("o") + var("n"))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(se > 0, 2 * norm.sf(np.abs(change) / se), np.where(change == 0, 1.0, 0.0))
    return change, change - z * se, change + z * se, p


def _pair_frame(old: dict[tuple, Item], new: dict[tuple, Item]) -> pd.DataFrame:
    rows = []
    for key in [k for k in old if k in new]:
        o, n = old[key], new[key]
        row = {"analysis": key[0], "path": o["path"], "where": _where_text(o["where"]),
               "label": o["label"], "kind": o["kind"], "old": o["value"], "new": n["value"]}  # fmt: skip
        for c in ("k", "n", "rk", "rn"):
            row[f"o_{c}"], row[f"n_{c}"] = o.get(c), n.get(c)
        rows.append(row)
    cols = ["analysis", "path", "where", "label", "kind", "old", "new"]
    return pd.DataFrame(rows, columns=cols + [f"{s}_{c}" for c in ("k", "n", "rk", "rn")
                                              for s in ("o", "n")])  # fmt: skip


def _only_in(old: dict[tuple, Item], new: dict[tuple, Item]) -> list[dict[str, Any]]:
    out = []
    for side, mine, other in (("old", old, new), ("new", new, old)):
        for key, item in mine.items():
            if key not in other:
                out.append({"audit": side, "analysis": item["analysis"], "path": item["path"],
                            "where": _where_text(item["where"]), "label": item["label"]})  # fmt: skip
    return out


def diff_audits(old: AuditRecord, new: AuditRecord, alpha: float = 0.05) -> DiffResult:
    """Compare two saved audits (see the module docstring for what is compared and how).

    Parameters
    ----------
    old, new
        Audits read by :func:`~primafacie.overtime.reader.read_results`.
    alpha
        Family-wise significance level of the diff (Holm across all its tests).

    Returns
    -------
    DiffResult

    Examples
    --------
    >>> from primafacie.overtime.reader import read_results  # doctest: +SKIP
    >>> d = diff_audits(read_results("out/2025"), read_results("out/2026"))  # doctest: +SKIP
    >>> d.significant[["path", "where", "old", "new", "change"]]  # doctest: +SKIP
    """
    from .flags import compare_flags

    differences = config_differences(old, new)
    scopes = {d["scope"] for d in differences}
    skip = set(EXTRACTORS) if "all" in scopes else scopes
    layout: list[str] = []
    a, b = _collect(old, skip, layout), _collect(new, skip, layout)
    skip |= {n.split(" in ")[0] for n in layout}
    a = {k: v for k, v in a.items() if k[0] not in skip}
    b = {k: v for k, v in b.items() if k[0] not in skip}
    frame = _test_rows(_pair_frame(a, b), alpha)
    labels = frame["kind"].eq("label")
    frame["changed"] = np.where(labels, frame["old"].astype(str) != frame["new"].astype(str),
                                frame["change"].fillna(0).to_numpy() != 0)  # fmt: skip
    frame["note"] = np.select(
        [labels, frame["kind"].eq("rank")], ["no test: a categorical result", "no test: a rank"], ""
    )
    complainants, flag_rows, notes = compare_flags(old, new, skip)
    frame = pd.concat([frame, flag_rows], ignore_index=True) if len(flag_rows) else frame
    frame["p_adjusted"] = holm(frame["p_value"].to_numpy(float))
    frame["significant"] = np.where(frame["p_adjusted"].notna(), frame["p_adjusted"] < alpha, None)
    return DiffResult(
        old=str(old.path),
        new=str(new.path),
        alpha=alpha,
        changes=frame[CHANGE_COLUMNS].reset_index(drop=True),
        complainants=complainants,
        only_in=_only_in(a, b),
        not_compared=differences,
        notes=layout + notes,
    )
