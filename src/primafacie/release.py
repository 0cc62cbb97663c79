"""Freed memory handed back to the operating system between the stages of a large run.

Memory a stage frees is not memory the process returns: glibc keeps freed blocks below its
(dynamic, up to 32 MB) mmap threshold in its arenas, one per thread, and pyarrow's pool keeps
what its tables used. The next stage's numpy arrays cannot always reuse either, so the resident
memory of an audit's client grows by what every earlier stage once held (measured in
``docs/scaling.md``, "the client's per-row state, measured"). :func:`release_memory` asks both
allocators to return their free pages; it changes no value, only what the process keeps.

Examples
--------
>>> out = release_memory()
>>> sorted(out)
['arrow', 'glibc']
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from functools import cache

__all__ = ["release_memory", "trim_heap"]


@cache
def _libc() -> ctypes.CDLL | None:
    """glibc, when this process runs on it (None on macOS, Windows or musl)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
        libc.malloc_trim.restype = ctypes.c_int
    except (OSError, AttributeError):  # no malloc_trim: not glibc
        return None
    return libc


def release_memory() -> dict[str, bool]:
    """Return the free pages of glibc's heap and of pyarrow's pool to the operating system.

    Cheap (milliseconds: the free lists are walked, nothing is copied) and without effect on
    any value; call it after a stage has released large arrays and before the next one
    allocates.

    Returns
    -------
    dict
        ``{"glibc": ..., "arrow": ...}``: whether each allocator was asked (glibc: only on
        Linux with glibc; arrow: only if pyarrow is already imported, never importing it).
    """
    glibc = trim_heap()
    arrow = sys.modules.get("pyarrow")
    asked = arrow is not None and hasattr(arrow, "default_memory_pool")
    if asked:
        arrow.default_memory_pool().release_unused()
    return {"glibc": glibc, "arrow": asked}


def trim_heap() -> bool:
    """glibc's ``malloc_trim(0)`` alone: the free pages of this process's heap go back to the
    system (every Dask worker calls it once a map ends, :func:`primafacie.compute._trim_workers`).

    Returns
    -------
    bool
        Whether there was a glibc to ask (False on macOS, Windows or musl).
    """
    libc = _libc()
    if libc is None:
        return False
    libc.malloc_trim(0)
    return True
