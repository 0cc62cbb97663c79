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


def test_comparison_written_and_differences_printed(tmp_path, monkeypatch):
    """The run's CSV, then NAME-vs-paper.csv, then verdict counts and the differing rows."""
    import pandas as pd

    from primafacie.commands import reproduce as cmd
    from primafacie.experiments.compare import check, comparison_frame

    def run(data_dir, out_dir, **options):
        return [
            pd.DataFrame({"k": [15], "cases": [55]}).to_csv(out_dir / "toy.csv")
            or out_dir / "toy.csv"
        ]

    def compare(out_dir, data_dir, **options):
        ours = int(pd.read_csv(out_dir / "toy.csv")["cases"].iloc[0])
        return comparison_frame(
            [
                check("Table 1", "ST cases, k=15", ours, 55),
                check("Table 1", "ST cases, k=30", 66, 65, note="tie"),
            ]
        )

    monkeypatch.setattr(cmd, "get_experiment", lambda name: run)
    monkeypatch.setattr(cmd, "get_comparison", lambda name: compare)
    out = tmp_path / "o"
    res = runner.invoke(app, ["reproduce", "toy", "--out", str(out)])
    assert res.exit_code == 0, res.output
    table = pd.read_csv(out / "toy-vs-paper.csv")
    assert table["status"].tolist() == ["exact", "differs"]
    assert "toy against the paper, 2 numbers: 1 exact, 1 differs" in res.output
    assert "│ tie" in res.output  # the note column
    assert "ST cases, k=15" not in res.output  # exact rows stay in the CSV
