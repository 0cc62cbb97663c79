"""Local Law 144 tables on a generated hiring table, against a hand computation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from primafacie.errors import InputError
from primafacie.ll144 import LL144Tables


def hiring() -> pd.DataFrame:
    """200 applicants: 90 women (27 selected), 100 men (50), 3 'Other' (1: 1.6% of the known),
    7 with a blank sex; race White 120 / Black 73 / '' 4 / 'Unknown' 3."""
    sex = ["Female"] * 90 + ["Male"] * 100 + ["Other"] * 3 + [""] * 7
    sel = [1] * 27 + [0] * 63 + [1] * 50 + [0] * 50 + [1, 0, 0] + [1] * 7
    race = (["White"] * 60 + ["Black"] * 30) + (["White"] * 60 + ["Black"] * 38 + ["Unknown", ""]) \
        + ["Black", "Black", "Black"] + ["Black", "Black", "Unknown", "Unknown", "", "", ""]  # fmt: skip
    return pd.DataFrame({"sex": sex, "race": race, "sel": sel})


def test_selection_rates_and_impact_ratios_by_hand():
    df = hiring()
    res = LL144Tables({"sex": "sex", "race/ethnicity": "race"}, unknown=["Unknown"]).run(
        df, df["sel"].to_numpy()
    )
    t = res.table.set_index(["dimension", "category"])
    # sex: 193 of known sex; Other is 3/193 = 1.55% < 2%: excluded, rate still shown
    assert res.unknown["sex"] == 7
    assert t.loc[("sex", "Female"), ["n", "k"]].tolist() == [90, 27]
    assert t.loc[("sex", "Male"), "rate"] == pytest.approx(0.5)
    assert t.loc[("sex", "Female"), "impact_ratio"] == pytest.approx(0.3 / 0.5)
    assert bool(t.loc[("sex", "Other"), "excluded"])
    assert np.isnan(t.loc[("sex", "Other"), "impact_ratio"])
    assert t.loc[("sex", "Other"), "rate"] == pytest.approx(1 / 3)
    assert bool(t.loc[("sex", "Male"), "highest"])
    # race: unknown = blank (4) + 'Unknown' (3) = 7 → 193 known
    assert res.unknown["race/ethnicity"] == 7
    white = df[(df["race"] == "White")]
    black = df[(df["race"] == "Black")]
    rw, rb = white["sel"].mean(), black["sel"].mean()
    hi = max(rw, rb)
    assert t.loc[("race/ethnicity", "White"), "impact_ratio"] == pytest.approx(rw / hi)
    assert t.loc[("race/ethnicity", "Black"), "impact_ratio"] == pytest.approx(rb / hi)
    # intersection: unknown on either dimension is unknown
    both = (df["sex"] != "") & ~df["race"].isin(["", "Unknown"])
    assert res.unknown["sex × race/ethnicity"] == int((~both).sum())
    fw = df[both & (df["sex"] == "Female") & (df["race"] == "White")]
    assert t.loc[("sex × race/ethnicity", "Female × White"), "n"] == len(fw)
    known = df[both]
    shares = known.groupby(["sex", "race"]).size() / len(known)
    small = {f"{s} × {r}" for (s, r), v in shares.items() if v < 0.02}
    got = set(
        res.table[(res.table["dimension"] == "sex × race/ethnicity") & res.table["excluded"]][
            "category"
        ]
    )
    assert got == small


def test_scoring_rates_use_the_median():
    df = pd.DataFrame({"sex": ["F", "F", "F", "M", "M", "M"], "s": [1, 2, 3, 4, 5, 6]})
    res = LL144Tables({"sex": "sex"}, exclude_below=0).run(df, score=df["s"].to_numpy())
    t = res.table.set_index("category")
    # median 3.5: F has 0 of 3 above, M 3 of 3
    assert res.median == 3.5
    assert t.loc["F", "k"] == 0 and t.loc["M", "k"] == 3
    assert t.loc["F", "impact_ratio"] == 0.0
    assert "scoring rate" in res.scope() or "median" in res.scope()


def test_an_unknown_value_that_matches_nothing_stops():
    df = hiring()
    with pytest.raises(InputError, match="occur in no category column"):
        LL144Tables({"sex": "sex"}, unknown=["N/A"]).run(df, df["sel"].to_numpy())


def test_headline_names_the_lowest_ratio_with_counts():
    df = hiring()
    res = LL144Tables({"sex": "sex"}).run(df, df["sel"].to_numpy())
    assert (
        res.headline()
        == "Lowest selection-rate impact ratio per category: sex: Female 0.60 (30.0%, 27 of 90)"
    )
