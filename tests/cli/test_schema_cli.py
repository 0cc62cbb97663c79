"""``primafacie schema``: audit.yaml's JSON Schema by default, results.json's with --results
(the text of docs/results.schema.json), to stdout or to a file."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from primafacie.cli import app
from primafacie.report.schema import results_schema_text

runner = CliRunner()


def test_schema_prints_the_audit_yaml_schema():
    res = runner.invoke(app, ["schema"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["title"] == "primafacie audit.yaml"


def test_schema_results_prints_the_results_json_schema():
    res = runner.invoke(app, ["schema", "--results"])
    assert res.exit_code == 0, res.output
    assert res.stdout == results_schema_text()
    assert json.loads(res.stdout)["title"] == "primafacie results.json"


def test_schema_results_out_writes_the_file(tmp_path):
    out = tmp_path / "results.schema.json"
    res = runner.invoke(app, ["schema", "--results", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert out.read_text(encoding="utf-8") == results_schema_text()
