"""The queries of a fitted :class:`~primafacie.recourse.engine.RecourseFairness`: subgroup labels,
budgets, scores and ranks of one definition, Comparative Subgroup Counterfactuals, the
effectiveness curves, the audited scope and the cumulative-effectiveness plot.

:class:`RecourseRanking` only reads the fitted state (``table_``, ``groups_``, ``space_``,
``sub_items_`` ...); what it computes once (labels, curves) is cached on the engine and
dropped by the next :meth:`RecourseFairness.fit`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError
from ..validation import validate_params
from .metrics import auto_budgets, definition_rank, definition_scores, resolve_metric
from .params import PARAM_WHERE, SCORE_PARAM

if TYPE_CHECKING:  # results imports nothing from here at run time; keep it that way
    from .results import EffectivenessCurves, FactsScope

__all__ = ["RecourseRanking"]


class RecourseRanking:
    """Scores, ranks, CSCs, curves and scope over the fitted FACTS table.

    A part of :class:`~primafacie.recourse.engine.RecourseFairness` (not used alone): every
    method needs :meth:`RecourseFairness.fit` to have run.
    """

    # ------------------------------------------------------------------ what the result carries
    def _scope(self, labels: tuple[str, ...], auto_budgets: bool) -> FactsScope:
        """Who this fit audited, with denominators (for :meth:`FactsResult.scope`)."""
        from .results import FactsScope

        t = self.table_
        return FactsScope(
            protected=str(self.protected_),
            groups=tuple(map(str, self.groups_)),
            protected_values=tuple(getattr(self, "protected_values_", ())),
            rows=int(len(self.frame_)),
            dropped_rows=int(self.dropped_rows_),
            rejected=tuple(int(x) for x in self.n_affected_),
            accepted=tuple(int(x) for x in self.n_unaffected_),
            in_subgroups=tuple(int(x) for x in self.n_in_subgroups_),
            support=float(self.support),
            common_subgroups=int(self.stats_["common_subgroups"]),
            subgroups=int(t.n_subgroups),
            no_recourse=tuple(int(x) for x in (t.n_rec == 0).sum(axis=0)),
            smallest=tuple(int(x) for x in t.n.min(axis=0)),
            definitions=labels,
            auto_budgets=bool(auto_budgets),
            legacy=bool(self.legacy),
            exact_features=bool(self.exact_features),
        )

    def curves(self) -> EffectivenessCurves:
        """Micro cumulative effectiveness of every (subgroup, group), as typed read-only data.

        The same object for every call after one fit; :class:`FactsResult` and
        :class:`CSCResult` carry it, so they can draw curves without the engine.

        Returns
        -------
        EffectivenessCurves
        """
        from .results import EffectivenessCurves

        self._require_fit()
        if hasattr(self, "_curves_cache"):
            return self._curves_cache
        t = self.table_

        def frozen(a: np.ndarray) -> np.ndarray:
            view = a.view()
            view.flags.writeable = False
            return view

        self._curves_cache = EffectivenessCurves(
            subgroups=tuple(self.subgroup_labels()),
            groups=tuple(map(str, self.groups_)),
            n=frozen(t.n),
            starts=frozen(t.starts),
            cost=frozen(t.cost),
            cum=frozen(t.cum),
        )
        return self._curves_cache

    # ------------------------------------------------------------------ scoring
    def _require_fit(self) -> None:
        if not hasattr(self, "table_"):
            raise InputError("call run(data) before ranking")

    def subgroup_labels(self) -> list[str]:
        """``feature=value`` items joined by ``; `` in feature-name order, per subgroup."""
        self._require_fit()
        if not hasattr(self, "_labels"):
            self._labels = [
                "; ".join(f"{k}={v}" for k, v in self.space_.describe(items).items())
                for items in self.sub_items_
            ]
        return self._labels

    def budgets(self) -> list[float]:
        """Automatic EEWB budgets (30/60/90th percentiles of finite micro ECE at φ = 0.5)."""
        self._require_fit()
        return auto_budgets(self.table_)

    def scores(
        self, metric: str, viewpoint: str | None = None, phi: float | None = None,
        budget: float | None = None,
    ) -> dict[str, np.ndarray]:  # fmt: skip
        """Raw arrays for one definition: ``d`` (S, K), ``score``, ``against``, ``rank``."""
        self._require_fit()
        spec, vp = resolve_metric(metric, viewpoint)
        param = {"phi": phi, "budget": budget}.get(spec.param) if spec.param else None
        if spec.param and param is None:
            raise InputError(f"metric {spec.key} needs {spec.param}=...")
        if spec.param:
            validate_params(
                f"{type(self).__name__}.scores", SCORE_PARAM, {spec.param: param}, PARAM_WHERE
            )
        score, against, d = definition_scores(self.table_, spec, vp, param, self.legacy)
        rank = definition_rank(spec.key, d, score, self.table_.n)
        return {"d": d, "score": score, "against": against, "rank": rank,
                "param": param, "viewpoint": vp, "spec": spec}  # fmt: skip

    def rank(
        self, metric: str, viewpoint: str | None = None, phi: float | None = None,
        budget: float | None = None,
    ):  # fmt: skip
        """Ranked subgroups under one definition.

        Parameters
        ----------
        metric
            ``EE``, ``ECR``, ``EEWB``, ``ECE``, ``FECT`` or ``ECMR`` (aliases accepted).
        viewpoint
            ``micro`` or ``macro`` (defaults: EE/EEWB/FECT/ECMR micro, ECR/ECE macro).
        phi
            Effectiveness threshold of ECR/ECE.
        budget
            Cost budget of EEWB.

        Returns
        -------
        RankingResult
            Table with rank, score, bias_against, subgroup and per-group n/coverage/difficulty.
        """
        from .results import make_ranking

        t = time.perf_counter()
        out = self.scores(metric, viewpoint, phi=phi, budget=budget)
        res = make_ranking(self, out)
        self.timings_["scoring"] = self.timings_.get("scoring", 0.0) + time.perf_counter() - t
        return res

    def csc(
        self, metric: str, viewpoint: str | None = None, phi: float | None = None,
        budget: float | None = None, top: int = 10, show: str = "relevant",
        subgroups: Sequence[str] | None = None,
    ):  # fmt: skip
        """Comparative Subgroup Counterfactuals of the top subgroups under one definition.

        Parameters
        ----------
        metric, viewpoint, phi, budget
            The definition (as in :meth:`rank`).
        top
            Number of top-ranked (non-Fair) subgroups.
        show
            ``"relevant"`` (the actions that define the score) or ``"all"``.
        subgroups
            Explicit subgroup labels instead of the top ones.

        Returns
        -------
        CSCResult
        """
        from .csc import make_csc

        return make_csc(self, metric, viewpoint, phi, budget, top, show, subgroups)

    def plot_cumulative(self, subgroup: str | int):
        """Step plot of the micro ecd of each group for one subgroup (label or index)."""
        from .plots import plot_cumulative

        return plot_cumulative(self, subgroup)

    def subgroup_index(self, subgroup: str | int) -> int:
        """Index of a subgroup given by label (``a=x; b=y``, any order) or position."""
        return self.curves().index(subgroup)
