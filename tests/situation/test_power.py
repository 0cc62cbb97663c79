"""The measured power table and its sentence (src/primafacie/situation/power.py,
power_table.py), and the benchmark that regenerates it from a seed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pandas as pd
import pytest

from primafacie.situation.power import power_row, power_sentence
from primafacie.situation.power_table import ROWS, SETTINGS

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "calibration.py"


def test_table_covers_the_grid_of_the_issue():
    grid = {(m, k, g) for m, k, g, *_ in ROWS}
    assert grid == {
        (m, k, g)
        for m in ("st", "cst", "cst_centers", "cf")
        for k in (15, 30, 50)
        for g in (0.05, 0.1, 0.2)
    }
    for *_, power, bh, by in ROWS:
        assert 0 <= by <= bh <= power <= 1  # an adjustment only removes discoveries
    # CF needs the decision itself to flip, which happens for a share `gap` of the protected
    assert all(power <= gap for m, _, gap, power, *_ in ROWS if m == "cf")


def test_sentence_quotes_the_matching_row_or_says_it_was_not_simulated():
    power, bh, _ = power_row("cst", 30)[0.2]
    text = power_sentence("cst", 30, 0.05, multiplicity="bh")
    assert f"CST w/o with k = 30 detects a 20-point gap in rejection rates for {power:.0%} " in text
    assert f"({bh:.0%} after Benjamini–Hochberg)" in text
    assert "after" not in power_sentence("cst", 30, 0.05, multiplicity="none")
    assert "after" not in power_sentence("cst", 30, 0.05, multiplicity="holm")  # not simulated
    for other in (dict(k=100), dict(alpha=0.01), dict(tau=0.05), dict(interval="newcombe")):
        args = {"method": "cst", "k": 30, "alpha": 0.05, **other}
        assert power_sentence(**args).startswith("The power of this setting was not simulated")


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("calibration_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_power_table_is_reproducible_from_its_seed(bench):
    first = bench.power(runs=1, n=600, alpha=0.05, seed=SETTINGS["seed"])
    again = bench.power(runs=1, n=600, alpha=0.05, seed=SETTINGS["seed"])
    pd.testing.assert_frame_equal(first, again)
    other = bench.power(runs=1, n=600, alpha=0.05, seed=SETTINGS["seed"] + 1)
    assert not first.equals(other)
