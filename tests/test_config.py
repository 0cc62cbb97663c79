"""Tests of primafacie.config: strict keys with line numbers and suggestions, cross checks,
defaults, paths relative to the file, and the JSON Schema export."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import jsonschema
import pandas as pd
import pytest

from primafacie.config import AuditConfig, config_schema, load_config
from primafacie.errors import InputError

GOOD = """\
data: loans.csv
decision: {column: approved}
favorable: 1
features:
  salary: numeric
  region: categorical
protected: {gender: female}
analyses:
  situation: {k: [15, 30], alpha: 0.05}
"""


def write(tmp_path: Path, text: str, name: str = "audit.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def error_of(path: Path) -> str:
    with pytest.raises(InputError) as info:
        load_config(path)
    return str(info.value)


def test_good_config_fills_defaults_and_resolves_paths(tmp_path):
    cfg = load_config(write(tmp_path, GOOD))
    assert cfg.analyses.situation.k == [15, 30]
    assert cfg.analyses.situation.tau == 0.0  # default
    assert cfg.analyses.situation.methods == ["st", "cst", "cst_centers", "cf"]
    assert cfg.analyses.recourse is None
    assert cfg.data_path == (tmp_path / "loans.csv").resolve()
    assert cfg.decision_column == "approved"
    assert "base_dir" not in cfg.resolved()


def test_unknown_top_level_key_names_key_line_and_valid_keys(tmp_path):
    msg = error_of(write(tmp_path, GOOD + "colour: red\n"))
    assert "unknown key 'colour'" in msg
    assert f"{tmp_path / 'audit.yaml'}:10" in msg  # the line of the bad key


def test_misspelled_analysis_suggests_the_right_one(tmp_path):
    text = GOOD.replace("  situation: {k: [15, 30], alpha: 0.05}", "  situaton: {k: [15, 30]}")
    msg = error_of(write(tmp_path, text))
    assert "unknown key 'analyses.situaton'" in msg
    assert "did you mean 'situation'?" in msg
    assert "audit.yaml:9" in msg


def test_misspelled_nested_key_suggests(tmp_path):
    text = GOOD.replace("alpha: 0.05", "alpah: 0.05")
    msg = error_of(write(tmp_path, text))
    assert "analyses.situation.alpah" in msg and "did you mean 'alpha'?" in msg
    assert "audit.yaml:9" in msg


def test_duplicate_key_names_both_lines(tmp_path):
    text = GOOD.replace("  region: categorical\n", "  region: categorical\n  salary: numeric\n")
    msg = error_of(write(tmp_path, text))
    assert "'salary' is given twice" in msg
    assert "line 7" in msg and "first on line 5" in msg


def test_duplicate_key_names_the_file(tmp_path):
    msg = error_of(write(tmp_path, "data: a.csv\ndata: b.csv\n"))
    assert "audit.yaml" in msg and "'data' is given twice" in msg


def test_missing_file(tmp_path):
    msg = error_of(tmp_path / "nope.yaml")
    assert "configuration file not found" in msg and "nope.yaml" in msg


def test_not_a_mapping_and_invalid_yaml(tmp_path):
    assert "mapping" in error_of(write(tmp_path, "- a\n- b\n"))
    assert "not valid YAML" in error_of(write(tmp_path, "data: [unclosed\n"))


def test_protected_attribute_listed_as_feature(tmp_path):
    text = GOOD.replace("  region: categorical\n", "  region: categorical\n  gender: categorical\n")
    msg = error_of(write(tmp_path, text))
    assert "['gender'] listed both as feature and as protected attribute" in msg
    line = text.splitlines().index("  gender: categorical") + 1
    assert f"audit.yaml:{line}: features.gender" in msg


@pytest.mark.parametrize(
    ("rule", "what"),
    [
        ("abs(salary) > 3", "a function call is not allowed"),
        ("salary.real > 3", "attribute access is not allowed"),
        ("__import__('os').system('x') > 0", "is not allowed"),
    ],
)
def test_rule_with_call_or_attribute_is_rejected_with_line(tmp_path, rule, what):
    text = GOOD.replace("decision: {column: approved}", f'decision: {{rule: "{rule}"}}')
    msg = error_of(write(tmp_path, text))
    assert what in msg
    assert "audit.yaml:2" in msg and "decision" in msg


@pytest.mark.parametrize("k", ["[0, 15]", "-3", "[]"])
def test_k_not_positive(tmp_path, k):
    text = GOOD.replace("{k: [15, 30], alpha: 0.05}", f"{{k: {k}}}")
    msg = error_of(write(tmp_path, text))
    assert "analyses.situation.k" in msg and "audit.yaml:9" in msg


def test_decision_needs_exactly_one_source(tmp_path):
    text = GOOD.replace("{column: approved}", '{column: approved, rule: "salary > 3"}')
    msg = error_of(write(tmp_path, text))
    assert "exactly one of column, model, rule or score" in msg and "audit.yaml:2" in msg


def test_causal_edge_into_protected_and_unknown_node(tmp_path):
    into = GOOD + "causal: {edges: [[salary, gender]]}\n"
    msg = error_of(write(tmp_path, into))
    assert "points into protected attribute 'gender'" in msg
    assert f"audit.yaml:{len(into.splitlines())}: causal.edges.0" in msg
    unknown = GOOD + "causal: {edges: [[gender, wage]]}\n"
    assert "'wage'" in error_of(write(tmp_path, unknown, "b.yaml"))


def test_principal_needs_outcome(tmp_path):
    text = GOOD + "  principal: {definitions: [1]}\n"
    assert "analyses.principal needs outcome" in error_of(write(tmp_path, text))


def test_audit_data_from_rule_computes_the_decision(tmp_path):
    pd.DataFrame(
        {"salary": [1.0, 5.0, 2.0, 6.0], "region": list("abab"), "gender": ["female", "male"] * 2}
    ).to_csv(tmp_path / "loans.csv", index=False)
    text = GOOD.replace("{column: approved}", '{rule: "salary > 3"}')
    cfg = load_config(write(tmp_path, text))
    data = cfg.audit_data()
    assert data.decision_array().tolist() == [0, 1, 0, 1]


def test_json_schema_export_validates_a_config_and_rejects_unknown_keys():
    schema = config_schema()
    assert schema["title"] == "primafacie audit.yaml"
    assert "base_dir" not in schema["properties"]
    doc = {
        "data": "loans.csv",
        "decision": {"column": "approved"},
        "features": {"salary": "numeric", "edu": {"ordinal": ["a", "b"]}},
        "protected": {"gender": "female"},
        "analyses": {"situation": {"k": [15]}},
    }
    jsonschema.validate(doc, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**doc, "colour": "red"}, schema)
    AuditConfig.model_validate(doc)  # the schema and the model agree on this document


def test_decision_makers_resolved_relative_to_the_file(tmp_path):
    import skops.io as sio
    from sklearn.dummy import DummyClassifier

    from primafacie.config import AuditConfig
    from primafacie.decisions import Rule

    sio.dump(DummyClassifier().fit([[0], [1]], [0, 1]), tmp_path / "m.skops")
    cfg = AuditConfig.model_validate(
        {
            "data": "d.csv",
            "decision": {"column": "y"},
            "features": {"x": "numeric"},
            "protected": {"g": "f"},
            "analyses": {
                "certainty": {
                    "decision_makers": {
                        "clerk": {"column": "human"},
                        "strict": {"rule": "x > 3"},
                        "m": {"model": "m.skops"},
                    }
                }
            },
            "base_dir": tmp_path,
        }
    )
    dms = cfg.decision_makers()
    assert dms["clerk"] == "human"
    assert isinstance(dms["strict"], Rule) and dms["strict"].expression == "x > 3"
    assert hasattr(dms["m"], "predict")
    no_section = cfg.model_copy(
        update={"analyses": cfg.analyses.model_copy(update={"certainty": None})}
    )
    assert no_section.decision_makers() == {}


def test_schema_describes_every_key():
    from primafacie.config import config_schema

    schema = config_schema()
    models = {"AuditConfig": schema, **schema.get("$defs", {})}
    missing = [
        f"{name}.{key}"
        for name, body in models.items()
        for key, prop in body.get("properties", {}).items()
        if not prop.get("description")
    ]
    assert missing == []
    assert schema["properties"]["seed"]["description"].startswith("Seed of every random step")


def test_read_frame_reads_only_the_columns_the_audit_uses(tmp_path):
    """Roles, rule columns, decision-makers' columns and column names given in analysis
    sections (covariates) are read; other columns are not."""
    pd.DataFrame(
        {
            "id": [1, 2, 3, 4],
            "salary": [1.0, 5.0, 2.0, 6.0],
            "bonus": [0.0, 1.0, 0.0, 1.0],
            "region": list("abab"),
            "gender": ["female", "male"] * 2,
            "clerk": [1, 0, 1, 1],
            "city": list("xyzx"),
            "unused": [9, 9, 9, 9],
        }
    ).to_csv(tmp_path / "loans.csv", index=False)
    text = GOOD.replace("{column: approved}", '{rule: "salary + bonus > 3"}').replace(
        "  situation: {k: [15, 30], alpha: 0.05}\n",
        "  certainty: {decision_makers: {c: {column: clerk}}, protected: [gender]}\n"
        "  principal: {covariates: [city]}\noutcome: clerk\n",
    )
    cfg = load_config(write(tmp_path, text))
    assert cfg.read_frame().columns.tolist() == [
        "salary", "bonus", "region", "gender", "clerk", "city",
    ]  # fmt: skip
    assert "unused" in cfg.read_frame(all_columns=True)
    assert cfg.audit_data().decision_array().tolist() == [0, 1, 0, 1]
    # a frame the caller gives is left as it was, its decision column included: the rule's
    # decisions go to a new frame (one sharing the other columns, not a copy of them)
    given = cfg.read_frame().assign(**{cfg.decision_column: [1, 1, 1, 1]})
    before = given.copy()
    data = cfg.audit_data(given)
    pd.testing.assert_frame_equal(given, before)
    assert data.decision_array().tolist() == [0, 1, 0, 1]
    assert data.frame["salary"].tolist() == given["salary"].tolist()


def test_read_frame_reads_every_column_when_a_named_one_is_missing(tmp_path):
    """Without the misspelt column, the error still lists every column and suggests one."""
    pd.DataFrame(
        {"salary": [1.0, 5.0], "regions": ["a", "b"], "gender": ["female", "male"]}
    ).to_csv(tmp_path / "loans.csv", index=False)
    cfg = load_config(write(tmp_path, GOOD.replace("{column: approved}", '{rule: "salary > 3"}')))
    assert cfg.read_frame().columns.tolist() == ["salary", "regions", "gender"]
    with pytest.raises(InputError, match=r"'region' is not in the data \(did you mean 'regions'"):
        cfg.audit_data()


def test_read_frame_projection_includes_a_models_fitted_columns(tmp_path):
    import skops.io as sio
    from sklearn.linear_model import LogisticRegression

    df = pd.DataFrame(
        {
            "salary": [1.0, 5.0, 2.0, 6.0],
            "age": [20, 30, 40, 50],
            "region": list("abab"),
            "gender": ["female", "male"] * 2,
            "unused": [0, 0, 0, 0],
        }
    )
    df.to_csv(tmp_path / "loans.csv", index=False)
    model = LogisticRegression().fit(df[["salary", "age"]], [0, 1, 0, 1])
    sio.dump(model, tmp_path / "m.skops")
    cfg = load_config(write(tmp_path, GOOD.replace("{column: approved}", "{model: m.skops}")))
    assert cfg.read_frame().columns.tolist() == ["salary", "age", "region", "gender"]


def test_empty_analyses_is_an_error_listing_what_can_be_asked_for(tmp_path):
    text = GOOD.replace("analyses:\n  situation: {k: [15, 30], alpha: 0.05}\n", "analyses: {}\n")
    msg = error_of(write(tmp_path, text))
    assert f"{tmp_path / 'audit.yaml'}:8: analyses: asks for no analysis" in msg
    for name in ("groups", "situation", "recourse", "principal", "certainty"):
        assert name in msg
    # leaving the key out still runs the default analyses
    absent = GOOD.replace("analyses:\n  situation: {k: [15, 30], alpha: 0.05}\n", "")
    assert load_config(write(tmp_path, absent, "b.yaml")).analyses.groups is not None


def test_pydantic_internals_never_reach_the_user(tmp_path):
    """A bad ordinal feature names the key path, not the model behind it (OrdinalSpec)."""
    text = GOOD.replace("  region: categorical", "  region: {ordinal: abc}")
    msg = error_of(write(tmp_path, text))
    assert "features.region.ordinal" in msg and "valid list" in msg
    assert "OrdinalSpec" not in msg and "Spec" not in msg and "literal[" not in msg


def test_a_choice_error_echoes_the_value_and_lists_the_choices(tmp_path):
    text = GOOD.replace("{k: [15, 30], alpha: 0.05}", "{k: [15], methods: [st, knn]}")
    msg = " ".join(error_of(write(tmp_path, text)).split())
    # the value given, every choice, and the key (one message format, from the declaration)
    assert "got ['st', 'knn']" in msg and "analyses.situation.methods" in msg
    assert "one of 'st', 'cst', 'cst_centers', 'cf'" in msg


def test_data_mapping_reads_decimal_commas_and_the_error_suggests_it(tmp_path):
    """data: {path, decimal: ",", sep: ";"} reads 12,5 as 12.5; without it, a numeric feature
    with decimal commas is an error suggesting exactly that option."""
    (tmp_path / "loans.csv").write_text(
        "salary;region;gender;approved\n12,5;n;female;1\n7,25;s;male;0\n3;n;male;1\n",
        encoding="utf-8",
    )
    plain = load_config(write(tmp_path, GOOD))
    with pytest.raises(InputError) as err:
        plain.audit_data()
    msg = str(err.value)
    assert "feature 'salary' is declared numeric but its numbers use a decimal comma" in msg
    assert "'12,5'" in msg and 'data: {path: FILE, decimal: ","}' in msg
    assert "categorical or ordinal" not in msg
    text = GOOD.replace("data: loans.csv", 'data: {path: loans.csv, decimal: ",", sep: ";"}')
    cfg = load_config(write(tmp_path, text, "b.yaml"))
    assert cfg.data_path == (tmp_path / "loans.csv").resolve()
    assert cfg.audit_data().frame["salary"].tolist() == [12.5, 7.25, 3.0]
    assert cfg.resolved()["data"] == {"path": "loans.csv", "decimal": ",", "sep": ";"}
    bad = GOOD.replace("data: loans.csv", 'data: {path: loans.csv, decimal: ",", sep: ","}')
    assert 'decimal: "," needs another delimiter' in error_of(write(tmp_path, bad, "c.yaml"))
    odd = GOOD.replace("data: loans.csv", "data: {path: loans.csv, decimal: ':'}")
    assert "data.decimal: got ':'; expected one of ., ," in error_of(write(tmp_path, odd, "d.yaml"))


# ---------------------------------------------------------------------- issue 19 item 8
@pytest.mark.parametrize(
    "address, message",
    [
        ("bogus://h:1", "the scheme 'bogus' is not one of tcp, tls, ucx"),
        ("http://127.0.0.1:8787", "the scheme 'http' is not one of tcp, tls, ucx"),
        ("tcp://", "names no host"),
        ("no-such-scheduler.json", "neither a scheduler address .* nor an existing scheduler"),
    ],
)
def test_compute_address_is_checked_when_the_configuration_loads(tmp_path, address, message):
    text = GOOD + f"compute: {{backend: dask, address: '{address}'}}\n"
    err = error_of(write(tmp_path, text))
    assert re.search(message, err), err
    assert "compute.address" in err and address in err


def test_compute_address_accepts_schemes_and_a_scheduler_file_beside_the_config(tmp_path):
    for address in ("tcp://10.0.0.5:8786", "tls://h:8786", "ucx://h:13337"):
        cfg = load_config(write(tmp_path, GOOD + f"compute: {{address: '{address}'}}\n"))
        assert cfg.compute.address == address and cfg.compute.timeout == 30.0
    (tmp_path / "scheduler.json").write_text('{"address": "tcp://127.0.0.1:1"}')
    text = GOOD + "compute: {backend: dask, address: scheduler.json, timeout: 2.5}\n"
    cfg = load_config(write(tmp_path, text))
    backend = cfg.compute.build()
    assert backend.address == str(tmp_path.resolve() / "scheduler.json")
    assert backend.timeout == 2.5
    assert cfg.resolved()["compute"]["address"] == "scheduler.json"  # as written


@pytest.mark.parametrize("timeout", [0, -1, 1e9])
def test_compute_timeout_is_bounded(tmp_path, timeout):
    err = error_of(write(tmp_path, GOOD + f"compute: {{timeout: {timeout}}}\n"))
    assert "timeout" in err


def test_docs_parameters_page_is_generated_from_the_declarations():
    """docs/parameters.md equals parameters_page(); regenerate it with the command it quotes."""
    from pathlib import Path

    from primafacie.config import PARAMETERS_DOC_COMMAND, parameters_page

    page = Path(__file__).resolve().parents[1] / "docs" / "parameters.md"
    assert page.read_text(encoding="utf-8") == parameters_page(), PARAMETERS_DOC_COMMAND


@pytest.mark.parametrize(
    "section, key, value, bound",
    [
        ("recourse", "n_boot", 10**9, "[0, 100000]"),
        ("principal", "n_boot", 10**9, "[0, 100000]"),
        ("certainty", "n_draws", 10**9, "[1, 10000000]"),
        ("certainty", "max_levels", 10**6, "[1, 1000]"),
    ],
)
def test_work_parameters_have_a_documented_upper_bound(tmp_path, section, key, value, bound):
    """issue 19 item 9: n_boot: 1e9 is refused before any work, naming the key and the bound."""
    text = GOOD.replace(
        "  situation: {k: [15, 30], alpha: 0.05}", f"  {section}: {{{key}: {value}}}"
    )
    message = " ".join(error_of(write(tmp_path, text)).split())
    assert f"analyses.{section}.{key}" in message
    assert bound in message and str(value) in message
