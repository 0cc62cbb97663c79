from typer.testing import CliRunner

from primafacie.cli import app

runner = CliRunner()


def test_unknown_reproduction_exits_2_and_suggests(tmp_path):
    out = tmp_path / "o"
    res = runner.invoke(app, ["reproduce", "cst-lon", "--out", str(out)])
    assert res.exit_code == 2
    assert "did you mean 'cst-loan'" in res.output
    assert not out.exists()


def test_help_has_example():
    res = runner.invoke(app, ["reproduce", "--help"])
    assert res.exit_code == 0
    assert "primafacie reproduce cst-loan" in res.output
