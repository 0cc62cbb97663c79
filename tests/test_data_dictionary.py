"""data_dictionary.py: low-cardinality role text columns held dictionary-encoded from the read on."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml

from primafacie.config import load_config
from primafacie.data import check_listed_values, check_spellings, read_table
from primafacie.data_dictionary import MAX_LEVELS, compact, encodable, encode, value_counts
from primafacie.errors import InputError


def _world(n: int = 400, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "id": np.arange(n),
            "gender": rng.choice(["male", "female"], n),
            "region": rng.choice(["urban", "rural", "suburban"], n),
            "note": [f"note {i}" for i in range(n)],  # free text: one value per row
            "income": rng.normal(30, 5, n).round(1),
            "approved": rng.choice(["yes", "no"], n),
        }
    )


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_read_table_encodes_only_the_asked_low_cardinality_text(tmp_path, kind):
    frame = _world()
    frame.loc[[3, 7], "region"] = None
    path = tmp_path / f"t.{kind}"
    frame.to_csv(path, index=False) if kind == "csv" else frame.to_parquet(path, index=False)
    plain = read_table(path)
    asked = ["gender", "region", "note", "income", "id"]
    coded = read_table(path, dictionary=asked)
    assert coded.attrs["encoded_columns"] == ["gender", "region"]
    for name in ("gender", "region"):
        col = coded[name]
        assert isinstance(col.dtype, pd.CategoricalDtype) and not col.cat.ordered
        assert col.cat.categories.tolist() == sorted(plain[name].dropna().unique())
        # the values and the missing cells of the text column, exactly
        pd.testing.assert_series_equal(col.astype(plain[name].dtype), plain[name])
    for name in ("note", "income", "id", "approved"):  # too many values, not text, not asked
        pd.testing.assert_series_equal(coded[name], plain[name])
    assert coded.memory_usage(deep=True).sum() < plain.memory_usage(deep=True).sum()


def test_parquet_levels_come_sorted_whatever_the_dictionary_order(tmp_path):
    path = tmp_path / "t.parquet"
    pd.DataFrame({"g": ["m", "f", "x", "f"] * 10}).to_parquet(path, index=False)
    col = read_table(path, dictionary=["g"])["g"]
    assert col.cat.categories.tolist() == ["f", "m", "x"]
    assert col.astype(str).tolist() == ["m", "f", "x", "f"] * 10


def test_parquet_column_with_many_values_goes_back_to_its_text(tmp_path):
    path = tmp_path / "t.parquet"
    pd.DataFrame({"g": ["a", "b", "c", "d"]}).to_parquet(path, index=False)
    plain, coded = read_table(path), read_table(path, dictionary=["g"])
    pd.testing.assert_frame_equal(coded, plain)
    assert "encoded_columns" not in coded.attrs


def test_a_stored_categorical_is_left_as_stored(tmp_path):
    path = tmp_path / "t.parquet"
    stored = pd.Categorical(["b", "a", "b", "b"], categories=["b", "a", "z"])
    pd.DataFrame({"g": stored}).to_parquet(path, index=False)
    col = read_table(path, dictionary=["g"])["g"]
    assert col.cat.categories.tolist() == ["b", "a", "z"]  # not re-sorted, unused level kept


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_thousands_separators_in_an_encoded_column_stop_the_read_as_before(tmp_path, kind):
    frame = pd.DataFrame({"amount": ["1,200", "900", "1,200", "900"] * 5})
    path = tmp_path / f"t.{kind}"
    frame.to_csv(path, index=False) if kind == "csv" else frame.to_parquet(path, index=False)
    with pytest.raises(InputError) as plain:
        read_table(path)
    with pytest.raises(InputError) as coded:
        read_table(path, dictionary=["amount"])
    assert str(coded.value) == str(plain.value) and "'1,200' in data row 1" in str(plain.value)


def test_encodable_bounds():
    assert encodable(1, 2) and not encodable(2, 3)
    assert encodable(MAX_LEVELS, 10**7) and not encodable(MAX_LEVELS + 1, 10**7)


def test_encode_leaves_object_and_numbers_alone():
    frame = pd.DataFrame({"mixed": pd.Series([1, "1", 1, "1"], dtype=object), "n": [1, 2, 1, 2]})
    assert encode(frame, ["mixed", "n", "absent"]) == []
    assert frame["mixed"].dtype == object and "encoded_columns" not in frame.attrs


def _encoded(values: list) -> tuple[pd.Series, pd.Series]:
    text = pd.Series(values, dtype="str", name="g")
    frame = text.to_frame()
    encode(frame, ["g"])
    return text, frame["g"]


@pytest.mark.parametrize(
    "values",
    [
        ["Female ", "female", "Female ", "female", "m"],
        ["female", "Female ", "female", "Female ", "m"],  # a tie: first seen first
        ["a", "b", None, "b", "a", "c", "c", "c", "a"],
    ],
)
def test_value_checks_give_the_text_columns_messages(values):
    text, coded = _encoded(values * 4)  # few values per row: encoded
    assert isinstance(coded.dtype, pd.CategoricalDtype)
    assert list(value_counts(coded).items()) == list(text.value_counts().items())
    for check in (
        lambda c: check_spellings(c, "g", "protected"),
        lambda c: check_listed_values(c, "g", ("FEMALE",), "protected", "protected value"),
        lambda c: check_listed_values(c, "g", ("b",), "protected", "protected value"),
    ):
        outcomes = []
        for col in (text, coded):
            try:
                check(col)
                outcomes.append(None)
            except InputError as exc:
                outcomes.append(str(exc))
        assert outcomes[0] == outcomes[1]


def test_a_users_categorical_keeps_pandas_counts():
    col = pd.Series(pd.Categorical(["b", "a"], categories=["a", "b", "z"]), name="g")
    assert value_counts(col).to_dict() == col.value_counts().to_dict() == {"a": 1, "b": 1, "z": 0}


def test_compact_drops_levels_no_row_holds_and_keeps_attrs():
    frame = pd.DataFrame({"g": ["a", "b", "b", "c"] * 3, "h": ["x"] * 12})
    encode(frame, ["g", "h"])
    kept = frame.iloc[[1, 2, 3]].reset_index(drop=True)
    out = compact(kept, kept.attrs["encoded_columns"])
    assert out["g"].cat.categories.tolist() == ["b", "c"]
    assert out.attrs["encoded_columns"] == ["g", "h"]
    assert kept["g"].cat.categories.tolist() == ["a", "b", "c"]  # the input is not modified


def _config(tmp_path, frame: pd.DataFrame, **extra) -> object:
    frame.to_parquet(tmp_path / "d.parquet", index=False)
    cfg = {
        "data": "d.parquet",
        "id": "id",
        "decision": {"column": "approved"},
        "favorable": "yes",
        "features": {"income": "numeric", "region": "categorical"},
        "protected": {"gender": "female"},
        "analyses": {"groups": {}},
        **extra,
    }
    path = tmp_path / "audit.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return load_config(path)


def test_audit_data_holds_the_role_columns_encoded(tmp_path):
    cfg = _config(tmp_path, _world())
    assert cfg.dictionary_columns() == ["region", "gender", "approved"]
    data = cfg.audit_data()
    for name in ("gender", "region", "approved"):
        assert isinstance(data.frame[name].dtype, pd.CategoricalDtype)
    assert not isinstance(data.frame["id"].dtype, pd.CategoricalDtype)
    plain = cfg.audit_data(cfg.read_frame())  # a frame given: used as it is
    assert not isinstance(plain.frame["gender"].dtype, pd.CategoricalDtype)
    assert np.array_equal(data.decision_array(), plain.decision_array())
    assert np.array_equal(data.protected_mask(), plain.protected_mask())


def test_a_filter_leaves_no_level_without_rows(tmp_path):
    cfg = _config(tmp_path, _world(), where="region != 'rural'")
    region = cfg.audit_data().frame["region"]
    assert region.cat.categories.tolist() == ["suburban", "urban"]


def test_a_misspelt_protected_value_stops_the_run_as_before(tmp_path):
    cfg = _config(tmp_path, _world(), protected={"gender": "Female"})
    with pytest.raises(InputError) as coded:
        cfg.audit_data()
    with pytest.raises(InputError) as plain:
        cfg.audit_data(cfg.read_frame())
    assert str(coded.value) == str(plain.value) and "does not occur as written" in str(plain.value)


def test_as_text_gives_the_text_columns_back_with_the_same_roles(tmp_path):
    from primafacie.data_dictionary import as_text

    cfg = _config(tmp_path, _world())
    data = cfg.audit_data()
    text = as_text(data)
    plain = cfg.audit_data(cfg.read_frame())
    pd.testing.assert_frame_equal(text.frame, plain.frame)
    assert "encoded_columns" not in text.frame.attrs and text.protected == data.protected
    assert isinstance(data.frame["gender"].dtype, pd.CategoricalDtype)  # not modified
    assert as_text(plain) is plain


def test_only_the_analyses_shown_to_take_encoded_columns_get_them():
    from primafacie.audit.registry import ANALYSES

    assert [a.name for a in ANALYSES if a.encoded_text] == ["situation"]


def test_group_metrics_run_on_text_roles_with_the_features_left_encoded(tmp_path):
    """Group metrics read no feature (``reads_features=False``): the audit gives them the
    text of the role columns only, the features' left encoded (their text was ~50 B per row
    held beside the situation test, the Dask client's peak at 10^7 rows). Their result is
    the one of every column as text, and the other analyses still get every column as text."""
    from primafacie.audit.registry import ANALYSES
    from primafacie.audit.run import _GivenData, feature_only_columns
    from primafacie.data_dictionary import as_text
    from primafacie.groups import GroupMetrics

    frame = _world(600, seed=3)
    frame["race"] = np.random.default_rng(4).choice(["a", "b", "c"], len(frame))
    cfg = _config(tmp_path, frame, protected={"gender": "female", "race": ["b", "c"]})
    data = cfg.audit_data()
    assert {"gender", "race", "region"} <= set(data.frame.attrs["encoded_columns"])
    assert feature_only_columns(data) == ["income", "region"]
    given = _GivenData(data, data)
    groups = next(a for a in ANALYSES if a.name == "groups")
    assert [a.name for a in ANALYSES if not a.reads_features] == ["groups"]
    partly = given.of(groups)
    assert isinstance(partly.frame["region"].dtype, pd.CategoricalDtype)
    assert partly.frame.attrs["encoded_columns"] == ["region"]
    for name in ("gender", "race", "approved"):
        assert not isinstance(partly.frame[name].dtype, pd.CategoricalDtype), name
    whole = as_text(data)
    a, b = GroupMetrics().run(partly), GroupMetrics().run(whole)
    pd.testing.assert_frame_equal(a.summary(), b.summary())
    pd.testing.assert_frame_equal(a.to_frame(), b.to_frame())
    recourse = next(a for a in ANALYSES if a.name == "recourse")
    pd.testing.assert_frame_equal(given.of(recourse).frame, whole.frame)
