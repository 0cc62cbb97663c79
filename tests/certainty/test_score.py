"""Scoring from counts: Tables 1-2 and Table 3's published counts, grid facts."""

import warnings

import numpy as np
import pandas as pd
import pytest

from primafacie.certainty.engine import score_counts
from primafacie.certainty.score import score_pairs, synthetic_grid
from primafacie.errors import InputError


def test_table3_rows_from_published_counts():
    # (n_i, k_i, n_j, k_j) of Table 3; group order: Asian (i), Native American (j)
    counts = {"LR": (6, 6, 4, 2), "KNN": (6, 5, 4, 0), "SVM": (6, 6, 4, 0), "RF": (6, 6, 4, 0)}
    names = list(counts)
    c = np.array([counts[m] for m in names])
    res = score_counts(
        c[:, [1, 3]], c[:, [0, 2]], names=names, groups=["Asian", "Native American"],
        accuracy=[0.72, 0.6681, 0.7110, 0.7020], tie_breaker="accuracy",
    )  # fmt: skip
    t = res.table.set_index("decision_maker")
    assert t.loc["LR", "utility"] == 0.0  # exactly: disparity 0.5 computed from integers
    assert t.loc["LR", "uncertainty"] == pytest.approx(0.430804, abs=1e-6)
    assert t.loc["KNN", ["disparity", "uncertainty", "utility"]].tolist() == pytest.approx(
        [0.833333, 0.366071, -0.507967], abs=1e-6
    )
    assert t.loc["SVM", ["disparity", "uncertainty", "utility"]].tolist() == pytest.approx(
        [1.0, 0.287946, -0.752685], abs=1e-6
    )
    np.testing.assert_allclose(
        t.loc[names, "utility_norm"], [0.5, 0.24602, 0.12366, 0.12366], atol=1e-5
    )
    np.testing.assert_allclose(
        t.loc[["LR", "KNN", "SVM"], "bayesian_disparity"], [0.375, 0.583333, 0.708333], atol=1e-6
    )
    assert res.selected == ("LR",)
    assert t.loc["SVM", "rank"] == t.loc["RF", "rank"] == 3
    assert bool(t.loc["SVM", "tied"]) and not bool(t.loc["LR", "tied"])
    assert (t.loc[names, "most_privileged"] == "Asian").all()
    assert (t.loc[names, "least_privileged"] == "Native American").all()


def test_tie_breaker_decides_between_svm_and_rf():
    c = np.array([[6, 6, 4, 0], [6, 6, 4, 0]])
    res = score_counts(
        c[:, [1, 3]], c[:, [0, 2]], names=["SVM", "RF"], accuracy=[0.7110, 0.7020],
        tie_breaker="accuracy",
    )  # fmt: skip
    assert res.best == ("SVM", "RF") and res.selected == ("SVM",)
    plain = score_counts(c[:, [1, 3]], c[:, [0, 2]], names=["SVM", "RF"])
    assert plain.selected == ("SVM", "RF")


def test_score_pairs_demo_preference():
    out = score_pairs(ki=[3, 0], ni=[3, 6], kj=[2, 1], nj=[3, 6])
    np.testing.assert_allclose(out["utility"], [0.210533, 0.544176], atol=1e-6)
    assert out["rank"].tolist() == [2, 1]


def test_synthetic_grid_facts():
    grid = synthetic_grid()
    assert len(grid) == 4900
    assert grid["utility"].max() == pytest.approx(0.993615, abs=1e-6)
    assert grid["utility"].min() == pytest.approx(-0.993615, abs=1e-6)
    assert grid["utility"].mean() == pytest.approx(0.2624, abs=1e-4)
    assert grid["utility"].median() == pytest.approx(0.3460, abs=1e-4)
    half = grid["disparity"] == 0.5
    assert half.sum() == 120 and (grid.loc[half, "utility"] == 0).all()
    assert (grid["utility"] > 0).mean() == pytest.approx(0.70, abs=0.01)
    assert grid["rank"].is_monotonic_increasing
    # every integer k is present, including k = 29 for n = 50 (the authors' script skips it)
    assert ((grid["n_i"] == 50) & (grid["k_i"] == 29)).sum() == 70


def test_non_integer_counts_are_rejected_not_truncated():
    # n = 2.5 used to be cast to 2 silently, and the table reported n_i = 2
    with pytest.raises(InputError, match="whole numbers"):
        score_pairs([1], [2.5], [1], [2])
    with pytest.raises(InputError, match="whole numbers"):
        score_counts([[1, 1]], [[2.5, 2]])
    with pytest.raises(InputError, match="finite"):
        score_counts([[1, 1]], [[np.inf, 2]])


def test_single_nonempty_group_error_names_decision_maker():
    with pytest.raises(InputError, match="dm1"), pytest.warns(UserWarning, match="dm1: g1"):
        score_counts([[1, 1], [1, 0]], [[3, 2], [3, 0]], names=["dm0", "dm1"])


def test_accuracy_comes_with_count_and_denominator():
    res = score_counts([[3, 0]], [[3, 3]], names=["A"], accuracy=[0.5],
                       accuracy_counts=([3], [6]))  # fmt: skip
    row = res.table.iloc[0]
    assert (row["accuracy_k"], row["accuracy_n"], row["accuracy"]) == (3, 6, 0.5)


def test_score_counts_takes_k_before_n_and_recognises_the_former_order():
    k, n = [[3, 0], [1, 0]], [[3, 3], [1, 1]]
    new = score_counts(k, n, names=["A", "B"])
    assert new.table.set_index("decision_maker").loc[
        "A", ["n_i", "k_i", "n_j", "k_j"]
    ].tolist() == [3, 3, 3, 0]
    with pytest.warns(DeprecationWarning, match=r"score_counts now takes counts as \(k, n\)"):
        old = score_counts(n, k, names=["A", "B"])
    pd.testing.assert_frame_equal(old.to_frame(), new.to_frame())
    # keywords are unambiguous and never warn
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        kw = score_counts(n=n, k=k, names=["A", "B"])
    pd.testing.assert_frame_equal(kw.to_frame(), new.to_frame())


def test_score_counts_equal_k_and_n_is_not_taken_for_the_former_order():
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        res = score_counts([[2, 2]], [[2, 2]])
    assert res.table.loc[0, "disparity"] == 0


def test_score_pairs_former_order_still_works_with_a_warning():
    new = score_pairs([3, 0], [3, 6], [2, 1], [3, 6])
    with pytest.warns(DeprecationWarning, match=r"\(ki, ni, kj, nj\)"):
        old = score_pairs([3, 6], [3, 0], [3, 6], [2, 1])
    for key in new:
        np.testing.assert_array_equal(old[key], new[key])


def test_a_mix_of_orders_is_an_error_not_a_swap():
    # k > n in the first pair only while the second is valid: neither order is right
    with pytest.raises(InputError, match="0 <= k <= n"):
        score_pairs([4], [3], [1], [2])


def test_score_counts_checks_its_settings_with_the_shared_constraints():
    with pytest.raises(
        InputError, match=r"^score_counts: ci_level must be a number in \(0, 1\); got 1"
    ):
        score_counts([[1, 0]], [[1, 1]], ci_level=1)
    with pytest.raises(
        InputError, match=r"^score_counts: ties must be one of 'first', 'most_uncertain'"
    ):
        score_counts([[1, 0]], [[1, 1]], ties="last")


#: score_counts's public signature as it was written out by hand (before its scoring settings
#: were taken from CertaintyRanking's signature): it must not change.
SCORE_COUNTS_SIGNATURE = (
    "(k, n, names: 'Sequence[str] | None' = None, groups: 'GroupCodes | Sequence[str] | None' "
    "= None, criterion: 'str' = 'statistical_parity', favorable: 'Any' = 1, accuracy=None, "
    "tie_breaker: 'str | Mapping[str, float] | None' = None, utility: 'str | Callable' = "
    "'topsis', disparity: 'str' = 'frequentist', prior: 'Sequence[float]' = (1.0, 1.0), "
    "ties: 'str' = 'first', on_empty: 'str' = 'skip', epsilon: 'float | None' = None, "
    "ci_level: 'float' = 0.95, tie_decimals: 'int' = 12, accuracy_counts=None, n_draws: "
    "'int | None' = 10000, seed: 'int' = 0) -> 'CertaintyResult'"
)


def test_score_counts_keeps_its_signature_and_shares_the_engines_settings():
    import inspect

    from primafacie.certainty import CertaintyRanking

    sig = inspect.signature(score_counts)
    assert str(sig) == SCORE_COUNTS_SIGNATURE
    init = inspect.signature(CertaintyRanking.__init__).parameters
    shared = [name for name in sig.parameters if name in init and name != "favorable"]
    assert len(shared) == 11  # criterion and the ten scoring settings
    for name in shared:
        want = init[name].replace(default="skip") if name == "on_empty" else init[name]
        assert sig.parameters[name] == want, name


def test_score_counts_binds_positional_and_keyword_arguments_as_before():
    k, n = [[3, 0], [1, 0]], [[3, 3], [1, 1]]
    by_keyword = score_counts(k, n, names=["A", "B"], ties="most_uncertain", n_draws=None)
    # the 12th argument is ties, the 18th n_draws: the published positions
    by_position = score_counts(k, n, ["A", "B"], None, "statistical_parity", 1, None, None,
                               "topsis", "frequentist", (1.0, 1.0), "most_uncertain", "skip",
                               None, 0.95, 12, None, None)  # fmt: skip
    pd.testing.assert_frame_equal(by_keyword.table, by_position.table)
    assert by_position.ties == "most_uncertain" and by_position.n_draws is None
    with pytest.raises(TypeError, match="n_draw"):
        score_counts(k, n, n_draw=5)
    with pytest.raises(TypeError, match="multiple values for argument 'names'"):
        score_counts(k, n, ["A", "B"], names=["A", "B"])


def test_an_empty_group_warns_at_the_caller_of_score_counts():
    with pytest.warns(UserWarning, match="skipped") as record:
        score_counts([[1, 0, 1]], [[2, 0, 2]])
    assert record[0].filename == __file__
