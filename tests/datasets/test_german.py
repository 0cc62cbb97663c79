"""German credit loader (src/primafacie/datasets/german.py)."""

from __future__ import annotations

import pytest

from primafacie.datasets.german import (
    GERMAN_COLUMNS,
    GERMAN_NUMERIC,
    german_features,
    load_german_credit,
)
from primafacie.errors import InputError


@pytest.fixture(scope="module")
def german(require_data, data_dir):
    require_data("german_credit", "german.data")
    return load_german_credit(data_dir)


def test_shape_codes_and_first_row(german):
    assert list(german.columns) == GERMAN_COLUMNS
    # UCI row 1: A11 6 A34 A43 1169 A65 A75 4 A93 A101 4 A121 67 A143 A152 2 A173 1 A192 A201 1
    first = german.iloc[0]
    assert (first["status"], first["duration"], first["credit"], first["age"]) == (
        "A11", 6, 1169, 67,
    )  # fmt: skip
    assert (first["sex"], first["target"]) == ("Male", 1)  # A93 = male single; class 1 = good
    assert german.loc[1, "sex"] == "Female" and german.loc[1, "target"] == 0  # A92, class 2
    for col in GERMAN_NUMERIC:
        assert german[col].dtype.kind == "i"


def test_group_and_class_counts(german):
    """Statlog documentation: 700 good and 300 bad credits; A92 + A95 = 310 women."""
    assert german["target"].value_counts().to_dict() == {1: 700, 0: 300}
    assert german["sex"].value_counts().to_dict() == {"Male": 690, "Female": 310}


def test_feature_kinds():
    kinds = german_features()
    assert sorted(c for c, k in kinds.items() if k == "numeric") == sorted(GERMAN_NUMERIC)
    assert "sex" not in kinds and "target" not in kinds and len(kinds) == 19


def test_wrong_file_is_named(tmp_path):
    folder = tmp_path / "german_credit"
    folder.mkdir()
    (folder / "german.data").write_text("A11 6 A34\n")
    with pytest.raises(InputError, match="is not the Statlog german.data file"):
        load_german_credit(tmp_path)


def test_non_integer_numeric_value_is_named(tmp_path, german):
    """A corrupted numeric cell is an InputError naming the column and the value, not a
    ValueError from pandas."""
    folder = tmp_path / "german_credit"
    folder.mkdir()
    rows = german.assign(
        sex=["A93" if s == "Male" else "A92" for s in german["sex"]],
        target=[1 if t == 1 else 2 for t in german["target"]],
    ).astype(str)
    rows.loc[3, "duration"] = "4x2"
    (folder / "german.data").write_text("\n".join(" ".join(r) for r in rows.to_numpy()) + "\n")
    with pytest.raises(InputError, match=r"duration.*'4x2'"):
        load_german_credit(tmp_path)
