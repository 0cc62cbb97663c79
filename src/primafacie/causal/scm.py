"""The structural causal model: settings, fit, and the abduction → action → prediction loop.

An :class:`SCM` holds a DAG over columns of a table (:mod:`.graph`) and one mechanism per
node with parents (:mod:`.mechanisms`). Numeric nodes follow ``X_j = f_j(pa_j) + U_j``
(additive noise, Pearl's three steps with the residual as the abducted noise, as in CST spec
§3 D3 and the paper's Appendix A); categorical nodes follow a classifier and are abducted by
the inverse-CDF rule of :class:`~.mechanisms.CategoricalCDF`. Mechanisms are fitted once on
the factual data and never refitted on counterfactual data.

:class:`SCM` is built from two parts, one job each: :class:`~.settings.SCMSettings` (the stored
settings, their checks and the graph queries) and :class:`~.counterfactuals.SCMCounterfactuals`
(abduction, action, prediction). This module holds the constructor, ``fit`` and the
descriptions of the fitted model (coefficients, ``to_dict``, merged graphs).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import pandas as pd

from ..data import AuditData, to_pandas
from ..errors import InputError
from ..jsonsafe import json_safe
from . import encoding, fitting
from .counterfactuals import SCMCounterfactuals
from .graph import DAG
from .graph import merge_nodes as merge_edges
from .mechanisms import (
    MECHANISMS,
    CategoricalCDF,
    EstimatorANM,
    LinearANM,
    Mechanism,
)
from .settings import SCMSettings, _check_protected, _estimator_name

__all__ = ["INTERCEPT", "MECHANISMS", "SCM"]

INTERCEPT = "(intercept)"


class SCM(SCMSettings, SCMCounterfactuals):
    """A structural causal model over columns of a table, with additive-noise mechanisms.

    Each node with parents gets a structural equation fitted on the factual data; nodes
    without parents are exogenous. Counterfactuals follow Pearl's three steps, vectorised
    over rows: abduction ``û_j = x_j − f_j(pa_j)``, action ``do(A := a)``, prediction
    ``x_j^CF = f_j(pa_j^CF) + û_j`` for every descendant of the intervened nodes in
    topological order (CST spec §3 D3; paper Appendix A).

    As in scikit-learn, the constructor only stores its arguments; they are validated by
    :meth:`fit` (the graph also by the graph queries such as :attr:`topological_order`).

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
        ``LogisticRegression``). See :mod:`primafacie.causal.mechanisms`.
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
    mechanisms_ : dict of str to Mechanism
        After :meth:`fit`: the fitted mechanism of every node with parents.
    kinds_, categories_, protected_, terms_ : dict, dict, list, dict
        After :meth:`fit`: each node's kind, each categorical node's category order, the
        protected attributes used, and each mechanism's design column names.

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
        # A one-shot iterator (a generator) is read once here, or the graph could not be
        # read again; anything else is stored as given and checked at fit.
        self.edges = list(edges) if isinstance(edges, Iterator) else edges
        self.mechanism = mechanism
        self.clip = clip
        self.round = round
        self.categorical = categorical
        self.protected = protected
        self.kinds = kinds
        self._fitted = False

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
        self.dag_.require(node, "categories()")
        if self.kinds_[node] != "categorical":
            raise InputError(f"node {node!r} is numeric; it has no categories")
        return list(self.categories_[node])

    @property
    def is_fitted(self) -> bool:
        """Whether :meth:`fit` has run."""
        return self._fitted

    @property
    def models_(self) -> dict[str, tuple]:
        """Deprecated: the fitted mechanisms as the tagged tuples of primafacie 0.1.

        ``("linear", coef)``, ``("estimator", model)``, ``("classifier", model, n_cat)`` or
        ``("constant", code, n_cat)``. Use :attr:`mechanisms_` instead.
        """
        warnings.warn(
            "SCM.models_ is deprecated and will be removed in the next release; use "
            "SCM.mechanisms_ (Mechanism objects with fit/noise/evaluate)",
            DeprecationWarning,
            stacklevel=2,
        )
        self._require_fitted()
        out: dict[str, tuple] = {}
        for v, mech in self.mechanisms_.items():
            if isinstance(mech, LinearANM):
                out[v] = ("linear", mech.coef_)
            elif isinstance(mech, EstimatorANM):
                out[v] = ("estimator", mech.estimator_)
            elif isinstance(mech, CategoricalCDF) and mech.classifier_ is None:
                out[v] = ("constant", mech.constant_, mech.n_categories)
            elif isinstance(mech, CategoricalCDF):
                out[v] = ("classifier", mech.classifier_, mech.n_categories)
        return out

    # ------------------------------------------------------------------ fit
    def fit(self, data: AuditData | Any, backend: Any = None) -> SCM:
        """Validate the settings and fit every structural equation on the factual data.

        Each node's equation is fitted with BLAS and OpenMP held to one thread, so the fitted
        model has the same bits on every machine (:mod:`.fitting`).

        Parameters
        ----------
        data
            :class:`~primafacie.data.AuditData` or a table (pandas/polars/pyarrow) holding one
            column per node.
        backend
            Where the nodes' equations are fitted: ``None`` (the default) one after another in
            this thread; a :class:`~primafacie.compute.Backend` (or what
            :func:`~primafacie.compute.get_backend` accepts) fits them in parallel, locally on
            its threads, on Dask as one task per node on the workers (each sent only its
            parents' and its own columns; the designs and class probabilities are never built
            here). The fitted mechanisms are the same bits whichever is used.

        Returns
        -------
        SCM
            ``self``, fitted.

        Raises
        ------
        InputError
            A bad graph (cycle, self-loop, duplicate edge) or setting, a node that is not a
            column or has missing values, an edge into a protected attribute, or a
            categorical node with parents while ``categorical="error"``.

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"g": ["f", "m", "f", "m"], "s": [1.0, 3.0, 2.0, 4.0]})
        >>> SCM([("g", "s")]).fit(df).coefficients()["term"].tolist()
        ['(intercept)', 'g[m]']
        """
        self._fitted = False  # a failed refit must not leave a half-updated model usable
        self._check_params()
        dag = DAG.from_edges(self.edges)
        self._validate_settings(dag)
        if isinstance(data, AuditData):
            frame, features = data.frame, data.features
            protected = list(dict.fromkeys(self._protected_list() + list(data.protected)))
        else:
            frame, features, protected = to_pandas(data), {}, self._protected_list()
        _check_protected(dag, protected)
        kinds, categories = self._kinds(dag, frame, features)
        self.dag_ = dag
        self.kinds_ = kinds
        self.categories_ = categories
        self.protected_ = protected
        self.clip_ = dict(self.clip or {})
        self.round_ = dict(self.round or {})
        self.terms_: dict[str, list[str]] = {
            v: encoding.terms(dag.parents[v], categories) for v in dag.order if dag.parents[v]
        }
        if backend is not None:
            from ..compute import get_backend

            backend = get_backend(backend)
        vals = self._fit_columns(frame, dag, backend is not None and backend.kind == "dask")
        tasks = fitting.node_tasks(
            dag.order, dag.parents, kinds, categories, self._mechanism_for, vals
        )
        del vals  # the tasks hold the columns they need
        self.mechanisms_: dict[str, Mechanism] = fitting.fit_nodes(tasks, backend)
        self._fitted = True
        return self

    def _fit_columns(self, frame: pd.DataFrame, dag: DAG, compact: bool) -> dict[str, Any]:
        """Each node's factual codes or floats. With ``compact`` (the columns are sent to Dask
        workers) codes take one byte per row, narrowed one column at a time so that at most
        one column's int64 codes are held at once."""
        out = {}
        for v in dag.nodes:
            x = self._factual(frame, v, None)
            if compact and v in self.categories_:
                x = fitting.compact_codes(x, len(self.categories_[v]))
            out[v] = x
        return out

    def _kinds(
        self, dag: DAG, frame: pd.DataFrame, features: Mapping[str, Any]
    ) -> tuple[dict[str, str], dict[str, list]]:
        """Each node's kind and each categorical node's category order, checking the data."""
        missing = [v for v in dag.nodes if v not in frame.columns]
        if missing:
            raise InputError(
                f"unknown node {missing[0]!r}: not a column of the data; columns are: "
                f"{', '.join(map(str, frame.columns))}"
            )
        if len(frame) < 2:
            raise InputError("an SCM needs at least two rows to fit")
        kinds, categories = encoding.infer_kinds(dag.nodes, frame, features, self.kinds or {})
        for v in dag.nodes:
            if dag.parents[v] and kinds[v] == "categorical" and self.categorical == "error":
                raise InputError(
                    f"node {v!r} is categorical and has parents {dag.parents[v]}; additive-noise "
                    "abduction does not apply (CST spec §8.6). Use categorical='classifier' or "
                    "declare it numeric"
                )
        return kinds, categories

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
        for v, mech in self.mechanisms_.items():
            if not isinstance(mech, LinearANM):
                continue
            for term, c in zip([INTERCEPT] + self.terms_[v], mech.coef_, strict=True):
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
        edges = merge_edges(self._dag.edges, group, name)

        def keep(setting: Any) -> Any:
            return {k: x for k, x in dict(setting or {}).items() if k not in group}

        mech = self.mechanism
        if isinstance(mech, Mapping):
            mech = keep(mech)
        protected = [p for p in self._protected_list() if p not in group]
        if any(p in group for p in self._protected_list()):
            protected.append(name)
        return SCM(
            edges,
            mechanism=mech,
            clip=keep(self.clip),
            round=keep(self.round),
            categorical=self.categorical,
            protected=protected,
            kinds=keep(self.kinds),
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe description: edges, order, mechanisms, kinds and (linear) coefficients.

        Numbers follow :func:`primafacie.jsonsafe.json_safe` (NaN becomes ``None``, ±inf the
        strings ``"inf"``/``"-inf"``); values without a JSON form become strings.

        Returns
        -------
        dict

        Examples
        --------
        >>> SCM([("a", "x")]).to_dict()["edges"]
        [['a', 'x']]
        """
        dag = self._dag
        mechanisms: dict[str, str] = {}
        for v in dag.order:
            if not dag.parents[v]:
                mechanisms[v] = "exogenous"
            elif self._fitted:
                mechanisms[v] = self.mechanisms_[v].label
            else:
                mechanisms[v] = _estimator_name(self._mechanism_for(v))
        clip = self.clip_ if self._fitted else dict(self.clip or {})
        rounding = self.round_ if self._fitted else dict(self.round or {})
        out: dict[str, Any] = {
            "edges": [list(e) for e in dag.edges],
            "nodes": list(dag.nodes),
            "topological_order": list(dag.order),
            "mechanisms": mechanisms,
            "categorical": self.categorical,
            "clip": {k: list(b) for k, b in clip.items()},
            "round": dict(rounding),
            "protected": list(self.protected_ if self._fitted else self._protected_list()),
            "fitted": self._fitted,
        }
        if self._fitted:
            out["kinds"] = dict(self.kinds_)
            out["categories"] = dict(self.categories_)
            coefs: dict[str, dict[str, Any]] = {}
            for rec in self.coefficients().to_dict("records"):
                coefs.setdefault(rec["node"], {})[rec["term"]] = rec["coef"]
            out["coefficients"] = coefs
        return json_safe(out)

    def __repr__(self) -> str:
        try:
            edges = ", ".join(f"{a}->{b}" for a, b in DAG.from_edges(self.edges).edges)
        except InputError:  # repr must work on any stored settings, even invalid ones
            edges = repr(self.edges)
        state = "fitted" if self._fitted else "unfitted"
        return f"SCM([{edges}], mechanism={_estimator_name(self.mechanism)!r}, {state})"
