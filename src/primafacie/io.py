"""Atomic output: files and folders appear whole or not at all; inputs are never touched."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
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
    "atomic_write_table",
    "cells_as_values",
    "atomic_write_json",
    "atomic_output_dir",
    "check_output_dir",
    "clean_stale_staging",
    "file_sha256",
    "sha256_file",
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


#: First characters that make a spreadsheet read a text cell as a formula (OWASP CSV injection).
_FORMULA_START = r"^[=+\-@\t\r]"


def _quote_text(values: pd.Series) -> pd.Series:
    """Prefix ``'`` to the text cells of ``values`` that start a formula; others untouched."""
    if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_datetime64_any_dtype(values):
        return values  # a number (negative included) stays a number
    if isinstance(values.dtype, pd.CategoricalDtype):
        values = values.astype(object)
    try:  # .str gives NaN for a non-text cell (a number in a mixed column): never prefixed
        hit = values.str.contains(_FORMULA_START, regex=True, na=False).astype(bool)
    except AttributeError:  # no text at all (an object column of numbers or None)
        return values
    if not hit.any():
        return values
    return values.mask(hit, "'" + values[hit].astype(str))


def cells_as_values(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every text cell (and column name) that starts with ``=``, ``+``, ``-``,
    ``@``, a tab or a carriage return prefixed by ``'``, so that a spreadsheet shows it as text
    instead of running it as a formula; numeric columns are returned unchanged.

    Parameters
    ----------
    frame
        A table about to be written as CSV (the data and its names come from the auditee).

    Returns
    -------
    pandas.DataFrame
        A copy when anything changed, else ``frame`` itself.

    Examples
    --------
    >>> df = pd.DataFrame({"id": ["=HYPERLINK(1)", "a-b", "-3"], "x": [-1.5, 2.0, 3.0]})
    >>> cells_as_values(df).values.tolist()
    [["'=HYPERLINK(1)", -1.5], ['a-b', 2.0], ["'-3", 3.0]]
    """
    cols = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
    out = frame
    for c in cols:
        new = _quote_text(frame[c])
        if new is not frame[c]:
            out = out.copy() if out is frame else out
            out[c] = new
    names = _quote_text(pd.Series([str(c) for c in frame.columns], dtype=object))
    if (names != pd.Series([str(c) for c in frame.columns], dtype=object)).any():
        out = out.copy() if out is frame else out
        out.columns = names.tolist()
    return out


def atomic_write_table(path: str | os.PathLike, frame: pd.DataFrame, **kwargs: Any) -> Path:
    """Write an output table (``tables/*.csv``, a command's CSVs) atomically, its cells
    values, never formulas (:func:`cells_as_values`); ``results.json`` keeps the raw values.
    ``kwargs`` go to :func:`atomic_write_csv`."""
    return atomic_write_csv(path, cells_as_values(frame), **kwargs)


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


#: Sibling folders of an output folder ``out``: ``.out.staging-<pid>-<random>`` receives the
#: run's files, ``.out.backup-<pid>-<random>`` holds the replaced files during the swap.
_SIDE_RE = r"\.{name}\.(staging|backup)-(\d+)-[A-Za-z0-9_]+"


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, owned by someone else
        return True
    return True


def _move_tree(src: Path, dst: Path) -> None:
    """Move every file under ``src`` to the same place under ``dst`` (overwriting)."""
    for item in sorted(src.rglob("*")):
        if item.is_file() or item.is_symlink():
            target = dst / item.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(item, target)


def clean_stale_staging(path: str | os.PathLike) -> list[Path]:
    """Remove the staging folders a killed run into ``path`` left beside it.

    A folder ``.<name>.staging-<pid>-*`` whose process is gone is deleted. A
    ``.<name>.backup-<pid>-*`` of a dead process means the run was killed while it swapped its
    files in: the backed-up (previous) files are moved back first, so the folder returns to its
    previous owned files as far as they were replaced. Folders of live processes (a concurrent
    run) are left alone.

    Returns
    -------
    list of Path
        The folders removed.
    """
    path = Path(path)
    parent = path.resolve().parent
    if not parent.is_dir():
        return []
    pattern = re.compile(_SIDE_RE.format(name=re.escape(path.resolve().name)) + r"\Z")
    removed = []
    for side in sorted(parent.iterdir()):
        m = pattern.match(side.name)
        if not m or not side.is_dir() or side.is_symlink() or _pid_alive(int(m.group(2))):
            continue
        if m.group(1) == "backup":
            with contextlib.suppress(OSError):
                _move_tree(side, path)
        shutil.rmtree(side, ignore_errors=True)
        removed.append(side)
    return removed


def check_output_dir(path: str | os.PathLike, inputs: Iterable[str | os.PathLike] = ()) -> Path:
    """Check that ``path`` can be an output folder, before any work is done.

    Parameters
    ----------
    path
        The output folder (``--out``); it may not exist yet.
    inputs
        The run's input files; none of them may be the output folder itself.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    InputError
        When ``path`` is an input file of the run, an existing file (not a folder), or a
        folder that cannot be created or written to; the message names the path.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> check_output_dir(d / "out") == d / "out"
    True
    >>> (d / "data.csv").write_text("a\\n1\\n")
    4
    >>> check_output_dir(d / "data.csv", inputs=[d / "data.csv"])
    Traceback (most recent call last):
    ...
    primafacie.errors.InputError: --out ... is the input file ...; choose a folder ...
    """
    from .errors import InputError

    path = Path(path)
    resolved = path.resolve()
    for item in inputs:
        if item is not None and Path(item).resolve() == resolved:
            raise InputError(
                f"--out {path} is the input file {item}; choose a folder for the outputs "
                "(inputs are never overwritten)"
            )
    if path.exists() and not path.is_dir():
        raise InputError(f"--out {path} is an existing file, not a folder; choose a folder")
    existing = resolved
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise InputError(f"--out {path}: {existing} is a file, so the folder cannot be created")
    # the staging folder is created beside ``path``, so its parent must be writable too
    for folder in {existing, resolved.parent if resolved.parent.exists() else existing}:
        if not os.access(folder, os.W_OK | os.X_OK):
            raise InputError(f"--out {path}: the folder {folder} is not writable")
    if path.is_dir() and not os.access(path, os.W_OK | os.X_OK):
        raise InputError(f"--out {path}: the folder is not writable")
    return path


def _swap_in(
    stage: Path, path: Path, written: list[str], stale: list[str], owner_manifest: Any
) -> None:
    """Replace the owned files of ``path`` by the staged ones, all or nothing.

    The files about to be replaced or removed (and the manifest) are first moved into a
    backup folder beside ``path``; then the staged files are moved in and the manifest
    written. Any failure (including KeyboardInterrupt) moves everything back.
    """
    backup = Path(
        tempfile.mkdtemp(
            prefix=f".{path.resolve().name}.backup-{os.getpid()}-", dir=path.resolve().parent
        )
    )
    existed = path.exists()
    created: list[Path] = []
    moved_in: list[Path] = []
    moved_out: list[tuple[Path, Path]] = []
    try:
        path.mkdir(parents=True, exist_ok=True)
        for rel in [*written, *stale, MANIFEST if owner_manifest is not None else None]:
            if rel is None:
                continue
            old = path / rel
            if old.is_file() or old.is_symlink():
                dst = backup / rel
                dst.parent.mkdir(parents=True, exist_ok=True)
                os.replace(old, dst)
                moved_out.append((dst, old))
        for rel in written:
            target = path / rel
            parent = target.parent
            missing = []
            while not parent.exists():
                missing.append(parent)
                parent = parent.parent
            target.parent.mkdir(parents=True, exist_ok=True)
            created.extend(reversed(missing))
            os.replace(stage / rel, target)
            moved_in.append(target)
        if owner_manifest is not None:
            atomic_write_text(
                path / MANIFEST, json.dumps(owner_manifest, indent=1, sort_keys=True) + "\n"
            )
            moved_in.append(path / MANIFEST)
    except BaseException:
        for target in moved_in:
            with contextlib.suppress(OSError):
                target.unlink()
        for dst, old in moved_out:
            with contextlib.suppress(OSError):
                os.replace(dst, old)
        for folder in reversed(created):
            with contextlib.suppress(OSError):
                folder.rmdir()
        if not existed:
            with contextlib.suppress(OSError):
                path.rmdir()
        raise
    finally:
        shutil.rmtree(backup, ignore_errors=True)


@contextlib.contextmanager
def atomic_output_dir(
    path: str | os.PathLike,
    owner: str | None = None,
    keep: Iterable[str | os.PathLike] = (),
) -> Iterator[Path]:
    """Yield a staging folder; on success its files replace the owned files of ``path`` at once.

    At entry ``path`` is checked with :func:`check_output_dir` (``keep`` are the inputs) and
    staging folders a killed run left beside ``path`` are removed
    (:func:`clean_stale_staging`). The run writes into ``.<name>.staging-<pid>-*`` beside
    ``path``. On success every file that will be replaced or removed is moved into a backup
    folder, then the staged files are moved in and the manifest written; a failure during
    this swap moves the backup back. On any exception in the body the staging folder is
    removed and ``path`` is left as it was, so a failed run never leaves a half-written
    output folder behind (all or nothing).

    With ``owner`` (the command's name), the files written are listed in ``path``'s
    ``.primafacie-manifest.json`` under that owner, and files the same owner wrote on an
    earlier run into ``path`` but did not write this time are removed, so a report never sits
    next to stale tables of a previous run. Files of other owners and files primafacie did not
    write are kept, and so are a file changed since it was written (its SHA-256 differs: it is
    the user's now), a file reached through a symlink, a file another owner rewrote since, and
    the files in ``keep`` (the run's inputs, e.g. a table it wrote before and now audits).
    """
    path = Path(path)
    keep = [k for k in keep if k is not None]
    check_output_dir(path, keep)
    clean_stale_staging(path)
    parent = path.resolve().parent
    parent.mkdir(parents=True, exist_ok=True)
    # named after the resolved folder, so "--out ." stages as ".<folder>.staging-*" too
    stage = Path(
        tempfile.mkdtemp(prefix=f".{path.resolve().name}.staging-{os.getpid()}-", dir=parent)
    )
    os.chmod(stage, 0o777 & ~_UMASK)
    try:
        yield stage
        written = [
            item.relative_to(stage).as_posix()
            for item in sorted(stage.rglob("*"))
            if item.is_file()
        ]
        manifest, stale = None, []
        if owner is not None:
            manifest = _read_manifest(path)
            root = path.resolve()
            kept = {Path(k).resolve() for k in keep}
            hashes = {rel: file_sha256(stage / rel) for rel in written}
            for rel, sha in sorted(manifest.get(owner, {}).items()):
                if rel not in hashes and _stale_file(root, rel, sha, kept) is not None:
                    stale.append(rel)
            # the last writer owns a file: another owner's rerun must not delete it
            for other, files in manifest.items():
                if other != owner:
                    manifest[other] = {f: h for f, h in files.items() if f not in hashes}
            manifest[owner] = hashes
            manifest = {k: v for k, v in manifest.items() if v}
        _swap_in(stage, path, written, stale, manifest)
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def sha256_file(path: str | os.PathLike) -> str:
    """Hex SHA-256 of a file, streamed in 1 MiB chunks (memory stays flat for any size).

    The one place a file's hash is computed: input files, model files, the configuration and
    the output manifest all use it, so a hash in results.json, a report or a dossier is always
    the ``sha256sum`` of the file.

    Parameters
    ----------
    path
        The file to hash.

    Returns
    -------
    str
        64 lower-case hexadecimal digits.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "abc.txt"
    >>> _ = f.write_bytes(b"abc")
    >>> sha256_file(f)
    'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
    """
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


#: The former name of :func:`sha256_file` (kept for callers written before the rename).
file_sha256 = sha256_file
