"""csv_bytes: the bytes of ``DataFrame.to_csv``, each distinct cell formatted once."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from primafacie.csvtext import csv_bytes


def _pandas(frame: pd.DataFrame, header: bool = True) -> bytes:
    return frame.to_csv(index=False, lineterminator="\n", header=header).encode("utf-8")


def _table(n: int, seed: int) -> pd.DataFrame:
    """A per-complainant-like table with every handled dtype and the awkward values."""
    rng = np.random.default_rng(seed)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-5, 1e16, 0.1 + 0.2, 5e-324])
    floats = np.where(rng.random(n) < 0.4, rng.choice(specials, n), rng.normal(size=n))
    rates = rng.integers(0, 16, n) / 15  # few distinct values, as a table's rates
    missing = rng.random(n) < 0.2
    return pd.DataFrame(
        {
            "method": pd.array(rng.choice(["st", "cst", "cst_centers", "cf"], n), dtype="str"),
            "k": np.repeat(np.int64(15), n),
            "row": np.arange(n, dtype=np.int64) * 7 - 3,
            "k_c": rng.integers(0, 60, n).astype(np.int32),
            "small": rng.integers(-100, 100, n).astype(np.int8),
            "unsigned": rng.integers(0, 2**63, n, dtype=np.uint64),
            "p_c": rates,
            "x": floats,
            "neg": -floats,
            "flag": rng.random(n) < 0.5,
            "cf_decision": pd.arrays.IntegerArray(rng.integers(0, 2, n).astype(np.int8), missing),
            "cf_flag": pd.arrays.BooleanArray(rng.random(n) < 0.5, missing),
            "text": pd.Series(rng.choice(["a", "é", "'=x", "b c", None], n), dtype=object),
            "sid": pd.array(np.where(missing, None, rng.choice(["id-1", "x"], n)), dtype="str"),
        }
    )


@pytest.mark.parametrize("seed", range(5))
def test_the_bytes_are_pandas_bytes(seed):
    frame = _table(997, seed)
    fast = csv_bytes(frame)
    assert fast is not None  # every column here is handled (else the test would prove nothing)
    assert fast == _pandas(frame)
    assert csv_bytes(frame, header=False) == _pandas(frame, header=False)


def test_a_slice_of_rows_and_columns_is_written_as_pandas_writes_it():
    frame = _table(500, 9).iloc[37:411, ::-1]
    assert csv_bytes(frame) == _pandas(frame)


def test_negative_zero_keeps_its_sign_and_every_nan_is_empty():
    nan2 = np.frombuffer(np.uint64(0x7FF8000000000001).tobytes(), dtype=np.float64)[0]
    frame = pd.DataFrame({"a": [0.0, -0.0, np.nan, nan2, -np.inf], "b": [1, 2, 3, 4, 5]})
    out = csv_bytes(frame)
    assert out == _pandas(frame)
    assert out.splitlines()[1:4] == [b"0.0,1", b"-0.0,2", b",3"]


@pytest.mark.parametrize(
    "frame",
    [
        pd.DataFrame({"a": ["x,y", "z"], "b": [1, 2]}),  # csv would quote the comma
        pd.DataFrame({"a": ['q"t', "z"], "b": [1, 2]}),
        pd.DataFrame({"a": ["line\nbreak", "z"], "b": [1, 2]}),
        pd.DataFrame({"a": ["", "z"], "b": [1, 2]}),  # an empty text cell
        pd.DataFrame({"a": pd.Series([1, "x"], dtype=object), "b": [1, 2]}),  # a number in text
        pd.DataFrame({"a,b": [1, 2], "c": [1, 2]}),  # a name csv would quote
        pd.DataFrame({"a": np.array([1.5, 2.5], dtype=np.float32), "b": [1, 2]}),
        pd.DataFrame({"a": pd.Categorical(["x", "y"]), "b": [1, 2]}),
        pd.DataFrame({"a": pd.to_datetime(["2026-01-01", "2026-01-02"]), "b": [1, 2]}),
        pd.DataFrame({"a": [1, 2]}),  # one column (csv quotes a lone empty field)
        pd.DataFrame({"a": [], "b": []}),
    ],
)
def test_what_it_does_not_handle_is_left_to_pandas(frame):
    assert csv_bytes(frame) is None


def test_other_options_are_left_to_pandas():
    frame = pd.DataFrame({"a": [0.5], "b": [1]})
    assert csv_bytes(frame, index=True) is None
    assert csv_bytes(frame, lineterminator="\r\n") is None
    assert csv_bytes(frame, float_format="%.3f") is None
    assert csv_bytes(frame, index=False, lineterminator="\n") == _pandas(frame)


def test_the_audit_writer_gives_the_same_bytes_with_and_without_it(tmp_path, monkeypatch):
    """atomic_write_table, chunked, through csv_bytes and through pandas alone."""
    import primafacie.io as io

    frame = _table(2_500, 3)
    fast = io.atomic_write_table(tmp_path / "fast.csv", frame, chunk_rows=700).read_bytes()
    monkeypatch.setattr(io, "csv_bytes", lambda *a, **k: None)
    slow = io.atomic_write_table(tmp_path / "slow.csv", frame, chunk_rows=700).read_bytes()
    assert fast == slow == _pandas(io.cells_as_values(frame))
