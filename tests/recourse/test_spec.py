"""``analyses.recourse`` (src/primafacie/recourse/spec.py): the engine's constraints reused, and
the one config -> engine mapping."""

from __future__ import annotations

import pandas as pd
import pytest
from pydantic import ValidationError

from primafacie.analysis import Context
from primafacie.data import AuditData
from primafacie.decisions import Rule
from primafacie.errors import InputError
from primafacie.params import by_name
from primafacie.recourse import RecourseFairness
from primafacie.recourse.params import PARAMS
from primafacie.recourse.spec import RecourseSpec

_P = by_name(PARAMS)


def frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "g": ["a", "b"] * 30,
            "r": ["x", "y", "z"] * 20,
            "edu": ["lo", "mid", "hi"] * 20,
            "income": [float(i) for i in range(60)],
            "n": [1, 2] * 30,
        }
    )


FEATURES = {"edu": {"ordinal": ["lo", "mid", "hi"]}, "income": "numeric", "n": "numeric"}


@pytest.mark.parametrize(
    "key,value",
    [
        ("support", 1.5),
        ("support", 0.0),
        ("phi", [0.3, 1.2]),
        ("phi", []),
        ("metrics", ["EE", "XX"]),
        ("top", 0),
        ("feature_weights", {"edu": -1.0}),
    ],
)
def test_keys_are_refused_with_the_engine_message(key, value):
    """The config says what the engine says: same constraint, same words, same flag and key
    (both derived from the one declaration in recourse/params.py)."""
    with pytest.raises(ValidationError) as cfg_err:
        RecourseSpec(**{key: value})
    text = cfg_err.value.errors()[0]["msg"].removeprefix("Value error, ")
    assert text.startswith(f"{key} must be ")
    assert text.endswith(f"; got {value!r} ({_P[key].flag}, analyses.recourse.{key})")
    # the same constraint refuses the value in the engine (run/evaluate or the constructor)
    with pytest.raises(InputError) as eng_err:
        if key in ("phi", "metrics"):
            RecourseFairness(Rule("edu == 'hi'"), protected="g").run(frame(), **{key: value})
        elif key == "top":
            RecourseFairness(Rule("edu == 'hi'"), protected="g")._validate_run(top=value)
        else:
            RecourseFairness(Rule("edu == 'hi'"), protected="g", **{key: value})._validate_params()
    assert str(eng_err.value).removeprefix("RecourseFairness: ") == text


def test_scalar_phi_and_defaults():
    assert RecourseSpec(phi=0.5).phi == [0.5]
    spec = RecourseSpec()
    assert (spec.support, spec.phi, spec.metrics, spec.top) == (0.01, [0.3, 0.7], "all", 10)
    assert spec.run_kwargs() == {"phi": [0.3, 0.7], "budgets": "auto", "metrics": "all"}
    assert RecourseSpec(metrics=["ee", "KS"]).metrics == ["ee", "KS"]  # aliases accepted


def test_build_maps_every_key():
    data = AuditData(frame(), features=FEATURES, protected={"g": "b", "r": "z"})
    ctx = Context(config=None, data=data, decider=Rule("edu == 'hi'"))
    spec = RecourseSpec(support=0.2, feature_weights={"edu": 2}, immutable=["n"],
                        monotone=["edu"], bins={"n": [0, 1.5, 3]}, protected="r")  # fmt: skip
    audit = spec.build(data, ctx)
    assert isinstance(audit, RecourseFairness) and audit.model is ctx.decider
    assert (audit.protected, audit.support, audit.favorable) == ("r", 0.2, 1)
    assert audit.feature_weights == {"edu": 2}
    assert audit.immutable == ["n", "g", "r"]  # every protected attribute never changes
    assert audit.monotone == ["edu"]
    # income has 60 values (> 10): 5 quantile bins unless bins says otherwise; n keeps its edges
    assert audit.bins == {"n": [0, 1.5, 3], "income": 5}
    default = RecourseSpec().build(data, ctx)
    assert default.protected == "g" and default.feature_weights is None
    assert default.monotone is None and default.immutable == ["g", "r"]


def test_build_refuses_a_recorded_decision_and_an_unprotected_attribute():
    data = AuditData(frame(), features=FEATURES, protected={"g": "b"})
    with pytest.raises(InputError, match="a recorded column cannot be re-run"):
        RecourseSpec().build(data, Context(config=None, data=data, decider=None))
    ctx = Context(config=None, data=data, decider=Rule("edu == 'hi'"))
    with pytest.raises(InputError, match="analyses.recourse.protected: 'edu' is not a protected"):
        RecourseSpec(protected="edu").build(data, ctx)


def test_build_on_a_plain_table_mines_the_columns_given():
    # primafacie recourse from flags: a table, the mined columns' kinds, the section's protected
    kinds = {"edu": "categorical", "income": "numeric"}
    spec = RecourseSpec(protected="g", support=0.1, immutable=["edu"])
    rule = Rule("income > 30")
    engine = spec.build(frame(), Context(config=None, data=None, decider=rule), features=kinds)
    assert isinstance(engine, RecourseFairness)
    assert (engine.model, engine.protected, engine.features) == (rule, "g", kinds)
    assert engine.immutable == ["edu", "g"]  # the protected attribute never changes
    assert list(engine.bins) == ["income"]  # many-valued numeric: quantile bins, as the audit's
    # the same engine as from the AuditData of that table (its own kinds, no features given)
    data = AuditData(frame(), features=kinds, protected={"g": "a"}, decision="n", favorable=1)
    audited = spec.build(data, Context(config=None, data=data, decider=rule))
    assert audited.features is None
    mined = {k: v for k, v in engine.get_params().items() if k != "features"}
    assert mined == {k: v for k, v in audited.get_params().items() if k != "features"}
