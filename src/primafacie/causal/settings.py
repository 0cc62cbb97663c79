"""What an :class:`~primafacie.causal.scm.SCM` stores: its settings, their checks, and the
graph they describe.

:class:`SCMSettings` is one of the two parts :class:`SCM` is built from (the other is
:class:`~.counterfactuals.SCMCounterfactuals`, the abduction → action → prediction queries).
As in scikit-learn the constructor only stores its arguments; the declared constraints and the
checks that need the graph run at :meth:`SCM.fit` and name the parameter or the node.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from ..errors import InputError
from ..validation import Options, Predicate, validate_params
from .graph import DAG
from .mechanisms import MECHANISMS, is_estimator

__all__ = ["SCMSettings"]

_CATEGORICAL_MODES = ("classifier", "error")


def _is_mapping(value: Any) -> bool:
    return isinstance(value, Mapping)


def _is_list(value: Any) -> bool:
    return isinstance(value, Iterable) and not isinstance(value, (str, bytes, Mapping))


def _estimator_name(est: Any) -> str:
    if isinstance(est, str):
        return est
    return type(est).__name__


class SCMSettings:
    """The stored settings of an :class:`~primafacie.causal.scm.SCM`: constraints, checks
    against the graph, and the graph queries (nodes, order, parents, relatives).

    A part of :class:`~primafacie.causal.scm.SCM` (not used alone); it reads the attributes
    the SCM constructor stores (``edges``, ``mechanism``, ``clip``, ``round``, ``categorical``,
    ``protected``, ``kinds``) and, once fitted, ``dag_``.
    """

    #: What each parameter accepts (checked by :meth:`fit` with
    #: :func:`primafacie.validation.validate_params`). Checks that need the graph (unknown
    #: nodes, cycles, bounds in order) follow in :meth:`_validate_settings` and name the node.
    _parameter_constraints: ClassVar[dict[str, list]] = {
        "edges": [Predicate(_is_list, "a list of (parent, child) pairs")],
        "mechanism": [
            Options(*MECHANISMS),
            Predicate(is_estimator, "a scikit-learn estimator"),
            Predicate(_is_mapping, "a mapping {node: name or estimator}"),
        ],
        "clip": [None, Predicate(_is_mapping, "a mapping {node: (lo, hi)}")],
        "round": [None, Predicate(_is_mapping, "a mapping {node: decimals}")],
        "categorical": [Options(*_CATEGORICAL_MODES)],
        "protected": [None, Predicate(_is_list, "a list of node names")],
        "kinds": [None, Predicate(_is_mapping, "a mapping {node: 'numeric' or 'categorical'}")],
    }
    #: Where a user of the CLI or audit.yaml sets each parameter (quoted in messages).
    _parameter_where: ClassVar[dict[str, str]] = {
        "edges": "--edge, causal.edges",
        "mechanism": "causal.mechanism",
        "clip": "causal.clip",
        "round": "causal.round",
    }

    # ------------------------------------------------------------------ graph
    @property
    def _dag(self) -> DAG:
        # The fitted graph once fitted (the model was fitted on it); otherwise the graph of
        # the current ``edges``, rebuilt on each query because it is tiny and never stale.
        if self._fitted:
            return self.dag_
        return DAG.from_edges(self.edges)

    @property
    def nodes(self) -> list[str]:
        """Nodes in order of first appearance in ``edges``."""
        return list(self._dag.nodes)

    @property
    def topological_order(self) -> list[str]:
        """Nodes so that every parent precedes its children (stable w.r.t. ``nodes``)."""
        return list(self._dag.order)

    def parents(self, node: str) -> list[str]:
        """Parents of ``node`` in edge order."""
        dag = self._dag
        dag.require(node, "parents()")
        return list(dag.parents[node])

    def children(self, node: str) -> list[str]:
        """Children of ``node`` in edge order."""
        dag = self._dag
        dag.require(node, "children()")
        return list(dag.children[node])

    def descendants(self, node: str | Iterable[str]) -> list[str]:
        """Strict descendants of ``node`` (or of any of several nodes), in topological order."""
        return self._dag.descendants(node)

    def ancestors(self, node: str | Iterable[str]) -> list[str]:
        """Strict ancestors of ``node`` (or of any of several nodes), in topological order.

        Examples
        --------
        >>> from primafacie.causal import SCM
        >>> SCM([("a", "x"), ("x", "y"), ("b", "y")]).ancestors("y")
        ['a', 'x', 'b']
        """
        return self._dag.ancestors(node)

    # ------------------------------------------------------------------ settings
    def _check_params(self) -> None:
        """The declared constraints, one message format (called first by :meth:`fit`)."""
        params = {name: getattr(self, name) for name in self._parameter_constraints}
        validate_params("SCM", self._parameter_constraints, params, self._parameter_where)

    def _validate_settings(self, dag: DAG) -> None:
        """Check the settings against the graph, naming the node (called by :meth:`fit`)."""
        self._validate_mechanism(dag)
        for node, bounds in dict(self.clip or {}).items():
            dag.require(node, "clip")
            if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:
                raise InputError(f"clip for node {node!r} must be (lo, hi), got {bounds!r}")
            lo, hi = bounds
            for b in (lo, hi):
                if b is not None and (isinstance(b, bool) or not isinstance(b, numbers.Real)):
                    raise InputError(
                        f"clip for node {node!r} must be (lo, hi) numbers or None, got {bounds!r}"
                    )
            if lo is not None and hi is not None and lo > hi:
                raise InputError(f"clip for node {node!r}: lower bound {lo} exceeds upper {hi}")
        for node, dec in dict(self.round or {}).items():
            dag.require(node, "round")
            if not isinstance(dec, numbers.Integral) or isinstance(dec, bool):
                raise InputError(f"round for node {node!r} must be an integer, got {dec!r}")
        for node, kind in dict(self.kinds or {}).items():
            dag.require(node, "kinds")
            if kind not in ("numeric", "categorical"):
                raise InputError(
                    f"kind of node {node!r} must be 'numeric' or 'categorical', got {kind!r}"
                )
        _check_protected(dag, self._protected_list())

    def _validate_mechanism(self, dag: DAG) -> None:
        if not isinstance(self.mechanism, Mapping):
            return  # a name or an estimator: the declared constraints checked it
        for node, m in self.mechanism.items():
            dag.require(node, "mechanism")
            if not (m in MECHANISMS if isinstance(m, str) else is_estimator(m)):
                raise InputError(
                    f"mechanism for node {node!r} must be one of {list(MECHANISMS)} or a "
                    f"scikit-learn estimator, got {m!r}"
                )

    def _protected_list(self) -> list[str]:
        return [str(p) for p in (self.protected or [])]

    def _mechanism_for(self, node: str) -> Any:
        mech = self.mechanism
        if isinstance(mech, Mapping):
            return mech.get(node, "linear")
        return mech


def _check_protected(dag: DAG, protected: Iterable[str]) -> None:
    for p in protected:
        if dag.parents.get(p):
            raise InputError(
                f"edge {dag.parents[p][0]!r} -> {p!r} points into the protected attribute "
                f"{p!r}; a protected attribute must have no parents"
            )
