"""The versioned results.json contract: supported versions read, others refused clearly."""

from __future__ import annotations

import json

import pytest

from primafacie.errors import InputError
from primafacie.overtime.reader import SUPPORTED_VERSIONS, read_results


def _write(tmp_path, doc, text=None):
    p = tmp_path / "results.json"
    p.write_text(text if text is not None else json.dumps(doc), encoding="utf-8")
    return p


def test_reads_a_folder_or_the_file(tmp_path):
    _write(tmp_path, {"schema_version": "1", "analyses": {}, "files": []})
    assert read_results(tmp_path).version == "1"
    assert read_results(tmp_path / "results.json").folder == tmp_path


@pytest.mark.parametrize(
    "doc, words",
    [
        ({"analyses": {}}, "no schema_version"),
        ({"schema_version": "2", "analyses": {}}, "schema_version '2' is not supported"),
        ({"schema_version": True, "analyses": {}}, "not supported"),
        ({"schema_version": "1"}, "'analyses' missing"),
        ([1, 2], "expected a JSON object"),
        # an edited file ended diff and check with "internal error: AttributeError"
        ({"schema_version": "1", "analyses": {}, "config": None}, "'config' is not an object"),
        ({"schema_version": "1", "analyses": {"groups": None}}, "'analyses.groups' is not an"),
        ({"schema_version": "1", "analyses": {}, "files": {}}, "'files' is not a list"),
    ],
)
def test_refuses_other_versions_and_shapes(tmp_path, doc, words):
    _write(tmp_path, doc)
    with pytest.raises(InputError, match=words) as err:
        read_results(tmp_path)
    assert str(tmp_path) in str(err.value)
    if "version" in words:
        assert ", ".join(SUPPORTED_VERSIONS) in str(err.value)


def test_refuses_non_json_nan_and_missing(tmp_path):
    _write(tmp_path, None, text='{"schema_version": "1", "analyses": {}, "x": NaN}')
    with pytest.raises(InputError, match="not a valid results.json"):
        read_results(tmp_path)
    with pytest.raises(InputError, match="no audit found"):
        read_results(tmp_path / "nowhere")


def test_tables_are_read_only_when_listed_and_inside(tmp_path):
    (tmp_path / "tables").mkdir()
    (tmp_path / "tables" / "a.csv").write_text("id,x\n007,1\n", encoding="utf-8")
    (tmp_path / "secret.csv").write_text("id\n1\n", encoding="utf-8")
    doc = {"schema_version": "1", "analyses": {},
           "files": ["tables/a.csv", "tables/../secret.csv", "tables/missing.csv"]}  # fmt: skip
    rec = read_results(_write(tmp_path, doc))
    assert rec.table("tables/a.csv")["id"].tolist() == ["007"]  # ids stay text
    assert rec.table("tables/../secret.csv") is None
    assert rec.table("tables/missing.csv") is None
    assert rec.table("tables/unlisted.csv") is None


def test_the_written_version_is_read_and_documented():
    from primafacie.audit.result import RESULTS_SCHEMA_VERSION
    from primafacie.paths import PROJECT_ROOT
    from primafacie.report.schema import RESULTS_SCHEMA

    assert RESULTS_SCHEMA_VERSION in SUPPORTED_VERSIONS
    assert RESULTS_SCHEMA["properties"]["schema_version"]["const"] == RESULTS_SCHEMA_VERSION
    doc = (PROJECT_ROOT / "docs" / "results-schema.md").read_text(encoding="utf-8")
    assert f'schema_version "{RESULTS_SCHEMA_VERSION}"' in doc
