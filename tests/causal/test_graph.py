"""Tests for primafacie.causal.graph: parsing, stable order, named cycles, relatives, merging."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from primafacie.causal.graph import (
    DAG,
    ancestors,
    children_of,
    descendants,
    find_cycle,
    merge_nodes,
    nodes_of,
    parents_of,
    parse_edges,
    topological_order,
)
from primafacie.errors import InputError

DIAMOND = [("b", "c"), ("a", "b"), ("a", "c"), ("c", "d")]


def test_parse_edges_accepts_lists_tuples_and_numpy_rows():
    assert parse_edges([["a", "x"], ("x", "y")]) == [("a", "x"), ("x", "y")]
    assert parse_edges(np.array([["a", "x"], ["x", "y"]])) == [("a", "x"), ("x", "y")]
    assert parse_edges([(1, 2)]) == [("1", "2")]  # names are strings


@pytest.mark.parametrize(
    "edges, message",
    [
        (None, "edges must be a list of (parent, child) pairs, got None"),
        ("ax", "edges must be a list of (parent, child) pairs, got 'ax'"),
        ([], "the causal graph needs at least one edge"),
        ([("a", "b", "c")], "an edge must be a (parent, child) pair, got ('a', 'b', 'c')"),
        ([7], "an edge must be a (parent, child) pair, got 7"),
        (["ab"], "an edge must be a (parent, child) pair, got 'ab'"),
        ([("x", "x")], "self-loop on node 'x': an edge cannot point from a node to itself"),
        ([("a", "b"), ["a", "b"]], "edge 'a' -> 'b' is listed twice"),
    ],
)
def test_parse_edges_errors_say_what_is_wrong(edges, message):
    with pytest.raises(InputError) as err:
        parse_edges(edges)
    assert str(err.value) == message


def test_nodes_parents_children_in_edge_order():
    assert nodes_of(DIAMOND) == ["b", "c", "a", "d"]
    assert parents_of(DIAMOND) == {"b": ["a"], "c": ["b", "a"], "a": [], "d": ["c"]}
    assert children_of(DIAMOND) == {"b": ["c"], "c": ["d"], "a": ["b", "c"], "d": []}


def test_topological_order_is_stable():
    assert topological_order(DIAMOND) == ["a", "b", "c", "d"]
    # Ties go to the earliest-listed node: c and b are both roots, c is listed first.
    assert topological_order([("c", "a"), ("b", "a")]) == ["c", "b", "a"]
    # A node that becomes ready later still yields to an earlier-listed ready node.
    assert topological_order([("z", "y"), ("x", "w"), ("y", "w")]) == ["z", "y", "x", "w"]


def test_cycle_message_names_the_cycle():
    with pytest.raises(InputError) as err:
        topological_order([("a", "b"), ("b", "c"), ("c", "d"), ("d", "b")])
    assert str(err.value) == "the causal graph has a cycle: b -> c -> d -> b"


def test_cycle_starts_at_its_earliest_listed_node_in_edge_direction():
    edges = [("d", "b"), ("b", "c"), ("c", "d")]
    with pytest.raises(InputError, match=r"^the causal graph has a cycle: d -> b -> c -> d$"):
        topological_order(edges)
    assert find_cycle(edges, ["b", "c", "d"]) == ["d", "b", "c"]
    assert find_cycle([("p", "q"), ("q", "p")], ["q", "p"]) == ["p", "q"]


def test_cycle_downstream_of_a_dag_part():
    with pytest.raises(InputError, match="cycle: x -> y -> x"):
        DAG.from_edges([("root", "x"), ("x", "y"), ("y", "x"), ("y", "z")])


def test_descendants_and_ancestors_strict_in_topological_order():
    assert descendants(DIAMOND, "a") == ["b", "c", "d"]
    assert descendants(DIAMOND, "c") == ["d"]
    assert descendants(DIAMOND, "d") == []
    assert descendants(DIAMOND, ["b", "c"]) == ["d"]  # starts are not their own descendants
    assert ancestors(DIAMOND, "d") == ["a", "b", "c"]
    assert ancestors(DIAMOND, "b") == ["a"]
    assert ancestors(DIAMOND, ["a", "c"]) == ["b"]


def test_relatives_of_unknown_node():
    with pytest.raises(InputError) as err:
        descendants(DIAMOND, "zz")
    assert str(err.value) == "unknown node 'zz' in descendants(); the graph's nodes are: b, c, a, d"


def test_merge_nodes_unions_edges_and_drops_inner_ones():
    edges = [("z", "r"), ("r", "x"), ("g", "x"), ("g", "y"), ("r", "g"), ("x", "y")]
    assert merge_nodes(edges, ["r", "g"], "rg") == [
        ("z", "rg"),  # in-edge from outside the group
        ("rg", "x"),  # r -> x and g -> x kept once
        ("rg", "y"),
        ("x", "y"),
    ]  # r -> g, inside the group, is gone


@pytest.mark.parametrize(
    "group, name, match",
    [
        (["r", "r"], "m", "at least two distinct nodes"),
        (["r", "q"], "m", "unknown node 'q' in merge_nodes"),
        (["r", "g"], "x", "merged node name 'x' clashes"),
    ],
)
def test_merge_nodes_errors(group, name, match):
    with pytest.raises(InputError, match=match):
        merge_nodes([("r", "x"), ("g", "x")], group, name)


def test_merge_into_a_group_members_name_is_allowed():
    assert merge_nodes([("r", "x"), ("g", "x")], ["r", "g"], "r") == [("r", "x")]


def test_dag_bundles_the_maps_and_is_frozen():
    dag = DAG.from_edges([["a", "x"], ["x", "y"]])
    assert dag.edges == [("a", "x"), ("x", "y")]
    assert (dag.nodes, dag.order) == (["a", "x", "y"], ["a", "x", "y"])
    assert dag.parents == {"a": [], "x": ["a"], "y": ["x"]}
    with pytest.raises(dataclasses.FrozenInstanceError):
        dag.order = []  # type: ignore[misc]
    with pytest.raises(InputError, match="unknown node 'q' in clip"):
        dag.require("q", "clip")
