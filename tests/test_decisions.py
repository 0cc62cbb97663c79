import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

from primafacie.decisions import ModelDecider, Rule, as_decider, load_model, predict_binary
from primafacie.errors import InputError

DF = pd.DataFrame(
    {"AnnualSalary": [100000, 200000, 150000], "AccountBalance": [10000, 5000, 15000]}
)


def test_paper_rule_by_hand():
    # 100000 + 50000 = 150000 (no); 200000 + 25000 = 225000 (not >); 150000 + 75000 = 225000 (no)
    rule = Rule("AnnualSalary + 5 * AccountBalance > 225000")
    assert rule.predict(DF).tolist() == [0, 0, 0]
    assert Rule("AnnualSalary + 5 * AccountBalance >= 225000").predict(DF).tolist() == [0, 1, 1]
    assert rule.columns == ("AccountBalance", "AnnualSalary")


def test_operators_and_precedence():
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [4.0, 0.0, 1.0], "c": ["x", "y", "x"]})
    assert Rule("-a + b ** 2 / 2 > 1").evaluate(df).tolist() == [True, False, False]
    assert Rule("(a > 1) and not (b > 0.5) or c == 'x'").predict(df).tolist() == [1, 1, 1]
    assert Rule("1 < a <= 2").predict(df).tolist() == [0, 1, 0]
    assert Rule("a % 2 == 1 and a // 2 >= 1").predict(df).tolist() == [0, 0, 1]


@pytest.mark.parametrize(
    "expr, what",
    [
        ("__import__('os').system('x') > 0", "function call"),
        ("a.real > 0", "attribute access"),
        ("a[0] > 0", "subscript"),
        ("(lambda: 1)() > 0", "function call"),
        ("[a] == [1]", "'List'"),
        ("a if b else c", "'IfExp'"),
    ],
)
def test_rejects_anything_outside_whitelist(expr, what):
    with pytest.raises(InputError, match=what):
        Rule(expr)


def test_rule_errors():
    with pytest.raises(InputError, match="not a valid expression"):
        Rule("a >")
    with pytest.raises(InputError, match="uses no column"):
        Rule("1 > 0")
    with pytest.raises(InputError, match=r"\['zz'\] that are not in the data"):
        Rule("zz > 1").predict(DF)
    with pytest.raises(InputError, match="must end in a comparison"):
        Rule("AnnualSalary + 1").predict(DF)


def test_model_decider(tmp_path):
    X = pd.DataFrame({"x": np.arange(20.0)})
    y = (X.x > 9).astype(int)
    model = LogisticRegression().fit(X, y)
    dec = ModelDecider(model)
    assert dec.features == ["x"]
    assert dec.predict(X).tolist() == y.tolist()
    assert ModelDecider(model, favorable=0).predict(X).tolist() == (1 - y).tolist()
    import joblib
    import skops.io as sio

    path = tmp_path / "m.skops"
    sio.dump(model, path)
    assert load_model(path).predict(X).tolist() == y.tolist()
    with pytest.raises(InputError, match="not found"):
        load_model(tmp_path / "nope.skops")
    sio.dump({"a": 1}, tmp_path / "bad.skops")
    with pytest.raises(InputError, match="has no predict"):
        load_model(tmp_path / "bad.skops")
    # a pickle/joblib file only when trusted: unpickling runs its author's code
    joblib.dump(model, tmp_path / "m.joblib")
    with pytest.raises(InputError, match="runs arbitrary code"):
        load_model(tmp_path / "m.joblib")
    assert load_model(tmp_path / "m.joblib", trust="pickle").predict(X).tolist() == y.tolist()
    joblib.dump(LogisticRegression(), tmp_path / "unfitted.joblib")
    with pytest.raises(InputError, match="not fitted"):
        load_model(tmp_path / "unfitted.joblib", trust="pickle")


def test_model_decider_rejects_bad_models():
    with pytest.raises(InputError, match="has no predict"):
        ModelDecider(object())

    class ThreeClass:
        def predict(self, X):
            return np.arange(len(X)) % 3

    with pytest.raises(InputError, match="must be binary"):
        ModelDecider(ThreeClass()).predict(DF)

    class Short:
        def predict(self, X):
            return np.zeros(1)

    with pytest.raises(InputError, match="returned 1 predictions for 3 rows"):
        ModelDecider(Short()).predict(DF)


def test_as_decider_and_predict_binary():
    assert isinstance(as_decider("AnnualSalary > 1"), Rule)
    assert predict_binary(lambda df: np.ones(len(df), dtype=int), DF).tolist() == [1, 1, 1]
    with pytest.raises(InputError, match="must return 0/1"):
        predict_binary(lambda df: np.full(len(df), 2), DF)
    with pytest.raises(InputError, match="cannot use int"):
        as_decider(3)


def test_model_favourable_label_must_be_one_of_its_classes():
    """favourable=2 on a 0/1 model would read every prediction as unfavourable (a fake 'fair')."""
    from sklearn.linear_model import LogisticRegression

    X = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0]})
    model = LogisticRegression().fit(X, [0, 0, 1, 1])
    with pytest.raises(
        InputError, match=r"favourable value 2 is not one of the model's labels \[0, 1\]"
    ):
        ModelDecider(model, favorable=2)
    assert ModelDecider(model, favorable="1").favorable == 1  # CLI/YAML text matches the label
    assert ModelDecider(model, favorable="1").predict(X).tolist() == [0, 0, 1, 1]
    text = LogisticRegression().fit(X, ["no", "no", "yes", "yes"])
    with pytest.raises(InputError, match="'1' is not one of the model's labels \\['no', 'yes'\\]"):
        ModelDecider(text, favorable="1")


def test_a_data_table_given_as_model_is_named(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("gender,race,income\nf,b,1\n")
    with pytest.raises(InputError, match="does not look like a model file"):
        load_model(path)


def test_favourable_text_matches_boolean_and_float_labels():
    """--favorable is text on the CLI: "1"/"true" must match a model fitted on booleans or
    floats (classes_ [False, True] / [0.0, 1.0]); "0" must not silently mean True."""
    from sklearn.linear_model import LogisticRegression

    X = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0]})
    boolean = LogisticRegression().fit(X, np.array([False, False, True, True]))
    floats = LogisticRegression().fit(X, np.array([0.0, 0.0, 1.0, 1.0]))
    for fav in ("1", "true", "True", 1, True, np.int64(1)):
        assert ModelDecider(boolean, favorable=fav).predict(X).tolist() == [0, 0, 1, 1], fav
    assert ModelDecider(boolean, favorable="0").predict(X).tolist() == [1, 1, 0, 0]
    assert ModelDecider(boolean, favorable="false").predict(X).tolist() == [1, 1, 0, 0]
    for fav in ("1", "1.0", 1, np.float64(1.0)):
        assert ModelDecider(floats, favorable=fav).predict(X).tolist() == [0, 0, 1, 1], fav
    with pytest.raises(InputError, match="favourable value '2' is not one of"):
        ModelDecider(floats, favorable="2")
    with pytest.raises(InputError, match="favourable value 'yes' is not one of"):
        ModelDecider(boolean, favorable="yes")


@pytest.mark.parametrize(
    "kwargs",
    [
        {"compress": ("bz2", 3)},
        {"compress": ("lzma", 3)},
        {"compress": ("gzip", 3)},
        {"compress": ("xz", 3)},
        {"protocol": 0},
        {"protocol": 1},
    ],
)
def test_load_model_accepts_every_joblib_and_pickle_format(tmp_path, kwargs):
    """bz2 ('BZh'), lzma (']\\x00') and protocol 0/1 pickles start with ASCII bytes too."""
    import joblib
    from sklearn.linear_model import LogisticRegression

    X = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0]})
    model = LogisticRegression().fit(X, [0, 0, 1, 1])
    path = tmp_path / "m.joblib"
    joblib.dump(model, path, **kwargs)
    assert load_model(path, trust="pickle").predict(X).tolist() == [0, 0, 1, 1]


def test_load_model_names_a_data_table_whatever_it_starts_with(tmp_path):
    """A CSV whose header starts with 'x' or 'Z' (the zlib/old-joblib magic) is still a table."""
    for header in ("x1,x2,y\n1,2,0\n", "ZIP,income\n1,2\n"):
        path = tmp_path / "d.csv"
        path.write_text(header)
        with pytest.raises(InputError, match="does not look like a model file"):
            load_model(path)


def test_yaml_yes_read_as_true_matches_a_yes_no_model():
    """YAML reads `favorable: yes` as True; a model with classes_ ['no', 'yes'] means 'yes'."""
    from sklearn.linear_model import LogisticRegression

    X = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0]})
    model = LogisticRegression().fit(X, ["no", "no", "yes", "yes"])
    assert ModelDecider(model, favorable=True).favorable == "yes"
    assert ModelDecider(model, favorable=False).favorable == "no"


# ---------------------------------------------------------------------- issue 11: rule limits
def test_booleans_count_as_zero_one_in_arithmetic():
    from primafacie.decisions import Rule

    df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": [1, 0, 1, 0]})
    # both hold only on row 0; numpy alone would OR the two tests and never reach 2
    assert Rule("(a == 'x') + (b >= 1) >= 2").predict(df).tolist() == [1, 0, 0, 0]
    assert Rule("(a == 'x') + (b >= 1) >= 1").predict(df).tolist() == [1, 1, 1, 0]
    assert Rule("-(b >= 1) < 0").predict(df).tolist() == [1, 0, 1, 0]


@pytest.mark.parametrize(
    "expression, message",
    [
        ("9**9**9 > b", "too large"),
        ("b > 2**200 * 2**200", "more than 256 bits"),
        ("'ab' * 1000000000 == a", "quoted string can only be compared"),
        (" + ".join(["b"] * 3000) + " > 0", "characters long"),
        ("+".join(["b"] * 300) + " > 0", "nests more than 200 levels"),
        ("b > 1 / 0", "division by zero"),
    ],
)
def test_rule_limits_are_checked_when_the_rule_is_built(expression, message):
    from primafacie.decisions import Rule
    from primafacie.errors import InputError

    with pytest.raises(InputError, match=message):
        Rule(expression)


def test_constant_arithmetic_within_limits_is_folded_once():
    from primafacie.decisions import Rule

    rule = Rule("b * 2**10 > 1000 + 24")  # 1024 > 1024 is false, 2048 > 1024 true
    assert rule.predict(pd.DataFrame({"b": [1, 2]})).tolist() == [0, 1]


@pytest.mark.parametrize(
    "expression, message",
    [
        ("a > 3", "column 'a' holds text"),
        ("b == '1'", "column 'b' is numeric"),
        ("a + 1 > 2", "text column 'a' cannot be used in arithmetic"),
    ],
)
def test_text_and_numbers_are_not_compared_silently(expression, message):
    from primafacie.decisions import Rule
    from primafacie.errors import InputError

    df = pd.DataFrame({"a": ["x", "y"], "b": [1, 0]})
    with pytest.raises(InputError, match=message):
        Rule(expression).predict(df)


def test_predict_binary_accepts_a_rule_string_and_refuses_other_things():
    from primafacie.decisions import predict_binary
    from primafacie.errors import InputError

    df = pd.DataFrame({"b": [1, 0, 2]})
    assert predict_binary("b >= 1", df).tolist() == [1, 0, 1]
    with pytest.raises(InputError, match="cannot use int as a decision maker"):
        predict_binary(3, df)


def test_model_checks_unfitted_other_columns_probabilities():
    from sklearn.linear_model import LinearRegression, LogisticRegression

    from primafacie.decisions import ModelDecider
    from primafacie.errors import InputError

    df = pd.DataFrame({"income": [1.0, 2.0, 3.0, 4.0], "y": [0, 0, 1, 1]})
    with pytest.raises(InputError, match="not fitted"):
        ModelDecider(LogisticRegression())
    other = LogisticRegression().fit(df.rename(columns={"income": "salary"})[["salary"]], df.y)
    with pytest.raises(InputError, match=r"missing from the data: \['salary'\].*\['income'\]"):
        ModelDecider(other).check_columns(list(df.columns), declared=["income"])
    reg = LinearRegression().fit(df[["income"]], df.y)
    with pytest.raises(InputError, match="returns probabilities"):
        ModelDecider(reg).predict(df)


def test_backtick_quoted_names_as_in_pandas_query():
    """A column name with '-' or a space is written in backticks; backticks inside a quoted
    string stay text; an unclosed backtick is an error naming its position."""
    df = pd.DataFrame({"credit-score": [500, 700, 650], "annual income": [10, 20, 30],
                       "city": ["a`b", "x", "y"]})  # fmt: skip
    rule = Rule("`credit-score` > 600 and `annual income` >= 20")
    assert rule.columns == ("annual income", "credit-score")
    assert rule.predict(df).tolist() == [0, 1, 1]
    assert Rule("city == 'a`b'").predict(df).tolist() == [1, 0, 0]
    with pytest.raises(InputError, match="backtick at position 0 is not closed"):
        Rule("`credit-score > 600")
    with pytest.raises(InputError, match="empty backticks"):
        Rule("`` > 1")


def test_unknown_column_gets_a_did_you_mean_and_the_quoting_syntax():
    df = pd.DataFrame({"credit-score": [500, 700], "savings": [1, 2]})
    with pytest.raises(InputError) as err:
        Rule("savngs > 1").predict(df)
    assert "'savngs': did you mean savings?" in str(err.value)
    with pytest.raises(InputError) as err:
        Rule("credit-score > 600").predict(df)  # parsed as credit - score
    msg = str(err.value)
    assert "'credit', 'score': did you mean `credit-score`?" in msg
    assert "written in backticks, as in pandas query: `credit-score`" in msg
    plain = pd.DataFrame({"savings": [1, 2]})
    with pytest.raises(InputError) as err:
        Rule("zzz > 1").predict(plain)
    assert "did you mean" not in str(err.value) and "backticks" not in str(err.value)


@pytest.mark.parametrize(
    "dtype", ["str", "string", pd.StringDtype("python"), object, "Int64", "float64"]
)
def test_a_categorical_columns_values_are_those_pandas_gives(dtype):
    from primafacie.decisions import _column_values

    raw = ["urban", None, "rural", "urban", "suburban"]
    if dtype in ("Int64", "float64"):
        raw = [3, None, 1, 3, 2]
    column = pd.Series(raw, dtype=dtype).astype("category")
    got, expected = _column_values(column), column.to_numpy()
    assert got.dtype == expected.dtype and got.shape == expected.shape
    missing = pd.isna(expected)
    assert pd.isna(got).tolist() == missing.tolist()
    assert [type(v) for v in got] == [type(v) for v in expected]  # nan stays nan, NA stays NA
    assert got[~missing].tolist() == expected[~missing].tolist()


def test_a_rule_on_a_text_categorical_makes_no_string_per_row():
    # issue 22: pandas turns a text categorical into one new Python str per row (about 60 B
    # each); the rule takes the categories' own strings by the codes (8 B per row)
    import tracemalloc

    n = 200_000
    region = np.array(["rural", "suburban", "urban", None], dtype=object)[np.arange(n) % 4]
    frame = pd.DataFrame({"region": pd.Series(region, dtype="str").astype("category"),
                          "income": np.arange(n) * 1.0})  # fmt: skip
    text = frame.assign(region=frame["region"].astype("str"))
    rule = Rule("income > 10 and region != 'urban'")
    tracemalloc.start()
    try:
        got = rule.predict(frame)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert got.tolist() == rule.predict(text).tolist()
    either = Rule("region == 'rural' or not region != 'suburban'")
    assert either.predict(frame).tolist() == either.predict(text).tolist()
    assert either.predict(frame).sum() == n // 2
    assert peak < 24 * n, peak / n
