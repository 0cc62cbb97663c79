"""The less-discriminatory-alternative search: candidates, honest selection, the verdict.

1. The audited rows with their true outcome are split once (seeded, stratified by outcome and
   protected group) into a *search* part and a *held-out* part (``holdout``, 0.3).
2. Every candidate (:mod:`.candidates`) is fitted ``folds`` times on the search part; its
   out-of-fold scores give its cross-validated utility and disparity. Its one decision
   threshold (never one per group) maximises the utility on those scores, or, for the AUC
   (which no threshold changes), keeps the audited decision's approval rate.
3. The candidates whose cross-validated utility is within ``tolerance`` of the audited model's
   (refitted the same way) and whose disparity is lower go to the certainty ranking (Beta
   posteriors, TOPSIS; Duong & Conrad 2024), which picks the most certainly fair of them.
4. Only then is the held-out part used: every candidate, refitted on the whole search part,
   is scored there, and the chosen one is compared with the audited model with paired
   bootstrap intervals. It is a *less discriminatory alternative* when the interval of the
   disparity reduction excludes 0 (two-sided, level 1 − alpha) and its utility is non-inferior
   (the one-sided lower alpha bound of the utility difference is above −tolerance).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..base import Engine, as_audit_data
from ..compute import Backend
from ..data import AuditData
from ..errors import InputError
from .candidates import association, build_estimator, neutralise, plan
from .metrics import better, bootstrap_weights, disparity, group_rates, utility
from .params import PARAMETER_CONSTRAINTS, WHERE
from .results import AlternativesResult

__all__ = ["AlternativeSearch"]


def _scores(model: Any, X: pd.DataFrame) -> np.ndarray:
    """The model's score of the favourable outcome (class 1) for each row."""
    if hasattr(model, "predict_proba"):
        proba = model.predict_proba(X)
        classes = list(getattr(model, "classes_", [0, 1]))
        return proba[:, classes.index(1)] if 1 in classes else np.zeros(len(X))
    if hasattr(model, "decision_function"):
        return np.asarray(model.decision_function(X), dtype=float)
    return np.asarray(model.predict(X), dtype=float)


def _fit_score(shared: tuple, job: tuple[int, int]) -> np.ndarray:
    """Fit candidate ``c`` on fold ``f``'s training rows and score its validation rows
    (``f == folds``: fit on the whole search part and score the held-out part)."""
    frames, y, fold_of, estimators = shared
    c, f = job
    X_search, X_hold = frames[c]
    train = fold_of != f
    model = estimators[c](X_search[train], y[train])
    target = X_hold if f == fold_of.max() + 1 else X_search[~train]
    return _scores(model, target)


class AlternativeSearch(Engine):
    """Search for a less discriminatory alternative to an audited scikit-learn model.

    Parameters
    ----------
    drop_features
        Try the audited model with each feature neutralised, and with each pair among the
        ``pairs`` features most associated with the protected attribute(s).
    pairs
        How many of the most associated features are paired (``pairs·(pairs−1)/2`` candidates).
    estimators
        Other estimators to try behind the same preprocessing, by name, each over its small
        grid (:data:`~.params.ESTIMATOR_GRIDS`).
    params
        A grid on the audited estimator's own hyperparameters, ``{name: [values]}`` (Pipeline
        names such as ``clf__C``).
    utility
        ``"auc"``, ``"accuracy"``, ``"balanced_accuracy"`` or ``{"profit": {"tp", "fp", "fn",
        "tn"}}`` (the gain of each kind of decision; the utility is the mean gain).
    tolerance
        The utility loss accepted (0.01: one point of AUC).
    disparity
        ``"impact_ratio"`` (the selection-rate ratio, as the smaller of r and 1/r),
        ``"selection_difference"`` or ``"equal_opportunity"`` (TPR gap), for every protected
        attribute; the worst attribute counts.
    folds, holdout
        Cross-validation folds on the search part; the held-out share.
    n_boot
        Bootstrap replicates of every interval (paired across candidates).
    alpha
        Level of the tests (see the module docstring).
    n_draws
        Posterior draws of the certainty ranking's ``p_most_fair`` (None skips it).
    seed
        Seed of the split, the folds, the estimators and the bootstrap.

    Examples
    --------
    >>> from primafacie.datasets.credit_world import generate_credit_world, train_decision_makers
    >>> from primafacie.datasets.credit_world import CREDIT_FEATURES
    >>> world = generate_credit_world(1200, seed=1)
    >>> data = AuditData(world, features=CREDIT_FEATURES, protected={"gender": "female"},
    ...                  outcome="repaid")
    >>> model = train_decision_makers(world)["lr"]
    >>> res = AlternativeSearch(n_boot=100, folds=3).run(data, model)  # doctest: +SKIP
    """

    _parameter_constraints: dict[str, list[Any]] = PARAMETER_CONSTRAINTS
    _where = WHERE

    def __init__(
        self,
        drop_features: bool = True,
        pairs: int = 4,
        estimators: Sequence[str] = (),
        params: Mapping[str, Sequence[Any]] | None = None,
        utility: str | Mapping[str, Any] = "auc",
        tolerance: float = 0.01,
        disparity: str = "impact_ratio",
        folds: int = 5,
        holdout: float = 0.3,
        n_boot: int = 500,
        alpha: float = 0.05,
        n_draws: int | None = 10_000,
        seed: int = 0,
    ) -> None:
        self._store_params(locals())

    # ------------------------------------------------------------------ checks
    def _validate(self) -> None:
        params = self.get_params()
        params["estimators"] = list(self.estimators) or None
        params["params"] = dict(self.params) if self.params else None
        self._validate_params(params)
        if isinstance(self.utility, Mapping):
            gain = self.utility.get("profit")
            keys = {"tp", "fp", "fn", "tn"}
            if (
                set(self.utility) != {"profit"}
                or not isinstance(gain, Mapping)
                or set(gain) != keys
            ):
                raise InputError(
                    "analyses.alternatives.utility: expected auc, accuracy, balanced_accuracy or "
                    f"{{profit: {{tp: .., fp: .., fn: .., tn: ..}}}}; got {self.utility!r}"
                )
        for name, values in (self.params or {}).items():
            if not isinstance(values, (list, tuple)) or not values:
                raise InputError(
                    f"analyses.alternatives.params.{name}: expected a non-empty list of values"
                )

    @staticmethod
    def _estimator(model: Any) -> Any:
        est = getattr(model, "estimator", model)  # a ModelDecider wraps the estimator
        if not (hasattr(est, "get_params") and hasattr(est, "fit")):
            raise InputError(
                "the alternatives search refits the audited model, so it needs a scikit-learn "
                f"estimator (decision: {{model: ...}} with a .skops or trusted pickle file); "
                f"got {type(est).__name__}"
            )
        return est

    # ------------------------------------------------------------------ split
    def _split(self, protected: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Search and held-out row indices (stratified by outcome and protected group)."""
        from sklearn.model_selection import train_test_split

        strata = y * 2 + protected.astype(int)
        if np.bincount(strata).min() < 2:
            strata = y
        return train_test_split(
            np.arange(len(y)), test_size=self.holdout, random_state=self.seed, stratify=strata
        )

    def _rows(self, data: AuditData, train: AuditData | None, features: list[str]) -> tuple:
        """The rows of the search: ``(X, y, masks, search, hold, rate)``.

        Without ``train`` the audited rows are split into search and held-out rows; with it,
        the candidates are fitted (and cross-validated) on the training rows and compared on
        every audited row, which played no part in the choice. ``masks`` holds one protected
        mask per attribute over all rows; ``rate`` is the audited decision's approval rate
        (the AUC's threshold keeps it).
        """
        y = data.outcome_array().astype(np.int64)
        masks = np.stack([data.protected_mask(a) for a in data.protected])
        decided = data.decision is not None
        if train is None:
            search, hold = self._split(masks.any(0), y)
            rate = float(data.decision_array()[search].mean()) if decided else 0.5
            return data.frame[features], y, masks, search, hold, rate
        if train.outcome is None:
            raise InputError("the train data file needs the true outcome column (outcome:)")
        y_train = train.outcome_array().astype(np.int64)
        m_train = np.stack([train.protected_mask(a) for a in data.protected])
        X = pd.concat([train.frame[features], data.frame[features]], ignore_index=True)
        search = np.arange(train.n)
        hold = train.n + np.arange(data.n)
        rate = float(data.decision_array().mean()) if decided else 0.5
        return (X, np.concatenate([y_train, y]), np.concatenate([m_train, masks], axis=1),
                search, hold, rate)  # fmt: skip

    def _fold_of(self, y: np.ndarray) -> np.ndarray:
        from sklearn.model_selection import StratifiedKFold

        fold_of = np.empty(len(y), dtype=np.int64)
        skf = StratifiedKFold(self.folds, shuffle=True, random_state=self.seed)
        for f, (_, val) in enumerate(skf.split(np.zeros(len(y)), y)):
            fold_of[val] = f
        return fold_of

    # ------------------------------------------------------------------ thresholds
    def _thresholds(self, cv: np.ndarray, y: np.ndarray, rate: float) -> np.ndarray:
        """One threshold per candidate from its out-of-fold scores (see the module docstring)."""
        if self.utility == "auc":
            return np.quantile(cv, 1 - rate, axis=1, method="higher")
        grid = np.quantile(cv, np.linspace(0.01, 0.99, 99), axis=1).T  # candidates × 99
        ones = np.ones((1, cv.shape[1]))
        out = np.empty(len(cv))
        for c in range(len(cv)):  # a few dozen candidates, each vectorised over 99 thresholds
            d = cv[c][None, :] >= grid[c][:, None]
            u = utility(self.utility, np.repeat(cv[c][None], 99, 0), d, y, ones)[0]
            out[c] = grid[c][int(np.nanargmax(u))]
        return out

    # ------------------------------------------------------------------ run
    def run(
        self,
        data: AuditData,
        model: Any,
        backend: Backend | None = None,
        train: AuditData | None = None,
    ) -> AlternativesResult:
        """Search, choose on cross-validation, test on the held-out rows.

        Parameters
        ----------
        data
            The audited rows with their true ``outcome`` and protected attribute(s): an
            :class:`~primafacie.data.AuditData` (a pandas / polars / pyarrow table is wrapped
            by :func:`~primafacie.base.as_audit_data`, but carries no roles).
        model
            The audited scikit-learn estimator (or a ModelDecider holding one).
        backend
            Where the fits run (:mod:`primafacie.compute`; local threads by default).
        train
            Training rows (same columns, true outcome, same protected attributes): the
            candidates are refitted and cross-validated on them and compared on every audited
            row. None (the default): the audited rows are split (``holdout``).

        Returns
        -------
        AlternativesResult
        """
        self._validate()
        data = as_audit_data(data, owner=type(self).__name__)
        base = self._estimator(model)
        if data.outcome is None:
            raise InputError(
                "the alternatives search needs the true outcome (outcome: in audit.yaml)"
            )
        features = _model_features(model, base, data)
        for name, rows in (("data", data), ("train data", train)):
            missing = [f for f in features if rows is not None and f not in rows.frame.columns]
            if missing:
                raise InputError(
                    f"the audited model's features {missing} are not columns of the {name}"
                )
        X, y, masks, search, hold, rate = self._rows(data, train, features)
        protected = [a for a in data.protected if a in features]
        free = [f for f in features if f not in protected]
        ranked = association(X.iloc[search], free, masks.any(0)[search])
        cands = plan(free, list(ranked.sort_values(ascending=False, kind="stable").index),
                     self.drop_features, self.pairs, list(self.estimators), dict(self.params or {}))  # fmt: skip
        kinds = {f: data.features[f].kind if f in data.features else "numeric" for f in features}
        cv, held = self._score_all(cands, X, y, search, hold, base, kinds, protected, backend)
        thr = self._thresholds(cv, y[search], rate)
        # each protected attribute against its reference (every other row for ``rest``)
        refs = np.stack([data.reference_mask(a) for a in data.protected])
        if train is not None:
            t_refs = np.stack([train.reference_mask(a) for a in data.protected])
            refs = np.concatenate([t_refs, refs], axis=1)
        groups = list(zip(masks, refs, strict=True))
        source = "file" if train is not None else "audited rows"
        return self._assess(cands, cv, held, thr, y, search, hold, groups, data, ranked, source)

    def _score_all(self, cands, X, y, search, hold, base, kinds, protected, backend):
        """Out-of-fold scores on the search rows and held-out scores, per candidate."""
        frames = []
        for c in cands:
            drop = list(c.dropped) + ([] if c.is_baseline else protected)
            Xc = neutralise(X, drop) if drop else X
            frames.append(
                (Xc.iloc[search].reset_index(drop=True), Xc.iloc[hold].reset_index(drop=True))
            )
        fold_of = self._fold_of(y[search])
        makers = [_Maker(build_estimator(base, c, kinds, self.seed)) for c in cands]
        jobs = [(c, f) for c in range(len(cands)) for f in range(self.folds + 1)]
        out = (backend or Backend()).map(
            _fit_score, jobs, shared=(frames, y[search], fold_of, makers)
        )
        cv = np.empty((len(cands), len(search)))
        held = np.empty((len(cands), len(hold)))
        for (c, f), s in zip(jobs, out, strict=True):
            if f == self.folds:
                held[c] = s
            else:
                cv[c, fold_of == f] = s
        return cv, held

    def _measure(self, scores, thr, y, groups, seed, disadvantaged):
        """Point values and bootstrap replicates of utility and disparity: (1 + B, models)."""
        d = scores >= thr[:, None]
        util, disp, rev, gaps = [], [], [], []
        blocks = [np.ones((1, scores.shape[1]))]
        blocks += list(bootstrap_weights(scores.shape[1], self.n_boot, seed))
        for W in blocks:
            util.append(utility(self.utility, scores, d, y, W))
            dd, rr = disparity(self.disparity, d, y, groups, W, disadvantaged)
            disp.append(dd)
            rev.append(rr)
            # the audited model's signed gap per attribute: is there any disparity to reduce?
            gaps.append(
                [(rp - rr)[:, 0] for rp, rr in group_rates(self.disparity, d[:1], y, groups, W)]
            )
        gap = np.concatenate([np.stack(g, axis=1) for g in gaps])  # (1 + B, attributes)
        return np.concatenate(util), np.concatenate(disp), np.concatenate(rev)[0], d, gap

    def _assess(self, cands, cv, held, thr, y, search, hold, groups, data, ranked, source):
        gs = [(p[search], r[search]) for p, r in groups]
        gh = [(p[hold], r[hold]) for p, r in groups]
        # which side the audited model disadvantages, per attribute (from its CV decisions)
        ones = np.ones((1, len(search)))
        base_rates = group_rates(self.disparity, cv[:1] >= thr[0], y[search], gs, ones)
        dis = [bool(rp[0, 0] <= rr[0, 0]) for rp, rr in base_rates]
        u_cv, d_cv, rev_cv, dec_cv, _ = self._measure(cv, thr, y[search], gs, self.seed + 1, dis)
        u_h, d_h, _, _, gap = self._measure(held, thr, y[hold], gh, self.seed + 2, dis)
        lo, hi = np.nanquantile(gap[1:], [self.alpha / 2, 1 - self.alpha / 2], axis=0)
        baseline_gap = {
            str(a): {"gap": float(gap[0, i]), "gap_low": float(lo[i]), "gap_high": float(hi[i])}
            for i, a in enumerate(data.protected)
        }
        within = u_cv[0] >= u_cv[0, 0] - self.tolerance
        improves = better(self.disparity, d_cv[0], d_cv[0, 0]) > 0
        # a candidate that turns the disparity round, beyond the audited model's, is no remedy
        reverses = better(self.disparity, rev_cv, d_cv[0, 0]) < 0
        eligible = np.flatnonzero(within)
        cert = self._certainty(dec_cv[eligible], y[search], [p for p, _ in gs], eligible)
        rank = np.full(len(cands), np.nan)
        pmf = np.full(len(cands), np.nan)
        rank[eligible] = cert["rank"].to_numpy()
        pmf[eligible] = cert["p_most_fair"].to_numpy()
        order = [
            c
            for c in eligible[np.argsort(rank[eligible], kind="stable")]
            if c != 0 and improves[c] and not reverses[c]
        ]
        chosen = order[0] if order else None
        return AlternativesResult.build(
            candidates=cands, thresholds=thr, u_cv=u_cv, d_cv=d_cv, u_h=u_h, d_h=d_h,
            within=within, improves=improves & ~reverses, rank=rank, p_most_fair=pmf, chosen=chosen,
            settings=self._settings(data, len(search), len(hold), ranked, source),
            baseline_gap=baseline_gap,
        )  # fmt: skip

    def _certainty(self, decisions, y, masks, names) -> pd.DataFrame:
        """Certainty ranking (Beta posteriors, TOPSIS) of the candidates within tolerance.

        Groups are the combinations of the protected flags (protected on gender only, on race
        only, on both, on neither), so with one attribute it ranks the protected against the
        reference group; counts are the cross-validated selections of each candidate (among
        rows with a favourable outcome for equal opportunity).
        """
        from ..certainty import score_counts

        code = np.zeros(len(y), dtype=np.int64)
        for i, m in enumerate(masks):
            code |= m.astype(np.int64) << i
        rows = (y == 1) if self.disparity == "equal_opportunity" else np.ones(len(y), bool)
        size = 1 << len(masks)
        n = np.bincount(code[rows], minlength=size)
        k = np.stack([np.bincount(code[rows & d], minlength=size) for d in decisions])
        keep = np.flatnonzero(n > 0)
        res = score_counts(
            k[:, keep], np.tile(n[keep], (len(decisions), 1)), names=[str(c) for c in names],
            n_draws=self.n_draws, seed=self.seed,
        )  # fmt: skip
        return res.table.set_index("decision_maker").loc[[str(c) for c in names]]

    def _settings(self, data, n_search, n_hold, ranked, source) -> dict[str, Any]:
        return {
            "train": source,
            "utility": self.utility,
            "tolerance": float(self.tolerance),
            "disparity": self.disparity,
            "alpha": float(self.alpha),
            "folds": int(self.folds),
            "holdout": float(self.holdout),
            "n_boot": int(self.n_boot),
            "seed": int(self.seed),
            "n_search": int(n_search),
            "n_holdout": int(n_hold),
            "protected": list(data.protected),
            "drop_features": bool(self.drop_features),
            "pairs": int(self.pairs),
            "estimators": list(self.estimators),
            "params": {k: list(v) for k, v in (self.params or {}).items()},
            "association": {k: float(v) for k, v in ranked.items()},
        }


def _model_features(model: Any, base: Any, data: AuditData) -> list[str]:
    """The columns the audited model reads: the decider's, the estimator's, or the features."""
    for cols in (getattr(model, "features", None), getattr(base, "feature_names_in_", None)):
        if cols is not None and len(cols):
            return [str(c) for c in cols]
    return data.feature_names


class _Maker:
    """Fits a fresh clone of one candidate's estimator (picklable for Dask)."""

    def __init__(self, estimator: Any) -> None:
        self.estimator = estimator

    def __call__(self, X: pd.DataFrame, y: np.ndarray) -> Any:
        from sklearn.base import clone

        return clone(self.estimator).fit(X, y)
