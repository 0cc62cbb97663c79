"""``RecourseFairness``: FACTS end to end (mining, actions, effectiveness, micro pass, scoring).

Pipeline (FACTS §3, reference-code conventions where the paper is silent):

1. ŷ = model(X); affected D = rows with the unfavourable decision, unaffected U = the rest.
2. Frequent itemsets of D_i (each protected group, protected column removed) and of U.
3. Subgroups = itemsets frequent in every D_i (hash intersection).
4. Actions of subgroup p = unaffected itemsets over p's features with a changed value that pass
   the feasibility rules; subgroups without actions are dropped.
5. One batched ``predict`` covers all (member, action) pairs of many subgroups at once (chunks
   of ``chunk_rows`` rows); the flip bit-vectors give both the per-action (macro) counts and
   the cumulative (micro) numbers, with no further model call.

The engine is built from three parts, one job each: :class:`~.mining.SubgroupMining`
(steps 1-4), :class:`~.effectiveness.ActionEffectiveness` (step 5) and
:class:`~.ranking.RecourseRanking` (the queries over the fitted table: scores, ranks, CSCs,
curves, scope). This module holds the parameters, ``_fit`` (the order of the stages), the
one verb ``run`` and ``score`` (the scoring query on the fitted state); ``fit`` and ``evaluate``
are deprecated names kept for one release.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..base import Engine, deprecated_verb
from ..docstrings import fill_doc
from ..validation import validate_params
from .effectiveness import ActionEffectiveness
from .metrics import resolve_metric
from .mining import ProgressCallback, SubgroupMining, _names, _noop
from .params import PARAM_WHERE, PARAMETER_CONSTRAINTS, RUN_CONSTRAINTS
from .ranking import RecourseRanking

__all__ = ["RecourseFairness", "DEFAULT_MISSING", "ProgressCallback", "STAGES"]

DEFAULT_MISSING = ("Unknown", "unknown", "?", "N/A", "NA", "")

#: What each progress stage does, in words (the CLI's bars and the audit's notes).
STAGES = {
    "mining": "FACTS: frequent itemsets (groups, unaffected)",
    "actions": "FACTS: valid actions (subgroups)",
    "effectiveness": "FACTS: testing actions (subgroups)",
    "scoring": "FACTS: scoring definitions",
    "csc": "FACTS: counterfactual summaries",
}


def _floats(obj: Any) -> list[float]:
    """One number or a list of numbers as a list of floats (``phi=0.5`` or ``phi=[0.3, 0.7]``)."""
    if isinstance(obj, (list, tuple, np.ndarray)):
        return [float(x) for x in obj]
    return [float(obj)]


#: The ``data`` entry of :meth:`RecourseFairness.run` and of the fit it calls.
_DATA_DOC = """\
data
    :class:`~primafacie.data.AuditData` or a DataFrame (pandas/polars/pyarrow) with
    the model's input columns and the protected attribute (the audit split)."""


class RecourseFairness(SubgroupMining, ActionEffectiveness, RecourseRanking, Engine):
    """Subgroup fairness of recourse (FACTS, Kavouras et al. NeurIPS 2023).

    Parameters
    ----------
    model
        Fitted estimator with ``predict`` (1 = favourable, see ``favorable``), a
        :class:`~primafacie.decisions.Rule`, a rule string, or a callable ``f(DataFrame)``
        returning 0/1. It is called only through ``predict`` on tables with the audit data's
        columns (categorical columns are passed as pandas ``Categorical``).
    protected
        Protected attribute whose groups are compared (every distinct value is a group; more
        than two groups use max − min). With :class:`AuditData` the default is its only
        protected attribute.
    support
        Minimum support in (0, 1] for the frequent itemsets (subgroups and actions).
    feature_weights
        ``{feature: weight}`` (default weight 1).
    immutable
        Features that may never change. ``None``: every protected attribute (the audited one
        and any other protected attribute of :class:`AuditData`). The audited attribute is
        always immutable.
    monotone
        Features that may not decrease (compared in their order).
    max_step
        ``{feature: k}``: an increase by more than k ranks (numeric: value units) is infeasible.
    bins
        ``{numeric feature: q or [edges]}``: mine quantile/fixed bins instead of raw values;
        an action moves a member's value linearly from the subgroup's bin to the target bin.
    binary_cost
        Features whose change costs its weight whatever the distance (e.g. binned age).
    features
        For a DataFrame: ``{column: kind}`` of the mined columns (default: every column but
        the protected one; numeric dtype -> numeric, ordered categorical -> ordinal,
        else categorical).
    missing_values
        Values meaning "missing/unknown": never the target of an action.
    exact_features
        True (default): actions over exactly the subgroup's features; False: any subset.
    normalize
        Range-normalise numeric changes (True for all, or a list of the features to normalise).
    favorable
        Label of the estimator's favourable class.
    max_len
        Longest itemset (None = unlimited).
    legacy
        Reproduce the reference code's FECT (index-by-index lists).
    method
        Itemset miner: ``"bitset"`` (default) or ``"mlxtend"``.
    chunk_rows
        (member, action) rows per batched ``predict`` call; a subgroup with more rows than this
        is split into blocks of its actions, so a batch holds at most ``max(chunk_rows, size of
        the largest subgroup)`` rows (a block has at least one action for all its members).
    backend
        :mod:`primafacie.compute` backend the predict chunks are mapped over (``None``: this
        thread; ``Backend(n_jobs=2)``; ``"dask"`` or ``Backend("dask", address=...)``), with
        the model scattered once per worker. Results are identical on every backend.

    Notes
    -----
    One verb: :meth:`run` fits and scores every definition, returning a :class:`FactsResult`
    (rankings, headline, scope, caveats, effectiveness curves). The advanced path is
    :meth:`run`, then :meth:`rank` / :meth:`score` / :meth:`csc` on the fitted engine
    (``fit`` and ``evaluate`` are deprecated names, kept for one release).
    Parameters are stored as given and checked at ``run`` against
    :attr:`_parameter_constraints` (:mod:`primafacie.recourse.params`).

    Examples
    --------
    Parameters are stored as given; :meth:`run` shows an audit end to end.

    >>> from primafacie.decisions import Rule
    >>> audit = RecourseFairness(Rule("x == 'hi'"), protected="g", support=0.1)
    >>> audit.support, audit.method, hasattr(audit, "table_")
    (0.1, 'bitset', False)
    """

    _parameter_constraints = PARAMETER_CONSTRAINTS
    _where = PARAM_WHERE

    def __init__(
        self,
        model: Any,
        protected: str | None = None,
        support: float = 0.01,
        feature_weights: Mapping[str, float] | None = None,
        immutable: Sequence[str] | None = None,
        monotone: Sequence[str] | None = None,
        max_step: Mapping[str, float] | None = None,
        bins: Mapping[str, Any] | None = None,
        binary_cost: Sequence[str] | None = None,
        features: Mapping[str, Any] | None = None,
        missing_values: Sequence[Any] = DEFAULT_MISSING,
        exact_features: bool = True,
        normalize: bool | Sequence[str] = True,
        favorable: Any = 1,
        max_len: int | None = None,
        legacy: bool = False,
        method: str = "bitset",
        chunk_rows: int = 2_000_000,
        backend: Any = None,
    ) -> None:
        self._store_params(locals())

    # ------------------------------------------------------------------ fit
    def fit(self, data: Any, progress: ProgressCallback | None = None) -> RecourseFairness:
        """Deprecated: :meth:`run` fits and scores (the fitted state stays on the engine for
        :meth:`score`, :meth:`rank` and :meth:`csc`); ``fit`` works for one release with a
        DeprecationWarning."""
        deprecated_verb(type(self).__name__, "fit")
        return self._fit(data, progress)

    @fill_doc(data=_DATA_DOC)
    def _fit(self, data: Any, progress: ProgressCallback | None = None) -> RecourseFairness:
        """Mine subgroups and actions, and compute every (subgroup, action, group) flip count.

        Parameters
        ----------
        {{data}}
        progress
            Optional ``progress(stage, done, total)`` called as the stages advance:
            ``"mining"`` (one step per protected group and one for the unaffected),
            ``"actions"`` (subgroups checked) and ``"effectiveness"`` (subgroups whose actions
            were tested, one call per predict chunk). Used by the CLI's progress bar.

        Returns
        -------
        RecourseFairness
            ``self``, with ``table_`` (:class:`RecourseTable`), ``stats_`` and ``timings_``.

        Examples
        --------
        >>> import pandas as pd
        >>> from primafacie.decisions import Rule
        >>> table = pd.DataFrame({"g": list("ab" * 50), "x": list("lhll" * 25),
        ...                       "y": list("uv" * 50)})
        >>> stages = []
        >>> audit = RecourseFairness(Rule("x == 'h'"), protected="g", support=0.1)._fit(
        ...     table, progress=lambda stage, done, total: stages.append(stage))
        >>> audit.subgroup_labels(), audit.n_affected_.tolist(), list(dict.fromkeys(stages))
        (['x=l'], [50, 25], ['mining', 'actions', 'effectiveness'])
        """
        self._validate_params()
        for cache in ("_labels", "_curves_cache"):  # from an earlier fit
            self.__dict__.pop(cache, None)
        tick = progress or _noop
        t0 = time.perf_counter()
        frame, protected, kinds, others = self._resolve_data(data)
        self._check_names(list(kinds), protected)
        frame, group_idx, unaffected = self._split(frame, protected, kinds)
        space = self._item_space(frame, protected, kinds, others)
        t_mine = time.perf_counter()
        per_group, unaff_sets, common = self._mine(space, protected, unaffected, tick)
        t_act = time.perf_counter()
        sub_items, sub_then, sub_cost = self._actions(space, unaff_sets, common, tick)
        t_eff = time.perf_counter()
        eff_t, micro_t, n_pred = self._effectiveness(
            sub_items, sub_then, sub_cost, frame, space, tick
        )
        self.sub_items_ = sub_items
        self.sub_then_ = sub_then
        self.stats_ = {
            "rows": int(len(frame)),
            "affected": int(len(self.affected_rows_)),
            "unaffected": int(len(unaffected)),
            **{
                f"affected[{g}]": int(c)
                for g, c in zip(self.groups_, self.n_affected_, strict=True)
            },
            **{f"subgroups[{g}]": len(f) for g, f in zip(self.groups_, per_group, strict=True)},
            "actions": int(len(unaff_sets)),
            "common_subgroups": int(len(common)),
            "valid_pairs": int(self.table_.n_pairs),
            "subgroups": int(self.table_.n_subgroups),
            "pair_rows": int(self.pair_rows_),
            "predicted_rows": int(n_pred),
        }
        self.timings_ = {
            "mining": t_act - t_mine,
            "actions": t_eff - t_act,
            "effectiveness": eff_t,
            "micro": micro_t,
            "fit_total": time.perf_counter() - t0,
        }
        return self

    @fill_doc(data=_DATA_DOC)
    def run(
        self, data: Any, phi: Sequence[float] | float = (0.3, 0.7),
        budgets: Sequence[float] | float | str = "auto", metrics: Sequence[str] | str = "all",
        progress: ProgressCallback | None = None,
    ):  # fmt: skip
        """Fit and score in one call: every definition × parameter on ``data``.

        The one verb; the fitted state stays on the engine, so :meth:`score` (other
        parameters), :meth:`rank` (one definition) and :meth:`csc` (the summaries) query it.

        Parameters
        ----------
        {{data}}
        phi
            Effectiveness thresholds of ECR/ECE (one number or a list, each in [0, 1]).
        budgets
            EEWB cost budgets (numbers ≥ 0) or ``"auto"`` (30/60/90th percentiles of the finite
            micro ECE at φ = 0.5).
        metrics
            ``"all"`` or the definitions to score (``EE``, ``ECR``, ``EEWB``, ``ECE``, ``FECT``,
            ``ECMR``; aliases accepted).
        progress
            ``progress(stage, done, total)`` for the fit stages and ``"scoring"``.

        Returns
        -------
        FactsResult
            Rankings, statistics, scope, caveats and effectiveness curves.

        Examples
        --------
        >>> import pandas as pd
        >>> from primafacie.decisions import Rule
        >>> df = pd.DataFrame({"g": ["a", "b"] * 50, "x": ["lo", "hi", "lo", "lo"] * 25,
        ...                    "y": ["u", "v"] * 50})
        >>> rule = Rule("(x == 'hi') and (g == 'b')")  # no action helps group a
        >>> res = RecourseFairness(rule, protected="g", support=0.1).run(
        ...     df, phi=0.5, metrics=["EE", "ECE"])
        >>> list(res.rankings), res.rankings["EE"].to_frame()["score"].tolist()
        (['Ma.5', 'EE', 'Mi.5'], [1.0])
        >>> print(res.scope())
        rejected applicants by g: 50 a, 25 b (of 100 rows); 1 subgroup (support ≥ 0.1 of every group's rejected) hold 100.0% (50 of 50) a, 100.0% (25 of 25) b of the rejected; 3 definitions
        """
        self._validate_run(phi=phi, budgets=budgets, metrics=metrics)
        self._fit(data, progress=progress)
        return self.score(phi=phi, budgets=budgets, metrics=metrics, progress=progress)

    def _validate_run(self, **params: Any) -> None:
        validate_params(type(self).__name__, RUN_CONSTRAINTS, params, PARAM_WHERE)

    def evaluate(
        self, phi: Sequence[float] | float = (0.3, 0.7),
        budgets: Sequence[float] | float | str = "auto", metrics: Sequence[str] | str = "all",
        progress: ProgressCallback | None = None,
    ):  # fmt: skip
        """Deprecated name of :meth:`score` (works for one release with a DeprecationWarning)."""
        deprecated_verb(type(self).__name__, "evaluate", "score")
        return self.score(phi=phi, budgets=budgets, metrics=metrics, progress=progress)

    def score(
        self, phi: Sequence[float] | float = (0.3, 0.7),
        budgets: Sequence[float] | float | str = "auto", metrics: Sequence[str] | str = "all",
        progress: ProgressCallback | None = None,
    ):  # fmt: skip
        """Every definition × parameter of the paper's tables, on the engine fitted by
        :meth:`run` (a query on its fitted state, as :meth:`rank` and :meth:`csc` are).

        Parameters
        ----------
        phi, budgets, metrics
            As in :meth:`run`.
        progress
            ``progress("scoring", done, total)`` after each definition × parameter.

        Returns
        -------
        FactsResult
            Rankings keyed by column label (``Ma.3``, ``C.7``, ``EE``, ``B10``, ``Mi.3``,
            ``MR``, ``KS``), the statistics and the budgets used, the scope (who was audited),
            and the effectiveness curves of every subgroup.

        Examples
        --------
        >>> import pandas as pd
        >>> from primafacie.decisions import Rule
        >>> table = pd.DataFrame({"g": list("ab" * 30), "x": list("lhl" * 20),
        ...                       "y": list("uvw" * 20)})
        >>> fitted = RecourseFairness(Rule("x == 'h'"), protected="g", support=0.2)
        >>> _ = fitted.run(table, phi=[0.5], metrics=["ECE"])
        >>> list(fitted.score(phi=[0.5], budgets=[1.0], metrics=["ECE", "EEWB"]).rankings)
        ['Ma.5', 'B1', 'Mi.5']
        """
        from .results import FactsResult

        self._require_fit()
        self._validate_run(phi=phi, budgets=budgets, metrics=metrics)
        auto = isinstance(budgets, str)
        budget_list = self.budgets() if auto else _floats(budgets)
        phis = _floats(phi)
        wanted = None if metrics == "all" else {resolve_metric(m)[0].key for m in _names(metrics)}
        plan = [("ECE", "macro", {"phi": p}) for p in phis]
        plan += [("ECR", "macro", {"phi": p}) for p in phis]
        plan.append(("EE", "micro", {}))
        plan += [("EEWB", "micro", {"budget": b}) for b in budget_list]
        plan += [("ECE", "micro", {"phi": p}) for p in phis]
        plan.append(("ECMR", "micro", {}))
        plan.append(("FECT", "micro", {}))
        rankings = {}
        tick = progress or _noop
        plan = [step for step in plan if wanted is None or step[0] in wanted]
        tick("scoring", 0, len(plan))
        for done, (key, vp, kw) in enumerate(plan, start=1):
            r = self.rank(key, vp, **kw)
            rankings[r.label] = r
            tick("scoring", done, len(plan))
        return FactsResult(
            groups=tuple(map(str, self.groups_)),
            protected=str(self.protected_),
            rankings=rankings,
            budgets=tuple(float(b) for b in budget_list),
            stats=dict(self.stats_),
            timings=dict(self.timings_),
            audited=self._scope(tuple(rankings), auto_budgets=auto),
            curves=self.curves(),
        )
