"""Run the docstring examples of the principal package (they hold hand-checked paper values)."""

import doctest
import importlib

import pytest

from primafacie.errors import DataMissingError

MODULES = [
    "primafacie.principal.approx",
    "primafacie.principal.bounds",
    "primafacie.principal.estimate",
    "primafacie.principal.evaluate",
    "primafacie.principal.engine",
    "primafacie.principal.lp",
    "primafacie.principal.population",
    "primafacie.principal.repair",
    "primafacie.principal.stack",
    "primafacie.datasets.student",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    if name == "primafacie.datasets.student":
        from primafacie.datasets import student

        try:  # its example reads the real file: skip, saying why, when it is absent
            student.load_student()
        except DataMissingError as exc:
            pytest.skip(str(exc))
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
