"""Read a saved audit (``results.json`` and its tables) under the versioned JSON contract.

``results.json`` carries ``schema_version`` (see ``docs/results-schema.md``). A reader accepts
the versions in :data:`SUPPORTED_VERSIONS` and refuses any other with a message naming the file,
the version found and the versions it reads, so ``diff`` and ``check`` never guess at a layout.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import InputError

__all__ = ["SUPPORTED_VERSIONS", "AuditRecord", "read_results"]

#: ``schema_version`` values this reader understands. Version "1" is the first versioned
#: layout; a later version that only adds keys stays readable by adding it here.
SUPPORTED_VERSIONS: tuple[str, ...] = ("1",)

_RESULTS = "results.json"


def _reject_constant(name: str) -> Any:
    # results.json is written with allow_nan=False: NaN/Infinity means a foreign or edited file
    raise ValueError(f"non-standard JSON number {name}")


@dataclass(frozen=True)
class AuditRecord:
    """One saved audit: its ``results.json`` document and the folder holding its tables.

    Attributes
    ----------
    path
        The ``results.json`` file read.
    doc
        Its parsed content.
    """

    path: Path
    doc: Mapping[str, Any]

    @property
    def folder(self) -> Path:
        """The audit folder (``tables/`` lives here)."""
        return self.path.parent

    @property
    def version(self) -> str:
        """The ``schema_version`` of the file."""
        return str(self.doc["schema_version"])

    def analysis(self, name: str) -> Mapping[str, Any] | None:
        """The ``analyses.<name>`` record when that analysis ran with status ``ok``, else None."""
        run = self.doc.get("analyses", {}).get(name)
        if not isinstance(run, Mapping) or run.get("status") != "ok":
            return None
        return run

    def numbers(self, name: str) -> Mapping[str, Any]:
        """The headline numbers of analysis ``name`` (empty when it did not run)."""
        run = self.analysis(name)
        numbers = run.get("numbers") if run else None
        return numbers if isinstance(numbers, Mapping) else {}

    def analysis_config(self, name: str) -> Mapping[str, Any] | None:
        """``config.analyses.<name>`` as resolved by the audit (None when absent)."""
        cfg = self.doc.get("config", {}).get("analyses", {})
        value = cfg.get(name) if isinstance(cfg, Mapping) else None
        return value if isinstance(value, Mapping) else None

    def table(self, rel: str) -> pd.DataFrame | None:
        """A table the audit wrote (``tables/x.csv``), or None when it is listed but missing.

        Only files listed in ``files`` are read, and only inside the audit's ``tables/``, so a hostile
        ``results.json`` cannot point the reader at another file.
        """
        if rel not in set(self.doc.get("files", [])) or not rel.startswith("tables/"):
            return None
        target = (self.folder / rel).resolve()
        if (self.folder / "tables").resolve() not in target.parents or not target.is_file():
            return None
        if rel.endswith(".parquet"):  # a part of a table written as Parquet parts
            return _text_keys(pd.read_parquet(target))
        # ids and labels stay text: "007" and "7" are different people
        return pd.read_csv(target, dtype={"id": str, "test": str, "method": str})

    def parts(self, folder: str) -> pd.DataFrame | None:
        """A table written as Parquet parts (``tables/x/part-*.parquet``, listed in
        ``files``), its parts read in order and stacked; None when no part is listed or one
        is missing. Ids and labels come back as text, as :meth:`table` reads a CSV.

        Parameters
        ----------
        folder
            ``tables/x/`` (ending with ``/``).
        """
        rels = sorted(
            f
            for f in self.doc.get("files", [])
            if isinstance(f, str) and f.startswith(folder) and f.endswith(".parquet")
            and "/" not in f[len(folder):]
        )  # fmt: skip
        frames = [self.table(rel) for rel in rels]
        if not frames or any(f is None for f in frames):
            return None
        return pd.concat(frames, ignore_index=True)


def _text_keys(frame: pd.DataFrame) -> pd.DataFrame:
    """Ids and labels as text (as the CSV reader keeps them): "7" whatever the Parquet type."""
    for col in ("id", "test", "method"):
        if col in frame.columns:
            frame[col] = frame[col].astype(str)
    return frame


def _locate(path: str | Path) -> Path:
    p = Path(path)
    if p.is_dir():
        p = p / _RESULTS
    if not p.is_file():
        raise InputError(
            f"{path}: no audit found; expected a folder written by `primafacie audit` "
            f"(holding {_RESULTS}) or the {_RESULTS} file itself"
        )
    return p


def read_results(path: str | Path) -> AuditRecord:
    """Read an audit folder or its ``results.json``, checking ``schema_version``.

    Parameters
    ----------
    path
        A folder written by ``primafacie audit`` (or ``demo``), or its ``results.json``.

    Returns
    -------
    AuditRecord

    Raises
    ------
    InputError
        No such file, not JSON, not an object, no ``schema_version``, or a version this
        reader does not support (the message names the version found and those supported).

    Examples
    --------
    >>> read_results("out/demo").version  # doctest: +SKIP
    '1'
    """
    p = _locate(path)
    try:
        doc = json.loads(p.read_text(encoding="utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"{p}: not a valid results.json ({exc})") from None
    if not isinstance(doc, dict):
        raise InputError(f"{p}: expected a JSON object, found {type(doc).__name__}")
    supported = ", ".join(SUPPORTED_VERSIONS)
    if "schema_version" not in doc:
        raise InputError(
            f"{p}: no schema_version; this primafacie reads results.json schema_version "
            f"{supported}. Re-run the audit with this version to compare it."
        )
    version = doc["schema_version"]
    if isinstance(version, bool) or str(version) not in SUPPORTED_VERSIONS:
        raise InputError(
            f"{p}: results.json schema_version {version!r} is not supported; this primafacie "
            f"reads schema_version {supported}. Use the primafacie release that wrote it, or "
            "re-run the audit."
        )
    if not isinstance(doc.get("analyses"), dict):
        raise InputError(f"{p}: key 'analyses' missing or not an object")
    # an edited file: what the readers walk has the shape they walk (never an internal error)
    kinds = {"config": dict, "files": list, "data": dict}
    bad = [f"'{k}' is not {'a list' if t is list else 'an object'}" for k, t in kinds.items()
           if k in doc and not isinstance(doc[k], t)]  # fmt: skip
    bad += [f"'analyses.{n}' is not an object" for n, run in doc["analyses"].items()
            if not isinstance(run, dict)]  # fmt: skip
    if bad:
        raise InputError(f"{p}: not a results.json primafacie wrote: {', '.join(bad)}")
    return AuditRecord(path=p, doc=doc)
