"""CertaintySpec: keys checked by the engine's constraints; build() and the decision-makers."""

from types import SimpleNamespace

import pytest
from pydantic import ValidationError

from primafacie.certainty import DEFAULT_DECISION_MAKER
from primafacie.certainty.params import PARAMETER_CONSTRAINTS
from primafacie.certainty.spec import CertaintySpec
from primafacie.validation import invalid_value


def test_defaults_are_the_engines():
    from primafacie.certainty import CertaintyRanking

    built, engine = CertaintySpec().build(), CertaintyRanking()
    for key in ("criterion", "protected", "tie_breaker", "max_levels", "utility", "disparity",
                "epsilon", "on_empty", "min_group"):  # fmt: skip
        assert getattr(built, key) == getattr(engine, key), key


def test_build_passes_every_key_to_the_engine():
    spec = CertaintySpec(criterion="eo", protected="race", tie_breaker="accuracy", max_levels=None,
                         utility="norm", disparity="bayesian", epsilon=0.2, on_empty="skip",
                         min_group=10)  # fmt: skip
    e = spec.build()
    assert (e.criterion, e.protected, e.tie_breaker, e.max_levels) == (
        "equal_opportunity",
        ["race"],
        "accuracy",
        None,
    )
    assert (e.utility, e.disparity, e.epsilon, e.on_empty, e.min_group) == (
        "norm",
        "bayesian",
        0.2,
        "skip",
        10,
    )


@pytest.mark.parametrize(
    "key",
    ["criterion", "protected", "tie_breaker", "max_levels", "utility", "disparity", "epsilon",
     "on_empty", "min_group"],
)  # fmt: skip
def test_every_key_uses_the_engine_constraint_and_message(key):
    bad = invalid_value(PARAMETER_CONSTRAINTS[key])
    if key == "utility":
        bad = "u_max"  # a callable is an engine-only form
    with pytest.raises(ValidationError, match=rf"{key} must be .*; got "):
        CertaintySpec(**{key: bad})


def test_decision_makers_default_to_the_audited_decision():
    data = SimpleNamespace(decision="approved")
    none = SimpleNamespace(decision_makers=lambda: {})
    listed = SimpleNamespace(decision_makers=lambda: {"lr": "lr_column"})
    assert CertaintySpec().decision_makers_of(none, data) == {DEFAULT_DECISION_MAKER: "approved"}
    assert CertaintySpec().decision_makers_of(listed, data) == {"lr": "lr_column"}


def test_n_draws_and_seed_reach_the_engine_and_are_checked():
    from pydantic import ValidationError

    from primafacie.certainty.spec import CertaintySpec

    eng = CertaintySpec(n_draws=500, seed=4).build()
    assert (eng.n_draws, eng.seed) == (500, 4)
    assert CertaintySpec(n_draws=None).build().n_draws is None
    with pytest.raises(ValidationError, match="n_draws"):
        CertaintySpec(n_draws=0)


def test_the_former_key_min_group_size_is_read_with_a_deprecation_warning():
    with pytest.warns(DeprecationWarning, match="analyses.certainty.min_group_size is deprecated"):
        spec = CertaintySpec(min_group_size=7)
    assert spec.min_group == 7 and spec.build().min_group == 7
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="give min_group only"):
        CertaintySpec(min_group=5, min_group_size=7)
