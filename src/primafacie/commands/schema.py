"""``primafacie schema``: print the JSON Schema of audit.yaml."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from ._common import console, guarded

HELP = """Print the JSON Schema of audit.yaml (for editors and validators).

Examples (to stdout, or to a file written atomically):

    primafacie schema > audit.schema.json

    primafacie schema --out audit.schema.json
"""


def register(app: typer.Typer) -> None:
    @app.command("schema", help=HELP)
    @guarded
    def schema(
        out: Optional[Path] = typer.Option(
            None, "--out", help="Write to this file instead of stdout."
        ),
    ) -> None:
        # imported here: the CLI loads this module (for --help) before any command runs
        from ..config import config_schema
        from ..io import atomic_write_text

        text = json.dumps(config_schema(), indent=2, sort_keys=True) + "\n"
        if out is None:
            console.file.write(text)
        else:
            atomic_write_text(out, text)
            console.print(f"wrote {out}")
