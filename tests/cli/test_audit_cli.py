"""CLI tests of ``primafacie demo`` and ``primafacie audit``: success paths with the summary
table, and bad configurations that exit 2 naming the key and line with nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from primafacie.cli import app
from primafacie.commands import _common
from primafacie.report import validate_results
from tests.shared import cli_demo

runner = CliRunner()


@pytest.fixture(autouse=True)
def wide_consoles(monkeypatch):
    """Rich wraps at 80 columns when not on a terminal; keep messages on one line."""
    monkeypatch.setattr(_common.err_console, "width", 400)
    monkeypatch.setattr(_common.console, "width", 200)


@pytest.fixture(scope="module")
def demo_dir() -> Path:
    """``primafacie demo --out ... --n 200 --seed 2 --no-progress``, run in-process once per
    test run and shared (tests/shared.py; it must exit 0): read it, never write into it."""
    out, output = cli_demo(n=200, seed=2)
    assert "primafacie audit" in output  # the summary table title
    for name in ("situation", "recourse", "principal", "certainty"):
        assert name in output
    return out


def test_demo_writes_report_results_inputs_and_config(demo_dir):
    for rel in ("report.html", "results.json", "audit.yaml", "inputs/credit_world.csv"):
        assert (demo_dir / rel).is_file(), rel
    validate_results(json.loads((demo_dir / "results.json").read_text()))


def _cheap_config(demo_dir: Path, tmp_path: Path, **changes) -> Path:
    cfg = yaml.safe_load((demo_dir / "audit.yaml").read_text())
    cfg["data"] = str(demo_dir / cfg["data"])
    cfg["decision"] = {"model": str(demo_dir / cfg["decision"]["model"])}
    # certainty alone (group metrics, and the alternatives search with a model and an outcome,
    # are on by default: turned off here)
    cfg["analyses"] = {
        "groups": None,
        "alternatives": None,
        "certainty": {"decision_makers": {"officer": {"column": "human"}}},
    }
    cfg.update(changes)
    path = tmp_path / "audit.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


def test_audit_command_writes_outputs_and_prints_summary(demo_dir, tmp_path):
    cfg = _cheap_config(demo_dir, tmp_path)
    out = tmp_path / "out"
    result = runner.invoke(app, ["audit", str(cfg), "--out", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "certainty" in result.output and "ok" in result.output
    assert "wrote" in result.output and "report.html" in result.output
    doc = json.loads((out / "results.json").read_text())
    assert doc["analyses"]["certainty"]["status"] == "ok"
    assert sorted(p.name for p in (out / "tables").iterdir()) == [
        "certainty_group_counts.csv", "certainty_ranking.csv", "certainty_ranking_summary.csv",
    ]  # fmt: skip


def test_audit_default_out_is_next_to_the_config(demo_dir, tmp_path):
    cfg = _cheap_config(demo_dir, tmp_path)
    result = runner.invoke(app, ["audit", str(cfg), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "audit-report" / "report.html").is_file()


BASE = """\
data: {data}
decision: {{model: {model}}}
features:
  income: numeric
  savings: numeric
protected: {{gender: female}}
analyses:
  certainty: {{decision_makers: {{officer: {{column: human}}}}}}
"""

BAD = {
    "unknown key": (
        BASE + "colour: red\n",
        ["unknown key 'colour'", "audit.yaml:9"],
    ),
    "misspelled analysis": (
        BASE.replace("  certainty:", "  certainy:"),
        ["unknown key 'analyses.certainy'", "did you mean 'certainty'?", "audit.yaml:8"],
    ),
    "feature listed twice": (
        BASE.replace("  savings: numeric\n", "  savings: numeric\n  income: numeric\n"),
        ["'income' is given twice", "line 6", "first on line 4"],
    ),
    "protected attribute as feature": (
        BASE.replace("  savings: numeric\n", "  savings: numeric\n  gender: categorical\n"),
        ["['gender'] listed both as feature and as protected attribute", "audit.yaml:6"],
    ),
    "rule with a function call": (
        BASE.replace("decision: {{model: {model}}}", 'decision: {{rule: "max(income, 3) > 2"}}'),
        ["a function call is not allowed", "audit.yaml:2", "decision"],
    ),
    "rule with attribute access": (
        BASE.replace("decision: {{model: {model}}}", 'decision: {{rule: "income.real > 2"}}'),
        ["attribute access is not allowed", "audit.yaml:2", "decision"],
    ),
    "k not positive": (
        BASE + "  situation: {{k: [0, 5]}}\n",
        ["analyses.situation.k", "k must be an integer ≥ 1", "audit.yaml:9"],
    ),
    "missing data file": (
        BASE.replace("data: {data}", "data: nowhere.csv"),
        ["data file not found", "nowhere.csv"],
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_configuration_exits_2_naming_key_and_line(demo_dir, tmp_path, case):
    text, expected = BAD[case]
    cfg = tmp_path / "audit.yaml"
    cfg.write_text(
        text.format(
            data=demo_dir / "inputs" / "credit_world.csv", model=demo_dir / "inputs" / "lr.skops"
        )
    )
    out = tmp_path / "out"
    result = runner.invoke(app, ["audit", str(cfg), "--out", str(out), "--no-progress"])
    assert result.exit_code == 2, result.output
    message = " ".join(result.output.split())
    for piece in expected:
        assert piece in message, (piece, message)
    assert "Traceback" not in result.output
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["audit.yaml"]  # no staging folder left


def test_missing_config_file_exits_2(tmp_path):
    result = runner.invoke(
        app, ["audit", str(tmp_path / "nope.yaml"), "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 2
    assert "configuration file not found" in result.output
    assert not (tmp_path / "o").exists()


def test_help_has_a_worked_example():
    for cmd in ("audit", "demo"):
        result = runner.invoke(app, [cmd, "--help"])
        assert result.exit_code == 0
        assert "Example" in result.output and "out/demo" in result.output


def _demo_config_on(demo_dir: Path, folder: Path, data: Path) -> Path:
    """The demo's full audit.yaml (every analysis) reading ``data``, written into ``folder``."""
    cfg = yaml.safe_load((demo_dir / "audit.yaml").read_text())
    cfg["data"] = str(data)
    cfg["decision"] = {"model": str(demo_dir / cfg["decision"]["model"])}
    for dm in cfg["analyses"]["certainty"]["decision_makers"].values():
        if "model" in dm:
            dm["model"] = str(demo_dir / dm["model"])
    folder.mkdir()
    path = folder / "audit.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


def test_parquet_folder_gives_the_same_audit_as_csv(demo_dir, tmp_path):
    """A folder of Parquet parts (plus files a writer leaves beside them) is read as one table
    in part order, and every number and table of the audit equals the CSV run's."""
    import pandas as pd

    frame = pd.read_csv(demo_dir / "inputs" / "credit_world.csv")
    frame["notes"] = [f"note {i}" for i in range(len(frame))]  # a column no analysis uses
    csv = tmp_path / "world.csv"
    frame.to_csv(csv, index=False)
    parts = tmp_path / "world.parquet"
    parts.mkdir()
    bounds = [0, 70, 71, len(frame)]  # unequal parts, one of a single row
    for i, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:], strict=True)):
        frame.iloc[lo:hi].to_parquet(parts / f"part-{i:05d}.parquet", index=False)
    (parts / "_SUCCESS").write_text("")
    (parts / ".part-00000.parquet.crc").write_bytes(b"\0")
    docs, tables = {}, {}
    for name, data in (("csv", csv), ("parquet", parts)):
        cfg = _demo_config_on(demo_dir, tmp_path / name, data)
        out = tmp_path / name / "out"
        result = runner.invoke(app, ["audit", str(cfg), "--out", str(out), "--no-progress"])
        assert result.exit_code == 0, result.output
        doc = json.loads((out / "results.json").read_text())
        assert {a["status"] for a in doc["analyses"].values()} == {"ok"}
        assert [i["role"] for i in doc["inputs"]][0] == "data"
        # input paths and hashes (also in the provenance), report bytes (names the path)
        for key in ("inputs", "files", "provenance"):
            doc.pop(key)
        doc["config"].pop("data")
        docs[name] = doc
        tables[name] = {p.name: p.read_bytes() for p in sorted((out / "tables").iterdir())}
    assert docs["parquet"] == docs["csv"]
    assert len(tables["csv"]) > 10
    assert tables["parquet"] == tables["csv"]


# ---------------------------------------------------------------------- issue 19 item 7
@pytest.mark.parametrize("command", ["audit", "certainty"])
def test_a_model_file_inside_out_is_refused_and_left_alone(demo_dir, tmp_path, command):
    """Every path the configuration names is an input: a model file inside --out is exit 2
    (for audit before any analysis runs), and nothing in --out changes."""
    import shutil

    out = tmp_path / "out"
    out.mkdir()
    model = next((demo_dir / "inputs").glob("lr.*"))
    shutil.copy(model, out / model.name)
    path = _cheap_config(demo_dir, tmp_path)
    cfg = yaml.safe_load(path.read_text())
    cfg["decision"] = {**cfg["decision"], "model": str(out / model.name)}
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    args = [command, str(path)] if command == "audit" else [command, "--config", str(path)]
    result = runner.invoke(app, [*args, "--out", str(out)])
    text = " ".join(result.output.split())
    assert result.exit_code == 2, text
    assert f"holds the input {out / model.name}" in text
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
