"""``primafacie schema``: print the JSON Schema of audit.yaml (or of results.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from ._common import console, guarded

HELP = """Print the JSON Schema of audit.yaml (for editors and validators), or with
--results the JSON Schema of the results.json an audit writes.

Examples (to stdout, or to a file written atomically):

    primafacie schema > audit.schema.json

    primafacie schema --out audit.schema.json

    primafacie schema --results --out results.schema.json
"""


def register(app: typer.Typer) -> None:
    @app.command("schema", help=HELP)
    @guarded
    def schema(
        out: Optional[Path] = typer.Option(
            None, "--out", help="Write to this file instead of stdout."
        ),
        results: bool = typer.Option(
            False,
            "--results",
            help="The schema of results.json (docs/results.schema.json) instead of audit.yaml's.",
        ),
    ) -> None:
        # imported here: the CLI loads this module (for --help) before any command runs
        from ..io import atomic_write_text

        if results:
            from ..report.schema import results_schema_text

            text = results_schema_text()
        else:
            from ..config import config_schema

            text = json.dumps(config_schema(), indent=2, sort_keys=True) + "\n"
        if out is None:
            console.file.write(text)
        else:
            atomic_write_text(out, text)
            console.print(f"wrote {out}")
