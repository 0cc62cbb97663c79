"""Expensive test artefacts built once per test run, shared by every module and xdist worker.

A demo audit costs tens of CPU seconds (most of it the default search for less
discriminatory alternatives), and the demo's inputs (a generated world and two trained
models) several seconds; many modules read the same ones. :func:`build_once` builds an
artefact the first time any test of the run asks for it and hands every later caller, in
this process or another xdist worker of the same run, the same folder. Tests that write into
an artefact take a :func:`private_copy` first; the shared folder is read-only by convention.

The folder of the shared builds is keyed by the pytest run (a sibling of the workers' own
temporary folders), so a new run never sees an old run's builds, and two runs at once (two
engineers on one machine) never share one.

The named builds below (:func:`cli_demo`, :func:`demo_with_result`, :func:`demo_inputs`) are
the ones several modules use; a module can call :func:`build_once` with its own builder.
"""

from __future__ import annotations

import os
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from filelock import FileLock

#: the run's shared-build folder, set once per process by tests/conftest.py
_ROOT: Path | None = None
#: name -> folder already built (or found built) in this process
_BUILT: dict[str, Path] = {}
#: a build that failed in this process: re-raised, not retried, for every later caller
_FAILED: dict[str, BaseException] = {}
_DONE = ".built"  # marker written last: a folder without it is an interrupted build


def set_root(tmp_path_factory: Any) -> Path:
    """Point the shared builds at this run's folder (called by the session fixture).

    Under xdist every worker's base temporary folder (``.../pytest-N/popen-gwK``) sits in
    one folder per run, shared by the workers; without xdist the base folder is the run's.
    """
    global _ROOT
    base = Path(tmp_path_factory.getbasetemp())
    run_dir = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    _ROOT = run_dir / "shared-builds"
    _ROOT.mkdir(parents=True, exist_ok=True)
    return _ROOT


def build_once(name: str, builder: Callable[[Path], None]) -> Path:
    """The folder of artefact ``name``, built by ``builder(folder)`` once per test run.

    Parameters
    ----------
    name
        Key of the artefact; the same name must always mean the same builder and arguments
        (put them in the name: ``"demo-inputs-n300-seed0"``).
    builder
        Fills the empty folder it is given. It runs at most once per run, under a file lock
        that other processes wait on; if it raises, the partial folder is removed and the
        error is raised in every test that asks for the artefact.

    Returns
    -------
    Path
        The built folder. Do not write into it: take a :func:`private_copy`.
    """
    if name in _BUILT:
        return _BUILT[name]
    if name in _FAILED:
        raise RuntimeError(f"shared build {name!r} failed earlier in this run") from _FAILED[name]
    if _ROOT is None:
        raise RuntimeError("tests/conftest.py did not set the shared-build folder")
    folder = _ROOT / name
    with FileLock(str(_ROOT / f"{name}.lock")):
        if not (folder / _DONE).is_file():
            shutil.rmtree(folder, ignore_errors=True)  # an interrupted earlier attempt
            folder.mkdir()
            try:
                builder(folder)
            except BaseException as exc:
                shutil.rmtree(folder, ignore_errors=True)
                _FAILED[name] = exc
                raise
            (folder / _DONE).write_text("ok\n", encoding="utf-8")
    _BUILT[name] = folder
    return folder


def private_copy(path: Path, tmp: Path) -> Path:
    """A copy of the shared file or folder ``path`` inside ``tmp``, for a test that modifies it."""
    target = Path(tmp) / Path(path).name
    if Path(path).is_dir():
        shutil.copytree(path, target, ignore=shutil.ignore_patterns(_DONE))
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    return target


# ------------------------------------------------------------------------- the named builds
def cli_demo(n: int = 200, seed: int = 2) -> tuple[Path, str]:
    """``primafacie demo --out ... --n n --seed seed --no-progress`` run in-process (typer's
    runner): ``(demo folder, what the command printed)``. It must exit 0."""

    def build(folder: Path) -> None:
        from typer.testing import CliRunner

        from primafacie.cli import app

        args = ["demo", "--out", str(folder / "demo"), "--n", str(n), "--seed", str(seed)]
        res = CliRunner().invoke(app, [*args, "--no-progress"])
        if res.exit_code != 0:
            raise AssertionError(f"primafacie demo exited {res.exit_code}: {res.output}")
        (folder / "output.txt").write_text(res.output, encoding="utf-8")

    folder = build_once(f"cli-demo-n{n}-seed{seed}", build)
    return folder / "demo", (folder / "output.txt").read_text(encoding="utf-8")


def demo_with_result(n: int = 200, seed: int = 3) -> tuple[Path, Any]:
    """``run_demo(folder, n, seed)``: ``(folder, AuditResult)``; each caller gets its own
    unpickled copy of the result, so a test that changes it changes no other test's."""

    def build(folder: Path) -> None:
        from primafacie.audit import run_demo

        result = run_demo(folder / "demo", n=n, seed=seed, progress=False)
        (folder / "result.pickle").write_bytes(pickle.dumps(result))

    folder = build_once(f"run-demo-n{n}-seed{seed}", build)
    return folder / "demo", pickle.loads((folder / "result.pickle").read_bytes())


def demo_inputs(n: int, seed: int) -> Path:
    """The folder ``write_demo_inputs(folder, n, seed)`` fills: ``audit.yaml`` and ``inputs/``.
    Tests that edit the audit.yaml take a :func:`private_copy`."""

    def build(folder: Path) -> None:
        from primafacie.datasets.credit_world import write_demo_inputs

        write_demo_inputs(folder / "demo", n=n, seed=seed)

    return build_once(f"demo-inputs-n{n}-seed{seed}", build) / "demo"


def credit_audit(n: int) -> tuple:
    """The credit world of ``n`` rows decided by the scorecard rule, gender protected: its
    :class:`~primafacie.data.AuditData`, the rule and an SCM fitted on it (the small Dask and
    backend tests compare runs on it)."""
    from primafacie.causal import SCM
    from primafacie.data import AuditData
    from primafacie.datasets.credit_world import (
        CREDIT_EDGES,
        CREDIT_FEATURES,
        SCORECARD_RULE,
        generate_credit_world,
    )
    from primafacie.decisions import Rule

    world = generate_credit_world(n=n, seed=0)
    rule = Rule(SCORECARD_RULE)
    world["approved"] = rule.predict(world)
    data = AuditData(
        world, features=dict(CREDIT_FEATURES), protected={"gender": "female"}, decision="approved"
    )
    return data, rule, SCM(edges=CREDIT_EDGES).fit(data)
