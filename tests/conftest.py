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


@pytest.fixture(scope="session")
def adult_fit():
    """``fit_adult_model`` fitted once per (data folder, seed, protected) and process.

    The FACTS Adult audits of tests/reproduce/test_facts.py (the plain and the legacy sex
    audits fit the same model) and the Dask recourse test read the same fit; it is
    deterministic (fixed split seed, newton-cholesky to convergence), so a cached model is
    the model a fresh fit gives. Nothing fits or changes the model after (recourse only calls
    ``predict``); each caller gets its own copies of the frames, so no test sees another's
    edits.
    """
    from primafacie.experiments import facts

    real = facts.fit_adult_model
    cache: dict[tuple, tuple] = {}

    def fit(data_dir: Path | None = None, seed: int = 131313, protected: str = "sex") -> tuple:
        key = (str(data_dir), seed, protected)
        if key not in cache:
            cache[key] = real(data_dir, seed=seed, protected=protected)
        model, *frames = cache[key]
        return (model, *(f.copy() for f in frames))

    return fit


@pytest.fixture(scope="session")
def run_adult_audit_shared(adult_fit):
    """``run_adult_audit`` with the fit taken from :func:`adult_fit` (see there)."""
    from primafacie.experiments import facts

    def run(*args, **kwargs):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(facts, "fit_adult_model", adult_fit)
            return facts.run_adult_audit(*args, **kwargs)

    return run
