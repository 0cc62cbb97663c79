"""ProPublica COMPAS two-year recidivism loader (``compas/compas-scores-two-years.csv``).

The file (7,214 rows x 53 columns, from github.com/propublica/compas-analysis) repeats the
header names ``decile_score`` and ``priors_count``; pandas renames the second copies to
``decile_score.1`` and ``priors_count.1``. Nothing is downloaded: the file is read from the
data folder (``--data-dir`` / ``$PRIMAFACIE_DATA``).
"""

from __future__ import annotations

import os

import pandas as pd

from ..paths import require_file

__all__ = [
    "COMPAS_FILE",
    "COMPAS_RACES",
    "CERTAINTY_FEATURES",
    "CERTAINTY_CATEGORICAL",
    "load_compas_raw",
    "load_compas_certainty",
]

COMPAS_FILE = ("compas", "compas-scores-two-years.csv")
#: The six race values of the original data, as spelled in the file.
COMPAS_RACES = (
    "African-American", "Asian", "Caucasian", "Hispanic", "Native American", "Other",
)  # fmt: skip
#: Feature set of the authors' fairdo ``load_data('compas')`` (the certainty paper does not
#: publish its features; this is the closest published choice of the same authors) *minus*
#: ``race``: fairdo also lists race, here it is only the protected attribute, not a model input
#: (a choice; the paper does not say whether its models saw race).
CERTAINTY_FEATURES = (
    "sex", "juv_fel_count", "decile_score", "juv_misd_count", "juv_other_count",
    "is_violent_recid", "v_decile_score", "priors_count", "age_cat", "c_charge_degree",
)  # fmt: skip
CERTAINTY_CATEGORICAL = ("sex", "age_cat", "c_charge_degree")


def load_compas_raw(data_dir: str | os.PathLike | None = None) -> pd.DataFrame:
    """All 7,214 rows and 53 columns of ``compas-scores-two-years.csv``.

    Parameters
    ----------
    data_dir
        Folder holding ``compas/compas-scores-two-years.csv`` (default: the project's data
        folder, see :func:`primafacie.paths.resolve_data_dir`).

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> df = load_compas_raw()
    >>> df.shape
    (7214, 53)
    """
    return pd.read_csv(require_file(data_dir, *COMPAS_FILE))


def load_compas_certainty(data_dir: str | os.PathLike | None = None) -> pd.DataFrame:
    """COMPAS as used for the certainty experiment (Duong & Conrad 2024, Table 3).

    Columns: ``race`` (six original values, not binarised), the :data:`CERTAINTY_FEATURES`
    and the label ``two_year_recid`` (1 = rearrested within two years). Rows with a missing
    value among these columns are dropped (the file has none, so all 7,214 rows remain).

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> df = load_compas_certainty()
    >>> sorted(df["race"].unique()) == sorted(COMPAS_RACES)
    True
    """
    raw = load_compas_raw(data_dir)
    cols = ["race", *CERTAINTY_FEATURES, "two_year_recid"]
    return raw[cols].dropna().reset_index(drop=True)
