"""docs/results.schema.json: generated from primafacie.report.schema.RESULTS_SCHEMA, up to
date, and the demo's results.json validates against the file itself (what a validator outside
Python reads)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest

from primafacie.report.schema import RESULTS_SCHEMA, RESULTS_SCHEMA_FILE, results_schema_text

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def schema_file() -> dict:
    return json.loads((ROOT / RESULTS_SCHEMA_FILE).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def demo_results(demo_audit) -> dict:
    folder, _ = demo_audit
    return json.loads((folder / "results.json").read_text(encoding="utf-8"))


def test_schema_file_is_up_to_date():
    text = (ROOT / RESULTS_SCHEMA_FILE).read_text(encoding="utf-8")
    assert text == results_schema_text(), (
        f"{RESULTS_SCHEMA_FILE} is out of date: run "
        "`primafacie schema --results --out docs/results.schema.json`"
    )
    assert json.loads(text) == RESULTS_SCHEMA


def test_schema_file_is_a_valid_draft_2020_12_schema(schema_file):
    jsonschema.Draft202012Validator.check_schema(schema_file)
    assert schema_file["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_demo_results_validate_against_the_file(schema_file, demo_results):
    jsonschema.Draft202012Validator(schema_file).validate(demo_results)
    assert len(demo_results["analyses"]) > 1  # every analysis of the demo was checked


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda d: d.update(schema_version="2"), "'1' was expected"),
        (lambda d: d.pop("files"), "'files' is a required property"),
        (lambda d: d["inputs"][0].update(sha256="not-a-hash"), "does not match"),
        (lambda d: next(iter(d["analyses"].values())).update(status="done"), "is not one of"),
        (lambda d: d.update(extra=1), "Additional properties are not allowed"),
    ],
)
def test_an_altered_results_json_is_refused_by_the_file(schema_file, demo_results, edit, words):
    doc = copy.deepcopy(demo_results)
    edit(doc)
    errors = [e.message for e in jsonschema.Draft202012Validator(schema_file).iter_errors(doc)]
    assert any(words in m for m in errors), errors
