"""primafacie.ll144.params: LL144's parameters, declared once, and everything derived from them
(the engine's validation, ``analyses.ll144`` and its JSON Schema, the command's options, the
docs table and the "where to fix it" text of every error)."""

from __future__ import annotations

import datetime
import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from primafacie.cli import app
from primafacie.config import config_schema, load_config, parameters_page
from primafacie.errors import InputError
from primafacie.ll144 import LL144Tables
from primafacie.ll144.params import ENGINE_PARAMS, PARAMETER_CONSTRAINTS, PARAMS, WHERE
from primafacie.ll144.spec import LL144Spec
from primafacie.params import REQUIRED, constraints, markdown_table

runner = CliRunner()


def _flat(text: str) -> str:
    """The words of a (rich, boxed) help page or message, without the box or the wrapping."""
    return " ".join(text.replace("│", " ").split())


def test_the_engine_and_the_spec_are_derived_from_the_declarations():
    assert LL144Tables._parameter_constraints == constraints(ENGINE_PARAMS) == PARAMETER_CONSTRAINTS
    assert [p.name for p in ENGINE_PARAMS] == ["categories", "exclude_below", "unknown"]
    spec = LL144Spec(categories={"sex": "gender"})
    for p in PARAMS:
        assert LL144Spec.key_descriptions[p.config_key] == p.help
        if p.default is not REQUIRED:
            assert getattr(spec, p.config_key) == p.default
    # the keys in the declared order (the resolved configuration lists them so)
    assert list(LL144Spec.model_fields) == [p.config_key for p in PARAMS]
    engine = spec.build()
    assert isinstance(engine, LL144Tables) and engine.exclude_below == 0.02


def test_the_schema_describes_every_key_with_its_default():
    props = config_schema()["$defs"]["LL144Spec"]
    assert props["required"] == ["categories"]
    for p in PARAMS:
        prop = props["properties"][p.config_key]
        assert prop["description"] == p.help
        if p.default is not REQUIRED:
            assert prop["default"] == p.default
    assert "default" not in props["properties"]["categories"]


def test_the_docs_table_lists_every_parameter():
    page = parameters_page()
    assert "## NYC Local Law 144 bias audit (`analyses.ll144`)" in page
    assert markdown_table(PARAMS, "ll144") in page
    row = next(r for r in page.splitlines() if "`analyses.ll144.categories`" in r)
    assert "| `--category` | required |" in row


@pytest.mark.parametrize(
    "key, value, accepts",
    [
        ("exclude_below", 0.7, "a number in [0, 0.5)"),
        ("audit_date", "26/11/2026", "None or a date YYYY-MM-DD"),
        ("score", 3, "a boolean or a column name"),
        ("unknown", "Unknown", "a list of values (possibly empty)"),
        ("categories", {}, "a non-empty mapping {label: column}"),
    ],
)
def test_every_message_names_the_flag_and_the_key(key, value, accepts):
    where = WHERE[key]
    assert where.endswith(f"analyses.ll144.{key}") and where.startswith("--")
    with pytest.raises(ValueError) as err:
        LL144Spec(**{"categories": {"sex": "sex"}, key: value})
    assert accepts in str(err.value) and f"({where})" in str(err.value)
    if key in PARAMETER_CONSTRAINTS:  # the engine says the same at run
        df = pd.DataFrame({"sex": ["F", "M"], "sel": [1, 0]})
        args = {"categories": {"sex": "sex"}, key: value}
        with pytest.raises(InputError, match=rf"^LL144Tables: {key} must be .*\({where}\)$"):
            LL144Tables(**args).run(df, df["sel"].to_numpy())


def test_a_yaml_date_is_read_as_its_text(tmp_path):
    assert LL144Spec(categories={"a": "b"}, audit_date=datetime.date(2026, 11, 26)).audit_date \
        == "2026-11-26"  # fmt: skip
    (tmp_path / "d.csv").write_text("sex,sel\nF,1\nM,0\n")
    (tmp_path / "audit.yaml").write_text(
        "data: d.csv\ndecision: {column: sel}\nfeatures: {}\nprotected: {sex: F}\n"
        "analyses: {groups: null, ll144: {categories: {sex: sex}, distribution_date: 2026-01-02}}\n"
    )
    assert load_config(tmp_path / "audit.yaml").analyses.ll144.distribution_date == "2026-01-02"


def test_the_command_has_an_option_per_declared_parameter(tmp_path):
    res = runner.invoke(app, ["ll144", "--help"], terminal_width=300)
    text = _flat(res.output)
    for p in PARAMS:
        assert p.flag in text
        if p.name != "categories":  # --category LABEL=COLUMN has the command line's wording
            assert _flat(p.help) in text, p.name
    assert "[default: false]" in text and "[default: 0.02]" in text
    (tmp_path / "d.csv").write_text("sex,sel\nF,1\nM,0\nU,1\n")
    args = ["ll144", "--data", str(tmp_path / "d.csv"), "--decision", "sel", "--category",
            "sex=sex", "--out", str(tmp_path / "o")]  # fmt: skip
    res = runner.invoke(app, [*args, "--exclude-below", "0.5"])
    assert res.exit_code == 2
    assert ("--exclude-below: exclude_below must be a number in [0, 0.5); got 0.5 "
            "(--exclude-below, analyses.ll144.exclude_below)") in _flat(res.output)  # fmt: skip
    res = runner.invoke(app, [*args, "--score", "TRUE", "--unknown", "U"])
    assert res.exit_code == 0, res.output
    doc = json.loads((tmp_path / "o" / "ll144.json").read_text())
    assert doc["scoring"] is True and doc["unknown"] == {"sex": 1}
