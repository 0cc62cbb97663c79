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


def test_reproduce_all_runs_each_into_its_folder_and_skips_absent_data(tmp_path, monkeypatch):
    import pandas as pd

    from primafacie.commands import reproduce as cmd
    from primafacie.errors import DataMissingError
    from primafacie.experiments.compare import check, comparison_frame

    def run_ok(data_dir, out_dir, **options):
        assert options == {"legacy": True}
        path = out_dir / "t.csv"
        pd.DataFrame({"x": [1]}).to_csv(path, index=False)
        return [path]

    def run_missing(data_dir, out_dir, **options):
        raise DataMissingError("dataset file absent: /nowhere/b.csv")

    runs = {"alpha": run_ok, "beta": run_missing}
    monkeypatch.setattr(cmd, "EXPERIMENTS", {"alpha": None, "beta": None})
    monkeypatch.setattr(cmd, "get_experiment", lambda name: runs[name])
    monkeypatch.setattr(
        cmd,
        "get_comparison",
        lambda name: lambda out_dir, data_dir, **o: comparison_frame([check("T", "x", 1, 1)]),
    )
    out = tmp_path / "all"
    res = runner.invoke(app, ["reproduce", "all", "--legacy", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert (out / "alpha" / "t.csv").is_file()
    assert pd.read_csv(out / "alpha" / "alpha-vs-paper.csv")["status"].tolist() == ["exact"]
    assert not (out / "beta" / "beta-vs-paper.csv").exists()
    assert "alpha" in res.output and "skipped" in res.output


def test_reproduce_all_rejects_single_run_options(tmp_path):
    res = runner.invoke(app, ["reproduce", "all", "--tau", "0.05", "--out", str(tmp_path / "o")])
    assert res.exit_code == 2
    assert "reproduce all takes only --legacy" in res.output
    assert not (tmp_path / "o").exists()


def test_reproduce_all_skip_leaves_no_partial_folder(tmp_path, monkeypatch):
    """A reproduction that wrote a file before its data turned out missing is listed as skipped
    and leaves nothing behind (no half-written OUT/NAME/)."""
    import pandas as pd

    from primafacie.commands import reproduce as cmd
    from primafacie.errors import DataMissingError

    def run_half(data_dir, out_dir, **options):
        pd.DataFrame({"x": [1]}).to_csv(out_dir / "first.csv", index=False)
        raise DataMissingError("dataset file absent: /nowhere/second.csv")

    def run_ok(data_dir, out_dir, **options):
        path = out_dir / "t.csv"
        pd.DataFrame({"x": [1]}).to_csv(path, index=False)
        return [path]

    runs = {"half": run_half, "ok": run_ok}
    monkeypatch.setattr(cmd, "EXPERIMENTS", {"half": None, "ok": None})
    monkeypatch.setattr(cmd, "get_experiment", lambda name: runs[name])
    monkeypatch.setattr(cmd, "get_comparison", lambda name: None)
    out = tmp_path / "all"
    res = runner.invoke(app, ["reproduce", "all", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert (out / "ok" / "t.csv").is_file()
    assert not (out / "half").exists()
    assert "skipped" in res.output


def test_every_registered_comparison_resolves():
    """A misspelt COMPARISONS entry must not silently drop NAME-vs-paper.csv."""
    from primafacie.experiments import COMPARISONS, EXPERIMENTS, get_comparison

    assert set(COMPARISONS) <= set(EXPERIMENTS)
    for name in COMPARISONS:
        assert callable(get_comparison(name)), name


def test_error_text_in_brackets_is_printed_verbatim(tmp_path, monkeypatch):
    """Messages are not read as rich markup: '[st]' and "'primafacie[dask]'" survive."""
    from primafacie.commands import reproduce as cmd
    from primafacie.errors import InputError

    def run(data_dir, out_dir, **options):
        raise InputError("use methods: [st], or pip install 'primafacie[dask]'")

    monkeypatch.setattr(cmd, "get_experiment", lambda name: run)
    res = runner.invoke(app, ["reproduce", "toy", "--out", str(tmp_path / "o")])
    assert res.exit_code == 2
    assert "use methods: [st], or pip install 'primafacie[dask]'" in " ".join(res.output.split())
    assert not (tmp_path / "o").exists()


def test_no_published_numbers_is_said_plainly(tmp_path, monkeypatch):
    import pandas as pd

    from primafacie.commands import reproduce as cmd
    from primafacie.experiments.compare import comparison_frame

    def run(data_dir, out_dir, **options):
        path = out_dir / "t.csv"
        pd.DataFrame({"x": [1]}).to_csv(path, index=False)
        return [path]

    monkeypatch.setattr(cmd, "get_experiment", lambda name: run)
    monkeypatch.setattr(cmd, "get_comparison", lambda name: lambda *a, **o: comparison_frame([]))
    res = runner.invoke(app, ["reproduce", "toy", "--positive", "--out", str(tmp_path / "o")])
    assert res.exit_code == 0, res.output
    assert "the paper publishes no numbers for these options" in " ".join(res.output.split())
