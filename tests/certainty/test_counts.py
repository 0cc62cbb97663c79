"""Per-group counts for SP / EO / PP, binary, multi-valued and intersectional groups."""

import numpy as np
import pandas as pd
import pytest

from primafacie.certainty.counts import (
    canonical_criterion,
    count_events,
    count_matrix,
    criterion_events,
    group_codes,
    group_counts,
)
from primafacie.errors import InputError

#            0  1  2  3  4  5  6  7
Z = np.array([0, 0, 0, 0, 1, 1, 1, 1])
Y = np.array([1, 1, 0, 0, 1, 0, 0, 0])
P = np.array([1, 0, 1, 0, 1, 1, 0, 0])


def test_statistical_parity_counts_by_hand():
    e1, e2 = criterion_events("statistical_parity", P)
    assert group_counts(Z, e1, e2) == {0: (4, 2), 1: (4, 2)}


def test_equal_opportunity_counts_by_hand():
    # E2: Y = 1 -> rows 0, 1 (group 0) and 4 (group 1); E1: prediction 1 -> rows 0 and 4
    e1, e2 = criterion_events("eo", P, Y)
    assert group_counts(Z, e1, e2) == {0: (2, 1), 1: (1, 1)}


def test_predictive_parity_counts_by_hand():
    # E2: prediction 1 -> rows 0, 2 (group 0), 4, 5 (group 1); E1: Y = 1 -> rows 0 and 4
    e1, e2 = criterion_events("predictive_parity", P, Y)
    assert group_counts(Z, e1, e2) == {0: (2, 1), 1: (2, 1)}


def test_count_events_matches_group_counts_for_all_criteria():
    rng = np.random.default_rng(0)
    n_rows, m, g = 5000, 7, 6
    z = rng.integers(0, g, n_rows)
    y = rng.integers(0, 2, n_rows)
    preds = rng.integers(0, 2, (n_rows, m))
    for crit in ("statistical_parity", "equal_opportunity", "predictive_parity"):
        e1, e2 = criterion_events(crit, preds, y)
        k, n = count_events(z, g, e1, e2, chunk_cells=777 * m)  # several blocks
        for c in (0, 3, 6):
            a, b = criterion_events(crit, preds[:, c], y)
            ref = group_counts(z, a, b)
            assert [ref[i] for i in range(g)] == list(
                zip(n[c].tolist(), k[c].tolist(), strict=True)
            )


def test_count_events_reports_empty_group_as_zero():
    k, n = count_events([0, 0, 2, 2], 3, [1, 0, 1, 1])
    assert n.tolist() == [[2, 0, 2]] and k.tolist() == [[1, 0, 2]]


def test_group_codes_single_and_intersectional():
    df = pd.DataFrame({"race": ["b", "a", "c", "a"], "sex": ["m", "f", "f", "f"]})
    gc = group_codes(df, "race")
    assert gc.labels == ("a", "b", "c") and gc.codes.tolist() == [1, 0, 2, 0]
    assert gc.members.tolist() == [2, 1, 1]
    gc2 = group_codes(df, ["race", "sex"])
    assert gc2.labels == ("a × f", "b × m", "c × f")
    assert gc2.values[1] == ("b", "m")


def test_group_codes_keeps_empty_declared_category():
    df = pd.DataFrame({"r": pd.Categorical(["x", "y", "x"], categories=["y", "x", "z"])})
    gc = group_codes(df, "r")
    assert gc.labels == ("y", "x", "z") and gc.members.tolist() == [1, 2, 0]
    assert gc.codes.tolist() == [1, 0, 1]


def test_group_codes_merges_small_groups():
    df = pd.DataFrame({"r": ["a"] * 5 + ["b"] * 5 + ["c", "d"]})
    with pytest.warns(UserWarning, match="2 member"):  # 1 + 1 is still below 3
        gc = group_codes(df, "r", min_group_size=3)
    assert gc.labels == ("a", "b", "merged: c, d")
    assert gc.members.tolist() == [5, 5, 2]


def test_group_codes_bad_input():
    df = pd.DataFrame({"r": ["a", "a"], "s": [1, None]})
    with pytest.raises(InputError, match="single group"):
        group_codes(df, "r")
    with pytest.raises(InputError, match="missing values"):
        group_codes(df, "s")
    with pytest.raises(InputError, match="'q' is not in the data"):
        group_codes(df, "q")


def test_criterion_names_and_outcome_needed():
    assert canonical_criterion("SP") == "statistical_parity"
    with pytest.raises(InputError, match="unknown criterion"):
        canonical_criterion("calibration")
    with pytest.raises(InputError, match="needs the true outcome"):
        criterion_events("equal_opportunity", P)


def test_non_binary_events_are_rejected():
    # 2 and 0.7 used to be silently read as True
    with pytest.raises(InputError, match="E1.*0/1"):
        group_counts([0, 0, 1, 1], [0, 1, 2, 0])
    with pytest.raises(InputError, match="decisions.*0/1"):
        criterion_events("statistical_parity", [0.3, 0.7, 1.0])
    with pytest.raises(InputError, match="outcome.*0/1"):
        criterion_events("equal_opportunity", [0, 1, 1], [0, 1, 5])


def test_group_codes_warns_when_merging_cannot_reach_the_minimum():
    df = pd.DataFrame({"r": ["a"] * 5 + ["b"] * 5 + ["c"]})
    # one small group: "merging" only relabels it, it stays at 1 member
    with pytest.warns(UserWarning, match="merged: c.*1 member"):
        gc = group_codes(df, "r", min_group_size=3)
    assert gc.members.tolist() == [5, 5, 1]
    with pytest.warns(UserWarning, match="every group"):
        gc = group_codes(df, "r", min_group_size=50)
    assert gc.labels == ("a", "b", "c")


def test_many_valued_protected_column_is_refused():
    frame = pd.DataFrame({"age": np.arange(18, 60), "s": ["f", "m"] * 21})
    with pytest.raises(InputError, match=r"'age' has 42 distinct values \(more than 20\)"):
        group_codes(frame, ["s", "age"])
    assert len(group_codes(frame, "age", max_levels=None).labels) == 42


def test_column_value_pair_gets_a_hint():
    frame = pd.DataFrame({"gender": ["f", "m"], "y": [1, 0]})
    with pytest.raises(InputError, match="certainty takes a column name .*use 'gender'"):
        group_codes(frame, "gender=f")


def test_count_matrix_is_deprecated_and_keeps_its_n_k_order():
    with pytest.warns(DeprecationWarning, match="use count_events, which returns \\(k, n\\)"):
        n, k = count_matrix([0, 0, 2, 2], 3, [1, 0, 1, 1])
    assert n.tolist() == [[2, 0, 2]] and k.tolist() == [[1, 0, 2]]
