"""Doctest examples that read the real datasets skip, saying why, when a file is absent."""

from __future__ import annotations

import os

import pytest
from _pytest.doctest import DoctestItem

from primafacie.paths import resolve_data_dir

# One OpenMP/BLAS thread per test process. The suite already runs one pytest-xdist worker per
# core, and scikit-learn's HistGradientBoosting (the SCM's gradient_boosting mechanism, the
# demo's models) and OpenBLAS would each start a thread per core in every worker: 2 workers x 2
# threads on 2 cores, and libgomp's threads spin while they wait for a core. Measured on the
# credit world's gradient-boosting counterfactuals (tests/causal/test_golden.py, 6 cases, load
# 15-20): 68 CPU s with the default threads, 7.9 CPU s with one. What the tests check does not
# change: HistGradientBoosting splits its work by feature and by row, never inside one sum, so
# its fits do not depend on the thread count (the golden tables, frozen under the default
# threads, still match), and every equality test compares two runs of the same process
# settings. Set before any test module imports numpy or scikit-learn (the imports above load
# neither; the libraries read it when they load); the xdist workers and the CLI subprocesses
# of the tests inherit it. A value the caller set is kept.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

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
