"""primafacie.overtime.diff: the change of certainty's disparity between two audits, checked
against a value computed by hand (Wald interval and test of a difference of two independent
differences of proportions)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from primafacie.overtime.diff import diff_audits
from primafacie.overtime.reader import read_results


def _certainty_audit(folder: Path, rows: list[dict]) -> Path:
    """A minimal results.json whose only analysis is certainty, with its ranking table."""
    (folder / "tables").mkdir(parents=True)
    pd.DataFrame(rows).to_csv(folder / "tables" / "certainty_ranking.csv", index=False)
    doc = {
        "schema_version": "1",
        "config": {"protected": {"gender": ["female"]}, "favorable": 1,
                   "analyses": {"certainty": {"criterion": "statistical_parity"}}},
        "analyses": {"certainty": {"status": "ok", "numbers": {"selected": [rows[0]["decision_maker"]]}}},
        "files": ["report.html", "tables/certainty_ranking.csv"],
    }  # fmt: skip
    (folder / "results.json").write_text(json.dumps(doc), encoding="utf-8")
    return folder


def _row(dm: str, k_i: int, n_i: int, k_j: int, n_j: int) -> dict:
    return {"decision_maker": dm, "rank": 1, "n_i": n_i, "k_i": k_i, "n_j": n_j, "k_j": k_j,
            "disparity": abs(k_i / n_i - k_j / n_j)}  # fmt: skip


def test_certainty_disparity_change_by_hand(tmp_path):
    # old: 60/100 (most privileged) vs 40/100 -> d = 0.2,
    #      var = 0.6 * 0.4 / 100 + 0.4 * 0.6 / 100 = 0.0048
    # new: 70/100 vs 30/100 -> d = 0.4, var = 0.7 * 0.3 / 100 + 0.3 * 0.7 / 100 = 0.0042
    # change 0.2, se = sqrt(0.009) = 0.0948683, z = 0.2 / se = 2.1081851
    # 95%: 0.2 -+ 1.9599640 * 0.0948683 = [0.0140615, 0.3859385]
    # p = erfc(2.1081851 / sqrt 2) = 0.0350150
    old = _certainty_audit(tmp_path / "old", [_row("lr", 60, 100, 40, 100)])
    new = _certainty_audit(tmp_path / "new", [_row("lr", 70, 100, 30, 100)])
    res = diff_audits(read_results(old), read_results(new))
    row = res.changes[res.changes["path"].eq("certainty.disparity")].iloc[0]
    assert row["where"] == "decision_maker=lr"
    assert (row["old"], row["new"]) == (pytest.approx(0.2), pytest.approx(0.4))
    assert row["change"] == pytest.approx(0.2)
    assert row["ci_low"] == pytest.approx(0.0140615, abs=1e-7)
    assert row["ci_high"] == pytest.approx(0.3859385, abs=1e-7)
    assert row["p_value"] == pytest.approx(0.0350150, abs=1e-7)
    assert row["p_value"] == pytest.approx(math.erfc(0.2 / math.sqrt(0.009) / math.sqrt(2)))
    # the selection ("lr" in both) is the only other number: Holm over one test is the test
    assert row["p_adjusted"] == pytest.approx(row["p_value"])
    assert bool(row["significant"]) is True
    selected = res.changes[res.changes["path"].eq("certainty.selected")].iloc[0]
    assert not selected["changed"]


def test_certainty_disparity_unchanged_counts_give_no_change(tmp_path):
    rows = [_row("lr", 55, 80, 30, 70), _row("clerk", 20, 50, 20, 50)]
    old = _certainty_audit(tmp_path / "old", rows)
    new = _certainty_audit(tmp_path / "new", rows)
    ch = diff_audits(read_results(old), read_results(new)).changes
    disp = ch[ch["path"].eq("certainty.disparity")].set_index("where")
    assert disp["change"].tolist() == [0.0, 0.0]
    assert disp["p_value"].tolist() == [1.0, 1.0]
    # equal counts on both sides: the interval still has the width of both variances
    # lr: 55/80 vs 30/70 -> var = (0.6875 * 0.3125 / 80 + 3/7 * 4/7 / 70), twice
    se = math.sqrt(2 * (0.6875 * 0.3125 / 80 + (3 / 7) * (4 / 7) / 70))
    assert disp.loc["decision_maker=lr", "ci_high"] == pytest.approx(1.959963985 * se)
    assert not disp["significant"].any()
