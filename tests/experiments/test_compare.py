"""Verdicts of ours-vs-paper checks (src/primafacie/experiments/compare.py)."""

from __future__ import annotations

import math

import pytest

from primafacie.experiments.compare import (
    COLUMNS,
    check,
    comparison_frame,
    status_counts,
)


@pytest.mark.parametrize(
    "ours,paper,kwargs,status",
    [
        (55, 55, {}, "exact"),
        (55.0000000001, 55, {}, "exact"),  # float noise below 1e-9
        (56, 55, {}, "differs"),
        (0.8485, 0.85, {"tol": 0.01}, "within tolerance"),
        (0.8385, 0.85, {"tol": 0.01}, "differs"),
        (107, 100, {"tol": 0.10, "rel": True}, "within tolerance"),
        (111, 100, {"tol": 0.10, "rel": True}, "differs"),
        (110, 100, {"tol": 0.10, "rel": True}, "within tolerance"),  # the edge is inside
        ("inf", math.inf, {"tol": 0.05}, "exact"),
        (2.0, "inf", {"tol": 0.05}, "differs"),
        ("Fair", "Fair", {}, "exact"),
        ("against Male", "against Female", {}, "differs"),
        ("Fair", 1, {}, "differs"),
        (4003, 2950, {"reference_only": True}, "reference only"),
    ],
)
def test_verdicts(ours, paper, kwargs, status):
    assert check("T", "q", ours, paper, **kwargs).status == status


def test_tolerance_text_and_frame():
    rows = [
        check("Table 12", "pairs", 99_967, 97_413, tol=0.10, rel=True),
        check("§6.1", "budget", 5.0769, 5.08, tol=0.05),
        check("Table 1", "verdict", "Fair", "Fair"),
        check("Table 1", "rank", 4003, 2950, reference_only=True, note="model-dependent"),
    ]
    frame = comparison_frame(rows)
    assert list(frame.columns) == COLUMNS
    assert frame["tolerance"].tolist() == ["±10%", "±0.05", "exact", ""]
    assert frame["note"].tolist() == ["", "", "", "model-dependent"]
    assert status_counts(frame) == {
        "exact": 1,
        "within tolerance": 2,
        "differs": 0,
        "reference only": 1,
    }
    assert status_counts(comparison_frame([])) == dict.fromkeys(
        ("exact", "within tolerance", "differs", "reference only"), 0
    )


@pytest.mark.parametrize(
    "name",
    [
        "cst-loan",
        "cst-law",
        "facts-adult",
        "principal-examples",
        "principal-student",
        "certainty-hiring",
        "certainty-synthetic",
        "certainty-compas",
    ],
)
def test_compare_without_the_runs_csv_is_an_input_error_naming_it(name, tmp_path):
    """compare_* read what the run wrote; an empty folder is bad input naming the missing CSV."""
    from primafacie.errors import InputError
    from primafacie.experiments import get_comparison

    with pytest.raises(InputError, match=r"\.csv"):
        get_comparison(name)(tmp_path, None, legacy=True)
