"""Tests of the report context helpers (settings table, rate cells, assumptions)."""

from __future__ import annotations

import math

from primafacie.audit.registry import ANALYSES
from primafacie.report.blocks import rate_cell
from primafacie.report.sections import _assumptions, _flatten


def test_flatten_settings():
    out: list[tuple[str, str]] = []
    _flatten(
        "", {"a": None, "b": {}, "c": {"d": [1, 2], "e": [["x", "y"], ["y", "z"]]}, "f": 3}, out
    )
    assert out == [("b", "(none)"), ("c.d", "1, 2"), ("c.e", "x → y; y → z"), ("f", "3")]


def test_rate_cell_shows_denominator_and_sorts_by_rate():
    assert rate_cell(3, 12) == ("25.0% (3 of 12)", 0.25)
    text, key = rate_cell(0, 0)
    assert text == "— (0 of 0)" and math.isnan(key)


def test_assumptions_follow_the_configuration():
    cfg = {
        "causal": {"mechanism": "linear", "edges": [["a", "x"]]},
        "analyses": {
            "situation": {"k": [15, 30], "alpha": 0.05, "tau": 0.0, "interval": "wald",
                          "direction": "negative"},
            "principal": None, "certainty": None, "recourse": None,
        },
    }  # fmt: skip
    text = " ".join(_assumptions(cfg, ANALYSES))
    assert "linear structural equation" in text and "α = 0.05" in text and "Bonferroni" in text
    assert "unconfoundedness" not in text  # principal not run
    assert "k ∈ {15, 30}" in text  # a set of sizes, not an interval
