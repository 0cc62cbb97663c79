"""Complainants present in both audits, matched by id: which flags appeared, disappeared, stayed.

A flag is "significant" under the audit's own multiplicity correction (``significant_adjusted``
when the table has it, else ``significant``). Matching needs the ``id`` column of the audited
data (``id:`` in audit.yaml) in both audits: without it a row number is no identity and the
comparison is skipped with a note. The discordant people are compared with McNemar's exact test
(:func:`~primafacie.overtime.stats.mcnemar_exact`): under H0 a flag is as likely to appear as to
disappear. It answers "did the same people's flags move one way" and is meaningful when the
two audits hold the same people (a retrained model on one applicant pool); for audits of two
periods with different people the overlap is empty and only the shares are compared.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .reader import AuditRecord
from .stats import mcnemar_exact

__all__ = ["compare_flags"]

_ANALYSIS = "situation"
_PREFIX = f"tables/{_ANALYSIS}_"
_KEYS = ["method", "k", "id"]


def _flag_tables(rec: AuditRecord) -> dict[str, pd.DataFrame]:
    """``{test: table}`` of the per-complainant tables (``tables/situation_<test>.csv``)."""
    out = {}
    for rel in _table_files(rec):
        if rel.endswith("/"):  # a table written as Parquet parts (situation.partitioned)
            test, table = rel[len(_PREFIX) : -1], rec.parts(rel)
        else:
            test = rel[len(_PREFIX) : -len(".csv")]
            if test.endswith("summary"):
                continue
            table = rec.table(rel)
        if table is None or not {"method", "k", "id", "significant"} <= set(table.columns):
            continue
        flag = "significant_adjusted" if "significant_adjusted" in table.columns else "significant"
        frame = table[_KEYS].copy()
        frame["flag"] = table[flag].astype(str).str.lower().eq("true")
        out[test] = frame
    return out


def _table_files(rec: AuditRecord) -> list[str]:
    """The situation tables listed in ``files``: each CSV, and each folder of Parquet parts
    once (``tables/situation_<test>/``), in the order listed."""
    out: list[str] = []
    for rel in rec.doc.get("files", []):
        if not (isinstance(rel, str) and rel.startswith(_PREFIX)):
            continue
        if rel.endswith(".csv"):
            out.append(rel)
        elif rel.endswith(".parquet") and "/" in rel[len(_PREFIX) :]:
            folder = rel.rsplit("/", 1)[0] + "/"
            if folder not in out:
                out.append(folder)
    return out


def _empty() -> pd.DataFrame:
    return pd.DataFrame(
        columns=["test", "method", "k", "id", "status", "old_significant", "new_significant"]
    )


def compare_flags(
    old: AuditRecord, new: AuditRecord, skip: set[str]
) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """Match complainants by ``(method, k, id)`` per test and classify their flags.

    Returns
    -------
    (complainants, rows, notes)
        ``complainants``: one row per person flagged in at least one audit with status
        ``appeared`` / ``disappeared`` / ``stayed``; ``rows``: one ``situation.flags`` row per
        (test, method, k) for the changes table (old/new = flagged among the matched, McNemar
        p-value); ``notes``: why the matching was skipped, if it was.
    """
    if _ANALYSIS in skip or old.analysis(_ANALYSIS) is None or new.analysis(_ANALYSIS) is None:
        return _empty(), pd.DataFrame(), []
    if not old.doc.get("config", {}).get("id") or not new.doc.get("config", {}).get("id"):
        note = ("complainants not matched: an audit has no id column (id: in audit.yaml), and "
                "row numbers do not identify people across audits")  # fmt: skip
        return _empty(), pd.DataFrame(), [note]
    a, b = _flag_tables(old), _flag_tables(new)
    people, rows = [], []
    for test in sorted(set(a) & set(b)):
        m = a[test].merge(b[test], on=_KEYS, suffixes=("_old", "_new"), how="inner")
        m["status"] = np.select(
            [m["flag_old"] & m["flag_new"], m["flag_new"], m["flag_old"]],
            ["stayed", "appeared", "disappeared"],
            default="",
        )
        flagged = m[m["status"] != ""].assign(test=test)
        people.append(flagged.rename(columns={"flag_old": "old_significant",
                                              "flag_new": "new_significant"}))  # fmt: skip
        for (method, k), g in m.groupby(["method", "k"], sort=True):
            rows.append(_flag_row(test, method, k, g))
    frame = pd.concat(people, ignore_index=True) if people else _empty()
    return frame[_empty().columns], pd.DataFrame(rows), []


def _flag_row(test: str, method: str, k: Any, g: pd.DataFrame) -> dict[str, Any]:
    appeared = int((g["status"] == "appeared").sum())
    gone = int((g["status"] == "disappeared").sum())
    stayed = int((g["status"] == "stayed").sum())
    return {
        "analysis": _ANALYSIS,
        "path": f"{_ANALYSIS}.flags",
        "where": f"test={test}; method={method}; k={k}",
        "label": f"flagged among {len(g)} complainants in both audits",
        "kind": "paired",
        "old": int(g["flag_old"].sum()),
        "new": int(g["flag_new"].sum()),
        "change": appeared - gone,
        "ci_low": np.nan,
        "ci_high": np.nan,
        "p_value": mcnemar_exact(appeared, gone),
        "changed": bool(appeared or gone),
        "note": f"{appeared} appeared, {gone} disappeared, {stayed} stayed (McNemar exact)",
    }
