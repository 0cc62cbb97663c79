"""UCI student loader and dichotomisation (src/primafacie/datasets/student.py)."""

import pandas as pd
import pytest

from primafacie.datasets.student import STUDENT_PREDICTORS, dichotomize_student, load_student
from primafacie.errors import InputError


def _raw(n=6):
    raw = pd.DataFrame({c: ["yes"] * n for c in STUDENT_PREDICTORS})
    nums = ["age", "Medu", "Fedu", "traveltime", "studytime", "famrel", "freetime", "goout"]
    nums += ["Dalc", "Walc", "health", "absences"]
    return raw.assign(
        sex=["F", "M"] * (n // 2),
        address=["U", "R"] * (n // 2),
        Mjob="health",
        Fjob="other",
        reason="course",
        guardian="father",
        G1=list(range(5, 5 + n)),
        **{k: list(range(n)) for k in nums},
    )


def test_reads_uci_semicolon_quoted_and_comma_copies(tmp_path):
    raw = _raw()
    folder = tmp_path / "student_performance"
    folder.mkdir()
    raw.to_csv(folder / "student-mat.csv", sep=";", index=False, quoting=1)  # UCI style
    raw.to_csv(folder / "student-por.csv", sep=",", index=False)
    a, b = load_student("mat", tmp_path), load_student("por", tmp_path)
    assert a.shape == b.shape == raw.shape
    assert a["sex"].tolist() == b["sex"].tolist() == raw["sex"].tolist()
    # top third by G1 > 2/3-quantile: G1 = 5..10, quantile 8.33 -> 9 and 10
    assert dichotomize_student(a)["Y"].tolist() == [0, 0, 0, 0, 1, 1]
    assert dichotomize_student(a, tie=">=")["Y"].tolist() == [0, 0, 0, 0, 1, 1]
    d = dichotomize_student(a)
    assert d["age"].tolist() == [0] * 6  # age > 16 never holds for 0..5
    assert d["absences"].tolist() == [0, 1, 1, 1, 1, 1]
    assert d["Mjob"].tolist() == [1] * 6 and d["guardian"].tolist() == [0] * 6


def test_missing_or_bad_columns_name_the_column():
    with pytest.raises(InputError, match="Mjob"):
        dichotomize_student(_raw().drop(columns="Mjob"))
    bad = _raw()
    bad["absences"] = bad["absences"].astype(object)
    bad.loc[2, "absences"] = "many"
    with pytest.raises(InputError, match="absences"):
        dichotomize_student(bad)
    with pytest.raises(InputError, match="subject"):
        load_student("bio")
