"""FACTS on Adult (protected = sex), spec §6.1–6.3 and §8. The audit runs once per module.

Tolerances (ours): Table 12 counts ±10% (spec §7: the reference code itself lands at +8.9%);
accuracy ±0.01; CSC percentages ±5 percentage points (our LogisticRegression is fitted to
convergence and the split row order follows the fairtest copy; the authors' exact model is not
reproducible, spec §7).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from primafacie.errors import InputError
from primafacie.experiments import get_experiment
from primafacie.experiments.facts import (
    ADULT_TABLE1,
    adult_setting,
    compare_adult,
    run_adult,
    write_adult_outputs,
)

SG1, SG2, SG3 = ADULT_TABLE1
FIG2 = "hours-per-week=FullTime; marital-status=Married-civ-spouse; occupation=Adm-clerical"


@pytest.fixture(scope="module")
def adult(require_data, data_dir, run_adult_audit_shared):
    require_data("adult", "adult.data")
    require_data("adult", "adult.test")
    audit, model, X_test, y_test, acc = run_adult_audit_shared(data_dir)
    result = audit.score(phi=(0.3, 0.7), budgets="auto")
    return audit, X_test, y_test, acc, result


def test_registered():
    assert get_experiment("facts-adult") is run_adult
    with pytest.raises(InputError, match="protected must be 'sex' or 'race'"):
        adult_setting("age")
    with pytest.raises(InputError, match="does not support"):
        run_adult(None, ".", legacy=False, tau=0.1)


def test_data_and_model(adult):
    audit, X_test, y_test, acc, _ = adult
    assert len(X_test) == 13_567
    assert int((y_test == 0).sum()) == 10_205  # App. F "affected" = true-label-0 count
    assert acc == pytest.approx(0.85, abs=0.01)
    assert 10_500 <= audit.stats_["affected"] <= 10_900  # notebooks: ≈10.7–10.8K predicted


@pytest.mark.parametrize(
    "key,paper",
    [
        ("subgroups[Male]", 27_510),
        ("subgroups[Female]", 28_176),
        ("actions", 57_008),
        ("common_subgroups", 13_300),
        ("valid_pairs", 97_413),
        ("subgroups", 12_556),
    ],
)
def test_table12_counts(adult, key, paper):
    audit = adult[0]
    assert audit.stats_[key] == pytest.approx(paper, rel=0.10)


def test_budgets_automatic_rule(adult):
    budgets = adult[4].budgets
    assert len(budgets) == 3
    assert budgets[0] == pytest.approx(5.08, abs=0.05)
    assert budgets[1] == pytest.approx(10.0)
    assert 15.0 <= budgets[2] <= 20.0  # paper 18 (our 90th percentile: 15.15)


def test_table1_subgroup3_ece03_rank1_inf_against_female(adult):
    res = adult[4]
    row = res.cross_table([SG3]).set_index("label")
    assert row.loc["Ma.3", "SG1 rank"] == 1
    assert row.loc["Ma.3", "SG1 bias"] == "Female"
    assert row.loc["Ma.3", "SG1 score"] == "inf"
    # same subgroup: Fair under ECR(0.7), ECE(0.7) and E(C)MR as in Table 1
    for label in ("C.7", "Ma.7", "MR"):
        assert row.loc[label, "SG1 rank"] == "Fair"
    for label in ("EE", "KS"):
        assert row.loc[label, "SG1 bias"] == "Female"
        assert float(row.loc[label, "SG1 score"]) == pytest.approx(0.32, abs=0.05)


def test_table1_subgroup2_ecr07_against_female(adult):
    """Paper: rank 1, score 6. The LogisticRegression fitted in the authors' declared environment
    (``tools/facts_authors_env.py``, 2026-11-22), audited by this pipeline, also gives rank 3,
    score 4 against Female, as our exact optimum does."""
    row = adult[4].cross_table([SG2]).set_index("label")
    assert row.loc["C.7", "SG1 bias"] == "Female"
    assert row.loc["C.7", "SG1 rank"] == 3
    assert int(row.loc["C.7", "SG1 score"]) == 4
    assert row.loc["C.3", "SG1 bias"] == "Female"


def test_table1_subgroup1_ece07_fair_as_in_authors_environment(adult):
    """Paper: SG1 rank 1 under ECE(0.7), +inf against Male (Fig. 3: 43/61 women flip by marrying).

    Not reproducible from the released pipeline. Its LogisticRegression fitted in the authors'
    declared environment (Python 3.9, scikit-learn 1.1.3, scipy 1.11.3, numpy 1.24.2, pandas
    1.5.3, OmniXAI 1.2.5 TabularTransform; measured 2026-11-22, ``tools/facts_authors_env.py``)
    gives the same counts as ours: the best action (marry) flips 35 of 68 women and 29 of 67 men,
    both below 0.7, so both sides are +inf and the cell is Fair.
    """
    row = adult[4].cross_table([SG1]).set_index("label")
    assert row.loc["Ma.7", "SG1 rank"] == "Fair"
    csc = adult[0].csc("ECE", phi=0.7, subgroups=[SG1], show="all")
    (rec,) = csc.records
    best = {g.group: max(g.actions, key=lambda a: a.effectiveness) for g in rec.groups if g.actions}
    for group, (flipped, n) in {"Female": (35, 68), "Male": (29, 67)}.items():
        assert best[group].changes == {
            "marital-status": "Married-civ-spouse",
            "relationship": "Married",
        }
        assert best[group].effectiveness == pytest.approx(flipped / n, abs=1e-12)
        assert [g.n for g in rec.groups if g.group == group] == [n]


def test_paper_fig3_coverages_are_not_one_affected_set(adult):
    """Why Table 1's SG1/SG2 cells cannot be matched: Fig. 3's own numbers are inconsistent.

    Coverage is |G ∩ D_Female| / |D_Female| (the reference code's ``ifsupps``), so every female
    coverage in the figure must share one denominator. SG1's 70.49% = 43/61 at 1.47% covered puts
    |D_Female| in [4136, 4163]; SG2's 74.51% = 38/51 at 3.51% puts it near 1,453 (51 is the only
    denominator of 74.51% that fits, since the test split holds only 60 SG2 women; 102, 153 or 204
    members, possible only in another split, would need about 2,906, 4,359 or 5,812). Independently
    of the model, a classifier with accuracy ≥ 0.845 leaves at least 4,480 − (541 + 2,102) women
    affected, so SG2's female coverage cannot exceed 60 / 1,837 = 3.27% < 3.51%.
    """
    _, X_test, y_test, _, _ = adult
    items = dict(part.split("=", 1) for part in SG2.split("; "))
    in_sg2 = np.ones(len(X_test), dtype=bool)
    for col, val in items.items():
        in_sg2 &= (X_test[col].astype(str) == val).to_numpy()
    women = (X_test["sex"] == "Female").to_numpy()
    n_sg2_women = int((in_sg2 & women).sum())
    assert n_sg2_women == 60
    # the only denominators of 74.51% (38/51, 76/102, ...) that fit in 60 rows
    fits = [n for n in range(1, n_sg2_women + 1) if round(100 * round(0.7451 * n) / n, 2) == 74.51]
    assert fits == [51]
    lo_sg1 = min(n for n in range(3000, 6000) if round(100 * 61 / n, 2) == 1.47)
    hi_sg1 = max(n for n in range(3000, 6000) if round(100 * 61 / n, 2) == 1.47)
    assert (lo_sg1, hi_sg1) == (4136, 4163)
    # no single |D_Female| fits both, whatever the split: SG2's group size is a multiple of 51
    for size in (51, 102, 153, 204):
        fit = [n for n in range(1000, 8000) if round(100 * size / n, 2) == 3.51]
        assert fit and (max(fit) < lo_sg1 or min(fit) > hi_sg1)
    errors = int(0.155 * len(X_test))
    positives = int((women & (y_test.to_numpy() == 1)).sum())
    min_affected = int(women.sum()) - (positives + errors)
    assert (positives, errors, min_affected) == (541, 2102, 1837)
    assert n_sg2_women / min_affected < 0.0351


def _shown(csc, group):
    (rec,) = csc.records
    (g,) = [g for g in rec.groups if g.group == group]
    return {"; ".join(f"{k}={v}" for k, v in a.changes.items()): a.effectiveness for a in g.actions}


def test_fig3_subgroup2_male_actions(adult):
    audit = adult[0]
    csc = audit.csc("ECR", phi=0.7, subgroups=[SG2])
    male = _shown(csc, "Male")
    for hpw in ("OverTime", "BrainDrain"):
        key = f"hours-per-week={hpw}; occupation=Exec-managerial"
        assert 100 * male[key] == pytest.approx(70.0, abs=5)  # paper 70.00%
    assert 100 * max(male.values()) == pytest.approx(80.0, abs=5)  # paper 80% (Self-emp-inc)
    assert "Bias against Female due to Equal Choice for Recourse (threshold = 0.7)" in csc.text


def test_fig3_subgroup3_occupation_actions(adult):
    audit = adult[0]
    csc = audit.csc("ECE", phi=0.3, subgroups=[SG3], show="all")
    male, female = _shown(csc, "Male"), _shown(csc, "Female")
    assert 100 * male["occupation=Exec-managerial"] == pytest.approx(39.74, abs=5)
    assert 100 * male["occupation=Craft-repair"] == 0.0
    assert 100 * male["occupation=Adm-clerical"] == 0.0
    assert 100 * male["occupation=Prof-specialty"] == pytest.approx(28.21, abs=8)
    assert 100 * max(female.values()) == pytest.approx(6.94, abs=5)
    assert max(female.values()) < 0.3 <= max(male.values())
    assert csc.text.rstrip().endswith(
        "Bias against Female due to Equal Cost of Effectiveness (threshold = 0.3). "
        "Unfairness score = inf."
    )
    assert "Protected Subgroup = 'Male', " in csc.text and "% covered" in csc.text


def test_fig2_subgroup_same_cheapest_male_action(adult):
    audit = adult[0]
    male = _shown(audit.csc("ECE", phi=0.7, subgroups=[FIG2], show="all"), "Male")
    best = max(male, key=male.get)
    assert best in ("hours-per-week=OverTime; occupation=Exec-managerial",
                    "hours-per-week=BrainDrain; occupation=Exec-managerial")  # fmt: skip
    assert 100 * male[best] == pytest.approx(72.0, abs=8)  # paper 72.00%


def test_rank1_ties_and_top10_bias(adult):
    """Claims (b), (c): cost-based definitions tie by the hundreds, effectiveness ones ~1."""
    analysis = adult[4].ranking_analysis().set_index("metric")
    for label in ("Ma.3", "Mi.3", "Ma.7", "Mi.7", "MR"):
        assert analysis.loc[label, "rank1"] >= 100
    for label in ("EE", "B10", "KS"):
        assert analysis.loc[label, "rank1"] <= 5
        assert (
            analysis.loc[label, "top10_against[Female]"]
            > 5 * analysis.loc[label, "top10_against[Male]"]
        )
    # robustness to gerrymandering: some top subgroups are biased against Male
    assert analysis["top10_against[Male]"].sum() > 0


def test_aggregated_rankings_disagree(adult):
    """Claim (a): most off-diagonal values are far from 0; several are 1.0."""
    agg = adult[4].aggregated_rankings().to_numpy(dtype=float)
    off = agg[~np.isnan(agg)]
    assert (off == 1.0).sum() >= 5
    assert np.median(off) > 0.1


def test_outputs_written(adult, tmp_path):
    audit, X_test, y_test, acc, _ = adult
    main, stats = write_adult_outputs(audit, X_test, y_test, acc, tmp_path)
    table = pd.read_csv(main, keep_default_na=False)
    assert list(table.columns) == ["metric", "viewpoint", "param", "rank", "score",
                                   "bias_against", "subgroup"]  # fmt: skip
    top = table[(table.metric == "ECE") & (table.viewpoint == "macro") & (table.param == "0.3")]
    assert (top["rank"].astype(int) >= 1).all()
    assert np.isinf(top["score"].astype(float)).any()
    row = top[top.subgroup == SG3]
    assert row["rank"].astype(int).tolist() == [1] and row["bias_against"].tolist() == ["Female"]
    for sg in table["subgroup"].head(50):
        names = [part.split("=", 1)[0] for part in sg.split("; ")]
        assert names == sorted(names)
    s = pd.read_csv(stats).set_index("statistic")["value"]
    assert int(s["test_rows"]) == 13_567
    assert not s.index.str.startswith("seconds[").any()  # no timings: byte-identical reruns
    assert int(s["subgroups"]) == audit.stats_["subgroups"]
    assert math.isclose(float(s["accuracy"]), acc, abs_tol=1e-4)


@pytest.fixture(scope="module")
def adult_legacy(require_data, data_dir, run_adult_audit_shared):
    require_data("adult", "adult.data")
    require_data("adult", "adult.test")
    # the plain audit's fitted model (same data, seed and protected attribute): conftest.py
    audit, *_ = run_adult_audit_shared(data_dir, legacy=True)
    return audit, audit.score(phi=(0.3, 0.7), budgets="auto")


def test_legacy_feasibility_matches_reference_code_counts(adult_legacy):
    """Race mutable at weight 100 (reference code): spec §7 measured the authors' code at
    106,051 valid pairs and 12,871 subgroups with an action (±3% here: same data, other LR)."""
    audit, result = adult_legacy
    assert audit.stats_["valid_pairs"] == pytest.approx(106_051, rel=0.03)
    assert audit.stats_["subgroups"] == pytest.approx(12_871, rel=0.03)
    budgets = result.budgets
    assert budgets[0] == pytest.approx(5.08, abs=0.1) and budgets[1] == pytest.approx(10.0)
    assert budgets[2] == pytest.approx(18.0, abs=2.0)  # paper ≈ 18


def test_legacy_feasibility_keeps_table1_rank1_cells(adult, adult_legacy):
    """Letting race change does not move any Table 1 rank-1 cell (SG3 ECE(0.3) stays inf
    against Female; SG2 ECR(0.7) and SG1 ECE(0.7) stay as in the default run)."""
    plain = adult[4].cross_table(list(ADULT_TABLE1)).set_index("label")
    legacy = adult_legacy[1].cross_table(list(ADULT_TABLE1)).set_index("label")
    for label, sg in (("Ma.7", "SG1"), ("C.7", "SG2"), ("Ma.3", "SG3")):
        for col in ("rank", "bias", "score"):
            assert legacy.loc[label, f"{sg} {col}"] == plain.loc[label, f"{sg} {col}"]
    assert legacy.loc["Ma.3", "SG3 rank"] == 1 and legacy.loc["Ma.3", "SG3 score"] == "inf"


RACE_SG3 = "hours-per-week=PartTime; marital-status=Divorced; native-country=United-States"


@pytest.fixture(scope="module")
def adult_race(require_data, data_dir, run_adult_audit_shared):
    require_data("adult", "adult.data")
    require_data("adult", "adult.test")
    audit, *_ = run_adult_audit_shared(data_dir, protected="race")
    return audit, audit.score(phi=(0.3, 0.7), budgets="auto")


@pytest.mark.parametrize(
    "key,paper,rel",
    [
        ("subgroups[White]", 27_767, 0.03),  # measured +1.0%
        ("subgroups[Non-White]", 24_664, 0.03),  # +0.2%
        ("actions", 56_394, 0.03),  # +1.1%
        ("common_subgroups", 18_692, 0.03),  # +0.9%
        pytest.param(
            "valid_pairs",
            112_879,
            0.10,
            marks=pytest.mark.xfail(
                strict=True,
                reason="measured +10.7%, outside spec §7's ±10% (effectiveness depends on the "
                "fitted model); compare_adult reports it as 'differs'",
            ),
        ),
        ("subgroups", 15_672, 0.10),  # +6.0%
    ],
)
def test_race_table12_counts(adult_race, key, paper, rel):
    """Adult with race binarised to White / Non-White (Table 12, second column).

    Spec §7 states ±10% for Table 12; a count outside it is an expected failure, never a wider
    tolerance."""
    assert adult_race[0].stats_[key] == pytest.approx(paper, rel=rel)


def test_race_fig4_subgroup3(adult_race):
    """Fig. 4 SG3: Non-White 1.15% covered with no effective action, White helped by the same
    actions (paper up to 16.16%; ours has 16.16% = 16/99 among them); bias against Non-White."""
    audit, result = adult_race
    csc = audit.csc("MR", subgroups=[RACE_SG3], show="all")
    (rec,) = csc.records
    groups = {g.group: g for g in rec.groups}
    assert 100 * groups["Non-White"].coverage == pytest.approx(1.15, abs=0.05)
    assert max(a.effectiveness for a in groups["White"].actions) > max(
        a.effectiveness for a in groups["Non-White"].actions
    )
    assert groups["White"].n == 99
    assert any(round(100 * a.effectiveness, 2) == 16.16 for a in groups["White"].actions)
    row = result.cross_table([RACE_SG3]).set_index("label")
    assert row.loc["MR", "SG1 bias"] == "Non-White"
    for label in ("C.7", "Ma.7", "Mi.7"):
        assert row.loc[label, "SG1 rank"] == "Fair"  # Table 7: Fair under every 0.7 threshold


def test_compare_with_paper(adult, tmp_path):
    """Ours vs the paper: 30 Table 1 verdicts compared exactly, 26 agree (the 4 that do not are
    model-dependent cells, two of them the unattainable rank-1 claims); a perturbed count fails."""
    audit, X_test, y_test, acc, _ = adult
    write_adult_outputs(audit, X_test, y_test, acc, tmp_path)
    cmp = compare_adult(tmp_path)
    assert list(cmp.columns) == [
        "table",
        "quantity",
        "ours",
        "paper",
        "status",
        "tolerance",
        "note",
    ]
    by = cmp.set_index("quantity")
    assert by.loc["test rows", "status"] == "exact"
    assert (cmp[cmp.table == "Table 12"].status == "within tolerance").all()
    verdicts = cmp[cmp.quantity.str.endswith("verdict")]
    assert len(verdicts) == 30
    assert sorted(verdicts[verdicts.status == "differs"].quantity) == [
        "SG1 ECE(0.7) verdict", "SG1 ECR(0.7) verdict",
        "SG2 ECE(0.3) verdict", "SG3 ECR(0.3) verdict",
    ]  # fmt: skip
    assert by.loc["SG3 ECE(0.3) rank", "status"] == "exact"
    assert by.loc["SG1 ECE(0.7) rank", "status"] == "differs"
    assert by.loc["SG2 ECR(0.7) rank", "status"] == "differs"
    assert by.loc["SG1 EE rank", "status"] == "reference only"
    assert by.loc["budget 3", "status"] == "differs" and by.loc["budget 3", "note"]
    stats = pd.read_csv(tmp_path / "facts-adult-stats.csv")
    stats.loc[stats.statistic == "valid_pairs", "value"] = 200_000
    stats.to_csv(tmp_path / "facts-adult-stats.csv", index=False)
    assert compare_adult(tmp_path).set_index("quantity").loc["valid_pairs", "status"] == "differs"


def test_compare_labels_spec_values_as_spec(tmp_path):
    """The paper prints neither the test-split size, nor the LR accuracy, nor the budgets to two
    decimals (Table 1 heads c = 5/10/18); those reference values come from the spec and their
    rows say so. App. F does print the 10,205 affected."""
    from primafacie.experiments.facts import PAPER_TABLE12

    pd.DataFrame(
        columns=["metric", "viewpoint", "param", "rank", "score", "bias_against", "subgroup"]
    ).to_csv(tmp_path / "facts-adult.csv", index=False)
    stats = {"test_rows": 13_567, "true_label_negative": 10_205, "accuracy": 0.8485,
             **PAPER_TABLE12["sex"], "budget[0]": 5.08, "budget[1]": 10.0, "budget[2]": 18.0}  # fmt: skip
    pd.DataFrame({"statistic": list(stats), "value": list(stats.values())}).to_csv(
        tmp_path / "facts-adult-stats.csv", index=False
    )
    by = compare_adult(tmp_path).set_index("quantity")
    assert by.loc["test rows", "table"] == "spec §6.2"
    assert by.loc["LR test accuracy", "table"] == "spec §8"
    assert by.loc["budget 1", "table"] == "spec §6.1"
    assert by.loc["true label 0 (the paper's 'affected')", "table"] == "App. F"
    assert (by.loc[["test rows", "budget 1", "budget 3"], "status"] == "exact").all()
