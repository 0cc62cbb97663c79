"""release.py: freed memory handed back to the operating system."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from primafacie.release import release_memory


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_release_memory_returns_what_glibc_kept():
    assert release_memory()["glibc"]
    # arrays below the mmap threshold, every other one freed: glibc keeps their pages (they
    # lie between live ones, so its heap cannot shrink from the top)
    held = [np.ones(2048) for _ in range(15_000)]  # 15,000 x 16 kB = 246 MB
    del held[::2]
    kept = _rss()
    release_memory()
    assert _rss() < kept - 50 * 2**20  # most of the 123 MB freed is returned
    del held


def test_release_memory_never_imports_pyarrow(monkeypatch):
    monkeypatch.delitem(sys.modules, "pyarrow", raising=False)
    assert release_memory()["arrow"] is False
    assert "pyarrow" not in sys.modules
