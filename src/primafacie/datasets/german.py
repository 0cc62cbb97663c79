"""Statlog German credit (Hofmann 1994) with the FACTS paper's preprocessing.

The UCI file ``german_credit/german.data`` (1,000 rows, 20 coded attributes and the class, space
separated, no header) is read from a local folder; nothing is downloaded. Licence CC BY 4.0.

FACTS (App. B, German credit; spec §6.2) names the columns as below, derives ``sex`` from the
personal-status code (A91, A93, A94 male; A92, A95 female), maps the class {1 good, 2 bad} to
``target`` {1, 0}, and leaves the seven numeric attributes unbinned (range-normalised costs);
every other attribute is categorical and keeps its UCI code (A11, A34, ...).
"""

from __future__ import annotations

import os

import pandas as pd

from ..errors import InputError
from ..paths import require_file

__all__ = [
    "GERMAN_COLUMNS",
    "GERMAN_NUMERIC",
    "GERMAN_FILE",
    "load_german_credit",
    "german_features",
]

GERMAN_FILE = ("german_credit", "german.data")
#: The FACTS notebook's names of the 20 attributes and the class (UCI order).
GERMAN_COLUMNS = [
    "status", "duration", "hist", "purpose", "credit", "savings", "empl", "rate", "sex",
    "others", "residence", "property", "age", "plans", "housing", "cards", "job", "liables",
    "telephone", "foreign", "target",
]  # fmt: skip
#: Attributes left numeric (months, amount, instalment rate, residence years, age, number of
#: credits, number of people liable).
GERMAN_NUMERIC = ("duration", "credit", "rate", "residence", "age", "cards", "liables")
_SEX = {"A91": "Male", "A92": "Female", "A93": "Male", "A94": "Male", "A95": "Female"}


def load_german_credit(data_dir: str | os.PathLike | None = None) -> pd.DataFrame:
    """German credit as FACTS uses it: 1,000 rows, ``sex`` Male/Female, ``target`` 1 = good.

    Parameters
    ----------
    data_dir
        Folder holding ``german_credit/german.data`` (default: the project's data folder, see
        :func:`primafacie.paths.resolve_data_dir`).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`GERMAN_COLUMNS`; the numeric ones as integers, the others as the UCI
        codes (strings), ``sex`` as ``"Male"``/``"Female"`` and ``target`` as 0/1.

    Examples
    --------
    >>> df = load_german_credit()
    >>> df.shape, df["sex"].value_counts().to_dict(), int(df["target"].sum())
    ((1000, 21), {'Male': 690, 'Female': 310}, 700)
    """
    path = require_file(data_dir, *GERMAN_FILE)
    df = pd.read_csv(path, sep=" ", header=None, names=GERMAN_COLUMNS, dtype=str)
    if df.shape != (1000, 21) or df.isna().any().any():
        raise InputError(
            f"{path} is not the Statlog german.data file (expected 1,000 complete rows of 21 "
            f"space-separated values, got {df.shape[0]} rows, {int(df.isna().sum().sum())} gaps)"
        )
    unknown = sorted(set(df["sex"]) - set(_SEX))
    if unknown:
        raise InputError(f"{path}: unknown personal-status code(s) {unknown} in column 9")
    bad = sorted(set(df["target"]) - {"1", "2"})
    if bad:
        raise InputError(f"{path}: the class column holds {bad}; expected 1 (good) or 2 (bad)")
    df["sex"] = df["sex"].map(_SEX)
    df["target"] = (df["target"] == "1").astype("int64")
    for col in GERMAN_NUMERIC:
        bad_num = df.loc[~df[col].str.fullmatch(r"[+-]?\d+"), col]
        if len(bad_num):
            raise InputError(
                f"{path}: column {col!r} must hold integers; row {int(bad_num.index[0]) + 1} "
                f"holds {bad_num.iloc[0]!r}"
            )
        df[col] = df[col].astype("int64")
    return df


def german_features() -> dict[str, str]:
    """Kinds of the 19 attributes besides ``sex`` and ``target`` (numeric or categorical).

    Examples
    --------
    >>> kinds = german_features()
    >>> len(kinds), kinds["credit"], kinds["status"]
    (19, 'numeric', 'categorical')
    """
    return {
        c: ("numeric" if c in GERMAN_NUMERIC else "categorical")
        for c in GERMAN_COLUMNS
        if c not in ("sex", "target")
    }
