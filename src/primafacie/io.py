"""Atomic output: files and folders appear whole or not at all; inputs are never touched."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import signal
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from .csvtext import csv_bytes

__all__ = [
    "atomic_write_text",
    "atomic_write_bytes",
    "atomic_write_csv",
    "atomic_write_stream",
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


def _write_replacing(path: str | os.PathLike, write: Callable[[Any], None], **mode: Any) -> Path:
    """``write(fh)`` into a temporary file in ``path``'s folder (opened with ``mode``), then
    rename it to ``path``: the file is whole or absent, and a failed write leaves no file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp creates 0600 files; outputs get the permissions a plain open() would give.
        os.fchmod(fd, 0o666 & ~_UMASK)
        with os.fdopen(fd, **mode) as fh:
            write(fh)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return path


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename."""
    return _write_replacing(path, lambda fh: fh.write(data), mode="wb")


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """Write UTF-8 text atomically (LF line endings, so outputs are byte-identical everywhere)."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_stream(path: str | os.PathLike, write: Callable[[Any], None]) -> Path:
    """Write UTF-8 text atomically by pieces: ``write(fh)`` writes into a text handle on a
    temporary file in the same folder, which is renamed to ``path`` when it returns (so a
    large file is never held whole in memory, and a failed write leaves no file)."""
    # newline="": the text is written as given (LF), as atomic_write_text does
    return _write_replacing(path, write, mode="w", encoding="utf-8", newline="")


#: Rows of a table turned into CSV text at a time: a table longer than this is written in
#: chunks of this many rows (about 20 MB of text for a per-complainant table), never as one
#: string (at 10^6 decisions a situation table is ~6·10^6 rows, 1 GB of text and 1 GB more
#: encoded). The bytes are the same either way (tested).
CSV_CHUNK_ROWS = 100_000


def atomic_write_csv(
    path: str | os.PathLike,
    frame: pd.DataFrame,
    chunk_rows: int | None = None,
    prepare: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
    **kwargs: Any,
) -> Path:
    """Write a DataFrame as CSV atomically; the index is dropped unless ``index=True``.

    Parameters
    ----------
    path
        The CSV file.
    frame
        The table.
    chunk_rows
        Rows converted to text at a time (default :data:`CSV_CHUNK_ROWS`): a longer table is
        streamed to the temporary file chunk by chunk, with the same bytes.
    prepare
        Applied to each chunk before it is written (e.g. :func:`cells_as_values`), so a
        transformed copy of the whole table is never made.
    **kwargs
        Passed to :meth:`pandas.DataFrame.to_csv`.
    """
    kwargs.setdefault("index", False)
    kwargs.setdefault("lineterminator", "\n")
    step = CSV_CHUNK_ROWS if chunk_rows is None else max(int(chunk_rows), 1)
    prep = prepare if prepare is not None else (lambda f: f)
    header = kwargs.pop("header", True)

    def text(chunk: pd.DataFrame, first: bool) -> bytes:
        # each distinct cell formatted once (csvtext), or pandas where it does not apply:
        # the same bytes either way (tested)
        head = header if first else False
        fast = csv_bytes(chunk, header=head, **kwargs)
        return fast if fast is not None else chunk.to_csv(header=head, **kwargs).encode("utf-8")

    if len(frame) <= step:
        return atomic_write_bytes(path, text(prep(frame), True))

    def write(fh: Any) -> None:
        for start in range(0, len(frame), step):
            # a slice of rows is a view; only its text is held
            fh.write(text(prep(frame.iloc[start : start + step]), start == 0))

    return _write_replacing(path, write, mode="wb")


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
    ``kwargs`` go to :func:`atomic_write_csv`; a long table is written in chunks, each made
    safe on its own (the same bytes as the whole table made safe at once)."""
    return atomic_write_csv(path, frame, prepare=cells_as_values, **kwargs)


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
#: run's files, ``.out.backup-<pid>-<random>`` holds the journal and the replaced files during
#: the swap, and is renamed ``.out.done-<pid>-<random>`` when the swap commits.
_SIDE_RE = r"\.{name}\.(staging|backup|done)-(\d+)-[A-Za-z0-9_]+"


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


def _recover_backup(side: Path, path: Path) -> bool:
    """Roll back the swap a killed run left half done; True when ``side`` can be removed.

    With a journal the old files go back as planned (:func:`_rollback`). A folder with neither
    journal nor moved files was left before the first move; one in the layout of earlier
    versions (old files at its top) is moved back whole. A folder whose journal cannot be read
    but holds files is kept: they may be the only copy of an old output.
    """
    plan = _read_journal(side)
    if plan is not None:
        _rollback(path, side, plan)
        return not any(p.is_file() or p.is_symlink() for p in (side / _FILES).rglob("*"))
    if (side / _JOURNAL).exists() or (side / _FILES).exists():
        return False
    if not (side / (_JOURNAL + ".tmp")).exists():
        with contextlib.suppress(OSError):
            _move_tree(side, path)
    return True


def clean_stale_staging(path: str | os.PathLike) -> list[Path]:
    """Remove the side folders a killed run into ``path`` left beside it.

    A folder ``.<name>.staging-<pid>-*`` or ``.<name>.done-<pid>-*`` (a committed swap) whose
    process is gone is deleted. A ``.<name>.backup-<pid>-*`` of a dead process means the run
    was killed during its swap, before the commit: the old files are put back from its
    journal, so ``path`` holds exactly its previous files again. Folders of live processes (a
    concurrent run) are left alone.

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
        with _signals_deferred():  # a recovery is a swap back: not to be cut in two either
            if m.group(1) == "backup" and not _recover_backup(side, path):
                continue
            shutil.rmtree(side, ignore_errors=True)
        removed.append(side)
    return removed


#: At most this many entries of an existing output folder are scanned for symlinked folders
#: (an output folder holds a few thousand files; a larger one is not primafacie's).
_SCAN_LIMIT = 100_000


def _symlinked_folder(root: Path) -> Path | None:
    """The first symlink to a folder inside ``root`` (links are not followed; hidden folders,
    where primafacie writes nothing, are not entered), or None."""
    stack, seen = [root], 0
    while stack:
        folder = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > _SCAN_LIMIT:
                return None
            if entry.is_symlink():
                if entry.is_dir():  # follows the link: is its target a folder?
                    return Path(entry.path)
            elif entry.is_dir(follow_symlinks=False) and not entry.name.startswith("."):
                stack.append(Path(entry.path))
    return None


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
        When ``path`` is an input file of the run or holds one, is an existing file (not a
        folder), holds a symlink to a folder, or cannot be created or written to; the
        message names the path.

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
        if item is None:
            continue
        full = Path(item).resolve()
        if full == resolved:
            raise InputError(
                f"--out {path} is the input file {item}; choose a folder for the outputs "
                "(inputs are never overwritten)"
            )
        if resolved in full.parents:
            raise InputError(
                f"--out {path} holds the input {item}; an output folder may not contain the "
                "run's inputs (a rerun could overwrite or remove them): move the input out or "
                "choose another folder"
            )
    if path.exists() and not path.is_dir():
        raise InputError(f"--out {path} is an existing file, not a folder; choose a folder")
    link = _symlinked_folder(path) if path.is_dir() else None
    if link is not None:
        raise InputError(
            f"--out {path} holds {link}, a symlink to a folder; outputs written through it "
            "would land outside --out: remove the link or choose another folder"
        )
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


#: Test hook: called with the name of each step of the swap ("planned", "out <rel>",
#: "in <rel>", "moved", "committed"), so a test can pause there or send a signal.
_swap_hook: Callable[[str], None] | None = None

#: Output folders whose swap committed in this process (the CLI says what was written when
#: it is interrupted afterwards; it clears the list when a command starts).
committed_outputs: list[Path] = []

#: Inside a backup folder: the journal (the plan of the swap) and the moved-out old files.
_JOURNAL = "journal.json"
_FILES = "files"

#: Signals held back during the swap and delivered once it is over.
_DEFERRED = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


def _step(name: str) -> None:
    if _swap_hook is not None:
        _swap_hook(name)


@contextlib.contextmanager
def _signals_deferred() -> Iterator[None]:
    """Hold SIGINT, SIGTERM and SIGHUP back in the block; deliver each one caught after it.

    A signal cannot then land between two moves of a swap (or of its rollback). Only the main
    thread receives signals, so elsewhere this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = {}
    for sig in _DEFERRED:
        handler = signal.getsignal(sig)
        if handler is None:  # installed outside Python: cannot be restored, leave it
            continue
        previous[sig] = handler
        signal.signal(sig, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for sig in dict.fromkeys(caught):  # once each, in the order they came
            signal.raise_signal(sig)


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _plan_swap(stage: Path, path: Path, written: list[str], stale: list[str]) -> dict[str, Any]:
    """Every move of the swap, decided before the first one: the old files to move out, the
    folders to create, the staged files to move in. A symlink on the way is refused."""
    from .errors import InputError

    moved_out, dirs = [], []
    for rel in dict.fromkeys([*written, *stale]):
        old = path / rel
        if old.is_symlink() or old.is_file():
            moved_out.append(rel)
    for rel in written:
        step = path
        for part in Path(rel).parts[:-1]:
            step = step / part
            if step.is_symlink():
                raise InputError(
                    f"--out {path}: {step} is a symlink; primafacie does not write through "
                    "symlinks (remove it or choose another folder)"
                )
            if not step.exists():
                dirs.append(step.relative_to(path).as_posix())
    return {
        "version": 1,
        "existed": path.exists(),
        "moved_out": moved_out,
        "dirs": list(dict.fromkeys(dirs)),
        "moved_in": list(written),
    }


def _write_journal(backup: Path, plan: dict[str, Any]) -> None:
    """The plan, durable before the first move (a killed run is rolled back from it)."""
    tmp = backup / (_JOURNAL + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(plan, fh, sort_keys=True)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, backup / _JOURNAL)
    _fsync_dir(backup)


def _read_journal(backup: Path) -> dict[str, Any] | None:
    try:
        plan = json.loads((backup / _JOURNAL).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return plan if isinstance(plan, dict) and plan.get("version") == 1 else None


def _apply_swap(stage: Path, path: Path, backup: Path, plan: dict[str, Any]) -> None:
    _step("planned")
    if not plan["existed"]:
        path.mkdir()
    for rel in plan["moved_out"]:
        _step(f"out {rel}")
        dst = backup / _FILES / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        os.replace(path / rel, dst)
    for rel in plan["dirs"]:
        (path / rel).mkdir(exist_ok=True)
    for rel in plan["moved_in"]:
        _step(f"in {rel}")
        os.replace(stage / rel, path / rel)
    _step("moved")


def _safe_rel(rel: Any) -> bool:
    """A journal entry names a path inside the folder (a tampered journal reaches nothing else)."""
    if not isinstance(rel, str) or not rel:
        return False
    parts = Path(rel).parts
    return not Path(rel).is_absolute() and ".." not in parts


def _rollback(path: Path, backup: Path, plan: dict[str, Any]) -> None:
    """Put the old files back as the plan describes; safe to repeat after any interruption.

    A file moved in where no old file was is removed; an old file still in the backup goes
    back over whatever is in its place (``os.replace``: never a moment without a file);
    folders the swap created are removed when empty.
    """
    out = {r for r in plan.get("moved_out", []) if _safe_rel(r)}
    for rel in reversed(plan.get("moved_in", [])):
        target = path / rel
        if _safe_rel(rel) and rel not in out and (target.is_symlink() or target.is_file()):
            with contextlib.suppress(OSError):
                target.unlink()
    for rel in plan.get("moved_out", []):
        src = backup / _FILES / rel
        if _safe_rel(rel) and (src.is_symlink() or src.exists()):
            with contextlib.suppress(OSError):
                os.replace(src, path / rel)
    for rel in reversed(plan.get("dirs", [])):
        if _safe_rel(rel):
            with contextlib.suppress(OSError):
                (path / rel).rmdir()
    if not plan.get("existed", True):
        with contextlib.suppress(OSError):
            path.rmdir()


def _swap_in(stage: Path, path: Path, written: list[str], stale: list[str]) -> None:
    """Replace the owned files of ``path`` by the staged ones, all or nothing, under any signal.

    A journal (the plan of every move) is written and fsynced into a backup folder beside
    ``path`` before the first move. The files about to be replaced or removed are moved into
    that backup folder, then the staged files (the manifest among them) are moved in; renaming
    the backup folder to ``.<name>.done-*`` is the commit. SIGINT, SIGTERM and SIGHUP are
    deferred for the whole swap and delivered after it. A failure before the commit (an
    exception here, or a kill: then the next run, see :func:`clean_stale_staging`) is rolled
    back from the journal, so ``path`` holds exactly the old or exactly the new files.
    """
    root = path.resolve()
    with _signals_deferred():
        backup = Path(
            tempfile.mkdtemp(prefix=f".{root.name}.backup-{os.getpid()}-", dir=root.parent)
        )
        try:
            plan = _plan_swap(stage, path, written, stale)
            _write_journal(backup, plan)
        except BaseException:
            shutil.rmtree(backup, ignore_errors=True)  # nothing was moved yet
            raise
        try:
            _apply_swap(stage, path, backup, plan)
        except BaseException:
            _rollback(path, backup, plan)
            left = [p for p in (backup / _FILES).rglob("*") if p.is_file() or p.is_symlink()]
            if not left:  # else the next run puts them back (the journal stays)
                shutil.rmtree(backup, ignore_errors=True)
            raise
        done = backup.with_name(backup.name.replace(".backup-", ".done-", 1))
        os.rename(backup, done)  # the commit point: from here the new files stand
        _fsync_dir(root.parent)
        committed_outputs.append(path)
        _step("committed")
        shutil.rmtree(done, ignore_errors=True)


@contextlib.contextmanager
def atomic_output_dir(
    path: str | os.PathLike,
    owner: str | None = None,
    keep: Iterable[str | os.PathLike] = (),
) -> Iterator[Path]:
    """Yield a staging folder; on success its files replace the owned files of ``path`` at once.

    At entry ``path`` is checked with :func:`check_output_dir` (``keep`` are the inputs: none
    may lie inside ``path``) and the side folders a killed run left beside ``path`` are rolled
    back or removed (:func:`clean_stale_staging`). The run writes into
    ``.<name>.staging-<pid>-*`` beside ``path``. On success the staged files are swapped in
    by :func:`_swap_in` (journalled, signals deferred): ``path`` then holds exactly the old or
    exactly the new files whatever happens. On any exception in the body the staging folder
    is removed and ``path`` is left as it was, so a failed run never leaves a half-written
    output folder behind (all or nothing).

    With ``owner`` (the command's name), the files written are listed in ``path``'s
    ``.primafacie-manifest.json`` under that owner, and files the same owner wrote on an
    earlier run into ``path`` but did not write this time are removed, so a report never sits
    next to stale tables of a previous run. Files of other owners and files primafacie did not
    write are kept, and so are a file changed since it was written (its SHA-256 differs: it is
    the user's now), a file reached through a symlink, a file another owner rewrote since, and
    the files in ``keep`` (the run's inputs).
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
            # staged like any output, so it moves in (and back) with the files it lists
            (stage / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
            os.chmod(stage / MANIFEST, 0o666 & ~_UMASK)
            written.append(MANIFEST)
        _swap_in(stage, path, written, stale)
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
