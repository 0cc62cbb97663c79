"""Start-up cost of the CLI and the package: ``primafacie --help``, a command's ``--help`` and
an argument error load no engine, pandas, scipy, matplotlib or scikit-learn; neither does
``import primafacie``. Checked on ``sys.modules`` of a fresh interpreter (not on a timing, which
depends on the machine)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

#: Modules that must not be loaded before a command actually runs. An analysis package whose
#: ``__init__`` is lazy may load (to read its declarations, ``params.py``); its engine and its
#: ``audit.yaml`` model may not.
HEAVY = (
    "primafacie.situation.engine",
    "primafacie.situation.spec",
    "primafacie.recourse.engine",
    "primafacie.recourse.spec",
    "primafacie.principal.engine",
    "primafacie.principal.spec",
    "primafacie.certainty.engine",
    "primafacie.certainty.spec",
    "primafacie.groups.engine",
    "primafacie.groups.spec",
    "primafacie.causal",
    "primafacie.neighbors",
    "primafacie.audit",
    "primafacie.config",
    "pandas",
    "numpy",
    "scipy",
    "matplotlib",
    "sklearn",
)

COMMANDS = ("demo", "audit", "groups", "situation", "recourse", "principal", "certainty",
            "alternatives", "ll144", "reproduce", "schema", "dossier", "diff", "check")  # fmt: skip


def loaded_after(code: str) -> dict:
    """Run ``code`` in a fresh interpreter; it leaves a JSON-able ``out``; returns it with the
    heavy modules found in ``sys.modules``."""
    script = (
        "import json, sys\n"
        f"{code}\n"
        f"out['heavy'] = sorted(m for m in {HEAVY!r} if m in sys.modules)\n"
        "print(json.dumps(out))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


RUN_CLI = """
import contextlib, io
from primafacie import cli
out = {"codes": [], "text": ""}
for args in ARGS:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        try:
            cli.app(args, prog_name="primafacie")
        except SystemExit as exc:
            out["codes"].append(exc.code)
    out["text"] += buf.getvalue()
"""


def test_help_of_the_cli_and_of_every_command_loads_no_heavy_module():
    args = [["--help"]] + [[c, "--help"] for c in COMMANDS]
    out = loaded_after(f"ARGS = {args!r}\n{RUN_CLI}")
    assert out["heavy"] == []
    assert out["codes"] == [0] * len(args)
    for command in COMMANDS:  # the help was really rendered
        assert command in out["text"]
    assert "Example" in out["text"]


@pytest.mark.parametrize(
    "args",
    [
        ["situation", "--no-such-flag"],
        ["groups", "--min-group", "many"],  # not an integer: typer's own check
        ["audit"],  # missing argument
        ["reproduce"],
        ["nonsense"],
        # a command run without its data: the usage error comes before any import
        ["situation"],
        ["recourse"],
        ["principal"],
        ["certainty"],
        ["groups", "--protected", "sex=F"],
    ],
)
def test_argument_errors_exit_2_without_loading_heavy_modules(args):
    out = loaded_after(f"ARGS = {[args]!r}\n{RUN_CLI}")
    assert out["codes"] == [2], out["text"]
    assert out["heavy"] == []


def test_import_primafacie_is_lazy_and_names_load_on_first_use():
    code = (
        "import primafacie\n"
        "out = {'before': sorted(m for m in ('pandas', 'primafacie.situation') "
        "if m in sys.modules)}\n"
        "out['name'] = primafacie.SituationTest.__name__\n"
        "out['after'] = 'primafacie.situation' in sys.modules\n"
        "out['all'] = all(hasattr(primafacie, n) for n in primafacie.__all__)\n"
    )
    out = loaded_after(code)
    assert out["before"] == []
    assert out["name"] == "SituationTest" and out["after"] is True
    assert out["all"] is True


def test_unknown_attribute_of_the_package_is_an_attribute_error():
    import primafacie

    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        primafacie.Nope  # noqa: B018


def test_no_engine_imports_mlxtend():
    """mlxtend is an optional extra: only the 'mlxtend' miner imports it, when it runs."""
    code = (
        "import primafacie.audit, primafacie.recourse, primafacie.recourse.items\n"
        "from primafacie import cli\n"
        "out = {'mlxtend': [m for m in sys.modules if m.startswith('mlxtend')]}\n"
    )
    assert loaded_after(code)["mlxtend"] == []


def test_situation_and_intervals_import_no_scipy():
    """issue 22: importing the situation engine (what ``reproduce cst-*`` and ``situation``
    load first) reads no SciPy, scikit-learn or matplotlib, and neither does computing the
    normal quantile of an interval or a p-value (primafacie.normal, SciPy's bits)."""
    code = (
        "import primafacie.intervals, primafacie.situation\n"
        "from primafacie.situation.stats import wald_p_value, newcombe_p_value\n"
        "out = {'loaded': sorted({m.split('.')[0] for m in sys.modules} "
        "& {'scipy', 'sklearn', 'matplotlib'})}\n"
        "out['z'] = primafacie.intervals.z_value(0.05)\n"
        "out['p'] = [float(wald_p_value(10, 15, 3, 15)), float(newcombe_p_value(10, 15, 3, 15))]\n"
        "out['after'] = sorted({m.split('.')[0] for m in sys.modules} & {'scipy'})\n"
    )
    out = loaded_after(code)
    assert out["loaded"] == []
    assert out["z"] == 1.6448536269514722  # Φ⁻¹(0.95) correctly rounded (scipy.special.ndtri)
    assert 0.0017 < out["p"][0] < 0.0018  # the hand example of wald_p_value's docstring
    assert 0 < out["p"][1] < 0.05
    assert out["after"] == []


def test_situation_engine_imports_no_pandas():
    """issue 22: ``from primafacie.situation import SituationTest`` (the engine, its planning,
    search, statistics and result modules, AuditData, the k-NN package) loads no pandas,
    pyarrow, SciPy or scikit-learn: each is imported inside the functions that use it, so
    the import stays a fraction of a second; running the engine loads pandas as before."""
    code = (
        "from primafacie.situation import SituationTest\n"
        "from primafacie.data import AuditData\n"
        "out = {'loaded': sorted({m.split('.')[0] for m in sys.modules} "
        "& {'pandas', 'pyarrow', 'scipy', 'sklearn', 'matplotlib'})}\n"
    )
    assert loaded_after(code)["loaded"] == []


def test_a_command_loads_its_own_module_only():
    """The CLI imports a command's module when that command is looked up (issue 22.3):
    ``schema --help`` and an argument error of ``reproduce`` load no other command module."""
    for args, own in ((["schema", "--help"], "schema"), (["reproduce"], "reproduce")):
        code = (
            f"ARGS = {[args]!r}\n{RUN_CLI}\n"
            "out['commands'] = sorted(m for m in sys.modules "
            "if m.startswith('primafacie.commands.'))\n"
        )
        out = loaded_after(code)
        assert out["commands"] == ["primafacie.commands._common", f"primafacie.commands.{own}"]
        assert out["heavy"] == []


def _eager_app():
    """The application as it was built before commands were loaded lazily: every module's
    ``register`` called on one Typer with the same settings."""
    import typer

    from primafacie import cli

    eager = typer.Typer(name="primafacie", help=cli.app.info.help, no_args_is_help=True,
                        **cli._SETTINGS)  # fmt: skip
    eager.callback()(cli._root)
    for module in cli.COMMAND_MODULES:
        module.register(eager)
    return eager


@pytest.mark.parametrize(
    "args",
    [["--help"], [], ["situaton"], ["nonsense"], ["groups", "--min-group", "many"]]
    + [[name, "--help"] for name in ("demo", "audit", "groups", "situation", "recourse",
                                     "principal", "certainty", "alternatives", "ll144",
                                     "reproduce", "schema", "dossier", "diff", "check")],
)  # fmt: skip
def test_lazy_commands_render_and_fail_exactly_as_registered_ones(args):
    from typer.testing import CliRunner

    from primafacie import cli

    runner = CliRunner()
    lazy = runner.invoke(cli.app, args, prog_name="primafacie")
    eager = runner.invoke(_eager_app(), args, prog_name="primafacie")
    assert (lazy.exit_code, lazy.output) == (eager.exit_code, eager.output)
    assert lazy.output.strip()


def test_every_listed_command_is_registered_by_its_module():
    from primafacie import cli

    assert list(cli.COMMANDS) == [m.__name__.rsplit(".", 1)[-1] for m in cli.COMMAND_MODULES]
    group = cli._LazyGroup(name="primafacie")
    assert group.list_commands(None) == list(cli.COMMANDS)
    for name in cli.COMMANDS:
        assert group.get_command(None, name).name == name
    assert group.get_command(None, "nonsense") is None and "nonsense" not in group.commands


def _help_bytes(code: list[str], **env: str) -> bytes:
    import os

    full = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TERMINAL_WIDTH")}
    proc = subprocess.run([sys.executable, *code, "--help"], capture_output=True, timeout=120,
                          env={**full, **env})  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize(
    "env",
    [{}, {"COLUMNS": "60"}, {"COLUMNS": "123"}, {"COLUMNS": "40"}, {"TERMINAL_WIDTH": "70"},
     {"FORCE_COLOR": "1"}, {"FORCE_COLOR": "1", "COLUMNS": "100"}],
)  # fmt: skip
def test_root_help_without_typer_is_typers_page_byte_for_byte(env):
    """``python -m primafacie --help`` (cli_help, no typer) prints exactly what typer prints
    for the application, plain or coloured, at any width (at 40 columns click would wrap the
    usage line, so cli_help hands over to typer)."""
    fast = _help_bytes(["-m", "primafacie"], **env)
    typer_page = _help_bytes(
        ["-c", "from primafacie.cli import app; app(prog_name='python -m primafacie')"], **env
    )
    assert fast == typer_page
    assert b"Commands" in fast and b"reproduce" in fast
    if "FORCE_COLOR" in env:
        assert b"\x1b[" in fast  # the colours really were compared


def test_root_help_loads_neither_typer_nor_numpy():
    code = (
        "import sys\nsys.argv = ['primafacie', '--help']\n"
        "from primafacie.launch import main\nmain()\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'typer', 'click', 'numpy', 'pandas', 'pydantic', 'yaml'}), file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert proc.returncode == 0 and "reproduce" in proc.stdout
    assert proc.stderr.strip() == "[]"


def test_root_help_hands_over_to_typer_when_a_summary_is_computed(monkeypatch, tmp_path):
    """A HELP whose first paragraph is built by code (an f-string field) cannot be read from
    the source: ``print_root_help`` prints nothing and says so."""
    from primafacie import cli_help

    (tmp_path / "commands").mkdir()
    (tmp_path / "commands" / "demo.py").write_text('HELP = f"""Run {NAME}.\n\nMore."""\n')
    monkeypatch.setattr(cli_help, "__file__", str(tmp_path / "cli_help.py"))
    assert cli_help.command_summaries(("demo",)) is None
    assert cli_help.print_root_help() is False
    (tmp_path / "commands" / "demo.py").write_text('HELP = f"""Run it.\n\nMore {NAME}."""\n')
    assert cli_help.command_summaries(("demo",)) == {"demo": "Run it."}
