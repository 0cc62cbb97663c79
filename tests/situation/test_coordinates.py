"""situation/coordinates.py: the Gower coordinates built per chunk into the spaces' matrices."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from primafacie.data import AuditData
from primafacie.errors import InputError
from primafacie.neighbors import GowerTransformer
from primafacie.neighbors.gower import GowerMatrix
from primafacie.situation.coordinates import SplitCoordinates, split_coordinates
from primafacie.situation.planning import Planner
from primafacie.situation.search import GroupSearch

FEATURES = {
    "x": "numeric",
    "z": "numeric",
    "c": "categorical",
    "e": {"ordinal": ["low", "mid", "high"]},
}


def _frame(n: int, seed: int = 0, encoded: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "x": rng.normal(size=n).round(2),
            "z": rng.integers(0, 50, n).astype(float),
            "c": rng.choice(["a", "b", "c", "d"], n),
            "e": rng.choice(["low", "mid", "high"], n),
            "p": rng.integers(0, 2, n),
            "y": rng.integers(0, 2, n),
        }
    )
    if encoded:
        frame["c"] = frame["c"].astype("category")
        frame["e"] = frame["e"].astype("category")
    return frame


def _same_bits(a: GowerMatrix, b: GowerMatrix) -> bool:
    return (
        a.num.dtype == b.num.dtype
        and a.codes.dtype == b.codes.dtype
        and a.num.tobytes() == b.num.tobytes()
        and a.codes.tobytes() == b.codes.tobytes()
        and a.levels == b.levels
        and a.layout == b.layout
    )


@pytest.mark.parametrize("chunk", [1, 7, 64, 1000])
@pytest.mark.parametrize("encoded", [False, True])
def test_chunked_parts_hold_the_bits_of_the_whole_transform(chunk, encoded):
    frame = _frame(300, encoded=encoded)
    tf = GowerTransformer(FEATURES).fit(frame)
    whole = tf.transform(frame)
    prot = frame["p"].to_numpy() == 1
    spaces = [np.flatnonzero(prot), np.flatnonzero(~prot)]
    X = split_coordinates(tf, frame, spaces, chunk=chunk)
    assert isinstance(X, SplitCoordinates) and len(X) == 300 and X.shape == whole.shape
    for rows, part in zip(spaces, X.parts, strict=True):
        assert _same_bits(part, whole[rows])
    # the whole matrix, assembled, and any rows of it: the same bits
    assert X.num.tobytes() == whole.num.tobytes() and X.codes.tobytes() == whole.codes.tobytes()
    pick = np.random.default_rng(1).choice(300, 50, replace=False)
    assert _same_bits(X[pick], whole[pick])
    assert _same_bits(X[np.sort(pick)], whole[np.sort(pick)])
    assert _same_bits(X[prot], whole[prot])


def test_a_space_is_its_part_itself_and_a_subset_is_gathered():
    frame = _frame(50)
    tf = GowerTransformer(FEATURES).fit(frame)
    spaces = [np.arange(0, 50, 2), np.arange(1, 50, 2)]
    X = split_coordinates(tf, frame, spaces, chunk=8)
    assert X[spaces[0]] is X.parts[0] and X[spaces[1]] is X.parts[1]
    sub = X[spaces[0][3:9]]
    assert sub is not X.parts[0] and _same_bits(sub, tf.transform(frame)[spaces[0][3:9]])
    with pytest.raises(IndexError, match="row 50"):
        X[np.array([1, 50])]


def test_the_transform_runs_a_chunk_at_a_time(monkeypatch):
    frame = _frame(1000)
    tf = GowerTransformer(FEATURES).fit(frame)
    seen = []
    original = GowerTransformer.transform

    def spy(self, rows):
        seen.append(len(rows))
        return original(self, rows)

    monkeypatch.setattr(GowerTransformer, "transform", spy)
    split_coordinates(tf, frame, [np.arange(0, 400), np.arange(400, 1000)], chunk=128)
    assert max(seen) == 128 and sum(seen) == 1000


def test_a_bad_value_gives_the_whole_tables_message():
    frame = _frame(40)
    tf = GowerTransformer(FEATURES).fit(frame)
    frame.loc[[13, 33], "x"] = np.inf  # in two chunks of 10: counted and placed over all rows
    with pytest.raises(InputError) as whole:
        tf.transform(frame)
    with pytest.raises(InputError) as chunked:
        split_coordinates(tf, frame, [np.arange(20), np.arange(20, 40)], chunk=10)
    assert str(chunked.value) == str(whole.value)
    assert "2 infinite value(s) (first at row 13)" in str(chunked.value)


def _plan_and_space(frame: pd.DataFrame, legacy: bool = False):
    data = AuditData(frame, features=FEATURES, protected={"p": 1}, decision="y")
    plan = Planner(methods=["st"], k=[3], attribute=None, legacy=legacy, ties=None,
                   complainants="all", strict_k=True, reference=None).plan(data, None)  # fmt: skip
    search = GroupSearch(keep_neighbors=True, n_attributes=None, max_distance=None,
                         chunk_size=None, algorithm="auto", backend=None)  # fmt: skip
    return data, plan, search, search.space(data, plan, None)


@pytest.mark.parametrize("legacy", [False, True])
def test_group_search_space_is_split_and_equals_the_whole_transform(legacy):
    data, plan, search, space = _plan_and_space(_frame(200), legacy)
    assert isinstance(space.X, SplitCoordinates)
    whole = space.transformer.transform(data.frame)
    assert _same_bits(space.X[plan.ctrl_rows], whole[plan.ctrl_rows])
    assert _same_bits(space.X[plan.test_rows], whole[plan.test_rows])
    lists = search.search(data, plan, space, None)
    # the lists equal those searched in the one whole matrix
    from dataclasses import replace

    again = search.search(data, plan, replace(space, X=whole), None)
    assert np.array_equal(lists.ctrl_list, again.ctrl_list)
    assert np.array_equal(lists.st_list, again.st_list)
    assert np.array_equal(lists.ctrl_dist, again.ctrl_dist)
