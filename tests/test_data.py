import numpy as np
import pandas as pd
import pytest

from primafacie.data import AuditData, read_table, to_pandas
from primafacie.errors import InputError


def frame():
    return pd.DataFrame(
        {
            "salary": [30.0, 50.0, 40.0, 60.0],
            "edu": ["low", "high", "mid", "low"],
            "gender": ["f", "m", "f", "m"],
            "race": ["b", "w", "w", "b"],
            "approved": [0, 1, 0, 1],
            "repaid": ["yes", "no", "yes", "yes"],
        }
    )


def make(**kw):
    args = dict(
        features={"salary": "numeric", "edu": {"ordinal": ["low", "mid", "high"]}},
        protected={"gender": "f", "race": ["b"]},
        decision="approved",
        outcome="repaid",
        outcome_favorable="yes",
    )
    args.update(kw)
    return AuditData(frame(), **args)


def test_roles_and_arrays():
    d = make()
    assert d.n == 4
    assert d.feature_names == ["salary", "edu"]
    assert d.features["edu"].order == ("low", "mid", "high")
    assert d.decision_array().tolist() == [0, 1, 0, 1]
    assert d.outcome_array().tolist() == [1, 0, 1, 1]
    assert d.protected_mask("gender").tolist() == [True, False, True, False]
    assert d.protected_mask(["gender", "race"]).tolist() == [True, False, False, False]
    assert d.ids.tolist() == [0, 1, 2, 3]


def test_protected_attribute_choice():
    two = make()
    assert two.protected_attribute("race") == "race"
    with pytest.raises(
        InputError, match=r"several protected attributes \['gender', 'race'\]: pick"
    ):
        two.protected_attribute(how="pick")
    with pytest.raises(InputError, match="'salary' is not a protected attribute"):
        two.protected_attribute("salary")
    one = make(protected={"gender": "f"})
    assert one.protected_attribute() == "gender"
    assert one.protected_mask().tolist() == [True, False, True, False]


def test_inferred_features_exclude_roles():
    d = AuditData(frame(), protected={"gender": "f"}, decision="approved")
    assert d.features["salary"].kind == "numeric"
    assert d.features["edu"].kind == "categorical"
    assert "gender" not in d.features and "approved" not in d.features


def test_favorable_matches_string_round_trip():
    df = frame().assign(approved=["0", "1", "0", "1"])
    d = AuditData(
        df, features={"salary": "numeric"}, protected={"gender": "f"}, decision="approved"
    )
    assert d.decision_array().tolist() == [0, 1, 0, 1]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"features": {"wage": "numeric"}}, "feature column 'wage' is not in the data"),
        ({"features": {"salary": "number"}}, "unknown kind 'number'"),
        ({"features": {"edu": "numeric"}}, "declared numeric but holds non-numeric"),
        ({"features": {"edu": {"ordinal": ["low", "high"]}}}, "not among its declared levels"),
        (
            {"protected": {"gender": "x"}},
            "protected value 'x' of protected column 'gender' never occurs",
        ),
        ({"protected": {"Gender": "f"}}, "did you mean 'gender'"),
        ({"decision": "edu"}, "decision column 'edu' must be binary"),
        ({"favorable": 7}, "favourable value 7 of decision column 'approved' never occurs"),
        (
            {"features": {"salary": "numeric", "gender": "categorical"}},
            "both a feature and a protected",
        ),
        ({"features": ["salary", "salary"]}, "listed twice"),
    ],
)
def test_bad_input_names_the_problem(kwargs, message):
    with pytest.raises(InputError) as err:
        make(**kwargs)
    assert message in str(err.value)


def test_nan_in_feature_names_column_and_row():
    df = frame()
    df.loc[2, "salary"] = np.nan
    with pytest.raises(InputError, match=r"'salary' has 1 missing value\(s\) \(first at row 2\)"):
        AuditData(
            df, features={"salary": "numeric"}, protected={"gender": "f"}, decision="approved"
        )


def test_all_protected_is_an_error():
    with pytest.raises(InputError, match="no non-protected group"):
        make(protected={"gender": ["f", "m"]})


def test_duplicate_ids_rejected():
    df = frame().assign(pid=[1, 1, 2, 3])
    with pytest.raises(InputError, match="'pid' has duplicated values"):
        AuditData(df, features={"salary": "numeric"}, protected={"gender": "f"}, id_column="pid")


def test_replace_revalidates():
    d = make()
    d2 = d.replace(frame=d.frame.assign(salary=d.frame.salary + 1))
    assert d2.frame.salary.tolist() == [31.0, 51.0, 41.0, 61.0]
    assert d.frame.salary.tolist() == [30.0, 50.0, 40.0, 60.0]


def test_read_table_and_to_pandas(tmp_path):
    p = tmp_path / "x.csv"
    frame().to_csv(p, index=False)
    assert read_table(p).shape == (4, 6)
    with pytest.raises(InputError, match="not found"):
        read_table(tmp_path / "missing.csv")
    assert to_pandas({"a": [1, 2]}).shape == (2, 1)
    with pytest.raises(InputError):
        to_pandas(42)


@pytest.mark.parametrize("sep", [",", ";", "|", "\t"])
def test_read_table_detects_delimiter(tmp_path, sep):
    p = tmp_path / "t.csv"
    p.write_text(
        sep.join(["a", "b", "c"]) + "\n" + sep.join(["1", "x,y" if sep != "," else "x", "3"]) + "\n"
    )
    df = read_table(p)
    assert list(df.columns) == ["a", "b", "c"]
    assert df.iloc[0, 0] == 1


def test_read_table_on_the_papers_pipe_file(require_data):
    path = require_data("loan_application", "LoanApplication_v2.csv")
    df = read_table(path)
    assert {"AnnualSalary", "AccountBalance", "Gender", "LoanApproval"} <= set(df.columns)
    assert len(df) == 4993


def test_protected_attribute_without_any_says_none_was_declared():
    """No protected attribute is not 'several': the message says what to declare."""
    none = AuditData(frame(), decision="approved")
    with pytest.raises(InputError, match=r"no protected attribute .*protected=\{column: value\}"):
        none.protected_attribute()


def test_misspelt_column_gets_a_suggestion():
    with pytest.raises(
        InputError, match=r"feature column 'salry' is not in the data \(did you mean 'salary'\?\)"
    ):
        make(features={"salry": "numeric"})


def test_user_columns_starting_with_underscores_stay_listed():
    """Only primafacie's own __name__ columns are hidden; a user's '__row' is a real column."""
    df = frame().assign(__row=range(4), __decision__=0)
    with pytest.raises(InputError) as err:
        AuditData(df, features={"salry": "numeric"}, decision="approved")
    assert "__row" in str(err.value) and "__decision__" not in str(err.value)


# ---------------------------------------------------------------------- issue 11: values as meant
def _people(gender):
    return pd.DataFrame(
        {"gender": gender, "x": range(len(gender)), "d": [0, 1] * (len(gender) // 2)}
    )


@pytest.mark.parametrize(
    "gender, value, message",
    [
        (
            ["f", "m", "f", "m"],
            "F",
            r"'F' of protected column 'gender' does not occur as written; "
            r"the data spell it 'f' \(2 rows\)",
        ),
        (
            ["f", "m", "f ", "m"],
            "f",
            r"spells one value in several ways: 'f' \(1 rows\), "
            r"'f ' \(1 rows\)",
        ),
        (["female", "male", "female", "male"], "femal", r"did you mean 'female'\?"),
        (["yes", "no", "yes", "no"], True, r"boolean.*Quote the value"),
        (["f", "m", "f", "m"], ["f", "x"], r"protected value 'x'"),
        (
            [1, "1", 2, 2],
            1,
            r"holds the value 1 both as text and as a number: 1 \(1 rows\), "
            r"'1' \(1 rows\)",
        ),
    ],
)
def test_protected_values_must_occur_as_spelled(gender, value, message):
    with pytest.raises(InputError, match=message):
        AuditData(_people(gender), features={"x": "numeric"}, protected={"gender": value},
                  decision="d")  # fmt: skip


def test_max_levels_limits_categorical_features_and_none_lifts_it():
    df = pd.DataFrame({"code": [f"c{i}" for i in range(6)], "g": ["a", "b"] * 3, "d": [0, 1] * 3})
    with pytest.raises(InputError, match="'code' has 6 distinct values, more than max_levels=5"):
        AuditData(df, features={"code": "categorical"}, protected={"g": "a"}, decision="d",
                  max_levels=5)  # fmt: skip
    data = AuditData(df, features={"code": "categorical"}, protected={"g": "a"}, decision="d",
                     max_levels=None)  # fmt: skip
    assert data.protected_mask().sum() == 3


def test_read_table_names_thousands_separators_and_duplicated_headers(tmp_path):
    from primafacie.data import read_table

    p = tmp_path / "t.csv"
    p.write_text('id,income\n1,"1,200"\n2,900\n')
    with pytest.raises(InputError, match=r"'income'.*'1,200' in data row 1"):
        read_table(p)
    p.write_text("a,b,a\n1,2,3\n")  # copies that differ: an error only when asked for
    with pytest.raises(InputError, match="column 'a' appears 2 times in the header"):
        read_table(p, columns=["a"])
    p.write_bytes("a,b\n1,caf\xe9\n".encode("latin-1"))
    with pytest.raises(InputError, match="not UTF-8"):
        read_table(p)


def test_thousands_check_reads_distinct_values_and_names_the_first_row():
    """The check runs on each distinct value once (issue 22: 1.2 of the client's CPU seconds
    at 10^6 rows); it decides and names the row as the check of every row did."""
    from primafacie.data import _check_thousands

    amounts = pd.DataFrame({"amount": ["12", " 7 ", "3,400", "12", "1,200"] * 1000})
    with pytest.raises(InputError, match=r"'3,400' in data row 3 \(line 4 "):
        _check_thousands(amounts, "t.csv")
    words = pd.DataFrame({"city": ["Pisa", "1,200"] * 1000})  # not numbers: text
    _check_thousands(words, "t.csv")
    cells = pd.DataFrame({"tags": [["1,200"], ["7"]] * 10})  # cells that cannot be hashed
    _check_thousands(cells, "t.csv")


# ---------------------------------------------------------------- read_table: projection, Parquet
def test_read_table_csv_projection_keeps_file_order_and_skips_unused_columns(tmp_path):
    path = tmp_path / "t.csv"
    # 'amount' would be an error if read (thousands separators); it is not a used column
    path.write_text('income,amount,city,age\n10,"1,234",Pisa,30\n20,"5,678",Roma,40\n')
    frame = read_table(path, columns=["age", "income"])
    assert frame.columns.tolist() == ["income", "age"]
    assert frame["age"].tolist() == [30, 40]
    with pytest.raises(InputError, match="'amount' holds numbers written with thousands"):
        read_table(path)
    with pytest.raises(
        InputError, match=r"column 'AGE' is not in the data \(did you mean 'age'\?\); columns"
    ):
        read_table(path, columns=["AGE"])


def test_read_table_parquet_file_reads_only_the_requested_columns(tmp_path):
    path = tmp_path / "t.parquet"
    pd.DataFrame({"a": [1, 2], "b": ["x", "y"], "c": [0.5, 1.5]}).to_parquet(path, index=False)
    frame = read_table(path, columns=["c", "a"])
    assert frame.columns.tolist() == ["a", "c"]
    assert frame["c"].tolist() == [0.5, 1.5]
    assert read_table(path).columns.tolist() == ["a", "b", "c"]
    with pytest.raises(InputError, match=r"column 'B' is not in the data \(did you mean 'b'"):
        read_table(path, columns=["B"])


def _write_parts(folder, frames, names):
    folder.mkdir(parents=True, exist_ok=True)
    for part, name in zip(frames, names, strict=True):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        part.to_parquet(folder / name, index=False)


def test_read_table_parquet_folder_in_sorted_part_order_skipping_hidden_files(tmp_path):
    folder = tmp_path / "ds"
    parts = [pd.DataFrame({"a": [i, i + 1], "b": ["p", "q"]}) for i in (0, 10, 20)]
    # written out of order: the table follows the sorted names, not the writing order
    _write_parts(folder, parts[::-1], ["part-00002.pq", "part-00001.parquet", "part-00000.parquet"])
    (folder / "_SUCCESS").write_text("")
    _write_parts(folder, [pd.DataFrame({"zzz": [1]})], ["_tmp/part-9.parquet"])
    frame = read_table(folder)
    assert frame["a"].tolist() == [0, 1, 10, 11, 20, 21]
    assert read_table(folder, columns=["a"]).columns.tolist() == ["a"]


def test_read_table_parquet_folder_hive_partitions_become_columns(tmp_path):
    folder = tmp_path / "ds"
    _write_parts(
        folder,
        [pd.DataFrame({"a": [1, 2]}), pd.DataFrame({"a": [3]})],
        ["region=north/p0.parquet", "region=south/p0.parquet"],
    )
    frame = read_table(folder)
    assert frame["a"].tolist() == [1, 2, 3]
    assert frame["region"].astype(str).tolist() == ["north", "north", "south"]


def test_read_table_parquet_folder_errors_name_the_folder_and_the_file(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(
        InputError, match="data file .*empty is a folder that holds no Parquet file"
    ):
        read_table(empty)
    mixed = tmp_path / "mixed"
    _write_parts(
        mixed,
        [pd.DataFrame({"a": [1]}), pd.DataFrame({"a": ["x"]})],
        ["p0.parquet", "p1.parquet"],
    )
    with pytest.raises(InputError, match=r"p1.parquet has other columns than p0.parquet .*'a'"):
        read_table(mixed)


def _mixed(n: int = 6) -> pd.DataFrame:
    """Every kind of column the per-column read converts: numbers with and without gaps,
    pandas' nullable integers, bools with a gap, text with a gap, an ordered categorical,
    dates with a time zone and durations."""
    i = np.arange(n)
    return pd.DataFrame({
        "id": i.astype(np.int64),
        "income": np.where(i % 3 == 0, np.nan, i * 1.5),
        "small": (i % 4).astype(np.int8),
        "count": pd.array([None if k == 2 else k for k in i], dtype="Int64"),
        "flag": pd.Series([True, None, False, True, False, True][:n], dtype=object),
        "city": pd.Series(["Pisa", None, "Roma", "Pisa", "Bari", "Roma"][:n]),
        "grade": pd.Categorical(["b", "a", None, "c", "a", "b"][:n], categories=["c", "b", "a"],
                                ordered=True),
        "when": pd.date_range("2024-01-01", periods=n, freq="D", tz="Europe/Rome"),
        "took": pd.to_timedelta(i, unit="s"),
    })  # fmt: skip


def _whole(dataset, columns=None) -> pd.DataFrame:
    """The read before issue 22: the whole table, then the whole conversion."""
    return dataset.to_table(columns=columns).to_pandas()


def _assert_same_frame(got: pd.DataFrame, expected: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(
        got, expected, check_exact=True, check_index_type=True, check_column_type=True,
        check_categorical=True, check_flags=True,
    )  # fmt: skip
    assert list(got.columns) == list(expected.columns)
    assert got.columns.dtype == expected.columns.dtype
    assert got.columns.name == expected.columns.name
    assert type(got.index) is type(expected.index) and got.index.equals(expected.index)
    assert got.index.name == expected.index.name
    assert got.attrs == expected.attrs
    assert got.dtypes.tolist() == expected.dtypes.tolist()


@pytest.mark.parametrize("columns", [None, ["city", "id", "grade"], ["income", "count"]])
def test_the_per_column_parquet_read_equals_the_whole_table_read(tmp_path, columns):
    from primafacie.data import _parquet_dataset, parquet_pandas

    path = tmp_path / "t.parquet"
    _mixed().to_parquet(path, index=False)
    dataset = _parquet_dataset(path)
    _assert_same_frame(parquet_pandas(dataset, columns), _whole(dataset, columns))


def test_the_per_column_read_keeps_dictionary_columns_and_a_stored_range_index(tmp_path):
    from primafacie.data import _parquet_dataset, parquet_pandas
    from primafacie.data_dictionary import encode

    path = tmp_path / "t.parquet"
    frame = _mixed()
    frame.index = pd.RangeIndex(10, 16, name="row")  # stored as metadata, not as a column
    frame.to_parquet(path)
    dataset = _parquet_dataset(path, ["city"])  # text decoded as a dictionary: categorical
    got = parquet_pandas(dataset, ["id", "city", "grade"])
    _assert_same_frame(got, _whole(dataset, ["id", "city", "grade"]))
    assert isinstance(got["city"].dtype, pd.CategoricalDtype)
    assert got.index.tolist() == list(range(10, 16))
    # through read_table with dictionary columns: the whole read, then encoded (in place)
    read = read_table(path, columns=["city", "id"], dictionary=["city"])
    whole = _whole(dataset, ["id", "city"])
    encode(whole, ["city"], ["city"])
    _assert_same_frame(read, whole)


def test_the_per_column_read_of_a_folder_and_of_a_stored_index(tmp_path):
    from primafacie.data import _parquet_dataset, parquet_pandas

    folder = tmp_path / "ds"
    _write_parts(
        folder,
        [_mixed(), _mixed(4), _mixed(3)],
        ["region=north/p0.parquet", "region=north/p1.parquet", "region=south/p0.parquet"],
    )
    dataset = _parquet_dataset(folder)
    _assert_same_frame(parquet_pandas(dataset), _whole(dataset))
    _assert_same_frame(parquet_pandas(dataset, ["region", "took"]),
                       _whole(dataset, ["region", "took"]))  # fmt: skip
    indexed = tmp_path / "indexed.parquet"
    _mixed().set_index("city").to_parquet(indexed)  # the index is a column of the file
    dataset = _parquet_dataset(indexed)
    _assert_same_frame(parquet_pandas(dataset, ["id", "income"]), _whole(dataset, ["id", "income"]))
    got = parquet_pandas(dataset)
    _assert_same_frame(got, _whole(dataset))
    assert got.index.name == "city"


def test_the_parquet_read_holds_one_arrow_column_at_a_time(tmp_path, monkeypatch):
    # issue 22: the whole Arrow table and the whole frame never coexist. Every column is read
    # on its own, and when the next one is read the previous one's Arrow buffers are freed:
    # the pool then holds the converted columns (pyarrow allocates their numpy blocks) only.
    import pyarrow as pa

    from primafacie.data import _parquet_dataset, parquet_pandas

    n, width = 200_000, 5
    path = tmp_path / "wide.parquet"
    pd.DataFrame({f"x{j}": np.arange(n) * (j + 0.5) for j in range(width)}).to_parquet(
        path, index=False
    )
    dataset = _parquet_dataset(path)
    column = n * 8
    reads, held = [], []
    read = type(dataset).to_table

    class Recorded:
        schema = dataset.schema

        def to_table(self, columns=None):
            reads.append(columns)
            held.append(pa.total_allocated_bytes() - start)
            return read(dataset, columns=columns)

    start = pa.total_allocated_bytes()
    frame = parquet_pandas(Recorded())
    assert reads == [[f"x{j}"] for j in range(width)]
    for k, bytes_held in enumerate(held):  # k columns converted so far, no Arrow column kept
        assert bytes_held < (k + 0.5) * column, (k, bytes_held / column)
    _assert_same_frame(frame, _whole(dataset))


@pytest.mark.parametrize(
    "given, kind",
    [
        ("nominal", "categorical"),
        ("Nominal", "categorical"),
        ("continuous", "numeric"),
        (" Numerical ", "numeric"),
        ("ordered", "ordinal"),
        ("categorical", "categorical"),
    ],
)
def test_feature_kind_synonyms(given, kind):
    """The field's common names of a kind are accepted, in the API and in audit.yaml."""
    from primafacie.config import AuditConfig
    from primafacie.data import _parse_feature

    assert _parse_feature("x", given).kind == kind
    cfg = AuditConfig.model_validate(
        {"data": "x.csv", "decision": {"column": "y"}, "features": {"x": given},
         "protected": {"g": "f"}}
    )  # fmt: skip
    assert cfg.features["x"] == kind


def test_constructor_roles_keep_only_what_was_given():
    from types import SimpleNamespace

    from primafacie.data import constructor_roles

    eng = SimpleNamespace(decision=None, outcome="Y", favorable=0, outcome_favorable=None,
                          protected="sex")  # fmt: skip
    # None keeps the data's role; favorable=0 is a value; a bare name declares no attribute
    assert constructor_roles(eng) == {"outcome": "Y", "favorable": 0}
    eng.protected = {"sex": ["F"]}
    roles = constructor_roles(eng)
    assert roles["protected"] == {"sex": ["F"]} and roles["protected"] is not eng.protected


@pytest.mark.parametrize(
    "col",
    [
        pd.Series(["b", "a", "b"], dtype="str").astype(
            pd.CategoricalDtype(["a", "b", "zz"])  # an unused level is not a value
        ),
        pd.Series([2.0, 1.5, 2.0]).astype("category"),
        pd.Series(["b", None, "a"], dtype=object).astype("category"),  # a gap: 'nan'
        pd.Series([3, 1, 3]),
        pd.Series(["x", None], dtype="str"),
    ],
)
def test_the_text_values_of_a_column_are_those_of_astype_str(col):
    from primafacie.data import _text_values

    assert _text_values(col) == set(col.astype(str))


def test_the_text_values_of_a_categorical_make_no_string_per_row():
    # issue 22: the ordinal check's set(col.astype(str)) made one Python str per row
    import tracemalloc

    from primafacie.data import _text_values

    n = 200_000
    col = pd.Series(np.array(["low", "mid", "high"])[np.arange(n) % 3], dtype="str")
    col = col.astype("category")
    tracemalloc.start()
    try:
        got = _text_values(col)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert got == {"low", "mid", "high"}
    assert peak < 4 * n, peak / n


@pytest.mark.parametrize(
    "col, expected",
    [
        (pd.Series([3, 1, 2], dtype=np.int64), False),
        (pd.Series([3, 1, 3], dtype=np.int64), True),
        (pd.Series([7, 7], dtype=np.uint8), True),
        (pd.Series([1, None, None], dtype="Int64"), True),
        (pd.Series([1.0, np.nan, np.nan]), True),
        (pd.Series(["a", "b"]), False),
        (pd.Series([], dtype=np.int64), False),
    ],
)
def test_duplicated_ids_are_found_as_pandas_finds_them(col, expected):
    from primafacie.data import _has_duplicates

    assert _has_duplicates(col) is expected is bool(col.duplicated().any())


def test_duplicated_ids_are_named():
    df = frame().assign(pid=["a", "b", "a", "a"])
    with pytest.raises(InputError, match=r"'pid' has duplicated values: 'a' \(3 rows\)$"):
        AuditData(df, features={"salary": "numeric"}, protected={"gender": "f"}, id_column="pid")


def test_whole_number_ids_made_floats_by_a_blank_are_given_back_as_integers():
    """A blank id cell makes a CSV reader's id column float: ids were shown 16.0, dossiers
    named 16.0.html, and --id 16 found none. The integers come back, the blank as None."""
    df = frame().assign(pid=[16.0, np.nan, 3.0, 2.0**40])
    d = AuditData(df, features={"salary": "numeric"}, protected={"gender": "f"}, id_column="pid")
    assert d.ids.tolist() == [16, None, 3, 2**40] and isinstance(d.ids[0], int)
    assert d.frame["pid"].dtype.kind == "f"  # the data are not rewritten
    fractional = frame().assign(pid=[1.5, np.nan, 3.0, 4.0])
    d = AuditData(fractional, features={"salary": "numeric"}, protected={"gender": "f"},
                  id_column="pid")  # fmt: skip
    assert d.ids.dtype.kind == "f" and d.ids[0] == 1.5  # not whole numbers: as read
