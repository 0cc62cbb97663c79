"""Run an audit: configuration -> data -> (SCM) -> every requested analysis -> outputs.

:func:`run_audit` is what ``primafacie audit`` and ``primafacie demo`` call. It builds the
:class:`~primafacie.data.AuditData` from the configuration, fits the causal model once when an
analysis needs it, runs every analysis the configuration asks for (iterating
:mod:`primafacie.audit.registry`) and writes the outputs through
:func:`~primafacie.io.atomic_output_dir`, so a failed run leaves no half-written folder.
Outputs carry no timestamps, so the same inputs give byte-identical files.

Examples
--------
>>> from primafacie.config import load_config          # doctest: +SKIP
>>> res = run_audit(load_config("audit.yaml"), "out/audit")  # doctest: +SKIP
>>> res.summary()                                       # doctest: +SKIP
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..analysis import AnalysisRun, Context
from ..budget import check_audit, memory_error_message
from ..config import AuditConfig
from ..data_dictionary import as_text
from ..errors import AnalysisError, InputError
from ..io import atomic_output_dir, check_output_dir
from ..release import release_memory
from .inputs import check_date, data_info, input_files, input_paths, provenance, versions
from .progress import Stages
from .registry import ANALYSES, requested
from .result import AuditResult
from .write import write_audit

__all__ = ["compute_audit", "run_audit", "run_demo", "stage_names"]


def _needs_scm(cfg: AuditConfig) -> bool:
    return cfg.causal is not None and any(
        a.needs_scm(getattr(cfg.analyses, a.name)) for a in requested(cfg)
    )


def _check_config(cfg: AuditConfig) -> None:
    """Cross-section checks that need no data (so a bad file fails before anything is read)."""
    if not requested(cfg):
        raise InputError(
            "analyses: the configuration asks for no analysis; add at least one of "
            + ", ".join(a.name for a in ANALYSES)
        )
    for analysis in requested(cfg):
        analysis.check(getattr(cfg.analyses, analysis.name), cfg)


def compute_audit(
    cfg: AuditConfig,
    progress: bool = False,
    keep_going: bool = False,
    stages: Stages | None = None,
    date: str | None = None,
    tables_dir: Path | None = None,
) -> AuditResult:
    """Run the analyses of ``cfg`` in memory (nothing is written, unless ``tables_dir``).

    Parameters
    ----------
    cfg
        A validated configuration (:func:`primafacie.config.load_config`).
    progress
        Show a rich progress bar per stage on stderr.
    keep_going
        Record an analysis that raises :class:`AnalysisError` (or an unexpected exception) as
        ``"failed"`` and continue; by default the error propagates. Bad input
        (:class:`InputError`) always propagates.
    stages
        An already running progress display (used by :func:`run_audit`).
    date
        ``YYYY-MM-DD`` printed in the provenance; None (the default) prints no date, so the
        same inputs give byte-identical outputs.
    tables_dir
        The ``tables/`` folder of the staging folder :func:`run_audit` writes into: a
        situation test's table larger than ``situation.partitioned.PARQUET_MIN_ROWS`` is
        written there as Parquet parts while it is computed, never held whole. None: every
        table stays in memory.

    Returns
    -------
    AuditResult

    Examples
    --------
    >>> res = compute_audit(load_config("audit.yaml"))  # doctest: +SKIP
    >>> res.to_dict()["analyses"]["situation"]["status"]  # doctest: +SKIP
    'ok'
    """
    _check_config(cfg)
    date = check_date(date)
    analyses = requested(cfg)
    own = stages is None
    if own:
        stages = Stages(stage_names(cfg), progress)
    with stages.running() if own else nullcontext(stages):
        backend = _backend(cfg, stages)
        stages.start("load data")
        inputs = input_files(cfg)
        data = cfg.audit_data()
        info = data_info(cfg, data)
        compared = data.compared()  # protected and reference rows only (data itself if none)
        # the encoded text columns as text for an analysis not shown to take them
        given = _GivenData(data, compared)
        for analysis in analyses:  # every requirement of every analysis, before any work
            analysis.check_data(getattr(cfg.analyses, analysis.name), given.of(analysis), cfg)
        # a run that cannot fit in memory is refused before it starts
        check_audit(cfg, data, scm=_needs_scm(cfg))
        stages.done("load data", f"{data.n} rows")
        # the reader's transient copies, handed back before the analyses allocate (freed
        # memory is otherwise kept by the allocators: docs/scaling.md)
        release_memory()
        scm = _fitted_scm(cfg, data, stages, backend)
        decider = cfg.decider()
        runs: dict[str, AnalysisRun] = {}
        calls = [
            _analysis_call(a, cfg, given, compared, data, scm, decider, backend, stages,
                           tables_dir, keep_going, runs)
            for a in analyses
        ]  # fmt: skip
        # on Dask an analysis run in this process alone (client_only) runs beside the next
        from ..compute import overlapped

        overlapped(calls, overlap=_overlap(backend))
        runs = {a.name: runs[a.name] for a in analyses}  # the analyses' order, however run
        if cfg.time is not None:
            # every analysis of a window gets the text columns (as it had before encoding)
            base = Context(config=cfg, data=given.text(), scm=scm, decider=decider, backend=backend)
            runs = _time_windows(cfg, base, analyses, runs, stages)
    seeds = {"audit": int(cfg.seed)}
    for analysis in analyses:
        seeds.update(analysis.seeds(getattr(cfg.analyses, analysis.name)))
    return AuditResult(
        config=cfg.resolved(),
        data_info=info,
        runs=runs,
        inputs=tuple(inputs),
        versions=versions(),
        seeds=seeds,
        data=data,
        scm=scm,
        provenance=provenance(cfg, inputs, seeds, date),
    )


def _overlap(backend: Any) -> bool:
    """Whether analyses run in this process alone overlap the next one: on a Dask cluster,
    whose workers would otherwise wait for them (docs/scaling.md, "The 10^7 run's idle
    cores, overlapped"); locally the next analysis's threads would share the same cores."""
    from ..compute import get_backend

    return get_backend(backend).kind == "dask"


def _analysis_call(
    analysis: Any,
    cfg: AuditConfig,
    given: _GivenData,
    compared: Any,
    data: Any,
    scm: Any,
    decider: Any,
    backend: Any,
    stages: Stages,
    tables_dir: Path | None,
    keep_going: bool,
    runs: dict[str, AnalysisRun],
) -> Callable[[Callable[[], None]], None]:
    """One analysis of :func:`compute_audit` as a step of
    :func:`~primafacie.compute.overlapped`: its run is placed under its own name (never by
    when it finished); an analysis run in this process alone lets the next start at once."""
    name, stage = analysis.name, analysis.stage_name

    def call(go: Callable[[], None]) -> None:
        stages.start(stage)
        if analysis.client_only:
            go()
        t0 = time.perf_counter()
        context = Context(
            config=cfg,
            data=given.of(analysis),
            scm=scm,
            decider=decider,
            backend=backend,
            tick=lambda d, t, note, _s=stage: stages.step(_s, d, t, note),
            tables_dir=tables_dir,
        )
        try:
            run = analysis.run(getattr(cfg.analyses, name), context)
        except InputError:
            raise
        except MemoryError as exc:  # a resource the user sets, not a bug: exit 2
            raise InputError(memory_error_message(name, exc)) from None
        except Exception as exc:
            if not keep_going:
                if isinstance(exc, AnalysisError):
                    raise AnalysisError(f"{name}: {exc}") from exc
                raise
            run = AnalysisRun(name, "failed", f"{type(exc).__name__}: {exc}")
        run = replace(run, seconds=time.perf_counter() - t0)
        if analysis.reference_rows and compared is not data:
            run = replace(run, scope=_compared_scope(compared, run.scope))
        runs[name] = run
        # what the analysis freed, handed back before the next one (or the write) allocates
        release_memory()
        stages.done(stage, run.status if run.status != "ok" else "done")

    return call


class _GivenData:
    """The data an analysis is given: the rows of the comparisons or all of them
    (``reference_rows``), with the dictionary-encoded text columns as they are for an analysis
    with ``encoded_text`` and as text for the others. The text copy is made for each use and
    never kept: kept, it would hold the five text columns of the credit world (71 B per row)
    through the whole run."""

    def __init__(self, data: Any, compared: Any) -> None:
        self.data, self.compared = data, compared

    def text(self, compared: bool = False, keep: Any = ()) -> Any:
        """All rows (or the compared ones) with their encoded columns as text (a new copy),
        but those in ``keep``."""
        return as_text(self.compared if compared else self.data, keep)

    def of(self, analysis: Any) -> Any:
        """The data ``analysis`` runs on."""
        if analysis.encoded_text:
            return self.compared if analysis.reference_rows else self.data
        keep = () if analysis.reads_features else feature_only_columns(self.data)
        return self.text(analysis.reference_rows and self.compared is not self.data, keep)


def feature_only_columns(data: Any) -> list[str]:
    """The data's feature columns that hold no other role (what an analysis that reads no
    feature never reads)."""
    roles = {*data.protected, data.decision, getattr(data, "outcome", None),
             getattr(data, "id_column", None), getattr(data, "weights", None)}  # fmt: skip
    return [name for name in data.features if name not in roles]


def _fitted_scm(cfg: AuditConfig, data: Any, stages: Stages, backend: Any) -> Any:
    """The audit's SCM fitted on ``data`` (None when no analysis needs one), its nodes'
    equations in parallel on the compute backend (None: the local default), on the workers
    with Dask; the fit's transient arrays are handed back before the analyses allocate."""
    if not _needs_scm(cfg):
        return None
    from ..compute import get_backend

    stages.start("fit causal model")
    scm = cfg.causal.build().fit(data, backend=get_backend(backend))
    release_memory()
    stages.done("fit causal model", f"{len(cfg.causal.edges)} edges")
    return scm


#: The first stage of an audit on a running Dask cluster (``compute.address``).
_CONNECT_STAGE = "connect to Dask scheduler"


def _connects(cfg: AuditConfig) -> bool:
    return cfg.compute.backend == "dask" and cfg.compute.address is not None


def _backend(cfg: AuditConfig, stages: Stages) -> Any:
    """The configured compute backend, connected: a wrong cluster address fails here, before
    the data are read (None: the local default). Reaching a cluster is a stage of its own:
    Dask retries a refused connection until ``compute.timeout`` (30 s by default), which the
    user sees as that stage's wait, with the address and the deadline."""
    backend = cfg.compute.build()
    if backend is not None and _connects(cfg):
        stages.start(_CONNECT_STAGE)
        where = f"{cfg.compute.address} (up to {cfg.compute.timeout:g} s)"
        stages.step(_CONNECT_STAGE, 0, 1, where)
        backend.connect()
        stages.done(_CONNECT_STAGE, cfg.compute.address)
    return backend


def _compared_scope(compared: Any, scope: str) -> str:
    """The scope of an analysis that ran on the rows of the comparisons, stating each one."""
    from ..reference import describe

    info = compared.comparison_info
    total = int(info[0]["n"])
    said = "; ".join(describe(c) for c in info)
    return (
        f"Compared on the {compared.n:,} of {total:,} rows that are protected or reference on "
        f"every attribute with a listed reference ({total - compared.n:,} left out): {said}. "
        f"{scope}"
    ).strip()


def _time_windows(
    cfg: AuditConfig, ctx: Context, analyses: list, runs: dict[str, AnalysisRun], stages: Stages
) -> dict[str, AnalysisRun]:
    """Run the analyses that measure per window once per ``time:`` window (their trends)."""
    from ..overtime.windows import run_windows

    stages.start(_WINDOWS_STAGE)
    out = run_windows(cfg, ctx, analyses, runs)
    stages.done(_WINDOWS_STAGE, f"source {cfg.time.source}")
    return out


#: Progress label of the per-window runs (``time:`` in audit.yaml).
_WINDOWS_STAGE = "time windows"


def stage_names(cfg: AuditConfig) -> list[str]:
    """The progress stages of an audit of ``cfg``, in order."""
    names = [_CONNECT_STAGE] if _connects(cfg) else []
    names.append("load data")
    if _needs_scm(cfg):
        names.append("fit causal model")
    names += [a.stage_name for a in requested(cfg)]
    if cfg.time is not None:
        names.append(_WINDOWS_STAGE)
    names.append("write report")
    return names


def run_audit(
    cfg: AuditConfig,
    out_dir: str | Path,
    progress: bool = True,
    keep_going: bool = False,
    extra_files: Callable[[Path], None] | None = None,
    date: str | None = None,
) -> AuditResult:
    """Run every analysis ``cfg`` asks for and write the outputs into ``out_dir`` atomically.

    Parameters
    ----------
    cfg
        A validated configuration (:func:`primafacie.config.load_config`).
    out_dir
        Output folder; it receives ``report.html``, ``results.json`` and ``tables/*.csv``.
        Nothing is written unless the whole audit succeeds.
    progress
        Show a rich progress bar per stage on stderr.
    keep_going
        Report a failing analysis as ``"failed"`` instead of aborting (see
        :func:`compute_audit`).
    extra_files
        Called with the staging folder before it is moved into place (the demo writes its
        inputs this way).
    date
        ``YYYY-MM-DD`` for the provenance (see :func:`compute_audit`); None prints no date.

    Returns
    -------
    AuditResult
        With ``out_dir`` and ``files`` set.

    Raises
    ------
    InputError
        Bad configuration or data (exit code 2 in the CLI).
    AnalysisError
        An analysis failed (exit code 1), unless ``keep_going``.

    Examples
    --------
    >>> from primafacie.config import load_config
    >>> res = run_audit(load_config("out/demo/audit.yaml"), "out/rerun")  # doctest: +SKIP
    >>> res.summary()[["analysis", "status"]]  # doctest: +SKIP
    """
    inputs = input_paths(cfg)
    check_output_dir(out_dir, inputs)  # before any analysis runs: no input inside out_dir
    stages = Stages(stage_names(cfg), progress)
    with stages.running(), atomic_output_dir(out_dir, owner="audit", keep=inputs) as stage:
        # the analyses run with the staging folder open: a table too large to hold is written
        # into it while it is computed (a failed run removes it with the rest)
        result = compute_audit(
            cfg, keep_going=keep_going, stages=stages, date=date, tables_dir=stage / "tables"
        )
        stages.start("write report")
        if extra_files is not None:
            extra_files(stage)
        files = write_audit(result, stage)
        stages.done("write report", f"{len(files)} files")
    return replace(_moved(result, out_dir), out_dir=Path(out_dir), files=files)


def _moved(result: AuditResult, out_dir: str | Path) -> AuditResult:
    """``result`` with the Results whose tables were written while they ran (Parquet parts
    in the staging folder) pointing at the output folder, where the staged files now are."""
    runs = {}
    for name, run in result.runs.items():
        moved = {
            label: res.moved_to(out_dir) if callable(getattr(res, "moved_to", None)) else res
            for label, res in run.results.items()
        }
        runs[name] = replace(run, results=moved)
    return replace(result, runs=runs)


def run_demo(
    out_dir: str | Path,
    n: int | None = None,
    seed: int = 0,
    progress: bool = True,
    keep_going: bool = True,
    date: str | None = None,
) -> AuditResult:
    """Generate the credit world, write it with its models and audit.yaml, and audit it.

    Everything lands in ``out_dir`` atomically: ``inputs/credit_world.csv``,
    ``inputs/lr.skops``, ``inputs/gb.skops``, ``audit.yaml`` and the audit outputs
    (``report.html``, ``results.json``, ``tables/*.csv``). ``primafacie audit
    out_dir/audit.yaml --out other`` reproduces the same report and results byte for byte.

    Parameters
    ----------
    out_dir
        Output folder.
    n
        Number of applicants (default :data:`~primafacie.datasets.credit_world.DEFAULT_N`).
    seed
        Seed of the world, the models and the audit.
    progress
        Show a progress bar per stage on stderr.
    keep_going
        Report a failing analysis in the report instead of aborting (the default for the demo).
    date
        ``YYYY-MM-DD`` for the provenance (see :func:`compute_audit`); None prints no date.

    Returns
    -------
    AuditResult

    Examples
    --------
    >>> res = run_demo("out/demo", n=500, progress=False)  # doctest: +SKIP
    >>> res.runs["certainty"].numbers["selected"]  # doctest: +SKIP
    """
    from ..config import load_config
    from ..datasets.credit_world import DEFAULT_N, write_demo_inputs

    n = DEFAULT_N if n is None else n
    date = check_date(date)  # before the world is generated
    check_output_dir(out_dir)  # before the world is generated
    with atomic_output_dir(out_dir, owner="demo") as stage:
        t0 = time.perf_counter()
        cfg_path = write_demo_inputs(stage, n=n, seed=seed)
        cfg = load_config(cfg_path)
        stages = Stages(["generate credit world", *stage_names(cfg)], progress)
        with stages.running():
            stages.start("generate credit world")
            stages.done("generate credit world", f"{n} people, {time.perf_counter() - t0:.1f} s")
            result = compute_audit(
                cfg, keep_going=keep_going, stages=stages, date=date, tables_dir=stage / "tables"
            )
            stages.start("write report")
            files = write_audit(result, stage)
            stages.done("write report", f"{len(files)} files")
    return replace(_moved(result, out_dir), out_dir=Path(out_dir), files=files)
