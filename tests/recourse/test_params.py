"""Constraints of src/primafacie/recourse/params.py: every declared rule rejects a bad value with
the one message format, at fit/run, before the model is called."""

from __future__ import annotations

import pandas as pd
import pytest

from primafacie.errors import InputError
from primafacie.recourse import RecourseFairness
from primafacie.recourse.params import PARAM_WHERE, PARAMETER_CONSTRAINTS, RUN_CONSTRAINTS
from primafacie.validation import describe, invalid_value

DF = pd.DataFrame({"g": ["a", "b"] * 50, "x": ["lo", "hi", "lo", "lo"] * 25, "y": ["u", "v"] * 50})


class Never:
    """A model that fails the test if it is ever called."""

    def predict(self, frame):
        raise AssertionError("the model was called before the parameters were checked")


def test_the_engine_declares_its_constraints():
    assert RecourseFairness._parameter_constraints is PARAMETER_CONSTRAINTS
    init = RecourseFairness.__init__.__code__.co_varnames[
        1 : RecourseFairness.__init__.__code__.co_argcount
    ]
    # every constructor parameter but the model and the favourable label is declared
    assert set(init) - set(PARAMETER_CONSTRAINTS) == {"model", "favorable"}


@pytest.mark.parametrize("name", sorted(PARAMETER_CONSTRAINTS))
def test_every_constructor_constraint_rejects_an_invalid_value(name):
    cons = PARAMETER_CONSTRAINTS[name]
    bad = invalid_value(cons)
    audit = RecourseFairness(Never(), **{"protected": "g", name: bad})
    with pytest.raises(InputError) as err:
        audit.fit(DF)
    message = str(err.value)
    assert message.startswith(f"RecourseFairness: {name} must be {describe(cons)}; got ")
    if name in PARAM_WHERE:
        assert message.endswith(f"({PARAM_WHERE[name]})")


@pytest.mark.parametrize("name", sorted(set(RUN_CONSTRAINTS) - {"top", "show"}))
def test_every_run_constraint_rejects_an_invalid_value_before_fitting(name):
    cons = RUN_CONSTRAINTS[name]
    with pytest.raises(InputError) as err:
        RecourseFairness(Never(), protected="g").run(DF, **{name: invalid_value(cons)})
    assert str(err.value).startswith(f"RecourseFairness: {name} must be {describe(cons)}; got ")


@pytest.mark.parametrize("name", ["top", "show"])
def test_csc_arguments_are_checked(name):
    from primafacie.decisions import Rule

    audit = RecourseFairness(Rule("x == 'hi'"), protected="g", support=0.1).fit(DF)
    cons = RUN_CONSTRAINTS[name]
    with pytest.raises(InputError, match=f"RecourseFairness.csc: {name} must be"):
        audit.csc("EE", **{name: invalid_value(cons)})


@pytest.mark.parametrize(
    "name,value",
    [
        ("support", 1.0),
        ("support", 1e-9),
        ("feature_weights", {"x": 0}),
        ("immutable", "y"),
        ("immutable", []),
        ("max_step", {"x": float("inf")}),
        ("normalize", ["x"]),
        ("max_len", 1),
        ("chunk_rows", 1),
        ("method", "mlxtend"),
    ],
)
def test_boundary_values_are_accepted(name, value):
    RecourseFairness(Never(), protected="g", **{name: value})._validate_params()


@pytest.mark.parametrize(
    "name,value,shown",
    [
        ("support", 0, "got 0"),
        ("support", True, "got True"),
        ("feature_weights", {"x": float("nan")}, "got {'x': nan}"),
        ("feature_weights", {"x": float("inf")}, "got {'x': inf}"),
        ("max_step", {"x": -1}, "got {'x': -1}"),
        ("max_len", 2.0, "got 2.0"),
        ("exact_features", "no", "got 'no'"),
    ],
)
def test_named_bad_values(name, value, shown):
    with pytest.raises(InputError, match=rf"RecourseFairness: {name} must be .*; {shown}"):
        RecourseFairness(Never(), protected="g", **{name: value})._validate_params()


def test_score_parameter_of_one_definition():
    from primafacie.decisions import Rule

    audit = RecourseFairness(Rule("x == 'hi'"), protected="g", support=0.1).fit(DF)
    with pytest.raises(
        InputError, match=r"RecourseFairness.scores: phi must be a number in \[0, 1\]"
    ):
        audit.rank("ECE", phi=1.5)
    with pytest.raises(InputError, match=r"budget must be a number ≥ 0; got -1"):
        audit.rank("EEWB", budget=-1)
    assert audit.rank("ECE", phi=1.0).param == 1.0


def test_metric_names_are_the_metrics_module_s():
    """The help's and the constraint's metric names (declared without numpy, for a fast
    ``--help``) are the registry's, in its order."""
    from primafacie.recourse.metrics import METRICS
    from primafacie.recourse.params import METRIC_NAMES

    assert METRIC_NAMES == tuple(METRICS)


def test_automatic_bins_are_declared_with_the_parameter_and_used_by_the_miner():
    """The default binning the --bins help states is the one the miner applies: a numeric
    feature with more than AUTO_BIN_LEVELS distinct values gets AUTO_BINS quantile bins."""
    from primafacie.params import by_name
    from primafacie.recourse.items import default_bins
    from primafacie.recourse.params import AUTO_BIN_LEVELS, AUTO_BINS, PARAMS

    help_text = by_name(PARAMS)["bins"].help
    assert f"{AUTO_BINS} quantile bins" in help_text
    assert f"more than {AUTO_BIN_LEVELS} distinct values" in help_text
    frame = pd.DataFrame({"many": range(AUTO_BIN_LEVELS + 1), "few": [0, 1] * 5 + [0]})
    kinds = {"many": "numeric", "few": "numeric"}
    assert default_bins(frame, kinds) == {"many": AUTO_BINS}
    at_limit = pd.DataFrame({"many": range(AUTO_BIN_LEVELS)})
    assert default_bins(at_limit, {"many": "numeric"}) == {}
