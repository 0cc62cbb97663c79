"""Tests of the situation analysis' report section helpers."""

from __future__ import annotations

import pytest


def test_composition_standardises_numeric_and_categorical_levels():
    """Control/test group means in SDs from the population mean; a categorical feature gives one
    indicator bar per level. Hand check: salary 10,20,30,40 has mean 25 and SD 11.18; color
    'r' on rows 0,1 of 4 has mean 0.5, SD 0.5."""
    from types import SimpleNamespace

    import numpy as np
    import pandas as pd

    from primafacie.data import AuditData
    from primafacie.situation.analysis import _composition

    frame = pd.DataFrame(
        {"salary": [10.0, 20.0, 30.0, 40.0], "color": ["r", "r", "g", "g"], "d": [1, 0, 1, 0]}
    )
    data = AuditData(frame, features={"salary": "numeric", "color": "categorical"}, decision="d")
    table = pd.DataFrame({"method": ["cst"], "k": [2], "row": [1]})
    ctrl = np.array([[0, 2]])  # salaries 10, 30; colors r, g; decisions 1, 1
    test = np.array([[3, -1]])  # salary 40; color g; decision 0 (the pad is ignored)
    result = SimpleNamespace(table=table, neighbors={("cst", 2): (ctrl, test)})
    out = _composition(data, result, "cst", 2, table).set_index(["group", "feature"])["mean_z"]
    sd = np.std([10.0, 20.0, 30.0, 40.0])
    assert out[("control", "salary")] == pytest.approx((20 - 25) / sd)
    assert out[("test", "salary")] == pytest.approx((40 - 25) / sd)
    assert out[("control", "color=r")] == pytest.approx(0.0)  # one r, one g
    assert out[("test", "color=r")] == pytest.approx(-1.0)  # g: (0 - 0.5) / 0.5
    assert out[("test", "color=g")] == pytest.approx(1.0)
    assert out[("test", "rejected")] == pytest.approx(1.0)  # rejected: (1 - 0.5) / 0.5
    assert out[("control", "rejected")] == pytest.approx(-1.0)


def test_composition_holds_one_standardised_column_at_a_time(monkeypatch):
    """The composition's rows and values are those of standardising every column at once (the
    order: control then test, features then levels then the rejections), but it holds one
    standardised whole-data column at a time (the Dask client's peak at 2·10^6 rows held ~18)."""
    from types import SimpleNamespace

    import numpy as np
    import pandas as pd

    from primafacie.data import AuditData
    from primafacie.situation import analysis

    rng = np.random.default_rng(0)
    n = 500
    frame = pd.DataFrame({"salary": rng.normal(size=n), "color": rng.choice(list("rgbcmyk"), n),
                          "edu": rng.choice(["lo", "hi"], n), "d": rng.integers(0, 2, n)})  # fmt: skip
    data = AuditData(frame, features={"salary": "numeric", "color": "categorical",
                                      "edu": {"ordinal": ["lo", "hi"]}}, decision="d")  # fmt: skip
    table = pd.DataFrame({"method": ["cst"] * 3, "k": [4] * 3, "row": [3, 8, 9]})
    ctrl, test = rng.integers(-1, n, (3, 4)), rng.integers(-1, n, (3, 4))
    result = SimpleNamespace(table=table, neighbors={("cst", 4): (ctrl, test)})
    alive, held = [0], [0]
    real = analysis._zscore

    class Tracked(np.ndarray):  # counts the standardised columns alive at once
        def __del__(self):
            alive[0] -= 1

    def zscore(vals):
        alive[0] += 1
        held[0] = max(held[0], alive[0])
        return real(vals).view(Tracked)

    monkeypatch.setattr(analysis, "_zscore", zscore)
    out = analysis._composition(data, result, "cst", 4, table.iloc[:2])
    # the reference: every column standardised at once, as the report computed it before
    cols = {"salary": real(frame["salary"].to_numpy())}
    for level in frame["color"].value_counts().index[:6]:
        cols[f"color={level}"] = real((frame["color"] == level).to_numpy(dtype=float))
    cols["edu"] = real(frame["edu"].map({"lo": 0, "hi": 1}).to_numpy(dtype=float))
    cols["rejected"] = real((1 - frame["d"].to_numpy()).astype(float))
    want = []
    for group, idx in (("control", ctrl[:2]), ("test", test[:2])):
        for name, vals in cols.items():
            v = np.where(idx >= 0, vals[np.maximum(idx, 0)], np.nan)
            want.append({"group": group, "feature": name,
                         "mean_z": float(np.nanmean(np.nanmean(v, axis=1)))})  # fmt: skip
    pd.testing.assert_frame_equal(out, pd.DataFrame(want))
    assert held[0] == 1 and len(cols) == 9


@pytest.fixture()
def two_attributes():
    import pandas as pd

    from primafacie.data import AuditData

    # a: protected x = 0, 1, 2, 10 (the last one isolated); b: every other row
    df = pd.DataFrame(
        {
            "x": [0.0, 1, 2, 10, 0.5, 1.5, 2.5, 3.5],
            "a": [1] * 4 + [0] * 4,
            "b": [1, 0] * 4,
            "y": [0, 0, 1, 0, 1, 1, 0, 1],
        }
    )
    return AuditData(df, features={"x": "numeric"}, protected={"a": 1, "b": 1}, decision="y")


def test_run_takes_headline_scope_and_caveats_from_the_results(two_attributes):
    from primafacie.analysis import Context
    from primafacie.situation.analysis import run
    from primafacie.situation.spec import SituationSpec

    spec = SituationSpec(k=[1, 2], methods=["st"], max_distance=0.12)
    ticks = []
    out = run(spec, Context(config=None, data=two_attributes, tick=lambda *a: ticks.append(a)))
    a, b = out.results["single_a"], out.results["single_b"]
    assert ticks == [(0, 2, "a"), (1, 2, "b")]
    assert out.headline == f"a: {a.headline()} b: {b.headline()}"
    assert out.scope == f"a: {a.scope()} b: {b.scope()}"
    assert out.caveats == tuple([f"a: {c}" for c in a.caveats()] + [f"b: {c}" for c in b.caveats()])
    # a: row 3 (x = 10) has nobody within ε = 0.12 · 10 = 1.2: one untested of four
    assert "1 more could not be tested within max_distance 0.12" in a.headline()
    by_test = {(r["test"], r["k"]): r for r in out.numbers["by_test"]}
    assert (by_test[("single_a", 2)]["tested"], by_test[("single_a", 2)]["untested"]) == (3, 1)
    assert set(out.tables) == {
        "situation_single_a",
        "situation_single_a_summary",
        "situation_single_b",
        "situation_single_b_summary",
        "situation_summary",
    }


def test_section_reads_only_the_results(two_attributes):
    from primafacie.analysis import Context
    from primafacie.situation.analysis import run, section
    from primafacie.situation.spec import SituationSpec

    spec = SituationSpec(k=[1, 2], methods=["st"], max_distance=0.12)
    out = run(spec, Context(config=None, data=two_attributes))
    body = section(out, two_attributes, {})  # no configuration: everything comes from run
    assert body["findings"] == [
        f"a: {out.results['single_a'].headline()}",
        f"b: {out.results['single_b'].headline()}",
    ]
    # the caveats are the run's, rendered by the report under every section's findings
    assert not any(out.caveats[0] in str(b.get("text", "")) for b in body["blocks"])
    titles = [b.get("title") for b in body["blocks"]]
    assert "Counts by test, method and k" in titles
    groups = [b for b in body["blocks"] if b["kind"] == "group"]
    assert [g["title"] for g in groups] == ["a: the strongest complaints",
                                            "b: the strongest complaints"]  # fmt: skip
    assert [g["open"] for g in groups] == [True, False]  # the first test's block is open
    inner = [[b.get("title") for b in g["blocks"]] for g in groups]
    assert "Top complainants (a)" in inner[0] and "Top complainants (b)" in inner[1]


def test_section_quotes_the_simulated_power_under_the_headlines():
    from primafacie.analysis import Context
    from primafacie.datasets.null_worlds import make_null_world
    from primafacie.situation.analysis import run, section
    from primafacie.situation.power import power_sentence
    from primafacie.situation.spec import SituationSpec

    data = make_null_world(n=400, seed=1).data
    # the main test is ST at the largest k, 30: a simulated setting, quoted with BY
    out = run(
        SituationSpec(k=[15, 30], methods=["st"], multiplicity="by"),
        Context(config=None, data=data),
    )
    blocks = section(out, data, {})["blocks"]
    texts = [b.get("text", "") for b in blocks]
    sentence = power_sentence("st", 30, 0.05, multiplicity="by")
    assert "Benjamini–Yekutieli" in sentence and "detects a 20-point gap" in sentence
    # right under the headlines (after the caveats when there are any), before the counts
    where = texts.index(sentence)
    assert where <= 1
    assert where < [b.get("title") for b in blocks].index("Counts by test, method and k")


def test_a_positive_direction_section_lists_the_most_favoured_first():
    """direction: positive: every ci_low is −∞ (the interval is (−∞, upper bound]); the
    section renders (its plot once crashed on an infinite axis limit) and its top rows are
    the most negative Δp first, ordered by Δp then the upper bound, ascending."""
    import numpy as np

    from primafacie.analysis import Context
    from primafacie.datasets.null_worlds import make_null_world
    from primafacie.situation.analysis import run, section
    from primafacie.situation.spec import SituationSpec

    data = make_null_world(n=300, seed=2).data
    out = run(SituationSpec(k=[10], methods=["st"], direction="positive"),
              Context(config=None, data=data))  # fmt: skip
    res = next(iter(out.results.values()))
    assert np.isneginf(res.table["ci_low"].dropna()).all()
    top = res.strongest("st", 10, 20)
    block = res.block("st", 10)
    want = block.sort_values(["delta", "ci_high"], kind="stable").head(20)
    assert top["row"].tolist() == want["row"].tolist()
    assert top["delta"].iloc[0] == block["delta"].min()
    body = section(out, data, {})
    figures = [b for g in body["blocks"] if g["kind"] == "group" for b in g["blocks"]
               if str(b.get("title", "")).startswith("Δp with intervals")]  # fmt: skip
    assert figures and all("(−∞, upper bound]" in str(f) for f in figures)
