"""``primafacie groups`` (src/primafacie/commands/groups.py): flags, ``--config`` parity with the
audit, bad input (exit 2, the flag named, nothing written)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from primafacie.cli import app
from tests.shared import demo_inputs, private_copy

runner = CliRunner()


@pytest.fixture()
def table(tmp_path):
    """Ten people, hand-countable:

    sex f: decisions 1 0 0 0 0, outcomes 1 1 0 0 1  -> selected 1/5, TPR 1/3, FPR 0/2
    sex m: decisions 1 1 1 0 0, outcomes 1 1 0 0 1  -> selected 3/5, TPR 2/3, FPR 1/2
    """
    df = pd.DataFrame(
        {
            "sex": ["f"] * 5 + ["m"] * 5,
            "race": ["b", "w", "b", "w", "b", "w", "b", "w", "w", "b"],
            "d": [1, 0, 0, 0, 0, 1, 1, 1, 0, 0],
            "y": [1, 1, 0, 0, 1, 1, 1, 0, 0, 1],
            "x": np.arange(10) * 1.5,
        }
    )
    path = tmp_path / "people.csv"
    df.to_csv(path, index=False)
    return path


def _flags(path, out, *extra):
    return ["groups", "--data", str(path), "--protected", "sex=f", "--decision", "d",
            "--out", str(out), *extra]  # fmt: skip


def test_flags_give_the_hand_computed_rates_and_comparisons(table, tmp_path):
    out = tmp_path / "out"
    res = runner.invoke(app, _flags(table, out, "--outcome", "y", "--min-group", "2"))
    assert res.exit_code == 0, res.output
    summ = pd.read_csv(out / "summary.csv")
    assert len(summ) == 1
    row = summ.iloc[0]
    assert (row["group"], row["reference"]) == ("f", "m")
    assert (row["selection_k"], row["selection_n"]) == (1, 5)
    assert (row["reference_k"], row["reference_n"]) == (3, 5)
    assert row["selection_diff"] == pytest.approx(0.2 - 0.6)
    assert row["selection_ratio"] == pytest.approx(0.2 / 0.6)
    assert bool(row["four_fifths"]) is True
    assert row["tpr"] == pytest.approx(1 / 3) and row["reference_tpr"] == pytest.approx(2 / 3)
    assert row["equal_opportunity_diff"] == pytest.approx(-1 / 3)
    assert row["fpr"] == 0 and row["reference_fpr"] == pytest.approx(0.5)
    assert row["equalized_odds_diff"] == pytest.approx(0.5)  # max(|-1/3|, |-1/2|)
    rates = pd.read_csv(out / "rates.csv")
    tpr = rates[(rates["metric"] == "tpr") & (rates["group"] == "f")].iloc[0]
    assert (tpr["k"], tpr["n"]) == (1, 3)
    doc = json.loads((out / "groups.json").read_text())
    assert doc["attributes"] == ["sex"] and doc["has_outcome"] is True and doc["min_group"] == 2
    # the readable summary (the report's table, in parts that fit the console, each
    # repeating the row's names): the group's row has its k/n, the reference and its k/n,
    # the ratio with its interval and the flag
    text = res.output
    assert "Each protected group against the reference group" in text
    line = next(t for t in text.splitlines() if "20.0% (1 of 5)" in t)
    assert " sex " in line and " m " in line and "60.0% (3 of 5)" in line
    rows = [t for t in text.splitlines() if t.startswith(" sex ") and " f " in t]
    assert any("0.33 [" in t and "yes" in t for t in rows), rows
    assert "Four-fifths rule: 1 of 1 protected group(s) below 0.8" in " ".join(text.split())


def test_without_outcome_only_selection_rates_and_small_groups_are_flagged(table, tmp_path):
    out = tmp_path / "out"
    res = runner.invoke(app, _flags(table, out))  # default --min-group 30: both groups small
    assert res.exit_code == 0, res.output
    rates = pd.read_csv(out / "rates.csv")
    assert set(rates["metric"]) == {"selection_rate"}
    assert rates["small"].all()
    assert "f (small)" in res.output
    assert "TPR gap" not in res.output


@pytest.mark.parametrize(
    "intersections, attributes",
    [("none", ["sex", "race"]), ("full", ["sex", "race", "sex × race"]),
     ("all", ["sex", "race", "sex × race"])],
)  # fmt: skip
def test_intersections_flag_sets_the_groupings(table, tmp_path, intersections, attributes):
    out = tmp_path / "out"
    args = _flags(table, out, "--protected", "race=b", "--intersections", intersections)
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    rates = pd.read_csv(out / "rates.csv")
    assert list(dict.fromkeys(rates["attribute"])) == attributes
    if intersections != "none":
        # f × b: rows 0, 2, 4 -> decisions 1, 0, 0; reference m × w: rows 5, 7, 8 -> 1, 1, 0
        summ = pd.read_csv(out / "summary.csv").set_index(["attribute", "group"])
        fb = summ.loc[("sex × race", "f × b")]
        assert (fb["selection_k"], fb["selection_n"]) == (1, 3)
        assert (fb["reference_k"], fb["reference_n"]) == (2, 3)


def test_alpha_flag_sets_the_interval_level(table, tmp_path):
    lo = {}
    for alpha in ("0.05", "0.5"):
        out = tmp_path / alpha
        res = runner.invoke(app, _flags(table, out, "--alpha", alpha))
        assert res.exit_code == 0, res.output
        r = pd.read_csv(out / "rates.csv").iloc[0]
        lo[alpha] = r["ci_low"]
    # Wilson interval of 1 of 5 at z = 1.959964 (95%): centre (1 + z²/2) / (5 + z²) ...
    z = 1.959963984540054
    centre = (1 + z * z / 2) / (5 + z * z)
    half = z / (5 + z * z) * np.sqrt(1 * 4 / 5 + z * z / 4)
    assert lo["0.05"] == pytest.approx(centre - half)
    assert lo["0.5"] > lo["0.05"]  # a 50% interval is narrower


@pytest.mark.parametrize(
    "args, message",
    [
        (["--protected", "sex"], "--protected expects COL=VALUE"),
        (["--protected", "nope=1"], "--protected 'nope' is not a column"),
        (["--protected", "sex=x"], "--protected: protected value 'x' of protected column 'sex'"),
        (["--decision", "nope"], "--decision 'nope' is not a column"),
        (["--decision", "x"], "--decision: decision column 'x' must be binary"),
        (["--favorable", "yes"], "--favorable: favourable value 'yes'"),
        (["--outcome", "nope"], "--outcome 'nope' is not a column"),
        (["--outcome", "y", "--outcome-favorable", "7"], "--outcome-favorable: outcome_favorable"),
        (["--min-group", "0"], "min_group must be an integer ≥ 1; got 0 (--min-group, "
                               "analyses.groups.min_group)"),
        (["--alpha", "1.5"], "alpha must be a number in (0, 1); got 1.5 (--alpha, "
                             "analyses.groups.alpha)"),
        (["--intersections", "pairs"], "intersections must be one of 'all', 'full', 'none'; "
                                       "got 'pairs' (--intersections"),
    ],
)  # fmt: skip
def test_bad_input_exits_2_names_the_flag_and_writes_nothing(table, tmp_path, args, message):
    out = tmp_path / "out"
    base = ["groups", "--data", str(table), "--out", str(out)]
    if "--protected" not in args:
        base += ["--protected", "sex=f"]
    if "--decision" not in args:
        base += ["--decision", "d"]
    res = runner.invoke(app, base + args)
    assert res.exit_code == 2, res.output
    assert message in " ".join(res.output.split())
    assert not out.exists()


@pytest.mark.parametrize(
    "args, message",
    [([], "give --data FILE"), (["--data", "DATA"], "give at least one --protected"),
     (["--data", "DATA", "--protected", "sex=f"], "give --decision COL")],
)  # fmt: skip
def test_missing_flags_exit_2(table, tmp_path, args, message):
    args = [str(table) if a == "DATA" else a for a in args]
    res = runner.invoke(app, ["groups", *args, "--out", str(tmp_path / "o")])
    assert res.exit_code == 2, res.output
    assert message in res.output


def test_a_failed_rerun_leaves_the_previous_output_as_it_was(table, tmp_path):
    out = tmp_path / "out"
    assert runner.invoke(app, _flags(table, out)).exit_code == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    res = runner.invoke(app, _flags(table, out, "--favorable", "yes"))
    assert res.exit_code == 2
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_help_has_the_example_and_the_spec_defaults():
    res = runner.invoke(app, ["groups", "--help"])
    assert res.exit_code == 0
    text = " ".join(res.output.split())
    assert "primafacie groups --data credit_world.csv" in text
    assert "primafacie groups --config audit.yaml" in text
    assert "[default: 30]" in text and "[default: 0.05]" in text and "[default: all]" in text


def test_typer_defaults_are_the_spec_defaults():
    import typer.main

    from primafacie.groups.spec import GroupsSpec

    command = typer.main.get_command(app).commands["groups"]
    defaults = {p.name: p.default for p in command.params}
    spec = GroupsSpec()
    for key in ("min_group", "alpha", "intersections"):
        assert defaults[key] == getattr(spec, key), key


# ---------------------------------------------------------------------------- parity
def _demo_with(folder, analyses: dict):
    """Demo inputs (small n, a private copy of the run's shared build) whose audit.yaml holds
    only the given analyses; the alternatives search, on by default with the demo's model and
    outcome, is off unless given (these tests compare the group metrics)."""
    import yaml

    path = private_copy(demo_inputs(n=300, seed=0), folder) / "audit.yaml"
    cfg = yaml.safe_load(path.read_text())
    cfg["analyses"] = {"alternatives": None, **analyses}
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


def _assert_parity(path, tmp_path):
    audit_out, cli_out = tmp_path / "audit", tmp_path / "cli"
    res = runner.invoke(app, ["audit", str(path), "--out", str(audit_out), "--no-progress"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["groups", "--config", str(path), "--out", str(cli_out)])
    assert res.exit_code == 0, res.output
    tables = audit_out / "tables"
    assert (cli_out / "rates.csv").read_bytes() == (tables / "groups_metrics.csv").read_bytes()
    assert (cli_out / "summary.csv").read_bytes() == (
        tables / "groups_metrics_summary.csv"
    ).read_bytes()
    doc = json.loads((audit_out / "results.json").read_text())["analyses"]["groups"]
    assert " ".join(doc["headline"].split()) in " ".join(res.output.split())
    return pd.read_csv(cli_out / "summary.csv")


def test_config_equals_the_audit_byte_for_byte(tmp_path):
    # settings that differ from the defaults, so the section demonstrably reaches both; the
    # decision is the demo's model, which only --config can use
    section = {"min_group": 50, "alpha": 0.1, "intersections": "full"}
    path = _demo_with(tmp_path / "demo", {"groups": section})
    summ = _assert_parity(path, tmp_path)
    assert set(summ["attribute"]) == {"gender", "race", "gender × race"}
    assert (summ["small"] == (summ["members"] < 50)).all()


def test_config_without_the_section_measures_as_the_audit_does(tmp_path):
    # groups is on by default: an audit.yaml without it measures with the defaults
    path = _demo_with(tmp_path / "demo", {"principal": {"definitions": [1]}})
    _assert_parity(path, tmp_path)


def test_config_with_groups_off_exits_2(tmp_path):
    path = _demo_with(tmp_path / "demo", {"groups": None, "principal": {"definitions": [1]}})
    res = runner.invoke(app, ["groups", "--config", str(path), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2, res.output
    assert "analyses.groups" in res.output
    assert not (tmp_path / "o").exists()


def test_config_refuses_flags_that_would_change_the_metrics(tmp_path):
    path = _demo_with(tmp_path / "demo", {"groups": {}})
    out = tmp_path / "o"
    res = runner.invoke(app, ["groups", "--config", str(path), "--alpha", "0.1",
                              "--protected", "gender=female", "--out", str(out)])  # fmt: skip
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())
    assert "drop --protected, --alpha or set the keys of analyses.groups" in text
    assert not out.exists()


def test_config_checks_the_section_against_the_protected_attributes(tmp_path):
    path = _demo_with(tmp_path / "demo", {"groups": {"protected": ["age"]}})
    out = tmp_path / "o"
    res = runner.invoke(app, ["groups", "--config", str(path), "--out", str(out)])
    assert res.exit_code == 2, res.output
    assert "analyses.groups.protected" in res.output
    assert not out.exists()


# ---------------------------------------------------------------------------- scores
@pytest.mark.parametrize(
    "args, message",
    [
        (["--score", "x", "--thresholds", "3,x"], "--thresholds expects numbers separated by "
                                                  "commas (e.g. 3,5,7.5); 'x' is not a number"),
        (["--score", "x", "--thresholds", "3,,5"], "'' is not a number"),
        (["--score", "x", "--thresholds", "3,inf"], "analyses.groups.thresholds"),
        (["--sweep"], "sweep (--sweep, analyses.groups.sweep) needs a score"),
        (["--score", "sex", "--sweep"], "score: column 'sex' is not numeric"),
        (["--score", "x", "--sweep", "--score-favorable", "up"], "score_favorable must be one "
                                                                 "of 'above', 'below'"),
    ],
)  # fmt: skip
def test_bad_score_flags_exit_2_and_write_nothing(table, tmp_path, args, message):
    out = tmp_path / "out"
    res = runner.invoke(app, _flags(table, out, *args))
    assert res.exit_code == 2, res.output
    assert message in " ".join(res.output.split())
    assert not out.exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--sweep"], "sweep (--sweep, analyses.groups.sweep) needs a score ({where})"),
        (["--score", "sex", "--sweep"], "score: column 'sex' is not numeric (str) ({where})"),
        (["--score", "gap", "--thresholds", "3"], "score: column 'gap' has 1 missing or "
                                                  "infinite values (first at row 2) ({where})"),
    ],
)  # fmt: skip
def test_score_errors_name_the_score_flag_and_key(table, tmp_path, args, message):
    # the flag and key come from the score's declaration (before: none, or a hand-written
    # "(or --score COLUMN)")
    from primafacie.groups.params import PARAMS
    from primafacie.params import by_name

    where = by_name(PARAMS)["score"].where("groups")
    assert where == "--score, decision.score"
    frame = pd.read_csv(table).assign(gap=[1.0, 2.0, None, *[3.0] * 7])
    frame.to_csv(table, index=False)
    out = tmp_path / "out"
    res = runner.invoke(app, _flags(table, out, *args))
    assert res.exit_code == 2, res.output
    assert message.format(where=where) in " ".join(res.output.split())
    assert not out.exists()


def test_score_flags_write_the_threshold_auc_and_calibration_tables(table, tmp_path):
    out = tmp_path / "out"
    res = runner.invoke(app, _flags(table, out, "--score", "x", "--thresholds", "3,6",
                                    "--outcome", "y", "--min-group", "1"))  # fmt: skip
    assert res.exit_code == 0, res.output
    assert {p.name for p in out.iterdir() if not p.name.startswith(".")} == {
        "rates.csv",
        "summary.csv",
        "groups.json",
        "thresholds.csv",
        "auc.csv",
        "calibration.csv",
    }
    t = pd.read_csv(out / "thresholds.csv")
    # x = 0, 1.5, ..., 13.5; f is rows 0-4 (x <= 6), m rows 5-9: at 3, f has 3.0, 4.5, 6.0
    f3 = t[(t["threshold"] == 3) & (t["group"] == "f")].iloc[0]
    assert (f3["k"], f3["n"]) == (3, 5) and f3["ratio"] == pytest.approx(0.6)
    assert "sex = f: the impact ratio is below 0.8 at thresholds from 3 to 6" in " ".join(
        res.output.split())  # fmt: skip
    doc = json.loads((out / "groups.json").read_text())
    assert doc["scores"]["grid"] == "list" and doc["scores"]["thresholds"] == 2


def test_config_with_a_score_writes_the_audit_score_tables(tmp_path):
    import yaml

    rng = np.random.default_rng(2)
    n = 200
    df = pd.DataFrame({"sex": rng.choice(["f", "m"], n), "decile": rng.integers(1, 11, n),
                       "y": rng.integers(0, 2, n)})  # fmt: skip
    df.to_csv(tmp_path / "d.csv", index=False)
    cfg = {"data": "d.csv", "decision": {"score": "decile", "threshold": 5, "favorable": "below"},
           "outcome": "y", "features": {}, "protected": {"sex": "f"},
           "analyses": {"groups": {"thresholds": [3, 7]}}}  # fmt: skip
    path = tmp_path / "audit.yaml"
    path.write_text(yaml.safe_dump(cfg))
    res = runner.invoke(app, ["audit", str(path), "--out", str(tmp_path / "a"), "--no-progress"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["groups", "--config", str(path), "--out", str(tmp_path / "g")])
    assert res.exit_code == 0, res.output
    for name in ("thresholds", "auc", "calibration"):
        audit_csv = tmp_path / "a" / "tables" / f"groups_{name}.csv"
        assert (tmp_path / "g" / f"{name}.csv").read_bytes() == audit_csv.read_bytes()
    assert sorted(pd.read_csv(tmp_path / "g" / "thresholds.csv")["threshold"].unique()) == [3, 5, 7]


# ---------------------------------------------------------------------------- engine flags
def test_the_score_flags_reach_the_engine_as_declared(table, tmp_path, monkeypatch):
    """--score and --score-favorable are declared parameters of groups without an analyses
    key (their flags are roles): each reaches the engine under its name, by the declaration,
    with its default when left out, and a message about it names the flag and the key."""
    from primafacie.commands.groups import Groups
    from primafacie.groups import GroupMetrics
    from primafacie.groups.params import WHERE

    flags = Groups().engine_flags({"score": "x", "score_favorable": "below", "alpha": 0.1}, {})
    assert flags == {"score": "x", "score_favorable": "below"}
    assert WHERE["score"] == "--score, decision.score"
    assert WHERE["score_favorable"] == "--score-favorable, decision.favorable"
    seen, real = [], GroupMetrics.run

    def run(self, data):
        seen.append(self.get_params())
        return real(self, data)

    monkeypatch.setattr(GroupMetrics, "run", run)
    res = runner.invoke(app, _flags(table, tmp_path / "a"))
    assert res.exit_code == 0, res.output
    assert (seen[-1]["score"], seen[-1]["score_favorable"]) == (None, "above")
    res = runner.invoke(app, _flags(table, tmp_path / "b", "--score", "x", "--score-favorable",
                                    "below", "--thresholds", "3"))  # fmt: skip
    assert res.exit_code == 0, res.output
    assert (seen[-1]["score"], seen[-1]["score_favorable"]) == ("x", "below")
    below = pd.read_csv(tmp_path / "b" / "thresholds.csv")
    assert below.loc[below["group"] == "f", "k"].tolist() == [2]  # x = 0 and 1.5 are below 3


@pytest.mark.parametrize("extra", [["--score-favorable", "up"],
                                   ["--score", "x", "--sweep", "--score-favorable", "up"]])  # fmt: skip
def test_a_bad_score_side_names_its_flag_and_key(table, tmp_path, extra):
    out = tmp_path / "out"
    res = runner.invoke(app, _flags(table, out, *extra))
    assert res.exit_code == 2, res.output
    assert "score_favorable must be one of 'above', 'below'; got 'up' (--score-favorable, " \
        "decision.favorable)" in " ".join(res.output.split())  # fmt: skip
    assert not out.exists()


def test_a_bad_score_side_in_python_names_its_flag_and_key():
    from primafacie.errors import InputError
    from primafacie.groups import GroupMetrics

    df = pd.DataFrame({"g": ["a", "b"] * 3, "d": [1, 0, 0, 1, 1, 1], "s": range(6)})
    with pytest.raises(InputError, match=r"\(--score-favorable, decision.favorable\)"):
        GroupMetrics(protected="g", decision="d", score="s", score_favorable="up").run(df)
