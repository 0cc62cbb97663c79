"""PrincipalFairness API: run (AuditData or table), repair, bootstrap, covariate cells and bad input."""

import json
import warnings

import matplotlib

matplotlib.use("Agg")
import numpy as np
import pandas as pd
import pytest

from primafacie.data import AuditData
from primafacie.errors import InputError
from primafacie.principal import NOTE, PrincipalFairness, principal_arrays
from primafacie.principal.population import margins_from_joint

TABLE4 = np.array([[[0.53, 0.04], [0.11, 0.32]], [[0.90, 0.02], [0.03, 0.05]]])


def _rows_from_table(p, n_per_arm, a_labels=("f", "m")):
    """Rows whose empirical p' equals ``p`` exactly (counts = p * n_per_arm)."""
    parts = []
    for a in (0, 1):
        for s in (0, 1):
            for y in (0, 1):
                k = int(round(p[a, s, y] * n_per_arm))
                parts.append(pd.DataFrame({"g": [a_labels[a]] * k, "s": s, "y": y}))
    return pd.concat(parts, ignore_index=True)


@pytest.fixture
def table4_data():
    df = _rows_from_table(TABLE4, 100)
    return AuditData(df, features={}, protected={"g": "f"}, decision="s", outcome="y")


def test_evaluate_table4_rows(table4_data):
    res = PrincipalFairness(definitions=[1, 2]).run(table4_data)
    assert res.a1 == "m" and res.a0 == "f"
    assert res.violated(1).tolist() == [True] and res.violated(2).tolist() == [True]
    np.testing.assert_allclose(res.values["eps_def2"][0], [0, 0, 0, 1 / 90], atol=1e-9)
    s = res.summary()
    row2 = s[s.definition == 2].iloc[0]
    assert row2.verdict == "violated" and "favours A=0" in row2.direction  # tau' < 0
    assert "-0.1300" in row2.evidence and "-0.0100" in row2.evidence
    frame = res.to_frame()
    cond = frame[frame.quantity == "lp_tau1'|tau0'=0"].iloc[0]
    assert not cond.feasible and "infeasible" in cond.verdict
    d = res.to_dict()
    json.dumps(d, allow_nan=False)  # JSON-safe: NaN of the infeasible program is None
    assert d["note"] == NOTE
    assert [q["lower"] for q in d["quantities"] if q["quantity"] == "lp_tau1'|tau0'=0"] == [None]
    assert sum(c["count"] for c in d["counts"]) == 200


def test_repair_closes_gap_and_is_seeded(table4_data):
    big = table4_data.replace(frame=pd.concat([table4_data.frame] * 50, ignore_index=True))
    pf = PrincipalFairness(definitions=2, seed=7)
    rep = pf.repair(big)
    assert rep.eps_sum[0] == pytest.approx(1 / 90, abs=1e-9)
    f = rep.to_frame()
    assert bool(f.post_gap_closed.iloc[0])
    # S' changes only A=1 rows with S=0, about eps11 * 0.92 * 5000 = 51 of them
    changed = rep.repaired != rep.decisions
    assert (rep.a[changed] == 1).all() and (rep.decisions[changed] == 0).all()
    assert 20 < changed.sum() < 90
    np.testing.assert_array_equal(rep.repaired, pf.repair(big).repaired)
    json.dumps(rep.to_dict(), allow_nan=False)
    assert "force S'=1" in rep.summary().repair.iloc[0]
    assert rep.plot() is not None


def test_fair_by_construction_eps_zero_with_covariates():
    rng = np.random.default_rng(3)
    n = 3000
    df = pd.DataFrame(
        {
            "g": rng.choice(["f", "m"], n),
            "x": rng.choice(["a", "b", "c"], n),
            "y": rng.integers(0, 2, n),
        }
    )
    df["s"] = (df.y.to_numpy() ^ (rng.random(n) < 0.1)).astype(int)  # depends on Y only
    data = AuditData(df, features={}, protected={"g": "f"}, decision="s", outcome="y")
    res = PrincipalFairness(definitions=[1, 2], covariates=["x"]).run(data)
    assert res.labels == ("x=a", "x=b", "x=c")
    for d in (1, 2):
        assert not res.violated(d).any()
        np.testing.assert_allclose(res.values[f"eps_sum_def{d}"], 0, atol=1e-9)
    assert set(res.summary().query("definition in (1, 2)").verdict) == {"not refuted"}
    assert res.plot() is not None


def test_bootstrap_seeded_and_reports_stability(table4_data):
    a = PrincipalFairness(definitions=2, n_boot=60, seed=1).run(table4_data)
    b = PrincipalFairness(definitions=2, n_boot=60, seed=1).run(table4_data)
    for key in a.boot:
        np.testing.assert_array_equal(a.boot[key], b.boot[key])
    lo, hi = a.boot["lp_tau_hi@lo"][0], a.boot["lp_tau_hi@hi"][0]
    assert lo <= a.values["lp_tau_hi"][0] <= hi
    share = a.boot["share_violated_def2"][0]
    assert 0 <= share <= 1
    f = a.to_frame()
    row = f[f.quantity == "eps_sum"].iloc[0]
    assert row.boot_estimate_lo <= row.estimate <= row.boot_estimate_hi
    assert not np.isnan(a.summary().boot_share_violated.iloc[1])


def test_array_engine_matches_population_margins():
    # population margins of a joint where S(1) = S(0): eps* = 0 (Lemma 1) through the array API
    w = np.zeros((2, 2, 2, 2))
    w[0, 0] = [[0.1, 0.05], [0.05, 0.2]]
    w[1, 1] = [[0.3, 0.1], [0.05, 0.15]]
    p = margins_from_joint(w.reshape(16))[0]
    counts = np.round(p * 1000).astype(int)
    a = np.repeat([0, 0, 0, 0, 1, 1, 1, 1], counts.reshape(-1))
    s = np.repeat([0, 0, 1, 1] * 2, counts.reshape(-1))
    y = np.repeat([0, 1] * 4, counts.reshape(-1))
    r = principal_arrays(a, s, y, definitions=(1, 2))
    assert r.values["eps_sum_def1"][0] == 0 and r.values["eps_sum_def2"][0] == 0


# ---------------------------------------------------------------------------- bad input
def _frame():
    return pd.DataFrame(
        {
            "g": ["f", "m"] * 10,
            "s": [0, 1, 1, 0] * 5,
            "y": [1, 1, 0, 0] * 5,
            "x": ["a"] * 10 + ["b"] * 10,
            "row": range(20),
        }
    )


def test_non_binary_protected():
    df = _frame().assign(g=["f", "m", "x", "m"] * 5)
    data = AuditData(df, features={}, protected={"g": "f"}, decision="s", outcome="y")
    with pytest.raises(InputError, match="'g' must be binary") as err:
        PrincipalFairness().run(data)
    # with no other binary attribute the first fix is the reference (it read "To fix: or give")
    assert "To fix: give a reference (protected: {g: {values:" in str(err.value)


def test_non_binary_outcome_and_decision():
    with pytest.raises(InputError, match="outcome column 'y' must be binary"):
        AuditData(
            _frame().assign(y=[0, 1, 2, 1] * 5),
            features={},
            protected={"g": "f"},
            decision="s",
            outcome="y",
        )
    with pytest.raises(InputError, match="decision column 's' must be binary"):
        AuditData(
            _frame().assign(s=[0, 1, 2, 1] * 5),
            features={},
            protected={"g": "f"},
            decision="s",
            outcome="y",
        )


def test_missing_outcome_or_nan():
    data = AuditData(_frame(), features={}, protected={"g": "f"}, decision="s")
    with pytest.raises(InputError, match="no outcome"):
        PrincipalFairness().run(data)
    df = _frame().astype({"y": float})
    df.loc[3, "y"] = np.nan
    with pytest.raises(InputError, match="missing"):
        AuditData(df, features={}, protected={"g": "f"}, decision="s", outcome="y")
    df = _frame().astype({"x": object})
    df.loc[2, "x"] = None
    data = AuditData(df, features={}, protected={"g": "f"}, decision="s", outcome="y")
    with pytest.raises(InputError, match="covariate 'x' has missing"):
        PrincipalFairness(covariates=["x"]).run(data)


def test_empty_group_in_a_cell_error_or_skip():
    df = _frame()
    df.loc[df.x == "b", "g"] = "m"
    data = AuditData(df, features={}, protected={"g": "f"}, decision="s", outcome="y")
    with pytest.raises(InputError, match=r"'x=b' has no A=0 \(f\) rows"):
        PrincipalFairness(covariates=["x"]).run(data)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = PrincipalFairness(covariates=["x"], empty_cells="skip").run(data)
    assert any("skipped" in str(w.message) for w in caught)
    assert res.evaluated.tolist() == [True, False]
    assert res.summary().query("cell == 'x=b'").verdict.unique().tolist() == ["skipped"]
    json.dumps(res.to_dict(), allow_nan=False)


def test_covariate_with_one_value_per_row():
    data = AuditData(_frame(), features={}, protected={"g": "f"}, decision="s", outcome="y")
    with pytest.raises(InputError, match="'row' has a different value on every row"):
        PrincipalFairness(covariates=["row"]).run(data)


def test_bad_settings():
    data = AuditData(_frame(), features={}, protected={"g": "f"}, decision="s", outcome="y")
    with pytest.raises(InputError, match="definitions must be 1 or 2"):
        PrincipalFairness(definitions=3).run(data)
    with pytest.raises(InputError, match="joint"):
        PrincipalFairness(joint="x").run(data)
    with pytest.raises(InputError, match="cannot also be a covariate"):
        PrincipalFairness(covariates=["g"]).run(data)


def test_small_cells_flagged():
    data = AuditData(_frame(), features={}, protected={"g": "f"}, decision="s", outcome="y")
    with pytest.warns(UserWarning, match="fewer than 8"):
        res = PrincipalFairness(covariates=["x"], min_group=8).run(data)
    assert res.small.all()
    assert res.summary().note.str.contains("small cell").all()


def test_no_cell_with_both_groups():
    df = _frame()
    df["g"] = np.where(df.x == "a", "f", "m")
    data = AuditData(df, features={}, protected={"g": "f"}, decision="s", outcome="y")
    with pytest.raises(InputError, match="no covariate cell has both groups"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            PrincipalFairness(covariates=["x"], empty_cells="skip").run(data)


def test_frame_reports_corollary1_checks(table4_data):
    f = PrincipalFairness().run(table4_data).to_frame().set_index("quantity")
    assert f.loc["cor1_eq2_upper_neg", "estimate"] == 1.0  # 0.03 + 0.53 < 0.57
    assert f.loc["cor1_eq1_lower_pos", "estimate"] == 0.0
    assert f.loc["prop1_d0", "estimate"] == pytest.approx(0.57)
    assert f.loc["prop1_tau0", "lower"] == pytest.approx(-11 / 57)


def test_bootstrap_is_stratified_percentile_of_the_replicates(table4_data):
    """The reported interval is the (2.5 %, 97.5 %) percentile of the statistic recomputed on
    replicates resampled within each arm (arm sizes kept), with the given seed."""
    from primafacie.principal.estimate import bootstrap_counts
    from primafacie.principal.evaluate import evaluate_margins

    res = PrincipalFairness(definitions=2, n_boot=40, seed=5, level=0.9).run(table4_data)
    bc = bootstrap_counts(res.counts, 40, seed=5)
    assert (bc.sum(axis=(3, 4)) == res.counts.sum(axis=(2, 3))).all()  # stratified by A
    v = evaluate_margins((bc / bc.sum(axis=(3, 4), keepdims=True)).reshape(-1, 2, 2, 2), (2,))
    for key in ("lp_tau_lo", "eps_sum_def2"):
        assert res.boot[f"{key}@lo"][0] == pytest.approx(np.quantile(v[key], 0.05), abs=1e-12)
        assert res.boot[f"{key}@hi"][0] == pytest.approx(np.quantile(v[key], 0.95), abs=1e-12)
    assert (bootstrap_counts(res.counts, 40, seed=6) != bc).any()  # the seed is used


def test_repair_wording_never_claims_fairness(table4_data):
    rep = PrincipalFairness(definitions=2).repair(table4_data)
    text = " ".join(rep.summary().note) + rep.note
    assert "not refuted" in text and "is fair" not in text


def test_def4_undefined_when_no_y1_in_group_a0():
    """Definition 4 conditions on Y(0)=1; with no Y=1 among A=0 it is undefined, not 'not refuted'."""
    df = pd.DataFrame({"g": ["f"] * 6 + ["m"] * 6, "y": [0] * 6 + [0, 1] * 3, "s": [0, 1] * 6})
    data = AuditData(df, features={}, protected={"g": "f"}, decision="s", outcome="y")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        s = PrincipalFairness(definitions=2).run(data).summary()
    row = s[s.definition == 4].iloc[0]
    assert row.verdict.startswith("undefined") and "nan" not in row.evidence


# ---------------------------------------------------------------------------- one verb
def test_run_accepts_a_table_with_roles_from_the_constructor(table4_data):
    frame = table4_data.frame
    pf = PrincipalFairness(definitions=[1, 2], protected={"g": "f"}, decision="s", outcome="y")
    from_table = pf.run(frame)
    from_data = PrincipalFairness(definitions=[1, 2]).run(table4_data)
    pd.testing.assert_frame_equal(from_table.summary(), from_data.summary())
    np.testing.assert_array_equal(from_table.counts, from_data.counts)
    assert from_table.decision == "s" and from_table.outcome == "y"
    # the repair takes a table too
    np.testing.assert_array_equal(pf.repair(frame).repaired, PrincipalFairness(
        definitions=[1, 2]).repair(table4_data).repaired)  # fmt: skip


def test_run_on_a_table_with_string_favourable_values():
    df = _frame().assign(s=lambda d: np.where(d.s == 1, "yes", "no"))
    pf = PrincipalFairness(protected={"g": "f"}, decision="s", outcome="y", favorable="yes")
    ref = PrincipalFairness(protected={"g": "f"}, decision="s", outcome="y").run(_frame())
    np.testing.assert_array_equal(pf.run(df).counts, ref.counts)


def test_constructor_roles_override_the_audit_data():
    df = _frame().assign(s2=lambda d: 1 - d.s)
    data = AuditData(df, features={}, protected={"g": "f"}, decision="s", outcome="y")
    res = PrincipalFairness(decision="s2").run(data)
    # S and S2 are complements: counts n[c, a, s, y] swap along s
    ref = PrincipalFairness().run(data)
    np.testing.assert_array_equal(res.counts, ref.counts[:, :, ::-1, :])
    # protected as a mapping with an AuditData replaces its protected attribute: m becomes A=0
    swapped = PrincipalFairness(protected={"g": "m"}).run(data)
    assert (swapped.a0, swapped.a1) == ("m", "f")


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({}, "with a table, give the roles"),
        ({"protected": {"g": "f"}}, "give decision=COLUMN and outcome=COLUMN"),
        ({"protected": {"g": "f"}, "decision": "s"}, "give outcome=COLUMN"),
        ({"protected": "g", "decision": "s", "outcome": "y"}, "with a table, give the roles"),
    ],
)
def test_run_on_a_table_without_roles_names_what_is_missing(kwargs, message):
    with pytest.raises(InputError, match=message):
        PrincipalFairness(**kwargs).run(_frame())


def test_run_refuses_what_is_not_a_table():
    pf = PrincipalFairness(protected={"g": "f"}, decision="s", outcome="y")
    with pytest.raises(InputError, match="data must be a pandas/polars/pyarrow table"):
        pf.run(42)


def test_evaluate_is_a_deprecated_alias_of_run(table4_data):
    pf = PrincipalFairness(definitions=2)
    with pytest.warns(DeprecationWarning, match="use PrincipalFairness.run"):
        old = pf.evaluate(table4_data)
    pd.testing.assert_frame_equal(old.to_frame(), pf.run(table4_data).to_frame())


# ---------------------------------------------------------------------------- constraints
def test_every_declared_constraint_rejects_an_invalid_value(table4_data):
    from primafacie.validation import invalid_value

    constraints = PrincipalFairness._parameter_constraints
    assert {"definition", "n_boot", "joint", "level", "empty_cells", "min_group"} <= set(
        constraints
    )
    for name, cons in constraints.items():
        bad = invalid_value(cons)
        with pytest.raises(InputError, match=rf"^PrincipalFairness: {name} must be .*; got "):
            PrincipalFairness(**{name: bad}).run(table4_data)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (
            {"n_boot": -1},
            r"n_boot must be an integer in \[0, 100000\]; got -1 \(--n-boot, analyses.principal.n_boot\)",
        ),
        ({"level": 1.0}, r"level must be a number in \(0, 1\); got 1.0"),
        ({"empty_cells": "drop"}, r"empty_cells must be one of 'error', 'skip'; got 'drop'"),
        (
            {"definitions": [1, 3]},
            r"definitions must be 1 or 2 \(or a list of both\); got \[1, 3\]",
        ),
        ({"definition": []}, r"definition must be None or 1 or 2"),
        (
            {"covariates": ["x", 2]},
            r"covariates must be a column name or a list of them; got \['x', 2\]",
        ),
        ({"seed": -3}, r"seed must be None or an integer ≥ 0; got -3"),
    ],
)
def test_constraint_messages_name_value_and_flag(table4_data, kwargs, message):
    with pytest.raises(InputError, match=message):
        PrincipalFairness(**kwargs).run(table4_data)


def test_principal_arrays_checks_the_same_constraints():
    a = np.array([0, 1] * 4)
    with pytest.raises(
        InputError, match=r"^principal_arrays: n_boot must be an integer in \[0, 100000\]"
    ):
        principal_arrays(a, a, a, n_boot=-2)
    with pytest.raises(InputError, match=r"^principal_arrays: level must be a number in \(0, 1\)"):
        principal_arrays(a, a, a, level=0)


def test_definition_is_a_deprecated_name_of_definitions(table4_data):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # the new name warns nothing
        new = PrincipalFairness(definitions=[1, 2]).run(table4_data)
    with pytest.warns(DeprecationWarning, match=r"definition=\.\.\.\) is deprecated.*use "
                                                r"definitions="):  # fmt: skip
        old = PrincipalFairness(definition=[1, 2]).run(table4_data)
    pd.testing.assert_frame_equal(new.summary(), old.summary())


def test_several_protected_and_reference_values_are_pooled_and_named():
    # race b and o protected, w and h the reference, x left out: the comparison is binary
    # by construction; every number equals a direct run on the pooled 0/1 column
    rng = np.random.default_rng(3)
    n = 600
    race = rng.choice(list("bowhx"), n)
    y = rng.integers(0, 2, n)
    s = (rng.random(n) < np.where(np.isin(race, ["b", "o"]), 0.3, 0.6)).astype(int)
    df = pd.DataFrame({"race": race, "s": s, "y": y})
    data = AuditData(df, features={}, decision="s", outcome="y", protected={
        "race": {"values": ["b", "o"], "reference": ["w", "h"]}})  # fmt: skip
    res = PrincipalFairness(definitions=[1, 2]).run(data)
    assert (res.a0, res.a1) == ("b, o (pooled)", "h, w (pooled)")
    kept = df[df["race"] != "x"]
    direct_data = AuditData(
        kept.assign(pooled=np.where(kept["race"].isin(["b", "o"]), "p", "r")).drop(columns="race"),
        features={}, decision="s", outcome="y", protected={"pooled": "p"},
    )  # fmt: skip
    direct = PrincipalFairness(definitions=[1, 2]).run(direct_data)
    assert res.n_protected == direct.n_protected == int(np.isin(race, ["b", "o"]).sum())
    cols = ["definition", "quantity", "estimate", "lower", "upper"]
    pd.testing.assert_frame_equal(res.to_frame()[cols], direct.to_frame()[cols])
    assert "b, o (pooled), A=0" in res.scope()
    # without a reference the attribute is not binary: refused, naming the reference fix
    with pytest.raises(InputError, match=r"To fix: give a reference \(protected: \{race: \{values"):
        PrincipalFairness().run(AuditData(df, features={}, decision="s", outcome="y",
                                          protected={"race": ["b", "o"]}))  # fmt: skip


def test_highest_reference_pools_the_protected_values():
    df = pd.DataFrame({"race": list("bowwhh") * 20, "s": [0, 1, 1, 1, 0, 1] * 20,
                       "y": [1, 0, 1, 1, 0, 0] * 20})  # fmt: skip
    data = AuditData(df, features={}, decision="s", outcome="y", protected={
        "race": {"values": ["b", "o"], "reference": "highest"}})  # fmt: skip
    res = PrincipalFairness().run(data)
    # w selects 2 of 2 per block, h 1 of 2: w is the reference; b and o pooled
    assert (res.a0, res.a1) == ("b, o (pooled)", "w")
    assert res.n_protected == 40 and res.n_others == 40
