"""primafacie.docstrings: shared docstring parts, and the engines' documented parameters."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pydoc
import re

import pytest

from primafacie.audit.registry import ANALYSES
from primafacie.base import Engine
from primafacie.docstrings import fill, fill_doc

PART = """\
out_dir
    Folder holding the CSVs.

    A second paragraph."""


def test_a_part_takes_the_indentation_of_its_marker():
    doc = "Compare.\n\n    Parameters\n    ----------\n    {{out}}\n    k\n        Size.\n    "
    assert fill(doc, out=PART) == (
        "Compare.\n\n    Parameters\n    ----------\n    out_dir\n        Folder holding the "
        "CSVs.\n\n        A second paragraph.\n    k\n        Size.\n    "
    )


def test_only_whole_line_markers_are_filled_and_other_braces_stay():
    doc = "Rate 12.5% of {'a': 1}; {{x}} inline stays.\n{{x}}\n"
    assert fill(doc, x="X") == "Rate 12.5% of {'a': 1}; {{x}} inline stays.\nX\n"


def test_a_missing_or_an_unused_part_is_an_error():
    with pytest.raises(ValueError, match=r"marker \{\{data\}\} has no part \(given: date\)"):
        fill("{{data}}", date="x")
    with pytest.raises(ValueError, match="parts without a marker: extra"):
        fill("{{data}}", data="x", extra="y")


def test_no_docstring_under_python_oo_is_left_alone():
    assert fill(None, data="x") is None

    def f():
        pass

    assert fill_doc(data="x")(f) is f and f.__doc__ is None


EXAMPLE = """\
>>> 6 * 7
42"""


@fill_doc(setup=EXAMPLE, params=PART)
def _documented(out_dir):
    """Shared parts.

    Parameters
    ----------
    {{params}}

    Examples
    --------
    {{setup}}
    >>> 1 + 1
    2
    """


def test_help_getdoc_and_doctest_read_the_filled_text():
    text = inspect.getdoc(_documented)
    assert "out_dir\n    Folder holding the CSVs." in text and "{{" not in text
    assert "Folder holding the CSVs." in pydoc.render_doc(_documented, renderer=pydoc.plaintext)
    tests = doctest.DocTestFinder().find(_documented)
    assert [len(t.examples) for t in tests] == [2]
    runner = doctest.DocTestRunner()
    for t in tests:
        runner.run(t)
    assert runner.summarize(verbose=False) == doctest.TestResults(failed=0, attempted=2)


def test_a_filled_module_docstring_keeps_its_doctests():
    import primafacie.report.dossier as module

    assert "{{" not in module.__doc__
    assert '>>> res = SituationTest(methods="st", k=2).run(data)' in module.__doc__
    assert any(
        t.examples for t in doctest.DocTestFinder().find(module) if t.name == module.__name__
    )


# ---------------------------------------------------------------------- engines' parameters
def documented_parameters(doc: str) -> dict[str, str]:
    """``{name: description}`` of a numpydoc ``Parameters`` section (``a, b`` entries share
    their description; a ``**roles`` entry is named ``roles``)."""
    found = re.search(r"^Parameters\n-+\n(.*?)(?=^\S[^\n]*\n-+\n|\Z)", doc, flags=re.S | re.M)
    out: dict[str, str] = {}
    names: list[str] = []
    for line in (found.group(1) if found else "").splitlines():
        if line and not line[0].isspace():
            names = [n.strip().lstrip("*") for n in line.split(" : ")[0].split(",")]
            out.update({n: out.get(n, "") for n in names})
        elif line.strip():
            out.update({n: f"{out[n]} {line.strip()}".strip() for n in names})
    return out


def test_documented_parameters_by_hand():
    doc = "Run.\n\nParameters\n----------\na, b : int\n    Sizes.\nc\n\nReturns\n-------\nx\n"
    assert documented_parameters(doc) == {"a": "Sizes.", "b": "Sizes.", "c": ""}


def _engines() -> list[type]:
    """Every engine class (an :class:`Engine` defined in an ``engine`` module) of every
    analysis of the registry."""
    out = []
    for analysis in ANALYSES:
        module = importlib.import_module(analysis.run.__module__.rsplit(".", 1)[0] + ".engine")
        out += [c for c in vars(module).values() if inspect.isclass(c)
                and issubclass(c, Engine) and c.__module__ == module.__name__]  # fmt: skip
    return out


def _arguments(fn) -> list[str]:
    return [name for name, p in inspect.signature(fn).parameters.items() if name != "self"
            and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]  # fmt: skip


@pytest.mark.parametrize("engine", _engines(), ids=lambda c: c.__name__)
def test_every_engine_documents_each_of_its_parameters(engine):
    """Every argument of the engine's constructor and of its ``run`` is listed, with a
    description, in the class' and ``run``'s Parameters sections (shared parts included)."""
    for where, fn in (("class", engine.__init__), ("run", engine.run)):
        doc = inspect.getdoc(engine if where == "class" else engine.run) or ""
        described = documented_parameters(doc)
        missing = [name for name in _arguments(fn) if not described.get(name)]
        assert not missing, f"{engine.__name__} ({where}) does not describe {missing}"


def test_the_engines_are_those_of_the_registry():
    assert {e.__name__ for e in _engines()} == {
        "GroupMetrics", "SituationTest", "RecourseFairness", "PrincipalFairness",
        "CertaintyRanking", "AlternativeSearch", "LL144Tables",
    }  # fmt: skip
