"""CertaintyRanking on data: decision-maker kinds, criteria, groups, bad input."""

import numpy as np
import pandas as pd
import pytest

from primafacie.certainty import CertaintyRanking
from primafacie.data import AuditData
from primafacie.decisions import Rule
from primafacie.errors import InputError


def hiring_frame() -> pd.DataFrame:
    """Figure 1: company A hires 3 of 3 yellow, 0 of 3 blue; B (padded with A's rows) 1 of 1, 0 of 1."""
    return pd.DataFrame(
        {
            "colour": ["yellow"] * 3 + ["blue"] * 3,
            "A": [1, 1, 1, 0, 0, 0],
            "score": [9, 8, 7, 3, 2, 1],
        }
    )


def test_table1_from_rows_and_selection():
    df = hiring_frame()
    res = CertaintyRanking(protected="colour").run(df, {"A": "A", "rule": Rule("score > 5")})
    t = res.table.set_index("decision_maker")
    assert t.loc["A", ["n_i", "k_i", "n_j", "k_j"]].tolist() == [3, 3, 3, 0]
    assert t.loc["A", "utility"] == pytest.approx(-0.629234, abs=1e-6)
    assert t.loc["A", "most_privileged"] == "yellow"
    # the rule reproduces A's decisions exactly, so both tie
    assert res.best == ("A", "rule")


def test_dm_kinds_array_estimator_callable_give_same_counts():
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"g": rng.choice(["a", "b", "c"], 300), "x": rng.normal(size=300)})
    df["y"] = (df["x"] > 0).astype(int)
    tree = DecisionTreeClassifier(max_depth=1, random_state=0).fit(df[["x"]], df["y"])
    res = CertaintyRanking(protected="g", outcome="y", tie_breaker="accuracy").run(
        df,
        {
            "col": "y",
            "arr": df["y"].to_numpy(),
            "lst": df["y"].tolist(),
            "tree": tree,
            "fn": lambda frame: (frame["x"] > 0).astype(int),
            "rule": Rule("x > 0"),
        },
    )
    counts = res.counts.pivot(index="decision_maker", columns="group", values="k")
    assert (counts.nunique() == 1).all()
    assert set(res.table["accuracy"].round(12)) == {1.0}
    assert len(res.selected) == 6


def test_favourable_zero_flips_groups_not_point():
    df = hiring_frame()
    pos = CertaintyRanking(protected="colour").run(df, {"A": "A"}).table.iloc[0]
    neg = CertaintyRanking(protected="colour", favorable=0).run(df, {"A": "A"}).table.iloc[0]
    assert (pos["disparity"], pos["uncertainty"]) == (neg["disparity"], neg["uncertainty"])
    assert (pos["most_privileged"], neg["most_privileged"]) == ("yellow", "blue")


def test_equal_opportunity_and_predictive_parity_counts():
    df = pd.DataFrame(
        {
            "z": [0, 0, 0, 0, 1, 1, 1, 1],
            "y": [1, 1, 0, 0, 1, 0, 0, 0],
            "p": [1, 0, 1, 0, 1, 1, 0, 0],
        }
    )
    eo = CertaintyRanking("equal_opportunity", protected="z", outcome="y").run(df, {"p": "p"})
    c = eo.counts.set_index("group")
    assert c.loc["0", ["n", "k"]].tolist() == [2, 1] and c.loc["1", ["n", "k"]].tolist() == [1, 1]
    pp = CertaintyRanking("predictive_parity", protected="z", outcome="y").run(df, {"p": "p"})
    c = pp.counts.set_index("group")
    assert c.loc["0", ["n", "k"]].tolist() == [2, 1] and c.loc["1", ["n", "k"]].tolist() == [2, 1]


def test_audit_data_input_and_intersectional_groups():
    df = pd.DataFrame(
        {
            "sex": ["f", "f", "m", "m"] * 3,
            "race": ["a", "b"] * 6,
            "x": np.arange(12.0),
            "dec": ["yes", "no", "yes", "yes", "no", "no"] * 2,
        }
    )
    data = AuditData(df, features={"x": "numeric"}, protected={"sex": "f", "race": "b"},
                     decision="dec", favorable="yes")  # fmt: skip
    res = CertaintyRanking().run(data)
    assert res.protected == ("sex", "race")
    assert res.groups == ("f × a", "f × b", "m × a", "m × b")
    assert res.table["decision_maker"].tolist() == ["dec"]
    assert res.counts["n"].tolist() == [3, 3, 3, 3]


def test_empty_group_error_or_skip():
    df = pd.DataFrame({"z": ["a", "a", "b", "b", "c", "c"], "y": [1, 0, 1, 1, 0, 0],
                       "p": [1, 1, 0, 1, 1, 0]})  # fmt: skip
    audit = CertaintyRanking("equal_opportunity", protected="z", outcome="y")
    with pytest.raises(InputError, match="no rows with a favourable true outcome.*p: c"):
        audit.run(df, {"p": "p"})
    audit.on_empty = "skip"
    with pytest.warns(UserWarning, match="skipped"):
        res = audit.run(df, {"p": "p"})
    assert res.warnings and set(res.table[["most_privileged", "least_privileged"]].iloc[0]) == {
        "a",
        "b",
    }
    c = res.counts.set_index("group")
    assert c.loc["c", "n"] == 0 and np.isnan(c.loc["c", "rate"])


def test_group_without_members_is_reported_never_divided():
    df = hiring_frame().assign(
        colour=lambda d: pd.Categorical(d["colour"], ["yellow", "blue", "green"])
    )
    with pytest.raises(InputError, match="A: green"):
        CertaintyRanking(protected="colour").run(df, {"A": "A"})
    with pytest.warns(UserWarning):
        res = CertaintyRanking(protected="colour", on_empty="skip").run(df, {"A": "A"})
    green = res.counts.set_index("group").loc["green"]
    assert green["members"] == 0 and green["n"] == 0 and np.isnan(green["rate"])
    assert res.table.loc[0, "utility"] == pytest.approx(-0.629234, abs=1e-6)


@pytest.mark.parametrize(
    "dms, kwargs, message",
    [
        ({"h": "score"}, {}, "must be binary"),
        ({"h": [1, 0, 1]}, {}, "3 predictions for 6 rows"),
        ({"h": "nope"}, {}, "'nope' is not a column"),
        ({"h": "A"}, {"protected": "missing"}, "'missing' is not in the data"),
        ({"h": "A"}, {"protected": None}, "name the protected column"),
        ({"h": "A"}, {"tie_breaker": "accuracy"}, "needs the true outcome"),
        ({"h": "A"}, {"criterion": "equal_opportunity"}, "needs the true outcome"),
        ({"h": np.array([2, 3, 2, 3, 2, 3])}, {}, "do not match"),
        ({"h": np.array([0.0, 0.5, 1.0, 0.0, 1.0, 1.0])}, {}, "must be binary"),
        ({"h": np.array([0.0, 1.0, np.nan, 0.0, 1.0, 1.0])}, {}, "missing values"),
        ({"h": ["y", "n", "y", "n", "y", "?"]}, {}, "must be binary"),
        ({"h": 3.5}, {}, "cannot use float"),
        ({}, {}, "non-empty mapping"),
    ],
)
def test_bad_input_messages(dms, kwargs, message):
    params = {"protected": "colour", **kwargs}
    with pytest.raises(InputError, match=message):
        CertaintyRanking(**params).run(hiring_frame(), dms)


def test_estimator_that_cannot_predict_gives_input_error():
    from sklearn.linear_model import LogisticRegression

    df = hiring_frame()
    model = LogisticRegression().fit(df[["score"]].to_numpy(), df["A"])  # no feature names
    with pytest.raises(InputError, match="decision-maker 'lr': predict\\(\\) failed"):
        CertaintyRanking(protected="colour").run(df, {"lr": model})
    res = CertaintyRanking(protected="colour", features=["score"]).run(df, {"lr": model})
    assert res.table.loc[0, "k_i"] == 3


def test_single_group_is_an_error():
    df = hiring_frame().assign(colour="yellow")
    with pytest.raises(InputError, match="single group"):
        CertaintyRanking(protected="colour").run(df, {"A": "A"})


def test_boolean_predictions_respect_favourable_value():
    # [1,1,1,0,0,0] and [True]*3 + [False]*3 are the same decisions; with favourable 0
    # both must count the blue group (the zeros) as favoured
    df = hiring_frame()
    res = CertaintyRanking(protected="colour", favorable=0).run(
        df, {"int": np.array([1, 1, 1, 0, 0, 0]), "bool": np.array([True] * 3 + [False] * 3)}
    )
    k = res.counts.pivot(index="decision_maker", columns="group", values="k")
    assert k.loc["int"].tolist() == k.loc["bool"].tolist() == [3, 0]  # blue, yellow
    res = CertaintyRanking(protected="colour", favorable=False).run(
        df, {"bool": np.array([True] * 3 + [False] * 3)}
    )
    assert res.counts.set_index("group")["k"].to_dict() == {"blue": 3, "yellow": 0}


def test_accuracy_reported_with_count_and_denominator():
    df = hiring_frame().assign(y=[1, 1, 0, 0, 0, 1])
    res = CertaintyRanking(protected="colour", outcome="y").run(df, {"A": "A"})
    row = res.table.iloc[0]
    # A = [1,1,1,0,0,0] vs y = [1,1,0,0,0,1]: rows 0, 1, 3, 4 agree
    assert (row["accuracy_k"], row["accuracy_n"]) == (4, 6)
    assert row["accuracy"] == pytest.approx(4 / 6)


def test_many_valued_categorical_protected_column_can_be_allowed():
    """The 20-level guard stops age-like columns; a real 25-country column can opt out."""
    countries = [f"c{i:02d}" for i in range(25)]
    df = pd.DataFrame({"country": countries * 4, "A": [1, 0] * 50})
    with pytest.raises(InputError, match="'country' has 25 distinct values"):
        CertaintyRanking(protected="country").run(df, {"A": "A"})
    res = CertaintyRanking(protected="country", max_levels=None).run(df, {"A": "A"})
    assert res.counts_frame()["group"].nunique() == 25


# ---------------------------------------------------------------------------- constraints
def test_every_declared_constraint_rejects_an_invalid_value():
    from primafacie.validation import invalid_value

    constraints = CertaintyRanking._parameter_constraints
    assert {"criterion", "on_empty", "ties", "ci_level", "epsilon", "max_levels"} <= set(
        constraints
    )
    for name, cons in constraints.items():
        bad = invalid_value(cons)
        params = {"protected": "colour", name: bad}
        with pytest.raises(InputError, match=rf"^CertaintyRanking: {name} must be .*; got "):
            CertaintyRanking(**params).run(hiring_frame(), {"A": "A"})


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (
            {"criterion": "fairness"},
            r"criterion must be one of 'statistical_parity', 'equal_opportunity', "
            r"'predictive_parity' \(or sp, eo, pp\); got 'fairness' \(--criterion, "
            r"analyses.certainty.criterion\)",
        ),
        (
            {"on_empty": "drop"},
            r"on_empty must be one of 'error', 'skip'; got 'drop' \(--on-empty, analyses.certainty.on_empty\)",
        ),
        ({"max_levels": 0}, r"max_levels must be None or an integer in \[1, 1000\]; got 0"),
        (
            {"epsilon": 1.0},
            r"epsilon must be None or a number in \[0, 1\); got 1.0 \(--epsilon, analyses.certainty.epsilon\)",
        ),
        ({"tie_breaker": "speed"}, r"tie_breaker must be None, one of 'accuracy' or a mapping"),
        ({"prior": (0, 1)}, r"prior must be a pair \(alpha0, beta0\) of finite numbers > 0"),
    ],
)
def test_constraint_messages_name_value_and_flag(kwargs, message):
    with pytest.raises(InputError, match=message):
        CertaintyRanking(protected="colour", **kwargs).run(hiring_frame(), {"A": "A"})


def test_criterion_aliases_pass_the_constraint():
    res = CertaintyRanking(protected="colour", criterion="sp").run(hiring_frame(), {"A": "A"})
    assert res.criterion == "statistical_parity"


@pytest.mark.parametrize(
    "values, message",
    [
        (
            np.array([0.0, 0.5, 1.0, 0.0, 1.0, 1.0]),
            r"the prediction vector of decision-maker 'h' must be binary \(two values\); got 3 "
            r"distinct values such as \['0.0', '0.5', '1.0'\]",
        ),
        (
            ["y", "n", "y", "n", "y", "?"],
            r"the prediction vector of decision-maker 'h' must be binary \(two values\); got 3 "
            r"distinct values such as \['\?', 'n', 'y'\]",
        ),
        (
            np.array([0.0, 1.0, np.nan, 0.0, 1.0, 1.0]),
            r"the prediction vector of decision-maker 'h' has missing values; a decision must "
            "be given for every row",
        ),
        (
            ["y", None, "y", "n", "y", "n"],
            r"the prediction vector of decision-maker 'h' has missing values",
        ),
    ],
)
def test_binary_check_is_the_shared_one(values, message):
    with pytest.raises(InputError, match=message):
        CertaintyRanking(protected="colour").run(hiring_frame(), {"h": values})


def test_default_decision_maker_name_is_one_constant():
    from primafacie.certainty import DEFAULT_DECISION_MAKER

    assert DEFAULT_DECISION_MAKER == "audited decision"


def test_min_group_size_is_a_deprecated_name_of_min_group():
    import warnings

    import pandas as pd

    from primafacie.certainty import CertaintyRanking

    df = pd.DataFrame({"g": ["a"] * 4 + ["b"] * 4 + ["c", "e"], "d": [1, 0] * 5})
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # the new name warns nothing
        new = CertaintyRanking(protected="g", min_group=2, n_draws=None).run(df, {"d": "d"})
    with pytest.warns(DeprecationWarning, match="use min_group="):
        old = CertaintyRanking(protected="g", min_group_size=2, n_draws=None).run(df, {"d": "d"})
    pd.testing.assert_frame_equal(new.to_frame(), old.to_frame())
    assert len(new.groups) == 3  # c and e (one member each) pooled into one group of 2
