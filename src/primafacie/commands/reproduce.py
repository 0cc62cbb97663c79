"""``primafacie reproduce NAME``: regenerate a table of one of the four papers."""

from __future__ import annotations

import contextlib
import signal
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from rich.console import Console

from ..errors import DataMissingError, InputError
from ..experiments import EXPERIMENTS, get_comparison, get_experiment  # names only: light
from ..paths import resolve_data_dir

if TYPE_CHECKING:
    import typer

# pandas (experiments.compare, io) is imported inside the functions: the CLI loads this
# module to render --help, which must not wait for pandas. Neither typer nor commands._common
# (which imports typer) is imported at module level: launch.main runs the plain forms of
# this command through run_plain, without typer (~0.3 s of a ~1 s reproduction).

#: stdout for results, stderr for progress: commands._common's consoles, same settings.
console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)

#: rows printed on the terminal; the CSV has all of them
SHOWN_ROWS = 30
_STYLE = {"exact": "green", "within tolerance": "cyan", "differs": "red", "reference only": "dim"}

HELP = f"""Regenerate a paper's table from the real data and write it as CSV.

NAME is one of: {", ".join(EXPERIMENTS)}.

Example:

    primafacie reproduce cst-loan --legacy --data-dir ../shared/data \\
        --out out/reproduce

`--legacy` reproduces the authors' code conventions (the published numbers); without it the
corrected method runs. `--data-dir` defaults to $PRIMAFACIE_DATA, then ../shared/data.

Besides the table(s), NAME-vs-paper.csv lists every published number next to ours with a
verdict (exact / within tolerance / differs / reference only) and a note; the terminal shows
a summary of it.

NAME `all` runs every reproduction into OUT/NAME/ (about 30-40 s) and prints one line of
verdict counts per reproduction:

    primafacie reproduce all --legacy --out out/reproduce
"""


def _status(text: str) -> contextlib.AbstractContextManager:
    """A spinner on stderr while a reproduction runs, when stderr is a terminal. Elsewhere
    rich draws nothing, so its live display is not imported (rich.status and its spinners:
    24 ms of ``python -X importtime`` on the loaded machine, a sixth of rich.console's)."""
    if not err_console.is_terminal:
        return contextlib.nullcontext()
    return err_console.status(text)


def register(app: typer.Typer) -> None:
    import typer

    from ._common import guarded

    @app.command("reproduce", help=HELP)
    @guarded
    def reproduce(
        name: str = typer.Argument(..., help="Which table to reproduce, or all."),
        data_dir: Optional[Path] = typer.Option(
            None, "--data-dir", help="Folder with the datasets (default $PRIMAFACIE_DATA)."
        ),
        out: Path = typer.Option(Path("out/reproduce"), "--out", help="Output folder."),
        legacy: bool = typer.Option(False, "--legacy", help="Authors' code conventions."),
        positive: bool = typer.Option(
            False, "--positive", help="Positive discrimination (cst-loan: Table 15)."
        ),
        tau: Optional[float] = typer.Option(
            None, "--tau", help="Accepted deviation (cst: 0.05 gives Tables 16-18)."
        ),
        protected: Optional[str] = typer.Option(
            None, "--protected", help="Protected attribute (facts-adult: sex or race)."
        ),
        seed: Optional[int] = typer.Option(
            None, "--seed", help="Random seed where the run has one."
        ),
    ) -> None:
        run_command(name, data_dir, out, legacy, positive, tau, protected, seed)


def run_command(
    name: str,
    data_dir: Path | None = None,
    out: Path = Path("out/reproduce"),
    legacy: bool = False,
    positive: bool = False,
    tau: float | None = None,
    protected: str | None = None,
    seed: int | None = None,
) -> None:
    """The body of ``primafacie reproduce`` (its errors are mapped to exit codes by
    ``commands._common.guarded``, through typer or :func:`run_plain`)."""
    from ..io import atomic_output_dir, atomic_write_csv

    options: dict[str, Any] = {"legacy": legacy}
    if positive:
        options["positive"] = True
    for key, value in (("tau", tau), ("protected", protected), ("seed", seed)):
        if value is not None:
            options[key] = value
    data_root = resolve_data_dir(data_dir)
    if name == "all":
        if len(options) > 1:
            raise InputError(
                f"reproduce all takes only --legacy; {sorted(set(options) - {'legacy'})} "
                "apply to single reproductions"
            )
        _reproduce_all(data_root, out, legacy)
        return
    run = get_experiment(name)
    compare = get_comparison(name)
    table = None
    with (
        _status(f"reproducing {name} ..."),
        atomic_output_dir(out, owner=f"reproduce {name}") as stage,
    ):
        written = list(run(data_root, stage, **options))
        if compare is not None:
            table = compare(stage, data_root, **options)
            written.append(atomic_write_csv(stage / f"{name}-vs-paper.csv", table, index=False))
    for path in written:
        console.print(f"wrote {out / Path(path).name}", soft_wrap=True)
    if table is not None:
        _print_comparison(name, table)


def run_plain(
    name: str, out: Path, data_dir: Path | None = None, legacy: bool = False,
    positive: bool = False,
) -> int:  # fmt: skip
    """``primafacie reproduce NAME`` with ``--out``, ``--data-dir``, ``--legacy`` and
    ``--positive`` only, run without typer (``launch.main`` parses these forms); the exit code.

    Exactly what the typer command does: the same body, and any exception it raises is
    re-raised inside ``commands._common.guarded`` (imported then, with typer), which prints
    its message and gives its exit code. SIGTERM is turned into guarded's ``Terminated`` as
    guarded would, so an interrupted run leaves its output folder as it was and exits 143.
    """
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminated) if main else None
    try:
        run_command(name, data_dir, out, legacy, positive)
        return 0
    except BaseException as exc:  # noqa: BLE001 - guarded decides, as for the typer command
        return _guarded_exit(exc)
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous)


def _terminated(signum: int, frame: Any) -> None:
    """SIGTERM during :func:`run_plain`: guarded's own handler (it marks the termination)."""
    from ._common import _raise_terminated

    _raise_terminated(signum, frame)


def _guarded_exit(exc: BaseException) -> int:
    """The exit code (and message) ``commands._common.guarded`` gives ``exc`` raised by the
    command body (:func:`~primafacie.commands._common.exit_code`)."""
    import typer

    from ._common import exit_code

    if isinstance(exc, typer.Exit):
        return exc.exit_code
    if not isinstance(exc, (Exception, KeyboardInterrupt)):  # SystemExit: not guarded's
        raise exc
    return exit_code(exc)


def _reproduce_all(data_root: Path, out: Path, legacy: bool) -> None:
    """Every reproduction into out/NAME/, then one row of verdict counts per reproduction."""
    import shutil
    import time

    from rich.table import Table

    from ..experiments.compare import status_counts
    from ..io import atomic_output_dir, atomic_write_csv

    rows = []
    with atomic_output_dir(out, owner="reproduce all") as stage:
        for name in EXPERIMENTS:
            t0 = time.perf_counter()
            target = stage / name
            target.mkdir()
            try:
                with _status(f"reproducing {name} ..."):
                    get_experiment(name)(data_root, target, legacy=legacy)
                    compare = get_comparison(name)
                    table = compare(target, data_root, legacy=legacy) if compare else None
            except DataMissingError as exc:
                # whatever the run wrote before its data turned out missing is not a result
                shutil.rmtree(target, ignore_errors=True)
                rows.append((name, None, f"skipped: {exc}", time.perf_counter() - t0))
                continue
            if table is not None:
                atomic_write_csv(target / f"{name}-vs-paper.csv", table, index=False)
            rows.append((name, table, "", time.perf_counter() - t0))
    view = Table(title=f"reproductions against the papers ({out})", header_style="bold",
                 title_justify="left")  # fmt: skip
    for col in ("reproduction", "numbers", *(s.replace(" ", "\n", 1) for s in _STYLE), "s"):
        view.add_column(col, justify="left" if col == "reproduction" else "right")
    for name, table, skipped, secs in rows:
        if table is None:
            view.add_row(name, "", "", "", "", f"[dim]{skipped or 'no comparison'}[/]", "")
            continue
        counts = status_counts(table)
        cells = [f"[{_STYLE[k]}]{v}[/]" if v else "0" for k, v in counts.items()]
        view.add_row(name, str(len(table)), *cells, f"{secs:.1f}")
    console.print(view)
    console.print(f"details: {out}/NAME/NAME-vs-paper.csv", soft_wrap=True)


def _print_comparison(name: str, table) -> None:
    """Verdict counts, then the numbers that differ from the paper (at most SHOWN_ROWS)."""
    from rich.table import Table

    from ..experiments.compare import status_counts

    if table.empty:
        console.print(
            f"{name}: the paper publishes no numbers for these options, so there is nothing to "
            "compare (the CSVs hold our results)",
            soft_wrap=True,
        )
        return
    counts = status_counts(table)
    parts = [f"[{_STYLE[s]}]{n} {s}[/]" for s, n in counts.items() if n]
    console.print(
        f"{name} against the paper, {len(table)} numbers: " + ", ".join(parts), soft_wrap=True
    )
    differ = table[table["status"] == "differs"]
    if not differ.empty:
        view = Table(title="differs from the paper", header_style="bold", title_justify="left")
        for col in ("table", "quantity", "ours", "paper", "tolerance", "note"):
            view.add_column(col, overflow="fold")
        for r in differ.head(SHOWN_ROWS).itertuples():
            view.add_row(
                str(r.table), str(r.quantity), _fmt(r.ours), _fmt(r.paper), str(r.tolerance),
                str(r.note),
            )  # fmt: skip
        console.print(view)
        if len(differ) > SHOWN_ROWS:
            console.print(f"({len(differ) - SHOWN_ROWS} more differing rows not shown)")
    console.print(f"every number with its verdict: {name}-vs-paper.csv")


def _fmt(x) -> str:
    if isinstance(x, float):
        return f"{x:.6g}"
    return str(x)
