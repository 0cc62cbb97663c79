"""situation/planning.py: who is tested against whom, and their counterfactuals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from primafacie.data import AuditData
from primafacie.decisions import Rule
from primafacie.errors import InputError
from primafacie.situation.planning import Planner, cf_decisions


def _planner(**kw) -> Planner:
    base = dict(methods="st", k=2, attribute=None, legacy=False, ties=None,
                complainants="all", strict_k=True, reference=None)  # fmt: skip
    return Planner(**{**base, **kw})


@pytest.fixture()
def data():
    df = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0, 0.5, 1.5, 2.5, 3.5],
                       "a": [1, 1, 1, 1, 0, 0, 0, 0], "y": [0, 0, 1, 1, 1, 1, 1, 0]})  # fmt: skip
    return AuditData(df, features={"x": "numeric"}, protected={"a": 1}, decision="y")


def test_plan_rows_and_resolved_settings(data):
    plan = _planner(methods=["cst_w", "st", "cst"], k=[3, 1, 3]).plan(data, None)
    assert plan.methods == ["cst_centers", "st", "cst"] and plan.ks == [1, 3] and plan.kmax == 3
    assert plan.attribute == "a" and plan.ties == "first" and not plan.legacy
    assert plan.comp_rows.tolist() == [0, 1, 2, 3] == plan.ctrl_rows.tolist()
    assert plan.test_rows.tolist() == [4, 5, 6, 7]
    assert plan.need_cf and plan.need_centres
    assert _planner(legacy=True).plan(data, None).ties == "last"


def test_complainants_rejected_and_mask_narrow_only_the_complainants(data):
    plan = _planner(complainants="rejected").plan(data, None)
    assert plan.comp_rows.tolist() == [0, 1] and plan.ctrl_rows.tolist() == [0, 1, 2, 3]
    mask = np.array([True, False, True, False, True, True, True, True])
    assert _planner().plan(data, mask).comp_rows.tolist() == [0, 2]
    with pytest.raises(InputError, match="complainant_mask must have 8 booleans"):
        _planner().plan(data, np.ones(3, bool))


def test_strict_k_names_the_search_space_that_is_too_small(data):
    with pytest.raises(InputError, match="only 3 other protected rows"):
        _planner(k=4).plan(data, None)
    assert _planner(k=4, strict_k=False).plan(data, None).kmax == 4


def test_counterfactual_stage(data):
    assert _planner().counterfactual_stage(data, _planner().plan(data, None), None, None, None) == (
        None,
        None,
    )
    planner = _planner(methods="cst_centers")
    plan = planner.plan(data, None)
    cf = data.frame.assign(x=data.frame.x + 3.0 * data.frame.a)
    table, ycf = planner.counterfactual_stage(data, plan, None, cf, Rule("x < 2.9"))
    # centres x = 3, 4, 5, 6: none below 2.9, so b(x^CF) = 0 for every complainant
    assert table is not None and ycf.tolist() == [0, 0, 0, 0] and ycf.dtype == np.int64
    with pytest.raises(InputError, match="has 3 rows but the data have 8"):
        planner.counterfactual_stage(data, plan, None, cf.head(3), None)


def test_cf_decisions_decider_or_table_and_legacy_prefers_the_table(data):
    cf = data.frame.assign(y=[1, 1, 1, 1, 0, 0, 0, 0])
    rows = np.array([0, 1])
    rule = Rule("x < 0.5")  # row 0 only
    assert cf_decisions(data, cf, rows, rule, "cf", legacy=False).tolist() == [1, 0]
    assert cf_decisions(data, cf, rows, rule, "cf", legacy=True).tolist() == [1, 1]
    assert cf_decisions(data, cf, rows, None, "cf", legacy=False).tolist() == [1, 1]
    with pytest.raises(InputError, match="method 'cf' needs the counterfactual decision"):
        cf_decisions(data, cf.drop(columns="y"), rows, None, "cf", legacy=False)
