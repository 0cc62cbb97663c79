"""The group metrics equal Fairlearn's MetricFrame (the field's reference) on the demo world
and on COMPAS: selection rate, TPR, FPR, FNR, PPV and accuracy per group, for each protected
attribute and their intersection, and the equalized-odds difference of a binary attribute."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from primafacie.data import AuditData
from primafacie.groups import GroupMetrics

fairlearn_metrics = pytest.importorskip(
    "fairlearn.metrics", reason="fairlearn is a test dependency (pip install .[test])"
)
from sklearn.metrics import accuracy_score, precision_score  # noqa: E402

FAIRLEARN = {
    "selection_rate": fairlearn_metrics.selection_rate,
    "tpr": fairlearn_metrics.true_positive_rate,
    "fpr": fairlearn_metrics.false_positive_rate,
    "fnr": fairlearn_metrics.false_negative_rate,
    "ppv": lambda y, p: precision_score(y, p, zero_division=np.nan),
    "accuracy": accuracy_score,
}


def _compare(data: AuditData, attrs: list[str]) -> int:
    """Assert equality of every rate for every grouping; return the number of rates compared."""
    res = GroupMetrics(intersections="full").run(data)
    ours = res.to_frame()
    y_true = data.outcome_array()
    y_pred = data.decision_array()
    compared = 0
    for grouping in [[a] for a in attrs] + [attrs]:
        mf = fairlearn_metrics.MetricFrame(
            metrics=FAIRLEARN, y_true=y_true, y_pred=y_pred,
            sensitive_features=data.frame[grouping],
        )  # fmt: skip
        theirs = mf.by_group
        label = " × ".join(grouping)
        mine = ours[(ours["attribute"] == label) & (ours["role"] != "reference")]
        mine = mine[mine["group"] != "non-protected (pooled)"]
        for idx, values in theirs.iterrows():
            group = " × ".join(map(str, idx if isinstance(idx, tuple) else (idx,)))
            for metric in FAIRLEARN:
                hit = mine[(mine["group"] == group) & (mine["metric"] == metric)]
                if hit.empty:  # the single non-protected value is the reference row
                    hit = ours[(ours["attribute"] == label) & (ours["group"] == group)
                               & (ours["metric"] == metric)]  # fmt: skip
                assert len(hit) == 1, (label, group, metric)
                expected = float(values[metric])
                got = float(hit["rate"].iloc[0])
                if np.isnan(expected):
                    assert np.isnan(got), (label, group, metric)
                else:
                    assert got == pytest.approx(expected, abs=1e-12), (label, group, metric)
                compared += 1
        # the same groups, none dropped: every observed value (combination) is a row
        rows = ours[(ours["attribute"] == label) & (ours["group"] != "non-protected (pooled)")]
        assert set(rows["group"]) == {
            " × ".join(map(str, i if isinstance(i, tuple) else (i,))) for i in theirs.index
        }
    return compared


def test_demo_world_equals_fairlearn():
    from primafacie.datasets.credit_world import CREDIT_PROTECTED, generate_credit_world

    df = generate_credit_world(3000, seed=0)
    data = AuditData(df, features={}, protected=CREDIT_PROTECTED, decision="human",
                     outcome="repaid")  # fmt: skip
    assert _compare(data, ["gender", "race"]) == 6 * (2 + 3 + 6)
    # equalized odds of the binary attribute: Fairlearn's max of the TPR and FPR gaps
    s = GroupMetrics().run(data).summary()
    eo = s[s["attribute"] == "gender"]["equalized_odds_diff"].iloc[0]
    expected = fairlearn_metrics.equalized_odds_difference(
        data.outcome_array(), data.decision_array(), sensitive_features=df["gender"]
    )
    assert eo == pytest.approx(expected, abs=1e-12)
    dp = fairlearn_metrics.demographic_parity_ratio(
        data.outcome_array(), data.decision_array(), sensitive_features=df["gender"]
    )
    ratio = s[s["attribute"] == "gender"]["selection_ratio"].iloc[0]
    assert min(ratio, 1 / ratio) == pytest.approx(dp, abs=1e-12)


def test_compas_equals_fairlearn(require_data, data_dir):
    require_data("compas", "compas-scores-two-years.csv")
    from primafacie.datasets.compas import load_compas_raw

    raw = load_compas_raw(data_dir)
    # favourable decision: a "Low" risk score; favourable outcome: not rearrested in two years
    df = pd.DataFrame({
        "race": raw["race"], "sex": raw["sex"],
        "low_risk": (raw["score_text"] == "Low").astype(int),
        "no_recid": 1 - raw["two_year_recid"],
    })  # fmt: skip
    data = AuditData(df, features={}, protected={"race": ["African-American", "Hispanic"],
                     "sex": "Female"}, decision="low_risk", outcome="no_recid")  # fmt: skip
    n_groups = df["race"].nunique() + df["sex"].nunique() + len(df.groupby(["race", "sex"]))
    assert _compare(data, ["race", "sex"]) == 6 * n_groups
    res = GroupMetrics().run(data)
    small = res.rates()[res.rates()["small"]]
    # e.g. Native American women: a handful of rows, flagged, kept
    assert ("race × sex", "Native American × Female") in set(
        zip(small["attribute"], small["group"], strict=True)
    )
