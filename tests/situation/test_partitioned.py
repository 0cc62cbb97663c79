"""situation.partitioned: how a part is written and read back (its write path)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from primafacie.situation import partitioned


def _part(n: int, ids: str) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    missing = rng.random(n) < 0.3
    frame = pd.DataFrame(
        {
            "method": pd.array(["cst"] * n, dtype="str"),
            "k": np.full(n, 15, dtype=np.int64),
            "row": np.sort(rng.choice(10 * n, n, replace=False)).astype(np.int64),
            "id": np.arange(n, dtype=np.int64) * 3,
            "k_c": rng.integers(0, 16, n).astype(np.int32),
            "delta": rng.integers(-15, 16, n) / 15,
            "ci_low": np.where(missing, np.nan, rng.normal(size=n)),
            "significant": rng.random(n) < 0.2,
            "cf_decision": pd.arrays.IntegerArray(rng.integers(0, 2, n).astype(np.int8), missing),
            "cf_flag": pd.arrays.BooleanArray(rng.random(n) < 0.5, missing),
        }
    )
    if ids == "text":
        frame["id"] = pd.array([f"p-{i}" for i in range(n)], dtype="str")
    return frame


def _encodings(path) -> dict[str, set[str]]:
    meta = pq.ParquetFile(path).metadata
    names = meta.schema.to_arrow_schema().names
    return {name: set(meta.row_group(0).column(i).encodings) for i, name in enumerate(names)}


@pytest.mark.parametrize("ids", ["int", "text"])
def test_a_part_reads_back_as_written(tmp_path, monkeypatch, ids):
    monkeypatch.setattr(partitioned, "PART_ROW_GROUP", 1_000)  # several row groups
    frame = _part(4_321, ids)
    path = tmp_path / "part-00000.parquet"
    partitioned.write_part(path, frame)
    back = partitioned.read_parts([path])
    pd.testing.assert_frame_equal(back, frame)
    assert back.dtypes.equals(frame.dtypes)
    assert pq.ParquetFile(path).metadata.num_row_groups == 5
    # a few rows across row groups, in the order asked
    rows = np.array([4_000, 3, 1_500, 999, 1_000])
    pd.testing.assert_frame_equal(
        partitioned._read_rows(path, rows), frame.iloc[rows].reset_index(drop=True)
    )


@pytest.mark.parametrize("ids", ["int", "text"])
def test_a_part_written_slice_by_slice_is_the_part_written_whole(tmp_path, monkeypatch, ids):
    """The statistics write a part a slice of PART_ROW_GROUP rows at a time (_PartFile, issue
    22: one slice held, not the whole frame): the file's bytes are those of the whole frame
    written at once."""
    monkeypatch.setattr(partitioned, "PART_ROW_GROUP", 1_000)
    frame = _part(4_321, ids)
    whole, sliced = tmp_path / "whole.parquet", tmp_path / "sliced.parquet"
    partitioned.write_part(whole, frame)
    with partitioned._PartFile(sliced) as part:
        for start in range(0, len(frame), 1_000):
            part.write(frame.iloc[start : start + 1_000].reset_index(drop=True))
    assert sliced.read_bytes() == whole.read_bytes()
    pd.testing.assert_frame_equal(partitioned.read_parts([sliced]), frame)


@pytest.mark.parametrize("ids", ["int", "text"])
def test_the_columns_unique_per_row_skip_the_dictionary(tmp_path, ids):
    """row and id hold a value per row: no dictionary (integers as deltas); every other
    non-boolean column is dictionary-encoded, as before (booleans are RLE in Parquet)."""
    path = tmp_path / "part.parquet"
    partitioned.write_part(path, _part(3_000, ids))
    enc = _encodings(path)
    assert "DELTA_BINARY_PACKED" in enc["row"] and "RLE_DICTIONARY" not in enc["row"]
    assert "RLE_DICTIONARY" not in enc["id"]
    assert ("DELTA_BINARY_PACKED" in enc["id"]) == (ids == "int")
    for name in ("method", "k", "k_c", "delta", "ci_low", "cf_decision"):
        assert "RLE_DICTIONARY" in enc[name], name


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("ascending", [False, True])
def test_the_first_rows_are_those_of_the_whole_stable_sort(seed, ascending):
    """_first sorts only the rows that can be first; ties (many, on few distinct Δp), NaN
    and the second key order them exactly as the stable sort of the whole frame does."""
    rng = np.random.default_rng(seed)
    n = 5_000
    delta = rng.integers(-4, 5, n) / 4  # 9 distinct values: thousands of ties
    delta[rng.random(n) < 0.1] = np.nan
    bound = np.round(rng.normal(size=n), 1)
    bound[rng.random(n) < 0.1] = np.nan
    frame = pd.DataFrame({"delta": delta, "ci_low": bound}, index=np.arange(n) * 2 + 5)
    keys = ["delta", "ci_low"]
    for top in (1, 20, 700, 4_400, 4_600, 6_000):
        whole = frame.sort_values(keys, ascending=ascending, kind="stable").head(top)
        pd.testing.assert_frame_equal(partitioned._first(frame, keys, ascending, top), whole)


def test_the_first_rows_of_an_all_missing_or_integer_key_use_the_whole_sort():
    frame = pd.DataFrame({"delta": [np.nan] * 5, "k": [3, 1, 3, 2, 1]})
    for keys in (["delta"], ["k"]):
        whole = frame.sort_values(keys, ascending=False, kind="stable").head(2)
        pd.testing.assert_frame_equal(partitioned._first(frame, keys, False, 2), whole)


@pytest.mark.parametrize("empty", [1, 3])
def test_text_ids_missing_in_the_first_slices_take_the_later_slices_type(tmp_path, empty):
    """An object column (text ids) with no value in the first slice has no Arrow type there:
    the part holds slices until one types it, then writes them all in that type (it failed
    with 'Unsupported cast from large_string to null'). The file reads back as the whole
    frame written at once does."""
    n, size = 10, 2
    ids = np.array([None] * (empty * size) + [f"p-{i}" for i in range(n - empty * size)], object)
    frame = pd.DataFrame({"row": np.arange(n, dtype=np.int64), "id": ids})
    whole, sliced = tmp_path / "whole.parquet", tmp_path / "sliced.parquet"
    partitioned.write_part(whole, frame)
    with partitioned._PartFile(sliced) as part:
        for start in range(0, n, size):
            part.write(pd.DataFrame({"row": frame["row"][start : start + size].to_numpy(),
                                     "id": ids[start : start + size]}))  # fmt: skip
    back = partitioned.read_parts([sliced])
    pd.testing.assert_frame_equal(back, partitioned.read_parts([whole]))
    assert back["id"].isna().sum() == empty * size
    assert back["id"].iloc[-1] == f"p-{n - empty * size - 1}"


def test_a_column_empty_in_every_slice_is_written_when_the_part_closes(tmp_path):
    path = tmp_path / "part.parquet"
    with partitioned._PartFile(path) as part:
        for start in (0, 2):
            part.write(pd.DataFrame({"row": [start, start + 1], "id": [None, None]}))
    back = partitioned.read_parts([path])
    assert back["row"].tolist() == [0, 1, 2, 3] and back["id"].isna().all()
