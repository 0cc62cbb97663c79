"""``primafacie recourse`` from flags, a model file and a config; bad input exits 2, writes nothing."""

import json

import numpy as np
import pandas as pd
import pytest
import skops.io
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from typer.testing import CliRunner

from primafacie.cli import app
from tests.shared import demo_inputs, private_copy

runner = CliRunner()
RULE = "(x == 'hi') and ((g == 'a') or (y == 'v'))"


@pytest.fixture()
def table(tmp_path):
    rng = np.random.default_rng(0)
    n = 600
    df = pd.DataFrame(
        {
            "g": rng.choice(["a", "b"], n),
            "x": rng.choice(["lo", "mid", "hi"], n, p=[0.4, 0.3, 0.3]),
            "y": rng.choice(["u", "v"], n),
            "w": rng.choice(["p", "q"], n),
        }
    )
    df["label"] = ((df.x == "hi") & ((df.g == "a") | (df.y == "v"))).astype(int)
    path = tmp_path / "d.csv"
    df.to_csv(path, index=False)
    return path


def test_rule_run_writes_tables_and_csc(table, tmp_path):
    out = tmp_path / "out"
    res = runner.invoke(app, ["recourse", "--data", str(table), "--rule", RULE, "--protected", "g",
                              "--exclude", "label", "--support", "0.05", "--ordinal",
                              "x=lo,mid,hi", "--weight", "x=2", "--budget", "2", "--top", "3",
                              "--out", str(out)])  # fmt: skip
    assert res.exit_code == 0, res.output
    long = pd.read_csv(out / "rankings.csv")
    assert list(long.columns) == ["metric", "viewpoint", "param", "rank", "score",
                                  "bias_against", "subgroup"]  # fmt: skip
    assert set(long["metric"]) >= {"EE", "ECR", "EEWB", "ECE", "FECT", "ECMR"}
    ee = pd.read_csv(out / "ranking_EE.csv")
    assert ee.loc[0, "rank"] == 1 and ee.loc[0, "bias_against"] == "b"
    text = (out / "csc_EE.txt").read_text()
    assert text.startswith("If ") and "Bias against b due to Equal Effectiveness" in text
    assert json.loads((out / "recourse.json").read_text())["result"]["groups"] == ["a", "b"]
    assert (out / "summary.csv").is_file() and (out / "stats.csv").is_file()
    assert "FACTS" in res.output


def test_model_file(table, tmp_path):
    df = pd.read_csv(table)
    X = df[["g", "x", "y", "w"]]
    est = make_pipeline(OneHotEncoder(handle_unknown="ignore"), LogisticRegression()).fit(
        X, df.label
    )
    path = tmp_path / "m.skops"
    skops.io.dump(est, path)
    out = tmp_path / "o"
    res = runner.invoke(app, ["recourse", "--data", str(table), "--model", str(path),
                              "--protected", "g", "--exclude", "label", "--support", "0.05",
                              "--metrics", "EE,FECT", "--out", str(out)])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert set(pd.read_csv(out / "rankings.csv")["metric"]) <= {"EE", "FECT"}


@pytest.mark.parametrize(
    "extra,message",
    [
        (["--support", "1.5"], "support must be a number in (0, 1]"),
        (["--weight", "salary=2"], "salary"),
        (["--protected", "nope"], "'nope' is not in the data"),
        (["--bins", "x=3"], "not a numeric feature"),
    ],
)
def test_bad_input_exit_2_nothing_written(table, tmp_path, extra, message):
    out = tmp_path / "bad"
    args = ["recourse", "--data", str(table), "--rule", RULE, "--protected", "g", "--exclude",
            "label", "--out", str(out), *extra]  # fmt: skip
    if "--protected" in extra:
        args = [a for i, a in enumerate(args) if not (a == "--protected" and i < 6)]
        args.remove("g")
    res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output
    assert message in " ".join(res.output.split())
    assert not out.exists()


def test_one_group_and_no_affected(tmp_path, table):
    df = pd.read_csv(table)
    df["g"] = "a"
    one = tmp_path / "one.csv"
    df.to_csv(one, index=False)
    res = runner.invoke(app, ["recourse", "--data", str(one), "--rule", RULE, "--protected", "g",
                              "--out", str(tmp_path / "o1")])  # fmt: skip
    assert res.exit_code == 2 and "only one group" in res.output
    res = runner.invoke(app, ["recourse", "--data", str(table), "--rule", "x == x",
                              "--protected", "g", "--out", str(tmp_path / "o2")])  # fmt: skip
    assert res.exit_code == 2 and "no affected" in res.output
    assert not (tmp_path / "o1").exists() and not (tmp_path / "o2").exists()


def test_model_without_predict(tmp_path, table):
    path = tmp_path / "m.skops"
    skops.io.dump({"not": "a model"}, path)
    res = runner.invoke(app, ["recourse", "--data", str(table), "--model", str(path),
                              "--protected", "g", "--out", str(tmp_path / "o")])  # fmt: skip
    assert res.exit_code == 2 and "predict" in res.output


def test_config(table, tmp_path):
    cfg = tmp_path / "audit.yaml"
    cfg.write_text(
        f"data: {table.name}\n"
        f'decision: {{rule: "{RULE}"}}\n'
        "features: {x: {ordinal: [lo, mid, hi]}, y: categorical, w: categorical}\n"
        "protected: {g: b}\n"
        "analyses:\n"
        "  recourse: {support: 0.05, phi: [0.5], metrics: [EE, ECE], top: 2}\n"
    )
    out = tmp_path / "cfg_out"
    res = runner.invoke(app, ["recourse", "--config", str(cfg), "--out", str(out)])
    assert res.exit_code == 0, res.output
    labels = set(pd.read_csv(out / "summary.csv")["metric"])
    assert labels == {"EE", "Ma.5", "Mi.5"}
    res = runner.invoke(app, ["recourse", "--config", str(cfg), "--data", str(table)])
    assert res.exit_code == 2


def test_progress_bars_per_stage_on_stderr(table, tmp_path):
    """The run shows one bar per FACTS stage (mining, actions, testing, scoring, CSC)."""
    out = tmp_path / "out"
    res = runner.invoke(app, ["recourse", "--data", str(table), "--rule", RULE, "--protected", "g",
                              "--exclude", "label", "--support", "0.05", "--out", str(out)])  # fmt: skip
    assert res.exit_code == 0, res.output
    text = res.stderr if hasattr(res, "stderr") and res.stderr else res.output
    for label in ("frequent itemsets", "valid actions", "testing actions", "scoring definitions",
                  "counterfactual summaries"):  # fmt: skip
        assert f"FACTS: {label}" in text, text
    # every bar ends complete: "12/12" definitions scored (6 metrics × params, auto budgets)
    n_rank = len(pd.read_csv(out / "summary.csv"))
    assert f"{n_rank}/{n_rank}" in text


def test_model_inputs_define_the_mined_columns_and_numeric_columns_are_binned(table, tmp_path):
    """No --exclude needed: the label and another decision-maker's column are not model inputs;
    a numeric input with many values is cut into quantile bins instead of one item per value."""
    from sklearn.compose import make_column_transformer

    df = pd.read_csv(table)
    rng = np.random.default_rng(1)
    df["age"] = rng.integers(18, 70, len(df))
    df["human"] = rng.integers(0, 2, len(df))
    data = tmp_path / "d2.csv"
    df.to_csv(data, index=False)
    X = df[["g", "x", "y", "w", "age"]]
    enc = make_column_transformer(
        (OneHotEncoder(handle_unknown="ignore"), ["g", "x", "y", "w"]), remainder="passthrough"
    )
    est = make_pipeline(enc, LogisticRegression(max_iter=500)).fit(X, df.label)
    path = tmp_path / "m.skops"
    skops.io.dump(est, path)
    out = tmp_path / "o"
    res = runner.invoke(app, ["recourse", "--data", str(data), "--model", str(path),
                              "--protected", "g", "--support", "0.05", "--metrics", "EE",
                              "--out", str(out)])  # fmt: skip
    assert res.exit_code == 0, res.output
    subgroups = " ".join(pd.read_csv(out / "rankings.csv")["subgroup"])
    assert "label=" not in subgroups and "human=" not in subgroups
    ages = [part for part in subgroups.split("; ") if part.startswith("age=")]
    assert ages and all(a.startswith("age=(") for a in ages)  # interval labels, not age=32
    assert "mining 4 column(s): x, y, w, age (the model's inputs)" in " ".join(res.output.split())


def test_favourable_label_the_model_never_predicts_exits_2(table, tmp_path):
    df = pd.read_csv(table)
    est = make_pipeline(OneHotEncoder(handle_unknown="ignore"), LogisticRegression()).fit(
        df[["g", "x", "y", "w"]], df.label
    )
    path = tmp_path / "m.skops"
    skops.io.dump(est, path)
    out = tmp_path / "o"
    res = runner.invoke(app, ["recourse", "--data", str(table), "--model", str(path),
                              "--protected", "g", "--favorable", "yes", "--out", str(out)])  # fmt: skip
    assert res.exit_code == 2
    assert "favourable value 'yes' is not one of the model's labels [0, 1]" in " ".join(
        res.output.split()
    )
    assert not out.exists()


def test_same_input_gives_byte_identical_files(table, tmp_path):
    """Stage seconds are printed, never written: two runs produce the same bytes."""
    args = ["recourse", "--data", str(table), "--rule", RULE, "--protected", "g",
            "--exclude", "label", "--support", "0.05", "--top", "2"]  # fmt: skip
    outs = [tmp_path / "a", tmp_path / "b"]
    for out in outs:
        res = runner.invoke(app, [*args, "--out", str(out)])
        assert res.exit_code == 0, res.output
        assert "stages: mining" in res.output
    files = sorted(p.name for p in outs[0].iterdir())
    assert files == sorted(p.name for p in outs[1].iterdir())
    for name in files:
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes(), name
    assert "seconds[" not in (outs[0] / "stats.csv").read_text()


def test_ordinal_for_a_column_that_is_not_mined_exits_2(table, tmp_path):
    out = tmp_path / "o"
    res = runner.invoke(app, ["recourse", "--data", str(table), "--rule", RULE, "--protected", "g",
                              "--exclude", "label", "--exclude", "w", "--ordinal", "w=p,q",
                              "--out", str(out)])  # fmt: skip
    assert res.exit_code == 2
    assert "--ordinal names column(s) ['w'] that are not mined" in " ".join(res.output.split())
    assert not out.exists()


def test_flag_defaults_come_from_the_config_model():
    """One source of defaults: the typer options of `recourse` are analyses.recourse's."""
    from primafacie.commands import recourse as command
    from primafacie.config import RecourseSpec

    spec = RecourseSpec()
    params = command.Recourse().signature().parameters  # what typer reads
    assert params["support"].default.default == spec.support
    assert params["phi"].default.default == list(spec.phi)
    assert params["top"].default.default == spec.top
    assert params["metrics"].default.default == spec.metrics


def test_top_below_one_exits_2_with_the_shared_message(table, tmp_path):
    res = runner.invoke(app, ["recourse", "--data", str(table), "--rule", RULE, "--protected", "g",
                              "--top", "0", "--out", str(tmp_path / "o")])  # fmt: skip
    assert res.exit_code == 2
    assert "top must be an integer ≥ 1; got 0 (--top, analyses.recourse.top)" in " ".join(
        res.output.split()
    )


def test_summary_prints_headline_and_scope(table, tmp_path):
    res = runner.invoke(app, ["recourse", "--data", str(table), "--rule", RULE, "--protected", "g",
                              "--exclude", "label", "--support", "0.05", "--metrics", "EE",
                              "--out", str(tmp_path / "o")])  # fmt: skip
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "recourse definitions rank first a subgroup" in text
    assert "scope: rejected applicants by g:" in text


@pytest.fixture(scope="module")
def demo_world(tmp_path_factory):
    """The demo world's audit.yaml (small n) run by `primafacie audit` and by
    `primafacie recourse --config`; the default alternatives search is off (it does not
    touch the recourse tables compared here)."""
    import yaml

    base = tmp_path_factory.mktemp("parity")
    config = private_copy(demo_inputs(n=300, seed=0), base) / "audit.yaml"
    cfg = yaml.safe_load(config.read_text())
    cfg["analyses"]["alternatives"] = None
    config.write_text(yaml.safe_dump(cfg, sort_keys=False))
    audit = runner.invoke(app, ["audit", str(config), "--out", str(base / "audit")])
    assert audit.exit_code == 0, audit.output
    cli = runner.invoke(app, ["recourse", "--config", str(config), "--out", str(base / "cli")])
    assert cli.exit_code == 0, cli.output
    (base / "cli_stdout.txt").write_text(cli.stdout)
    return base


def test_config_parity_with_the_audit_byte_for_byte(demo_world):
    """Issue 12: `recourse --config audit.yaml` builds and runs through the same spec and
    analysis as `audit`, so its tables are the audit's recourse tables, byte for byte."""
    audit_tables = sorted((demo_world / "audit" / "tables").glob("recourse_*.csv"))
    cli_tables = sorted((demo_world / "cli" / "tables").glob("*.csv"))
    assert [p.name for p in cli_tables] == [p.name for p in audit_tables]
    assert len(audit_tables) > 10  # definitions, per-definition rankings, CSCs, curves
    for a, c in zip(audit_tables, cli_tables, strict=True):
        assert c.read_bytes() == a.read_bytes(), a.name
    # the command's own files are the same frames under their own names
    cli, audit = demo_world / "cli", demo_world / "audit" / "tables"
    assert (cli / "rankings.csv").read_bytes() == (audit / "recourse_definitions.csv").read_bytes()
    assert (cli / "summary.csv").read_bytes() == (
        audit / "recourse_definitions_summary.csv"
    ).read_bytes()
    assert (cli / "ranking_EE.csv").read_bytes() == (audit / "recourse_rank_ee.csv").read_bytes()
    # the rank stability of analyses.recourse (n_boot, seed) reached both
    assert (cli / "rank_stability.csv").read_bytes() == (
        audit / "recourse_rank_stability.csv"
    ).read_bytes()


def test_config_headline_scope_and_caveats_match_the_audit(demo_world):
    doc = json.loads((demo_world / "audit" / "results.json").read_text())["analyses"]["recourse"]
    mine = json.loads((demo_world / "cli" / "recourse.json").read_text())["result"]
    assert mine["scope"] == doc["results"]["definitions"]["scope"]
    assert mine["scope"]["protected_values"] == ["female"]
    printed = " ".join((demo_world / "cli_stdout.txt").read_text().split())
    assert " ".join(doc["headline"].split()) in printed
    assert "recourse definitions rank first a subgroup biased against the protected group " \
        "(female) of gender" in doc["headline"]  # fmt: skip
    assert doc["caveats"][0].startswith("Actions change only the features they name")


# ---------------------------------------------------------------------------- --n-boot, --seed
STAB = ["--exclude", "label", "--support", "0.05", "--metrics", "EE,FECT"]


def test_n_boot_and_seed_give_the_api_rank_stability(table, tmp_path):
    """The flags reach rank_stability as n_boot and seed: the CSV equals the API's result for
    the engine the same flags build."""
    from primafacie.commands import recourse as command
    from primafacie.recourse.spec import RecourseSpec
    from primafacie.recourse.stability import rank_stability

    out = tmp_path / "o"
    res = runner.invoke(app, ["recourse", "--data", str(table), "--rule", RULE, "--protected",
                              "g", *STAB, "--n-boot", "20", "--seed", "3", "--out", str(out)])  # fmt: skip
    assert res.exit_code == 0, res.output
    written = pd.read_csv(out / "rank_stability.csv")
    spec = RecourseSpec(support=0.05, metrics=["EE", "FECT"], n_boot=20, seed=3, protected="g")
    flags = dict(data=table, model=None, rule=RULE, protected="g", favorable="1",
                 exclude=["label"], ordinal=None, max_step=None, exact_features=True, legacy=False,
                 trust_pickle=False, trusted_type=None)  # fmt: skip
    audit, frame = command.build_from_flags(spec, flags)
    result = audit.run(frame, phi=spec.phi, budgets="auto", metrics=spec.metrics)
    expected = rank_stability(audit, result, n_boot=20, seed=3).to_frame()
    pd.testing.assert_frame_equal(written, expected, check_dtype=False)
    # every share is a count of the 20 resamples
    np.testing.assert_allclose(written["in_top"] * 20, np.round(written["in_top"] * 20))
    doc = json.loads((out / "recourse.json").read_text())["rank_stability"]
    assert (doc["n_boot"], doc["seed"]) == (20, 3)
    assert "Rank stability (20 bootstrap resamples of" in " ".join(res.output.split())


def test_n_boot_zero_turns_the_rank_stability_off(table, tmp_path):
    out = tmp_path / "o"
    res = runner.invoke(app, ["recourse", "--data", str(table), "--rule", RULE, "--protected",
                              "g", *STAB, "--n-boot", "0", "--out", str(out)])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert not (out / "rank_stability.csv").exists()
    assert "rank_stability" not in json.loads((out / "recourse.json").read_text())
    assert "Rank stability" not in res.output


def test_n_boot_default_is_the_specs_and_shown_in_help(table, tmp_path):
    from primafacie.recourse.spec import RecourseSpec

    out = tmp_path / "o"
    res = runner.invoke(app, ["recourse", "--data", str(table), "--rule", RULE, "--protected",
                              "g", *STAB, "--out", str(out)])  # fmt: skip
    assert res.exit_code == 0, res.output
    doc = json.loads((out / "recourse.json").read_text())["rank_stability"]
    spec = RecourseSpec()
    assert (doc["n_boot"], doc["seed"]) == (spec.n_boot, spec.seed)
    text = " ".join(runner.invoke(app, ["recourse", "--help"]).output.split())
    assert "--n-boot" in text and f"[default: {spec.n_boot}]" in text and "--seed" in text


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--n-boot", "-1"], "n_boot must be an integer in [0, 100000]; got -1 (--n-boot, "
                             "analyses.recourse.n_boot)"),
        (["--seed", "-2"], "seed must be an integer ≥ 0; got -2 (--seed, analyses.recourse.seed)"),
    ],
)  # fmt: skip
def test_bad_n_boot_or_seed_exit_2_name_the_flag(table, tmp_path, extra, message):
    out = tmp_path / "o"
    res = runner.invoke(app, ["recourse", "--data", str(table), "--rule", RULE, "--protected",
                              "g", *STAB, *extra, "--out", str(out)])  # fmt: skip
    assert res.exit_code == 2, res.output
    assert message in " ".join(res.output.split())
    assert not out.exists()


def test_audit_yaml_n_boot_error_names_the_flag_and_key():
    from pydantic import ValidationError

    from primafacie.recourse.spec import RecourseSpec

    with pytest.raises(ValidationError, match=r"\(--n-boot, analyses.recourse.n_boot\)"):
        RecourseSpec(n_boot=-1)


def test_config_refuses_n_boot_and_seed(table, tmp_path):
    cfg = tmp_path / "audit.yaml"
    cfg.write_text(
        f"data: {table.name}\n"
        f'decision: {{rule: "{RULE}"}}\n'
        "features: {x: {ordinal: [lo, mid, hi]}, y: categorical, w: categorical}\n"
        "protected: {g: b}\n"
        "analyses:\n"
        "  recourse: {support: 0.05, metrics: [EE], n_boot: 5}\n"
    )
    out = tmp_path / "o"
    res = runner.invoke(app, ["recourse", "--config", str(cfg), "--n-boot", "10", "--seed", "1",
                              "--out", str(out)])  # fmt: skip
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())
    assert "drop --n-boot, --seed or set the keys of analyses.recourse" in text
    assert not out.exists()
    # any other key of the section would be ignored just the same: refused too
    res = runner.invoke(app, ["recourse", "--config", str(cfg), "--support", "0.2",
                              "--out", str(out)])  # fmt: skip
    assert res.exit_code == 2 and "drop --support" in " ".join(res.output.split())
    res = runner.invoke(app, ["recourse", "--config", str(cfg), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert json.loads((out / "recourse.json").read_text())["rank_stability"]["n_boot"] == 5


# ---------------------------------------------------------------------------- engine flags
def _record_engine(monkeypatch):
    """The engine's parameters and the ``budgets`` of every :meth:`RecourseFairness.run`."""
    from primafacie.recourse import RecourseFairness

    seen, real = [], RecourseFairness.run

    def run(self, data, *args, **kwargs):
        seen.append({**self.get_params(), "budgets": kwargs.get("budgets")})
        return real(self, data, *args, **kwargs)

    monkeypatch.setattr(RecourseFairness, "run", run)
    return seen


def test_the_engine_flags_reach_the_engine_as_declared(table, tmp_path, monkeypatch):
    """--max-step, --legacy and --loose (declared parameters without an analyses key) reach
    RecourseFairness under their names, by the declaration, with their defaults when left
    out; --budget (a role that sets its declared parameter) reaches run, "auto" when left out."""
    from primafacie.commands.recourse import Recourse

    budget = next(r for r in Recourse().roles if r.name == "budgets")
    assert budget.value(None) == budget.value([]) == "auto" and budget.value([2.0]) == [2.0]
    flags = Recourse().engine_flags({"legacy": True, "max_step": None, "top": 3}, {})
    assert flags == {"legacy": True, "max_step": None}
    seen = _record_engine(monkeypatch)
    path = tmp_path / "n.csv"
    pd.read_csv(table).assign(num=lambda d: np.arange(len(d)) % 40).to_csv(path, index=False)
    base = ["recourse", "--data", str(path), "--rule", f"{RULE} and (num > 10)", "--protected",
            "g", "--exclude", "label", "--support", "0.05", "--metrics", "EE", "--n-boot", "0"]  # fmt: skip
    names = ("max_step", "legacy", "exact_features", "budgets")
    res = runner.invoke(app, [*base, "--out", str(tmp_path / "a")])
    assert res.exit_code == 0, res.output
    assert {k: seen[-1][k] for k in names} == {
        "max_step": None, "legacy": False, "exact_features": True, "budgets": "auto"}  # fmt: skip
    res = runner.invoke(app, [*base, "--max-step", "num=5", "--legacy", "--loose", "--budget",
                              "2", "--budget", "3", "--out", str(tmp_path / "b")])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert {k: seen[-1][k] for k in names} == {
        "max_step": {"num": 5.0}, "legacy": True, "exact_features": False, "budgets": [2.0, 3.0]}  # fmt: skip


def test_config_takes_legacy_and_loose_to_the_engine_and_refuses_max_step(table, tmp_path,
                                                                          monkeypatch):  # fmt: skip
    """With --config, --legacy and --loose (the flags allowed besides it) reach the engine the
    spec builds; --max-step and --budget, which the file cannot say, are refused by name."""
    cfg = tmp_path / "audit.yaml"
    cfg.write_text(
        f"data: {table.name}\n"
        f'decision: {{rule: "{RULE}"}}\n'
        "features: {x: {ordinal: [lo, mid, hi]}, y: categorical, w: categorical}\n"
        "protected: {g: b}\n"
        "analyses:\n"
        "  recourse: {support: 0.05, metrics: [EE], n_boot: 0}\n"
    )
    seen = _record_engine(monkeypatch)
    for extra, legacy, exact in (([], False, True), (["--legacy", "--loose"], True, False)):
        out = tmp_path / f"o{len(extra)}"
        res = runner.invoke(app, ["recourse", "--config", str(cfg), *extra, "--out", str(out)])
        assert res.exit_code == 0, res.output
        assert (seen[-1]["legacy"], seen[-1]["exact_features"]) == (legacy, exact)
        assert seen[-1]["max_step"] is None
    for extra in (["--max-step", "x=1"], ["--budget", "2"]):
        out = tmp_path / "refused"
        res = runner.invoke(app, ["recourse", "--config", str(cfg), "--legacy", *extra,
                                  "--out", str(out)])  # fmt: skip
        assert res.exit_code == 2, res.output
        assert f"drop {extra[0]} or set the keys" in " ".join(res.output.split())
        assert not out.exists()


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--max-step", "x=-1"], "max_step must be None or a mapping {feature: number ≥ 0}; "
                                 "got {'x': -1.0} (--max-step)"),
        (["--max-step", "x=abc"], "--max-step: 'abc' is not a number"),
        (["--max-step", "no=2"], "max_step feature given for unknown column(s) ['no']; known "
                                 "columns: x, y, w (--max-step)"),
        (["--weight", "no=2"], "['no']; known columns: x, y, w (--weight, "
                               "analyses.recourse.feature_weights)"),
        (["--budget", "-2"], "(--budget)"),
    ],
)  # fmt: skip
def test_a_bad_engine_flag_exits_2_and_names_its_flag(table, tmp_path, extra, message):
    out = tmp_path / "o"
    res = runner.invoke(app, ["recourse", "--data", str(table), "--rule", RULE, "--protected",
                              "g", "--exclude", "label", *extra, "--out", str(out)])  # fmt: skip
    assert res.exit_code == 2, res.output
    assert message in " ".join(res.output.split())
    assert not out.exists()
