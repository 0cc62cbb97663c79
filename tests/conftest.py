"""Shared fixtures: where the real datasets are, a skip that says why when one is absent, and
the folder of the builds shared across modules and xdist workers (tests/shared.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from primafacie.paths import resolve_data_dir

from . import shared

#: The test modules that cost the most CPU seconds, most expensive first (measured per module
#: with a CPU-time plugin on main 4d73ff0, 2 xdist workers, Chromium installed; CPU s in the
#: comments, shared builds counted where they were built). They run first, the cheap modules
#: after them: ``make test`` gives each xdist worker a whole module at a time in this order
#: (``--dist loadscope --no-loadscope-reorder``), so the run ends on many small modules that
#: even out the two workers instead of on one long module that leaves a core idle. xdist's
#: default reorder (modules with the most tests first) put tests/test_readme.py (one test,
#: 29 CPU s) and tests/test_audit.py near the end. A module missing from the list runs after
#: them in collection order; tests/test_conftest.py checks every entry names a test module.
HEAVY_FIRST = (
    "tests/test_audit.py",  # 52: the demo on 300 people, its re-audit in a subprocess
    "tests/test_compute_dask.py",  # 41: LocalClusters of processes
    "tests/test_readme.py",  # 29: the README's examples (two demo audits)
    "tests/reproduce/test_facts.py",  # 28: three FACTS audits of Adult
    "tests/test_io.py",  # 24: a subprocess per step of the swap and per signal
    "tests/cli/test_audit_cli.py",  # 22: primafacie demo, Parquet vs CSV audits
    "tests/report/test_sentences.py",  # 21: the default demo (3,000 people)
    "tests/report/test_browser.py",  # 14: a demo on 200 people, Chromium
    "tests/alternatives/test_engine.py",  # 13
    "tests/audit/test_partitioned.py",  # 14: reads test_audit's demo (built by then)
    "tests/report/test_security.py",  # 13: Chromium
    "tests/report/test_notebook.py",  # 13
    "tests/neighbors/test_properties.py",  # 12: hypothesis
    "tests/cli/test_startup.py",  # 10: subprocesses
    "tests/cli/test_recourse_cli.py",  # 10
    "tests/test_bad_input.py",  # 9
    "tests/situation/test_partitioned_workers.py",  # 9
    "tests/cli/test_dossier_cli.py",  # 8
    "tests/report/test_dossier_verdicts.py",  # 8
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put the modules of :data:`HEAVY_FIRST` first, in its order; the rest keep theirs."""
    rank = {path: i for i, path in enumerate(HEAVY_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))


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
