"""Time windows in one audit: a generated decision log whose disparity grows month by month;
the trend of the selection ratio is monotone within its intervals, and the per-window counts
add up to the whole period. Window labels, bad time values and small windows are checked too."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml

from primafacie.audit.run import run_audit
from primafacie.config import load_config
from primafacie.errors import InputError
from primafacie.overtime.windows import window_labels, window_table

MONTHS = 6


def growing_log(n_per_month: int = 500, seed: int = 0) -> pd.DataFrame:
    """Decisions over six months: men approved at 0.6, women at 0.6 - 0.08 * month."""
    rng = np.random.default_rng(seed)
    month = np.repeat(np.arange(MONTHS), n_per_month)
    n = len(month)
    female = rng.random(n) < 0.5
    day = rng.integers(1, 28, n)
    p = np.where(female, 0.6 - 0.08 * month, 0.6)
    return pd.DataFrame({
        "id": np.arange(n),
        "decided_at": [f"2025-{m + 1:02d}-{d:02d}T10:00:00" for m, d in zip(month, day, strict=True)],
        "gender": np.where(female, "female", "male"),
        "income": rng.normal(30, 5, n).round(1),
        "approved": (rng.random(n) < p).astype(int),
        "clerk": (rng.random(n) < 0.5).astype(int),
    })  # fmt: skip


@pytest.fixture(scope="module")
def audit(tmp_path_factory):
    root = tmp_path_factory.mktemp("windows")
    log = growing_log()
    # a seventh, tiny window: shown and flagged, not dropped
    extra = growing_log(2, seed=1).assign(decided_at="2025-07-15")  # 12 rows
    pd.concat([log, extra.assign(id=extra["id"] + len(log))]).to_csv(root / "log.csv", index=False)
    cfg = {
        "data": "log.csv", "id": "id", "decision": {"column": "approved"}, "favorable": 1,
        "features": {"income": "numeric"}, "protected": {"gender": "female"},
        "time": {"column": "decided_at", "window": "month", "min_decisions": 30},
        "analyses": {"groups": {"min_group": 5},
                     "situation": {"k": [5], "methods": ["st"], "dimensions": ["single"]},
                     "certainty": {"decision_makers": {"model": {"column": "approved"},
                                                       "clerk": {"column": "clerk"}}}},
    }  # fmt: skip
    (root / "audit.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")
    res = run_audit(load_config(root / "audit.yaml"), root / "out", progress=False)
    return res, root / "out"


def test_trend_is_monotone_within_intervals(audit):
    res, out = audit
    trend = pd.read_csv(out / "tables/groups_trend.csv")
    f = trend[trend["group"] == "female"].reset_index(drop=True)
    big = f[~f["window_small"]]
    assert list(big["window"]) == [f"2025-{m:02d}" for m in range(1, MONTHS + 1)]
    r, lo, hi = (big[c].to_numpy() for c in ("selection_ratio", "selection_ratio_low",
                                             "selection_ratio_high"))  # fmt: skip
    # each window's ratio is below the previous window's upper bound, and the trend is real:
    # the first and last windows' intervals do not overlap
    assert (r[1:] <= hi[:-1]).all()
    assert hi[-1] < lo[0]
    assert np.corrcoef(np.arange(len(r)), r)[0, 1] < -0.9
    # the true ratios 1.0 .. 0.33 lie in most intervals
    truth = (0.6 - 0.08 * np.arange(MONTHS)) / 0.6
    assert ((lo <= truth) & (truth <= hi)).sum() >= MONTHS - 1


def test_window_counts_add_up_to_the_whole(audit):
    res, out = audit
    trend = pd.read_csv(out / "tables/groups_trend.csv")
    whole = pd.read_csv(out / "tables/groups_metrics_summary.csv")
    f = trend[trend["group"] == "female"]
    w = whole[whole["group"] == "female"].iloc[0]
    for col in ("selection_k", "selection_n", "reference_k", "reference_n"):
        assert f[col].sum() == w[col], col
    sizes = f.drop_duplicates("window")["window_n"]
    assert sizes.sum() == res.data.n
    numbers = res.runs["groups"].numbers["trend"]
    assert numbers["windows"] == MONTHS + 1 and sum(numbers["decisions"].values()) == res.data.n


def test_small_window_is_shown_and_flagged(audit):
    res, out = audit
    trend = pd.read_csv(out / "tables/groups_trend.csv")
    july = trend[trend["window"] == "2025-07"]
    assert len(july) and july["window_small"].all()
    assert res.runs["groups"].numbers["trend"]["small_windows"] == ["2025-07"]
    assert any("flagged as small: 2025-07" in c for c in res.runs["groups"].caveats)
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "Trend over 7 time windows" in html and "2025-07" in html


def test_certainty_per_window(audit):
    res, out = audit
    trend = pd.read_csv(out / "tables/certainty_trend.csv")
    assert set(trend["window"]) == {f"2025-{m:02d}" for m in range(1, 8)}
    model = trend[trend["decision_maker"] == "model"].sort_values("window")
    assert model["disparity"].iloc[-2] > model["disparity"].iloc[0]


def test_window_labels():
    s = pd.Series(["2024-01-01", "2024-03-31 23:59", "2024-04-01", "2023-12-31"])
    assert window_labels(s, "day", "t").tolist() == ["2024-01-01", "2024-03-31", "2024-04-01",
                                                     "2023-12-31"]  # fmt: skip
    assert window_labels(s, "quarter", "t").tolist() == ["2024Q1", "2024Q1", "2024Q2", "2023Q4"]
    assert window_labels(s, "year", "t").tolist() == ["2024", "2024", "2024", "2023"]
    assert window_labels(s, "week", "t").tolist()[-1] == "2023-W52"
    assert window_labels(pd.Series(["b", "a", "b"]), None, "batch").tolist() == ["b", "a", "b"]
    table = window_table(window_labels(s, "quarter", "t"), min_decisions=2)
    assert table["window"].tolist() == ["2023Q4", "2024Q1", "2024Q2"]
    assert table["n"].tolist() == [1, 2, 1] and table["small"].tolist() == [True, False, True]


@pytest.mark.parametrize("values, words", [(["2024-01-01", "soon"], "row 1 value 'soon' is not a date"),
                                           (["2024-01-01", None], "row 1 has no value")])  # fmt: skip
def test_bad_time_values_name_the_row(values, words):
    with pytest.raises(InputError, match=words):
        window_labels(pd.Series(values), "month", "decided_at")


def test_time_section_needs_one_source(tmp_path):
    from primafacie.config import TimeSpec

    with pytest.raises(ValueError, match="either column"):
        TimeSpec.model_validate({"column": "a", "by": "b"})
    with pytest.raises(ValueError):
        TimeSpec.model_validate({"column": "a", "window": "fortnight"})
    assert TimeSpec.model_validate({"by": "batch"}).source == "batch"


def test_missing_time_column_is_bad_input(tmp_path):
    growing_log(20).to_csv(tmp_path / "log.csv", index=False)
    cfg = {
        "data": "log.csv", "decision": {"column": "approved"},
        "features": {"income": "numeric"}, "protected": {"gender": "female"},
        "time": {"column": "decided", "window": "month"},
    }  # fmt: skip
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")
    with pytest.raises(InputError, match=r"\[time\] column 'decided' is not in the data"):
        run_audit(load_config(tmp_path / "audit.yaml"), tmp_path / "out", progress=False)
    assert not (tmp_path / "out").exists()


def test_windows_by_a_column_and_an_unmeasurable_window(tmp_path):
    log = growing_log(40)
    log["batch"] = np.where(log["decided_at"] < "2025-04", "early", "late")
    # a batch with no woman: the group metrics cannot be measured there; shown with its reason
    men = log[log["gender"] == "male"].head(40).assign(batch="men-only")
    pd.concat([log, men.assign(id=men["id"] + 10_000)]).to_csv(tmp_path / "log.csv", index=False)
    cfg = {
        "data": "log.csv", "id": "id", "decision": {"column": "approved"},
        "features": {"income": "numeric"}, "protected": {"gender": "female"},
        "time": {"by": "batch"},
    }  # fmt: skip
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")
    res = run_audit(load_config(tmp_path / "audit.yaml"), tmp_path / "out", progress=False)
    trend = res.runs["groups"].results["trend"]
    assert trend.windows["window"].tolist() == ["early", "late", "men-only"]
    assert trend.windows["status"].tolist() == ["ok", "ok", "unavailable"]
    row = trend.to_frame()[trend.to_frame()["window"] == "men-only"]
    assert len(row) == 1 and row["window_n"].iloc[0] == 40
    assert res.runs["groups"].numbers["trend"]["unmeasured_windows"] == ["men-only"]


def test_complainants_carry_their_window(audit):
    res, out = audit
    table = pd.read_csv(out / "tables/situation_single_gender.csv")
    log = pd.read_csv(out.parent / "log.csv")
    assert list(
        table.columns[table.columns.get_loc("id") + 1 : table.columns.get_loc("id") + 2]
    ) == ["window"]
    expected = log["decided_at"].str[:7].to_numpy()[table["row"].to_numpy()]
    assert (table["window"].to_numpy() == expected).all()
