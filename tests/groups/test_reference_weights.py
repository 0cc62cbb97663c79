"""Group metrics with reference groups and sample weights (src/primafacie/groups/engine.py):
against an independent numpy computation on COMPAS, against Fairlearn's MetricFrame with
``sample_weight`` on Adult (``fnlwgt``), and by hand on the Kish effective sample size."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from primafacie.data import AuditData
from primafacie.groups import GroupMetrics
from primafacie.intervals import wilson_interval, z_value


def _compas(data_dir):
    from primafacie.datasets.compas import load_compas_raw

    raw = load_compas_raw(data_dir)
    return pd.DataFrame({"race": raw["race"], "sex": raw["sex"],
                         "low_risk": (raw["score_text"] == "Low").astype(int)})  # fmt: skip


def test_compas_african_american_vs_caucasian_equals_numpy(require_data, data_dir):
    require_data("compas", "compas-scores-two-years.csv")
    df = _compas(data_dir)
    data = AuditData(df, features={}, decision="low_risk", protected={
        "race": {"values": ["African-American"], "reference": ["Caucasian"]}})  # fmt: skip
    res = GroupMetrics().run(data)
    s = res.summary().set_index("group")
    # independent computation: counts of the two groups only
    race, d = df["race"].to_numpy(), df["low_risk"].to_numpy()
    aa, ca = race == "African-American", race == "Caucasian"
    k1, n1, k2, n2 = int(d[aa].sum()), int(aa.sum()), int(d[ca].sum()), int(ca.sum())
    row = s.loc["African-American"]
    assert row["reference"] == "Caucasian"
    assert (row["selection_k"], row["selection_n"]) == (k1, n1)
    assert (row["reference_k"], row["reference_n"]) == (k2, n2)
    assert row["selection_rate"] == pytest.approx(k1 / n1)
    assert row["selection_ratio"] == pytest.approx((k1 / n1) / (k2 / n2))
    left = int((~(aa | ca)).sum())
    assert row["left_out"] == left == 1064
    assert row["left_out_share"] == pytest.approx(left / len(df))
    assert list(s.index) == ["African-American"]  # the other races are compared with nobody
    rates = res.rates()
    out = rates[rates["role"] == "left out"]
    assert sorted(out["group"]) == ["Asian", "Hispanic", "Native American", "Other"]
    assert out["ratio"].isna().all() and out["diff"].isna().all()
    (ref,) = res.comparisons
    assert ref["left_out"] == left and ref["left_out_groups"] == sorted(out["group"])
    assert "1,064 rows (14.7%) of other groups left out" in res.scope()
    assert res.to_dict()["references"][0]["left_out"] == left


def test_compas_highest_reference_is_the_most_selected_race(require_data, data_dir):
    require_data("compas", "compas-scores-two-years.csv")
    df = _compas(data_dir)
    data = AuditData(df, features={}, decision="low_risk", protected={
        "race": {"values": ["African-American"], "reference": "highest"}})  # fmt: skip
    rates = df[df["race"] != "African-American"].groupby("race")["low_risk"].mean()
    assert data.reference_values("race") == (rates.idxmax(),)
    res = GroupMetrics().run(data)
    assert res.summary()["reference"].tolist() == [rates.idxmax()]


def test_intersection_reference_is_reference_on_every_attribute():
    df = pd.DataFrame({"race": list("bbwwhh") * 2, "sex": ["f"] * 6 + ["m"] * 6,
                       "d": [1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 1, 1]})  # fmt: skip
    data = AuditData(df, features={}, decision="d", protected={
        "race": {"values": ["b"], "reference": ["w"]}, "sex": "f"})  # fmt: skip
    rates = GroupMetrics(min_group=1).run(data).rates()
    crossed = rates[rates["attribute"] == "race × sex"].set_index("group")
    assert crossed.loc["w × m", "role"] == "reference"
    assert crossed.loc[["b × f", "b × m", "w × f"], "role"].tolist() == ["protected"] * 3
    assert crossed.loc[["h × f", "h × m"], "role"].tolist() == ["left out"] * 2
    assert set(crossed["reference"]) == {"w × m"}


def _cells(cells):
    """A table from ``{(race, sex): (rows, favourable)}``: the favourable rows first."""
    rows = [(r, x, int(i < k)) for (r, x), (n, k) in cells.items() for i in range(n)]
    return pd.DataFrame(rows, columns=["race", "sex", "d"])


def test_highest_over_an_intersection_is_the_most_selected_intersectional_group():
    # by hand: race w 5/8 > h 3/8, so highest picks race w, sex m; the most selected
    # non-protected intersectional group is h × m (3/4), not w × m (1/4), as LL144 compares
    df = _cells({("w", "f"): (4, 4), ("w", "m"): (4, 1), ("h", "f"): (4, 0),
                 ("h", "m"): (4, 3), ("b", "f"): (2, 0), ("b", "m"): (2, 1)})  # fmt: skip
    data = AuditData(df, features={}, decision="d", protected={
        "race": {"values": ["b"], "reference": "highest"},
        "sex": {"values": ["f"], "reference": "highest"}})  # fmt: skip
    assert data.reference_values("race") == ("w",) and data.reference_values("sex") == ("m",)
    res = GroupMetrics(min_group=1).run(data)
    rates = res.rates()
    crossed = rates[rates["attribute"] == "race × sex"].set_index("group")
    assert crossed.loc["h × m", "role"] == "reference" and set(crossed["reference"]) == {"h × m"}
    assert crossed.loc["w × m", "role"] == "left out"  # the candidate not chosen
    expected = {"b × f": 0.0, "b × m": (1 / 2) / (3 / 4), "h × f": 0.0, "w × f": 1 / (3 / 4)}
    for group, ratio in expected.items():
        assert crossed.loc[group, "role"] == "protected"
        assert crossed.loc[group, "ratio"] == pytest.approx(ratio)
    (cmp,) = [c for c in res.comparisons if c["attribute"] == "race × sex"]
    assert cmp["reference_rule"] == "highest" and cmp["left_out"] == 4
    assert "race × sex compared with h × m (the intersectional group with the highest" in (
        res.scope()
    )
    # each attribute alone still uses its own highest value
    alone = rates[rates["attribute"] == "race"].set_index("group")
    assert alone.loc["w", "role"] == "reference" and alone.loc["h", "role"] == "left out"


def test_highest_over_an_intersection_breaks_ties_by_rows_then_sorted_order():
    # h × m and w × m both select half: w × m has more rows; then equal rows: h × m first
    cells = {("b", "f"): (2, 1), ("h", "m"): (4, 2), ("w", "m"): (6, 3)}
    protected = {"race": {"values": ["b"], "reference": "highest"},
                 "sex": {"values": ["f"], "reference": "highest"}}  # fmt: skip
    for sizes, chosen in [((4, 2), "w × m"), ((6, 3), "h × m")]:
        cells[("h", "m")] = sizes
        data = AuditData(_cells(cells), features={}, decision="d", protected=protected)
        (cmp,) = [c for c in GroupMetrics(min_group=1).run(data).comparisons
                  if c["attribute"] == "race × sex"]  # fmt: skip
        assert cmp["reference"] == chosen


def test_weighted_rate_and_wilson_interval_on_kish_n_eff_by_hand():
    # f: weights 1, 1, 2 with ŷ 1, 0, 0 -> rate 1/4, n_eff 16/6; m: weights 1, 1 with ŷ 1, 1
    df = pd.DataFrame({"sex": list("fffmm"), "d": [1, 0, 0, 1, 0], "w": [1, 1, 2, 1, 3.0]})
    res = GroupMetrics(min_group=1, protected={"sex": "f"}, decision="d", weights="w").run(df)
    f = res.rates().set_index("group").loc["f"]
    assert (f["k"], f["n"]) == (1, 3)  # counts stay unweighted
    assert f["rate"] == pytest.approx(1 / 4)
    assert f["n_eff"] == pytest.approx(16 / 6)
    lo, hi = wilson_interval(0.25 * 16 / 6, 16 / 6, z_value(0.05, "two"))
    assert (f["ci_low"], f["ci_high"]) == (pytest.approx(float(lo)), pytest.approx(float(hi)))
    s = res.summary().iloc[0]
    assert s["reference_rate"] == pytest.approx(1 / 4)  # m: 1 of weight 4
    assert s["selection_ratio"] == pytest.approx(1.0)
    assert res.headline().endswith(
        "sex = f: 25.0% weighted (3 rows, n_eff 2.7) vs 25.0% weighted (2 rows, n_eff 1.6) for m"
    )
    assert res.to_dict()["weights"] == "w"


def test_equal_weights_change_nothing_but_add_the_weighted_columns():
    df = pd.DataFrame({"sex": list("ffffmmmm"), "d": [1, 0, 0, 0, 1, 1, 0, 1],
                       "y": [1, 0, 1, 0, 1, 1, 0, 0], "w": 2.5})  # fmt: skip
    roles = {"protected": {"sex": "f"}, "decision": "d", "outcome": "y", "min_group": 1}
    plain = GroupMetrics(**roles).run(df)
    weighted = GroupMetrics(**roles, weights="w").run(df)
    pd.testing.assert_frame_equal(weighted.to_frame()[plain.to_frame().columns], plain.to_frame())
    ws, ps = weighted.summary(), plain.summary()
    for col in ("selection_ratio_low", "equalized_odds_low", "equalized_odds_high", "z_pooled",
                "fisher_p"):  # fmt: skip
        assert ws[col].to_numpy() == pytest.approx(ps[col].to_numpy(), nan_ok=True), col
    # the shortfall is in weight units: 2.5 per row
    assert ws["shortfall"].iloc[0] == pytest.approx(2.5 * ps["shortfall"].iloc[0])


def test_adult_weighted_selection_rates_equal_fairlearn(require_data, data_dir):
    require_data("adult", "adult.data")
    fairlearn = pytest.importorskip("fairlearn.metrics", reason="fairlearn is a test dependency")
    from primafacie.datasets.adult import load_adult_raw

    raw = load_adult_raw(data_dir)
    income = raw["income"].astype(str).str.strip().str.rstrip(".")
    df = pd.DataFrame({"sex": raw["sex"], "race": raw["race"], "fnlwgt": raw["fnlwgt"],
                       "high": (income == ">50K").astype(int)})  # fmt: skip
    data = AuditData(df, features={}, decision="high", weights="fnlwgt",
                     protected={"sex": "Female", "race": {"values": ["Black"],
                                                          "reference": ["White"]}})  # fmt: skip
    rates = GroupMetrics(intersections="none").run(data).rates()
    for attr in ("sex", "race"):
        frame = fairlearn.MetricFrame(
            metrics=fairlearn.selection_rate, y_true=df["high"], y_pred=df["high"],
            sensitive_features=df[attr], sample_params={"sample_weight": df["fnlwgt"]},
        )  # fmt: skip
        ours = rates[(rates["attribute"] == attr) & (rates["group"] != "non-protected (pooled)")]
        ours = ours.set_index("group")["rate"]
        theirs = frame.by_group.rename(index=str)
        assert np.allclose(ours.loc[theirs.index].to_numpy(), theirs.to_numpy(), atol=1e-12)
