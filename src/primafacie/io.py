"""Atomic output: files and folders appear whole or not at all; inputs are never touched."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = [
    "atomic_write_text",
    "atomic_write_bytes",
    "atomic_write_csv",
    "atomic_write_json",
    "atomic_output_dir",
    "file_sha256",
]


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _current_umask()


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp creates 0600 files; outputs get the permissions a plain open() would give.
        os.fchmod(fd, 0o666 & ~_UMASK)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return path


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """Write UTF-8 text atomically (LF line endings, so outputs are byte-identical everywhere)."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_csv(path: str | os.PathLike, frame: pd.DataFrame, **kwargs: Any) -> Path:
    """Write a DataFrame as CSV atomically; the index is dropped unless ``index=True``."""
    kwargs.setdefault("index", False)
    kwargs.setdefault("lineterminator", "\n")
    return atomic_write_text(path, frame.to_csv(**kwargs))


def atomic_write_json(path: str | os.PathLike, obj: Any) -> Path:
    """Write JSON atomically with sorted keys and a stable layout (deterministic bytes)."""
    text = json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False)
    return atomic_write_text(path, text + "\n")


MANIFEST = ".primafacie-manifest.json"


def _read_manifest(path: Path) -> dict[str, list[str]]:
    try:
        data = json.loads((path / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): [str(f) for f in v] for k, v in data.items() if isinstance(v, list)}


@contextlib.contextmanager
def atomic_output_dir(path: str | os.PathLike, owner: str | None = None) -> Iterator[Path]:
    """Yield a staging folder; on success its files are moved into ``path``.

    On any exception the staging folder is removed and ``path`` is left as it was, so a
    failed run never leaves a half-written output folder behind.

    With ``owner`` (the command's name), the files written are listed in ``path``'s
    ``.primafacie-manifest.json`` under that owner, and files the same owner wrote on an
    earlier run into ``path`` but did not write this time are removed, so a report never sits
    next to stale tables of a previous run. Files of other owners and files primafacie did not
    write are kept.
    """
    path = Path(path)
    parent = path.resolve().parent
    parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=parent))
    os.chmod(stage, 0o777 & ~_UMASK)
    try:
        yield stage
        path.mkdir(parents=True, exist_ok=True)
        written = []
        for item in sorted(stage.rglob("*")):
            if item.is_file():
                rel = item.relative_to(stage)
                target = path / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                os.replace(item, target)
                written.append(rel.as_posix())
        if owner is not None:
            manifest = _read_manifest(path)
            root = path.resolve()
            for rel in sorted(set(manifest.get(owner, [])) - set(written)):
                old = (path / rel).resolve()
                # only files inside the folder, never the manifest itself
                if root in old.parents and old.name != MANIFEST and old.is_file():
                    old.unlink()
            manifest[owner] = written
            atomic_write_text(
                path / MANIFEST, json.dumps(manifest, indent=1, sort_keys=True) + "\n"
            )
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def file_sha256(path: str | os.PathLike) -> str:
    """Hex SHA-256 of a file, read in 1 MiB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
