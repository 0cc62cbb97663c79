"""primafacie.formats: the one rate formatter and the per-column decimals, by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from primafacie.formats import column_decimals, fixed, no_negative_zero, rate_text
from primafacie.report.html import fixed_decimals, readable_bins, table_from_frame


@pytest.mark.parametrize(
    ("args", "kwargs", "text"),
    [
        ((25, 200), {}, "12.5% (25 of 200)"),
        ((1, 3), {}, "33.3% (1 of 3)"),
        ((2, 3), {"digits": 0}, "67% (2 of 3)"),
        ((0, 0), {}, "— (0 of 0)"),
        ((1, 4), {"ci": (0.046, 0.699), "level": "90%"}, "25.0% (1 of 4; 90% CI 4.6–69.9%)"),
        ((0, 7), {"ci": (-0.00001, 0.35)}, "0.0% (0 of 7; 95% CI 0.0–35.0%)"),
    ],
)
def test_rate_text_by_hand(args, kwargs, text):
    assert rate_text(*args, **kwargs) == text


def test_the_report_groups_and_recourse_share_one_formatter():
    from primafacie.commands import groups as groups_command
    from primafacie.groups import analysis as groups_analysis
    from primafacie.groups import results as groups_results
    from primafacie.recourse import results as recourse_results
    from primafacie.report.blocks import rate_cell
    from primafacie.report.html import rate_text as report_rate

    # the Result modules call the one formatter itself (their wrappers _pct, _share are gone)
    assert groups_results.rate_text is rate_text and recourse_results.rate_text is rate_text
    # the command formats nothing (its wrapper _rate, then its own table, are gone): it prints
    # the report section's table (groups.analysis.tables), whose cells are the one formatter's
    assert not hasattr(groups_command, "rate_text") and groups_analysis.rate_text is rate_text
    assert {rate_cell(3, 5)[0], report_rate(3, 5)} == {"60.0% (3 of 5)"}


def test_column_decimals_give_three_significant_digits_of_the_largest():
    # 20.5 -> 3 significant digits = 1 decimal; 0.5 -> 3; 1234.5 -> 0; all zero -> 0
    assert [column_decimals(v) for v in ([20.5, 16.0], [0.01234, 0.5], [1234.5], [0.0])] == [
        1,
        3,
        0,
        0,
    ]
    assert fixed(16.0, 1) == "16.0" and fixed(-0.0004, 3) == "0.000"
    assert no_negative_zero("-0.000") == "0.000" and no_negative_zero("-0.001") == "-0.001"


def test_a_table_column_keeps_one_number_of_decimals():
    frame = pd.DataFrame(
        {"cost": [20.5, 16.0], "share": [0.25, 1.0], "count": [3.0, 16.0], "n": [1, 2]}
    )
    assert [fixed_decimals(frame[c]) for c in frame.columns] == [1, 3, 0, None]
    rows = table_from_frame(frame, "t")["rows"]
    assert [[text for text, _ in row] for row in rows] == [
        ["20.5", "0.250", "3", "1"],
        ["16.0", "1.000", "16", "2"],
    ]


def test_bins_never_show_minus_zero():
    assert readable_bins("savings=(-0.001, 3.0]") == "savings=0–3"
    assert readable_bins("x=(-1.5, -0.004]") == "x=-1.5–0"
