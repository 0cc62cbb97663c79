"""Shared fixtures: where the real datasets are, a skip that says why when one is absent, and
the folder of the builds shared across modules and xdist workers (tests/shared.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from primafacie.paths import resolve_data_dir

from . import shared


@pytest.fixture(scope="session", autouse=True)
def shared_builds(tmp_path_factory) -> Path:
    """This run's folder of shared builds (see tests/shared.py), set before any test runs."""
    return shared.set_root(tmp_path_factory)


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The datasets folder ($PRIMAFACIE_DATA or ../shared/data)."""
    return resolve_data_dir(None)


@pytest.fixture(scope="session")
def require_data(data_dir: Path):
    """``require_data("adult", "adult.data")`` -> path, or skip naming the missing file."""

    def _require(*parts: str) -> Path:
        path = data_dir.joinpath(*parts)
        if not path.is_file():
            pytest.skip(f"dataset file absent: {path} (set PRIMAFACIE_DATA)")
        return path

    return _require
