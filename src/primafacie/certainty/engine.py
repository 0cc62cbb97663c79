"""CertaintyRanking: from data and decision-makers to a ranking by how certainly fair they are."""

from __future__ import annotations

import dataclasses
import inspect
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..base import Engine, as_audit_data
from ..data import AuditData
from ..decisions import ModelDecider, Rule
from ..errors import InputError
from ..validation import check_binary, validate_params
from ..weights import check_weights
from .counts import (
    E2_TEXT,
    MAX_PROTECTED_LEVELS,
    WEIGHTED_NOTE,
    GroupCodes,
    canonical_criterion,
    count_partitioned,
    criterion_events,
    group_codes,
    weighted_counts,
)
from .params import DEFAULT_DECISION_MAKER, PARAMETER_CONSTRAINTS, WHERE
from .posterior import (
    UNIFORM_PRIOR,
    as_counts,
    credible_interval,
    decision_maker_multigroup,
    group_normalized_var,
    legacy_count_order,
    posterior,
    prob_disparity_exceeds,
    treatment,
)
from .probability import DEFAULT_DRAWS, prob_most_fair
from .results import CertaintyResult
from .score import pair_columns
from .select import TIE_DECIMALS, rank, select_optimal
from .utility import get_utility, u_norm

__all__ = [
    "CertaintyRanking",
    "score_counts",
    "DEFAULT_DECISION_MAKER",
    "PARAMETER_CONSTRAINTS",
    "WHERE",
]

_E2_TEXT = E2_TEXT


class CertaintyRanking(Engine):
    """Rank decision-makers (models, rules or humans) by how certainly fair they are.

    Each decision-maker becomes a point (disparity, uncertainty): the disparity is the gap
    between the most and the least privileged group (``max - min`` of the group rates, which
    is ``|p_i - p_j|`` for two groups), the uncertainty the mean normalised Beta-posterior
    variance of those two groups. A utility (u_topsis by default) ranks them and the best is
    selected; ties can be broken by accuracy or any score (Duong & Conrad, ECAI 2024).

    Parameters
    ----------
    criterion
        ``"statistical_parity"`` (E1 = favourable decision), ``"equal_opportunity"``
        (E1 = favourable decision, E2 = favourable truth) or ``"predictive_parity"``
        (E1 = favourable truth, E2 = favourable decision).
    protected
        Protected column, or list of columns whose value combinations form intersectional
        groups. Every distinct value is a group. Default: the protected attributes of an
        :class:`AuditData` (several -> intersectional).
    favorable
        Decision value that is favourable (E1 for statistical parity; in COMPAS this is 0,
        "not rearrested"). Default: the AuditData's ``favorable``, else 1. It applies to
        recorded columns, arrays (booleans count as 1/0), callables and estimators; a
        :class:`~primafacie.decisions.Rule` already yields 1 = favourable.
    outcome, outcome_favorable
        True-outcome column and its favourable value (needed for equal opportunity,
        predictive parity and the accuracy tie-breaker). Default: from the AuditData.
    tie_breaker
        ``None``, ``"accuracy"`` (needs an outcome) or a mapping ``{name: score}``;
        higher is better.
    utility
        ``"topsis"`` (paper), ``"norm"`` or a callable ``u(delta, s)``.
    disparity
        ``"frequentist"`` (paper) or ``"bayesian"`` (max - min of posterior means).
    prior
        Beta prior (default uniform; others are renormalised, see :mod:`.posterior`).
    ties
        Which groups are i*, j* when rates tie: ``"first"`` (label order) or
        ``"most_uncertain"``.
    on_empty
        A group with no row in E2 (e.g. no favourable truth for equal opportunity) has an
        undefined rate. ``"error"`` (default) stops with a message naming it; ``"skip"``
        drops it for that decision-maker with a warning (at least two groups must remain).
    min_group
        Merge groups with fewer members into one (the paper's remedy, §7, for a
        decision-maker gaming the uncertainty of tiny groups). Default: no merging.
    epsilon
        When given, report the posterior probability that the disparity of the chosen pair
        exceeds epsilon (``p_exceeds``; deterministic quadrature, see
        :func:`~.posterior.prob_disparity_exceeds`).
    ci_level
        Level of the per-group equal-tailed credible intervals.
    features
        Columns passed to a fitted estimator without ``feature_names_in_`` (default: the
        AuditData's features, else every column).
    max_levels
        A protected column with more distinct values is refused (a numeric column such as age
        would give one group per value); None allows any number, e.g. a country column.
    n_draws
        Posterior draws of the Monte Carlo behind ``p_most_fair`` (the posterior probability
        that a decision-maker has the smallest disparity, :mod:`.probability`); None skips it.
    seed
        Seed of those draws (same data and seed give the same probabilities).
    backend
        :mod:`primafacie.compute` backend the counts run on, over row partitions (integer
        sums: identical on every backend).
    min_group_size
        Deprecated name of ``min_group`` (read for one release, with a DeprecationWarning).
    weights
        A column of sample weights (default: the AuditData's ``weights``). Each group's
        successes and trials become its weighted rate over the Kish effective sample size,
        rounded to whole numbers for the Beta posterior
        (:func:`~primafacie.certainty.counts.weighted_counts`); counted here, not on ``backend``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"g": ["a"] * 3 + ["b"] * 3, "A": [1, 1, 1, 0, 0, 0],
    ...                    "B": [1, 0, 1, 1, 0, 1]})
    >>> res = CertaintyRanking(protected="g").run(df, {"A": "A", "B": "B"})
    >>> res.selected
    ('B',)
    """

    # the deprecated min_group_size is checked as min_group is, until it goes
    _parameter_constraints: dict[str, list[Any]] = {
        **PARAMETER_CONSTRAINTS,
        "min_group_size": PARAMETER_CONSTRAINTS["min_group"],
    }
    _where = {**WHERE, "min_group_size": "deprecated: --min-group, analyses.certainty.min_group"}

    def __init__(
        self,
        criterion: str = "statistical_parity",
        protected: str | Sequence[str] | None = None,
        favorable: Any = None,
        outcome: str | None = None,
        outcome_favorable: Any = None,
        tie_breaker: str | Mapping[str, float] | None = None,
        utility: str | Callable = "topsis",
        disparity: str = "frequentist",
        prior: Sequence[float] = UNIFORM_PRIOR,
        ties: str = "first",
        on_empty: str = "error",
        min_group: int | None = None,
        epsilon: float | None = None,
        ci_level: float = 0.95,
        features: Sequence[str] | None = None,
        max_levels: int | None = MAX_PROTECTED_LEVELS,
        n_draws: int | None = DEFAULT_DRAWS,
        seed: int = 0,
        backend: Any = None,
        min_group_size: int | None = None,
        weights: str | None = None,
    ) -> None:
        self._store_params(locals())

    def _min_group(self) -> int | None:
        """``min_group``, or the deprecated ``min_group_size`` when that was given."""
        if self.min_group_size is None:
            return self.min_group
        warnings.warn(
            "CertaintyRanking(min_group_size=...) is deprecated and will be removed in the next "
            "release; use min_group=... (one name for the smallest group in every analysis)",
            DeprecationWarning,
            stacklevel=3,
        )
        if self.min_group is not None and self.min_group != self.min_group_size:
            raise InputError(
                f"CertaintyRanking: give min_group only (min_group={self.min_group!r} and the "
                f"deprecated min_group_size={self.min_group_size!r} differ)"
            )
        return self.min_group_size

    # ------------------------------------------------------------------ inputs
    def _resolve_data(self, data: Any) -> tuple[AuditData, list[str], tuple, str | None, tuple]:
        if isinstance(data, AuditData):
            audit = data
            protected = self.protected or list(audit.protected)
            favorable = audit.favorable if self.favorable is None else self.favorable
            outcome = self.outcome or audit.outcome
            out_fav = (
                audit.outcome_favorable
                if self.outcome_favorable is None
                else self.outcome_favorable
            )
        else:
            # a role-free AuditData gives the shared validation (binary columns, messages)
            audit = as_audit_data(data)
            protected = self.protected
            favorable = 1 if self.favorable is None else self.favorable
            outcome = self.outcome
            out_fav = 1 if self.outcome_favorable is None else self.outcome_favorable
        if not protected:
            raise InputError("name the protected column(s): CertaintyRanking(protected=[...])")
        protected = [protected] if isinstance(protected, str) else list(protected)
        if outcome is not None and outcome not in audit.frame.columns:
            raise InputError(f"outcome column {outcome!r} is not in the data")
        return audit, protected, _tuple(favorable), outcome, _tuple(out_fav)

    def _predictions(
        self, audit: AuditData, name: str, dm: Any, favorable: tuple, features
    ) -> np.ndarray:
        frame = audit.frame
        role = f"decision-maker {name!r}"
        if isinstance(dm, str):
            if dm not in frame.columns:
                raise InputError(
                    f"{role}: {dm!r} is not a column of the data (a column holds that "
                    "decision-maker's decisions; for a rule use --rule NAME=EXPR on the CLI, "
                    "{rule: EXPR} in audit.yaml, primafacie.decisions.Rule(expr) in Python)"
                )
            return audit.binary_array(dm, favorable, role)
        if isinstance(dm, Rule):
            return dm.predict(frame).astype(np.int8)
        if isinstance(dm, ModelDecider):
            return _check_vector(dm.predict(frame), len(frame), role, (1,))
        if hasattr(dm, "predict"):
            feats = None if hasattr(dm, "feature_names_in_") else features
            fav = favorable[0] if len(favorable) == 1 else favorable
            try:
                with warnings.catch_warnings():
                    # a model fitted on an array is given the named columns it was fitted on
                    warnings.filterwarnings("ignore", message="X has feature names")
                    raw = ModelDecider(dm, features=feats, favorable=fav).predict(frame)
            except InputError as exc:
                raise InputError(f"{role}: {exc}") from exc
            except Exception as exc:  # the estimator's own error; the user needs its name
                cols = list(frame.columns) if feats is None else list(feats)
                raise InputError(
                    f"{role}: predict() failed on columns {cols[:12]}: {type(exc).__name__}: "
                    f"{exc} (fit the model on a DataFrame so it records feature_names_in_, "
                    "or pass features=[...])"
                ) from exc
            return _check_vector(raw, len(frame), role, (1,))
        if callable(dm):
            return _check_vector(dm(frame), len(frame), role, favorable)
        if isinstance(dm, (np.ndarray, list, tuple, pd.Series)):
            return _check_vector(dm, len(frame), role, favorable)
        raise InputError(
            f"{role}: cannot use {type(dm).__name__}; give a column name, a Rule, a fitted "
            "estimator, a callable or an array of predictions"
        )

    def check(
        self, data: AuditData | pd.DataFrame | Any, decision_makers: Mapping[str, Any] | None = None
    ) -> None:
        """What the data must hold, checked before any work (the audit calls it before the
        first analysis runs): the parameters, the protected columns within ``max_levels``, and
        every recorded column or rule among ``decision_makers`` (fitted models are checked
        when they predict).

        Raises
        ------
        InputError
            With the message :meth:`run` would give later.
        """
        self._validate_params()
        audit, protected, favorable, _, _ = self._resolve_data(data)
        group_codes(audit.frame, protected, self._min_group(), self.max_levels)
        for name, dm in (decision_makers or {}).items():
            if isinstance(dm, (str, Rule)):
                self._predictions(audit, str(name), dm, favorable, None)

    # ------------------------------------------------------------------ run
    def run(
        self,
        data: AuditData | pd.DataFrame | Any,
        decision_makers: Mapping[str, Any] | None = None,
    ) -> CertaintyResult:
        """Score, rank and select decision-makers.

        Parameters
        ----------
        data
            An :class:`~primafacie.data.AuditData` (protected attributes, favourable values
            and outcome are taken from it) or a DataFrame / polars / pyarrow table (then give
            ``protected`` and, if needed, ``outcome`` to the constructor).
        decision_makers
            ``{name: dm}`` where dm is a column name (str) holding recorded decisions, a
            :class:`~primafacie.decisions.Rule`, a fitted estimator (``predict``), a
            callable ``f(frame) -> predictions``, or an array of predictions (one per row).
            Default with an AuditData: its decision column.

        Returns
        -------
        CertaintyResult
        """
        self._validate_params()
        crit = canonical_criterion(self.criterion)
        audit, protected, favorable, outcome, out_fav = self._resolve_data(data)
        if decision_makers is None:
            if audit.decision is None:
                raise InputError("give decision_makers={name: column | model | Rule | array}")
            decision_makers = {audit.decision: audit.decision}
        if not isinstance(decision_makers, Mapping) or not decision_makers:
            raise InputError("decision_makers must be a non-empty mapping {name: decision-maker}")
        features = self.features or (audit.feature_names or None)
        groups = group_codes(audit.frame, protected, self._min_group(), self.max_levels)
        names = [str(n) for n in decision_makers]
        # one contiguous row per decision-maker; counting uses the (rows, dms) view preds.T
        preds_by_dm = np.empty((len(names), audit.n), dtype=np.int8)
        for col, (name, dm) in enumerate(decision_makers.items()):
            preds_by_dm[col] = self._predictions(audit, str(name), dm, favorable, features)
        preds = preds_by_dm.T
        y_true = None
        if outcome is not None:
            y_true = audit.binary_array(outcome, out_fav, "outcome")
        e1, e2 = criterion_events(crit, preds, y_true)
        column = self.weights or audit.weights
        if column is None:
            k, n = count_partitioned(groups.codes, groups.n_groups, e1, e2, backend=self.backend)
        else:
            audit._require_column(column, "weights")
            w = check_weights(audit.frame[column], column)
            k, n = weighted_counts(groups.codes, groups.n_groups, e1, e2, w)
        accuracy = np.full(len(names), np.nan)
        accuracy_counts = None
        if y_true is not None:
            correct = (preds_by_dm == y_true[None, :]).sum(axis=1, dtype=np.int64)
            accuracy = correct / audit.n
            accuracy_counts = (correct, np.full(len(names), audit.n, dtype=np.int64))
        res = score_counts(
            k,
            n,
            names=names,
            groups=groups,
            criterion=crit,
            favorable=favorable[0] if len(favorable) == 1 else list(favorable),
            accuracy=accuracy,
            accuracy_counts=accuracy_counts,
            **{name: getattr(self, name) for name in _SCORING},
        )
        if column is not None:
            note = WEIGHTED_NOTE.format(column=column)
            res = dataclasses.replace(res, warnings=(*res.warnings, note))
        return res


def _tuple(value: Any) -> tuple:
    if isinstance(value, (list, tuple, set, frozenset)):
        return tuple(value)
    return (value,)


def _numeric_favourable(favorable: tuple) -> list[float] | None:
    """Favourable values as numbers ('1' from a command line counts as 1), or None."""
    out = []
    for f in favorable:
        if isinstance(f, bool) or not isinstance(f, (int, float, np.number, str)):
            return None
        try:
            out.append(float(f))
        except ValueError:
            return None
    return out


def _what(role: str) -> str:
    return f"the prediction vector of {role}"


def _check_vector(values: Any, n_rows: int, role: str, favorable: tuple) -> np.ndarray:
    """Validate one decision-maker's predictions and return the 0/1 favourable indicator."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise InputError(f"{role}: predictions must be one value per row; got shape {arr.shape}")
    if arr.shape[0] != n_rows:
        raise InputError(f"{role}: {arr.shape[0]} predictions for {n_rows} rows of data")
    fav_num = _numeric_favourable(favorable)
    if arr.dtype == bool:
        # True/False are 1/0, as for an integer array: favourable 0 (or False) means False is
        # favourable. Without a numeric favourable value (e.g. "yes"), True is favourable.
        as_num = _numeric_favourable(tuple(int(f) if isinstance(f, bool) else f for f in favorable))
        if as_num is not None and 0.0 in as_num and 1.0 not in as_num:
            return (~arr).view(np.int8)
        return arr.view(np.int8)
    if arr.dtype.kind in "iuf" and fav_num is not None:
        # fast path (no pandas copies): millions of rows x many decision-makers
        arr = np.ascontiguousarray(arr)  # a column of a row-major matrix is strided
        if arr.dtype.kind == "f" and np.isnan(arr).any():
            check_binary(arr, _what(role))  # raises: the shared message for missing values
        lo, hi = arr.min(), arr.max()
        if arr.dtype.kind in "iu" and lo >= 0 and hi <= 1:
            # already 0/1: 1 is favourable unless only 0 is
            if 1.0 in fav_num and 0.0 not in fav_num:
                return arr.astype(np.int8)
            if 0.0 in fav_num and 1.0 not in fav_num:
                return (arr == 0).view(np.int8)
        # two reductions find a third value without sorting; check_binary then words it
        if lo != hi and ((arr != lo) & (arr != hi)).any():
            check_binary(arr, _what(role))
        fav = np.isin(arr, fav_num)
        if lo != hi and (fav.all() or not fav.any()):
            raise InputError(
                f"{role}: favourable value(s) {list(favorable)} do not match the predictions' "
                f"values {[str(lo), str(hi)]}"
            )
        return fav.view(np.int8)
    uniq = check_binary(arr, _what(role))
    series = pd.Series(arr)
    fav = series.isin(list(favorable)).to_numpy()
    if not fav.any() and len(uniq) == 2:
        fav = series.astype(str).isin([str(f) for f in favorable]).to_numpy()
    if len(uniq) == 2 and (fav.all() or not fav.any()):
        raise InputError(
            f"{role}: favourable value(s) {list(favorable)} do not match the predictions' "
            f"values {sorted(map(str, uniq))}"
        )
    return fav.astype(np.int8)


#: The scoring settings :func:`score_counts` shares with :class:`CertaintyRanking`, declared
#: once by the engine's signature (the engine's run passes its own values to score_counts).
_SCORING = ("tie_breaker", "utility", "disparity", "prior", "ties", "on_empty", "epsilon",
            "ci_level", "n_draws", "seed")  # fmt: skip


def score_counts(*args: Any, **kwargs: Any) -> CertaintyResult:
    """Build a :class:`CertaintyResult` from counts (no data needed).

    Parameters
    ----------
    k, n
        Successes and trials of shape (m, G): m decision-makers over G groups (G = 2 for the
        pairwise setting of Tables 1-2). The former order ``(n, k)`` is recognised (it makes
        k > n) and still works for one release with a DeprecationWarning.
    names
        Decision-maker names (default ``dm0, dm1, ...``).
    groups
        Group labels or a :class:`~.counts.GroupCodes` (default ``g0, g1, ...``).
    accuracy
        Optional accuracy per decision-maker (reported; used when ``tie_breaker="accuracy"``).
    accuracy_counts
        Optional ``(correct, total)`` per decision-maker behind ``accuracy``, reported as
        ``accuracy_k`` / ``accuracy_n`` (missing, ``<NA>``, when not given); ``accuracy``
        defaults to their ratio.
    tie_breaker, utility, disparity, prior, ties, on_empty, epsilon, ci_level, n_draws, seed
        As in :class:`CertaintyRanking` (``on_empty`` defaults to ``"skip"`` here).

    Returns
    -------
    CertaintyResult

    Examples
    --------
    >>> res = score_counts([[3, 0], [1, 0]], [[3, 3], [1, 1]], names=["A", "B"])
    >>> res.selected, [round(u, 3) for u in res.table["utility"]]
    (('B',), [-0.414, -0.629])
    """
    bound = score_counts.__signature__.bind(*args, **kwargs)  # type: ignore[attr-defined]
    bound.apply_defaults()
    return _score_counts(**bound.arguments)


def _score_counts(
    k,
    n,
    names: Sequence[str] | None = None,
    groups: GroupCodes | Sequence[str] | None = None,
    criterion: str = "statistical_parity",
    favorable: Any = 1,
    accuracy=None,
    tie_decimals: int = TIE_DECIMALS,
    accuracy_counts=None,
    **settings: Any,
) -> CertaintyResult:
    """:func:`score_counts` with its arguments bound (``settings``: those of :data:`_SCORING`)."""
    validate_params("score_counts", PARAMETER_CONSTRAINTS, settings)
    tie_breaker, utility, disparity, prior, ties, on_empty, epsilon, ci_level, n_draws, seed = (
        settings[name] for name in _SCORING
    )
    k, n = _count_matrices(k, n)
    m, g = n.shape
    names, labels, members, protected = _names_and_labels(names, groups, m, g)
    crit = canonical_criterion(criterion)
    util_name, u = get_utility(utility)
    notes = _empty_groups(n, names, labels, crit, on_empty)
    cols = _dm_columns(k, n, labels, u, disparity, prior, ties, epsilon)
    cols["p_most_fair"] = (
        np.full(m, np.nan) if n_draws is None else prob_most_fair(k, n, prior, n_draws, seed)
    )
    acc, acc_k, acc_n = _accuracy_columns(accuracy, accuracy_counts, m)
    tb_values, tb_name = _tie_values(tie_breaker, names, acc)
    best, chosen = select_optimal(cols["utility"], tb_values, tie_decimals)
    order, ranks = rank(cols["utility"], tie_decimals)
    rank_counts = np.bincount(ranks, minlength=ranks.max() + 1)
    rows = np.arange(m)
    table = pd.DataFrame(
        {
            "decision_maker": names,
            "rank": ranks,
            **cols,
            "accuracy": acc,
            "accuracy_k": acc_k,
            "accuracy_n": acc_n,
            "tied": rank_counts[ranks] > 1,
            "best": np.isin(rows, best),
            "selected": np.isin(rows, chosen),
        }
    )[list(TABLE_COLUMNS)]
    return CertaintyResult(
        table=table.iloc[order].reset_index(drop=True),
        counts=_counts_frame(k, n, names, labels, members, prior, ci_level),
        selected=tuple(names[i] for i in chosen),
        best=tuple(names[i] for i in best),
        criterion=crit,
        protected=tuple(protected),
        groups=tuple(labels),
        favorable=favorable,
        disparity_kind=disparity,
        utility_name=util_name if util_name not in ("topsis", "norm") else f"u_{util_name}",
        prior=tuple(float(p) for p in prior),
        ties=ties,
        tie_breaker=tb_name,
        epsilon=None if epsilon is None else float(epsilon),
        ci_level=ci_level,
        warnings=tuple(notes),
        n_draws=n_draws,
        seed=int(seed),
    )


def _score_counts_signature() -> inspect.Signature:
    """The public signature of :func:`score_counts`: its own arguments (:func:`_score_counts`'s)
    with the settings of :data:`_SCORING` taken from :class:`CertaintyRanking`'s, where it
    has always placed them (``tie_decimals`` and ``accuracy_counts`` before ``n_draws``); only
    ``on_empty`` defaults otherwise: ``"skip"``."""
    own = [
        p for p in inspect.signature(_score_counts).parameters.values() if p.kind != p.VAR_KEYWORD
    ]
    init = inspect.signature(CertaintyRanking.__init__).parameters
    shared = [init[name] for name in _SCORING]
    shared[_SCORING.index("on_empty")] = init["on_empty"].replace(default="skip")
    params = [*own[:7], *shared[:8], *own[7:], *shared[8:]]
    return inspect.Signature(
        params, return_annotation=inspect.signature(_score_counts).return_annotation
    )


score_counts.__signature__ = _score_counts_signature()  # type: ignore[attr-defined]


#: Columns of :attr:`CertaintyResult.table`, in order.
TABLE_COLUMNS = (
    "decision_maker", "rank", "most_privileged", "least_privileged", "n_i", "k_i", "n_j",
    "k_j", "p_i", "p_j", "disparity", "uncertainty", "utility", "utility_norm",
    "bayesian_disparity", "accuracy", "accuracy_k", "accuracy_n", "p_exceeds", "tied", "best",
    "selected", "p_most_fair",
)  # fmt: skip


def _dm_columns(
    k: np.ndarray,
    n: np.ndarray,
    labels: list[str],
    u: Callable,
    disparity: str,
    prior: Sequence[float],
    ties: str,
    epsilon: float | None,
) -> dict[str, Any]:
    """Per decision-maker: the pair (i*, j*), its counts and rates, disparity, uncertainty,
    utilities, the Bayesian disparity and P(disparity > epsilon)."""
    dm = decision_maker_multigroup(k, n, kind=disparity, prior=prior, ties=ties, warn_empty=False)
    d, s, i_idx, j_idx = (np.atleast_1d(x) for x in dm)
    util = np.asarray(u(d, s), dtype=float)
    rows = np.arange(k.shape[0])
    ki, ni, kj, nj = k[rows, i_idx], n[rows, i_idx], k[rows, j_idx], n[rows, j_idx]
    p_exceeds = np.full(k.shape[0], np.nan)
    if epsilon is not None:
        p_exceeds = prob_disparity_exceeds(ki, ni, kj, nj, float(epsilon), prior)
    bayes = decision_maker_multigroup(
        k, n, kind="bayesian", prior=prior, ties=ties, warn_empty=False
    )
    lab = np.asarray(labels, dtype=object)
    return {
        "most_privileged": lab[i_idx],
        "least_privileged": lab[j_idx],
        **pair_columns(ki, ni, kj, nj, d, s, util),
        "utility_norm": u_norm(d, s),
        "bayesian_disparity": np.atleast_1d(bayes.disparity),
        "p_exceeds": p_exceeds,
    }


def _count_matrices(k: Any, n: Any) -> tuple[np.ndarray, np.ndarray]:
    """Validated int64 ``(k, n)`` of shape (m, G); the former ``(n, k)`` order is swapped."""
    # validated before the int cast, which would silently truncate 2.5 to 2
    k = np.atleast_2d(as_counts(k).astype(np.int64))
    n = np.atleast_2d(as_counts(n).astype(np.int64))
    if k.shape != n.shape:
        raise InputError(f"k and n must have the same shape, got {k.shape} and {n.shape}")
    if legacy_count_order([(k, n)], "score_counts", "(n, k)", "(k, n)"):
        k, n = n, k
    return k, n


def _names_and_labels(
    names: Sequence[str] | None, groups: GroupCodes | Sequence[str] | None, m: int, g: int
) -> tuple[list[str], list[str], np.ndarray, tuple[str, ...]]:
    """Decision-maker names, group labels, group members and protected columns, checked."""
    names = [f"dm{i}" for i in range(m)] if names is None else [str(x) for x in names]
    if len(names) != m:
        raise InputError(f"{len(names)} names for {m} decision-makers")
    if len(set(names)) != m:
        raise InputError(f"decision-maker names repeat: {names}")
    if isinstance(groups, GroupCodes):
        labels, members, protected = list(groups.labels), groups.members, groups.columns
    else:
        labels = [f"g{i}" for i in range(g)] if groups is None else [str(x) for x in groups]
        members, protected = np.full(g, np.nan), ()
    if len(labels) != g:
        raise InputError(f"{len(labels)} group labels for {g} groups of counts")
    return names, labels, members, tuple(protected)


def _empty_groups(
    n: np.ndarray, names: list[str], labels: list[str], crit: str, on_empty: str
) -> list[str]:
    """Notes on groups with n = 0 (skipped, or an error); an error when fewer than two remain."""
    notes: list[str] = []
    empty = n == 0
    if empty.any():
        where = [f"{names[r]}: {labels[c]}" for r, c in zip(*np.nonzero(empty), strict=True)]
        msg = (
            f"{len(where)} group(s) have no {_E2_TEXT[crit]} (n = 0), so their rate is "
            f"undefined: {'; '.join(where[:8])}{' ...' if len(where) > 8 else ''}"
        )
        if on_empty == "error":
            raise InputError(msg + " — merge or drop these groups, or use on_empty='skip'")
        warnings.warn(msg + "; skipped", stacklevel=4)  # the caller of score_counts
        notes.append(msg + "; skipped")
    too_few = (~empty).sum(axis=1) < 2
    if too_few.any():
        bad = [names[r] for r in np.flatnonzero(too_few)]
        raise InputError(
            f"decision-maker(s) {bad[:8]} have fewer than two groups with {_E2_TEXT[crit]} "
            "(n > 0): a disparity needs at least two"
        )
    return notes


def _accuracy_columns(accuracy: Any, accuracy_counts: Any, m: int) -> tuple[np.ndarray, Any, Any]:
    """Accuracy per decision-maker with its count and denominator (``<NA>`` when unknown)."""
    acc_k = pd.array([pd.NA] * m, dtype="Int64")
    acc_n = pd.array([pd.NA] * m, dtype="Int64")
    if accuracy_counts is not None:
        ck, cn = (as_counts(np.asarray(c).reshape(-1)).astype(np.int64) for c in accuracy_counts)
        if ck.shape != (m,) or cn.shape != (m,) or (ck > cn).any() or (cn < 1).any():
            raise InputError(
                f"accuracy_counts must be (correct, total) with {m} values each, "
                "0 <= correct <= total and total >= 1"
            )
        acc_k, acc_n = pd.array(ck, dtype="Int64"), pd.array(cn, dtype="Int64")
        if accuracy is None:
            accuracy = ck / cn
    acc = np.full(m, np.nan) if accuracy is None else np.asarray(accuracy, dtype=float)
    if acc.shape != (m,):
        raise InputError(f"accuracy has {acc.size} values for {m} decision-makers")
    return acc, acc_k, acc_n


def _tie_values(tie_breaker, names: list[str], accuracy: np.ndarray):
    """Scores that break utility ties (higher is better) and their name; None without one.

    ``tie_breaker`` has passed :data:`PARAMETER_CONSTRAINTS` (None, "accuracy" or a mapping).
    """
    if tie_breaker is None:
        return None, None
    if isinstance(tie_breaker, Mapping):
        missing = [nm for nm in names if nm not in tie_breaker]
        if missing:
            raise InputError(f"the tie-breaker has no score for decision-maker(s) {missing}")
        return np.array([float(tie_breaker[nm]) for nm in names]), "custom"
    if np.isnan(accuracy).all():
        raise InputError(
            "tie_breaker='accuracy' needs the true outcome (--outcome on the CLI, outcome: in "
            "audit.yaml, outcome=... in Python)"
        )
    return accuracy, "accuracy"


def _counts_frame(k, n, names, labels, members, prior, ci_level) -> pd.DataFrame:
    m, g = n.shape
    nf, kf = n.reshape(-1), k.reshape(-1)
    alpha, beta = posterior(kf, nf, prior)
    lo, hi = credible_interval(kf, nf, ci_level, prior)
    nonempty = nf > 0
    norm_var = np.where(nonempty, group_normalized_var(kf, nf, prior), np.nan)
    return pd.DataFrame(
        {
            "decision_maker": np.repeat(names, g),
            "group": np.tile(np.asarray(labels, dtype=object), m),
            "members": np.tile(members, m),
            "n": nf,
            "k": kf,
            "rate": treatment(kf, nf),
            "alpha": alpha,
            "beta": beta,
            "post_mean": alpha / (alpha + beta),
            "norm_var": norm_var,
            "ci_low": lo,
            "ci_high": hi,
        }
    )
