"""The shape of the package, checked by walking its imports with ``ast``.

* the import graph of ``src/primafacie`` has no circle (every import counts, including the
  ones inside functions and ``TYPE_CHECKING`` blocks);
* nothing reaches the project's own modules through ``importlib`` (every dependency is a
  plain import that readers and type checkers see), and ``commands/_defaults.py`` is gone;
* the engine packages and their section modules are read from the registry
  (:data:`primafacie.audit.registry.ANALYSES`), never listed by hand; analyses never import
  each other (``CROSS_IMPORTS_ALLOWED`` lists the exceptions, each with its reason);
* no analysis name is spelled outside its own package and the registry: the audit, the
  report, ``results.json`` and the configuration iterate the registry;
* no function or method is longer than 80 code lines (``LONG_FUNCTIONS_ALLOWED`` lists the
  exceptions, each with its reason; it is empty);
* no class is longer than 400 lines (``LARGE_CLASSES_ALLOWED`` lists the exceptions, each with
  its reason, and fails when one of them is no longer over the limit);
* each layer does its own job: no module of ``report/`` imports an engine package or
  ``causal/`` (the report renders Results), and no module of an engine package imports
  ``report/`` except the one that builds its report section (where its registry ``section``
  hook is defined) and the modules of ``REPORT_IMPORTS_ALLOWED``, each with its reason;
* every engine derives from :class:`primafacie.base.Engine` and every Result from
  :class:`primafacie.base.BaseResult`;
* one vocabulary: every engine package keeps its engine class in ``engine.py``, and no engine
  class name ends in ``Audit`` ("audit" is the orchestration: the ``audit`` command,
  ``primafacie.audit``, ``AuditConfig``, ``AuditData``).

Each check is a function of the package's import graph or of a folder, so a ``test_planted_...``
test shows it fails on a module planted in a tmp copy of part of the package.
"""

from __future__ import annotations

import ast
import functools
import io
import tokenize
from pathlib import Path

import pytest

from primafacie.audit.registry import ANALYSES

SRC = Path(__file__).resolve().parents[1] / "src" / "primafacie"


# Most checks below walk the syntax trees of every module of the package: each tree is parsed
# once per test run, not once per check (a parse of all of src/ costs about 1.8 CPU s, and some
# twenty checks read them). The trees are only read, never changed; the cache is keyed by the
# source text, so a planted file is parsed as it is, and emptied when this module ends.
@functools.cache
def _tree(source: str) -> ast.Module:
    return ast.parse(source)


def _parse(path: Path) -> ast.Module:
    return _tree(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module", autouse=True)
def _drop_parsed_trees():
    """Free the cached trees (about 280,000 nodes) when this module's tests are done."""
    yield
    _tree.cache_clear()
    _import_graph.cache_clear()
    _string_constants.cache_clear()
    _docstring_lines.cache_clear()


def _module_name(path: Path, root: Path = SRC) -> str:
    rel = path.relative_to(root.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules(root: Path = SRC) -> dict[str, Path]:
    """``{module name: path}`` of every module below ``root`` (the package, or a planted copy
    of part of it in a test's tmp folder)."""
    return {_module_name(p, root): p for p in sorted(root.rglob("*.py"))}


def _resolve(current: str, is_pkg: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = current.split(".")
    if not is_pkg:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_graph(root: Path = SRC) -> dict[str, set[str]]:
    """``{module: {primafacie modules it imports}}`` for every module below ``root``."""
    # a fresh copy of the one graph of this run: a caller cannot change another's
    return {mod: set(targets) for mod, targets in _import_graph(root).items()}


@functools.cache
def _import_graph(root: Path) -> dict[str, set[str]]:
    mods = _modules(root)
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        tree = _parse(path)
        is_pkg = path.name == "__init__.py"
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(name, is_pkg, node)
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.append(sub if sub in mods else base)
            for t in targets:
                if t in mods and t != name:
                    graph[name].add(t)
    return graph


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_import_graph_has_no_circle():
    cycle = _find_cycle(import_graph())
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def test_cycle_finder_finds_a_planted_circle():
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b"}, "b": set()}) is None


#: The one loader of lazy public names (``{name: submodule}`` dicts of the package
#: ``__init__``s); :func:`test_lazy_names_are_plain_imports_for_readers` checks that each of
#: those names is also spelled as a plain import.
LAZY_LOADER = SRC / "_lazy.py"

#: The standard library's ``importlib`` facilities that import no code: package data
#: (templates), installed versions, whether an optional extra is installed.
IMPORTLIB_ALLOWED = {"importlib.resources", "importlib.metadata", "importlib.util"}

#: Modules allowed to import by name, each with why: never the project's own code.
IMPORT_BY_NAME = {
    "primafacie.modelfiles": "imports the scikit-learn or numpy module a skops file names (only "
    "under sklearn. or numpy., never a test module) to check that a trusted name is a class",
}


@pytest.mark.parametrize("path", sorted(SRC.rglob("*.py")), ids=lambda p: _module_name(p))
def test_no_importlib_dispatch_to_own_modules(path):
    if path == LAZY_LOADER:
        return
    tree = _parse(path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            fn = node.func
            called = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
            if called in ("import_module", "__import__"):
                arg = ast.unparse(node.args[0]) if node.args else ""
                assert "primafacie" not in arg and not arg.startswith(("'.", '".', "f'.")), (
                    f"{path.name}:{node.lineno} imports a project module dynamically: {arg}"
                )
                assert not arg.startswith("f"), (
                    f"{path.name}:{node.lineno} builds a module name at run time: {arg}"
                )


#: Modules allowed to call ``__import__`` or ``importlib.import_module``, each with why.
DYNAMIC_IMPORTS_ALLOWED = {
    **IMPORT_BY_NAME,
    "primafacie._lazy": "the one loader of the lazy public names: a plain import statement's "
    "hook for a name spelled in a _LAZY table (and in a TYPE_CHECKING import)",
    "primafacie._renamed": "the deprecation shims of renamed modules (one release): the new "
    "module is named in its table, as a plain import statement would",
}


def _importlib_offenders(path: Path, root: Path = SRC) -> list[str]:
    """Where the module at ``path`` imports code through ``importlib`` (only the facilities of
    IMPORTLIB_ALLOWED, except in IMPORT_BY_NAME) or calls ``__import__``/``import_module``
    (only in DYNAMIC_IMPORTS_ALLOWED)."""
    name = _module_name(path, root)
    out = []
    for node in ast.walk(_parse(path)):
        if isinstance(node, ast.Call):
            fn = node.func
            called = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
            if called in ("import_module", "__import__") and name not in DYNAMIC_IMPORTS_ALLOWED:
                out.append(f"{path.name}:{node.lineno} calls {called}")
            continue
        if isinstance(node, ast.Import):
            used = {a.name for a in node.names if a.name.startswith("importlib")}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("importlib"):
            used = {f"{node.module}.{a.name}" if node.module == "importlib" else node.module
                    for a in node.names}  # fmt: skip
        else:
            continue
        if not used <= IMPORTLIB_ALLOWED and name not in IMPORT_BY_NAME:
            out.append(f"{path.name}:{node.lineno} imports {sorted(used)}")
    return out


@pytest.mark.parametrize("path", sorted(SRC.rglob("*.py")), ids=lambda p: _module_name(p))
def test_no_importlib_anywhere(path):
    """No module imports code through ``importlib`` (experiments/ dispatches through plain
    imports); only the facilities of IMPORTLIB_ALLOWED are used, except in IMPORT_BY_NAME, and
    only the modules of DYNAMIC_IMPORTS_ALLOWED call ``__import__``/``import_module``."""
    assert _importlib_offenders(path) == []


def test_planted_importlib_uses_are_found(tmp_path):
    root = tmp_path / "primafacie"
    (root / "experiments").mkdir(parents=True)
    bad = root / "experiments" / "__init__.py"
    bad.write_text(
        "import importlib\n"
        "from importlib import import_module\n"
        "from importlib import resources\n"
        "def run(name):\n"
        "    importlib.import_module(f'.{name}', __name__)\n"
        "    return __import__(name)\n",
        encoding="utf-8",
    )
    assert _importlib_offenders(bad, root) == [
        "__init__.py:1 imports ['importlib']",
        "__init__.py:2 imports ['importlib.import_module']",
        "__init__.py:5 calls import_module",
        "__init__.py:6 calls __import__",
    ]
    good = root / "_lazy.py"  # an allowed loader, and importlib's data facilities
    good.write_text("from importlib import metadata\nx = __import__('a')\n", encoding="utf-8")
    assert _importlib_offenders(good, root) == []


def test_lazy_names_are_plain_imports_for_readers():
    """Every name a package ``__init__`` loads lazily (its ``_LAZY`` dict) is also imported,
    from the same sub-module, in its ``TYPE_CHECKING`` block, so the import graph above and
    type checkers see it, and resolves at run time."""
    import importlib

    for path in sorted(SRC.rglob("__init__.py")):
        tree = _parse(path)
        lazy = next((n.value for n in tree.body if isinstance(n, (ast.Assign, ast.AnnAssign))
                     and ast.unparse(n.targets[0] if isinstance(n, ast.Assign) else n.target)
                     == "_LAZY"), None)  # fmt: skip
        if lazy is None:
            continue
        table = ast.literal_eval(lazy)
        spelled = {(node.module, a.name) for node in ast.walk(tree)
                   if isinstance(node, ast.ImportFrom) and node.level == 1
                   for a in node.names}  # fmt: skip
        module = importlib.import_module(_module_name(path))
        for name, sub in table.items():
            assert (sub, name) in spelled, f"{path}: {name} from .{sub} is not spelled"
            assert getattr(module, name) is not None


#: Modules that issue 20 deleted: option defaults come from the declarations
#: (primafacie.params), not from literals kept equal by a test.
GONE_MODULES = ("commands/_defaults.py",)


def _present(root: Path = SRC) -> list[str]:
    """The GONE_MODULES that exist below ``root``."""
    return [m for m in GONE_MODULES if (root / m).exists()]


def test_commands_defaults_module_is_gone(tmp_path):
    assert _present() == []
    (tmp_path / "commands").mkdir()
    (tmp_path / "commands" / "_defaults.py").write_text("ALPHA = 0.05\n", encoding="utf-8")
    assert _present(tmp_path) == ["commands/_defaults.py"]


#: Analysis names that are also ordinary words of the orchestration, with the modules where
#: the bare word is a key unrelated to the analysis: "groups" is the data summary's table of
#: group counts (results.json ``data.groups``, the report's "Who was audited" table), which
#: predates the group-metrics analysis. Prose (four words or more) may use such a word anywhere.
ORDINARY_WORDS: dict[str, set[str]] = {
    "groups": {"primafacie.audit.inputs", "primafacie.report.schema", "primafacie.report.sections"},
}


def _ordinary(analysis: str, module: str, text: str) -> bool:
    """Whether ``text`` uses the analysis name as an ordinary word (see ORDINARY_WORDS)."""
    if analysis not in ORDINARY_WORDS:
        return False
    return len(text.split()) >= 4 or (text == analysis and module in ORDINARY_WORDS[analysis])


def test_ordinary_words_are_narrow():
    assert _ordinary("groups", "primafacie.report.sections", "groups")
    assert _ordinary("groups", "primafacie.report.sections", " members of protected groups (")
    assert not _ordinary("groups", "primafacie.audit.run", "groups")
    assert not _ordinary("groups", "primafacie.report.sections", "analyses.groups")
    assert not _ordinary("situation", "primafacie.report.sections", "situation")


@pytest.mark.parametrize("analysis", [a.name for a in ANALYSES])
def test_orchestration_spells_no_analysis_name(analysis):
    """The audit, the report and the configuration know analyses only through the registry."""
    generic = ["primafacie.audit", "primafacie.report", "primafacie.config",
               "primafacie.analysis", "primafacie.configbase"]  # fmt: skip
    offenders = []
    for name, path in _modules().items():
        # report.plots is a library of figure helpers named for what they draw
        if name in ("primafacie.audit.registry", "primafacie.report.plots"):
            continue
        if not name.startswith(tuple(generic)):
            continue
        for node in _string_constants(path):
            words = node.value.replace(".", " ").replace("_", " ").split()
            if _ordinary(analysis, name, node.value):
                continue
            if analysis in words and not (node.lineno == 1 or isinstance(node, ast.Expr)):
                offenders.append(f"{name}:{node.lineno}: {node.value[:60]!r}")
    docstrings = _docstring_lines()
    offenders = [o for o in offenders if o.split(": ")[0] not in docstrings]
    assert not offenders, f"{analysis!r} spelled outside the registry:\n" + "\n".join(offenders)


@functools.cache
def _string_constants(path: Path) -> list[ast.Constant]:
    """Every string constant of the module at ``path``, in ``ast.walk`` order (one walk of
    its tree for the check of every analysis name)."""
    return [
        node
        for node in ast.walk(_parse(path))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]


@functools.cache
def _docstring_lines() -> frozenset[str]:
    """``module:line`` of every docstring and comment-like constant (allowed to name things)."""
    out = set()
    for name, path in _modules().items():
        tree = _parse(path)
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
                value = body[0].value
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    out.add(f"{name}:{value.lineno}")
    return frozenset(out)


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


#: Every package holding an analysis (engine, Result, spec, section), from the registry: the
#: package of each analysis' ``run`` hook.
ENGINE_PACKAGES = tuple(dict.fromkeys(_package(a.run.__module__) for a in ANALYSES))

#: The module of each engine package that builds its report section (always allowed to use
#: ``report/``'s blocks, plots and formatting): where its registry ``section`` hook is defined.
SECTION_MODULES = frozenset(a.section.__module__ for a in ANALYSES)


def test_engine_packages_come_from_the_registry():
    assert set(ENGINE_PACKAGES) == {"situation", "recourse", "principal", "certainty",
                                    "groups", "alternatives", "ll144"}  # fmt: skip
    assert all((SRC / p / "engine.py").exists() for p in ENGINE_PACKAGES)
    assert SECTION_MODULES == {f"primafacie.{p}.analysis" for p in ENGINE_PACKAGES}


#: ``module: reason`` for the other modules of an engine package that import ``report/``.
#: An entry that no longer imports ``report/`` (or is gone) fails
#: :func:`test_report_import_allow_list_is_not_stale`.
REPORT_IMPORTS_ALLOWED: dict[str, str] = {
    "primafacie.situation.dossier": "builds the situation section's dossier pages: computes "
    "each twin and hands it to report.dossier.dossier_pages",
    "primafacie.ll144.page": "the LL144 section's own printable page (report.html's template "
    "environment)",
    "primafacie.recourse.stability": "its sentences show bins readably with "
    "report.html.readable_bins",
    "primafacie.groups.trend": "the trend Result's plot() draws with report.plots",
    "primafacie.certainty.trend": "the trend Result's plot() draws with report.plots",
    "primafacie.groups.results": "plot() draws with report.plots (group_rates, tight_layout)",
    "primafacie.groups.score_results": "the score sweep's plot() lays out with report.plots",
    "primafacie.groups.score_section": "builds the score part of the groups section "
    "(report.blocks), called from groups/analysis.py",
}


def _report_importers(graph: dict[str, set[str]] | None = None) -> dict[str, list[str]]:
    """``{engine-package module: [report modules it imports]}`` (section modules left out)."""
    out = {}
    for mod, targets in (import_graph() if graph is None else graph).items():
        if _package(mod) not in ENGINE_PACKAGES or mod in SECTION_MODULES:
            continue
        found = sorted(t for t in targets if _package(t) == "report")
        if found:
            out[mod] = found
    return out


def _report_offenders(graph: dict[str, set[str]]) -> list[str]:
    """``"report module -> engine or causal module"`` for every such import of ``graph``."""
    return [
        f"{mod} -> {t}"
        for mod, targets in sorted(graph.items())
        if _package(mod) == "report"
        for t in sorted(targets)
        if _package(t) in (*ENGINE_PACKAGES, "causal")
    ]


def test_report_imports_no_engine_package_and_no_causal():
    """report/ renders Results: it never imports an engine's internals or the causal model."""
    offenders = _report_offenders(import_graph())
    assert not offenders, "report/ imports an analysis or causal/:\n" + "\n".join(offenders)


def test_engine_packages_import_report_only_from_their_section():
    new = {m: t for m, t in _report_importers().items() if m not in REPORT_IMPORTS_ALLOWED}
    assert not new, (
        "engine modules importing report/ outside their section module (analysis.py):\n"
        + "\n".join(f"{m} -> {', '.join(t)}" for m, t in sorted(new.items()))
    )


def test_report_import_allow_list_is_not_stale():
    stale = sorted(set(REPORT_IMPORTS_ALLOWED) - set(_report_importers()))
    assert not stale, f"allowed report importers that no longer import report/: {stale}"


def test_planted_engine_imports_of_report_are_found(tmp_path):
    root = tmp_path / "primafacie"
    for rel, text in {
        "report/__init__.py": "",
        "report/blocks.py": "",
        "ll144/__init__.py": "",
        "ll144/analysis.py": "from ..report import blocks\n",
        "ll144/engine.py": "def run():\n    from ..report.blocks import x\n",
        "ll144/page.py": "from ..report import blocks\n",
        "formats.py": "from .report import blocks\n",
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    found = _report_importers(import_graph(root))
    # the section module and modules outside the engine packages are not counted
    assert found == {"primafacie.ll144.engine": ["primafacie.report.blocks"],
                     "primafacie.ll144.page": ["primafacie.report.blocks"]}  # fmt: skip
    new = {m for m in found if m not in REPORT_IMPORTS_ALLOWED}
    assert new == {"primafacie.ll144.engine"}


def test_planted_report_imports_are_found():
    graph = {
        "primafacie.report.dossier": {"primafacie.causal.explain", "primafacie.formats"},
        "primafacie.report.html": {"primafacie.situation.labels"},
        "primafacie.groups.engine": {"primafacie.report.html"},
    }
    assert _report_offenders(graph) == [
        "primafacie.report.dossier -> primafacie.causal.explain",
        "primafacie.report.html -> primafacie.situation.labels",
    ]


def _engine_and_result_classes() -> tuple[list[type], list[type]]:
    """The public engine classes (with a ``run``) and Result classes of every engine package."""
    import inspect

    from primafacie.alternatives import AlternativeSearch, AlternativesResult
    from primafacie.certainty import CertaintyRanking, CertaintyResult
    from primafacie.groups import GroupMetrics, GroupMetricsResult
    from primafacie.ll144 import LL144Result, LL144Tables
    from primafacie.principal import PrincipalFairness, PrincipalResult, RepairResult
    from primafacie.recourse import CSCResult, FactsResult, RankingResult, RecourseFairness
    from primafacie.recourse.stability import RankStabilityResult
    from primafacie.situation import SituationResult, SituationTest

    engines = [GroupMetrics, PrincipalFairness, CertaintyRanking, RecourseFairness,
               AlternativeSearch, LL144Tables, SituationTest]  # fmt: skip
    results = [AlternativesResult, CertaintyResult, GroupMetricsResult, LL144Result,
               PrincipalResult, RepairResult, CSCResult, FactsResult, RankingResult,
               RankStabilityResult, SituationResult]  # fmt: skip
    assert all(inspect.isclass(c) for c in engines + results)
    return engines, results


def test_engines_and_results_derive_from_the_bases():
    from primafacie.base import BaseResult, Engine

    engines, results = _engine_and_result_classes()
    assert [e.__name__ for e in engines if not issubclass(e, Engine)] == []
    assert [r.__name__ for r in results if not issubclass(r, BaseResult)] == []


def _engine_classes(modules: dict[str, Path]) -> dict[str, list[str]]:
    """``{module: [classes deriving from Engine]}`` in the engine packages, read with ``ast``
    (a class whose bases spell ``Engine``, as ``Engine`` or ``base.Engine``)."""
    out: dict[str, list[str]] = {}
    for name, path in modules.items():
        if _package(name) not in ENGINE_PACKAGES:
            continue
        for node in _parse(path).body:
            if isinstance(node, ast.ClassDef) and any(
                getattr(b, "id", getattr(b, "attr", None)) == "Engine" for b in node.bases
            ):
                out.setdefault(name, []).append(node.name)
    return out


def _vocabulary_offenders(found: dict[str, list[str]]) -> list[str]:
    """Engine classes outside an ``engine`` module, or named ``...Audit``; engine packages
    without one."""
    out = [f"{m}.{c}: not in engine.py" for m, cs in sorted(found.items()) for c in cs
           if m.split(".")[-1] != "engine"]  # fmt: skip
    out += [f"{m}.{c}: named ...Audit" for m, cs in sorted(found.items()) for c in cs
            if c.endswith("Audit")]  # fmt: skip
    homes = {_package(m) for m in found}
    out += [f"primafacie.{p}: no engine class" for p in ENGINE_PACKAGES if p not in homes]
    return out


def test_every_engine_lives_in_engine_py_and_none_is_named_audit():
    assert _vocabulary_offenders(_engine_classes(_modules())) == []
    engines, _ = _engine_and_result_classes()
    assert [e.__module__ for e in engines if not e.__module__.endswith(".engine")] == []
    assert [e.__name__ for e in engines if e.__name__.endswith("Audit")] == []


def test_planted_vocabulary_offenders_are_found(tmp_path):
    # names that tools/rename_vocabulary.py does not rename, so a re-run leaves this test as is
    path = tmp_path / "bias.py"
    path.write_text(
        "from ..base import Engine\nclass BiasAudit(Engine):\n    pass\nclass Helper:\n    pass\n",
        encoding="utf-8",
    )
    found = _engine_classes({"primafacie.recourse.bias": path})
    assert found == {"primafacie.recourse.bias": ["BiasAudit"]}
    offenders = _vocabulary_offenders(found)
    assert offenders[:2] == [
        "primafacie.recourse.bias.BiasAudit: not in engine.py",
        "primafacie.recourse.bias.BiasAudit: named ...Audit",
    ]
    assert "primafacie.groups: no engine class" in offenders
    assert "primafacie.recourse: no engine class" not in offenders


#: ``"module -> package": reason`` for the imports of one engine package by another.
CROSS_IMPORTS_ALLOWED: dict[str, str] = {
    "primafacie.alternatives.engine -> primafacie.certainty": "the candidates are ranked by "
    "the certainty ranking's score_counts (DESIGN.md: alternatives feeds its candidates to it)",
    "primafacie.certainty.params -> primafacie.groups.params": "the data roles both engines "
    "take as arguments (favorable, outcome_favorable, weights) are declared once, in groups",
}


def _cross_imports(graph: dict[str, set[str]]) -> list[str]:
    """``"module -> module"`` for every import of one engine package by another."""
    return sorted(
        f"{mod} -> {t}"
        for mod, targets in graph.items()
        if _package(mod) in ENGINE_PACKAGES
        for t in targets
        if _package(t) in ENGINE_PACKAGES and _package(t) != _package(mod)
    )


def test_analyses_never_import_each_other():
    """An engine package shares data, decisions, neighbors, causal, compute, validation and
    intervals with the others, never another engine's modules (DESIGN.md)."""
    found = _cross_imports(import_graph())
    offenders = [o for o in found if o not in CROSS_IMPORTS_ALLOWED]
    assert not offenders, "analyses import each other:\n" + "\n".join(offenders)
    stale = sorted(set(CROSS_IMPORTS_ALLOWED) - set(found))
    assert not stale, f"allowed cross imports that are gone: {stale}"


def test_planted_cross_import_is_found():
    graph = {"primafacie.ll144.engine": {"primafacie.groups.engine", "primafacie.formats"},
             "primafacie.groups.engine": {"primafacie.groups.results"}}  # fmt: skip
    assert _cross_imports(graph) == ["primafacie.ll144.engine -> primafacie.groups.engine"]


# ---------------------------------------------------------------------- function length
#: The longest a function or method may be, in code lines (non-blank, not a comment, its
#: docstring left out): longer ones do several jobs and are split into helpers.
MAX_FUNCTION_LINES = 80

#: ``"module:qualname": reason`` for functions allowed to be longer (one line of reason each).
#: Empty: every function of the package fits. A new entry needs a reason a reviewer accepts.
LONG_FUNCTIONS_ALLOWED: dict[str, str] = {}


def _code_lines(source: str) -> set[int]:
    """Line numbers holding code: a token other than a comment, a newline or indentation."""
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
            tokenize.DEDENT, tokenize.ENDMARKER}  # fmt: skip
    lines: set[int] = set()
    text = source.splitlines()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in skip:
            # a string over several lines counts each of its lines that is not blank
            lines.update(r for r in range(tok.start[0], tok.end[0] + 1) if text[r - 1].strip())
    return lines


def function_lengths(source: str) -> dict[str, int]:
    """``{qualname: code lines}`` of every function and method in ``source`` (nested ones
    count in their parent too); the function's own docstring is left out."""
    code = _code_lines(source)
    out: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    span = set(range(child.lineno, child.end_lineno + 1))
                    doc = child.body[0]
                    if ast.get_docstring(child, clean=False) is not None:
                        span -= set(range(doc.lineno, doc.end_lineno + 1))
                    out[name] = len(span & code)
                visit(child, f"{name}.")
            else:
                visit(child, prefix)

    visit(_tree(source), "")
    return out


def test_function_lengths_by_hand():
    source = (
        "def f(x):\n"
        '    """Doc\n'
        '    on two lines."""\n'
        "    # a comment\n"
        "\n"
        "    y = (x +\n"
        "         1)  # trailing comment\n"
        "    s = '''a\n"
        "\n"
        "    b'''\n"
        "\n"
        "    def g():\n"
        "        return 1\n"
        "    return y\n"
        "class C:\n"
        "    def m(self):\n"
        "        pass\n"
    )
    # f: def, y = (2 lines), the string (2 non-blank lines), def g, return 1, return y = 8
    assert function_lengths(source) == {"f": 8, "f.g": 2, "C.m": 2}


def test_no_function_is_longer_than_the_limit():
    too_long = {}
    for name, path in _modules().items():
        for qualname, n in function_lengths(path.read_text(encoding="utf-8")).items():
            if n > MAX_FUNCTION_LINES:
                too_long[f"{name}:{qualname}"] = n
    new = {k: n for k, n in too_long.items() if k not in LONG_FUNCTIONS_ALLOWED}
    assert not new, (
        f"functions over {MAX_FUNCTION_LINES} code lines (split them into helpers):\n"
        + "\n".join(f"{k}: {n}" for k, n in sorted(new.items()))
    )
    stale = set(LONG_FUNCTIONS_ALLOWED) - set(too_long)
    assert not stale, f"allowed long functions that are now short or gone: {sorted(stale)}"


# ---------------------------------------------------------------------- class size
#: The longest a class may be, in lines from its ``class`` line to its last line (docstrings
#: included): a longer class does several jobs and is split at its seams (issue 20 item 5).
MAX_CLASS_LINES = 400

#: ``"module:qualname": reason`` for classes allowed to be longer (one line of reason each). An
#: entry whose class is now within the limit (or gone) fails the test, so the list stays true.
#: Empty: every class of the package fits.
LARGE_CLASSES_ALLOWED: dict[str, str] = {}


def class_lengths(source: str) -> dict[str, int]:
    """``{qualname: lines}`` of every class in ``source``, nested ones included (a nested
    class counts in its parent too)."""
    out: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if isinstance(child, ast.ClassDef):
                    first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                    out[name] = child.end_lineno - first + 1
                visit(child, f"{name}.")
            else:
                visit(child, prefix)

    visit(_tree(source), "")
    return out


def test_class_lengths_by_hand():
    source = (
        "@dataclass\n"
        "class A:\n"
        '    """Doc."""\n'
        "\n"
        "    class B:\n"
        "        x = 1\n"
        "\n"
        "    def f(self):\n"
        "        class C:\n"
        "            pass\n"
        "        return C\n"
        "def g():\n"
        "    pass\n"
    )
    # A: decorator to ``return C`` (11 lines); B: 2 lines; C: 2 lines, qualified by f
    assert class_lengths(source) == {"A": 11, "A.B": 2, "A.f.C": 2}


def _large_classes(root: Path = SRC) -> dict[str, int]:
    out = {}
    for name, path in _modules(root).items():
        for qualname, n in class_lengths(path.read_text(encoding="utf-8")).items():
            if n > MAX_CLASS_LINES:
                out[f"{name}:{qualname}"] = n
    return out


def test_no_class_is_longer_than_the_limit():
    large = _large_classes()
    new = {k: n for k, n in large.items() if k not in LARGE_CLASSES_ALLOWED}
    assert not new, (
        f"classes over {MAX_CLASS_LINES} lines (split them at their seams):\n"
        + "\n".join(f"{k}: {n}" for k, n in sorted(new.items()))
    )


def test_large_class_allow_list_is_not_stale():
    stale = sorted(set(LARGE_CLASSES_ALLOWED) - set(_large_classes()))
    assert not stale, f"allowed large classes that are now within the limit or gone: {stale}"


def test_planted_large_class_is_found(tmp_path):
    root = tmp_path / "primafacie"
    (root / "recourse").mkdir(parents=True)
    body = "".join(f"    def m{i}(self):\n        return {i}\n" for i in range(200))
    (root / "recourse" / "engine.py").write_text(
        f"class Small:\n    pass\n\n\nclass Giant:\n{body}", encoding="utf-8"
    )
    assert _large_classes(root) == {"primafacie.recourse.engine:Giant": 401}
