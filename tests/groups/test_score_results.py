"""Words, numbers and figures of the score metrics (src/primafacie/groups/score_results.py)."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from primafacie.data import AuditData
from primafacie.groups.score_results import below_runs
from primafacie.groups.scores import score_metrics


def _result(seed: int = 1, n: int = 600, favorable: str = "above"):
    rng = np.random.default_rng(seed)
    race = rng.choice(["b", "h", "w"], n, p=[0.3, 0.2, 0.5])
    # b's scores are lower: its ratio dips below 0.8 over part of the range, not all of it
    shift = np.where(race == "b", rng.integers(0, 8, n), 0)
    s = rng.integers(1, 41, n) + (-shift if favorable == "above" else shift)
    y = (rng.random(n) < np.clip(s / 45, 0, 1)).astype(int)
    df = pd.DataFrame({"race": race, "s": s.astype(float), "y": y, "d": 1})
    audit = AuditData(df, features={}, protected={"race": ["b", "h"]}, decision="d", outcome="y")
    codes, values = pd.factorize(df["race"], sort=True)
    coded = {"race": (codes.astype(np.int64), list(values))}
    return score_metrics(audit, coded, "s", favorable, sweep=True, audited=20.0)


def _parse_runs(text: str) -> list[tuple[float, float]]:
    """``thresholds from 3 to 5, 7 and from 9 to 12`` -> [(3, 5), (7, 7), (9, 12)]."""
    runs = []
    for part in re.split(r", | and ", text):
        m = re.fullmatch(r"from (\S+) to (\S+)", part)
        runs.append((float(m[1]), float(m[2])) if m else (float(part), float(part)))
    return runs


def test_below_runs_are_the_consecutive_thresholds():
    t = np.array([1, 2, 3, 4, 5, 6.0])
    assert below_runs(t, np.array([1, 1, 0, 1, 0, 1], bool)) == [(1, 2), (4, 4), (6, 6)]
    assert below_runs(t, np.zeros(6, bool)) == []


@pytest.mark.parametrize("seed, favorable", [(1, "above"), (2, "below"), (3, "above")])
def test_the_sentence_matches_the_table(seed, favorable):
    """Every threshold the sentence names is below 0.8 in the table, every other one is not,
    and its counts are the table's (words generated from the numbers)."""
    res = _result(seed, favorable=favorable)
    table = res.thresholds
    sentences = [s for s in res.sentences() if "impact ratio" in s]
    assert len(sentences) == 2  # one per protected group (b, h)
    seen_below = False
    for sentence in sentences:
        group = re.match(r"race = (\w+): ", sentence)[1]
        g = table[table["group"] == group].sort_values("threshold")
        t, ratio, high = (g[c].to_numpy(float) for c in ("threshold", "ratio", "ratio_high"))
        below = np.nan_to_num(ratio, nan=np.inf) < 0.8
        defined = int((~np.isnan(ratio)).sum())
        m = re.search(r"below 0\.8 at thresholds? (.+?) \((\d+) of (\d+) thresholds where it is "
                      r"defined\); its 95% interval lies wholly below 0\.8 at (.+?)"
                      r"(?:; undefined at (\d+)|$)", sentence)  # fmt: skip
        undefined = len(t) - defined
        clause = f"; undefined at {undefined} (no favourable decision in the reference group)"
        assert sentence.endswith(clause) == (undefined > 0)
        if not below.any():
            assert f"at least 0.8 at every one of the {defined} thresholds" in sentence
            continue
        seen_below = True
        assert (int(m[2]), int(m[3])) == (int(below.sum()), defined)
        named = np.zeros(len(t), bool)
        for a, b in _parse_runs(m[1]):
            i, j = np.flatnonzero(t == a)[0], np.flatnonzero(t == b)[0]  # thresholds of the table
            named[i : j + 1] = True
        assert (named == below).all()
        wholly = np.nan_to_num(high, nan=np.inf) < 0.8
        if m[4] == "none of them":
            assert not wholly.any()
        else:
            runs_text, count = re.fullmatch(r"thresholds? (.+) \((\d+)\)", m[4]).groups()
            assert int(count) == wholly.sum()
            named = np.zeros(len(t), bool)
            for a, b in _parse_runs(runs_text):
                named[np.flatnonzero(t == a)[0] : np.flatnonzero(t == b)[0] + 1] = True
            assert (named == wholly).all()
        assert int(m[5] or 0) == undefined
    assert seen_below  # the example exercises the "below" sentence


def test_auc_sentence_and_headline_quote_the_table():
    res = _result()
    b = res.auc.set_index("group").loc["b"]
    ref = res.auc.set_index("group").loc["w"]  # w is the one non-protected value
    text = next(s for s in res.sentences() if s.startswith("race = b: AUC"))
    assert text == (
        f"race = b: AUC {b['auc']:.3f} (95% CI {b['auc_low']:.3f}–{b['auc_high']:.3f}) vs "
        f"{ref['auc']:.3f} (95% CI {ref['auc_low']:.3f}–{ref['auc_high']:.3f}) for "
        f"w; difference {b['auc_diff']:+.3f} (95% CI "
        f"{b['diff_low']:+.3f} to {b['diff_high']:+.3f})"
    )
    s = res.summary()
    assert res.headline() == (
        f"score s: {int((s['below'] > 0).sum())} of 2 protected group(s) have an impact ratio "
        f"below 0.8 at one or more of {res.thresholds['threshold'].nunique()} thresholds"
    )


def test_to_dict_is_compact_json_with_the_runs():
    res = _result()
    doc = json.loads(json.dumps(res.to_dict()))
    assert doc["grid"] == "sweep" and doc["audited_threshold"] == 20.0
    assert doc["thresholds"] == res.thresholds["threshold"].nunique()
    first = doc["below_four_fifths"][0]
    row = res.summary().iloc[0]
    assert first["below_runs"] == [list(r) for r in row["below_runs"]]
    assert first["min_ratio"] == pytest.approx(row["min_ratio"])
    assert "rate" not in json.dumps(doc["below_four_fifths"])  # the curve itself is the CSV
    assert {r["group"] for r in doc["auc"]} == {"b", "h", "w"}


def test_figures_draw_the_curves_the_band_and_the_lines():
    from primafacie.report.plots import svg_of

    res = _result()
    fig = res.plot_thresholds("race")
    left, right = fig.axes
    flat = [(list(ln.get_xdata()), list(ln.get_ydata())) for ln in left.lines]
    assert any(y == [0.8, 0.8] for _, y in flat)  # the four-fifths line
    assert any(x == [20, 20] for x, _ in flat)  # the audited threshold
    assert len(left.collections) == 2  # one interval band per protected group
    assert "impact ratio" in left.get_ylabel() and "selection rate" in right.get_ylabel()
    assert svg_of(fig).startswith("<svg")
    cal = res.plot_calibration("race")
    assert "favourable-outcome rate" in cal.axes[0].get_ylabel()
    assert svg_of(cal).startswith("<svg")
