"""Robustness of CST verdicts to the causal model (primafacie.situation.sensitivity)."""

from __future__ import annotations

import json
from dataclasses import replace

import jsonschema
import numpy as np
import pandas as pd
import pytest

from primafacie.analysis import Context
from primafacie.causal import SCM
from primafacie.causal.graph import DAG
from primafacie.datasets.credit_world import CREDIT_EDGES
from primafacie.datasets.loan_world import LOAN_EDGES, loan_world_data
from primafacie.decisions import Rule
from primafacie.errors import InputError
from primafacie.report.schema import RESULTS_SCHEMA
from primafacie.situation import analysis as situation_analysis
from primafacie.situation.engine import SituationTest, restricted_run
from primafacie.situation.sensitivity import (
    SensitivityResult,
    SensitivitySpec,
    Variant,
    _Part,
    candidate_edges,
    run_sensitivity,
    variant_scm,
    variants,
)
from primafacie.situation.spec import SituationSpec

K = [15, 30, 50]
REMOVE_SALARY = "remove Gender -> AnnualSalary"


@pytest.fixture(scope="module")
def loan():
    """The loan world (5000 draws, seed 0), its fitted Figure 1 SCM and a CST run with state."""
    data = loan_world_data(n=5000, seed=0)
    scm = SCM(LOAN_EDGES).fit(data)
    engine = SituationTest(methods=["st", "cst"], k=K)
    res = engine.run(data, scm=scm, keep_state=True)
    state = engine.state_
    return data, scm, engine, res, state


def _significant(res, method: str) -> dict[int, int]:
    s = res.summary()
    s = s[s["method"] == method]
    return dict(zip(s["k"].tolist(), s["n_significant"].tolist(), strict=True))


def test_removing_gender_to_salary_shrinks_cst_cases_as_the_scm_predicts(loan):
    """Hand-checked expectation from the loan world's equations (module loan_world):

    X1 = −1500·Poi(10)·A + U1, X2 = −300·χ²(4)·A + 0.3·X1 + U2, approved when X1 + 5·X2 > 225000.
    The fitted Figure 1 SCM moves a woman's counterfactual centre by −β(A→X1) ≈ +15000 on
    salary and by −β(A→X2) − 0.3·β(A→X1) ≈ 1200 + 4500 on balance: a score gain of about
    15000 + 5·5700 = 43500. Without Gender → AnnualSalary, salary has no parent (it never
    changes) and balance keeps its parents {Gender, AnnualSalary}, hence the SAME fitted
    equation: the centre moves by the direct effect only, +1200 on balance, a score gain of
    about 6000. The test groups then sit much closer to the factual ones (ST's, shift 0), so
    the significant CST cases shrink towards ST's: ST ≤ removed < audited at every k, and no
    verdict becomes significant (every centre moves the same way, only less far).
    """
    data, scm, engine, res, state = loan
    variant = next(v for v in variants(LOAN_EDGES, "Gender") if v.name == REMOVE_SALARY)
    alt = variant_scm(scm, variant, "Gender").fit(data)
    women = data.protected_mask("Gender")
    cf = alt.counterfactual(data.frame, intervention={"Gender": 0}, rows=women)
    # salary is exogenous in the variant: unchanged for every woman
    assert np.array_equal(cf["AnnualSalary"].to_numpy(), data.frame["AnnualSalary"].to_numpy())
    # balance moves by the audited direct effect, the same constant for every woman
    coef = scm.coefficients().set_index(["node", "term"])["coef"]
    direct = -coef[("AccountBalance", "Gender[1]")]
    shift = (cf["AccountBalance"] - data.frame["AccountBalance"]).to_numpy()[women]
    np.testing.assert_allclose(shift, direct, rtol=1e-9)
    assert direct == pytest.approx(300 * 4, abs=300)  # 300·E[χ²(4)], ±4 standard errors
    assert -coef[("AnnualSalary", "Gender[1]")] == pytest.approx(1500 * 10, abs=1500)

    spec = SensitivitySpec(mechanisms=[])  # the edge variants (mechanisms: see determinism)
    sens = run_sensitivity(spec, {"single_Gender": (engine, res, state)}, scm)
    summ = sens.summary()
    removed = summ[summ["variant"] == REMOVE_SALARY].set_index("k")
    st, cst = _significant(res, "st"), _significant(res, "cst")
    for k in K:
        assert st[k] <= removed.loc[k, "significant"] < cst[k]
        assert removed.loc[k, "gained"] == 0
        assert removed.loc[k, "lost"] == cst[k] - removed.loc[k, "significant"]
    # the shared search spaces give exactly what a fresh run with that SCM gives
    fresh = SituationTest(methods="cst", k=K).run(data, scm=SCM(list(variant.edges)).fit(data))
    assert removed["significant"].to_dict() == _significant(fresh, "cst")


def test_rerun_with_the_same_scm_is_the_audited_run(loan):
    data, scm, engine, res, state = loan
    again = engine.rerun_counterfactual(state, scm=scm, methods=["cst"])
    cst = res.table[res.table["method"] == "cst"].reset_index(drop=True)
    pd.testing.assert_frame_equal(again.table, cst)


def test_without_the_only_edge_from_the_protected_attribute_cst_equals_st():
    """Graph Gender → AnnualSalary → AccountBalance: removing the only edge out of Gender
    leaves Gender out of the graph, so it causes nothing, x^CF = x and CST is ST, exactly and
    per complainant."""
    data = loan_world_data(n=1500, seed=3)
    edges = [("Gender", "AnnualSalary"), ("AnnualSalary", "AccountBalance")]
    scm = SCM(edges).fit(data)
    engine = SituationTest(methods=["st", "cst"], k=[10, 20])
    res = engine.run(data, scm=scm, keep_state=True)
    state = engine.state_
    variant = variants(edges, "Gender", mechanisms=[])[0]
    assert variant.name == REMOVE_SALARY and variant_scm(scm, variant, "Gender") is None
    frame = data.frame.drop(columns=["LoanApproval"])
    cst = engine.rerun_counterfactual(state, counterfactuals=frame, methods=["cst"]).table
    st = res.table[res.table["method"] == "st"].reset_index(drop=True)
    cols = ["k", "row", "k_c", "neg_c", "k_t", "neg_t", "p_c", "p_t", "delta", "significant"]
    pd.testing.assert_frame_equal(cst[cols], st[cols])
    # and the sensitivity result says so: the variant overturns exactly where ST ≠ CST
    spec = SensitivitySpec(edges_added=0, mechanisms=[])
    sens = run_sensitivity(spec, {"single_Gender": (engine, res, state)}, scm).to_frame()
    audited = res.table[res.table["method"] == "cst"].reset_index(drop=True)
    differs = st["significant"].to_numpy() != audited["significant"].to_numpy()
    assert differs.any()
    by_variant = sens["overturned_by"].str.split("; ").map(lambda names: REMOVE_SALARY in names)
    np.testing.assert_array_equal(by_variant.to_numpy(), differs)


def test_candidate_edges_by_hand():
    # a -> x -> y <- c: descendants of a are x, y; sources a, x, c, y (topological a, x, c, y)
    # a -> y is new; c -> x is new; y -> x would close x -> y -> x; the others exist
    assert candidate_edges([("a", "x"), ("x", "y"), ("c", "y")], "a") == [("a", "y"), ("c", "x")]
    assert candidate_edges([("a", "x"), ("x", "y"), ("c", "y")], "a", limit=1) == [("a", "y")]
    assert candidate_edges(LOAN_EDGES, "Gender") == []  # the loan graph is complete
    with pytest.raises(InputError, match="'z'"):
        candidate_edges(LOAN_EDGES, "z")


@pytest.mark.parametrize("attribute", ["gender", "race"])
def test_candidate_edges_never_create_a_cycle_and_are_ordered(attribute):
    found = candidate_edges(CREDIT_EDGES, attribute)
    dag = DAG.from_edges(CREDIT_EDGES)
    rank = {v: i for i, v in enumerate(dag.order)}
    desc = set(dag.descendants(attribute))
    assert found, "the credit graph has missing edges"
    for edge in found:
        DAG.from_edges([*CREDIT_EDGES, edge])  # raises on a cycle
        assert edge not in CREDIT_EDGES and edge[1] in desc
    assert found == sorted(found, key=lambda e: (rank[e[0]], rank[e[1]]))
    assert candidate_edges(list(CREDIT_EDGES), attribute) == found  # same graph, same order
    names = [v.name for v in variants(CREDIT_EDGES, attribute, edges_added=3)]
    assert names[len(CREDIT_EDGES) : len(CREDIT_EDGES) + 3] == [
        f"add {a} -> {b}" for a, b in found[:3]
    ]


def test_variants_order_and_mechanism_skip():
    found = variants(
        [("g", "s"), ("s", "b")], "g", mechanism="linear", graphs=[[("g", "b"), ("s", "b")]]
    )
    assert [(v.name, v.kind) for v in found] == [
        ("remove g -> s", "edge removed"),
        ("remove s -> b", "edge removed"),
        ("add g -> b", "edge added"),
        ("mechanism gradient_boosting", "mechanism"),
        ("mechanism random_forest", "mechanism"),
        ("graph 1", "graph"),
    ]
    assert found[0].edges == (("s", "b"),) and found[2].edges[-1] == ("g", "b")


def test_determinism_on_rerun():
    data = loan_world_data(n=600, seed=4)
    scm = SCM(LOAN_EDGES).fit(data)
    # random_forest (seeded) stands for the estimator mechanisms: HistGradientBoosting takes
    # ~30 s on a loaded 2-core machine (OpenMP threads), even on 600 rows
    spec = SensitivitySpec(mechanisms=["random_forest"])
    out = []
    for _ in range(2):
        engine = SituationTest(methods=["st", "cst"], k=[10, 20])
        res = engine.run(data, scm=scm, keep_state=True)
        state = engine.state_
        out.append(run_sensitivity(spec, {"single_Gender": (engine, res, state)}, scm))
    one, two = out
    pd.testing.assert_frame_equal(one.to_frame(), two.to_frame())
    assert json.dumps(one.to_dict(), sort_keys=True) == json.dumps(two.to_dict(), sort_keys=True)


def _constructed() -> SensitivityResult:
    """Three complainants (rows 10, 20, 30), k ∈ {5, 10}, three variants."""
    t, f = True, False
    v1 = Variant("remove x -> y", "edge removed", (("a", "x"),), "linear", ("x", "y"))
    v2 = Variant("add a -> y", "edge added", (("a", "x"), ("x", "y"), ("a", "y")), "linear", ("a", "y"))  # fmt: skip
    v3 = Variant("mechanism random_forest", "mechanism", (("a", "x"), ("x", "y")), "random_forest")
    base = np.array([[t, f, t], [t, f, f]])
    sig = np.array(
        [
            [[f, f, t], [t, f, f]],  # v1 overturns row 10 at k=5
            [[t, f, t], [t, t, f]],  # v2 overturns row 20 at k=10
            [[f, f, t], [t, f, t]],  # v3 overturns row 10 at k=5 and row 30 at k=10
        ]
    )
    part = _Part(
        test="single_a",
        attribute="a",
        method="cst",
        ks=[5, 10],
        rows=np.array([10, 20, 30]),
        ids=np.array(["p", "q", "r"], dtype=object),
        base=base,
        sig=sig,
        variants=[v1, v2, v3],
    )
    return SensitivityResult(parts=[part], params={})


def test_overturning_on_a_constructed_case():
    sens = _constructed()
    assert sens.overturning(10) == ["remove x -> y", "mechanism random_forest"]
    assert sens.overturning(20) == ["add a -> y"]
    assert sens.overturning(30) == ["mechanism random_forest"]
    assert sens.overturning(30, test="single_a") == ["mechanism random_forest"]
    with pytest.raises(InputError, match="row 99 is not a complainant"):
        sens.overturning(99)
    with pytest.raises(InputError, match="'single_b'"):
        sens.overturning(10, test="single_b")


def test_tables_on_a_constructed_case():
    sens = _constructed()
    summ = sens.summary().set_index(["variant", "k"])
    # by hand from _constructed: (significant, gained, lost, unchanged) of 3 complainants
    expected = {
        ("as audited", 5): (2, 0, 0, 3),
        ("as audited", 10): (1, 0, 0, 3),
        ("remove x -> y", 5): (1, 0, 1, 2),
        ("remove x -> y", 10): (1, 0, 0, 3),
        ("add a -> y", 5): (2, 0, 0, 3),
        ("add a -> y", 10): (2, 1, 0, 2),
        ("mechanism random_forest", 5): (1, 0, 1, 2),
        ("mechanism random_forest", 10): (2, 1, 0, 2),
    }
    for key, values in expected.items():
        assert tuple(summ.loc[key, ["significant", "gained", "lost", "unchanged"]]) == values
    robust = sens.robust_counts().set_index("k")
    assert robust.loc[5, "robust"] == 1 and robust.loc[10, "robust"] == 1  # rows 30 and 10
    frame = sens.to_frame().set_index(["row", "k"])
    assert frame.loc[(10, 5), "n_same"] == 1 and frame.loc[(30, 5), "robust"]
    assert frame.loc[(10, 5), "overturned_by"] == "remove x -> y; mechanism random_forest"
    single = sens.single_edge()
    assert single[["row", "k", "edge", "change"]].values.tolist() == [
        [10, 5, "x -> y", "edge removed"],
        [20, 10, "a -> y", "edge added"],
    ]
    assert sens.headline().startswith(
        "1 of the 1 CST without centres cases (k=10) significant before any adjustment across "
        "complainants are robust"
    )
    assert "1 verdict at k=10 depends on a single edge" in sens.headline()


def test_spec_defaults_and_errors():
    assert SituationSpec(sensitivity=True).sensitivity == SensitivitySpec()
    assert SituationSpec(sensitivity=False).sensitivity is None
    assert SituationSpec().sensitivity is None
    d = SensitivitySpec()
    assert (d.edges_removed, d.edges_added, d.mechanisms, d.graphs) == (
        True,
        10,
        ["linear", "gradient_boosting", "random_forest"],
        [],
    )
    with pytest.raises(ValueError, match="edges_added"):
        SensitivitySpec(edges_added=-1)
    with pytest.raises(ValueError, match="graph 1: .*listed twice"):
        SensitivitySpec(graphs=[[("a", "b"), ("a", "b")]])
    with pytest.raises(ValueError, match="mechanisms"):
        SensitivitySpec(mechanisms=["svm"])


def test_check_needs_a_counterfactual_method():
    class Cfg:
        protected = {"Gender": 1}
        causal = object()

        class decision:  # noqa: N801 - mimics cfg.decision.column
            column = None

    spec = SituationSpec(methods=["st"], sensitivity=True)
    with pytest.raises(InputError, match="analyses.situation.sensitivity"):
        situation_analysis.check(spec, Cfg)


def test_audit_run_tables_section_and_schema():
    data = loan_world_data(n=800, seed=2)
    scm = SCM(LOAN_EDGES).fit(data)
    spec = SituationSpec(k=[10, 20], methods=["st", "cst"], sensitivity={"mechanisms": ["linear"]})
    run = situation_analysis.run(spec, Context(config=None, data=data, scm=scm))
    assert set(run.results) == {"single_Gender", "sensitivity"}
    sens = run.results["sensitivity"]
    for stem in ("", "_summary", "_single_edge", "_variants", "_robust"):
        assert f"situation_sensitivity{stem}" in run.tables
    assert "Robustness: " in run.headline and run.numbers["robust"][-1]["k"] == 20
    # the test counts are unchanged by the sensitivity result
    assert set(run.numbers["by_test"][0]) >= {"method", "k"}
    assert {r["test"] for r in run.numbers["by_test"]} == {"single_Gender"}
    body = situation_analysis.section(run, data, {})
    texts = [b.get("text") for b in body["blocks"] if b["kind"] == "heading"]
    assert "How robust is this?" in texts
    record = run.to_dict()
    schema = RESULTS_SCHEMA["properties"]["analyses"]["additionalProperties"]
    jsonschema.Draft202012Validator(schema).validate(json.loads(json.dumps(record)))
    broken = json.loads(json.dumps(record))
    del broken["results"]["sensitivity"]["robust"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(schema).validate(broken)
    assert sens.overturning(int(sens.to_frame()["row"].iloc[0])) is not None


@pytest.mark.parametrize("legacy", [False, True])
def test_restricted_run_is_the_run_with_the_complainant_mask(legacy):
    """restricted_run reuses a run's searches for a subset of its complainants (the multiple
    scenario of the CST law tables, issue 22); with other statistics settings (α/2) it must
    give exactly the table of a fresh run with that mask."""
    data = loan_world_data(n=900, seed=5)
    scm = SCM(LOAN_EDGES).fit(data)
    settings = dict(methods=["st", "cst", "cst_centers", "cf"], k=[5, 12], legacy=legacy)
    if legacy:
        settings["interval"] = "wald"
    engine = SituationTest(**settings)
    rule = Rule("AnnualSalary + 5 * AccountBalance > 225000")
    engine.run(data, scm=scm, decider=rule, keep_state=True)
    mask = np.arange(data.n) % 3 == 1
    half = SituationTest(**settings, alpha=0.025)
    fresh = half.run(data, scm=scm, decider=rule, complainant_mask=mask)
    got = restricted_run(half, engine.state_, mask, scm=scm, decider=rule)
    assert 0 < got.n_complainants < engine.state_.plan.comp_rows.size
    pd.testing.assert_frame_equal(got.table, fresh.table)
    assert got.params == fresh.params
    # a complainant the state never tested is refused, not silently dropped
    with pytest.raises(InputError, match="not a subset"):
        state = engine.state_
        fewer = replace(state, plan=replace(state.plan, comp_rows=state.plan.comp_rows[::2]))
        restricted_run(half, fewer, mask, scm=scm)
