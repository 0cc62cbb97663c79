"""situation/search.py: search spaces, neighbour searches and the groups they give."""

from __future__ import annotations

import numpy as np
import pandas as pd

from primafacie.data import AuditData
from primafacie.situation.planning import Planner
from primafacie.situation.search import GroupSearch, group_distances, group_members


def _run(method, k, legacy=False, cf=None):
    df = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0, 0.5, 1.5, 2.5, 3.5],
                       "a": [1, 1, 1, 1, 0, 0, 0, 0], "y": [0, 0, 1, 1, 1, 1, 1, 0]})  # fmt: skip
    data = AuditData(df, features={"x": "numeric"}, protected={"a": 1}, decision="y")
    plan = Planner(methods=method, k=k, attribute=None, legacy=legacy, ties=None,
                   complainants="all", strict_k=True, reference=None).plan(data, None)  # fmt: skip
    search = GroupSearch(keep_neighbors=True, n_attributes=None, max_distance=None,
                         chunk_size=None, algorithm="auto", backend=None)  # fmt: skip
    space = search.space(data, plan, cf)
    return plan, space, search.search(data, plan, space, cf)


def test_range_scaled_space_and_lists_by_hand():
    plan, space, lists = _run(["st"], [1, 2])
    # one numeric feature of range 3.5: coordinates x / 3.5, Gower divisor 1
    assert np.allclose(space.X.num[:, 0], np.array([0, 1, 2, 3, 0.5, 1.5, 2.5, 3.5]) / 3.5)
    assert space.features == ["x"] and space.divisor == 1
    # control of row 0 (itself removed): rows 1, 2; factual test: rows 4, 5 (0.5, 1.5)
    assert lists.ctrl_list[0].tolist() == [1, 2] and lists.st_list[0].tolist() == [4, 5]
    # row 3 (x=3): test rows 7 (3.5) and 6 (2.5) tie at 0.5; the earlier row wins
    assert lists.st_list[3].tolist() == [6, 7]
    # negatives of the prefixes: control of row 0 = rows 1 (y=0), 2 (y=1) -> 1, 1
    assert lists.ctrl_counts.negatives(1)[0] == 1 and lists.ctrl_counts.negatives(2)[0] == 1
    assert lists.st_counts.sizes(2).tolist() == [2, 2, 2, 2]
    ctrl, test = group_members("st", 1, False, lists)
    assert ctrl[:, 0].tolist() == [1, 0, 1, 2] and test.shape == (4, 1)
    d_ctrl, d_test = group_distances((ctrl, test), "st", lists)
    assert d_ctrl.dtype == np.float32 and np.allclose(d_ctrl[:, 0], 1 / 3.5)
    assert np.allclose(d_test[0, 0], 0.5 / 3.5)


def test_legacy_control_lists_keep_the_complainant_and_pad_it():
    plan, _, lists = _run(["st"], [1], legacy=True)
    # legacy lists are the top k+1 protected rows, the complainant among them
    assert lists.self_pos.tolist() == [0, 0, 0, 0]
    ctrl, _ = group_members("st", 1, True, lists)
    assert (ctrl[:, 0] == -1).all()
    d_ctrl, _ = group_distances(group_members("st", 1, True, lists), "st", lists)
    assert np.isnan(d_ctrl[:, 0]).all()


def test_counterfactual_centres_use_the_factual_ranges():
    df_cf = pd.DataFrame({"x": [3.0, 4.0, 5.0, 6.0, 0.5, 1.5, 2.5, 3.5], "a": [1] * 4 + [0] * 4})
    plan, space, lists = _run(["cst"], [2], cf=df_cf)
    assert np.allclose(space.Xcf.num[:, 0], np.array([3, 4, 5, 6]) / 3.5)  # not re-fitted
    # searched at k + 1 (CST w/ reads one more); centre x = 3: 2.5 and 3.5 tie, earlier first
    assert lists.cf_list[0].tolist() == [6, 7, 5]
    assert lists.cf_counts.negatives(2).tolist() == [1, 1, 1, 1]  # row 7 is the one rejection
    assert lists.cf_counts.sizes(3).tolist() == [3, 3, 3, 3]
