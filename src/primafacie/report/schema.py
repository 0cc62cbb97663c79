"""JSON Schema of results.json (draft 2020-12) and a validator.

The schema fixes the envelope every audit writes: the resolved configuration, the data
description with group counts, input hashes, package versions, seeds, and per analysis its
status, headline, numbers and every result's ``to_dict()``. The inside of one result is owned
by its analysis and only required to be a JSON object.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["RESULTS_SCHEMA", "RESULTS_SCHEMA_FILE", "results_schema_text", "validate_results"]

_COUNT = {"type": "integer", "minimum": 0}

_GROUP = {
    "type": "object",
    "required": [
        "attribute", "protected_values", "n", "n_protected", "n_non_protected",
        "favourable_protected", "favourable_non_protected",
    ],
    "properties": {
        "attribute": {"type": "string"},
        "protected_values": {"type": "array", "items": {"type": "string"}},
        "n": _COUNT,
        "n_protected": _COUNT,
        "n_non_protected": _COUNT,
        "favourable_protected": _COUNT,
        "favourable_non_protected": _COUNT,
        "outcome_favourable_protected": _COUNT,
        "outcome_favourable_non_protected": _COUNT,
    },
    "additionalProperties": False,
}  # fmt: skip

#: The dossier pages an analysis wrote (``dossiers/<id>.html``) and their index rows.
_DOSSIER_ROW = {
    "type": "object",
    "required": ["id", "file", "test", "verdicts"],
    "properties": {
        "file": {"type": "string", "pattern": "^dossiers/[A-Za-z0-9._-]+\\.html$"},
        "test": {"type": "string"},
        "method": {"type": "string"},
        "k": {"type": "integer", "minimum": 1},
        "p_c": {"type": ["number", "null"]},
        "p_t": {"type": ["number", "null"]},
        "delta": {"type": ["number", "null"]},
        "ci_low": {"type": ["number", "string", "null"]},
        "significant": {"type": "boolean"},
        "verdicts": {"type": "string"},
        "rank": {"type": "integer", "minimum": 0},
        "score": {"type": ["number", "string"]},
        "bias_against": {"type": ["string", "null"]},
    },
}  # fmt: skip

_DOSSIERS = {
    "type": "object",
    "required": ["files", "dossiers"],
    "properties": {
        "files": {"type": "array", "items": {"type": "string", "pattern": "^dossiers/"}},
        "dossiers": {"type": "array", "items": _DOSSIER_ROW},
    },
    "additionalProperties": False,
}


#: A list of records, or (when longer than MAX_JSON_ROWS) its row count and the CSV holding it
#: (or the folder of its Parquet parts: ``situation.partitioned``).
def _records(row: dict[str, Any]) -> dict[str, Any]:
    pruned = {
        "type": "object",
        "required": ["rows", "see"],
        "properties": {
            "rows": _COUNT,
            # a CSV, or the folder of a table written as Parquet parts
            "see": {"type": "string", "pattern": "^tables/[a-z0-9_]+(\\.csv|/)$"},
        },
        "additionalProperties": False,
    }
    return {"oneOf": [{"type": "array", "items": row}, pruned]}


def _row(required: list[str], **types: Any) -> dict[str, Any]:
    return {"type": "object", "required": required, "properties": types}


_TEXT = {"type": "string"}
_ANY_ID = {"type": ["string", "integer", "number"]}

#: The robustness-to-the-causal-model result (``results.sensitivity`` of an analysis, written
#: by primafacie.situation.sensitivity): the variants tried, robust cases by k, significant
#: cases per variant and k, verdicts that hang on one edge, per-complainant verdict counts.
_SENSITIVITY = {
    "type": "object",
    "required": ["params", "variants", "robust", "summary", "single_edge", "complainants"],
    "properties": {
        "params": _row(["edges_removed", "edges_added", "mechanisms", "graphs"]),
        "variants": _records(
            _row(
                ["test", "variant", "kind", "edge", "mechanism", "n_edges"],
                kind={"enum": ["edge removed", "edge added", "mechanism", "graph"]},
                n_edges=_COUNT,
            )
        ),
        "robust": _records(
            _row(
                ["test", "k", "method", "significant", "robust", "n_variants", "denominator"],
                k=_COUNT,
                significant=_COUNT,
                robust=_COUNT,
                n_variants=_COUNT,
                denominator=_COUNT,
            )
        ),
        "summary": _records(
            _row(
                [
                    "test",
                    "variant",
                    "kind",
                    "k",
                    "method",
                    "significant",
                    "gained",
                    "lost",
                    "unchanged",
                    "denominator",
                ],
                variant=_TEXT,
                significant=_COUNT,
                gained=_COUNT,
                lost=_COUNT,
                unchanged=_COUNT,
                denominator=_COUNT,
            )
        ),
        "single_edge": _records(
            _row(
                ["test", "row", "id", "k", "significant", "variant", "edge", "change"],
                row=_COUNT,
                id=_ANY_ID,
                k=_COUNT,
                significant={"type": "boolean"},
                edge=_TEXT,
            )
        ),
        "complainants": _records(
            _row(
                [
                    "test",
                    "row",
                    "id",
                    "k",
                    "significant",
                    "n_variants",
                    "n_same",
                    "robust",
                    "overturned_by",
                ],
                row=_COUNT,
                n_same=_COUNT,
                robust={"type": "boolean"},
                overturned_by=_TEXT,
            )
        ),
    },
}

_ANALYSIS = {
    "type": "object",
    "required": [
        "status",
        "message",
        "headline",
        "scope",
        "caveats",
        "numbers",
        "results",
        "tables",
    ],
    "properties": {
        "status": {"enum": ["ok", "unavailable", "failed"]},
        "message": {"type": "string"},
        "headline": {"type": "string"},
        "scope": {"type": "string"},
        "caveats": {"type": "array", "items": {"type": "string"}},
        "numbers": {"type": "object"},
        "results": {
            "type": "object",
            "properties": {"dossiers": _DOSSIERS, "sensitivity": _SENSITIVITY},
            "additionalProperties": {"type": "object"},
        },
        "tables": {
            "type": "array",
            "items": {"type": "string", "pattern": "^tables/[a-z0-9_]+\\.csv$"},
        },
    },
    "additionalProperties": False,
    "allOf": [
        {
            "if": {"properties": {"status": {"const": "ok"}}},
            "then": {"properties": {"results": {"minProperties": 1}}},
            "else": {"properties": {"results": {"maxProperties": 0}, "message": {"minLength": 1}}},
        }
    ],
}

RESULTS_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "primafacie results.json",
    "type": "object",
    "required": ["schema_version", "config", "data", "inputs", "versions", "seeds", "analyses", "files"],
    "properties": {
        "schema_version": {"const": "1"},
        "config": {
            "type": "object",
            "required": ["data", "decision", "features", "protected", "analyses"],
        },
        "data": {
            "type": "object",
            "required": ["n", "features", "protected", "decision_source", "n_favourable", "groups"],
            "properties": {
                "n": {"type": "integer", "minimum": 1},
                "features": {"type": "object", "additionalProperties": {"enum": ["numeric", "categorical", "ordinal"]}},
                "protected": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}},
                "decision_source": {"type": "string"},
                "n_favourable": _COUNT,
                "outcome": {"type": ["string", "null"]},
                "n_outcome_favourable": {"type": ["integer", "null"], "minimum": 0},
                "groups": {"type": "array", "minItems": 1, "items": _GROUP},
                # data.reader when given: asked for, used, and why DuckDB fell back
                "reader": {
                    "type": "object",
                    "required": ["requested", "used", "fallback"],
                    "properties": {
                        "requested": {"enum": ["duckdb", "pandas"]},
                        "used": {"enum": ["duckdb", "pandas", "pyarrow", "calamine"]},
                        "fallback": {"type": ["string", "null"]},
                    },
                    "additionalProperties": False,
                },
            },
        },
        "inputs": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["role", "path", "sha256"],
                "properties": {
                    "role": {"type": "string"},
                    "path": {"type": "string", "minLength": 1},
                    "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
                    # model files only: how the model was read (modelfiles.FORMATS)
                    "format": {"enum": ["skops", "onnx", "pickle"]},
                },
                "additionalProperties": False,
            },
        },
        "versions": {
            "type": "object",
            "required": ["python", "primafacie", "numpy", "pandas", "scikit-learn"],
            "additionalProperties": {"type": "string"},
        },
        "seeds": {"type": "object", "required": ["audit"], "additionalProperties": {"type": "integer"}},
        "provenance": {
            "type": "object",
            "required": ["primafacie", "configuration", "inputs", "seeds", "corrections", "date"],
            "properties": {
                "primafacie": {"type": "string"},
                "configuration": {
                    "type": "object",
                    "required": ["path", "sha256", "resolved_sha256"],
                    "properties": {
                        "path": {"type": ["string", "null"]},
                        "sha256": {"type": ["string", "null"], "pattern": "^[0-9a-f]{64}$"},
                        "resolved_sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
                    },
                    "additionalProperties": False,
                },
                "inputs": {"type": "array"},
                "seeds": {"type": "object", "additionalProperties": {"type": "integer"}},
                "corrections": {"type": "object", "additionalProperties": {"type": "string"}},
                "date": {"type": ["string", "null"], "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
            },
            "additionalProperties": False,
        },
        "analyses": {
            "type": "object",
            "minProperties": 1,
            # one entry per registered analysis (primafacie.audit.registry), by its name
            "propertyNames": {"pattern": "^[a-z][a-z0-9_]*$"},
            "additionalProperties": _ANALYSIS,
        },
        "files": {"type": "array", "items": {"type": "string"}, "contains": {"const": "report.html"}},
    },
    "additionalProperties": False,
}  # fmt: skip


#: The generated copy of :data:`RESULTS_SCHEMA` in the repository, for validators outside
#: Python; regenerated by ``primafacie schema --results --out docs/results.schema.json``
#: (``tests/report/test_schema.py`` fails when it is out of date).
RESULTS_SCHEMA_FILE = "docs/results.schema.json"


def results_schema_text() -> str:
    """:data:`RESULTS_SCHEMA` as the text of ``docs/results.schema.json`` (what
    ``primafacie schema --results`` prints): sorted keys, two-space indent, final newline.

    Examples
    --------
    >>> json.loads(results_schema_text())["properties"]["schema_version"]
    {'const': '1'}
    """
    return json.dumps(RESULTS_SCHEMA, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def validate_results(doc: Any) -> None:
    """Validate a results.json document; raise ``jsonschema.ValidationError`` when it does not fit.

    Examples
    --------
    >>> validate_results({"schema_version": "1"})  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    jsonschema.exceptions.ValidationError: 'config' is a required property
    """
    import jsonschema

    jsonschema.Draft202012Validator(RESULTS_SCHEMA).validate(doc)
