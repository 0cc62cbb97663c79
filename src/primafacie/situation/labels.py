"""The one name of each situation-testing method, used by every sentence, table, page and CLI
line (issue 23: one method had three names).

The codes (``st``, ``cst``, ``cst_centers``, ``cf``) are the configuration's keys and the
``method`` column of every CSV and of results.json; people read the names below. The paper
reproductions keep the paper's own labels (``CST w/o``) in their comparison tables.

Examples
--------
>>> method_name("cst"), method_name("cst_centers"), method_name("knn")
('CST without centres', 'CST with centres', 'knn')
"""

from __future__ import annotations

__all__ = ["METHOD_NAMES", "METHOD_GLOSSARY", "method_name"]

#: code -> the name people read (report, dossier, terminal, headlines).
METHOD_NAMES = {
    "st": "ST",
    "cst": "CST without centres",
    "cst_centers": "CST with centres",
    "cf": "CF",
}

#: code -> one sentence for the glossary: what the method compares.
METHOD_GLOSSARY = {
    "st": (
        "k-NN situation testing: the complainant's nearest protected people (control group) "
        "against their nearest non-protected people (test group)."
    ),
    "cst": (
        "counterfactual situation testing: the test group is searched around the person the "
        "complainant would have been without the protected attribute (from the causal model)."
    ),
    "cst_centers": (
        "counterfactual situation testing with centres: as CST without centres, and the "
        "complainant's and the twin's own decisions count in their groups."
    ),
    "cf": (
        "counterfactual fairness: a case when the decision flips with the protected attribute "
        "(the complainant against its counterfactual twin); significant when the CST with "
        "centres test is."
    ),
}


def method_name(code: str) -> str:
    """The name people read for a method code (an unknown code is returned as is)."""
    return METHOD_NAMES.get(str(code), str(code))
