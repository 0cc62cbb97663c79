"""Atomic output: files and folders appear whole or not at all; inputs are never touched."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
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


def _read_manifest(path: Path) -> dict[str, dict[str, str | None]]:
    """owner -> {relative path: sha256 when written}; a bare list (older format) has no hashes."""
    try:
        data = json.loads((path / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    out: dict[str, dict[str, str | None]] = {}
    for owner, files in data.items():
        if isinstance(files, list):
            out[str(owner)] = {str(f): None for f in files}
        elif isinstance(files, dict):
            out[str(owner)] = {str(f): (str(h) if h else None) for f, h in files.items()}
    return out


def _stale_file(root: Path, rel: str, sha: str | None, keep: set[Path]) -> Path | None:
    """``root/rel`` when it is safe to delete: a regular file inside ``root`` reached without
    symlinks, unchanged since it was written (same SHA-256) and not an input of this run."""
    parts = Path(rel).parts
    if not parts or Path(rel).is_absolute() or ".." in parts or parts[-1] == MANIFEST:
        return None
    target = root / rel
    step = root
    for part in parts:
        step = step / part
        if step.is_symlink():
            return None
    if sha is None or not target.is_file() or target.resolve() in keep:
        return None
    return target if file_sha256(target) == sha else None


@contextlib.contextmanager
def atomic_output_dir(
    path: str | os.PathLike,
    owner: str | None = None,
    keep: Iterable[str | os.PathLike] = (),
) -> Iterator[Path]:
    """Yield a staging folder; on success its files are moved into ``path``.

    On any exception the staging folder is removed and ``path`` is left as it was, so a
    failed run never leaves a half-written output folder behind.

    With ``owner`` (the command's name), the files written are listed in ``path``'s
    ``.primafacie-manifest.json`` under that owner, and files the same owner wrote on an
    earlier run into ``path`` but did not write this time are removed, so a report never sits
    next to stale tables of a previous run. Files of other owners and files primafacie did not
    write are kept, and so are a file changed since it was written (its SHA-256 differs: it is
    the user's now), a file reached through a symlink, a file another owner rewrote since, and
    the files in ``keep`` (the run's inputs, e.g. a table it wrote before and now audits).
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
            kept = {Path(k).resolve() for k in keep if k is not None}
            hashes = {rel: file_sha256(path / rel) for rel in written}
            for rel, sha in sorted(manifest.get(owner, {}).items()):
                if rel not in hashes:
                    old = _stale_file(root, rel, sha, kept)
                    if old is not None:
                        old.unlink()
            # the last writer owns a file: another owner's rerun must not delete it
            for other, files in manifest.items():
                if other != owner:
                    manifest[other] = {f: h for f, h in files.items() if f not in hashes}
            manifest[owner] = hashes
            manifest = {k: v for k, v in manifest.items() if v}
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
