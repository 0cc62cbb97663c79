"""``ll144.analysis``: what the audit hands the engine (selected or a score)."""

from __future__ import annotations

import numpy as np
import pytest

from primafacie.analysis import Context
from primafacie.data import AuditData
from primafacie.errors import InputError
from primafacie.ll144.analysis import inputs, run
from primafacie.ll144.spec import LL144Spec

from .test_engine import hiring


def _data():
    df = hiring().assign(points=[(3 * i) % 17 for i in range(200)], note="x")
    return AuditData(df, features={}, protected={}, decision="sel", favorable=1)


def test_inputs_by_score_setting():
    data = _data()
    spec = LL144Spec(categories={"sex": "sex"})
    selected, score = inputs(spec, data)
    assert score is None and selected.tolist() == hiring()["sel"].tolist()
    # score: true reads the column a decision: {score, threshold} thresholds, not the 0/1 decision
    _, score = inputs(spec.model_copy(update={"score": True}), data, "points")
    assert score.dtype == float and score.tolist() == [(3 * i) % 17 for i in range(200)]
    with pytest.raises(InputError, match=r"decision: \{score: COLUMN, threshold: T\}"):
        inputs(spec.model_copy(update={"score": True}), data)
    _, score = inputs(spec.model_copy(update={"score": "points"}), data)
    assert np.array_equal(score, data.frame["points"].to_numpy(float))
    with pytest.raises(InputError, match="'nope' is not in the data"):
        inputs(spec.model_copy(update={"score": "nope"}), data)
    with pytest.raises(InputError, match="'note' is not numeric"):
        inputs(spec.model_copy(update={"score": "note"}), data)


def test_run_outside_an_audit_has_no_configuration():
    out = run(LL144Spec(categories={"sex": "sex"}), Context(config=None, data=_data()))
    assert out.results and "sex" in out.headline
