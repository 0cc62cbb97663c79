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
    assert (
        f"CST without centres with k = 30 detects a 20-point gap in rejection rates for {power:.0%} "
        in text
    )
    assert f"({bh:.0%} after Benjamini–Hochberg)" in text
    assert "after" not in power_sentence("cst", 30, 0.05, multiplicity="none")
    assert "after" not in power_sentence("cst", 30, 0.05, multiplicity="holm")  # not simulated
    for other in (dict(k=100), dict(alpha=0.01), dict(tau=0.05), dict(interval="wald")):
        args = {"method": "cst", "k": 30, "alpha": 0.05, **other}
        assert power_sentence(**args).startswith("The power of this setting was not simulated")
    # the table was simulated with the engine's default interval; "wilson" is its alias
    assert SETTINGS["interval"] == "newcombe"
    assert power_sentence("cst", 30, 0.05, interval="wilson") == text


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


def test_exact_size_of_one_test_by_hand(bench):
    # n = 1, Wald: only (x_c, x_t) = (1, 0) has p < 0.5 (a point interval, p = 0), so
    # P(p ≤ t) = rate·(1 − rate) for every t < 0.5
    assert bench.exact_size(1, 0.5, 0.01, "wald") == pytest.approx(0.25)
    assert bench.exact_size(1, 0.3, 1e-4, "wald") == pytest.approx(0.21)
    # n = 2, Newcombe: (2, 0) has p = 1 − Φ(sqrt(2 + 2√2)) = 0.0140 (test_engine), the next
    # smallest, (1, 0) and (2, 1), 0.129; so P(p ≤ 0.05) = rate²(1 − rate)² and P(p ≤ 0.01) = 0
    assert bench.exact_size(2, 0.5, 0.05, "newcombe") == pytest.approx(1 / 16)
    assert bench.exact_size(2, 0.5, 0.01, "newcombe") == 0.0
    # Wald at n = 2: (1, 0) has z = 0.5/sqrt(0.125) = 1.414, p = 0.079 > 0.05, so both
    # intervals reject only (2, 0) at 0.05: 1/16 over t = 1.25; at 0.01 only Wald's p = 0 is left
    table = bench.exact_tail(ns=(2,), rates=(0.5,)).set_index("interval")
    assert table["P(p≤0.05)/t"].tolist() == pytest.approx([1.25, 1.25])
    assert table["P(p≤0.01)/t"].to_dict() == pytest.approx({"wald": 6.25, "newcombe": 0.0})
