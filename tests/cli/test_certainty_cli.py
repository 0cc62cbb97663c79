"""``primafacie certainty`` and ``primafacie reproduce certainty-*`` from the command line."""

import json

import joblib
import numpy as np
import pandas as pd
import pytest
import skops.io
from typer.testing import CliRunner

from primafacie.cli import app
from tests.shared import demo_inputs, private_copy

runner = CliRunner()


@pytest.fixture()
def table(tmp_path):
    rng = np.random.default_rng(0)
    n = 120
    df = pd.DataFrame(
        {
            "g": rng.choice(["a", "b", "c"], n),
            "sex": rng.choice(["f", "m"], n),
            "x": rng.normal(size=n),
            "y": rng.integers(0, 2, n),
            "clerk": rng.integers(0, 2, n),
        }
    )
    path = tmp_path / "d.csv"
    df.to_csv(path, index=False)
    return path, df


def test_flags_write_outputs(tmp_path, table):
    from sklearn.linear_model import LogisticRegression

    path, df = table
    model = LogisticRegression().fit(df[["x"]], df["y"])
    skops.io.dump(model, tmp_path / "lr.skops")
    out = tmp_path / "out"
    res = runner.invoke(
        app,
        ["certainty", "--data", str(path), "--protected", "g", "--protected", "sex",
         "--column", "clerk=clerk", "--rule", "strict=x > 0.5", "--model", f"lr={tmp_path / 'lr.skops'}",
         "--outcome", "y", "--tie-breaker", "accuracy", "--epsilon", "0.1", "--out", str(out)],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "selected:" in res.output
    ranking = pd.read_csv(out / "certainty.csv")
    assert set(ranking["decision_maker"]) == {"clerk", "strict", "lr"}
    assert ranking["selected"].sum() >= 1
    counts = pd.read_csv(out / "certainty_counts.csv")
    assert len(counts) == 3 * 6  # 3 decision-makers x (3 races x 2 sexes)
    doc = json.loads((out / "certainty.json").read_text())
    assert doc["protected"] == ["g", "sex"] and doc["tie_breaker"] == "accuracy"
    assert (out / "certainty.png").stat().st_size > 0


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--column", "h=x"], "must be binary"),
        (["--column", "h=clerk", "--protected", "one"], "single group"),
        (["--column", "h=clerk", "--criterion", "equal_opportunity", "--outcome", "empty_y"],
         "no rows with a favourable true outcome"),
        (["--column", "h=nope"], "not a column"),
        (["--column", "broken"], "NAME=VALUE"),
        (["--rule", "r=__import__('os')"], "not allowed"),
    ],
)  # fmt: skip
def test_bad_input_exit_2_nothing_written(tmp_path, table, extra, message):
    path, df = table
    df = df.assign(one="same", empty_y=np.where(df["g"] == "c", 0, df["y"]))
    df.to_csv(path, index=False)
    out = tmp_path / "out"
    args = ["certainty", "--data", str(path), "--out", str(out)]
    if "--protected" not in extra:
        args += ["--protected", "g"]
    res = runner.invoke(app, args + extra)
    assert res.exit_code == 2, res.output
    assert message in " ".join(res.output.split())
    assert not out.exists()


def test_flag_errors_keep_their_order(tmp_path, table):
    # --column and --rule are read before the data, --model after it: a missing file is named
    # before a malformed --model, a malformed --column before the file; a name given twice
    # (across --column and --rule) is refused
    path, _ = table
    out, missing = tmp_path / "out", str(tmp_path / "none.csv")
    cases = [
        (["--data", missing, "--model", "broken"], "data file not found"),
        (["--data", missing, "--column", "broken"], "--column expects NAME=VALUE"),
        (["--data", str(path), "--column", "a=clerk", "--rule", "a=x > 0"], "used twice"),
    ]
    for args, message in cases:
        res = runner.invoke(app, ["certainty", "--protected", "g", "--out", str(out), *args])
        assert res.exit_code == 2, res.output
        assert message in " ".join(res.output.split()), (args, res.output)
        assert not out.exists()


def test_wrong_length_model_predictions_exit_2(tmp_path, table):
    path, _ = table
    joblib.dump(_FixedLength(), tmp_path / "bad.joblib")
    out = tmp_path / "out"
    res = runner.invoke(
        app, ["certainty", "--data", str(path), "--protected", "g",
              "--model", f"bad={tmp_path / 'bad.joblib'}", "--trust-pickle", "--out", str(out)],
    )  # fmt: skip
    assert res.exit_code == 2, res.output
    assert "5 predictions for 120 rows" in " ".join(res.output.split())
    assert not out.exists()


class _FixedLength:
    """A 'model' that always returns 5 predictions (picklable at module level)."""

    def predict(self, X):
        return np.array([0, 1, 0, 1, 0])


def test_config_path(tmp_path, table):
    path, _ = table
    cfg = tmp_path / "audit.yaml"
    cfg.write_text(
        f"""data: {path}
decision: {{column: clerk}}
outcome: y
features: {{x: numeric}}
protected: {{g: a}}
analyses:
  certainty:
    criterion: statistical_parity
    tie_breaker: accuracy
    decision_makers: {{clerk: {{column: clerk}}, lenient: {{rule: "x > -1"}}}}
"""
    )
    out = tmp_path / "out"
    res = runner.invoke(app, ["certainty", "--config", str(cfg), "--out", str(out)])
    assert res.exit_code == 0, res.output
    ranking = pd.read_csv(out / "certainty.csv")
    assert set(ranking["decision_maker"]) == {"clerk", "lenient"}
    assert not np.isnan(ranking["accuracy"]).any()


def test_config_without_section_exit_2(tmp_path, table):
    path, _ = table
    cfg = tmp_path / "audit.yaml"
    cfg.write_text(
        f"data: {path}\ndecision: {{column: clerk}}\nfeatures: {{x: numeric}}\nprotected: {{g: a}}\n"
    )
    res = runner.invoke(app, ["certainty", "--config", str(cfg), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and "analyses.certainty" in res.output


def test_help_has_example():
    res = runner.invoke(app, ["certainty", "--help"])
    assert res.exit_code == 0 and "primafacie certainty --data" in res.output


@pytest.mark.parametrize("name", ["certainty-hiring", "certainty-synthetic"])
def test_reproduce_writes_csv(tmp_path, name):
    out = tmp_path / "rep"
    res = runner.invoke(app, ["reproduce", name, "--out", str(out)])
    assert res.exit_code == 0, res.output
    frame = pd.read_csv(out / f"{name}.csv")
    assert len(frame) == (2 if name == "certainty-hiring" else 4900)
    # the ours-vs-paper table is written next to it and every printed number agrees
    vs = pd.read_csv(out / f"{name}-vs-paper.csv")
    assert len(vs) == (21 if name == "certainty-hiring" else 50)
    assert set(vs.status) <= {"exact", "within tolerance"}
    assert f"{name} against the paper" in res.output


def test_many_valued_protected_column_needs_max_levels(tmp_path, table):
    path, df = table
    df = df.assign(region=[f"r{i % 25}" for i in range(len(df))])
    data = tmp_path / "d25.csv"
    df.to_csv(data, index=False)
    args = ["certainty", "--data", str(data), "--protected", "region", "--column", "clerk=clerk"]
    res = runner.invoke(app, [*args, "--out", str(tmp_path / "o1")])
    assert res.exit_code == 2
    assert "'region' has 25 distinct values (more than 20)" in " ".join(res.output.split())
    assert not (tmp_path / "o1").exists()
    res = runner.invoke(app, [*args, "--max-levels", "0", "--out", str(tmp_path / "o2")])
    assert res.exit_code == 0, res.output
    counts = pd.read_csv(tmp_path / "o2" / "certainty_counts.csv")
    assert counts["group"].nunique() == 25


# ---------------------------------------------------------------------------- parity
def _demo_with(folder, certainty: dict):
    """Demo inputs (small n) whose audit.yaml holds only the given certainty section."""
    import yaml

    # a private copy of the run's shared demo inputs; the alternatives search (on by default
    # with the demo's model and outcome) is off: these tests compare the certainty tables
    path = private_copy(demo_inputs(n=300, seed=0), folder) / "audit.yaml"
    cfg = yaml.safe_load(path.read_text())
    cfg["analyses"] = {"certainty": certainty, "alternatives": None}
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


def _assert_parity(path, tmp_path):
    audit_out, cli_out = tmp_path / "audit", tmp_path / "cli"
    res = runner.invoke(app, ["audit", str(path), "--out", str(audit_out), "--no-progress"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["certainty", "--config", str(path), "--out", str(cli_out)])
    assert res.exit_code == 0, res.output
    tables = audit_out / "tables"
    assert (cli_out / "certainty.csv").read_bytes() == (
        tables / "certainty_ranking.csv"
    ).read_bytes()
    assert (cli_out / "certainty_counts.csv").read_bytes() == (
        tables / "certainty_group_counts.csv"
    ).read_bytes()
    return pd.read_csv(cli_out / "certainty.csv")


@pytest.fixture(scope="module")
def demo_folder(tmp_path_factory):
    return tmp_path_factory.mktemp("demo_certainty")


def test_config_equals_the_audit_byte_for_byte(demo_folder, tmp_path):
    from primafacie.datasets.credit_world import demo_config

    section = demo_config(300)["analyses"]["certainty"]  # four decision-makers
    ranking = _assert_parity(_demo_with(demo_folder / "listed", section), tmp_path)
    assert set(ranking["decision_maker"]) == set(section["decision_makers"])


def test_config_without_decision_makers_ranks_the_audited_decision_as_the_audit(
    demo_folder, tmp_path
):
    from primafacie.certainty import DEFAULT_DECISION_MAKER

    path = _demo_with(demo_folder / "default", {"criterion": "statistical_parity"})
    ranking = _assert_parity(path, tmp_path)
    assert ranking["decision_maker"].tolist() == [DEFAULT_DECISION_MAKER]


def test_config_refuses_flags_that_would_change_the_ranking(demo_folder, tmp_path):
    from primafacie.datasets.credit_world import demo_config

    path = _demo_with(demo_folder / "refuse", demo_config(300)["analyses"]["certainty"])
    out = tmp_path / "o"
    res = runner.invoke(
        app, ["certainty", "--config", str(path), "--protected", "gender", "--epsilon", "0.1",
              "--out", str(out)],
    )  # fmt: skip
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())
    assert "drop --protected, --epsilon or set the keys of analyses.certainty" in text
    assert not out.exists()


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--on-empty", "drop"],
         "on_empty must be one of 'error', 'skip'; got 'drop' (--on-empty, analyses.certainty.on_empty)"),
        (["--epsilon", "1.5"], "epsilon must be None or a number in [0, 1); got 1.5"),
        (["--criterion", "fairness"], "criterion must be one of 'statistical_parity'"),
        (["--min-group", "0"], "min_group must be None or an integer ≥ 1; got 0"),
        (["--n-draws", "-3"], "n_draws must be None or an integer in [1, 10000000]; got -3 (--n-draws, "
                              "analyses.certainty.n_draws)"),
        (["--seed", "-1"], "seed must be an integer ≥ 0; got -1 (--seed, "
                           "analyses.certainty.seed)"),
    ],
)  # fmt: skip
def test_flags_are_checked_by_the_engine_constraints(tmp_path, table, extra, message):
    path, _ = table
    out = tmp_path / "o"
    args = ["certainty", "--data", str(path), "--protected", "g", "--column", "c=clerk"]
    res = runner.invoke(app, [*args, *extra, "--out", str(out)])
    assert res.exit_code == 2, res.output
    assert message in " ".join(res.output.split())
    assert not out.exists()


def test_criterion_alias_on_the_command_line(tmp_path, table):
    path, _ = table
    out = tmp_path / "o"
    res = runner.invoke(app, ["certainty", "--data", str(path), "--protected", "g",
                              "--column", "c=clerk", "--criterion", "sp", "--out", str(out)])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert json.loads((out / "certainty.json").read_text())["criterion"] == "statistical_parity"


def test_typer_defaults_are_the_spec_defaults():
    import typer.main

    from primafacie.certainty.spec import CertaintySpec

    command = typer.main.get_command(app).commands["certainty"]
    defaults = {p.name: p.default for p in command.params}
    spec = CertaintySpec()
    for key in ("criterion", "utility", "disparity", "on_empty", "max_levels", "epsilon",
                "n_draws", "seed"):  # fmt: skip
        assert defaults[key] == getattr(spec, key), key


# ---------------------------------------------------------------------------- --n-draws, --seed
def _two_makers(path, out, *extra):
    return ["certainty", "--data", str(path), "--protected", "g", "--column", "clerk=clerk",
            "--rule", "strict=x > 0.5", *extra, "--out", str(out)]  # fmt: skip


def test_n_draws_and_seed_give_the_api_p_most_fair(tmp_path, table):
    from primafacie.certainty import CertaintyRanking
    from primafacie.decisions import Rule

    path, df = table
    out = tmp_path / "o"
    res = runner.invoke(app, _two_makers(path, out, "--n-draws", "2000", "--seed", "5"))
    assert res.exit_code == 0, res.output
    ranking = pd.read_csv(out / "certainty.csv")
    api = CertaintyRanking(protected=["g"], n_draws=2000, seed=5, favorable=1).run(
        df, {"clerk": "clerk", "strict": Rule("x > 0.5")}
    )
    expected = api.to_frame().set_index("decision_maker")["p_most_fair"]
    got = ranking.set_index("decision_maker")["p_most_fair"]
    np.testing.assert_allclose(got.loc[expected.index], expected.to_numpy())
    assert got.sum() == pytest.approx(1.0)  # exactly one decision-maker is most fair per draw
    assert (got * 2000 == np.round(got * 2000)).all()  # shares of 2000 draws
    doc = json.loads((out / "certainty.json").read_text())
    assert (doc["n_draws"], doc["seed"]) == (2000, 5)
    # the terminal prints the report's ranking table (certainty.analysis.tables)
    from primafacie.certainty.analysis import tables
    from primafacie.certainty.spec import CertaintySpec
    from primafacie.terminal import rich_table

    def column(result, header):
        table = rich_table(tables(result)[0])
        return list(table.columns[[c.header for c in table.columns].index(header)].cells)

    assert [float(c) for c in column(api, "P(most fair)")] == pytest.approx(
        list(api.table["p_most_fair"]), abs=5e-4
    )
    assert set(column(api, "accuracy")) == {"—"}  # no --outcome: no accuracy shown
    off = CertaintySpec(n_draws=None, protected=["g"]).build()
    off.favorable = 1
    no_draws = off.run(df, {"clerk": "clerk"})
    assert set(column(no_draws, "P(most fair)")) == {"—"}  # no draws: no P(most fair)
    for cell in column(api, "P(most fair)") + column(api, "rate (most privileged)"):
        assert cell in res.output  # printed whole


def test_n_draws_zero_leaves_p_most_fair_out(tmp_path, table):
    path, _ = table
    out = tmp_path / "o"
    res = runner.invoke(app, _two_makers(path, out, "--n-draws", "0"))
    assert res.exit_code == 0, res.output
    assert pd.read_csv(out / "certainty.csv")["p_most_fair"].isna().all()
    assert json.loads((out / "certainty.json").read_text())["n_draws"] is None


def test_n_draws_help_shows_the_default():
    from primafacie.certainty.spec import CertaintySpec

    text = " ".join(runner.invoke(app, ["certainty", "--help"]).output.split())
    assert "--n-draws" in text and f"[default: {CertaintySpec().n_draws}]" in text


def test_config_refuses_n_draws_and_seed(demo_folder, tmp_path):
    path = _demo_with(demo_folder / "draws", {"criterion": "statistical_parity"})
    out = tmp_path / "o"
    res = runner.invoke(app, ["certainty", "--config", str(path), "--n-draws", "10",
                              "--seed", "2", "--out", str(out)])  # fmt: skip
    assert res.exit_code == 2, res.output
    assert "drop --n-draws, --seed or set the keys" in " ".join(res.output.split())
    assert not out.exists()


def test_the_former_flag_min_group_size_still_works_with_a_note(tmp_path):
    """--min-group-size is read for one release (hidden from --help), with a note on stderr."""
    import pandas as pd
    from typer.testing import CliRunner

    from primafacie.cli import app

    df = pd.DataFrame({"g": ["a"] * 4 + ["b"] * 4 + ["c", "e"], "d": [1, 0] * 5})
    csv = tmp_path / "t.csv"
    df.to_csv(csv, index=False)
    args = ["certainty", "--data", str(csv), "--protected", "g", "--column", "d=d",
            "--n-draws", "0"]  # fmt: skip
    new = CliRunner().invoke(app, [*args, "--min-group", "2", "--out", str(tmp_path / "new")])
    old = CliRunner().invoke(app, [*args, "--min-group-size", "2", "--out", str(tmp_path / "o")])
    assert new.exit_code == 0 and old.exit_code == 0, old.output
    assert "--min-group-size is deprecated" in old.output
    assert (tmp_path / "new" / "certainty.csv").read_bytes() == (
        tmp_path / "o" / "certainty.csv"
    ).read_bytes()
    assert "--min-group-size" not in CliRunner().invoke(app, ["certainty", "--help"]).output


# ---------------------------------------------------------------------------- data-role flags
def test_the_data_role_flags_reach_the_engine_as_declared(tmp_path, table, monkeypatch):
    """--favorable, --outcome, --outcome-favorable (read as audit.yaml reads a value) and
    --weights (a data flag) are declared parameters of certainty without an analyses key:
    each reaches the engine under its name, by the declaration, with its default when left
    out."""
    from primafacie.certainty import CertaintyRanking
    from primafacie.certainty.params import WHERE
    from primafacie.commands.certainty import Certainty

    flags = Certainty().engine_flags({"outcome": "y", "favorable": 0, "x": 1}, {"weights": None})
    assert flags == {"favorable": 0, "outcome": "y", "weights": None}
    assert WHERE["favorable"] == "--favorable, favorable"
    assert WHERE["weights"] == "--weights, weights"
    assert "weights" not in [p.name for p in Certainty().declared()]  # the data flag's option
    seen, real = [], CertaintyRanking.run

    def run(self, data, dms=None):
        seen.append(self.get_params())
        return real(self, data, dms)

    monkeypatch.setattr(CertaintyRanking, "run", run)
    path, df = table
    df.assign(w=np.linspace(0.5, 2.0, len(df)), yy=np.where(df["y"] == 1, "ok", "no")).to_csv(
        path, index=False
    )
    base = ["certainty", "--data", str(path), "--protected", "g", "--column", "c=clerk"]
    res = runner.invoke(app, [*base, "--out", str(tmp_path / "a")])
    assert res.exit_code == 0, res.output
    got = {k: seen[-1][k] for k in ("favorable", "outcome", "outcome_favorable", "weights")}
    assert got == {"favorable": 1, "outcome": None, "outcome_favorable": 1, "weights": None}
    res = runner.invoke(app, [*base, "--favorable", "0", "--outcome", "yy", "--outcome-favorable",
                              "ok", "--weights", "w", "--out", str(tmp_path / "b")])  # fmt: skip
    assert res.exit_code == 0, res.output
    got = {k: seen[-1][k] for k in ("favorable", "outcome", "outcome_favorable", "weights")}
    assert got == {"favorable": 0, "outcome": "yy", "outcome_favorable": "ok", "weights": "w"}


def test_a_bad_favourable_value_in_python_names_its_flag_and_key():
    from primafacie.certainty import CertaintyRanking
    from primafacie.errors import InputError

    df = pd.DataFrame({"g": ["a", "b"] * 3, "d": [1, 0, 0, 1, 1, 1]})
    with pytest.raises(InputError, match=r"favorable must be None or a value or a list of "
                       r"values; got \{\} \(--favorable, favorable\)"):  # fmt: skip
        CertaintyRanking(protected="g", favorable={}).run(df, {"d": "d"})


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--weights", "nosuch"], "error: --weights (weights): weights column 'nosuch' is not"),
        (["--outcome", "nosuch"], "error: --outcome: outcome column 'nosuch' is not in the data"),
        (["--favorable", "maybe"], "error: --favorable: favourable value 'maybe' of"),
        (["--outcome", "y", "--outcome-favorable", "maybe", "--criterion", "eo"],
         "error: --outcome-favorable: outcome_favorable value 'maybe' of outcome column 'y'"),
    ],
)  # fmt: skip
def test_a_bad_data_role_value_names_its_flag(tmp_path, table, extra, message):
    """The engine names the role (AuditData's words); the message is headed by its flag."""
    path, _ = table
    out = tmp_path / "out"
    res = runner.invoke(app, ["certainty", "--data", str(path), "--protected", "g", "--column",
                              "c=clerk", *extra, "--out", str(out)])  # fmt: skip
    assert res.exit_code == 2, res.output
    assert " ".join(res.output.split()).startswith(message), res.output
    assert not out.exists()
