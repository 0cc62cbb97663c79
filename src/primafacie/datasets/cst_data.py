"""Loaders for the CST paper's published files: the synthetic loan data and the law school data.

Both come from the authors' repository (github.com/cc-jalvarez/counterfactual-situation-testing
@ 9106169a): ``loan_application/LoanApplication_v2.csv`` with its counterfactual file, and
``law_school/clean_LawSchool.csv`` with the level-3 counterfactual files
``counterfactuals/cf_LawSchool_lev3_do{Male,White,MaleWhite}.csv``. Files are read from a data
directory (``--data-dir`` / ``$PRIMAFACIE_DATA``); a missing file raises
:class:`~primafacie.errors.DataMissingError` naming it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..data import AuditData
from ..decisions import Rule
from ..errors import InputError
from ..paths import require_file

__all__ = [
    "CSTCase",
    "load_cst_loan",
    "load_cst_law",
    "law_facts",
    "LOAN_RULE",
    "LAW_RULE",
    "LAW_SCENARIOS",
]

#: The bank's decision maker b() of the loan data (spec §7.1).
LOAN_RULE = "AnnualSalary + 5 * AccountBalance > 225000"
#: The law-school decision maker (Yale medians, ψ = 20.8; the authors' code uses ≥).
LAW_RULE = "0.6 * UGPA + 0.4 * LSAT >= 20.8"
#: Law-school scenarios and the counterfactual file each uses.
LAW_SCENARIOS = {"gender": "Male", "race": "White", "intersectional": "MaleWhite"}


@dataclass(frozen=True)
class CSTCase:
    """One CST test case: the factual data, the counterfactual table and b().

    Attributes
    ----------
    data
        AuditData with features, one protected attribute and the decision column.
    counterfactuals
        Table aligned row by row with ``data`` holding the counterfactual feature values
        (and the decision column computed by the same b()).
    decider
        The decision rule b().
    """

    data: AuditData
    counterfactuals: pd.DataFrame
    decider: Rule


def load_cst_loan(data_dir: str | os.PathLike | None = None) -> CSTCase:
    """The published synthetic loan data (4993 rows, 1712 women) and its counterfactuals.

    Parameters
    ----------
    data_dir
        Folder holding ``loan_application/`` (default ``$PRIMAFACIE_DATA``).

    Returns
    -------
    CSTCase
        Features AnnualSalary and AccountBalance (numeric), protected ``Gender = 1``
        (female), decision ``LoanApproval`` (±1, favourable +1); the counterfactual table is
        the authors' ``cf_LoanApplication_v2.csv`` (do(Gender := 0), rounded to 2 decimals).

    Examples
    --------
    >>> case = load_cst_loan()
    >>> int(case.data.protected_mask().sum())
    1712
    """
    fact = pd.read_csv(
        require_file(data_dir, "loan_application", "LoanApplication_v2.csv"), sep="|"
    )
    cf = pd.read_csv(
        require_file(data_dir, "loan_application", "cf_LoanApplication_v2.csv"), sep="|"
    )
    if len(cf) != len(fact):
        raise InputError(
            f"cf_LoanApplication_v2.csv has {len(cf)} rows but LoanApplication_v2.csv has "
            f"{len(fact)}"
        )
    data = AuditData(
        fact,
        features={"AnnualSalary": "numeric", "AccountBalance": "numeric"},
        protected={"Gender": 1},
        decision="LoanApproval",
        favorable=1,
    )
    return CSTCase(data, cf, Rule(LOAN_RULE))


def _read_r_table(path: os.PathLike) -> pd.DataFrame:
    # R's write.table: the header has one field fewer than the rows (the row names), which
    # pandas turns into the index; drop it to align by position.
    return pd.read_csv(path, sep="|").reset_index(drop=True)


def law_facts(data_dir: str | os.PathLike | None = None) -> pd.DataFrame:
    """The factual law-school table every scenario shares: ``sex``, ``race_nonwhite``,
    ``LSAT``, ``UGPA``, ``sex_race`` and the decision ``Y`` of :data:`LAW_RULE`.

    Parameters
    ----------
    data_dir
        Folder holding ``law_school/``.

    Returns
    -------
    pandas.DataFrame
        21,790 rows in file order; read it once and pass it to :func:`load_cst_law` for each
        scenario (the CST law tables run three).
    """
    raw = pd.read_csv(require_file(data_dir, "law_school", "clean_LawSchool.csv"), sep="|")
    raw = raw.reset_index(drop=True)
    fact = raw[["sex", "race_nonwhite", "LSAT", "UGPA"]].copy()
    fact["sex_race"] = fact["sex"] + "-" + fact["race_nonwhite"]
    fact["Y"] = Rule(LAW_RULE).predict(fact).astype(np.int64)
    return fact


def load_cst_law(
    scenario: str,
    data_dir: str | os.PathLike | None = None,
    gender_feature: bool = False,
    facts: pd.DataFrame | None = None,
) -> CSTCase:
    """The law-school data (21790 rows) for one scenario, with the authors' counterfactuals.

    Parameters
    ----------
    scenario
        ``"gender"`` (protected sex = Female, do(Male)), ``"race"`` (protected
        race_nonwhite = NonWhite, do(White)) or ``"intersectional"`` (protected
        ``sex_race = Female-NonWhite``, do(MaleWhite)).
    data_dir
        Folder holding ``law_school/``.
    gender_feature
        Race scenario only: also use ``sex`` as a categorical distance feature, as the
        authors' race run did (spec §9 g). The corrected runs leave it out.
    facts
        The table :func:`law_facts` read (not modified), to read ``clean_LawSchool.csv``
        once for several scenarios; default: read it.

    Returns
    -------
    CSTCase
        Features LSAT and UGPA (numeric; plus ``sex`` when asked); decision ``Y`` from
        :data:`LAW_RULE`; the counterfactual table has LSAT/UGPA (the authors' ``scf_*``
        columns, clipped and rounded to 3 decimals), ``sex`` and ``Y`` recomputed by b().
    """
    if scenario not in LAW_SCENARIOS:
        raise InputError(
            f"unknown law-school scenario {scenario!r}; expected one of {', '.join(LAW_SCENARIOS)}"
        )
    rule = Rule(LAW_RULE)
    fact = (law_facts(data_dir) if facts is None else facts).copy()
    do = LAW_SCENARIOS[scenario]
    cf_raw = _read_r_table(
        require_file(data_dir, "law_school", "counterfactuals", f"cf_LawSchool_lev3_do{do}.csv")
    )
    if len(cf_raw) != len(fact):
        raise InputError(
            f"cf_LawSchool_lev3_do{do}.csv has {len(cf_raw)} rows but clean_LawSchool.csv has "
            f"{len(fact)}"
        )
    cf = pd.DataFrame(
        {"LSAT": cf_raw["scf_LSAT"].to_numpy(), "UGPA": cf_raw["scf_UGPA"].to_numpy()}
    )
    # The counterfactual keeps every other attribute of the person (the do() only changes A).
    cf["sex"] = fact["sex"].to_numpy()
    cf["race_nonwhite"] = fact["race_nonwhite"].to_numpy()
    cf["sex_race"] = fact["sex_race"].to_numpy()
    cf["Y"] = rule.predict(cf).astype(np.int64)
    features: dict = {"LSAT": "numeric", "UGPA": "numeric"}
    if scenario == "gender":
        protected = {"sex": "Female"}
    elif scenario == "race":
        protected = {"race_nonwhite": "NonWhite"}
        if gender_feature:
            features = {"sex": "categorical", **features}
    else:
        protected = {"sex_race": "Female-NonWhite"}
    data = AuditData(fact, features=features, protected=protected, decision="Y", favorable=1)
    return CSTCase(data, cf, rule)
