"""The causal graph: pure functions on edge lists (parse, order, cycles, relatives, merging).

Every function takes the edges as ``(parent, child)`` pairs and never mutates them. Orders
are deterministic: nodes are listed in order of first appearance in the edges, and the
topological order is Kahn's algorithm always taking the earliest-listed ready node, so the
same edges always give the same order (and the same counterfactual loop).
:class:`DAG` bundles the derived maps once for callers that query the graph often.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InputError

__all__ = [
    "DAG",
    "Edge",
    "ancestors",
    "children_of",
    "descendants",
    "find_cycle",
    "merge_nodes",
    "nodes_of",
    "parents_of",
    "parse_edges",
    "topological_order",
]

Edge = tuple[str, str]


def parse_edges(edges: Any) -> list[Edge]:
    """Validate edges and return them as ``(str, str)`` tuples, in the given order.

    Parameters
    ----------
    edges
        An iterable of ``(parent, child)`` pairs.

    Returns
    -------
    list of tuple
        The edges as string pairs.

    Raises
    ------
    InputError
        Not an iterable of pairs, a self-loop, an edge listed twice, or no edge at all.

    Examples
    --------
    >>> parse_edges([["a", "x"], ("x", "y")])
    [('a', 'x'), ('x', 'y')]
    """
    if isinstance(edges, (str, bytes)) or not isinstance(edges, Iterable):
        raise InputError(f"edges must be a list of (parent, child) pairs, got {edges!r}")
    out: list[Edge] = []
    seen: set[Edge] = set()
    for edge in edges:
        # Any sized pair will do (a tuple, a YAML list, a numpy row), but not a string.
        if isinstance(edge, (str, bytes)) or not hasattr(edge, "__len__") or len(edge) != 2:
            raise InputError(f"an edge must be a (parent, child) pair, got {edge!r}")
        a, b = str(edge[0]), str(edge[1])
        if a == b:
            raise InputError(f"self-loop on node {a!r}: an edge cannot point from a node to itself")
        if (a, b) in seen:
            raise InputError(f"edge {a!r} -> {b!r} is listed twice")
        seen.add((a, b))
        out.append((a, b))
    if not out:
        raise InputError("the causal graph needs at least one edge")
    return out


def nodes_of(edges: Sequence[Edge]) -> list[str]:
    """Nodes in order of first appearance in ``edges``.

    Examples
    --------
    >>> nodes_of([("b", "c"), ("a", "b")])
    ['b', 'c', 'a']
    """
    return list(dict.fromkeys(v for edge in edges for v in edge))


def parents_of(edges: Sequence[Edge]) -> dict[str, list[str]]:
    """``{node: parents in edge order}`` for every node (exogenous nodes map to ``[]``).

    Examples
    --------
    >>> parents_of([("a", "x"), ("b", "x")])
    {'a': [], 'x': ['a', 'b'], 'b': []}
    """
    out: dict[str, list[str]] = {v: [] for v in nodes_of(edges)}
    for a, b in edges:
        out[b].append(a)
    return out


def children_of(edges: Sequence[Edge]) -> dict[str, list[str]]:
    """``{node: children in edge order}`` for every node.

    Examples
    --------
    >>> children_of([("a", "x"), ("a", "y")])
    {'a': ['x', 'y'], 'x': [], 'y': []}
    """
    out: dict[str, list[str]] = {v: [] for v in nodes_of(edges)}
    for a, b in edges:
        out[a].append(b)
    return out


def topological_order(edges: Sequence[Edge]) -> list[str]:
    """Every parent before its children; ties broken by first appearance in ``edges``.

    Parameters
    ----------
    edges
        ``(parent, child)`` pairs, e.g. from :func:`parse_edges`.

    Returns
    -------
    list of str

    Raises
    ------
    InputError
        The graph has a cycle; the message names one, e.g. ``b -> c -> b``.

    Examples
    --------
    >>> topological_order([("b", "c"), ("a", "b"), ("a", "c"), ("c", "d")])
    ['a', 'b', 'c', 'd']
    """
    nodes = nodes_of(edges)
    rank = {v: i for i, v in enumerate(nodes)}
    parents, children = parents_of(edges), children_of(edges)
    indeg = {v: len(parents[v]) for v in nodes}
    order: list[str] = []
    ready = [v for v in nodes if indeg[v] == 0]
    while ready:
        v = ready.pop(0)
        order.append(v)
        for c in children[v]:
            indeg[c] -= 1
            if indeg[c] == 0:
                ready.append(c)
        ready.sort(key=rank.__getitem__)
    if len(order) != len(nodes):
        cycle = find_cycle(edges, [v for v in nodes if v not in set(order)])
        raise InputError("the causal graph has a cycle: " + " -> ".join(cycle + [cycle[0]]))
    return order


def find_cycle(edges: Sequence[Edge], remaining: Sequence[str]) -> list[str]:
    """One cycle among ``remaining``, the nodes Kahn's algorithm could not order.

    The cycle is given in edge direction and starts at its earliest-listed node.

    Examples
    --------
    >>> find_cycle([("a", "b"), ("b", "c"), ("c", "b")], ["b", "c"])
    ['b', 'c']
    """
    rem = set(remaining)
    parents = parents_of(edges)
    rank = {v: i for i, v in enumerate(nodes_of(edges))}
    # Every node left after Kahn's algorithm has a parent inside ``rem``; walking parents
    # must therefore revisit a node, and the walk between the two visits is a cycle.
    v = remaining[0]
    path: list[str] = []
    while v not in path:
        path.append(v)
        v = next(p for p in parents[v] if p in rem)
    cycle = path[path.index(v) :]
    cycle.reverse()  # parents were walked backwards; report in edge direction
    first = min(range(len(cycle)), key=lambda i: rank[cycle[i]])
    return cycle[first:] + cycle[:first]


def _reach(adjacency: dict[str, list[str]], start: Iterable[str]) -> set[str]:
    found: set[str] = set()
    stack = list(start)
    while stack:
        for c in adjacency[stack.pop()]:
            if c not in found:
                found.add(c)
                stack.append(c)
    return found


def _require(nodes: Sequence[str], node: str, where: str) -> None:
    if node not in nodes:
        raise InputError(
            f"unknown node {node!r} in {where}; the graph's nodes are: {', '.join(nodes)}"
        )


def descendants(edges: Sequence[Edge], start: str | Iterable[str]) -> list[str]:
    """Strict descendants of ``start`` (a node or several), in topological order.

    Examples
    --------
    >>> descendants([("a", "b"), ("b", "c"), ("d", "c")], "a")
    ['b', 'c']
    """
    return DAG.from_edges(edges).descendants(start)


def ancestors(edges: Sequence[Edge], start: str | Iterable[str]) -> list[str]:
    """Strict ancestors of ``start`` (a node or several), in topological order.

    Examples
    --------
    >>> ancestors([("a", "b"), ("b", "c"), ("d", "c")], "c")
    ['a', 'b', 'd']
    """
    return DAG.from_edges(edges).ancestors(start)


def merge_nodes(edges: Sequence[Edge], group: Sequence[str], name: str) -> list[Edge]:
    """Edges with the nodes of ``group`` replaced by one node ``name``.

    The merged node takes the union of the group's out-edges (and in-edges from outside the
    group); edges inside the group disappear; duplicates are kept once, at first appearance.

    Parameters
    ----------
    edges
        ``(parent, child)`` pairs.
    group
        At least two distinct existing nodes.
    name
        The merged node (must not clash with a node outside the group).

    Returns
    -------
    list of tuple

    Examples
    --------
    >>> merge_nodes([("r", "x"), ("g", "x"), ("g", "y"), ("x", "y")], ["r", "g"], "rg")
    [('rg', 'x'), ('rg', 'y'), ('x', 'y')]
    """
    group = [str(v) for v in group]
    if len(set(group)) < 2:
        raise InputError(f"merge_nodes needs at least two distinct nodes, got {group}")
    nodes = nodes_of(edges)
    for v in group:
        _require(nodes, v, "merge_nodes")
    if name in nodes and name not in group:
        raise InputError(f"merged node name {name!r} clashes with an existing node")
    out: list[Edge] = []
    for a, b in edges:
        a2 = name if a in group else a
        b2 = name if b in group else b
        if a2 != b2 and (a2, b2) not in out:
            out.append((a2, b2))
    return out


@dataclass(frozen=True)
class DAG:
    """A validated DAG with its derived maps computed once.

    Attributes
    ----------
    edges : list of tuple
        The ``(parent, child)`` pairs, as strings, in the given order.
    nodes : list of str
        Nodes in order of first appearance.
    parents, children : dict
        ``{node: [...]}`` in edge order.
    order : list of str
        The stable topological order of :func:`topological_order`.

    Examples
    --------
    >>> dag = DAG.from_edges([("a", "x"), ("x", "y")])
    >>> dag.order, dag.parents["y"], dag.descendants("a")
    (['a', 'x', 'y'], ['x'], ['x', 'y'])
    """

    edges: list[Edge]
    nodes: list[str]
    parents: dict[str, list[str]]
    children: dict[str, list[str]]
    order: list[str]

    @classmethod
    def from_edges(cls, edges: Any) -> DAG:
        """Parse and validate ``edges`` (see :func:`parse_edges`) and derive the maps."""
        parsed = parse_edges(edges)
        return cls(
            edges=parsed,
            nodes=nodes_of(parsed),
            parents=parents_of(parsed),
            children=children_of(parsed),
            order=topological_order(parsed),
        )

    def require(self, node: str, where: str) -> None:
        """Raise :class:`InputError` naming ``where`` unless ``node`` is in the graph."""
        _require(self.nodes, node, where)

    def _start(self, start: str | Iterable[str], where: str) -> list[str]:
        nodes = [start] if isinstance(start, str) else list(start)
        for v in nodes:
            self.require(v, where)
        return nodes

    def descendants(self, start: str | Iterable[str]) -> list[str]:
        """Strict descendants of ``start``, in topological order."""
        nodes = self._start(start, "descendants()")
        found = _reach(self.children, nodes)
        return [v for v in self.order if v in found and v not in nodes]

    def ancestors(self, start: str | Iterable[str]) -> list[str]:
        """Strict ancestors of ``start``, in topological order."""
        nodes = self._start(start, "ancestors()")
        found = _reach(self.parents, nodes)
        return [v for v in self.order if v in found and v not in nodes]
