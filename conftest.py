"""Doctest examples that read the real datasets skip, saying why, when a file is absent."""

from __future__ import annotations

import pytest
from _pytest.doctest import DoctestItem

from primafacie.paths import resolve_data_dir

#: The deprecated module names of the 0.2 renames (tools/rename_vocabulary.py): importing one
#: warns, and they hold no docstring example of their own, so doctest collection skips them
#: (tests/test_deprecated_names.py imports each and checks its warning).
collect_ignore = [
    "src/primafacie/recourse/audit.py",  # rename_vocabulary: keep
    "src/primafacie/certainty/audit.py",  # rename_vocabulary: keep
    "src/primafacie/principal/fairness.py",  # rename_vocabulary: keep
]

#: docstring-example prefix -> dataset files (relative to the data folder) it reads
DOCTEST_DATA = {
    "primafacie.datasets.adult.": [("adult", "adult.data"), ("adult", "adult.test")],
    "primafacie.datasets.compas.": [("compas", "compas-scores-two-years.csv")],
    "primafacie.datasets.cst_data.load_cst_loan": [
        ("loan_application", "LoanApplication_v2.csv"),
        ("loan_application", "cf_LoanApplication_v2.csv"),
    ],
    "primafacie.datasets.student.load_student": [("student_performance", "student-mat.csv")],
    "primafacie.datasets.german.load_german_credit": [("german_credit", "german.data")],
}


def pytest_collection_modifyitems(config, items):
    data_dir = resolve_data_dir(None)
    for item in items:
        if not isinstance(item, DoctestItem):
            continue
        for prefix, files in DOCTEST_DATA.items():
            if not item.name.startswith(prefix):
                continue
            missing = [data_dir.joinpath(*f) for f in files if not data_dir.joinpath(*f).is_file()]
            if missing:
                reason = f"dataset file absent: {missing[0]} (set PRIMAFACIE_DATA)"
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(autouse=True)
def _pandas_in_doctests(doctest_namespace):
    """``pd`` in every docstring example: the modules on the engines' import path import
    pandas inside their functions (issue 22, start-up), so their examples no longer find it
    among the module's names."""
    import pandas as pd

    doctest_namespace["pd"] = pd
