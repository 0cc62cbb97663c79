"""PrincipalSpec: keys checked by the engine's constraints, and build() the one config -> engine step."""

import pandas as pd
import pytest
from pydantic import ValidationError

from primafacie.data import AuditData
from primafacie.errors import InputError
from primafacie.principal.params import PARAMETER_CONSTRAINTS
from primafacie.principal.spec import PrincipalSpec
from primafacie.validation import invalid_value


def _data(**protected):
    df = pd.DataFrame({"g": ["f", "m"] * 4, "r": ["a", "a", "b", "b"] * 2, "s": [0, 1] * 4,
                       "y": [1, 1, 0, 0] * 2})  # fmt: skip
    return AuditData(df, features={}, protected=protected or {"g": "f"}, decision="s", outcome="y")


def test_defaults_are_the_engines():
    pf = PrincipalSpec().build(_data())
    assert (pf.definitions, pf.covariates, pf.n_boot, pf.seed) == ([1, 2], [], 0, 0)
    assert (pf.joint, pf.min_group, pf.empty_cells, pf.protected) == ("tau0", 5, "error", "g")


def test_build_passes_every_key_to_the_engine():
    spec = PrincipalSpec(definitions=[2], covariates=["r"], n_boot=9, seed=4, joint="tau1",
                         min_group=2, empty_cells="skip", protected="g")  # fmt: skip
    pf = spec.build(_data())
    assert (pf.definitions, pf.covariates, pf.n_boot, pf.seed) == ([2], ["r"], 9, 4)
    assert (pf.joint, pf.min_group, pf.empty_cells) == ("tau1", 2, "skip")


def test_without_protected_the_first_attribute_is_evaluated():
    data = _data(r="a", g="f")  # r first
    assert PrincipalSpec().build(data).protected == "r"


def test_unknown_protected_attribute_names_the_key():
    with pytest.raises(InputError, match=r"analyses.principal.protected: 'x' is not a protected"):
        PrincipalSpec(protected="x").build(_data())


def test_a_single_definition_may_be_a_number():
    assert PrincipalSpec(definitions=2).definitions == [2]


@pytest.mark.parametrize(
    "key, param",
    [("definitions", "definitions"), ("covariates", "covariates"), ("n_boot", "n_boot"),
     ("seed", "seed"), ("joint", "joint"), ("min_group", "min_group"),
     ("empty_cells", "empty_cells"), ("protected", "protected")],
)  # fmt: skip
def test_every_key_uses_the_engine_constraint_and_message(key, param):
    bad = invalid_value(PARAMETER_CONSTRAINTS[param])
    if key == "protected":
        bad = 3  # a mapping is an engine-only form; the YAML key is a name
    with pytest.raises(ValidationError, match=rf"{key} must be .*; got "):
        PrincipalSpec(**{key: bad})


def test_message_names_flag_and_key():
    with pytest.raises(ValidationError) as info:
        PrincipalSpec(n_boot=-5)
    msg = info.value.errors()[0]["msg"]
    assert msg == (
        "Value error, n_boot must be an integer in [0, 100000]; got -5 (--n-boot, analyses.principal.n_boot)"
    )
