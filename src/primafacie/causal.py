"""Structural causal models with additive noise: fit, abduction, action, prediction.

An :class:`SCM` holds a DAG over columns of a table and one mechanism ``f_j`` per node with
parents. Numeric nodes follow ``X_j = f_j(pa_j) + U_j`` (additive noise, Pearl's three steps
with the residual as the abducted noise, as in CST spec §3 D3 and the paper's Appendix A);
categorical nodes follow a classifier and are abducted by the inverse-CDF rule described in
:class:`SCM`. Mechanisms are fitted once on the factual data and never refitted on
counterfactual data.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .data import AuditData, to_pandas
from .errors import InputError

__all__ = ["SCM"]

INTERCEPT = "(intercept)"
_CATEGORICAL_MODES = ("classifier", "error")
#: Mechanism names accepted as strings (config files use these).
MECHANISMS = ("linear", "random_forest", "gradient_boosting")


# ---------------------------------------------------------------------------------- helpers
def _is_estimator(obj: Any) -> bool:
    return hasattr(obj, "fit") and (hasattr(obj, "predict") or hasattr(obj, "predict_proba"))


def _sorted_categories(values: np.ndarray) -> list:
    uniq = pd.unique(pd.Series(values))
    try:
        return sorted(uniq.tolist())
    except TypeError:  # mixed types: a stable, documented order is all that matters
        return sorted(uniq.tolist(), key=lambda v: (type(v).__name__, str(v)))


def _json_scalar(value: Any) -> Any:
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        value = float(value)
        return value if math.isfinite(value) else None
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if isinstance(value, (str, int, bool)) or value is None:
        return value
    return str(value)


def _estimator_name(est: Any) -> str:
    if isinstance(est, str):
        return est
    return type(est).__name__


def _named_regressor(name: str) -> Any:
    # Fixed random_state: the same data must give the same counterfactuals.
    if name == "random_forest":
        from sklearn.ensemble import RandomForestRegressor

        return RandomForestRegressor(n_estimators=100, min_samples_leaf=5, random_state=0)
    from sklearn.ensemble import HistGradientBoostingRegressor

    return HistGradientBoostingRegressor(random_state=0)


def _default_classifier() -> Any:
    # Standardising first keeps lbfgs well conditioned when parents are on a salary scale.
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))


class SCM:
    """A structural causal model over columns of a table, with additive-noise mechanisms.

    Each node with parents gets a structural equation fitted on the factual data; nodes
    without parents are exogenous. Counterfactuals follow Pearl's three steps, vectorised
    over rows: abduction ``û_j = x_j − f_j(pa_j)``, action ``do(A := a)``, prediction
    ``x_j^CF = f_j(pa_j^CF) + û_j`` for every descendant of the intervened nodes in
    topological order (CST spec §3 D3; paper Appendix A).

    Parameters
    ----------
    edges
        Directed edges ``(parent, child)`` of the DAG; the nodes are the edge endpoints.
    mechanism
        ``"linear"`` (ordinary least squares with an intercept, the default),
        ``"random_forest"`` (``RandomForestRegressor(n_estimators=100, min_samples_leaf=5,
        random_state=0)``), ``"gradient_boosting"`` (``HistGradientBoostingRegressor(
        random_state=0)``, the one that scales to millions of rows), an unfitted scikit-learn
        regressor (cloned for every numeric node with parents), or a mapping
        ``{node: name | estimator}``; nodes missing from the mapping use ``"linear"``.
        A categorical node uses the estimator given for it in the mapping when that estimator
        has ``predict_proba``; otherwise the default classifier (standardised multinomial
        ``LogisticRegression``).
    clip
        ``{node: (lo, hi)}`` bounds applied to counterfactual values of that node (``None``
        for an open side). Applied as soon as the node is predicted, so its children see the
        clipped value.
    round
        ``{node: decimals}`` applied to counterfactual values of that node (after ``clip``),
        also before its children are predicted.
    categorical
        How a categorical endogenous node (a node with parents whose values are non-numeric,
        or binary 0/1 and not declared numeric) is handled:

        ``"classifier"``
            ``P(X_j = c_k | pa_j)`` is fitted by a classifier over the categories in a FIXED
            order (sorted values, or the declared ordinal levels). Abduction takes the
            factual value's cumulative-probability interval ``[F(k−1), F(k)]`` under the
            factual parents and keeps its MIDPOINT ``u = (F(k−1) + F(k)) / 2`` (deterministic,
            rather than a draw from the interval). Prediction returns the first category whose
            cumulative probability under the counterfactual parents reaches ``u``. Rows whose
            parents do not change keep their factual value.
        ``"error"``
            Raise :class:`~primafacie.errors.InputError` naming the node at ``fit``.
    protected
        Extra protected attributes (no edge may point into them). When fitting on an
        :class:`~primafacie.data.AuditData`, its protected attributes are added.
    kinds
        Optional ``{node: "numeric" | "categorical"}`` overriding the inferred kind. By default
        non-numeric and boolean columns are categorical, a numeric column holding only 0/1 is
        categorical unless declared ``"numeric"`` in the AuditData features, and the rest
        numeric. Ordinal features with declared levels are categorical in level order.

    Attributes
    ----------
    nodes : list of str
        Nodes in order of first appearance in ``edges``.
    topological_order : list of str
        A topological order, stable with respect to ``nodes``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": [0, 0, 1, 1], "x": [1.0, 2.0, 4.0, 5.0]})
    >>> scm = SCM(edges=[("a", "x")]).fit(df)
    >>> scm.counterfactual(df, intervention={"a": 0})["x"].round(9).tolist()
    [1.0, 2.0, 1.0, 2.0]
    >>> scm.coefficients()["coef"].round(6).tolist()
    [1.5, 3.0]
    """

    def __init__(
        self,
        edges: Iterable[Sequence[str]],
        mechanism: Any = "linear",
        clip: Mapping[str, tuple[float | None, float | None]] | None = None,
        round: Mapping[str, int] | None = None,
        categorical: str = "classifier",
        protected: Iterable[str] | None = None,
        kinds: Mapping[str, str] | None = None,
    ) -> None:
        self.edges = [self._parse_edge(e) for e in edges]
        self.mechanism = mechanism
        self.clip = dict(clip or {})
        self.round = dict(round or {})
        self.categorical = categorical
        self.protected = [str(p) for p in (protected or [])]
        self.kinds = dict(kinds or {})
        self._build_graph()
        self._validate_settings()
        self._fitted = False

    # ------------------------------------------------------------------ graph
    @staticmethod
    def _parse_edge(edge: Sequence[str]) -> tuple[str, str]:
        if isinstance(edge, str) or len(edge) != 2:
            raise InputError(f"an edge must be a (parent, child) pair, got {edge!r}")
        a, b = (str(edge[0]), str(edge[1]))
        if a == b:
            raise InputError(f"self-loop on node {a!r}: an edge cannot point from a node to itself")
        return a, b

    def _build_graph(self) -> None:
        if not self.edges:
            raise InputError("the causal graph needs at least one edge")
        seen: dict[tuple[str, str], None] = {}
        for e in self.edges:
            if e in seen:
                raise InputError(f"edge {e[0]!r} -> {e[1]!r} is listed twice")
            seen[e] = None
        nodes: list[str] = []
        for a, b in self.edges:
            for v in (a, b):
                if v not in nodes:
                    nodes.append(v)
        self._nodes = nodes
        self._parents = {v: [a for a, b in self.edges if b == v] for v in nodes}
        self._children = {v: [b for a, b in self.edges if a == v] for v in nodes}
        # Kahn's algorithm, always taking the earliest-listed ready node (stable order).
        indeg = {v: len(self._parents[v]) for v in nodes}
        order: list[str] = []
        ready = [v for v in nodes if indeg[v] == 0]
        while ready:
            v = ready.pop(0)
            order.append(v)
            for c in self._children[v]:
                indeg[c] -= 1
                if indeg[c] == 0:
                    ready.append(c)
            ready.sort(key=nodes.index)
        if len(order) != len(nodes):
            cycle = self._find_cycle([v for v in nodes if v not in order])
            raise InputError("the causal graph has a cycle: " + " -> ".join(cycle + [cycle[0]]))
        self._order = order

    def _find_cycle(self, remaining: list[str]) -> list[str]:
        rem = set(remaining)
        # Every node left after Kahn's algorithm has a parent inside ``rem``; walking parents
        # must therefore revisit a node, and the walk between the two visits is a cycle.
        v = remaining[0]
        path: list[str] = []
        while v not in path:
            path.append(v)
            v = next(p for p in self._parents[v] if p in rem)
        cycle = path[path.index(v) :]
        cycle.reverse()  # parents were walked backwards; report in edge direction
        first = min(range(len(cycle)), key=lambda i: self._nodes.index(cycle[i]))
        return cycle[first:] + cycle[:first]

    def _validate_settings(self) -> None:
        if self.categorical not in _CATEGORICAL_MODES:
            raise InputError(
                f"categorical must be one of {list(_CATEGORICAL_MODES)}, got {self.categorical!r}"
            )
        mech = self.mechanism
        if isinstance(mech, Mapping):
            for node, m in mech.items():
                self._require_node(node, "mechanism")
                if not (m in MECHANISMS if isinstance(m, str) else _is_estimator(m)):
                    raise InputError(
                        f"mechanism for node {node!r} must be one of {list(MECHANISMS)} or a "
                        f"scikit-learn estimator, got {m!r}"
                    )
        elif isinstance(mech, str):
            if mech not in MECHANISMS:
                raise InputError(
                    f"mechanism must be one of {list(MECHANISMS)}, a scikit-learn regressor or a "
                    f"mapping node -> regressor, got {mech!r}"
                )
        elif not _is_estimator(mech):
            raise InputError(
                f"mechanism must be 'linear', a scikit-learn regressor or a mapping "
                f"node -> regressor, got {type(mech).__name__}"
            )
        for node, bounds in self.clip.items():
            self._require_node(node, "clip")
            if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:
                raise InputError(f"clip for node {node!r} must be (lo, hi), got {bounds!r}")
            lo, hi = bounds
            if lo is not None and hi is not None and lo > hi:
                raise InputError(f"clip for node {node!r}: lower bound {lo} exceeds upper {hi}")
        for node, dec in self.round.items():
            self._require_node(node, "round")
            if not isinstance(dec, numbers.Integral) or isinstance(dec, bool):
                raise InputError(f"round for node {node!r} must be an integer, got {dec!r}")
        for node, kind in self.kinds.items():
            self._require_node(node, "kinds")
            if kind not in ("numeric", "categorical"):
                raise InputError(
                    f"kind of node {node!r} must be 'numeric' or 'categorical', got {kind!r}"
                )
        self._check_protected(self.protected)

    def _require_node(self, node: str, where: str) -> None:
        if node not in self._parents:
            raise InputError(
                f"unknown node {node!r} in {where}; the graph's nodes are: {', '.join(self._nodes)}"
            )

    def _check_protected(self, protected: Iterable[str]) -> None:
        for p in protected:
            if p in self._parents and self._parents[p]:
                raise InputError(
                    f"edge {self._parents[p][0]!r} -> {p!r} points into the protected attribute "
                    f"{p!r}; a protected attribute must have no parents"
                )

    @property
    def nodes(self) -> list[str]:
        """Nodes in order of first appearance in ``edges``."""
        return list(self._nodes)

    @property
    def topological_order(self) -> list[str]:
        """Nodes so that every parent precedes its children (stable w.r.t. ``nodes``)."""
        return list(self._order)

    def parents(self, node: str) -> list[str]:
        """Parents of ``node`` in edge order."""
        self._require_node(node, "parents()")
        return list(self._parents[node])

    def children(self, node: str) -> list[str]:
        """Children of ``node`` in edge order."""
        self._require_node(node, "children()")
        return list(self._children[node])

    def descendants(self, node: str | Iterable[str]) -> list[str]:
        """Strict descendants of ``node`` (or of any of several nodes), in topological order."""
        start = [node] if isinstance(node, str) else list(node)
        for v in start:
            self._require_node(v, "descendants()")
        found: set[str] = set()
        stack = list(start)
        while stack:
            for c in self._children[stack.pop()]:
                if c not in found:
                    found.add(c)
                    stack.append(c)
        return [v for v in self._order if v in found and v not in start]

    def categories(self, node: str) -> list:
        """Fitted category order of a categorical node (its intervention domain).

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"g": ["m", "f", "m", "f"], "s": [1.0, 3.0, 2.0, 4.0]})
        >>> SCM([("g", "s")]).fit(df).categories("g")
        ['f', 'm']
        """
        self._require_fitted()
        self._require_node(node, "categories()")
        if self.kinds_[node] != "categorical":
            raise InputError(f"node {node!r} is numeric; it has no categories")
        return list(self.categories_[node])

    @property
    def is_fitted(self) -> bool:
        """Whether :meth:`fit` has run."""
        return self._fitted

    # ------------------------------------------------------------------ fit
    def _node_kind(self, node: str, col: pd.Series, features: Mapping[str, Any]) -> str:
        if node in self.kinds:
            return self.kinds[node]
        spec = features.get(node)
        if spec is not None and spec.kind == "categorical":
            return "categorical"
        if spec is not None and spec.kind == "ordinal" and spec.order is not None:
            return "categorical"
        if pd.api.types.is_bool_dtype(col) or not pd.api.types.is_numeric_dtype(col):
            return "categorical"
        if spec is not None and spec.kind in ("numeric", "ordinal"):
            return "numeric"
        values = pd.unique(col)
        if len(values) <= 2 and set(np.asarray(values, dtype=float).tolist()) <= {0.0, 1.0}:
            return "categorical"
        return "numeric"

    def fit(self, data: AuditData | Any) -> SCM:
        """Fit every structural equation on the factual data.

        Parameters
        ----------
        data
            :class:`~primafacie.data.AuditData` or a table (pandas/polars/pyarrow) holding one
            column per node.

        Returns
        -------
        SCM
            ``self``, fitted.

        Raises
        ------
        InputError
            A node is not a column, has missing values, an edge points into a protected
            attribute, or a categorical node has parents while ``categorical="error"``.

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"g": ["f", "m", "f", "m"], "s": [1.0, 3.0, 2.0, 4.0]})
        >>> SCM([("g", "s")]).fit(df).coefficients()["term"].tolist()
        ['(intercept)', 'g[m]']
        """
        self._fitted = False  # a failed refit must not leave a half-updated model usable
        if isinstance(data, AuditData):
            frame = data.frame
            features = data.features
            protected = list(dict.fromkeys(self.protected + list(data.protected)))
        else:
            frame = to_pandas(data)
            features = {}
            protected = list(self.protected)
        self._check_protected(protected)
        missing = [v for v in self._nodes if v not in frame.columns]
        if missing:
            raise InputError(
                f"unknown node {missing[0]!r}: not a column of the data; columns are: "
                f"{', '.join(map(str, frame.columns))}"
            )
        if len(frame) < 2:
            raise InputError("an SCM needs at least two rows to fit")
        kinds: dict[str, str] = {}
        categories: dict[str, list] = {}
        for v in self._nodes:
            col = frame[v]
            if col.isna().any():
                first = int(np.flatnonzero(col.isna().to_numpy())[0])
                raise InputError(f"node {v!r} has missing values (first at row {first})")
            kinds[v] = self._node_kind(v, col, features)
            if kinds[v] == "categorical":
                spec = features.get(v)
                if spec is not None and spec.kind == "ordinal" and spec.order is not None:
                    categories[v] = list(spec.order)
                else:
                    categories[v] = _sorted_categories(col.to_numpy())
            elif not pd.api.types.is_numeric_dtype(col):
                raise InputError(f"node {v!r} is declared numeric but holds {col.iloc[0]!r}")
        for v in self._nodes:
            if self._parents[v] and kinds[v] == "categorical" and self.categorical == "error":
                raise InputError(
                    f"node {v!r} is categorical and has parents {self._parents[v]}; additive-noise "
                    "abduction does not apply (CST spec §8.6). Use categorical='classifier' or "
                    "declare it numeric"
                )
        self.kinds_ = kinds
        self.categories_ = categories
        self.protected_ = protected
        self.models_: dict[str, Any] = {}
        self.terms_: dict[str, list[str]] = {}
        vals = {v: self._factual(frame, v, None) for v in self._nodes}
        for v in self._order:
            if not self._parents[v]:
                continue
            X = self._design(v, vals)
            self.terms_[v] = self._terms(v)
            if kinds[v] == "categorical":
                self.models_[v] = self._fit_classifier(v, X, vals[v])
            else:
                self.models_[v] = self._fit_regressor(v, X, vals[v])
        self._fitted = True
        return self

    def _mechanism_for(self, node: str) -> Any:
        mech = self.mechanism
        if isinstance(mech, Mapping):
            return mech.get(node, "linear")
        return mech

    def _fit_regressor(self, node: str, X: np.ndarray, y: np.ndarray) -> Any:
        mech = self._mechanism_for(node)
        if mech == "linear":
            design = np.column_stack([np.ones(len(X)), X])
            coef, *_ = np.linalg.lstsq(design, y, rcond=None)
            return ("linear", coef)
        from sklearn.base import clone

        model = _named_regressor(mech) if isinstance(mech, str) else clone(mech)
        try:
            model.fit(X, y)
        except Exception as exc:  # the user's estimator: report which node it failed on
            raise InputError(f"the mechanism for node {node!r} failed to fit: {exc}") from exc
        return ("estimator", model)

    def _fit_classifier(self, node: str, X: np.ndarray, codes: np.ndarray) -> Any:
        n_cat = len(self.categories_[node])
        present = np.unique(codes)
        if len(present) == 1:
            # One observed category: every counterfactual keeps it; no classifier to fit.
            return ("constant", int(present[0]), n_cat)
        mech = self._mechanism_for(node)
        from sklearn.base import clone

        model = clone(mech) if _is_estimator(mech) and hasattr(mech, "predict_proba") else None
        if model is None:
            model = _default_classifier()
        try:
            model.fit(X, codes)
        except Exception as exc:
            raise InputError(f"the classifier for node {node!r} failed to fit: {exc}") from exc
        return ("classifier", model, n_cat)

    # ------------------------------------------------------------------ encoding
    def _codes(self, node: str, values: np.ndarray) -> np.ndarray:
        cats = self.categories_[node]
        codes = pd.Categorical(values, categories=cats).codes.astype(np.int64)
        if (codes < 0).any():
            # CSV round-trips turn 1 into "1": match on the string form before giving up.
            str_cats = [str(c) for c in cats]
            codes = pd.Categorical(pd.Series(values).astype(str), categories=str_cats).codes.astype(
                np.int64
            )
            if (codes < 0).any():
                bad = values[np.flatnonzero(codes < 0)[0]]
                raise InputError(
                    f"node {node!r} has value {bad!r} that was not seen at fit; known values: "
                    f"{cats[:10]}"
                )
        return codes

    def _terms(self, node: str) -> list[str]:
        terms: list[str] = []
        for p in self._parents[node]:
            if self.kinds_[p] == "categorical":
                terms += [f"{p}[{c}]" for c in self.categories_[p][1:]]
            else:
                terms.append(p)
        return terms

    def _parent_block(self, parent: str, values: np.ndarray) -> np.ndarray:
        if self.kinds_[parent] == "categorical":
            k = len(self.categories_[parent])
            # Drop-first one-hot: category 0 (first in the stored order) is the baseline.
            return (values[:, None] == np.arange(1, k)[None, :]).astype(float)
        return values[:, None]

    def _design(self, node: str, vals: Mapping[str, np.ndarray]) -> np.ndarray:
        """Regressor input of ``node`` from encoded parents (codes or floats)."""
        return np.hstack([self._parent_block(p, vals[p]) for p in self._parents[node]])

    # ------------------------------------------------------------------ mechanisms
    def _predict(self, node: str, X: np.ndarray) -> np.ndarray:
        kind, model = self.models_[node][:2]
        if kind == "linear":
            return model[0] + X @ model[1:]
        return np.asarray(model.predict(X), dtype=float)

    def _cdf(self, node: str, X: np.ndarray) -> np.ndarray:
        model = self.models_[node]
        n_cat = model[-1]
        if model[0] == "constant":
            cdf = np.zeros((len(X), n_cat))
            cdf[:, model[1] :] = 1.0
            return cdf
        clf = model[1]
        proba = np.asarray(clf.predict_proba(X), dtype=float)
        # Classes are integer codes; put each probability column at its code's position so the
        # category order is the fixed stored order even if some category never occurred.
        full = np.zeros((len(X), n_cat))
        full[:, np.asarray(clf.classes_, dtype=np.int64)] = proba
        return np.cumsum(full, axis=1)

    # ------------------------------------------------------------------ counterfactuals
    def _require_fitted(self) -> None:
        if not self._fitted:
            raise InputError("the SCM is not fitted: call .fit(data) first")

    def _check_frame(self, frame: pd.DataFrame, nodes: Iterable[str]) -> None:
        for v in nodes:
            if v not in frame.columns:
                raise InputError(
                    f"node {v!r} is not a column of the frame; columns are: "
                    f"{', '.join(map(str, frame.columns))}"
                )

    def _rows(self, rows: Any, n: int) -> np.ndarray:
        if rows is None:
            return np.arange(n)
        arr = np.asarray(rows)
        if arr.dtype == bool:
            if arr.shape != (n,):
                raise InputError(f"rows mask has length {arr.size}, the frame has {n} rows")
            return np.flatnonzero(arr)
        if arr.ndim != 1 or (arr.size and not np.issubdtype(arr.dtype, np.integer)):
            raise InputError("rows must be a boolean mask or a list of integer row positions")
        arr = arr.astype(np.int64)
        if arr.size and (arr.min() < -n or arr.max() >= n):
            raise InputError(f"rows has a position outside 0..{n - 1}")
        return np.unique(np.where(arr < 0, arr + n, arr))

    def _intervention_value(self, node: str, value: Any) -> Any:
        if self.kinds_[node] == "categorical":
            cats = self.categories_[node]
            if value in cats:
                return cats.index(value)
            matches = [i for i, c in enumerate(cats) if str(c) == str(value)]
            if len(matches) == 1:
                return matches[0]
            raise InputError(
                f"intervention value {value!r} is not in the domain of {node!r}: {cats}"
            )
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise InputError(f"intervention on numeric node {node!r} needs a number, got {value!r}")
        if not math.isfinite(float(value)):
            raise InputError(f"intervention on {node!r} must be finite, got {value!r}")
        return float(value)

    def _parse_intervention(self, intervention: Mapping[str, Any]) -> dict[str, Any]:
        if not isinstance(intervention, Mapping) or not intervention:
            raise InputError("intervention must be a non-empty mapping {node: value}")
        out = {}
        for node, value in intervention.items():
            if node not in self._parents:
                raise InputError(
                    f"intervention on unknown node {node!r}; the graph's nodes are: "
                    f"{', '.join(self._nodes)}"
                )
            out[node] = self._intervention_value(node, value)
        return out

    def _factual(self, frame: pd.DataFrame, node: str, idx: np.ndarray | None) -> np.ndarray:
        vals = frame[node].to_numpy()
        if idx is not None and len(idx) != len(vals):
            vals = vals[idx]
        if self.kinds_[node] == "categorical":
            return self._codes(node, vals)
        return np.asarray(vals, dtype=float)

    def abduct(self, data: AuditData | Any, rows: Any = None) -> pd.DataFrame:
        """The abducted noise of every endogenous node, one row per selected row.

        Numeric node: the residual ``û_j = x_j − f_j(pa_j)``. Categorical node: the midpoint
        ``u ∈ (0, 1)`` of the factual category's cumulative-probability interval.

        Parameters
        ----------
        data
            Table or AuditData with the node columns.
        rows
            Boolean mask or integer positions; ``None`` for all rows.

        Returns
        -------
        pandas.DataFrame
            One column per endogenous node (topological order), index = the selected positions.

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"a": [0, 0, 1, 1], "x": [1.0, 2.0, 4.0, 5.0]})
        >>> SCM([("a", "x")]).fit(df).abduct(df)["x"].round(6).tolist()
        [-0.5, 0.5, -0.5, 0.5]
        """
        self._require_fitted()
        frame = data.frame if isinstance(data, AuditData) else to_pandas(data)
        self._check_frame(frame, self._nodes)
        idx = self._rows(rows, len(frame))
        vals = {v: self._factual(frame, v, idx) for v in self._nodes}
        out = {}
        for v in self._order:
            if not self._parents[v]:
                continue
            X = self._design(v, vals)
            if self.kinds_[v] == "categorical":
                out[v] = self._midpoint(v, X, vals[v])
            else:
                out[v] = vals[v] - self._predict(v, X)
        return pd.DataFrame(out, index=idx)

    def _midpoint(self, node: str, X: np.ndarray, codes: np.ndarray) -> np.ndarray:
        cdf = self._cdf(node, X)
        rows = np.arange(len(codes))
        hi = cdf[rows, codes]
        lo = np.where(codes > 0, cdf[rows, np.maximum(codes - 1, 0)], 0.0)
        return (lo + hi) / 2.0

    def counterfactual(
        self,
        frame: AuditData | Any,
        intervention: Mapping[str, Any],
        rows: Any = None,
        noise: pd.DataFrame | None = None,
    ) -> pd.DataFrame:
        """Counterfactual table under ``do(intervention)``: abduction, action, prediction.

        Parameters
        ----------
        frame
            Table or AuditData holding the node columns (other columns are copied unchanged).
        intervention
            ``{node: value}``; a categorical node's value must be one of its fitted categories.
        rows
            Boolean mask or integer positions of the rows to change. Other rows are returned
            exactly equal to their factual values (CST spec §8.10). ``None`` changes all rows.
        noise
            Optional abducted noise (as returned by :meth:`abduct`, indexed by row position)
            used instead of abducting it again, e.g. rounded noise to mimic published files.

        Returns
        -------
        pandas.DataFrame
            Same shape, columns and index as ``frame``. Intervened nodes take their value and
            every descendant is recomputed in topological order; clip/round apply to the
            recomputed values. A selected row whose parents of a node are unchanged keeps that
            node's factual value exactly (no clip/round), unless ``noise`` is given.

        Raises
        ------
        InputError
            Not fitted, unknown intervened node, value outside the node's domain, bad rows.

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"a": [0, 1], "x": [1.0, 4.0], "y": [2.0, 9.0]})
        >>> scm = SCM([("a", "x"), ("x", "y")]).fit(df)
        >>> scm.counterfactual(df, {"a": 0}, rows=[1]).round(6).to_dict("list")
        {'a': [0, 0], 'x': [1.0, 1.0], 'y': [2.0, 2.0]}
        """
        self._require_fitted()
        src = frame.frame if isinstance(frame, AuditData) else to_pandas(frame)
        do = self._parse_intervention(intervention)
        targets = self.descendants(list(do))
        targets = [v for v in targets if v not in do]
        needed = set(do) | set(targets) | {p for v in targets for p in self._parents[v]}
        self._check_frame(src, [v for v in self._nodes if v in needed])
        idx = self._rows(rows, len(src))
        out = src.copy()
        if len(idx) == 0:
            return out
        fact = {v: self._factual(src, v, idx) for v in needed}
        cf = dict(fact)
        for v, value in do.items():
            cf[v] = np.full(
                len(idx), value, dtype=np.int64 if self.kinds_[v] == "categorical" else float
            )
        if noise is not None:
            missing = [v for v in targets if v not in noise.columns]
            if missing:
                raise InputError(f"noise has no column for node {missing[0]!r}")
            noise = noise.reindex(idx)
            if noise[targets].isna().to_numpy().any():
                raise InputError(
                    "noise does not cover every selected row: index it by row position, "
                    "as abduct() does"
                )
        for v in targets:
            Xf = self._design(v, fact)
            Xc = self._design(v, cf)
            same = np.all(Xf == Xc, axis=1)
            if self.kinds_[v] == "categorical":
                u = (
                    noise[v].to_numpy(dtype=float)
                    if noise is not None
                    else self._midpoint(v, Xf, fact[v])
                )
                cdf = self._cdf(v, Xc)
                new = np.minimum((cdf < u[:, None]).sum(axis=1), cdf.shape[1] - 1).astype(np.int64)
                cf[v] = np.where(same, fact[v], new)
            else:
                model = self.models_[v]
                if noise is not None:
                    u = noise[v].to_numpy(dtype=float)
                    pred_c = self._predict(v, Xc)
                elif model[0] == "linear":
                    # f(x_cf) + (x - f(x)) with the intercept cancelled: fewer rounding steps.
                    u = fact[v]
                    pred_c = (Xc - Xf) @ model[1][1:]
                else:
                    # One predict call on the stacked factual and counterfactual designs.
                    both = self._predict(v, np.vstack([Xf, Xc]))
                    u = fact[v] - both[: len(idx)]
                    pred_c = both[len(idx) :]
                new = pred_c + u
                if v in self.clip:
                    lo, hi = self.clip[v]
                    new = np.clip(new, -np.inf if lo is None else lo, np.inf if hi is None else hi)
                if v in self.round:
                    new = np.round(new, self.round[v])
                # Unchanged parents -> factual value exactly (x - f + f can differ by an ulp).
                cf[v] = np.where(same, fact[v], new) if noise is None else new
        for v in list(do) + targets:
            col = src[v].to_numpy()
            if self.kinds_[v] == "categorical":
                cats = np.asarray(self.categories_[v], dtype=object)
                values = cats[cf[v]]
                try:
                    newcol = col.copy()
                    newcol[idx] = values.astype(col.dtype) if col.dtype != object else values
                except (TypeError, ValueError):
                    newcol = col.astype(object)
                    newcol[idx] = values
            else:
                newcol = col.astype(float, copy=True)
                newcol[idx] = cf[v]
            series = pd.Series(newcol, index=src.index)
            if isinstance(src[v].dtype, pd.CategoricalDtype):
                series = series.astype(src[v].dtype)
            out[v] = series
        return out

    # ------------------------------------------------------------------ reporting
    def coefficients(self) -> pd.DataFrame:
        """Coefficients of the linear mechanisms: columns ``node``, ``term``, ``coef``.

        The intercept is the term ``"(intercept)"``; a categorical parent ``p`` contributes one
        term ``"p[value]"`` per non-baseline category (drop-first, sorted order).

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"a": [0, 0, 1, 1], "x": [1.0, 2.0, 4.0, 5.0]})
        >>> SCM([("a", "x")]).fit(df).coefficients().to_dict("list")["term"]
        ['(intercept)', 'a[1]']
        """
        self._require_fitted()
        rows = []
        for v in self._order:
            model = self.models_.get(v)
            if model is None or model[0] != "linear":
                continue
            for term, c in zip([INTERCEPT] + self.terms_[v], model[1], strict=True):
                rows.append({"node": v, "term": term, "coef": float(c)})
        return pd.DataFrame(rows, columns=["node", "term", "coef"])

    def merge_nodes(self, nodes: Sequence[str], name: str) -> SCM:
        """A new, unfitted SCM in which ``nodes`` are replaced by one node ``name``.

        The merged node takes the union of their out-edges (and in-edges from outside the
        group); edges among the merged nodes disappear. Used for intersectional
        discrimination (CST spec §5, Def. 4.7): fit the result on data holding the column
        ``name`` (e.g. ``1{race = non-white ∧ gender = female}``) so the equations are
        re-estimated with that dummy.

        Parameters
        ----------
        nodes
            At least two existing nodes.
        name
            The new node's name (must not clash with another node).

        Returns
        -------
        SCM

        Examples
        --------
        >>> scm = SCM([("r", "x"), ("g", "x"), ("g", "y"), ("x", "y")])
        >>> scm.merge_nodes(["r", "g"], "rg").edges
        [('rg', 'x'), ('rg', 'y'), ('x', 'y')]
        """
        group = [str(v) for v in nodes]
        if len(set(group)) < 2:
            raise InputError(f"merge_nodes needs at least two distinct nodes, got {group}")
        for v in group:
            self._require_node(v, "merge_nodes")
        if name in self._parents and name not in group:
            raise InputError(f"merged node name {name!r} clashes with an existing node")
        edges: list[tuple[str, str]] = []
        for a, b in self.edges:
            a2 = name if a in group else a
            b2 = name if b in group else b
            if a2 == b2 or (a2, b2) in edges:
                continue
            edges.append((a2, b2))
        mech = self.mechanism
        if isinstance(mech, Mapping):
            mech = {k: m for k, m in mech.items() if k not in group}
        protected = [p for p in self.protected if p not in group]
        if any(p in group for p in self.protected):
            protected.append(name)
        return SCM(
            edges,
            mechanism=mech,
            clip={k: b for k, b in self.clip.items() if k not in group},
            round={k: d for k, d in self.round.items() if k not in group},
            categorical=self.categorical,
            protected=protected,
            kinds={k: t for k, t in self.kinds.items() if k not in group},
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe description: edges, order, mechanisms, kinds and (linear) coefficients.

        Non-finite numbers become ``None``; category values that are not JSON scalars become
        strings.

        Returns
        -------
        dict

        Examples
        --------
        >>> SCM([("a", "x")]).to_dict()["edges"]
        [['a', 'x']]
        """
        mechanisms: dict[str, str] = {}
        for v in self._order:
            if not self._parents[v]:
                mechanisms[v] = "exogenous"
            elif self._fitted and self.kinds_[v] == "categorical":
                model = self.models_[v]
                mechanisms[v] = (
                    "constant"
                    if model[0] == "constant"
                    else f"classifier:{_pipeline_name(model[1])}"
                )
            else:
                mechanisms[v] = _estimator_name(self._mechanism_for(v))
        out: dict[str, Any] = {
            "edges": [[a, b] for a, b in self.edges],
            "nodes": self.nodes,
            "topological_order": self.topological_order,
            "mechanisms": mechanisms,
            "categorical": self.categorical,
            "clip": {k: [_json_scalar(x) for x in b] for k, b in self.clip.items()},
            "round": {k: int(d) for k, d in self.round.items()},
            "protected": list(self.protected_ if self._fitted else self.protected),
            "fitted": self._fitted,
        }
        if self._fitted:
            out["kinds"] = dict(self.kinds_)
            out["categories"] = {
                k: [_json_scalar(c) for c in cats] for k, cats in self.categories_.items()
            }
            coefs: dict[str, dict[str, Any]] = {}
            for rec in self.coefficients().to_dict("records"):
                coefs.setdefault(rec["node"], {})[rec["term"]] = _json_scalar(rec["coef"])
            out["coefficients"] = coefs
        return out

    def __repr__(self) -> str:
        edges = ", ".join(f"{a}->{b}" for a, b in self.edges)
        state = "fitted" if self._fitted else "unfitted"
        return f"SCM([{edges}], mechanism={_estimator_name(self.mechanism)!r}, {state})"


def _pipeline_name(model: Any) -> str:
    steps = getattr(model, "steps", None)
    if steps:
        return "+".join(type(s[1]).__name__ for s in steps)
    return type(model).__name__
