"""Result objects of situation testing: per-complainant rows and a summary by method and k.

A complainant is *tested* when both its control and its test group have at least one member;
otherwise (``max_distance`` left a group empty, or a search space is empty) Δp is undefined
and the complainant is *untested*. Untested complainants are left out of every numerator and
every denominator and reported as their own count (``summary()`` columns ``tested`` and
``untested``, :meth:`~SituationResult.scope` and :meth:`~SituationResult.caveats`): they are
never counted as tested negatives.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import product
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..base import BaseResult, figure_axes
from ..docstrings import SITUATION_SETUP, fill_doc
from ..jsonsafe import json_safe
from .labels import METHOD_NAMES, method_name
from .multiplicity import MULTIPLICITY_NAMES

# pandas is imported in the functions that use it: importing the situation engine must not
# load it (issue 22, start-up); the annotations name it only for type checkers.
if TYPE_CHECKING:
    import pandas as pd

__all__ = ["SituationResult", "summarize", "json_safe", "in_force", "verdict_count", "stacked"]

_ORDER = {m: i for i, m in enumerate(METHOD_NAMES)}  # the methods' display order


def expected_text(value: float) -> str:
    """An expected count for people: whole from 10 on ("76", not "76.300"), one decimal
    below, where the decimal is the information ("0.2").

    Examples
    --------
    >>> expected_text(76.3), expected_text(0.25), expected_text(1234.5)
    ('76', '0.2', '1,234')
    """
    return f"{value:,.0f}" if value >= 10 else f"{value:.1f}"


def _summary_row(
    method: str,
    k: Any,
    cols: dict[str, np.ndarray],
    denominator: int,
    alpha: float | None,
    multiplicity: Any,
) -> dict[str, Any]:
    """One row of :func:`summarize`: the counts of one (method, k) from its rows' columns
    (``significant_adjusted`` absent: a table built without the adjustment, by hand, is
    unadjusted, so the flags themselves count)."""
    flag, sig, delta = cols["discriminated"], cols["significant"], cols["delta"]
    adj = cols.get("significant_adjusted", sig)
    return counts_row(
        method, k, len(delta), int(np.isnan(delta).sum()), denominator,
        (flag.sum(), sig.sum(), adj.sum()), (delta[flag], delta[sig]), alpha,
        multiplicity if "significant_adjusted" in cols else "none",
    )  # fmt: skip


def counts_row(
    method: str,
    k: Any,
    n: int,
    untested: int,
    denominator: int,
    counts: tuple[Any, Any, Any],
    deltas: tuple[np.ndarray, np.ndarray],
    alpha: float | None,
    multiplicity: Any,
) -> dict[str, Any]:
    """One summary row from the counts of one (method, k): ``counts`` = (cases, significant,
    significant after the correction) as numpy integers, ``deltas`` = the Δp of the cases
    and of the significant ones; shares over the tested protected (``denominator`` minus
    the untested). The one row format of an in-memory table and of Parquet parts."""
    cases, sig, adj = counts
    den = denominator - untested
    return {
        "method": method,
        "k": int(k),
        "complainants": n,
        "tested": n - untested,
        "untested": untested,
        "denominator": den,
        "cases": int(cases),
        "cases_share": cases / den if den else np.nan,
        "n_significant": int(sig),
        "significant_share": sig / den if den else np.nan,
        "mean_delta_cases": float(deltas[0].mean()) if cases else np.nan,
        "mean_delta_significant": float(deltas[1].mean()) if sig else np.nan,
        "expected_by_chance": np.nan if alpha is None else alpha * (n - untested),
        "multiplicity": multiplicity,
        "n_significant_adjusted": int(adj),
        "significant_adjusted_share": adj / den if den else np.nan,
    }


#: The columns of :func:`summarize`, in order: the keys of :func:`counts_row` (a row of zeros).
_SUMMARY_COLUMNS = list(counts_row("", 0, 0, 0, 0, (0, 0, 0), ((), ()), None, "none"))


def _group_rows(table: pd.DataFrame) -> dict[tuple[Any, Any], Any]:
    """Rows of every (method, k), in order of first appearance.

    An engine's table holds each (method, k) as one contiguous block, found from where the
    keys change (a slice per group, nothing copied); any other table goes through
    ``groupby``, whose hashing and index arrays cost ~45 bytes per row (2.7 GB at 6·10^7).
    """
    import pandas as pd

    if not len(table):
        return {}
    codes, uniques = pd.factorize(table["method"], sort=False)
    k = table["k"].to_numpy()
    change = (codes[1:] != codes[:-1]) | (k[1:] != k[:-1])
    starts = np.concatenate([[0], np.flatnonzero(change) + 1, [len(table)]])
    del change
    # More runs than (method, k) pairs: not in blocks. Checked before the keys are listed, so
    # a shuffled table never costs a Python step per row.
    few = len(starts) - 1 <= len(uniques) * len(np.unique(k))
    keys = [(uniques[codes[a]], k[a]) for a in starts[:-1]] if few else []
    if not few or len(set(keys)) < len(keys):  # or a (method, k) in several runs: not in blocks
        return dict(table.groupby(["method", "k"], sort=False).indices)
    return {
        key: slice(int(a), int(b)) for key, a, b in zip(keys, starts[:-1], starts[1:], strict=True)
    }


def summarize(
    table: pd.DataFrame,
    denominator: int,
    methods: Any = None,
    ks: Any = None,
    alpha: float | None = None,
    multiplicity: str | None = None,
) -> pd.DataFrame:
    """Counts and shares of flagged and significant complainants by method and k.

    Parameters
    ----------
    table
        Per-complainant rows with columns method, k, delta, discriminated, significant.
    denominator
        Number of protected individuals (e.g. all females, spec §2). The untested complainants
        of each (method, k) are subtracted from it, so a share counts only who was tested
        (and, with ``complainants="rejected"``, the protected individuals with a favourable
        decision, who need no test).
    methods, ks
        The grid that was run; a (method, k) with no complainant (e.g. every protected row
        was accepted and only rejected ones were tested) gets a row with zero counts.
    alpha
        The run's α: ``expected_by_chance = α × tested``, the significant cases expected
        from chance alone if no one were discriminated against (NaN when not given).
    multiplicity
        The adjustment behind the table's ``significant_adjusted`` column (see
        :mod:`primafacie.situation.multiplicity`), recorded in the ``multiplicity`` column;
        a table without that column counts as unadjusted (``"none"``).

    Returns
    -------
    pandas.DataFrame
        method, k, complainants, tested (both groups non-empty), untested (Δp undefined),
        denominator (``denominator`` minus untested), cases, cases_share, n_significant,
        significant_share, mean_delta_cases, mean_delta_significant, expected_by_chance,
        multiplicity, n_significant_adjusted (cases still significant after the adjustment
        across the complainants of the (method, k)), significant_adjusted_share. Counts are integers,
        shares and means floats (NaN when undefined). The count of significant cases is
        ``n_significant`` (it was ``significant``, which in ``to_frame()`` is each
        complainant's boolean flag: a column name means one thing and one type).

    Examples
    --------
    >>> t = pd.DataFrame({"method": "st", "k": 2, "delta": [0.5, np.nan, -0.5, 1.0],
    ...                   "discriminated": [True, False, False, True],
    ...                   "significant": [False, False, False, True]})
    >>> summarize(t, 5)[["complainants", "tested", "untested", "denominator", "cases_share"]]
       complainants  tested  untested  denominator  cases_share
    0             4       3         1            4          0.5
    """
    # Only the four columns the counts read, as arrays, indexed per group: materialising each
    # group's rows would copy the whole table (6·10^7 rows at 10^7 decisions).
    names = ["discriminated", "significant", "significant_adjusted"]
    cols = {c: table[c].to_numpy(dtype=bool) for c in names if c in table}
    cols["delta"] = table["delta"].to_numpy(dtype=float)
    groups = _group_rows(table)
    for key in product(methods, ks) if methods is not None and ks is not None else ():
        groups.setdefault(key, np.zeros(0, dtype=np.int64))
    return summary_frame([
        _summary_row(*key, {c: a[idx] for c, a in cols.items()}, int(denominator), alpha,
                     multiplicity) for key, idx in groups.items()
    ])  # fmt: skip


def summary_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """The summary table of some rows of :func:`_summary_row`, in method then k order."""
    import pandas as pd

    return pd.DataFrame(rows, columns=_SUMMARY_COLUMNS).sort_values(
        ["method", "k"], key=lambda s: s.map(_ORDER) if s.name == "method" else s, ignore_index=True
    )


def stacked(frames: Mapping[str, pd.DataFrame], column: str) -> pd.DataFrame:
    """The frames one under the other, with a first column ``column`` holding each one's
    label (the audit's summary of several tests, the CLI's CSVs); none: an empty frame."""
    import pandas as pd

    if not frames:
        return pd.DataFrame()
    out = pd.concat([f.assign(**{column: key}) for key, f in frames.items()], ignore_index=True)
    return out[[column, *(c for c in out.columns if c != column)]]


def in_force(row: Any) -> bool:
    """A correction across complainants is in force for this summary row."""
    return str(row["multiplicity"]) not in ("none", "None", "nan")


def verdict_count(row: Any) -> int:
    """The one verdict count of a summary row: significant after the correction in force
    (issue 23), the unadjusted count when there is none."""
    return int(row["n_significant_adjusted"] if in_force(row) else row["n_significant"])


def _is(n: int) -> str:
    return "is" if n == 1 else "are"


class _SituationResultBase(BaseResult):
    """What a situation-testing result says from its own numbers: summary, headline, scope,
    caveats and the JSON-safe dict.

    Shared by :class:`SituationResult` and ``MultipleResult``: both have ``table``,
    ``params``, ``n_protected``, ``n_complainants`` and their own ``to_frame(neighbors)``.
    """

    table: pd.DataFrame
    params: dict
    n_protected: int
    n_complainants: int

    #: The words of the codes in the table (methods, corrections), read by the dossier pages.
    method_names: ClassVar[dict[str, str]] = METHOD_NAMES
    multiplicity_names: ClassVar[dict[str, str]] = MULTIPLICITY_NAMES

    def _summary(self) -> pd.DataFrame:
        """Counts, shares and mean Δp by method and k, one row per (method, k) (see
        :func:`summarize`; built once, :meth:`summary` returns a copy). Shares are of
        ``n_protected`` minus the untested complainants (for multiple discrimination: those
        not tested on every attribute)."""
        p = self.params  # multiple: a case is significant only if every run is, each at α/q
        return summarize(self.table, self.n_protected, p.get("methods"), p.get("k"),
                         p.get("alpha_per_test", p.get("alpha")), p.get("multiplicity"))  # fmt: skip

    def to_dict(
        self, neighbors: bool = False, max_rows: int | None = None, see: str | None = None
    ) -> dict:
        """JSON-safe dict: params, summary rows and complainant rows (NaN→None, inf→"inf").

        Parameters
        ----------
        neighbors
            Add each complainant's neighbour ids (``control_ids``/``test_ids``, per
            attribute for multiple discrimination), as :meth:`to_frame` gives them.
        max_rows
            With more complainant rows than this, ``complainants`` is ``{"rows": n, "see":
            see}`` (the rows are in the CSV table ``see``) and no record is built: at 10^6
            decisions the records would be ~10^7 dicts, many GB (issue 22). None: every row.
        see
            The table that holds the rows when there are more than ``max_rows``.

        Returns
        -------
        dict
            ``params``, ``n_protected``, ``n_complainants``, ``headline``, ``scope``,
            ``caveats``, ``summary`` and ``complainants``.
        """
        if max_rows is not None and len(self.table) > max_rows:
            rows: Any = {"rows": len(self.table), "see": see}
        else:
            rows = self.to_frame(neighbors=neighbors).astype(object).to_dict(orient="records")
        return self._dict_with(rows)

    #: :meth:`to_dict`'s keys before ``complainants``.
    dict_keys: ClassVar[tuple[str, ...]] = ("params", "n_protected", "n_complainants",
                                            "headline", "scope", "caveats", "summary")  # fmt: skip

    def _dict_with(self, complainants: Any) -> dict:
        """The JSON-safe dict of :meth:`to_dict` around ``complainants`` (records, or where
        they are), so a result whose rows live elsewhere writes the same keys."""
        return {**self._record(self.dict_keys), "complainants": json_safe(complainants)}

    def block(self, method: str, k: int, columns: list[str] | None = None) -> pd.DataFrame:
        """The rows of one (method, k) (``columns``: only these), in table order.

        Parameters
        ----------
        method, k
            The test.
        columns
            The columns wanted (default: all).

        Returns
        -------
        pandas.DataFrame
        """
        t = self.table
        rows = t[(t["method"] == method) & (t["k"] == k)]
        return rows if columns is None else rows[columns]

    def strength(self) -> tuple[list[str], bool]:
        """The columns that put the strongest complaints first, and whether ascending: Δp and
        the interval's lower bound, descending, for negative discrimination; Δp and the upper
        bound, ascending, for positive discrimination (the most favoured first)."""
        positive = self.params.get("direction") == "positive"
        bound = "ci_high" if positive else "ci_low"
        return [c for c in ("delta", bound) if c in self.table.columns], positive

    def strongest(self, method: str, k: int, n: int, keys: list[str] | None = None) -> pd.DataFrame:
        """The first ``n`` rows of one (method, k), strongest first (a stable sort: ties keep
        table order), as the report lists the strongest complaints.

        Parameters
        ----------
        method, k
            The test.
        n
            How many rows.
        keys
            Sort columns, descending (e.g. ``["delta", "ci_low"]``); by default the
            direction's order, :meth:`strength`.

        Returns
        -------
        pandas.DataFrame
        """
        keys, ascending = (keys, False) if keys is not None else self.strength()
        return self.block(method, k).sort_values(keys, ascending=ascending, kind="stable").head(n)

    # ---- what the narrative is about
    def main_test(self) -> tuple[str, int]:
        """The (method, k) a headline reports: CST w/o when it ran (else the first method
        asked for), at the largest k."""
        methods = list(self.params.get("methods") or self.table["method"].unique())
        method = "cst" if "cst" in methods else methods[0]
        return method, int(max(self.params.get("k") or self.table["k"]))

    def _who(self) -> str:
        attrs = self.params.get("attributes")
        if self.params.get("dimension") == "multiple":
            return "protected on every attribute (" + ", ".join(map(str, attrs)) + ")"
        return f"protected on {self.params.get('attribute')!r}"

    def _level(self) -> str:
        alpha, tau = self.params.get("alpha"), self.params.get("tau")
        per_test = self.params.get("alpha_per_test")
        if per_test is not None and per_test != alpha:
            return f"α = {alpha:g}, {per_test:g} per attribute (Bonferroni), τ = {tau:g}"
        return f"α = {alpha:g}, τ = {tau:g}"

    def _why_untested(self) -> str:
        eps = self.params.get("max_distance")
        if eps is not None:
            return f"within max_distance {eps:g}"
        return "(a control or test search space is empty)"

    def _row(self, method: str, k: int) -> Any:
        s = self.summary()
        hit = s[(s["method"] == method) & (s["k"] == k)]
        return hit.iloc[0] if len(hit) else None

    # ---- the three texts
    @fill_doc(setup=SITUATION_SETUP)
    def headline(self) -> str:
        """One sentence: the significant cases among who was tested, for :meth:`main_test`.

        Under a correction across complainants (``multiplicity`` other than ``none``)
        "significant" means significant after it; the unadjusted count follows, labelled.

        The share is taken of the protected individuals minus the untested complainants
        (never counting an untested complainant as a tested negative); how many could not be
        tested follows in the same sentence.

        Returns
        -------
        str

        Examples
        --------
        {{setup}}
        >>> res = SituationTest(methods="st", k=2, max_distance=0.12, interval="wald").run(data)
        >>> print(res.headline())  # doctest: +NORMALIZE_WHITESPACE
        ST, k=2 (α = 0.05, τ = 0): 1 of 3 tested individuals protected on 'a' (33.3%) are
        significant cases of potential discrimination after the Benjamini–Hochberg
        adjustment (false discovery rate 0.05; 1 before the Benjamini–Hochberg adjustment);
        1 more could not be tested within max_distance 0.12 and is left out. Of 3 tests at
        α = 0.05, about 0.2 would be significant by chance alone if no one were
        discriminated against.
        >>> res.summary()[["tested", "untested", "denominator", "n_significant"]].values.tolist()
        [[3, 1, 3, 1]]
        >>> len(res.caveats())  # untested, groups < k, a zero-width Wald interval, Wald tails
        4
        """
        method, k = self.main_test()
        row = self._row(method, k)
        kind = "positive " if self.params.get("direction") == "positive" else ""
        head = f"{method_name(method)}, k={k} ({self._level()})"
        if row is None or int(row["denominator"]) == 0:
            return f"{head}: no individual {self._who()} could be tested."
        den = int(row["denominator"])
        adjustment = self._adjustment(row)
        # one verdict per test: under a correction, "significant" is the adjusted count
        sig = int(row["n_significant_adjusted"] if adjustment else row["n_significant"])
        rejected = self.params.get("complainants") == "rejected"
        text = (
            f"{head}: {sig:,} of {den:,} {'' if rejected else 'tested '}individuals "
            f"{self._who()} ({100 * sig / den:.1f}%"
            + ("; rejected ones tested, the others need no test" if rejected else "")
            + f") are significant cases of potential {kind}discrimination"
        )
        if adjustment:
            text += (
                f" after the {adjustment}; {int(row['n_significant']):,} before the "
                f"{MULTIPLICITY_NAMES[row['multiplicity']]} adjustment)"
            )
        untested = int(row["untested"])
        if untested:
            text += (
                f"; {untested:,} more could not be tested {self._why_untested()} and "
                f"{_is(untested)} left out"
            )
        return text + "." + self._chance(row)

    def _adjustment(self, row: Any) -> str:
        """``"Benjamini–Hochberg adjustment (false discovery rate 0.05"`` (left open for the
        unadjusted count) when a correction across complainants is in force, else ``""``
        (none, or no α to adjust at)."""
        method = row["multiplicity"]
        if method is None or method == "none" or self.params.get("alpha") is None:
            return ""
        rate = "false discovery rate" if method in ("bh", "by") else "family-wise error rate"
        return f"{MULTIPLICITY_NAMES[method]} adjustment ({rate} {float(self.params['alpha']):g}"

    def _chance(self, row: Any) -> str:
        """The multiplicity sentence of the headline: tests and flags expected by chance
        before any adjustment (issue 15); with no adjustment, that none was made."""
        method = row["multiplicity"]
        if method is None or self.params.get("alpha") is None:
            return ""
        tests, alpha = int(row["tested"]), float(self.params["alpha"])
        at, about = f"at α = {alpha:g}", "about"
        per = self.params.get("alpha_per_test")
        if per is not None:  # multiple: every run significant at α/q, so P(case) ≤ α/q
            alpha, about = float(per), "at most"
            at = f"each significant only on every attribute at α/q = {alpha:g}"
        text = (
            f" Of {tests:,} tests {at}, {about} {expected_text(alpha * tests)} would "
            "be significant by chance alone if no one were discriminated against"
        )
        if method == "none":
            sig = int(row["n_significant"])
            return text + f"; {sig:,} {_is(sig)}, with no adjustment across complainants."
        return text + "."

    def scope(self) -> str:
        """Who was tested, with the denominators, and who was left out (and why).

        Returns
        -------
        str
            E.g. "4 individuals protected on 'a', all of them complainants; 3 tested with
            every method; 1 could not be tested within max_distance 0.12 and is left out of
            every numerator and denominator. Methods ST; k = 2; α = 0.05, τ = 0."
        """
        rest = self.n_protected - self.n_complainants
        parts = [f"{self.n_protected:,} individuals {self._who()}, " + (
            f"{self.n_complainants:,} of them complainants (an unfavourable decision; the other "
            f"{rest:,} need no test and count as not discriminated)"
            if self.params.get("complainants") == "rejected" else "all of them complainants"
        )]  # fmt: skip
        s = self.summary()
        if len(s):
            at = s[s["k"] == s["k"].max()]
            tested = dict(zip(at["method"], at["tested"].astype(int), strict=True))
            same = len(set(tested.values())) == 1
            each = ", ".join(f"{method_name(m)} {n:,}" for m, n in tested.items())
            every = f"{next(iter(tested.values())):,} tested with every method"
            parts.append(every if same else f"tested: {each}")
            untested = int(at["untested"].max())
            if untested:
                parts.append(
                    f"{'' if same else 'up to '}{untested:,} could not be tested "
                    f"{self._why_untested()} and {_is(untested)} left out of every numerator "
                    "and denominator"
                )
        methods = ", ".join(method_name(m) for m in self.params.get("methods", []))
        ks = ", ".join(map(str, self.params.get("k", [])))
        return "; ".join(parts) + f". Methods {methods}; k = {ks}; {self._level()}."

    def caveats(self) -> list[str]:
        """What a reader must know before quoting the numbers, one sentence each.

        Returns
        -------
        list of str
            In this order, when they apply: complainants left untested; tested complainants
            with fewer than k neighbours in a group (:meth:`main_test`); significant cases
            resting on a zero-width Wald interval; the rejected-only filter; the multiple
            test's conjunction; legacy mode.
        """
        out = []
        s = self.summary()
        method, k = self.main_test()
        untested = s.groupby("method", sort=False)["untested"].max()
        if untested.any():
            each = ", ".join(f"{method_name(m)} {int(n):,}" for m, n in untested.items())
            out.append(
                f"{int(untested.max()):,} of {self.n_complainants:,} complainants could not be "
                f"tested {self._why_untested()}: a control or test group was empty (by method: "
                f"{each}). They are left out of numerators and denominators, not counted as "
                "tested negatives."
            )
        wanted = ("delta", "k_c", "k_t", "p_c", "p_t", "significant")
        g = self.block(method, k, [c for c in self.table.columns
                                   if c in wanted or c.startswith(("k_c_", "k_t_"))])  # fmt: skip
        short, degenerate = self._short_groups(g, method, k), self._degenerate(g)
        at = f"({method_name(method)}, k={k})"
        eps = self.params.get("max_distance")
        why = f"max_distance {eps:g}" if eps is not None else "a search space smaller than k"
        counted = (
            (short, f"{short:,} tested complainant{'s' if short > 1 else ''} {at} had fewer "
             f"than k neighbours in a group ({why}): their rates rest on the "
             "smaller groups and their intervals are wider."),
            (degenerate, f"{degenerate:,} significant case{'s' if degenerate > 1 else ''} {at} "
             f"{'rest' if degenerate > 1 else 'rests'} on a zero-width Wald interval (both "
             "rejection rates 0 or 1), where any Δp > τ is significant; interval='newcombe' "
             "has better coverage for small groups."),
        )  # fmt: skip
        return out + [text for n, text in counted if n] + self._setting_caveats()

    @staticmethod
    def _short_groups(g: pd.DataFrame, method: str, k: int) -> int:
        """Tested complainants whose control or test group has fewer members than it should
        (k, or k + 1 when the counterfactual centres are counted)."""
        cols = ["k_c", "k_t"]
        if not set(cols) <= set(g.columns):  # a multiple result: one set per attribute
            cols = [c for c in g.columns if c.startswith(("k_c_", "k_t_"))]
        if not cols:
            return 0
        full = k + (1 if method in ("cst_centers", "cf") else 0)
        tested = g["delta"].notna().to_numpy()
        small = (g[cols].to_numpy(dtype=float) < full).any(axis=1)
        return int((tested & small).sum())

    def _degenerate(self, g: pd.DataFrame) -> int:
        if self.params.get("interval", "wald") != "wald" or "p_c" not in g.columns:
            return 0
        p_c, p_t = g["p_c"].to_numpy(dtype=float), g["p_t"].to_numpy(dtype=float)
        zero = (p_c * (1 - p_c) == 0) & (p_t * (1 - p_t) == 0)
        return int((zero & g["significant"].to_numpy(dtype=bool)).sum())

    def _setting_caveats(self) -> list[str]:
        p, rest = self.params, self.n_protected - self.n_complainants
        adjusted = p.get("multiplicity") in ("bonferroni", "holm", "bh", "by")
        sentences = (
            # measured by benchmarks/calibration.py (docs/statistics.md: 250 null worlds with
            # Wald, 750 with Newcombe, k = 15, 30, 50)
            (p.get("interval", "wald") == "wald" and adjusted,
             "Wald p-values of small groups are too small in the far tail, where an "
             "adjustment across complainants looks: in simulated worlds without "
             "discrimination (docs/statistics.md), Benjamini–Hochberg on Wald p-values "
             "reported at least one discovery in 8–47% of runs (k = 15: 31–47%) where at "
             "most 5% is the target, and Benjamini–Yekutieli in 0–20%; with the default "
             "interval='newcombe' the rates are 2–6% and 0–1%."),
            (p.get("complainants") == "rejected",
             f"Only complainants with an unfavourable decision were tested; the {rest:,} "
             "protected individuals with a favourable decision count as not discriminated "
             "in every share."),
            (p.get("dimension") == "multiple",
             "A complainant is a case when Δp > τ on every attribute, and significant only "
             "when the test of every attribute is significant at the Bonferroni level α/q; Δp "
             "is the mean of the attributes' Δp."),
            (p.get("legacy"),
             "legacy=True reproduces the CST authors' code, including the scaler re-fitted "
             "on the counterfactual data (spec §9): use it to match the published tables, "
             "not for a new audit."),
        )  # fmt: skip
        return [text for applies, text in sentences if applies]


@dataclass(frozen=True)
class SituationResult(_SituationResultBase):
    """Per-complainant situation-testing results for every (method, k).

    Attributes
    ----------
    table
        One row per complainant and (method, k): method, k, row (position), id, k_c, k_t,
        neg_c, neg_t, p_c, p_t, delta, ci_low/ci_high (one-sided, ±inf on the open side),
        ci2_low/ci2_high (two-sided), discriminated, significant, decision (ŷ_c, 1 =
        favourable), cf_decision (ŷ_c^CF), cf_flag.
    params
        The settings of the run (methods, k, alpha, tau, direction, legacy, ties, ...).
    n_protected
        The number of protected individuals; every share's denominator is this minus the
        untested complainants (``summary()`` columns ``untested`` and ``denominator``).
    n_complainants
        Number of complainants (tested or not: see ``summary()["tested"]``).
    ids
        Row identifiers of the data (to turn neighbour positions into ids).
    neighbors
        ``{(method, k): (control_rows, test_rows)}`` neighbour positions (-1 pads).
    neighbor_distances
        ``{(method, k): (control_distances, test_distances)}``: the Gower distance (float32)
        of each member in ``neighbors``, column for column (NaN for a pad).
    """

    table: pd.DataFrame
    params: dict
    n_protected: int
    n_complainants: int
    ids: np.ndarray = field(repr=False)
    neighbors: dict = field(default_factory=dict, repr=False)
    neighbor_distances: dict = field(default_factory=dict, repr=False)

    def to_frame(self, neighbors: bool = False) -> pd.DataFrame:
        """Per-complainant table; ``neighbors=True`` adds control_ids and test_ids lists.

        Examples
        --------
        >>> # res.to_frame().query("method == 'cst' and significant")
        """
        import pandas as pd

        # A shallow copy: under pandas' copy-on-write a change to the returned frame copies
        # the column it touches, never reaching self.table; a deep copy would double the
        # largest object of a run (~140 bytes per row, 6·10^7 rows at 10^7 decisions).
        out = self.table.copy(deep=False)
        if neighbors and self.neighbors:
            groups = list(out.groupby(["method", "k"], sort=False))
            for side, col in enumerate(("control_ids", "test_ids")):
                lists = [pd.Series(self._id_lists(self.neighbors[key][side]), index=g.index)
                         for key, g in groups]  # fmt: skip
                out[col] = pd.concat(lists)
        return out

    def _id_lists(self, rows: np.ndarray) -> list[list]:
        return [self.ids[r[r >= 0]].tolist() for r in rows]

    def plot(self, ax: Any = None) -> Any:
        """Number of flagged (solid) and significant (dashed) complainants against k.

        Returns
        -------
        matplotlib.figure.Figure
        """
        fig, ax = figure_axes(ax, figsize=(6, 4))
        for method, g in self.summary().groupby("method", sort=False):
            line = ax.plot(g["k"], g["cases"], marker="o", label=f"{method}")[0]
            ax.plot(g["k"], g["n_significant"], marker="x", linestyle="--",
                    color=line.get_color(), label=f"{method} (sig.)")  # fmt: skip
        ax.set(xlabel="k", ylabel=f"complainants flagged (of {self.n_protected})")
        ax.legend(fontsize="small")
        return fig
