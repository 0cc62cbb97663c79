"""``primafacie situation`` (src/primafacie/commands/situation.py) through typer's CliRunner."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from primafacie.cli import app
from tests.shared import demo_inputs, private_copy

runner = CliRunner()


@pytest.fixture()
def loans(tmp_path):
    rng = np.random.default_rng(0)
    n = 120
    g = (rng.random(n) < 0.4).astype(int)
    sal = 100 + 20 * rng.normal(size=n) - 15 * g
    bal = 0.3 * sal + 5 * rng.normal(size=n) - 3 * g
    df = pd.DataFrame({"gender": g, "salary": sal, "balance": bal})
    df["approved"] = (df.salary + 5 * df.balance > 250).astype(int)
    path = tmp_path / "loans.csv"
    df.to_csv(path, index=False)
    return path, df


def _base(path, out):
    return [
        "situation",
        "--data",
        str(path),
        "--protected",
        "gender=1",
        "--feature",
        "salary",
        "--feature",
        "balance:numeric",
        "--decision",
        "approved",
        "--rule",
        "salary + 5 * balance > 250",
        "--k",
        "5,10",
        "--out",
        str(out),
    ]


EDGES = ["--edge", "gender:salary", "--edge", "gender:balance", "--edge", "salary:balance"]


def test_writes_complainants_and_summary(loans, tmp_path):
    path, df = loans
    out = tmp_path / "out"
    r = runner.invoke(app, _base(path, out) + EDGES)
    assert r.exit_code == 0, r.output
    comp = pd.read_csv(out / "complainants.csv")
    summ = pd.read_csv(out / "summary.csv")
    assert set(summ.method) == {"st", "cst", "cst_centers", "cf"} and set(summ.k) == {5, 10}
    assert (summ.denominator == int(df.gender.sum())).all()
    assert len(comp) == 8 * int(df.gender.sum())
    assert {
        "p_c",
        "p_t",
        "delta",
        "ci_low",
        "ci2_low",
        "ci2_high",
        "significant",
        "control_ids",
        "test_ids",
        "cf_decision",
    } <= set(comp.columns)


def test_counterfactual_table_route_and_legacy(loans, tmp_path):
    path, df = loans
    cf = df.copy()
    cf.loc[cf.gender == 1, "salary"] += 15
    cf_path = tmp_path / "cf.csv"
    cf.to_csv(cf_path, index=False)
    out = tmp_path / "out"
    legacy = ["--counterfactuals", str(cf_path), "--legacy", "--method", "cst,cf"]
    # the default interval is Newcombe; --legacy reproduces the authors' Wald interval and
    # says so when it is not asked for, before anything is written
    r = runner.invoke(app, _base(path, out) + legacy)
    said = " ".join(r.output.split())  # the console wraps long messages
    assert r.exit_code == 2 and "--legacy:" in said and "(--interval wald)" in said
    assert not out.exists()
    r = runner.invoke(app, _base(path, out) + legacy + ["--interval", "wald"])
    assert r.exit_code == 0, r.output
    assert set(pd.read_csv(out / "summary.csv").method) == {"cst", "cf"}


@pytest.mark.parametrize(
    "mutate, extra, message",
    [
        (lambda d: d.drop(columns="balance"), [], "balance"),
        (lambda d: d.assign(salary=[np.nan] + d.salary.tolist()[1:]), [], "salary"),
        (lambda d: d.assign(approved=np.arange(len(d)) % 3), [], "must be binary"),
        (lambda d: d, ["--protected", "gender=7"], "never occur"),
        (lambda d: d, ["--k", "500"], "k=500"),
        (lambda d: d, ["--edge", "balance:salary"], "cycle"),
        (lambda d: d, ["--edge", "salary:gender"], "gender"),
        (lambda d: d, ["--edge", "gender:ghost"], "ghost"),
    ],
)
def test_bad_input_exit_2_and_nothing_written(loans, tmp_path, mutate, extra, message):
    path, df = loans
    bad = tmp_path / "bad.csv"
    mutate(df).to_csv(bad, index=False)
    out = tmp_path / "out"
    args = _base(bad, out) + EDGES
    if extra and extra[0] == "--protected":
        args[args.index("gender=1")] = extra[1]
    elif extra:
        args += extra
    r = runner.invoke(app, args)
    assert r.exit_code == 2, r.output
    assert message in r.output
    assert not out.exists()


def test_missing_b_for_centres_is_exit_2(loans, tmp_path):
    path, df = loans
    cf = df.drop(columns="approved")
    cf_path = tmp_path / "cf.csv"
    cf.to_csv(cf_path, index=False)
    args = [a for a in _base(path, tmp_path / "o") if a != "salary + 5 * balance > 250"]
    args.remove("--rule")
    r = runner.invoke(app, args + ["--counterfactuals", str(cf_path), "--method", "cst_centers"])
    assert r.exit_code == 2 and "counterfactual decision" in r.output


def test_help_has_example():
    r = runner.invoke(app, ["situation", "--help"])
    assert r.exit_code == 0 and "Example" in r.output


def test_config_route(loans, tmp_path):
    path, df = loans
    cfg = tmp_path / "audit.yaml"
    cfg.write_text(
        f"data: {path.name}\n"
        "decision: {rule: 'salary + 5 * balance > 250'}\n"
        "favorable: 1\n"
        "features: {salary: numeric, balance: numeric}\n"
        "protected: {gender: 1}\n"
        "causal: {edges: [[gender, salary], [gender, balance], [salary, balance]]}\n"
        "analyses:\n"
        "  situation: {k: [5], methods: [st, cst, cf], interval: wilson}\n"
    )
    out = tmp_path / "cfg_out"
    r = runner.invoke(app, ["situation", "--config", str(cfg), "--out", str(out)])
    assert r.exit_code == 0, r.output
    summ = pd.read_csv(out / "summary.csv")
    assert set(summ.method) == {"st", "cst", "cf"} and (summ.k == 5).all()


def test_config_without_situation_section(loans, tmp_path):
    path, _ = loans
    cfg = tmp_path / "audit.yaml"
    cfg.write_text(
        f"data: {path.name}\ndecision: {{column: approved}}\nfavorable: 1\n"
        "features: {salary: numeric}\nprotected: {gender: 1}\n"
    )
    r = runner.invoke(app, ["situation", "--config", str(cfg), "--out", str(tmp_path / "o")])
    assert r.exit_code == 2 and "situation" in r.output


def test_multiple_dimension_writes_each_runs_neighbours_and_intervals(tmp_path):
    rng = np.random.default_rng(1)
    n = 200
    g = (rng.random(n) < 0.5).astype(int)
    race = (rng.random(n) < 0.5).astype(int)
    sal = 100 + 20 * rng.normal(size=n) - 15 * g - 10 * race
    bal = 0.3 * sal + 5 * rng.normal(size=n) - 3 * g
    df = pd.DataFrame({"gender": g, "race": race, "salary": sal, "balance": bal})
    df["approved"] = (df.salary + 5 * df.balance > 250).astype(int)
    path = tmp_path / "loans2.csv"
    df.to_csv(path, index=False)
    out = tmp_path / "out"
    args = _base(path, out) + ["--protected", "race=1", "--dimension", "multiple"]
    args += EDGES + ["--edge", "race:salary"]
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    comp = pd.read_csv(out / "complainants.csv")
    both = int(((df.gender == 1) & (df.race == 1)).sum())
    assert len(comp) == 8 * both
    for attr in ("gender", "race"):
        assert {f"control_ids_{attr}", f"test_ids_{attr}", f"ci2_low_{attr}"} <= set(comp.columns)
        st5 = comp[(comp.method == "st") & (comp.k == 5)]
        assert st5[f"control_ids_{attr}"].str.split().map(len).eq(5).all()
    assert (pd.read_csv(out / "summary.csv").denominator == both).all()


def test_model_with_string_labels_uses_the_favorable_label(loans, tmp_path):
    import skops.io
    from sklearn.tree import DecisionTreeClassifier

    path, df = loans
    df = df.assign(approved=np.where(df.approved == 1, "yes", "no"))
    df.to_csv(path, index=False)
    model = DecisionTreeClassifier(random_state=0).fit(df[["salary", "balance"]], df.approved)
    mpath = tmp_path / "m.skops"
    skops.io.dump(model, mpath)
    args = [a for a in _base(path, tmp_path / "o") if a != "salary + 5 * balance > 250"]
    args.remove("--rule")
    out = tmp_path / "o"
    r = runner.invoke(
        app, args + ["--out", str(out), "--favorable", "yes", "--model", str(mpath)] + EDGES
    )
    assert r.exit_code == 0, r.output
    comp = pd.read_csv(out / "complainants.csv")
    cf_rows = comp[comp.method == "cf"]
    # the tree reproduces the labels, so b(x^CF) is favourable for some complainants
    assert cf_rows.cf_decision.isin([0, 1]).all() and cf_rows.cf_decision.sum() > 0
    bad = runner.invoke(
        app,
        args + ["--out", str(tmp_path / "o2"), "--favorable", "maybe", "--model", str(mpath)],
    )
    assert bad.exit_code == 2 and "maybe" in bad.output


def test_cst_without_edges_names_the_cli_flags(loans, tmp_path):
    path, _ = loans
    out = tmp_path / "out"
    r = runner.invoke(app, _base(path, out))  # no --edge, no --counterfactuals
    assert r.exit_code == 2
    text = " ".join(r.output.split())
    assert "need counterfactuals" in text and "--edge or --counterfactuals" in text
    assert not out.exists()


def test_favorable_text_matches_a_boolean_model(tmp_path):
    """--favorable 1 (the default) names True for a model fitted on boolean labels."""
    import numpy as np
    import pandas as pd
    from sklearn.linear_model import LogisticRegression

    from primafacie.commands.situation import _model_label

    X = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0]})
    model = LogisticRegression().fit(X, np.array([False, False, True, True]))
    assert _model_label(model, "1", tmp_path / "m.joblib") is True
    assert _model_label(model, "false", tmp_path / "m.joblib") is False


def test_config_gives_the_audits_per_complainant_numbers_byte_for_byte(tmp_path):
    """``situation --config audit.yaml`` runs what ``audit audit.yaml`` runs: on the demo world,
    with the causal section's clip and round (which the command once ignored), every shared
    column of every test's complainant table is identical, cell for cell as written."""
    import yaml

    cfg_path = private_copy(demo_inputs(n=300, seed=0), tmp_path) / "audit.yaml"
    cfg = yaml.safe_load(cfg_path.read_text())
    cfg["analyses"]["alternatives"] = None  # on by default; not what is compared here
    cfg["causal"]["clip"] = {"income": [0, 60000], "savings": [0, 1e9]}
    cfg["causal"]["round"] = {"income": -2}
    cfg["analyses"]["situation"]["max_distance"] = 0.2  # some complainants go untested
    cfg_path.write_text(yaml.safe_dump(cfg))
    audit_out, cli_out = tmp_path / "audit", tmp_path / "cli"
    r = runner.invoke(app, ["audit", str(cfg_path), "--out", str(audit_out), "--no-progress"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["situation", "--config", str(cfg_path), "--out", str(cli_out)])
    assert r.exit_code == 0, r.output
    comp = pd.read_csv(cli_out / "complainants.csv", dtype=str, keep_default_na=False)
    summ = pd.read_csv(cli_out / "summary.csv", dtype=str, keep_default_na=False)
    tests = ["single_gender", "single_race", "multiple", "intersectional"]
    assert list(dict.fromkeys(comp.dimension)) == tests
    for test in tests:
        ours = comp[comp.dimension == test].reset_index(drop=True)
        theirs = pd.read_csv(
            audit_out / "tables" / f"situation_{test}.csv", dtype=str, keep_default_na=False
        )
        shared = [c for c in theirs.columns if c in ours.columns]
        assert len(shared) == len(theirs.columns) >= 20  # every column of the audit's table
        assert ours[shared].equals(theirs[shared]), test
        audit_summ = pd.read_csv(
            audit_out / "tables" / f"situation_{test}_summary.csv", dtype=str, keep_default_na=False
        )
        mine = summ[summ.dimension == test].drop(columns="dimension").reset_index(drop=True)
        assert mine.equals(audit_summ), test
    # the clip and round reached the counterfactuals, and ε left some complainants untested
    assert (pd.to_numeric(summ.untested) > 0).any()


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--alpha", "2"], "--alpha: alpha must be a number in (0, 1); got 2.0"),
        (["--k", "5,0"], "--k: k must be an integer ≥ 1 or a non-empty list of them; got [5, 0]"),
        (["--max-distance", "-1"], "--max-distance: max_distance must be a number > 0 or None"),
        (["--dimension", "double"], "--dimension: dimensions must be a non-empty list of one of "
         "'single', 'multiple', 'intersectional'; got ['double']"),
        (["--multiplicity", "fdr"], "--multiplicity: multiplicity must be one of 'none', "
                                    "'bonferroni', 'holm', 'bh', 'by'; got 'fdr'"),
    ],
)  # fmt: skip
def test_bad_flags_name_the_flag_and_the_constraint(loans, tmp_path, extra, message):
    path, _ = loans
    out = tmp_path / "out"
    r = runner.invoke(app, _base(path, out) + EDGES + extra)
    assert r.exit_code == 2, r.output
    assert message in " ".join(r.output.split())
    assert not out.exists()


def test_terminal_shows_untested_headline_and_caveats(loans, tmp_path):
    path, _ = loans
    out = tmp_path / "out"
    args = _base(path, out) + ["--method", "st,CST_WO", "--max-distance", "0.01"] + EDGES
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    summ = pd.read_csv(out / "summary.csv")
    assert set(summ.method) == {"st", "cst"} and (summ.untested > 0).all()
    assert (summ.denominator == summ.tested).all()  # every protected row is a complainant
    text = " ".join(r.output.split())
    assert "untested" in text and "could not be tested within max_distance 0.01" in text


# ---------------------------------------------------------------------------- --multiplicity
def _st_args(path, out, *extra):
    return _base(path, out) + ["--method", "st", *extra]


def test_multiplicity_bonferroni_is_m_times_p_within_each_method_and_k(loans, tmp_path):
    path, _ = loans
    out = tmp_path / "out"
    r = runner.invoke(app, _st_args(path, out, "--multiplicity", "bonferroni"))
    assert r.exit_code == 0, r.output
    comp = pd.read_csv(out / "complainants.csv")
    for _, g in comp.groupby("k"):
        m = int(g["p_value"].notna().sum())  # the tested complainants of this (method, k)
        expected = np.minimum(1.0, m * g["p_value"].to_numpy())
        np.testing.assert_allclose(g["p_adjusted"].to_numpy(), expected)
        assert (g["significant_adjusted"] == (g["p_adjusted"] <= 0.05)).all()
    summ = pd.read_csv(out / "summary.csv")
    assert (summ["multiplicity"] == "bonferroni").all()
    # the terminal prints the report's table: "significant" is the adjusted count, named by
    # the adjustment; the unadjusted count follows, labelled (issue 23)
    assert "significant before adjustment" in r.output
    for n, a, d in zip(summ.n_significant, summ.n_significant_adjusted, summ.denominator,
                       strict=True):  # fmt: skip
        assert f"{100 * a / d:.1f}% ({a} of {d}) (bonferroni)" in r.output
        assert f"{100 * n / d:.1f}% ({n} of {d})" in r.output


def test_multiplicity_none_leaves_the_flags_as_they_are(loans, tmp_path):
    path, _ = loans
    out = tmp_path / "out"
    r = runner.invoke(app, _st_args(path, out, "--multiplicity", "none"))
    assert r.exit_code == 0, r.output
    comp = pd.read_csv(out / "complainants.csv")
    assert (comp["significant_adjusted"] == comp["significant"]).all()
    summ = pd.read_csv(out / "summary.csv")
    assert (summ["n_significant_adjusted"] == summ["n_significant"]).all()


def test_multiplicity_default_is_the_specs_and_shown_in_help(loans, tmp_path):
    from primafacie.situation.spec import SituationSpec

    path, _ = loans
    out = tmp_path / "out"
    r = runner.invoke(app, _st_args(path, out))
    assert r.exit_code == 0, r.output
    summ = pd.read_csv(out / "summary.csv")
    assert (summ["multiplicity"] == SituationSpec().multiplicity).all()
    help_text = " ".join(runner.invoke(app, ["situation", "--help"]).output.split())
    assert "--multiplicity" in help_text and "[default: bh]" in help_text


def test_config_refuses_flags_it_would_ignore(loans, tmp_path):
    path, _ = loans
    cfg = tmp_path / "audit.yaml"
    cfg.write_text(
        f"data: {path.name}\ndecision: {{column: approved}}\nfavorable: 1\n"
        "features: {salary: numeric, balance: numeric}\nprotected: {gender: 1}\n"
        "analyses:\n  situation: {k: [5], methods: [st]}\n"
    )
    out = tmp_path / "o"
    r = runner.invoke(
        app, ["situation", "--config", str(cfg), "--multiplicity", "none", "--out", str(out)]
    )
    assert r.exit_code == 2, r.output
    text = " ".join(r.output.split())
    assert "drop --multiplicity or set the keys of analyses.situation" in text
    assert not out.exists()
    r = runner.invoke(app, ["situation", "--config", str(cfg), "--out", str(out)])
    assert r.exit_code == 0, r.output


def test_a_choice_error_echoes_the_value_given(loans, tmp_path):
    path, _ = loans
    out = tmp_path / "out"
    r = runner.invoke(app, _base(path, out) + EDGES + ["--method", "knn"])
    assert r.exit_code == 2, r.output
    text = " ".join(r.output.split())
    assert "--method" in text and "got ['knn']" in text
    assert "one of 'st', 'cst', 'cst_centers', 'cf'" in text
    assert not out.exists()


def test_a_feature_name_may_hold_a_colon(loans, tmp_path):
    """COL[:kind] is cut at its last ':' only before a kind: a column named 'balance:2024' was
    cut at its first ':' and refused in pydantic's words."""
    from primafacie.commands.situation import _feature

    assert _feature("balance:2024") == ("balance:2024", "numeric")
    assert _feature("a:b:categorical") == ("a:b", "categorical") and _feature("x") == (
        "x",
        "numeric",
    )
    path, df = loans
    df.rename(columns={"balance": "balance:2024"}).to_csv(path, index=False)
    args = [a.replace("balance:numeric", "balance:2024") for a in _base(path, tmp_path / "o")]
    args = [a.replace("5 * balance", "5 * `balance:2024`") for a in args]
    r = runner.invoke(app, [*args, "--method", "st"])
    assert r.exit_code == 0, r.output
    table = pd.read_csv(tmp_path / "o" / "complainants.csv")
    assert len(table) and set(table["method"]) == {"st"}
