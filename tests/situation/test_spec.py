"""``analyses.situation`` (src/primafacie/situation/spec.py): defaults, constraints, engines."""

from __future__ import annotations

import inspect

import pytest
from pydantic import ValidationError

from primafacie.errors import InputError
from primafacie.situation import (
    DEFAULT_K,
    IntersectionalSituationTest,
    MultipleSituationTest,
    SituationTest,
)
from primafacie.situation.spec import SituationSpec


def test_one_k_default_for_the_engine_the_config_and_the_cli():
    from primafacie.commands.situation import Situation

    assert SituationSpec().k == [15, 30, 50] == list(DEFAULT_K)
    assert inspect.signature(SituationTest).parameters["k"].default == DEFAULT_K
    options = Situation().signature().parameters  # what typer reads
    assert options["k"].default.default == "15,30,50"
    spec = SituationSpec()
    for flag, field in [("alpha", "alpha"), ("tau", "tau"), ("direction", "direction"),
                        ("interval", "interval"), ("max_distance", "max_distance"),
                        ("legacy", "legacy")]:  # fmt: skip
        assert options[flag].default.default == getattr(spec, field)
    assert options["methods"].default.default == "st,cst,cst_centers,cf"  # --method
    assert options["dimensions"].default.default == "single"  # --dimension


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("alpha", 1.5, "alpha must be a number in (0, 1); got 1.5"),
        ("alpha", 0, "alpha must be a number in (0, 1); got 0"),
        ("tau", 2, "tau must be a number in [-1, 1]; got 2"),
        ("max_distance", 0, "max_distance must be a number > 0 or None; got 0"),
        ("k", [15, 0], "k must be an integer ≥ 1 or a non-empty list of them; got [15, 0]"),
        ("k", [], "k must be an integer ≥ 1 or a non-empty list of them; got []"),
    ],
)
def test_values_are_checked_with_the_engines_constraints(field, value, message):
    with pytest.raises(ValidationError) as err:
        SituationSpec(**{field: value})
    assert message in str(err.value)
    # ... the very message the engine gives for the same value
    from primafacie.validation import validate_params

    with pytest.raises(InputError) as engine_err:
        validate_params("", SituationTest._parameter_constraints, {field: value})
    assert str(engine_err.value).split("; got")[0] == message.split("; got")[0]


def test_config_file_errors_name_the_key_and_line(tmp_path):
    from primafacie.config import load_config

    (tmp_path / "d.csv").write_text("x,a,y\n1,0,1\n2,1,0\n")
    path = tmp_path / "audit.yaml"
    path.write_text(
        "data: d.csv\ndecision: {column: y}\nfeatures: {x: numeric}\nprotected: {a: 1}\n"
        "analyses:\n  situation:\n    methods: [st]\n    alpha: 1.5\n"
    )
    with pytest.raises(InputError) as err:
        load_config(path)
    assert str(err.value) == (
        f"{path}:8: analyses.situation.alpha: alpha must be a number in (0, 1); got 1.5 "
        "(--alpha, analyses.situation.alpha)"
    )


def test_k_and_methods_are_normalised():
    spec = SituationSpec(k=30, methods=["CST_W", "st", "cst_wo", "st"])
    assert spec.k == [30] and spec.methods == ["cst_centers", "st", "cst"]
    assert SituationSpec(k=[50, 15, 15]).k == [15, 50]
    with pytest.raises(ValidationError, match=r"methods must be one of 'st', .*; got \[\]"):
        SituationSpec(methods=[])
    with pytest.raises(ValidationError, match="dimensions must be a non-empty list of one of"):
        SituationSpec(dimensions=[])


def test_tests_builds_every_engine_the_section_asks_for():
    spec = SituationSpec(
        k=[5, 10],
        methods=["st"],
        interval="wilson",
        dimensions=["intersectional", "single", "multiple"],
        max_distance=0.3,
    )
    backend = object()
    engines = spec.tests(["gender", "race"], backend=backend)
    assert list(engines) == ["single_gender", "single_race", "multiple", "intersectional"]
    single = engines["single_race"]
    assert isinstance(single, SituationTest) and single.attribute == "race"
    assert (single.k, single.methods, single.interval, single.max_distance) == (
        [5, 10],
        ["st"],
        "newcombe",  # wilson is the Newcombe interval built from two Wilson intervals
        0.3,
    )
    assert single.backend is backend
    assert isinstance(engines["multiple"], MultipleSituationTest)
    assert engines["multiple"].settings["backend"] is backend
    assert isinstance(engines["intersectional"], IntersectionalSituationTest)
    assert list(SituationSpec(methods=["st"]).tests(["g"])) == ["single_g"]


def test_one_interval_default_for_the_engine_the_config_the_cli_and_the_power_table():
    from primafacie.params import by_name
    from primafacie.situation.params import PARAMS
    from primafacie.situation.power_table import SETTINGS

    # Newcombe: BH on its p-values holds the FDR at α in null worlds, Wald's does not
    # (docs/statistics.md §3); the report's power sentence quotes the same setting
    assert inspect.signature(SituationTest).parameters["interval"].default == "newcombe"
    declared = by_name(PARAMS)["interval"].default
    assert SituationSpec().interval == declared == SETTINGS["interval"] == "newcombe"
    assert SituationSpec().build(attribute="a").interval == "newcombe"


def test_legacy_needs_the_wald_interval_by_name(tmp_path):
    from primafacie.config import load_config

    assert SituationSpec(legacy=True, interval="wald").engine_kwargs()["interval"] == "wald"
    for other in ({}, {"interval": "newcombe"}, {"interval": "wilson"}):
        with pytest.raises(ValidationError, match="legacy reproduces the authors' Wald interval"):
            SituationSpec(legacy=True, **other)
    # in audit.yaml: the key, its line and the fix
    (tmp_path / "d.csv").write_text("x,a,y\n1,0,1\n2,1,0\n")
    path = tmp_path / "audit.yaml"
    path.write_text(
        "data: d.csv\ndecision: {column: y}\nfeatures: {x: numeric}\nprotected: {a: 1}\n"
        "analyses:\n  situation:\n    methods: [st]\n    legacy: true\n"
    )
    with pytest.raises(InputError, match=r"analyses\.situation\.legacy: .*set interval: wald"):
        load_config(path)
