"""Result objects of the principal-stratum analysis (frozen dataclasses).

JSON encoding (``to_dict``): NaN (an infeasible program, a skipped cell) becomes ``None`` and
infinities become the strings ``"inf"`` / ``"-inf"``; numpy scalars become Python numbers.
Every output carries :data:`NOTE`: fairness can only be refuted, never confirmed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ..base import BaseResult, figure_axes, laid_out
from ..formats import listing
from ..jsonsafe import json_safe
from .frames import VIOLATED, cond_name, counts_frame, quantity_frame, verdict_frame

__all__ = ["NOTE", "PrincipalResult", "RepairResult", "json_safe"]

NOTE = (
    "Bounds-based test: a definition can only be refuted (an interval excludes 0 or a program is "
    "infeasible), never confirmed; 'not refuted' means no evidence of violation under Assumption 1 "
    "(A independent of the potential outcomes given the covariate cell)."
)

#: The four (A, S) cells of the repair probabilities ``eps_ab``, in the columns' order.
_AB = ("00", "01", "10", "11")


def _verdicts(rows: pd.DataFrame, max_items: int, repair: bool = False) -> tuple[str, str]:
    """``("1 of 3", "Definition 2 (all): violated; …")``: the violated rows of a verdict table
    out of all, and the first ``max_items`` verdicts (``repair``: with the minimal repair size
    of a refuted definition)."""
    parts = []
    for r in rows.head(max_items).itertuples():
        # eps* is 0 when not refuted: only a violation's repair size is news
        eps = f", minimal repair ε = {r.eps_sum:.4f}" if repair and r.eps_sum > 0 else ""
        parts.append(f"Definition {r.definition} ({r.cell}): {r.verdict}{eps}")
    if len(rows) > max_items:
        parts.append(f"… {len(rows) - max_items} more in the summary table")
    return f"{int((rows['verdict'] == VIOLATED).sum())} of {len(rows)}", "; ".join(parts)


@dataclass(frozen=True, eq=False)
class PrincipalResult(BaseResult):
    """Evaluation of Definitions 1 and 2 (and 3, 4 for comparison) per covariate cell.

    Attributes
    ----------
    protected
        The protected attribute; ``a1`` / ``a0`` say which of its values were coded A=1 / A=0.
    labels
        Cell labels (``"all"`` without covariates).
    counts
        ``(C, 2, 2, 2)`` counts ``n[c, a, s, y]``.
    evaluated
        Cells evaluated (both arms present); ``small`` marks cells with an arm below ``min_group``.
    values
        Arrays of :func:`~primafacie.principal.evaluate.evaluate_margins` (NaN in skipped cells).
    boot
        ``None`` or bootstrap percentile summaries: for every key ``k`` of ``values`` with a scalar
        per cell, ``k + "@lo"`` / ``k + "@hi"``, and ``"share_violated_def{1,2}"``.
    """

    protected: str
    a1: str
    a0: str
    definitions: tuple[int, ...]
    covariates: tuple[str, ...]
    joint: str
    tol: float
    labels: tuple[str, ...]
    counts: np.ndarray
    evaluated: np.ndarray
    small: np.ndarray
    min_group: int
    values: dict[str, np.ndarray]
    boot: dict[str, np.ndarray] | None = None
    n_boot: int = 0
    level: float = 0.95
    seed: int | None = 0
    note: str = field(default=NOTE)
    decision: str | None = None
    outcome: str | None = None

    #: :meth:`to_dict`: settings, note, counts, summary rows and quantity rows.
    dict_keys: ClassVar[tuple[str, ...]] = (
        "method", "note", "protected", "a1", "a0", "definitions", "covariates", "joint", "tol",
        "n_boot", "level", "seed", "bootstrap_note", "cells=labels", "counts=counts_frame",
        "summary", "quantities=to_frame",
    )  # fmt: skip
    method: ClassVar[str] = "principal-stratum counterfactual fairness (bounds + LP)"

    @property
    def bootstrap_note(self) -> str | None:
        """What the bootstrap intervals are (None without a bootstrap)."""
        note = "percentile intervals from a bootstrap stratified by cell and A; not from the paper"
        return note if self.n_boot else None

    # ------------------------------------------------------------------ accessors
    @property
    def n_cells(self) -> int:
        """Number of covariate cells."""
        return len(self.labels)

    @property
    def n_protected(self) -> int:
        """People in the protected group (A=0), over every cell."""
        return int(self.counts[:, 0].sum())

    @property
    def n_others(self) -> int:
        """People in the other group (A=1), over every cell."""
        return int(self.counts[:, 1].sum())

    def checks(self) -> pd.DataFrame:
        """The checks behind the headline: :meth:`summary` rows of the configured definitions
        in evaluated cells (skipped cells are in :meth:`scope`)."""
        return self._evaluated(configured=True)

    # ------------------------------------------------------------------ words
    def headline(self, max_items: int = 6) -> str:
        """One sentence: how many checks refute fairness, then each check's verdict.

        A check is one configured definition in one evaluated cell; skipped cells are not
        counted (see :meth:`scope`). At most ``max_items`` checks are spelled out.

        Examples
        --------
        >>> import numpy as np
        >>> from primafacie.principal import principal_arrays
        >>> a = np.array([0, 0, 1, 1] * 5); y = np.array([1, 0, 1, 0] * 5); s = y.copy()
        >>> print(principal_arrays(a, s, y, protected="g").headline())
        ... # doctest: +NORMALIZE_WHITESPACE
        0 of 1 checks refute principal-stratum fairness for g (20 people) — Definition 2 (all):
        not refuted. Also checked, the table's other definitions (3 and 4 are comparisons, not
        principal-stratum fairness): 0 of 3 violated — Definition 1 (all): not refuted;
        Definition 3 (all): holds (point-identified); Definition 4 (all): not refuted
        """
        count, verdicts = _verdicts(self.checks(), max_items, repair=True)
        text = (
            f"{count} checks refute principal-stratum fairness for {self.protected} "
            f"({int(self.counts[self.evaluated].sum())} people) — {verdicts}"
        )
        comp = self.comparisons()
        if comp.empty:
            return text
        count, verdicts = _verdicts(comp, max_items)
        return text + (
            ". Also checked, the table's other definitions (3 and 4 are comparisons, not "
            f"principal-stratum fairness): {count} violated — {verdicts}"
        )

    def comparisons(self) -> pd.DataFrame:
        """The definitions of :meth:`summary` beside the configured ones (the other of 1 and
        2; 3: Kusner et al. and 4: Coston et al., comparisons) in evaluated cells. The
        headline counts them too, so a violated row of the table is never left out of the
        words (issue 23)."""
        return self._evaluated(configured=False)

    def _evaluated(self, configured: bool) -> pd.DataFrame:
        """:meth:`summary` rows of evaluated cells, of the configured definitions or the others."""
        summ = self.summary()
        mine = summ["definition"].isin(list(self.definitions))
        return summ[(mine if configured else ~mine) & summ["verdict"].ne("skipped")]

    def scope(self) -> str:
        """Who was evaluated (protected / other people, cells, definitions) and who was left out.

        Examples
        --------
        >>> import numpy as np
        >>> from primafacie.principal import principal_arrays
        >>> a = np.array([0, 0, 1, 1] * 5); y = np.array([1, 0, 1, 0] * 5); s = y.copy()
        >>> principal_arrays(a, s, y, protected="g", a0="f", a1="m").scope()
        'g: 10 protected (f, A=0) and 10 other people (m, A=1); definitions 2; 1 of 1 covariate cell(s) evaluated'
        """
        named = (("decision", self.decision), ("true outcome", self.outcome))
        roles = [  # "__decision__" is primafacie's column of b()'s computed decisions
            f"{role} computed by the configured model, rule or score"
            if column.startswith("__") and column.endswith("__") else f"{role} {column!r}"
            for role, column in named if column is not None
        ]  # fmt: skip
        text = (
            f"{self.protected}: {self.n_protected} protected ({self.a0}, A=0) and "
            f"{self.n_others} other people ({self.a1}, A=1)"
            + (f"; {', '.join(roles)}" if roles else "")
            + f"; definitions {', '.join(map(str, self.definitions))}; "
            f"{int(self.evaluated.sum())} of {self.n_cells} covariate cell(s) evaluated"
            + (f" (cells of {', '.join(self.covariates)})" if self.covariates else "")
        )
        skipped = np.flatnonzero(~self.evaluated)
        if skipped.size:
            people = f"{int(self.counts[skipped].sum())} people"
            names = listing((self.labels[c] for c in skipped), 5)
            text += f"; left out: {skipped.size} cell(s) lacking one group ({people}: {names})"
        return text

    def caveats(self) -> list[str]:
        """What limits the reading of the verdicts, most important first.

        Always the refute-only :data:`NOTE`; then small cells, skipped cells, the bootstrap.

        Examples
        --------
        >>> import numpy as np
        >>> from primafacie.principal import principal_arrays
        >>> a = np.array([0, 0, 1, 1] * 5); y = np.array([1, 0, 1, 0] * 5); s = y.copy()
        >>> principal_arrays(a, s, y).caveats() == [NOTE]
        True
        """
        small = np.flatnonzero(self.small & self.evaluated)
        skipped = int((~self.evaluated).sum())
        said = (  # (whether it applies, the sentence), in order
            (small.size, f"{small.size} of {int(self.evaluated.sum())} evaluated cell(s) have a "
             f"group with fewer than {self.min_group} people, so their estimates are unreliable: "
             + listing((self.labels[c] for c in small), 5)),
            (skipped, f"{skipped} cell(s) lacking one group were skipped: no verdict covers their "
             f"{int(self.counts[~self.evaluated].sum())} people"),
            (self.n_boot, f"bootstrap intervals ({self.n_boot} replicates, level {self.level:g}, "
             f"seed {self.seed}) are an extension, not from the paper: percentile intervals of a "
             "bootstrap stratified by cell and group"),
        )  # fmt: skip
        return [self.note] + [text for applies, text in said if applies]

    def violated(self, definition: int) -> np.ndarray:
        """Boolean per cell: Definition 1 or 2 refuted (False in skipped cells)."""
        v = self.values[f"violated_def{definition}"]
        return np.asarray(v, dtype=bool) & self.evaluated

    # ------------------------------------------------------------------ frames
    def counts_frame(self) -> pd.DataFrame:
        """Long table of counts: cell, A, S, Y, count, n_arm (n(A=a) in the cell), p = count / n_arm."""
        return counts_frame(self)

    def to_frame(self) -> pd.DataFrame:
        """One row per cell and quantity.

        Columns: cell, n, n_a0, n_a1, small, definition, quantity, estimate (point quantities),
        lower, upper (intervals; NaN when the program is infeasible), feasible, excludes_zero,
        boot_{estimate,lower,upper}_{lo,hi} (bootstrap percentile intervals, NaN without a
        bootstrap), verdict. Quantities: ``prop1_tau1``, ``prop1_tau0`` (normalised tau, Prop. 1),
        ``lp_tau0'``, ``lp_tau1'``, the conditional ``lp_tau1'|tau0'=0``, ``lp_tau'``,
        ``eps_sum`` / ``eps_ab`` and ``post_repair`` per repaired definition, ``def3_gap``, ``def4_gap``,
        the four Corollary 1 checks ``cor1_*`` (estimate 1 when the inequality holds) and
        ``prop1_d1`` / ``prop1_d0`` (smallest possible stratum sizes).
        """
        return quantity_frame(self)

    def summary(self) -> pd.DataFrame:
        """One row per cell and definition (1, 2; 3 and 4 for comparison) with the verdict.

        Columns: cell, n, n_a0, n_a1, small, definition, verdict, direction, evidence, eps_sum,
        boot_share_violated (share of bootstrap replicates that refute the definition), note.
        """
        return verdict_frame(self)

    def numbers(self) -> dict[str, Any]:
        """The numbers of ``results.json``: violated checks of the configured definitions out
        of all checked, each verdict, and the same count for the table's other definitions
        (3, 4 and an unconfigured 1 or 2)."""
        checks, comparisons = self.checks(), self.comparisons()
        return {
            "protected": self.protected,
            "violations": int((checks["verdict"] == "violated").sum()),
            "checks": int(len(checks)),
            "verdicts": json_safe(checks.to_dict(orient="records")),
            "other_violations": int((comparisons["verdict"] == "violated").sum()),
            "other_checks": int(len(comparisons)),
        }

    def plot(self, cells: int | None = 12):
        """Intervals per definition and cell (left) and eps per group (right); a matplotlib Figure."""
        frame = self.to_frame()
        frame = frame[frame["cell"].isin(list(self.labels)[: cells or len(self.labels)])]
        quantity = frame["quantity"]
        iv = frame[quantity.isin(["lp_tau0'", "lp_tau1'", cond_name(self.joint), "lp_tau'"])]
        eps = frame[quantity.str.match(r"eps_\d\d")]
        fig, (ax1, ax2) = figure_axes(figsize=(11, 0.4 * max(4, len(iv)) + 1.5), ncols=2)
        ypos = np.arange(len(iv))
        for i, (_, r) in enumerate(iv.iterrows()):
            color = "tab:red" if r["excludes_zero"] or not r["feasible"] else "tab:blue"
            if np.isnan(r["lower"]):
                ax1.text(0, i, "infeasible", color="tab:red", va="center", ha="center", fontsize=8)
            else:
                ax1.plot([r["lower"], r["upper"]], [i, i], color=color, lw=3)
                boot = [r["boot_lower_lo"], r["boot_upper_hi"]]
                if not np.isnan(boot[0]):
                    ax1.plot(boot, [i, i], color=color, lw=1, alpha=0.5)
        ax1.axvline(0, color="k", lw=0.8)
        ax1.set_yticks(ypos, [f"{r.cell} | {r.quantity}" for r in iv.itertuples()], fontsize=7)
        ax1.set_title("LP ranges (red: excludes 0 / infeasible)")
        if len(eps):
            labels = [f"{r.cell} | D{r.definition} {r.quantity}" for r in eps.itertuples()]
            ax2.barh(np.arange(len(eps)), eps["estimate"].fillna(0), color="tab:orange")
            ax2.set_yticks(np.arange(len(eps)), labels, fontsize=7)
        ax2.set_title("repair probabilities eps_ab")
        fig.suptitle(
            f"principal fairness: {self.protected} (A=1: {self.a1}, A=0: {self.a0})", fontsize=10
        )
        return laid_out(fig)


@dataclass(frozen=True, eq=False)
class RepairResult(BaseResult):
    """Minimal randomised repair for one definition.

    Attributes
    ----------
    evaluation
        The :class:`PrincipalResult` before repair.
    eps
        ``(C, 4)`` eps00, eps01, eps10, eps11 per cell (NaN in skipped cells).
    repaired
        S' per row (0/1), from the seeded intervention.
    after
        :class:`PrincipalResult` of S' on the data (empirical check; the repair acts in distribution only).
    """

    definition: int
    evaluation: PrincipalResult
    eps: np.ndarray
    decisions: np.ndarray
    repaired: np.ndarray
    a: np.ndarray
    cell_codes: np.ndarray
    ids: np.ndarray
    after: PrincipalResult
    seed: int | None = 0
    note: str = field(default=NOTE)

    #: :meth:`to_dict`: per-cell rows and settings (individual decisions are not included).
    dict_keys: ClassVar[tuple[str, ...]] = ("definition", "seed", "note", "cells=to_frame",
                                            "summary")  # fmt: skip

    @property
    def eps_sum(self) -> np.ndarray:
        """Unfairness measure sum(eps*) per cell."""
        return self.eps.sum(axis=1)

    @property
    def n_changed(self) -> int:
        """Decisions the seeded intervention changed (S' != S)."""
        return int((self.repaired != self.decisions).sum())

    def headline(self) -> str:
        """One sentence: how much repair was needed and what it changed.

        Examples
        --------
        >>> import numpy as np
        >>> from primafacie.principal import PrincipalFairness
        >>> import pandas as pd
        >>> df = pd.DataFrame({"g": ["f", "m"] * 10, "y": [1, 1, 0, 0] * 5})
        >>> df["s"] = df["y"]
        >>> pf = PrincipalFairness(protected={"g": "f"}, decision="s", outcome="y")
        >>> pf.repair(df).headline()
        'Minimal repair for Definition 2: none needed — the definition is not refuted in any of the 1 evaluated cell(s); 0 of 20 decisions changed'
        """
        d, ok, total = self.definition, self.evaluation.evaluated, len(self.decisions)
        n_eval = int(ok.sum())
        needed = np.flatnonzero(ok & (np.nan_to_num(self.eps_sum) > 0))
        if needed.size == 0:
            return (
                f"Minimal repair for Definition {d}: none needed — the definition is not "
                f"refuted in any of the {n_eval} evaluated cell(s); "
                f"{self.n_changed} of {total} decisions changed"
            )
        worst = needed[np.argmax(self.eps_sum[needed])]
        closed = np.asarray(self.evaluation.values[f"post_def{d}_closed"], dtype=bool)
        return (
            f"Minimal repair for Definition {d}: needed in {needed.size} of {n_eval} evaluated "
            f"cell(s), largest sum(ε*) = {self.eps_sum[worst]:.4f} "
            f"({self.evaluation.labels[worst]}); {self.n_changed} of {total} decisions "
            f"changed (seed {self.seed}); the gap is closed on the estimated margins in "
            f"{int((closed & ok).sum())} of {n_eval} cell(s)"
        )

    def scope(self) -> str:
        """Who was repaired: the evaluation's scope, for the repaired definition."""
        repaired = f"Definition {self.definition} repaired over {len(self.decisions)} decisions"
        return f"{repaired}; {self.evaluation.scope()}"

    def caveats(self) -> list[str]:
        """What limits the repair: randomised, in distribution only, and the empirical check.

        The randomisation first; then S' still refuting on the data, if it does; then the
        evaluation's caveats, the refute-only :data:`NOTE` last (see
        ``tests/principal/test_results.py`` for worked examples).
        """
        out = [
            "the repair is randomised (seed "
            f"{self.seed}): it closes the gap in distribution, on the estimated margins; "
            "another seed changes which individual decisions flip",
        ]
        bad = np.flatnonzero(self.after.violated(self.definition))
        if bad.size:
            out.append(
                f"on the data, the repaired decisions S' still refute Definition "
                f"{self.definition} in {bad.size} cell(s) (finite-sample noise of the "
                "randomised intervention): " + ", ".join(self.after.labels[c] for c in bad[:5])
            )
        return out + self.evaluation.caveats()[1:] + [self.note]

    def to_frame(self) -> pd.DataFrame:
        """Per cell: eps_ab, eps_sum, the post-repair range on the estimated margins, the empirical
        range of S' and the number of decisions changed."""
        v, av, d = self.evaluation.values, self.after.values, self.definition
        flipped = self.repaired != self.decisions
        changed = np.bincount(self.cell_codes, flipped, minlength=len(self.evaluation.labels))
        key = "lp_tau" if d == 2 else "lp_cond"
        return pd.DataFrame({
            "cell": list(self.evaluation.labels), "definition": d,
            **{f"eps_{ab}": self.eps[:, i] for i, ab in enumerate(_AB)}, "eps_sum": self.eps_sum,
            "post_lower": v[f"post_def{d}_lo"], "post_upper": v[f"post_def{d}_hi"],
            "post_gap_closed": np.asarray(v[f"post_def{d}_closed"], dtype=bool),
            "empirical_lower": av[f"{key}_lo"], "empirical_upper": av[f"{key}_hi"],
            "empirical_violated": self.after.violated(d), "n_changed": changed.astype(int),
        })  # fmt: skip

    def decisions_frame(self) -> pd.DataFrame:
        """One row per person: id, A, S, S'."""
        return pd.DataFrame({"id": self.ids, "A": self.a, "S": self.decisions,
                             "S_repaired": self.repaired})  # fmt: skip

    def summary(self) -> pd.DataFrame:
        """Per cell: eps_sum, what the repair does, whether the gap is closed, note."""
        f = self.to_frame()
        forced = ([f"A={ab[0]}: force S'={ab[1]} w.p. {r['eps_' + ab]:.4f}"
                   for ab in _AB if r["eps_" + ab] > 0] for r in f.to_dict("records"))  # fmt: skip
        what = ["; ".join(parts) or "no change needed (not refuted)" for parts in forced]
        out = f[["cell", "definition", "eps_sum"]].assign(repair=what)
        note = "in distribution, S' is not refuted on the estimated margins; " + NOTE
        return out.join(f[["post_gap_closed", "n_changed"]]).assign(note=note)

    def plot(self):
        """eps per group and cell as bars; a matplotlib Figure."""
        f = self.to_frame()
        fig, ax = figure_axes(figsize=(7, 0.35 * len(f) + 2))
        y = np.arange(len(f))
        left = np.zeros(len(f))
        for ab, color in zip(_AB, ("tab:blue", "tab:cyan", "tab:red", "tab:orange"), strict=True):
            vals = np.nan_to_num(f[f"eps_{ab}"].to_numpy())
            ax.barh(y, vals, left=left, color=color, label=f"eps_{ab}")
            left += vals
        ax.set_yticks(y, f["cell"])
        ax.set_xlabel("probability of forcing the decision")
        ax.legend(fontsize=8)
        ax.set_title(f"minimal repair, Definition {self.definition}")
        return laid_out(fig)
