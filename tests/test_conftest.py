"""tests/conftest.py: the heavy modules run first (make test's balance of the xdist workers)."""

from __future__ import annotations

from types import SimpleNamespace

from primafacie.paths import PROJECT_ROOT
from tests import conftest


def test_every_heavy_module_is_a_test_module_listed_once():
    assert len(set(conftest.HEAVY_FIRST)) == len(conftest.HEAVY_FIRST)
    for path in conftest.HEAVY_FIRST:
        assert (PROJECT_ROOT / path).is_file(), path
        assert path.startswith("tests/") and path.rsplit("/", 1)[1].startswith("test_"), path


def test_heavy_modules_first_in_their_order_the_rest_in_collection_order():
    first, second = conftest.HEAVY_FIRST[:2]
    ids = ["tests/a/test_x.py::t1", f"{second}::t", "src/primafacie/m.py::m.f",
           f"{first}::t[1]", "tests/a/test_x.py::t2", f"{first}::t[2]"]  # fmt: skip
    items = [SimpleNamespace(nodeid=i) for i in ids]
    conftest.pytest_collection_modifyitems(items)
    assert [i.nodeid for i in items] == [
        f"{first}::t[1]", f"{first}::t[2]", f"{second}::t",
        "tests/a/test_x.py::t1", "src/primafacie/m.py::m.f", "tests/a/test_x.py::t2",
    ]  # fmt: skip
