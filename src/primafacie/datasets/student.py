"""UCI Student Performance (Cortez & Silva 2008) and the preprocessing of the principal-stratum paper.

The data are read from a local folder (``student_performance/student-{mat,por}.csv``), either the
UCI ';'-separated quoted files or a ','-separated copy; nothing is downloaded. Licence CC BY 4.0.

The paper (seed 001, Section 4) dichotomises every variable with rules in a supplement that is not
available, so the rules below are our own [choice] (those of spec §6): yes/no and two-level
variables as is; age > 16; Medu, Fedu >= 3; Mjob, Fjob in {teacher, health, services};
reason == course; guardian == mother; traveltime > 1; studytime > 2; famrel >= 4;
freetime, goout >= 4; Dalc > 1; Walc > 2; health >= 4; absences > 0. Y = 1 when G1 is strictly
above the cohort's 2/3-quantile (``tie=">"``; ``tie=">="`` is the other reading).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputError
from ..paths import require_file

__all__ = ["load_student", "dichotomize_student", "STUDENT_FILES", "STUDENT_PREDICTORS"]

STUDENT_FILES = {"mat": "student-mat.csv", "por": "student-por.csv"}

#: The 28 predictors of G1 (33 attributes minus school, failures, G1, G2, G3).
STUDENT_PREDICTORS = [
    "sex",
    "age",
    "address",
    "famsize",
    "Pstatus",
    "Medu",
    "Fedu",
    "Mjob",
    "Fjob",
    "reason",
    "guardian",
    "traveltime",
    "studytime",
    "schoolsup",
    "famsup",
    "paid",
    "activities",
    "nursery",
    "higher",
    "internet",
    "romantic",
    "famrel",
    "freetime",
    "goout",
    "Dalc",
    "Walc",
    "health",
    "absences",
]

_TWO_LEVEL = {  # column -> value coded 1
    "sex": "M",
    "address": "U",
    "famsize": "GT3",
    "Pstatus": "T",
    "schoolsup": "yes",
    "famsup": "yes",
    "paid": "yes",
    "activities": "yes",
    "nursery": "yes",
    "higher": "yes",
    "internet": "yes",
    "romantic": "yes",
}
_THRESHOLDS = {  # column -> (operator, value): 1 when the comparison holds
    "age": (">", 16),
    "Medu": (">=", 3),
    "Fedu": (">=", 3),
    "traveltime": (">", 1),
    "studytime": (">", 2),
    "famrel": (">=", 4),
    "freetime": (">=", 4),
    "goout": (">=", 4),
    "Dalc": (">", 1),
    "Walc": (">", 2),
    "health": (">=", 4),
    "absences": (">", 0),
}


def load_student(subject: str = "mat", data_dir: str | os.PathLike | None = None) -> pd.DataFrame:
    """Read ``student-mat.csv`` or ``student-por.csv`` (';' or ',' separated).

    Parameters
    ----------
    subject
        ``"mat"`` (395 rows) or ``"por"`` (649 rows).
    data_dir
        Folder holding ``student_performance/`` (default ``$PRIMAFACIE_DATA``).

    Returns
    -------
    pandas.DataFrame with the 33 original columns.

    Examples
    --------
    >>> df = load_student("mat")
    >>> df.shape
    (395, 33)
    """
    if subject not in STUDENT_FILES:
        raise InputError(f"subject must be one of {list(STUDENT_FILES)}, got {subject!r}")
    path: Path = require_file(data_dir, "student_performance", STUDENT_FILES[subject])
    with open(path, encoding="utf-8") as fh:
        header = fh.readline()
    sep = ";" if header.count(";") > header.count(",") else ","
    frame = pd.read_csv(path, sep=sep, quotechar='"')
    missing = {"sex", "address", "higher", "G1"} - set(frame.columns)
    if missing:
        raise InputError(f"{path} lacks column(s) {sorted(missing)}; is it the UCI student file?")
    return frame


def _numeric(frame: pd.DataFrame, col: str) -> pd.Series:
    x = pd.to_numeric(frame[col], errors="coerce")
    bad = x.isna()
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(
            f"student column {col!r} must be numeric; row {row} has {frame[col].iloc[row]!r}"
        )
    return x


def dichotomize_student(frame: pd.DataFrame, tie: str = ">") -> pd.DataFrame:
    """Binary (0/1) versions of the 28 predictors plus ``Y`` (top third of G1) and raw labels.

    Parameters
    ----------
    frame
        Output of :func:`load_student`.
    tie
        ``">"``: Y = G1 > 2/3-quantile (prevalence 0.324 mat / 0.234 por); ``">="``: G1 >= it.

    Returns
    -------
    pandas.DataFrame with the 28 binary predictors, ``Y`` and the raw ``sex``, ``address``,
    ``higher`` labels as ``sex_label``, ``address_label``, ``higher_label``.

    Examples
    --------
    >>> raw = pd.DataFrame({c: ["x"] * 3 for c in STUDENT_PREDICTORS})
    >>> raw = raw.assign(sex=["F", "M", "M"], G1=[5, 10, 15], Mjob="teacher", Fjob="other",
    ...                  reason="course", guardian="mother", **{k: [1, 2, 3] for k in
    ...                  ["age", "Medu", "Fedu", "traveltime", "studytime", "famrel", "freetime",
    ...                   "goout", "Dalc", "Walc", "health", "absences"]})
    >>> dichotomize_student(raw)[["sex", "Mjob", "Y"]].values.tolist()
    [[0, 1, 0], [1, 1, 0], [1, 1, 1]]
    """
    if tie not in (">", ">="):
        raise InputError(f"tie must be '>' or '>=', got {tie!r}")
    missing = [c for c in [*STUDENT_PREDICTORS, "G1"] if c not in frame.columns]
    if missing:
        raise InputError(f"student data lacks column(s) {missing}; is it the UCI student file?")
    out = pd.DataFrame(index=frame.index)
    for col, one in _TWO_LEVEL.items():
        out[col] = (frame[col].astype(str) == one).astype(np.int8)
    for col, (op, val) in _THRESHOLDS.items():
        x = _numeric(frame, col)
        out[col] = ((x > val) if op == ">" else (x >= val)).astype(np.int8)
    out["Mjob"] = frame["Mjob"].isin(["teacher", "health", "services"]).astype(np.int8)
    out["Fjob"] = frame["Fjob"].isin(["teacher", "health", "services"]).astype(np.int8)
    out["reason"] = (frame["reason"] == "course").astype(np.int8)
    out["guardian"] = (frame["guardian"] == "mother").astype(np.int8)
    out = out[STUDENT_PREDICTORS]
    g1 = _numeric(frame, "G1")
    q = np.quantile(g1, 2 / 3)
    out["Y"] = ((g1 > q) if tie == ">" else (g1 >= q)).astype(np.int8)
    for col in ("sex", "address", "higher"):
        out[f"{col}_label"] = frame[col].astype(str).to_numpy()
    return out
