"""A dossier per complainant: one printable, self-contained HTML page an expert can file.

A page holds, in order: the person's record and how the decision was obtained; the
counterfactual twin, feature by feature, with the causal path that moved each value (for a
linear mechanism the contribution of each parent is ``coef × Δparent``); the control and test
groups, one row per member with its Gower distance; the rates with their counts, Δp and its
interval; the verdict, and the same verdict for every method and k that was run; the
variants of the causal model that would overturn it (when the sensitivity analysis ran); the
assumptions and what the evidence means legally.

Everything is read from the situation-testing Results (``table``, ``neighbors``,
``neighbor_distances``, the words of their codes), the data and the twin the analysis gives
(:func:`primafacie.situation.dossier.build_dossiers` computes it with
:mod:`primafacie.causal.explain`); nothing is computed here, so a dossier's numbers are the
engine's per-complainant row. Pages carry no script, no network reference and
no timestamp (identical inputs give identical pages), and only the id, the features, the
protected attribute, the decision and the outcome are ever shown; ``redact`` removes more
columns from every table, path and sentence, and replaces listed ids by stable pseudonyms
(pages, index and file names), applied to the values before rendering. Pages carry a
no-network Content-Security-Policy and no data in their style sheet.

Examples
--------
{{setup}}
>>> res = SituationTest(methods="st", k=2).run(data)
>>> book = dossier_pages({"single_a": res}, data, ids=[0])
>>> book.to_frame()[["id", "file", "p_c", "p_t"]].values.tolist()
[[0, 'dossiers/0.html', 0.5, 0.0]]
>>> "Control group" in book.pages()["dossiers/0.html"]
True
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..docstrings import SITUATION_SETUP, fill
from ..errors import InputError
from ..formats import fixed
from ..jsonsafe import json_safe
from ..legal import legal_note
from .html import CSP, format_number, template_environment
from .html import fixed_decimals as _column_decimals
from .sections import LEGAL_NOTE

__doc__ = fill(__doc__, setup=SITUATION_SETUP)  # the examples' set-up, shared

__all__ = [
    "Dossiers",
    "dossier_pages",
    "select_ids",
    "decision_source",
    "render_dossier",
    "SECTION_TITLES",
    "PageLink",
    "complainant_rows",
    "build_subgroup_dossiers",
    "SUBGROUP_SECTION_TITLES",
]

#: The section headings of a page, in order (the print test looks for each).
SECTION_TITLES = (
    "The person's record",
    "The counterfactual twin",
    "Control group",
    "Test group",
    "Rates and interval",
    "Verdict",
    "Robustness to the causal model",
    "Assumptions and what this means",
)

#: What the evidence of one page means, in plain words (the report's legal note follows).
_MEANING = (
    "A significant difference means: people who resemble this person and share the protected "
    "attribute were rejected more often than people who resemble the person they would have "
    "been without it, by more than the tolerance τ, beyond what chance explains at level α "
    "(after the multiple-testing correction named above, when one is in force). "
    "It does not mean that this decision was taken because of the protected attribute, nor "
    "that the decision-maker intended it: it is evidence that shifts the burden of proof, "
    "resting on the assumptions above."
)


@dataclass(frozen=True)
class Dossiers:
    """The dossier pages of an audit and their index (a Result: ``to_frame``, ``to_dict``).

    Attributes
    ----------
    index
        One row per page and test: id, file, test, method, k, p_c, p_t, delta, ci_low,
        p_value, p_adjusted, multiplicity, significant (after the correction in force, as
        the page says), and ``verdicts`` (``method k: yes/no`` for every (method, k) run,
        under the same correction).
    html
        ``{relative file: page}``.
    """

    index: pd.DataFrame
    html: Mapping[str, str] = field(repr=False)
    keys: Mapping[str, str] = field(default_factory=dict, repr=False)

    def to_frame(self) -> pd.DataFrame:
        """The index of the pages (the ``situation_dossiers`` table)."""
        return self.index.copy()

    def summary(self) -> dict[str, int]:
        """Number of pages and of complainants they cover."""
        return {"pages": len(self.html), "rows": len(self.index)}

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe: the page files and the index rows."""
        return json_safe(
            {
                "files": sorted(self.html),
                "dossiers": self.index.astype(object).to_dict(orient="records"),
            }
        )

    def pages(self) -> dict[str, str]:
        """``{relative file: HTML}``, written beside the report by the audit."""
        return dict(self.html)

    def links(self) -> dict[str, str]:
        """``{str(id): relative file}`` for the report's link column (the real id, also when
        the pages show a pseudonym)."""
        if self.keys:
            return dict(self.keys)
        return {str(i): f for i, f in zip(self.index["id"], self.index["file"], strict=True)}


class PageLink:
    """A report table cell linking a dossier page: rendered as ``<a href=...>page</a>``.

    Not a ``str`` (pandas turns ``str`` subclasses such as ``Markup`` into plain text);
    the report's table keeps any cell with ``__html__`` as markup.

    Examples
    --------
    >>> PageLink("dossiers/7.html").__html__()
    '<a href="dossiers/7.html">page</a>'
    """

    def __init__(self, href: str) -> None:
        self.href = href

    def __html__(self) -> str:
        from markupsafe import escape

        return f'<a href="{escape(self.href)}">page</a>'

    def __str__(self) -> str:
        return self.href


# ------------------------------------------------------------------ selection
def _tests(results: Mapping[str, Any], data: Any = None) -> dict[str, Any]:
    """The single-attribute situation tests (with per-complainant neighbour lists); an
    intersectional test, whose attribute is a derived column, is left out."""
    return {
        label: res
        for label, res in results.items()
        if hasattr(res, "neighbor_distances")
        and hasattr(res, "main_test")
        and (data is None or res.params.get("attribute") in data.protected)
    }


def select_ids(results: Mapping[str, Any], top: int) -> list[Any]:
    """The ``top`` strongest complainants of each test (as in the report's table: the main
    (method, k), by :meth:`~primafacie.situation.results.SituationResult.strongest`: Δp then
    the interval's bound, in the test's direction), in first-seen order.

    Parameters
    ----------
    results
        ``{label: SituationResult}``.
    top
        Complainants per test.

    Returns
    -------
    list
        Row ids, without repeats.
    """
    out: list[Any] = []
    for res in _tests(results).values():
        method, k = res.main_test()
        out += res.strongest(method, k, top)["id"].tolist()
    return list(dict.fromkeys(out))


def _positions(ids: np.ndarray, chosen: Sequence[Any]) -> dict[Any, int]:
    """The first row holding each of the ``chosen`` ids: one pass over the data's ids against
    the few chosen, not an index of every id (its hash table is what grows with the rows).

    Examples
    --------
    >>> _positions(np.array([7, 3, 9, 3]), [3, 9, 3])
    {3: 1, 9: 2}
    """
    keys = list(dict.fromkeys(chosen))
    where = pd.Index(keys).get_indexer(ids)
    out: dict[Any, int] = {}
    for row in np.flatnonzero(where >= 0):  # a loop over the chosen ids' rows, never all rows
        out.setdefault(keys[where[row]], int(row))
    return out


def _check_ids(ids: Sequence[Any], results: Mapping[str, Any], data: Any) -> list[Any]:
    """Match the requested ids to the data's ids (also when given as text)."""
    known = pd.Index(np.asarray(data.ids))
    text = {str(v): v for v in known}
    out = []
    for i in ids:
        v = i if i in known else text.get(str(i))
        if v is None:
            raise InputError(f"--id {i!r}: no row has this id (ids come from {_id_name(data)})")
        if not any((res.table["id"] == v).any() for res in results.values()):
            attrs = ", ".join(map(repr, data.protected))
            raise InputError(
                f"--id {i!r} is not a complainant: the row is not protected on {attrs} (or "
                "was not tested); a dossier is written for a complainant only"
            )
        out.append(v)
    return list(dict.fromkeys(out))


def complainant_rows(ids: Sequence[Any], data: Any) -> np.ndarray:
    """Row positions of ``ids`` (matched as given or as text), each protected on at least
    one attribute; an :class:`InputError` naming the first id that is not.

    Parameters
    ----------
    ids
        Requested complainant ids (``--id``).
    data
        The audited :class:`~primafacie.data.AuditData`.

    Returns
    -------
    numpy.ndarray
        Row positions, in the order of ``ids``.
    """
    known = pd.Index(np.asarray(data.ids).astype(str))
    protected = np.zeros(data.n, dtype=bool)
    for attr in data.protected:  # a complainant of any single-attribute test
        protected |= data.protected_mask(attr)
    rows = []
    for i in ids:
        hit = np.flatnonzero(known == str(i))
        if not len(hit):
            raise InputError(f"--id {i!r}: no row has this id (ids come from {_id_name(data)})")
        if not protected[hit[0]]:
            attrs = ", ".join(map(repr, data.protected))
            raise InputError(
                f"--id {i!r} is not a complainant: the row is not protected on {attrs}; a "
                "dossier is written for a complainant only"
            )
        rows.append(int(hit[0]))
    return np.asarray(rows, dtype=np.int64)


def _id_name(data: Any) -> str:
    col = getattr(data, "id_column", None)
    return f"the column {col!r}" if col else "the row positions (no id column)"


# ------------------------------------------------------------------ decision source
def decision_source(cfg: Any) -> dict[str, str]:
    """How ŷ was obtained: ``{"kind": column|model|rule, "text", "sha256"}``.

    Parameters
    ----------
    cfg
        An :class:`~primafacie.config.AuditConfig` (its ``decision`` section).

    Returns
    -------
    dict
        ``sha256`` is the model file's hash (empty for a column or a rule).
    """
    from ..io import file_sha256

    dec = cfg.decision
    if dec.column is not None:
        return {"kind": "recorded column", "text": str(dec.column), "sha256": ""}
    if dec.model is not None:
        path = cfg.resolve(dec.model)
        sha = file_sha256(path) if path.is_file() else ""
        return {"kind": "model", "text": str(dec.model.as_posix()), "sha256": sha}
    return {"kind": "rule", "text": str(dec.rule), "sha256": ""}


# ------------------------------------------------------------------ the page's facts
def _shown(data: Any, redact: Iterable[str]) -> list[str]:
    """The feature columns a page may show (never anything outside the audit's roles)."""
    hidden = set(redact)
    return [c for c in data.features if c not in hidden]


def _members(
    data: Any,
    rows: np.ndarray,
    dist: np.ndarray,
    cols: list[str],
    first: dict | None,
    shown: Any,
) -> pd.DataFrame:
    """One row per group member (pads dropped), the complainant or twin first (``first``,
    none when None); ``shown`` maps an id to what the page prints (its pseudonym when
    redacted)."""
    ok = rows >= 0
    rows, dist = rows[ok], dist[ok]
    frame = data.frame.iloc[rows]
    y = data.decision_array()[rows]
    out = pd.DataFrame({"id": [shown(i) for i in np.asarray(data.ids)[rows]]})
    for c in cols:
        out[c] = frame[c].to_numpy()
    out["decision"] = np.where(y == 1, "favourable", "unfavourable")
    out["distance"] = dist
    head = [] if first is None else [pd.DataFrame([first])]
    return pd.concat([*head, out], ignore_index=True)[["id", *cols, "decision", "distance"]]


def _adjusted(params: Mapping[str, Any]) -> str:
    """The correction across complainants in force (``""`` when none)."""
    mult = str(params.get("multiplicity") or "none")
    return "" if mult == "none" else mult


def verdict_flag(row: pd.Series, params: Mapping[str, Any]) -> bool:
    """The one verdict of a row: ``significant_adjusted`` under a correction, else
    ``significant`` (issue 23: a page never claims what the correction removes)."""
    if _adjusted(params) and "significant_adjusted" in row.index:
        return bool(row["significant_adjusted"])
    return bool(row["significant"])


def _names(res: Any) -> tuple[Mapping[str, str], Mapping[str, str]]:
    """The words of a Result's codes: ``(method names, multiplicity names)``, read from the
    Result (its analysis owns them), each code standing for itself when unnamed."""
    return getattr(res, "method_names", {}), getattr(res, "multiplicity_names", {})


def _verdict(row: pd.Series, params: Mapping[str, Any], res: Any = None) -> str:
    """The verdict sentence of one (method, k) row, under the correction in force."""
    methods, corrections = _names(res)
    name = methods.get(row["method"], row["method"])
    if pd.isna(row["delta"]):
        return f"{name}, k={row['k']}: not tested (a control or test group is empty)."
    kind = "positive " if params.get("direction") == "positive" else ""
    level = f"α = {params['alpha']:g}, τ = {params['tau']:g}"
    mult = _adjusted(params)
    after = f" after the {corrections.get(mult, mult)} adjustment" if mult else ""
    if verdict_flag(row, params):
        what = f"a significant case of potential {kind}discrimination{after}"
    elif bool(row["discriminated"]):
        what = f"a case (Δp > τ) of potential {kind}discrimination, not significant{after}"
        if mult and bool(row["significant"]):
            what += " (significant before it)"
    else:
        what = "not a case"
    p = _p_text(row, params)
    return f"{name}, k={row['k']} ({level}): Δp = {row['delta']:.3f}{p}, {what}."


def _p_text(row: pd.Series, params: Mapping[str, Any]) -> str:
    """``, p = 0.012, adjusted p = 0.10`` (the adjusted one only under a correction)."""
    if "p_value" not in row.index or pd.isna(row["p_value"]):
        return ""
    out = f", p {_equals(row['p_value'])}"
    if _adjusted(params) and "p_adjusted" in row.index and not pd.isna(row["p_adjusted"]):
        out += f", adjusted p {_equals(row['p_adjusted'])}"
    return out


def _equals(value: Any) -> str:
    """``= 0.012`` or ``< 0.0001`` (it read "p = < 0.0001")."""
    text = _p(value)
    return text if text.startswith("<") else f"= {text}"


def _p(value: Any) -> str:
    """A p-value for people: three significant digits, "< 0.0001" below that."""
    v = float(value)
    return "< 0.0001" if v < 1e-4 else f"{v:.3g}"


def _interval(row: pd.Series, params: Mapping[str, Any], res: Any, n_tests: int) -> dict:
    side = "one-sided" if params.get("direction") != "positive" else "one-sided (upper)"
    lo, hi = row["ci_low"], row["ci_high"]
    mult = _adjusted(params)
    p = row.get("p_value")
    p_adj = row.get("p_adjusted")
    methods, corrections = _names(res)
    return {
        "method": str(params.get("interval", "wald")),
        "alpha": f"{params['alpha']:g}",
        "tau": f"{params['tau']:g}",
        "sides": side,
        "one_sided": f"[{format_number(lo)}, {format_number(hi)}]",
        "two_sided": f"[{format_number(row['ci2_low'])}, {format_number(row['ci2_high'])}]",
        "p_value": "—" if p is None or pd.isna(p) else _p(p),
        "p_adjusted": "—" if not mult or p_adj is None or pd.isna(p_adj) else _p(p_adj),
        "correction": (
            f"{corrections.get(mult, mult)} ({mult}) across the {n_tests:,} tested "
            f"complainants of {methods.get(row['method'], row['method'])}, k={row['k']}"
            if mult
            else "none (each test is read on its own)"
        ),
    }


def _overturning(sens: Any, pos: int, label: str) -> list[str]:
    """The variants of the causal model that change this person's verdict in this test."""
    try:
        return list(sens.overturning(pos, test=label))
    except TypeError:  # a sensitivity Result whose overturning() takes the row only
        return list(sens.overturning(pos))


def _test_facts(
    label: str,
    res: Any,
    data: Any,
    pos: int,
    twin_of: Any,
    redact: Sequence[str],
    sens: Any,
    shown: Any = str,
) -> dict[str, Any]:
    """Everything one test says about one complainant (row position ``pos``); ``twin_of(pos,
    attribute)`` gives the person's counterfactual twin, its path and noise (or None)."""
    method, k = res.main_test()
    params, table = res.params, res.table
    mine = table[table["row"] == pos]
    row = mine[(mine["method"] == method) & (mine["k"] == k)].iloc[0]
    attr = params["attribute"]
    cols = _shown(data, redact)
    found = twin_of(pos, attr) if method != "st" and twin_of is not None else None
    twin, path, noise = found if found is not None else (None, [], {})
    sel = table[(table["method"] == method) & (table["k"] == k)]
    n_tests = int(sel["p_value"].notna().sum()) if "p_value" in sel.columns else len(sel)
    at = int(np.flatnonzero(sel["row"].to_numpy() == pos)[0])  # the neighbour lists' row
    ctrl, test = (a[at] for a in res.neighbors[(method, k)])
    ctrl_d, test_d = (a[at] for a in res.neighbor_distances[(method, k)])
    me = data.frame.iloc[pos]
    y = "favourable" if data.decision_array()[pos] == 1 else "unfavourable"
    first_c = {"id": f"{shown(data.ids[pos])} (complainant)", **{c: me[c] for c in cols},
               "decision": y, "distance": 0.0}  # fmt: skip
    cf_dec = row.get("cf_decision")
    # the test group's centre: the person (ST), the twin, or, for a counterfactual method whose
    # twin the page cannot show, no row (the factual record is not what was searched around)
    centre, name = (me, f"{shown(data.ids[pos])} (complainant)") if twin is None else (
        twin, "twin (counterfactual)")  # fmt: skip
    first_t = None if method != "st" and twin is None else {
        "id": name, **{c: centre[c] for c in cols}, "distance": 0.0,
        "decision": "—" if pd.isna(cf_dec) else ("favourable" if cf_dec == 1 else "unfavourable"),
    }  # fmt: skip
    # why a counterfactual method's page shows no twin: no SCM reached the dossier (the
    # counterfactuals came from a table), or the value do() set is not one it can read
    no_twin = None
    if method != "st" and twin is None:
        no_twin = (
            "no causal model was given (the counterfactuals came from a table)"
            if twin_of is None
            else f"the value do() set on {attr} is not a single non-protected value it can read"
        )
    overturn = None if sens is None else _overturning(sens, pos, label)
    return {
        "label": label,
        "attribute": attr,
        "method": method,
        "method_name": _names(res)[0].get(method, method),
        "k": k,
        "row": row,
        "twin": twin,
        "no_twin": no_twin,
        "path": path,
        "noise": noise,
        "control": _members(data, ctrl, ctrl_d, cols, first_c, shown),
        "test": _members(data, test, test_d, cols, first_t, shown),
        "interval": _interval(row, params, res, n_tests),
        "verdict": _verdict(row, params, res),
        "all": mine,
        "params": params,
        "overturning": overturn,
    }


# ------------------------------------------------------------------ rendering
def _fmt(v: Any) -> str:
    if isinstance(v, (float, np.floating)):
        return format_number(float(v))
    return str(v)


def _table(frame: pd.DataFrame) -> dict[str, Any]:
    """Columns and display rows; a column of floats keeps one number of decimals (as in
    the report: "20.5" beside "16.0", never "20.500" beside "16")."""
    decimals = [_column_decimals(frame[c]) for c in frame.columns]
    return {
        "columns": [str(c) for c in frame.columns],
        "rows": [
            [
                _fmt(v) if d is None or not _finite(v) else fixed(float(v), d)
                for v, d in zip(rec, decimals, strict=True)
            ]
            for rec in frame.itertuples(index=False, name=None)
        ],  # fmt: skip
    }


def _finite(v: Any) -> bool:
    return isinstance(v, (float, np.floating)) and bool(np.isfinite(v))


def _all_verdicts(mine: pd.DataFrame, params: Mapping[str, Any], res: Any) -> dict[str, Any]:
    adjusted = bool(_adjusted(params)) and "significant_adjusted" in mine.columns
    methods = _names(res)[0]
    cols = {
        "method": [methods.get(m, m) for m in mine["method"]],
        "k": mine["k"].to_numpy(),
        "p_c": [f"{a}/{n}" for a, n in zip(mine["neg_c"], mine["k_c"], strict=True)],
        "p_t": [f"{a}/{n}" for a, n in zip(mine["neg_t"], mine["k_t"], strict=True)],
        "Δp": mine["delta"].to_numpy(),
        "lower bound": mine["ci_low"].to_numpy(),
        "case": np.where(mine["discriminated"].to_numpy(dtype=bool), "yes", "no"),
    }
    if "p_value" in mine.columns:
        cols["p-value"] = ["—" if pd.isna(v) else _p(v) for v in mine["p_value"]]
    if adjusted:
        cols["adjusted p-value"] = ["—" if pd.isna(v) else _p(v) for v in mine["p_adjusted"]]
        cols["significant"] = np.where(
            mine["significant_adjusted"].to_numpy(dtype=bool), "yes", "no"
        )
        cols["significant before adjustment"] = np.where(
            mine["significant"].to_numpy(dtype=bool), "yes", "no"
        )
    else:
        cols["significant"] = np.where(mine["significant"].to_numpy(dtype=bool), "yes", "no")
    return _table(pd.DataFrame(cols))


def _record(
    data: Any,
    pos: int,
    redact: Sequence[str],
    source: Mapping[str, str],
    shown: Any = str,
    windows: Sequence[str] | None = None,
) -> dict:
    me = data.frame.iloc[pos]
    rows = [("id", shown(data.ids[pos]))]
    rows += [(f"{a} (protected)", str(me[a])) for a in data.protected if a not in redact]
    rows += [(c, _fmt(me[c])) for c in _shown(data, redact)]
    y = data.decision_array()[pos]
    dec = "favourable" if y == 1 else "unfavourable"
    if data.decision is not None and data.decision in data.frame.columns:
        dec += f" (recorded value {me[data.decision]!s})"
    rows.append(("decision", dec))
    if data.outcome is not None and data.outcome not in redact:
        rows.append((f"outcome ({data.outcome})", str(me[data.outcome])))
    if windows is not None:  # time: in audit.yaml: the window this decision falls in
        rows.append(("time window", str(windows[pos])))
    return {"rows": rows, "source": dict(source)}


@dataclass(frozen=True)
class Redaction:
    """What a dossier hides, applied to the values before they are rendered.

    ``columns`` are left out of every table and their names become ``[redacted]`` in every
    sentence; ``ids`` maps a redacted id (as text) to its pseudonym ``redacted-<8 hex>``, a
    SHA-256 of the id salted with the data's ids, so it is stable across reruns of the same
    data and cannot be looked up from a list of likely ids alone.

    Examples
    --------
    >>> r = Redaction(columns=("A&B",), ids={"7": "redacted-00000000"})
    >>> r.scrub({"t": ["A&B > 3", "A&Bc"]}), r.shown(7)
    ({'t': ['[redacted] > 3', 'A&Bc']}, 'redacted-00000000')
    """

    columns: tuple[str, ...] = ()
    ids: Mapping[str, str] = field(default_factory=dict)

    def shown(self, ident: Any) -> str:
        """What a page prints for the id ``ident``."""
        return self.ids.get(str(ident), str(ident))

    def scrub(self, obj: Any) -> Any:
        """``obj`` (nested dicts, lists, tuples of text) with redacted column names replaced
        (whole words); other values are returned as they are."""
        if not self.columns:
            return obj
        if isinstance(obj, str):
            return _words(self.columns).sub("[redacted]", obj)
        if isinstance(obj, dict):
            return {k: self.scrub(v) for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            return type(obj)(self.scrub(v) for v in obj)
        return obj

    def check(self, page: str, file: str) -> None:
        """Refuse (:class:`InputError`) a page on which a redacted column name is still a
        word, raw or HTML-escaped: the name is part of the page's own text (e.g. ``id``)."""
        import html as html_lib

        for name in self.columns:
            forms = {name, html_lib.escape(name), html_lib.escape(name).replace("&#x27;", "&#39;")}
            if _words(tuple(forms)).search(page):
                raise InputError(
                    f"dossiers.redact: the column {name!r} cannot be redacted from {file}: the "
                    "name is a word of the page's own text (headings, labels); rename the "
                    "column or stop redacting it"
                )


def _words(names: Sequence[str]) -> re.Pattern[str]:
    """Whole-word matches of any of ``names`` (longest first)."""
    alts = "|".join(map(re.escape, sorted(names, key=len, reverse=True)))
    return re.compile(r"(?<![A-Za-z0-9_])(?:" + alts + r")(?![A-Za-z0-9_])")


def redaction(data: Any, redact: Sequence[str], keep: Sequence[str] = ()) -> Redaction:
    """Split a ``redact`` list into columns and ids of ``data``; anything else is refused.

    Parameters
    ----------
    data
        The audited :class:`~primafacie.data.AuditData`.
    redact
        Column names and ids (ids matched as text).
    keep
        Columns a dossier cannot hide (the protected attribute it is about, the decision).

    Returns
    -------
    Redaction
    """
    import hashlib

    redact = [str(r) for r in redact]
    columns = [c for c in redact if c in set(map(str, data.frame.columns))]
    bad = [c for c in columns if c in keep]
    if bad:
        raise InputError(
            f"dossiers.redact: {bad} cannot be redacted: a dossier is about the protected "
            "attribute and the decision, and names them on every page"
        )
    wanted = [r for r in redact if r not in columns]
    if not wanted:  # no id to pseudonymise: the text of every id (~84 B per row) is not made
        return Redaction(columns=tuple(columns), ids={})
    ids = pd.Index(np.asarray(data.ids).astype(str))
    missing = [r for r in wanted if r not in ids]
    if missing:
        raise InputError(
            f"dossiers.redact: {missing} are not columns of the data nor ids of its rows; columns: "
            + ", ".join(map(str, data.frame.columns))
        )
    pseudo: dict[str, str] = {}
    if wanted:
        salt = hashlib.sha256("\0".join(ids).encode("utf-8")).hexdigest()
        for r in wanted:
            digest = hashlib.sha256(f"{salt}\0{r}".encode()).hexdigest()[:8]
            pseudo[r] = f"redacted-{digest}"
    return Redaction(columns=tuple(columns), ids=pseudo)


def _assumptions(params: Mapping[str, Any], scm: Any, redact: Sequence[str]) -> list[str]:
    ks = ", ".join(map(str, params.get("k", [])))
    out = [
        "Similar people are found with the Gower distance (range-normalised absolute "
        "differences of numeric and ordinal features, 0/1 mismatch of categorical ones, "
        f"averaged over {params.get('n_attributes', 'the')} attributes); the protected "
        f"attribute is never used. k ∈ {{{ks}}}, α = {params['alpha']:g}, τ = "
        f"{params['tau']:g}, {params.get('interval', 'wald')} intervals, "
        f"{params.get('direction', 'negative')} discrimination.",
    ]
    if scm is not None:
        edges = [f"{a} → {b}" for a, b in scm.edges if a not in redact and b not in redact]
        mechs = sorted({m.label for m in getattr(scm, "mechanisms_", {}).values()})
        out.append(
            "The counterfactual twin follows the causal graph "
            + (", ".join(edges) or "(edges redacted)")
            + f" with {', '.join(mechs) or 'no'} mechanisms and additive noise abducted from "
            "the person's own values (Pearl's abduction, action, prediction)."
        )
    if params.get("legacy"):
        out.append("legacy=True: the CST authors' code conventions (for published tables).")
    return out


def render_dossier(facts: Mapping[str, Any]) -> str:
    """Render one page from its facts (see :func:`dossier_pages`).

    Parameters
    ----------
    facts
        ``{"id", "record", "tests", "legal", "meaning", "sections"}``.

    Returns
    -------
    str
        The HTML document.
    """
    return _render("dossier.html", dict(facts))


def _render(name: str, context: Mapping[str, Any]) -> str:
    """Render a dossier template (they share ``dossier_style.html``: print CSS, no script)."""
    return template_environment(num=_fmt, pval=_p).get_template(name).render(**context, csp=CSP)


def _page(
    ident: Any,
    pos: int,
    tests: Mapping[str, Any],
    data: Any,
    scm: Any,
    source: Mapping[str, str],
    hide: Redaction,
    sensitivity: Any,
    file: str,
    setting: Mapping[str, Any] | None = None,
) -> tuple[str, list[dict]]:
    """One person's page (written to ``file``) and its index rows; ``setting`` holds the
    audit's ``windows`` (each row's time window, or None), ``jurisdiction`` and ``twin``
    (see :func:`dossier_pages`)."""
    setting = setting or {}
    parts, index = [], []
    redact = list(hide.columns)
    for label, res in tests.items():
        if not (res.table["row"] == pos).any():
            continue
        twin_of = setting.get("twin")
        f = _test_facts(label, res, data, pos, twin_of, redact, sensitivity, hide.shown)
        f["control_table"], f["test_table"] = _table(f["control"]), _table(f["test"])
        f["verdicts"] = _all_verdicts(f["all"], f["params"], res)
        f["assumptions"] = _assumptions(f["params"], scm, redact)
        f["path"] = [p for p in f["path"] if p["node"] not in redact]
        for p in f["path"]:
            p["edges"] = [(a, v) for a, v in p["edges"] if a not in redact]
        f["noise"] = {k: v for k, v in f["noise"].items() if k not in redact}
        parts.append(hide.scrub(f))
        row = f["row"]
        index.append(
            {
                "id": ident if str(ident) not in hide.ids else hide.shown(ident),
                "file": file,
                "test": label,
                "method": f["method"],
                "k": int(f["k"]),
                "p_c": row["p_c"],
                "p_t": row["p_t"],
                "delta": row["delta"],
                "ci_low": row["ci_low"],
                "p_value": row.get("p_value"),
                "p_adjusted": row.get("p_adjusted"),
                "multiplicity": _adjusted(f["params"]) or "none",
                # the one verdict (after the correction in force), as on the page
                "significant": verdict_flag(row, f["params"]),
                "verdicts": "; ".join(
                    f"{r['method']} k={r['k']}: {'yes' if verdict_flag(r, f['params']) else 'no'}"
                    for _, r in f["all"].iterrows()  # a few (method, k) rows of one person
                ),
            }
        )
    facts = {
        "id": hide.shown(ident),
        "record": _record(data, pos, redact, source, hide.shown, setting.get("windows")),
        "tests": parts,
        "legal": legal_note(setting.get("jurisdiction", "eu")),
        "meaning": _MEANING,
        "sections": SECTION_TITLES,
    }
    html = render_dossier({**hide.scrub({k: v for k, v in facts.items() if k != "tests"}),
                           "tests": parts})  # fmt: skip
    hide.check(html, file)
    return html, index


def page_names(shown: Sequence[str], prefix: str = "") -> dict[str, str]:
    """``{shown id or label: dossiers/<name>.html}``, names distinct within the run
    (:func:`~primafacie.filenames.distinct_names`); a person's page never takes a name that
    starts like a subgroup page's."""
    from ..filenames import distinct_names

    reserved = () if prefix else ("subgroup_",)
    names = distinct_names(shown, max_len=100 - len(prefix), reserved=reserved)
    return {v: f"dossiers/{prefix}{n}.html" for v, n in names.items()}


def dossier_pages(
    results: Mapping[str, Any],
    data: Any,
    *,
    scm: Any = None,
    twin: Callable[[int, str], Any] | None = None,
    source: Mapping[str, str] | None = None,
    ids: Sequence[Any] | None = None,
    top: int = 20,
    redact: Sequence[str] = (),
    sensitivity: Any = None,
    windows: Sequence[str] | None = None,
    jurisdiction: str = "eu",
) -> Dossiers:
    """A page per complainant: the given ``ids``, or the ``top`` strongest of each test.

    Parameters
    ----------
    results
        ``{label: Result}`` of the situation analysis; the single-attribute tests
        (:class:`~primafacie.situation.SituationResult`, run with ``keep_neighbors=True``)
        are used, others are skipped.
    data
        The audited :class:`~primafacie.data.AuditData`.
    scm
        The fitted SCM, described in the assumptions (its edges and mechanisms); None for
        ST only.
    twin
        ``twin(pos, attribute) -> (twin, path, noise)`` or None: the counterfactual twin of
        the person at row ``pos``, computed by the analysis
        (:func:`primafacie.situation.dossier.build_dossiers` passes
        :func:`primafacie.causal.explain.counterfactual_twin`); None shows no twin.
    source
        How the decision was obtained (:func:`decision_source`).
    ids
        Complainant ids; an unknown id or a non-complainant is an :class:`InputError`.
    top
        With ``ids=None``: pages for the ``top`` strongest complainants of each test.
    redact
        Columns hidden everywhere, page source included.
    sensitivity
        The sensitivity Result (``overturning(row) -> list[str]``) when that analysis ran.
    windows
        Each row's time window (``time:`` in audit.yaml), shown in the person's record.
    jurisdiction
        Whose legal notes the pages carry (:func:`primafacie.legal.legal_note`).

    Returns
    -------
    Dossiers
    """
    tests = _tests(results, data)
    if not tests:
        raise InputError(
            "dossiers need the test of a single protected attribute (dimensions: [single])"
        )
    for label, res in tests.items():
        if not res.neighbors or not res.neighbor_distances:
            raise InputError(f"dossiers need the neighbour lists of {label!r}: keep_neighbors")
    keep = [*(res.params.get("attribute") for res in tests.values()), data.decision]
    hide = redaction(data, redact, keep=[str(k) for k in keep if k is not None])
    chosen = select_ids(tests, top) if ids is None else _check_ids(ids, tests, data)
    shown = [hide.shown(i) for i in chosen]
    if len(set(shown)) < len(shown):
        raise InputError("dossiers.redact: an id equals the pseudonym of a redacted id")
    files = page_names(shown)
    lookup = _positions(np.asarray(data.ids), chosen)
    html, index, keys = {}, [], {}
    src = dict(source or {"kind": "recorded column", "text": str(data.decision), "sha256": ""})
    for ident, name in zip(chosen, shown, strict=True):
        pos = lookup[ident]
        file = files[name]
        setting = {"windows": windows, "jurisdiction": jurisdiction, "twin": twin}
        page, rows = _page(ident, pos, tests, data, scm, src, hide, sensitivity, file, setting)
        html[file] = page
        keys[str(ident)] = file
        index += rows
    columns = ["id", "file", "test", "method", "k", "p_c", "p_t", "delta", "ci_low",
               "p_value", "p_adjusted", "multiplicity", "significant", "verdicts"]  # fmt: skip
    return Dossiers(index=pd.DataFrame(index, columns=columns), html=html, keys=keys)


# ------------------------------------------------------------------ recourse subgroups
#: The section headings of a subgroup page, in order.
SUBGROUP_SECTION_TITLES = (
    "The subgroup",
    "Comparative subgroup counterfactual",
    "What this means",
)

_SUBGROUP_MEANING = (
    "Each definition compares how easily the rejected members of each group obtain the "
    "favourable decision by changing what they can change (the actions below, with their "
    "costs). A subgroup ranked with a bias against a group is evidence that the favourable decision is "
    "harder to reach for that group here; it does not say why, and it rests on the cost of each feature, the "
    "immutable features and the support threshold stated in the report."
)


def _cscs(results: Mapping[str, Any]) -> list[Any]:
    """The comparative subgroup counterfactual Results (they have ``records``)."""
    return [r for r in results.values() if hasattr(r, "records") and hasattr(r, "title")]


def _subgroup_definition(rec: Any, title: str, hidden: frozenset[str] = frozenset()) -> dict:
    """One definition's expanded card: the members by group and every action with its cost
    (a ``hidden`` feature's name and value are shown as ``[redacted]``)."""
    members = pd.DataFrame(
        {
            "group": [g.group for g in rec.groups],
            "rejected members in the subgroup": [int(g.n) for g in rec.groups],
            "share of the group's rejected": [f"{100 * g.coverage:.1f}%" for g in rec.groups],
            "difficulty": [g.difficulty for g in rec.groups],
        }
    )
    acts = [
        {
            "group": g.group,
            "action": ", ".join(f"{k} = {v}" for k, v in _items(a.changes, hidden)),
            "obtain the favourable decision": f"{int(a.flipped)} of {int(a.n)}",
            "effectiveness": f"{100 * a.effectiveness:.1f}%",
            "cost": a.cost if a.cumulative else "—",
        }
        for g in rec.groups
        for a in g.actions
    ] + [
        {"group": g.group, "action": "no action changes the decision under this definition",
         "obtain the favourable decision": f"0 of {int(g.n)}", "effectiveness": "—", "cost": "—"}
        for g in rec.groups
        if not g.actions
    ]  # fmt: skip
    actions = pd.DataFrame(
        acts, columns=["group", "action", "obtain the favourable decision", "effectiveness",
                       "cost"]
    )  # fmt: skip
    score = "∞" if np.isinf(rec.score) else f"{rec.score:.3g}"
    verdict = (
        f"Ranked #{rec.rank}: no difference between the groups."
        if rec.score == 0
        else f"Ranked #{rec.rank}: bias against {rec.bias_against} (unfairness score {score})."
    )
    return {"title": title, "verdict": verdict, "members": _table(members),
            "actions": _table(actions)}  # fmt: skip


def _items(mapping: Mapping[str, Any], hidden: frozenset[str]) -> list[tuple[str, Any]]:
    """``(feature, value)`` pairs, both ``[redacted]`` for a hidden feature."""
    return [
        ("[redacted]", "[redacted]") if str(k) in hidden else (k, v) for k, v in mapping.items()
    ]


def build_subgroup_dossiers(
    results: Mapping[str, Any], top: int = 5, redact: Sequence[str] = ()
) -> Dossiers:
    """A page per top subgroup of the recourse Results: its card, expanded, per definition.

    Parameters
    ----------
    results
        ``{label: Result}`` of the recourse analysis; the comparative subgroup counterfactual
        Results (with ``records``) are read, in definition order.
    top
        Subgroups, taken in order of first appearance (each definition's first ranked first).
    redact
        Feature names hidden, with their values, from every page, the index and the file
        names; a name that is not a feature of any subgroup or action is refused.

    Returns
    -------
    Dossiers
        Pages ``dossiers/subgroup_<label>.html`` (names distinct within the run); the index
        has one row per subgroup and definition (id = subgroup label, test = definition,
        rank, score, bias_against).
    """
    cscs = _cscs(results)
    depth = max((len(c.records) for c in cscs), default=0)
    order = [c.records[i].label for i in range(depth) for c in cscs if i < len(c.records)]
    chosen = list(dict.fromkeys(order))[:top]
    hidden = frozenset(map(str, redact))
    hide = Redaction(columns=tuple(hidden))
    _check_subgroup_redact(cscs, hidden)
    first = {lab: next(r for c in cscs for r in c.records if r.label == lab) for lab in chosen}
    shown = {
        lab: "; ".join(f"{k}={v}" for k, v in _items(rec.subgroup, hidden)) if hidden else lab
        for lab, rec in first.items()
    }
    files = page_names(list(dict.fromkeys(shown.values())), prefix="subgroup_")
    html, index = {}, []
    for label in chosen:
        file = files[shown[label]]
        defs = []
        for csc in cscs:
            for rec in csc.records:
                if rec.label != label:
                    continue
                defs.append(hide.scrub(_subgroup_definition(rec, csc.title, hidden)))
                index.append({"id": shown[label], "file": file, "test": csc.title,
                              "rank": int(rec.rank), "score": float(rec.score),
                              "bias_against": rec.bias_against, "verdicts": defs[-1]["verdict"]})  # fmt: skip
        page = _render(
            "dossier_subgroup.html",
            {
                "label": shown[label],
                "subgroup": [(k, _fmt(v)) for k, v in _items(first[label].subgroup, hidden)],
                "definitions": defs,
                "meaning": _SUBGROUP_MEANING,
                "legal": list(LEGAL_NOTE),
                "sections": SUBGROUP_SECTION_TITLES,
            },
        )
        hide.check(page, file)
        html[file] = page
    columns = ["id", "file", "test", "rank", "score", "bias_against", "verdicts"]
    return Dossiers(index=pd.DataFrame(index, columns=columns), html=html)


def _check_subgroup_redact(cscs: Sequence[Any], hidden: frozenset[str]) -> None:
    """Refuse a redacted name that no subgroup or action uses: it would hide nothing."""
    if not hidden:
        return
    used = {str(k) for c in cscs for r in c.records for k in r.subgroup}
    used |= {str(k) for c in cscs for r in c.records for g in r.groups for a in g.actions
             for k in a.changes}  # fmt: skip
    unknown = sorted(hidden - used)
    if unknown:
        raise InputError(
            f"dossiers.redact: {unknown} are not features of any subgroup "
            "or action; features: " + ", ".join(sorted(used))
        )
