"""UCI Adult loader with the FACTS paper's preprocessing.

The FACTS experiments (Kavouras et al., NeurIPS 2023, App. B) use the 45,222 complete rows of
Adult (``adult.data`` rows followed by ``adult.test`` rows, as in the fairtest copy), drop
``fnlwgt`` and ``education``, merge Husband/Wife into ``Married``, cut hours-per-week into five
named bands and age into five quantile bins. Files are read from a local folder (the UCI files
``adult.data`` and ``adult.test``); nothing is downloaded.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputError
from ..paths import require_file

__all__ = [
    "ADULT_COLUMNS",
    "HOURS_BINS",
    "HOURS_LABELS",
    "load_adult_raw",
    "load_adult_facts",
    "interval_labels",
]

ADULT_COLUMNS = [
    "age", "Workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
    "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week",
    "native-country", "income",
]  # fmt: skip
HOURS_BINS = [0.9, 25, 39, 40, 55, 100]
HOURS_LABELS = ["PartTime", "MidTime", "FullTime", "OverTime", "BrainDrain"]


def _read(path: Path, skip_first: bool) -> pd.DataFrame:
    frame = pd.read_csv(
        path,
        header=None,
        names=ADULT_COLUMNS,
        skiprows=1 if skip_first else 0,
        skipinitialspace=True,
        na_values=["?"],
        comment=None,
    )
    frame = frame.dropna(how="all")
    frame["income"] = frame["income"].astype(str).str.rstrip(".")
    return frame


def load_adult_raw(
    data_dir: str | os.PathLike | None = None, order: str = "data-test"
) -> pd.DataFrame:
    """The raw Adult rows, ``"?"`` read as missing.

    Parameters
    ----------
    data_dir
        Folder holding ``adult/adult.data`` and ``adult/adult.test`` (default: the project's
        data folder, see :func:`primafacie.paths.resolve_data_dir`).
    order
        ``"data-test"`` (adult.data rows then adult.test rows: the order of the fairtest
        ``adult.csv`` read by the FACTS experiment notebooks, whose first row is adult.data's
        first row) or ``"openml"`` (OpenML 1590 / aif360: test rows first). The row order
        decides the seeded train/test split.

    Returns
    -------
    pandas.DataFrame
        48,842 rows with the UCI columns (``Workclass`` capitalised as in the FACTS code).

    Examples
    --------
    >>> df = load_adult_raw()
    >>> len(df)
    48842
    """
    if order not in ("data-test", "openml"):
        raise InputError(f"order must be 'data-test' or 'openml', got {order!r}")
    test = _read(require_file(data_dir, "adult", "adult.test"), skip_first=True)
    train = _read(require_file(data_dir, "adult", "adult.data"), skip_first=False)
    parts = [train, test] if order == "data-test" else [test, train]
    return pd.concat(parts, ignore_index=True)


def _fmt_edge(x: float) -> str:
    text = f"{x:.3f}".rstrip("0").rstrip(".")
    return text


def interval_labels(categories: pd.IntervalIndex) -> list[str]:
    """Readable right-closed labels such as ``(16.999, 26]`` for pandas intervals."""
    return [f"({_fmt_edge(iv.left)}, {_fmt_edge(iv.right)}]" for iv in categories]


def load_adult_facts(
    data_dir: str | os.PathLike | None = None, order: str = "data-test"
) -> pd.DataFrame:
    """Adult preprocessed as in the FACTS paper (45,222 rows).

    Steps: drop ``fnlwgt`` and ``education``; drop rows with a missing value; relationship
    Husband/Wife -> Married; hours-per-week cut at [0.9, 25, 39, 40, 55, 100] into
    PartTime/MidTime/FullTime/OverTime/BrainDrain; age into 5 quantile bins (``pd.qcut``; labels
    such as ``(16.999, 26]``, ordered categorical); ``income`` = 1 for >50K.

    Parameters
    ----------
    data_dir
        Folder holding ``adult/adult.data`` and ``adult/adult.test``.
    order
        Row order before the split (see :func:`load_adult_raw`).

    Returns
    -------
    pandas.DataFrame
        Columns age, Workclass, education-num, marital-status, occupation, relationship, race,
        sex, capital-gain, capital-loss, hours-per-week, native-country, income. ``age`` and
        ``hours-per-week`` are ordered categoricals; other text columns are ``object``.

    Examples
    --------
    >>> df = load_adult_facts()
    >>> df.shape
    (45222, 13)
    """
    frame = load_adult_raw(data_dir, order).drop(columns=["fnlwgt", "education"])
    frame = frame.dropna().reset_index(drop=True)
    frame["relationship"] = frame["relationship"].replace({"Husband": "Married", "Wife": "Married"})
    hours = pd.cut(frame["hours-per-week"], bins=HOURS_BINS, labels=HOURS_LABELS)
    frame["hours-per-week"] = pd.Categorical(
        hours.astype(str), categories=HOURS_LABELS, ordered=True
    )
    age = pd.qcut(frame["age"], q=5)
    labels = interval_labels(age.cat.categories)
    frame["age"] = pd.Categorical.from_codes(age.cat.codes, categories=labels, ordered=True)
    frame["income"] = np.where(frame["income"] == ">50K", 1, 0).astype(np.int64)
    for col in ("education-num", "capital-gain", "capital-loss"):
        frame[col] = frame[col].astype(np.int64)
    return frame
