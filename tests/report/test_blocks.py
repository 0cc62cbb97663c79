"""Collapsible groups of report blocks and readable labels, checked by hand."""

from __future__ import annotations

from primafacie.report import blocks as rb
from primafacie.report.html import readable_bins, render_fragment


def test_group_drops_missing_blocks_and_vanishes_when_empty():
    g = rb.group("gender", [None, rb.text("a"), None], "3 of 10")
    assert g == {"kind": "group", "title": "gender", "summary": "3 of 10", "open": None,
                 "blocks": [{"kind": "text", "text": "a"}]}  # fmt: skip
    assert rb.group("race", [None]) is None


def test_section_opens_the_first_undecided_group_only():
    body = rb.section(
        ["finding"],
        [rb.text("x"), rb.group("a", [rb.text("1")], open=False), rb.group("b", [rb.text("2")]),
         None, rb.group("c", [rb.text("3")])],
    )  # fmt: skip
    assert [b.get("open") for b in body["blocks"]] == [None, False, True, False]


def test_groups_render_as_details_with_the_first_open():
    body = rb.section(
        [], [rb.group("a <b>", [rb.text("one")], "n=3"), rb.group("c", [rb.text("2")])]
    )
    frag = render_fragment({"title": "t", "headline": "h", "facts": [], "caveats": [],
                            "blocks": body["blocks"]})  # fmt: skip
    assert frag.count("<details") == 2 and frag.count('<details class="group" open>') == 1
    assert frag.index('<details class="group" open>') < frag.index("a &lt;b&gt;")
    assert "n=3" in frag and "<p>one</p>" in frag


def test_readable_bins_by_hand():
    assert readable_bins("(21.999, 33]") == "22–33"  # qcut lowers the first edge by 0.001
    assert readable_bins("age=(33, 41]; income=(-1.5, 2.25]") == "age=33–41; income=-1.5–2.25"
    assert readable_bins("x=(1e+03, 2e+03]") == "x=1000–2000"
    assert readable_bins("(0.12345, 0.5]") == "0.12–0.5"
    assert readable_bins("[1, 2) and (a, b] stay") == "[1, 2) and (a, b] stay"


def test_columns_copy_name_rate_pairs_and_take_values_as_given():
    import pandas as pd

    from primafacie.report.blocks import columns

    f = pd.DataFrame({"g": ["a", "b"], "k": [1, 3], "n": [4, 0]}, index=[7, 9])
    shown = columns(f, {"group": "g", "rate": ("k", "n"), "note": ["x", "y"]})
    assert list(shown.columns) == ["group", "rate", "note"] and list(shown.index) == [7, 9]
    assert shown["rate"].iloc[0] == ("25.0% (1 of 4)", 0.25)  # 1/4 by hand
    assert shown["rate"].iloc[1][0] == "— (3 of 0)"  # no rate without a denominator


def test_verdict_is_a_concern_with_the_share_or_clear():
    from primafacie.report.blocks import verdict

    assert verdict(3, 12, "3 of 12", "bad", "fine") == {
        "level": "concern", "badge": "bad", "sentence": "3 of 12", "strength": 0.25}  # fmt: skip
    assert verdict(0, 12, "0 of 12", "bad", "fine")["level"] == "clear"
    assert verdict(0, 12, "0 of 12", "bad", "fine")["strength"] == 0.0
