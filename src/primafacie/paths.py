"""Where the real datasets live: ``--data-dir``, else ``$PRIMAFACIE_DATA``, else ``../shared/data``."""

from __future__ import annotations

import os
from pathlib import Path

from .errors import DataMissingError

__all__ = ["resolve_data_dir", "require_file", "PROJECT_ROOT"]

#: The source checkout's root (``src/primafacie/paths.py`` -> three levels up).
PROJECT_ROOT = Path(__file__).resolve().parents[2]


def resolve_data_dir(data_dir: str | os.PathLike | None = None) -> Path:
    """Return the data directory to read from.

    Parameters
    ----------
    data_dir
        Explicit folder. When ``None``, ``$PRIMAFACIE_DATA`` is used, and when that is unset,
        ``../shared/data`` relative to the project root.

    Returns
    -------
    pathlib.Path
        The folder (it may not exist; :func:`require_file` says so with a clear message).
    """
    if data_dir is not None:
        return Path(data_dir).expanduser()
    env = os.environ.get("PRIMAFACIE_DATA")
    if env:
        return Path(env).expanduser()
    return (PROJECT_ROOT.parent / "shared" / "data").resolve()


def require_file(data_dir: str | os.PathLike | None, *parts: str) -> Path:
    """Path of ``data_dir/parts...``; raise :class:`DataMissingError` naming it when absent."""
    root = resolve_data_dir(data_dir)
    path = root.joinpath(*parts)
    if not path.is_file():
        raise DataMissingError(
            f"dataset file not found: {path} (set --data-dir or $PRIMAFACIE_DATA to the folder "
            f"that holds {'/'.join(parts)})"
        )
    return path
