"""Issue 22 item 4: a situation test's large table written as Parquet parts while it runs.

PARQUET_MIN_ROWS is lowered so that small data exercise the partitioned path; every check
compares it with the in-memory (one CSV) run of the same inputs.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml

from primafacie.audit import run_audit
from primafacie.config import load_config
from primafacie.io import MANIFEST
from primafacie.overtime.diff import diff_audits
from primafacie.overtime.reader import read_results
from primafacie.situation import partitioned
from tests.shared import demo_with_result

SITUATION = {"k": [5, 10], "methods": ["st", "cst", "cst_centers", "cf"]}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """The demo's inputs (300 applicants) and an audit.yaml asking for situation testing
    only (both protected attributes), with the data's id column."""
    base = tmp_path_factory.mktemp("parts")
    # write_demo_inputs(base, n=300, seed=1) is what the shared run_demo(n=300, seed=1) of
    # tests/test_audit.py wrote first (audit.yaml and inputs/): copied, not generated again
    demo_dir = demo_with_result(n=300, seed=1)[0]
    shutil.copytree(demo_dir / "inputs", base / "inputs")
    cfg_path = Path(shutil.copy(demo_dir / "audit.yaml", base / "audit.yaml"))
    cfg = yaml.safe_load(cfg_path.read_text())
    cfg["analyses"] = {"alternatives": None, "situation": SITUATION}
    cfg_path.write_text(yaml.safe_dump(cfg))
    return cfg_path


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != MANIFEST
    }


@pytest.fixture(scope="module")
def audits(inputs, tmp_path_factory):
    """The same audit in memory (CSV tables), partitioned (threshold 100 rows), and
    partitioned again (for determinism)."""
    out = tmp_path_factory.mktemp("out")
    cfg = load_config(inputs)
    whole = run_audit(cfg, out / "whole", progress=False)
    mp = pytest.MonkeyPatch()
    mp.setattr(partitioned, "PARQUET_MIN_ROWS", 100)
    try:
        parts = run_audit(cfg, out / "parts", progress=False)
        run_audit(cfg, out / "again", progress=False)
        # several partitions per (method, k): the workers' layout of a large table
        mp.setattr(partitioned, "PARTITION_COMPLAINANTS", 40)
        run_audit(cfg, out / "split", progress=False)
    finally:
        mp.undo()
    return out, whole, parts


def test_parts_are_named_in_table_order_and_rerun_byte_identical(audits):
    out, _, parts = audits
    files = _files(out / "parts")
    for label in ("gender", "race"):
        names = sorted(f for f in files if f.startswith(f"tables/situation_single_{label}/"))
        # one part per (k, method): 2 k x 4 methods, zero-padded so the names sort in order
        assert names == [f"tables/situation_single_{label}/part-{i:05d}.parquet" for i in range(8)]
        assert f"tables/situation_single_{label}.csv" not in files
    assert files == _files(out / "again")
    # the Result read back after the run points at the output folder, not the staging one
    res = parts.runs["situation"].results["single_gender"]
    assert isinstance(res, partitioned.PartitionedResult)
    assert res.folder == out / "parts" / "tables" / "situation_single_gender"
    assert res.paths[0].is_file()
    assert res.keys[:4] == (("st", 5), ("cst", 5), ("cst_centers", 5), ("cf", 5))


def test_parts_read_back_equal_the_csv_table(audits):
    out, whole, parts = audits
    for label in ("gender", "race"):
        csv = pd.read_csv(out / "whole" / "tables" / f"situation_single_{label}.csv")
        folder = out / "parts" / "tables" / f"situation_single_{label}"
        back = partitioned.read_parts(sorted(folder.glob("part-*.parquet")))
        assert len(back) == len(csv) > 100
        # written the way the CSV writer writes a frame: the same text, cell for cell
        buf = io.StringIO()
        back.to_csv(buf, index=False, lineterminator="\n")
        again = pd.read_csv(io.StringIO(buf.getvalue()))
        pd.testing.assert_frame_equal(again, csv)
        # and the values of the in-memory table, dtypes included
        table = whole.runs["situation"].results[f"single_{label}"].table
        pd.testing.assert_frame_equal(back, table.reset_index(drop=True))


def test_results_json_equal_but_for_see_files_and_tables(audits):
    out, _, _ = audits
    a = json.loads((out / "whole" / "results.json").read_text())
    b = json.loads((out / "parts" / "results.json").read_text())
    for label in ("gender", "race"):
        ra = a["analyses"]["situation"]["results"][f"single_{label}"]
        rb = b["analyses"]["situation"]["results"][f"single_{label}"]
        assert ra["complainants"]["see"] == f"tables/situation_single_{label}.csv"
        assert rb["complainants"] == {
            "rows": ra["complainants"]["rows"],
            "see": f"tables/situation_single_{label}/",
        }
        ra["complainants"]["see"] = rb["complainants"]["see"]
    tables_a = a["analyses"]["situation"].pop("tables")
    tables_b = b["analyses"]["situation"].pop("tables")
    assert set(tables_a) - set(tables_b) == {
        "tables/situation_single_gender.csv",
        "tables/situation_single_race.csv",
    }
    files_a, files_b = a.pop("files"), b.pop("files")
    assert sum(f.endswith(".parquet") for f in files_b) == 16
    assert [f for f in files_a if not f.startswith("tables/situation_single")] == [
        f for f in files_b if not f.startswith("tables/situation_single")
    ]
    assert a == b


def test_report_renders_from_the_parts(audits):
    """The report's top rows are read from the parts (a page of them): the same report but
    for where the full table is."""
    out, _, _ = audits
    a = (out / "whole" / "report.html").read_text()
    b = (out / "parts" / "report.html").read_text()
    for label in ("gender", "race"):
        a = a.replace(f"tables/situation_single_{label}.csv", f"tables/situation_single_{label}/")
    assert a == b
    assert "full table: tables/situation_single_gender/" in b


def test_strongest_reads_only_the_row_groups_it_needs(audits, monkeypatch):
    """Rows spread over several row groups come back in the order of the in-memory sort."""
    _, whole, parts = audits
    res = parts.runs["situation"].results["single_gender"]
    ref = whole.runs["situation"].results["single_gender"]
    monkeypatch.setattr(partitioned, "PART_ROW_GROUP", 7)
    folder = res.folder.parent / "regrouped"
    frames = ((m, k, ref.block(m, k).reset_index(drop=True)) for m, k in res.keys)
    small = partitioned.write_result(lambda t: ref, frames, folder, "tables/x/", ref.n_protected,
                                     ref.params)  # fmt: skip
    for method, k in res.keys:
        got = small.strongest(method, k, 20, ["delta", "ci_low"])
        want = ref.strongest(method, k, 20, ["delta", "ci_low"])
        pd.testing.assert_frame_equal(got.reset_index(drop=True), want.reset_index(drop=True))
        # the index is the row's position in its part
        block = ref.block(method, k).reset_index(drop=True)
        pd.testing.assert_frame_equal(block.iloc[got.index.to_numpy()], got)
    pd.testing.assert_frame_equal(small.summary(), ref.summary())


def test_diff_reads_the_parts(audits):
    """``primafacie diff`` between a CSV audit and a partitioned one matches every
    complainant: nothing appeared or disappeared."""
    out, _, _ = audits
    res = diff_audits(read_results(out / "whole"), read_results(out / "parts"))
    flags = res.to_frame()
    rows = flags[flags["path"] == "situation.flags"]
    assert len(rows) == 2 * 8  # both tests, every (method, k)
    same = diff_audits(read_results(out / "whole"), read_results(out / "whole")).to_frame()
    pd.testing.assert_frame_equal(
        rows.reset_index(drop=True),
        same[same["path"] == "situation.flags"].reset_index(drop=True),
    )


def test_several_partitions_give_the_same_table_report_and_results(audits):
    """Partitions of 40 complainants: each (method, k) is several parts (named in table
    order), read back the same table; the report is the same bytes, results.json the same
    but for the parts listed in ``files``."""
    out, _, _ = audits
    one, split = out / "parts", out / "split"
    for label in ("gender", "race"):
        folder = f"tables/situation_single_{label}"
        a = partitioned.read_parts(sorted((one / folder).glob("part-*.parquet")))
        names = sorted((split / folder).glob("part-*.parquet"))
        assert len(names) > 8 and len(names) % 8 == 0
        assert [p.name for p in names] == [partitioned.part_name(i) for i in range(len(names))]
        pd.testing.assert_frame_equal(partitioned.read_parts(names), a)
    assert (one / "report.html").read_bytes() == (split / "report.html").read_bytes()
    ra = json.loads((one / "results.json").read_text())
    rb = json.loads((split / "results.json").read_text())
    assert len(rb.pop("files")) > len(ra.pop("files"))
    assert ra == rb


def test_a_partition_that_fails_leaves_nothing(inputs, tmp_path, monkeypatch):
    """The parts are written into the run's staging folder: when a partition's task fails
    after others have written their parts, the run fails and neither the output folder nor
    any staging folder (nor a part) is left."""
    cfg = yaml.safe_load(Path(inputs).read_text())
    cfg["analyses"] = {"alternatives": None, "situation": {"k": [5], "methods": ["st"]}}
    # one thread: the first partition has written its parts when the second fails
    cfg["compute"] = {"backend": "local", "n_jobs": 1}
    path = Path(inputs).parent / "st_only.yaml"
    path.write_text(yaml.safe_dump(cfg))
    monkeypatch.setattr(partitioned, "PARQUET_MIN_ROWS", 10)
    monkeypatch.setattr(partitioned, "PARTITION_COMPLAINANTS", 40)
    real = partitioned._write_partition
    seen: list[Path] = []

    def fail_second(job, done):  # pass 2 runs on pass 1's (histograms, partition)
        if done[1].index == 1:
            seen.extend(Path(job.folder).glob("part-*.parquet"))
            raise RuntimeError("worker lost its disk")
        return real(job, done)

    monkeypatch.setattr(partitioned, "_write_partition", fail_second)
    with pytest.raises(RuntimeError, match="lost its disk"):
        run_audit(load_config(path), tmp_path / "out", progress=False)
    assert seen  # parts had been written into the staging folder
    assert not (tmp_path / "out").exists()
    assert list(tmp_path.iterdir()) == []


def test_freed_memory_is_handed_back_before_each_test_and_after_each_analysis(
    inputs, tmp_path, monkeypatch
):
    """What a test's searches and an analysis freed goes back to the system before the next
    test's counterfactuals and the next analysis (or the write) allocate: at 10^6 on Dask the
    client's peak fell from 864 to 770 MB (docs/scaling.md). Each k-NN search hands back its
    transients as it returns, and run_engine between its stages (issue 22, local backend)."""
    import primafacie.audit.run as audit_run
    import primafacie.release as release
    from primafacie.situation.search import GroupSearch

    calls: list[str] = []
    real = release.release_memory
    monkeypatch.setattr(release, "release_memory", lambda: calls.append("situation") or real())
    monkeypatch.setattr(audit_run, "release_memory", lambda: calls.append("audit") or real())
    knn = GroupSearch._knn

    def searched(*args, **kwargs):
        out = knn(*args, **kwargs)
        calls.append("knn")
        return out

    monkeypatch.setattr(GroupSearch, "_knn", staticmethod(searched))
    monkeypatch.setattr(partitioned, "PARQUET_MIN_ROWS", 100)
    run_audit(load_config(inputs), tmp_path / "out", progress=False)
    # every search released its memory before returning
    assert "knn" in calls
    assert all(a == "situation" for a, b in zip(calls, calls[1:], strict=False) if b == "knn")
    # situation's run_engine releases four times per test (before its counterfactuals, its
    # searches, its statistics and its top rows' search): two tests here; the audit once
    # after the read and after the analysis
    assert calls.count("situation") - calls.count("knn") == 8
    assert calls[-1] == "audit" and calls.count("audit") >= 2


def test_a_text_id_missing_for_the_first_complainant(inputs, tmp_path, monkeypatch):
    """Text ids, one blank (the first woman's): with slices of one complainant, the first
    slice of each part of the gender test has no id at all and no Arrow type. The partitioned run
    writes it and reads back the in-memory run's table, the missing id included."""
    base = tmp_path / "in"
    shutil.copytree(Path(inputs).parent / "inputs", base / "inputs")
    data = pd.read_csv(base / "inputs" / "credit_world.csv")
    first = int((data["gender"] == "female").to_numpy().argmax())
    data["id"] = ["" if i == first else f"a-{v}" for i, v in enumerate(data["id"])]
    data.to_csv(base / "inputs" / "credit_world.csv", index=False)
    cfg = yaml.safe_load(Path(inputs).read_text())
    cfg["analyses"] = {"alternatives": None, "situation": {"k": [5], "methods": ["st", "cf"]}}
    path = base / "audit.yaml"
    path.write_text(yaml.safe_dump(cfg))
    whole = run_audit(load_config(path), tmp_path / "whole", progress=False)
    monkeypatch.setattr(partitioned, "PARQUET_MIN_ROWS", 10)
    monkeypatch.setattr(partitioned, "PART_ROW_GROUP", 1)
    run_audit(load_config(path), tmp_path / "parts", progress=False)
    both = data["race"].isin(["black", "hispanic"]).to_numpy()
    for label in ("gender", "race"):
        folder = tmp_path / "parts" / "tables" / f"situation_single_{label}"
        back = partitioned.read_parts(sorted(folder.glob("part-*.parquet")))
        table = whole.runs["situation"].results[f"single_{label}"].table.reset_index(drop=True)
        assert back["id"].isna().sum() == (2 if label == "gender" else 2 * both[first])
        if label == "gender":  # the first complainant of each part (st and cf)
            assert pd.isna(back["id"].iloc[0])
        pd.testing.assert_frame_equal(back, table)
