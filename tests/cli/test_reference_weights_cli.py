"""``primafacie audit`` with reference groups and weights: a bad value exits 2 naming the key,
weights are refused by the analyses that do not define them, and the schema holds the keys."""

from __future__ import annotations

import json

import pytest
import yaml
from typer.testing import CliRunner

from primafacie.cli import app
from primafacie.commands import _common
from primafacie.datasets.credit_world import CREDIT_FEATURES, SCORECARD_RULE, generate_credit_world

runner = CliRunner()


@pytest.fixture(autouse=True)
def wide_consoles(monkeypatch):
    monkeypatch.setattr(_common.err_console, "width", 400)
    monkeypatch.setattr(_common.console, "width", 200)


@pytest.fixture(scope="module")
def world_csv(tmp_path_factory):
    world = generate_credit_world(200)
    world["w"] = 1.0 + (world["id"] % 3)
    world["neg"] = world["w"] * ((world["id"] % 50) != 0) - 2.0 * ((world["id"] % 50) == 0)
    world["zero"] = 0.0
    world["note"] = "x"
    path = tmp_path_factory.mktemp("world") / "world.csv"
    world.to_csv(path, index=False)
    return path, world


def _audit(tmp_path, world_csv, **changes):
    path, _ = world_csv
    cfg = {"data": str(path), "id": "id", "decision": {"rule": SCORECARD_RULE},
           "outcome": "repaid", "features": dict(CREDIT_FEATURES),
           "protected": {"race": {"values": ["black"], "reference": ["white"]}},
           "analyses": {"groups": {}, "certainty": {}}}  # fmt: skip
    cfg.update(changes)
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")
    out = tmp_path / "out"
    res = runner.invoke(app, ["audit", str(tmp_path / "audit.yaml"), "--out", str(out),
                              "--no-progress"])  # fmt: skip
    return res, out


def test_weighted_groups_and_certainty_run_and_state_the_method(tmp_path, world_csv):
    res, out = _audit(tmp_path, world_csv, weights="w")
    assert res.exit_code == 0, res.output
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    w = world_csv[1]["w"]
    assert doc["data"]["weights"]["n_eff"] == pytest.approx(w.sum() ** 2 / (w**2).sum())
    groups = doc["analyses"]["groups"]["results"]["metrics"]
    assert groups["weights"] == "w" and "Kish" in groups["weights_method"]
    assert "weighted by w" in doc["analyses"]["certainty"]["caveats"][-1]
    assert "n_eff" in (out / "report.html").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("analyses", "words"),
    [
        ({"situation": {"k": [5], "methods": ["st"]}}, "situation testing (analyses.situation)"),
        ({"principal": {}}, "(analyses.principal)"),
        ({"ll144": {"categories": {"race": "race"}}}, "(analyses.ll144)"),
    ],
)
def test_weights_are_refused_where_they_are_not_defined(tmp_path, world_csv, analyses, words):
    res, out = _audit(tmp_path, world_csv, weights="w", analyses={"groups": {}, **analyses})
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())
    assert "weights: 'w' is set, but weights are not defined for" in text and words in text
    assert "Traceback" not in res.output and not out.exists()


@pytest.mark.parametrize(
    ("column", "words"),
    [("neg", "weights column 'neg' has 4 negative value(s)"),
     ("zero", "weights column 'zero': all 200 weights are zero"),
     ("note", "weights column 'note' must be numeric")],
)  # fmt: skip
def test_bad_weights_exit_2_naming_the_column_and_count(tmp_path, world_csv, column, words):
    res, out = _audit(tmp_path, world_csv, weights=column)
    assert res.exit_code == 2, res.output
    assert words in " ".join(res.output.split())
    assert not out.exists()


@pytest.mark.parametrize(
    ("race", "words"),
    [
        ({"values": ["black"], "reference": ["White"]},
         "protected.race.reference value 'White' of protected column 'race' does not occur as "
         "written; the data spell it 'white'"),
        ({"values": ["black"], "reference": ["black", "white"]},
         "protected.race: value(s) ['black'] are both protected and reference"),
        ({"values": ["black"], "reference": "highst"}, "protected.race"),
        ({"values": ["black"], "refrence": ["white"]}, "protected.race"),
    ],
)  # fmt: skip
def test_bad_reference_exits_2_naming_the_key(tmp_path, world_csv, race, words):
    res, out = _audit(tmp_path, world_csv, protected={"race": race})
    assert res.exit_code == 2, res.output
    assert words in " ".join(res.output.split())
    assert "Traceback" not in res.output and not out.exists()


def test_highest_reference_is_stated_in_the_report(tmp_path, world_csv):
    res, out = _audit(tmp_path, world_csv,
                      protected={"race": {"values": ["black"], "reference": "highest"}})  # fmt: skip
    assert res.exit_code == 0, res.output
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    (c,) = doc["data"]["comparisons"]
    assert c["rule"] == "highest" and c["reference"] in (["white"], ["hispanic"])
    assert "the highest selection rate" in doc["analyses"]["certainty"]["scope"]


def test_schema_has_the_new_keys():
    res = runner.invoke(app, ["schema"])
    assert res.exit_code == 0, res.output
    schema = json.loads(res.output)
    assert "weights" in schema["properties"]
    assert "description" in schema["properties"]["weights"]
    spec = schema["$defs"]["ProtectedSpec"]["properties"]
    assert set(spec) == {"values", "reference"}
    assert "highest" in spec["reference"]["description"]
