"""``primafacie reproduce NAME [--out] [--data-dir] [--legacy] [--positive]`` without typer
(issue 22, start-up): launch.main parses these forms and runs the command's body through
``commands.reproduce.run_plain``; the output, the files and the exit codes are the typer
command's, and anything else goes to typer."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from primafacie.cli import app
from primafacie.launch import plain_reproduce


@pytest.mark.parametrize(
    "args, expected",
    [
        (["cst-loan"], {"name": "cst-loan", "out": Path("out/reproduce")}),
        (
            ["cst-law", "--out", "o", "--data-dir=d", "--legacy", "--positive"],
            {
                "name": "cst-law",
                "out": Path("o"),
                "data_dir": Path("d"),
                "legacy": True,
                "positive": True,
            },
        ),  # fmt: skip
        (["all", "--legacy"], {"name": "all", "out": Path("out/reproduce"), "legacy": True}),
        ([], None),  # typer's "missing argument"
        (["--out", "o", "cst-loan"], None),  # options before NAME: typer's parsing
        (["cst-loan", "--tau", "0.05"], None),  # other options
        (["cst-loan", "--help"], None),
        (["cst-loan", "--out"], None),  # no value
        (["cst-loan", "--out="], None),
        (["cst-loan", "--out", "--legacy"], None),  # a value that looks like an option
        (["cst-loan", "--legacy", "--legacy"], None),  # repeated
        (["cst-loan", "--out", "a", "--out=b"], None),
        (["cst-loan", "--legacy=yes"], None),
        (["cst-loan", "extra"], None),
    ],
)
def test_plain_forms_only(args, expected):
    assert plain_reproduce(args) == expected


def _toy(monkeypatch, cmd):
    """A reproduction of one number that differs from the paper (a table is printed)."""
    import pandas as pd

    from primafacie.experiments.compare import check, comparison_frame

    def run(data_dir, out_dir, **options):
        path = out_dir / "toy.csv"
        pd.DataFrame({"k": [15], "cases": [55], "legacy": [options["legacy"]]}).to_csv(path)
        return [path]

    def compare(out_dir, data_dir, **options):
        return comparison_frame(
            [check("Table 1", "ST cases, k=15", 55, 55), check("Table 1", "k=30", 66, 65)]
        )

    monkeypatch.setattr(cmd, "get_experiment", lambda name: run)
    monkeypatch.setattr(cmd, "get_comparison", lambda name: compare)


@pytest.mark.parametrize("extra", [[], ["--legacy"]])
def test_run_plain_prints_and_writes_what_the_typer_command_does(
    tmp_path, monkeypatch, capsys, extra
):
    from primafacie.commands import reproduce as cmd

    _toy(monkeypatch, cmd)
    typer_out = tmp_path / "typer"
    res = CliRunner().invoke(app, ["reproduce", "toy", "--out", str(typer_out), *extra])
    plain_out = tmp_path / "plain"
    code = cmd.run_plain(**plain_reproduce(["toy", "--out", str(plain_out), *extra]))
    printed = capsys.readouterr().out
    assert (code, printed.replace(str(plain_out), "OUT")) == (
        res.exit_code,
        res.output.replace(str(typer_out), "OUT"),
    )
    assert "1 exact, 1 differs" in printed
    for name in ("toy.csv", "toy-vs-paper.csv"):
        assert (plain_out / name).read_bytes() == (typer_out / name).read_bytes()


def test_run_plain_errors_exit_as_the_typer_command(tmp_path, capsys):
    """An unknown name, absent data and an output under a file: guarded's message and code."""
    from primafacie.commands import reproduce as cmd

    (tmp_path / "afile").write_text("x")
    cases = [
        ["cst-lon", "--out", str(tmp_path / "o")],
        ["cst-loan", "--out", str(tmp_path / "o"), "--data-dir", str(tmp_path / "none")],
        ["cst-loan", "--out", str(tmp_path / "afile" / "o")],
    ]
    for args in cases:
        res = CliRunner().invoke(app, ["reproduce", *args])
        code = cmd.run_plain(**plain_reproduce(args))
        err = capsys.readouterr().err
        assert code == res.exit_code == 2
        assert " ".join(err.split()) == " ".join(res.output.split())  # wrapped by the width
        assert not (tmp_path / "o").exists()


def test_plain_reproduce_loads_no_typer(tmp_path):
    """The console entry runs a plain reproduction without importing typer, click or
    pydantic (a fresh interpreter; the reproduction is a toy)."""
    script = f"""
import json, sys
from primafacie.commands import reproduce as cmd
def run(data_dir, out_dir, **options):
    (out_dir / "toy.csv").write_text("k\\n15\\n")
    return [out_dir / "toy.csv"]
cmd.get_experiment = lambda name: run
cmd.get_comparison = lambda name: None
sys.argv = ["primafacie", "reproduce", "toy", "--out", {str(tmp_path / "o")!r}]
from primafacie.launch import main
main()
print(json.dumps(sorted({{m.split(".")[0] for m in sys.modules}} & {{"typer", "click", "pydantic"}})))
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert lines[0] == f"wrote {tmp_path / 'o' / 'toy.csv'}"
    assert json.loads(lines[-1]) == []
    assert (tmp_path / "o" / "toy.csv").read_text() == "k\n15\n"
