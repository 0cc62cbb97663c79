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


def _standardised_by_text(data):
    """The composition's columns as the report computed them before: from the text of every
    row (``astype(str)``), ~105 B per row at once under pandas 3."""
    from primafacie.situation.analysis import _zscore

    for name, spec in data.features.items():
        col = data.frame[name]
        if spec.kind == "ordinal" and spec.order is not None:
            order = {str(v): i for i, v in enumerate(spec.order)}
            yield name, _zscore(col.astype(str).map(order).to_numpy(dtype=float))
        elif spec.kind in ("numeric", "ordinal"):
            yield name, _zscore(col.to_numpy(dtype=float))
        else:
            text = col.astype(str)
            for level in text.value_counts().index[:6]:
                yield f"{name}={level}", _zscore((text == level).to_numpy(dtype=float))
    yield "rejected", _zscore((1 - data.decision_array()).astype(float))


@pytest.mark.parametrize("encoded", [True, False])
def test_composition_columns_of_encoded_text_are_read_by_level(encoded, monkeypatch):
    """On dictionary-encoded columns (what an audit reads) the composition's standardised
    columns are computed once per level and taken by the row codes: bit for bit those of the
    text of every row (ties in the level counts in first-seen order, two levels with one
    text), while no text longer than the levels is
    made (the report's write was the Dask client's peak at 10^7 rows: +1.37 GB). A plain text
    column gives the same columns."""
    import numpy as np
    import pandas as pd

    from primafacie.data import AuditData
    from primafacie.situation import analysis

    rng = np.random.default_rng(1)
    n = 3000
    # exact ties in the counts: the frequent levels are chosen in first-seen order
    color = rng.permutation(np.repeat(list("rgbcmykw"), [600, 600] + [300] * 6))
    edu = rng.choice(["lo", "mid", "hi", "top"], n, p=[0.4, 0.3, 0.29, 0.01])
    tag = rng.choice(np.array([1, "1", 2, "x"], dtype=object), n)
    frame = pd.DataFrame({"salary": rng.normal(size=n), "color": color, "edu": edu,
                          "tag": tag, "d": rng.integers(0, 2, n)})  # fmt: skip
    if encoded:
        for c in ("color", "edu", "tag"):
            frame[c] = frame[c].astype("category")
    data = AuditData(frame, features={"salary": "numeric", "color": "categorical",
                                      "edu": {"ordinal": ["lo", "mid", "hi", "top"]},
                                      "tag": "categorical"}, decision="d")  # fmt: skip
    want = [(name, v.copy()) for name, v in _standardised_by_text(data)]
    made: list[int] = []
    real = pd.Series.astype

    def astype(self, dtype, *args, **kwargs):
        if dtype is str:
            made.append(len(self))
        return real(self, dtype, *args, **kwargs)

    monkeypatch.setattr(pd.Series, "astype", astype)
    got = list(analysis._standardised(data))
    assert [name for name, _ in got] == [name for name, _ in want]
    assert any(name == "tag=1" for name, _ in got)  # 1 and "1": one text, counted together
    for (_, a), (_, b) in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)
    if encoded:  # the levels' texts (+ a missing value's), never n
        assert made and max(made) == 1 + max(len(frame[c].cat.categories) for c in ("color", "tag"))
    else:
        assert n in made


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


# ---- the tests written as parts, overlapped (issue 22: the 10^7 run's idle cores)
def _situation_config(tmp_path, compute=None):
    """The demo's audit.yaml (credit world, gender and race protected) asking for situation
    testing alone, with ``compute`` (group metrics run by default; the alternatives search,
    on by default with the demo's model and outcome, is turned off: 2 of its 5 s)."""
    import yaml

    from primafacie.config import load_config
    from tests.shared import demo_inputs, private_copy

    folder = private_copy(demo_inputs(300, 4), tmp_path / "inputs")
    raw = yaml.safe_load((folder / "audit.yaml").read_text())
    raw["analyses"] = {"situation": {"k": [5], "methods": ["st", "cst", "cst_centers", "cf"],
                                     "dimensions": ["single"]},
                       "alternatives": None}  # fmt: skip
    if compute is not None:
        raw["compute"] = compute
    (folder / "audit.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    return load_config(folder / "audit.yaml")


def _parts_audit(cfg, out, monkeypatch, overlap):
    """``run_audit`` of ``cfg`` into ``out``, the tests written as parts (small parts), with
    the tests overlapped or one after the other; every output file's bytes."""
    from primafacie.audit import run_audit
    from primafacie.situation import analysis, partitioned

    monkeypatch.setattr(partitioned, "PARQUET_MIN_ROWS", 10)
    monkeypatch.setattr(partitioned, "PARTITION_COMPLAINANTS", 32)
    kind = cfg.compute.build().kind if cfg.compute.build() is not None else "local"
    monkeypatch.setattr(analysis, "OVERLAP_BACKENDS", (kind,) if overlap else ())
    run_audit(cfg, out, progress=False)
    files = {p.relative_to(out).as_posix(): p.read_bytes()
             for p in sorted(out.rglob("*")) if p.is_file()}  # fmt: skip
    assert any(name.endswith(".parquet") for name in files)  # the parts path ran
    return files


def _spy_run_parts(monkeypatch, race_first=False, fail=None):
    """Record when each test's statistics (run_parts) start and end, by its folder's name;
    ``race_first``: the gender test's wait until the race test's have ended (overlapped runs
    only: the tasks then end in the other order); ``fail``: the folder name whose statistics
    raise."""
    import threading

    from primafacie.situation import partitioned

    real, seen = partitioned.run_parts, []
    lock, race_done = threading.Lock(), threading.Event()

    def spy(result_of, stats, data, plan, lists, ycf, folder, *args, **kwargs):
        name = folder.name
        if race_first and name.endswith("gender"):
            assert race_done.wait(300), "the race test never ran beside the gender test"
        with lock:
            seen.append(("start", name))
        if fail is not None and name.endswith(fail):
            raise RuntimeError(f"statistics failed on {name}")
        out = real(result_of, stats, data, plan, lists, ycf, folder, *args, **kwargs)
        with lock:
            seen.append(("end", name))
        if name.endswith("race"):
            race_done.set()
        return out

    monkeypatch.setattr(partitioned, "run_parts", spy)
    return seen


def test_overlapped_tests_give_the_sequential_bytes_on_threads(tmp_path, monkeypatch):
    """The two protected attributes' tests overlapped on the local backend's threads (race
    starts once gender has searched) write every file, Parquet parts included, byte for byte
    as one after the other; even when gender's statistics are held back so that race's end
    first (gender's statistics wait for race's: results are placed by label, never by
    arrival)."""
    cfg = _situation_config(tmp_path)
    sequential = _parts_audit(cfg, tmp_path / "seq", monkeypatch, overlap=False)
    seen = _spy_run_parts(monkeypatch, race_first=True)
    overlapped = _parts_audit(cfg, tmp_path / "ovl", monkeypatch, overlap=True)
    ends = [name for what, name in seen if what == "end"]
    assert [n.rsplit("_", 1)[1] for n in ends] == ["race", "gender"]  # out of order
    assert overlapped.keys() == sequential.keys()
    assert [n for n in sequential if overlapped[n] != sequential[n]] == []


@pytest.mark.parametrize("where", ["gender", "race"])
def test_a_failure_in_an_overlapped_test_raises_the_sequential_error(tmp_path, monkeypatch,
                                                                      where):  # fmt: skip
    """A test whose statistics fail (the first, after it let the second start; or the second)
    stops the overlapped audit with the error the sequential audit raises, and writes
    nothing."""
    cfg = _situation_config(tmp_path)
    errors = []
    for overlap in (False, True):
        _spy_run_parts(monkeypatch, fail=where)
        out = tmp_path / f"out_{overlap}"
        with pytest.raises(RuntimeError) as caught:
            _parts_audit(cfg, out, monkeypatch, overlap=overlap)
        errors.append(str(caught.value))
        assert not out.exists()
    assert errors[0] == errors[1] and where in errors[0]


def test_overlapped_tests_give_the_sequential_bytes_on_a_local_cluster(tmp_path, monkeypatch):
    """The same on a 2-worker LocalCluster (``compute: {backend: dask, n_jobs: 2}``; the tests
    run in order by default, overlapped when ``OVERLAP_BACKENDS`` names Dask): overlapped,
    with gender's statistics held back so race's end first, every file is the sequential
    run's byte for byte."""
    pytest.importorskip("distributed", reason="the [dask] extra is not installed")
    from primafacie.compute import close_dask_clients
    from primafacie.situation import analysis

    # the default: in order on every backend (the overlap cost 219 s at 5·10^6 on Dask)
    assert analysis.OVERLAP_BACKENDS == ()
    cfg = _situation_config(tmp_path, {"backend": "dask", "n_jobs": 2})
    try:
        sequential = _parts_audit(cfg, tmp_path / "seq", monkeypatch, overlap=False)
        seen = _spy_run_parts(monkeypatch, race_first=True)
        overlapped = _parts_audit(cfg, tmp_path / "ovl", monkeypatch, overlap=True)
    finally:
        close_dask_clients()
    ends = [name for what, name in seen if what == "end"]
    assert [n.rsplit("_", 1)[1] for n in ends] == ["race", "gender"]
    assert overlapped.keys() == sequential.keys()
    assert [n for n in sequential if overlapped[n] != sequential[n]] == []
