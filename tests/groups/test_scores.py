"""Score metrics (src/primafacie/groups/scores.py): thresholds, AUC and calibration per group."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from primafacie.data import AuditData
from primafacie.decisions import score_decisions
from primafacie.errors import InputError
from primafacie.groups import GroupMetrics
from primafacie.groups.scores import (
    attribute_groups,
    calibration_bins,
    calibration_table,
    score_metrics,
    sweep_thresholds,
    threshold_table,
)

Z95 = 1.959963984540054


def _world(n: int = 300, seed: int = 0) -> pd.DataFrame:
    """Three races (b and h protected, w and a pooled as the reference), tied integer scores."""
    rng = np.random.default_rng(seed)
    race = rng.choice(["a", "b", "h", "w"], n, p=[0.15, 0.3, 0.2, 0.35])
    score = rng.integers(1, 21, n) + np.where(race == "b", rng.integers(0, 4, n), 0)
    y = (rng.random(n) < score / 25).astype(int)
    return pd.DataFrame({"race": race, "s": score.astype(float), "y": y,
                         "sex": rng.choice(["f", "m"], n)})  # fmt: skip


def _audit(df: pd.DataFrame, outcome: bool = True) -> AuditData:
    df = df.assign(d=score_decisions(df, "s", 10))
    return AuditData(df, features={}, protected={"race": ["b", "h"], "sex": "f"}, decision="d",
                     outcome="y" if outcome else None)  # fmt: skip


def _coded(audit: AuditData, *attributes: str) -> dict:
    """``{attribute: (codes, sorted values)}`` as the group metrics code them."""
    out = {}
    for a in attributes:
        codes, values = pd.factorize(audit.frame[a], sort=True)
        out[a] = (codes.astype(np.int64), list(values))
    return out


def _groups(audit: AuditData, attribute: str):
    return attribute_groups(audit, attribute, *_coded(audit, attribute)[attribute])


def _wilson(k: float, n: float, z: float = Z95) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@pytest.mark.parametrize("favorable", ["above", "below"])
def test_threshold_table_equals_a_brute_force_loop(favorable):
    df = _world()
    audit = _audit(df)
    groups = _groups(audit, "race")
    assert groups.labels == ["a", "b", "h", "w", "non-protected (pooled)"]
    thresholds = np.array([0.5, 3, 7.5, 10, 15, 21, 30])
    table = threshold_table(df["s"].to_numpy(), groups, thresholds, favorable, 0.05, 30, 10)
    assert len(table) == len(thresholds) * 5
    race, s = df["race"].to_numpy(), df["s"].to_numpy()
    members = {"a": race == "a", "b": race == "b", "h": race == "h", "w": race == "w",
               "non-protected (pooled)": (race == "a") | (race == "w")}  # fmt: skip
    for t in thresholds:  # the brute force: rescan every row at every threshold
        fav = s >= t if favorable == "above" else s < t
        kr, nr = (
            fav[members["non-protected (pooled)"]].sum(),
            members["non-protected (pooled)"].sum(),
        )
        for group, mask in members.items():
            row = table[(table["threshold"] == t) & (table["group"] == group)].iloc[0]
            k, n = int(fav[mask].sum()), int(mask.sum())
            assert (row["k"], row["n"], row["members"]) == (k, n, n)
            assert row["rate"] == pytest.approx(k / n, abs=1e-15)
            assert (row["ci_low"], row["ci_high"]) == pytest.approx(_wilson(k, n), abs=1e-12)
            assert row["audited"] == (t == 10)
            if group not in ("b", "h"):
                assert np.isnan(row["ratio"]) and pd.isna(row["below_four_fifths"])
                continue
            if kr == 0:
                assert np.isnan(row["ratio"])
                continue
            ratio = (k / n) / (kr / nr)
            assert row["ratio"] == pytest.approx(ratio, rel=1e-12)
            assert row["below_four_fifths"] == (ratio < 0.8)
            if k > 0:  # Katz: exp(log r ± z sqrt(1/k − 1/n + 1/kr − 1/nr))
                se = np.sqrt(1 / k - 1 / n + 1 / kr - 1 / nr)
                assert row["ratio_low"] == pytest.approx(ratio * np.exp(-Z95 * se), rel=1e-12)
                assert row["ratio_high"] == pytest.approx(ratio * np.exp(Z95 * se), rel=1e-12)


def test_the_audited_threshold_row_is_the_group_metrics_comparison():
    df = _world()
    res = GroupMetrics(thresholds=[5, 15], score="s", score_threshold=10,
                       intersections="none").run(_audit(df))  # fmt: skip
    t = res.scores.thresholds
    assert sorted(t["threshold"].unique()) == [5, 10, 15]  # the audited threshold is added
    at = t[t["audited"] & (t["role"] == "protected")].set_index(["attribute", "group"])
    summ = res.summary().set_index(["attribute", "group"])
    for key in summ.index:
        assert at.loc[key, "k"] == summ.loc[key, "selection_k"]
        for a, b in (("ratio", "selection_ratio"), ("ratio_low", "selection_ratio_low"),
                     ("ratio_high", "selection_ratio_high")):  # fmt: skip
            assert at.loc[key, a] == pytest.approx(summ.loc[key, b], rel=1e-12)


def test_sweep_takes_every_distinct_value_or_101_distinct_percentiles():
    assert sweep_thresholds(np.array([5, 1, 5, 3.0])).tolist() == [1, 3, 5]
    assert len(sweep_thresholds(np.arange(1.0, 102.0))) == 101  # 101 distinct: all of them
    s = np.arange(1000.0)
    grid = sweep_thresholds(s)
    assert len(grid) == 101 and grid[0] == 0 and grid[-1] == 999
    assert np.isin(grid, s).all()  # observed values, so a threshold is a score somebody has
    heavy = np.concatenate([np.zeros(900), np.arange(1.0, 201.0)])  # 90% ties at 0
    assert len(sweep_thresholds(heavy)) < 101  # repeated percentiles are one threshold
    # sweep and a list together: their union, with the audited threshold
    df = _world()
    res = GroupMetrics(sweep=True, thresholds=[2.5], score="s", score_threshold=10.5).run(
        _audit(df)
    )
    expected = sorted({*df["s"].unique(), 2.5, 10.5})
    assert sorted(res.scores.thresholds["threshold"].unique()) == expected
    assert res.scores.grid == "sweep"


def test_auc_per_group_equals_scikit_learn():
    from sklearn.metrics import roc_auc_score

    df = _world(400, seed=3)
    for favorable, sign in (("above", 1), ("below", -1)):
        res = score_metrics(_audit(df), _coded(_audit(df), "race"), "s", favorable)
        auc = res.auc.set_index("group")
        for group in ("a", "b", "h", "w"):
            part = df[df["race"] == group]
            assert auc.loc[group, "auc"] == pytest.approx(
                roc_auc_score(part["y"], sign * part["s"]), abs=1e-12)  # fmt: skip
            assert auc.loc[group, "positives"] == part["y"].sum()
        pooled = df[df["race"].isin(["a", "w"])]
        assert auc.loc["non-protected (pooled)", "auc"] == pytest.approx(
            roc_auc_score(pooled["y"], sign * pooled["s"]), abs=1e-12)  # fmt: skip
        # the gap's interval adds the two DeLong variances (disjoint groups)
        b, ref = auc.loc["b"], auc.loc["non-protected (pooled)"]
        half = Z95 * np.hypot(b["se"], ref["se"])
        assert b["auc_diff"] == pytest.approx(b["auc"] - ref["auc"])
        assert (b["diff_low"], b["diff_high"]) == pytest.approx(
            (b["auc_diff"] - half, b["auc_diff"] + half))  # fmt: skip


def test_calibration_by_hand():
    # score values 1, 2, 3 (each its own bin: at most ten values); outcome favourable = 1
    df = pd.DataFrame({"sex": ["f", "f", "f", "f", "m", "m", "m", "m", "m"],
                       "s": [1.0, 1, 3, 3, 1, 2, 2, 3, 3], "y": [0, 1, 1, 1, 0, 0, 1, 1, 0]})  # fmt: skip
    audit = AuditData(df.assign(d=1 - (df["s"] > 1).astype(int)), features={},
                      protected={"sex": "f"}, decision="d", outcome="y")  # fmt: skip
    table = score_metrics(audit, _coded(audit, "sex"), "s").calibration
    got = table[["group", "bin", "members", "mean_score", "outcome_k"]].values.tolist()
    assert got == [["f", "1", 2, 1.0, 1], ["f", "2", 0, pytest.approx(np.nan, nan_ok=True), 0],
                   ["f", "3", 2, 3.0, 2], ["m", "1", 1, 1.0, 0], ["m", "2", 2, 2.0, 1],
                   ["m", "3", 2, 3.0, 1]]  # fmt: skip
    m3 = table[(table["group"] == "m") & (table["bin"] == "3")].iloc[0]
    assert m3["outcome_rate"] == 0.5
    assert (m3["ci_low"], m3["ci_high"]) == pytest.approx(_wilson(1, 2), abs=1e-12)


def test_calibration_deciles_of_a_continuous_score():
    s = np.arange(1.0, 21.0)  # 20 distinct values: ten bins of two
    upper, labels = calibration_bins(s)
    assert upper.tolist() == pytest.approx([2.9, 4.8, 6.7, 8.6, 10.5, 12.4, 14.3, 16.2, 18.1, 20])
    assert labels[0] == "[1, 2.9]" and labels[1] == "(2.9, 4.8]"
    df = pd.DataFrame({"g": ["p"] * 10 + ["q"] * 10, "s": s, "y": [1, 0] * 10})
    audit = AuditData(df.assign(d=1), features={}, protected={"g": "p"}, decision="d",
                      outcome="y")  # fmt: skip
    table = calibration_table(s, df["y"].to_numpy(bool), _groups(audit, "g"),
                              (upper, labels))  # fmt: skip
    assert table.groupby("group")["members"].apply(list).to_dict() == {
        "p": [2, 2, 2, 2, 2, 0, 0, 0, 0, 0], "q": [0, 0, 0, 0, 0, 2, 2, 2, 2, 2]}  # fmt: skip
    assert table["outcome_k"].sum() == 10


def test_thresholds_or_sweep_without_a_score_name_the_key():
    audit = _audit(_world())
    with pytest.raises(InputError, match=r"thresholds \(--thresholds, "
                                         r"analyses.groups.thresholds\) needs a score"):  # fmt: skip
        GroupMetrics(thresholds=[3]).run(audit)
    with pytest.raises(InputError, match=r"sweep \(--sweep, analyses.groups.sweep\) needs"):
        GroupMetrics(sweep=True).run(audit)


@pytest.mark.parametrize("bad", [[], ["five"], [float("inf")], [True], "3,5", [1] * 1001])
def test_a_bad_threshold_list_is_refused_naming_the_key(bad):
    with pytest.raises(InputError, match=r"analyses.groups.thresholds"):
        GroupMetrics(thresholds=bad, score="s").run(_audit(_world()))


def test_a_bad_score_column_is_named():
    df = _world().assign(t=lambda d: d["s"].where(d.index != 7))
    with pytest.raises(InputError, match=r"'t' has 1 missing or infinite values \(first at row 7"):
        GroupMetrics(score="t", sweep=True).run(_audit(df))
    with pytest.raises(InputError, match="'race' is not numeric"):
        GroupMetrics(score="race", sweep=True).run(_audit(df))


def test_no_score_or_nothing_to_measure_gives_no_score_metrics():
    audit = _audit(_world(), outcome=False)
    assert GroupMetrics().run(audit).scores is None
    assert GroupMetrics(score="s").run(audit).scores is None  # no threshold, no outcome
    res = GroupMetrics(score="s", sweep=True).run(audit).scores
    assert res.auc is None and res.calibration is None and res.thresholds is not None


def _cells(cells: dict) -> pd.DataFrame:
    """Rows from ``{(race, sex): [scores]}``."""
    rows = [(r, x, s) for (r, x), scores in cells.items() for s in scores]
    return pd.DataFrame(rows, columns=["race", "sex", "s"]).assign(
        d=lambda f: (f["s"] >= 3).astype(int)
    )


CELLS = {("w", "m"): [1, 2, 3, 4], ("b", "f"): [1, 1, 2, 5], ("b", "m"): [3, 4, 5, 6],
         ("w", "f"): [2, 2, 2, 2]}  # fmt: skip


def test_the_sweep_covers_the_intersection_by_hand():
    data = AuditData(_cells(CELLS), features={}, decision="d",
                     protected={"race": "b", "sex": "f"})  # fmt: skip
    res = GroupMetrics(score="s", sweep=True, min_group=1).run(data)
    t = res.scores.thresholds
    assert sorted(t["attribute"].unique()) == ["race", "race × sex", "sex"]
    crossed = t[t["attribute"] == "race × sex"].set_index(["threshold", "group"])
    assert sorted(crossed.index.get_level_values(0).unique()) == [1, 2, 3, 4, 5, 6]
    # favourable when s >= t; the reference w × m (non-protected on both) selects 3/4 at 2,
    # 2/4 at 3: b × f 2/4 and 1/4, b × m 4/4 and 4/4, w × f 4/4 and 0/4
    expected = {2: {"b × f": (2, 2 / 3), "b × m": (4, 4 / 3), "w × f": (4, 4 / 3)},
                3: {"b × f": (1, 0.5), "b × m": (4, 2.0), "w × f": (0, 0.0)}}  # fmt: skip
    for threshold, groups in expected.items():
        assert crossed.loc[(threshold, "w × m"), "role"] == "reference"
        for group, (k, ratio) in groups.items():
            row = crossed.loc[(threshold, group)]
            assert row["role"] == "protected" and row["k"] == k and row["n"] == 4
            assert row["ratio"] == pytest.approx(ratio) and row["reference"] == "w × m"
    # at the threshold of the decision, the sweep equals the group metrics' own comparison
    summ = res.summary().set_index(["attribute", "group"])
    for group in ("b × f", "b × m", "w × f"):
        assert crossed.loc[(3, group), "ratio"] == pytest.approx(
            summ.loc[("race × sex", group), "selection_ratio"]
        )


def test_the_sweep_honours_a_listed_reference_by_hand():
    cells = {**CELLS, ("h", "m"): [6, 6]}
    data = AuditData(_cells(cells), features={}, decision="d", protected={
        "race": {"values": ["b"], "reference": ["w"]}, "sex": "f"})  # fmt: skip
    t = GroupMetrics(score="s", thresholds=[3], min_group=1).run(data).scores.thresholds
    race = t[t["attribute"] == "race"].set_index("group")
    # at 3: w selects 2 of 8, b 5 of 8 (ratio 2.5); h is left out, not pooled with w
    assert race.loc["w", "role"] == "reference" and race.loc["h", "role"] == "left out"
    assert race.loc["b", "ratio"] == pytest.approx((5 / 8) / (2 / 8))
    assert np.isnan(race.loc["h", "ratio"])
    crossed = t[t["attribute"] == "race × sex"].set_index("group")
    assert crossed.loc["h × m", "role"] == "left out" and set(crossed["reference"]) == {"w × m"}
