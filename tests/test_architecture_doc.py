"""docs/architecture.md names only files, modules, functions and classes that exist.

Every inline code span of the page (fenced blocks left out: the worked example's
``base_rates`` package is hypothetical) is read as a reference when it looks like one:

* a path (``situation/engine.py``, ``commands/_data.py``, ``tests/cli/``) must exist under
  ``src/primafacie`` or the project;
* ``path.py::name`` and ``path/module.name`` must define ``name`` in that module, and
  ``path/module.Class.attribute`` must resolve once the module is imported;
* a dotted name whose first part is a module of the package (``data.read_table``,
  ``report.dossier.dossier_pages``) must import and resolve;
* ``Class.attribute`` must be a method or attribute of that class (imported from the module
  that defines it), not merely a name defined somewhere in the package;
* a class-like name (``AuditConfig``) must be defined in the package, and any other
  identifier (``as_audit_data``, ``dict_keys``) must occur in its source.

A renamed or deleted name then fails here instead of leaving the page wrong.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import re
from pathlib import Path

import pytest

from primafacie.paths import PROJECT_ROOT

DOC = PROJECT_ROOT / "docs" / "architecture.md"
SRC = PROJECT_ROOT / "src" / "primafacie"

#: Names the page cites that are not the package's: the worked example's hypothetical
#: analysis, and names of Python, scikit-learn and typer.
NOT_OURS = {"BaseRates", "BaseRatesResult", "BaseRatesSpec", "DeprecationWarning",
            "BaseEstimator", "Literal", "SIGTERM", "Ctrl", "NAME", "DIR"}  # fmt: skip
#: Path prefixes of the worked example's hypothetical package and command.
HYPOTHETICAL = ("base_rates/", "commands/base_rates.py")
#: Short names the page uses for modules, as the code imports them.
ALIASES = {"rb": "report.blocks"}
#: Endings of files that are outputs or data, not code.
OUTPUT_SUFFIXES = (".yaml", ".json", ".csv", ".html", ".md", ".png")


def spans(text: str) -> list[str]:
    """The inline code spans of a Markdown text, fenced blocks left out."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.findall(r"`([^`\n]+)`", text)


@functools.cache
def _source() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(SRC.rglob("*.py")))


def _defines(module_path: Path, name: str) -> bool:
    text = module_path.read_text(encoding="utf-8")
    pattern = rf"^\s*(def|class)\s+{name}\b|^\s*{name}\b\s*[:=(,]|\b{name}\s*=|import .*\b{name}\b"
    return re.search(pattern, text, flags=re.M) is not None


def _module_file(dotted: str) -> Path | None:
    """The file of ``dotted`` (``commands/_analysis`` or ``report.dossier``) in the package."""
    base = SRC / dotted.replace(".", "/")
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


def _resolve(module: str, names: list[str]) -> str | None:
    """Why ``primafacie.<module>`` has no attribute chain ``names`` (``["Cls", "method"]``)."""
    obj: object = importlib.import_module("primafacie." + module)
    for i, name in enumerate(names):
        if not hasattr(obj, name):
            return f"{module} has no {'.'.join(names[: i + 1])}"
        obj = getattr(obj, name)
    return None


def _class_attribute(cls: str, name: str) -> str | None:
    """Why ``cls.name`` is not a class of the package with that method or attribute: the
    class is imported from the module that defines it and the attribute looked up on it (a
    mixin's counts), or, for an attribute set on instances, among its fields and
    ``self.<name> =`` lines."""
    pattern = rf"^\s*class\s+{cls}\b|^{cls}\s*[:=]"
    file = next((p for p in sorted(SRC.rglob("*.py"))
                 if re.search(pattern, p.read_text(encoding="utf-8"), flags=re.M)), None)  # fmt: skip
    if file is None:
        return f"no class {cls}"
    module = ".".join(file.relative_to(SRC).with_suffix("").parts).removesuffix(".__init__")
    obj = getattr(importlib.import_module(f"primafacie.{module}"), cls)
    if hasattr(obj, name) or any(name in getattr(k, "__annotations__", {}) for k in obj.__mro__):
        return None
    try:
        source = inspect.getsource(obj)
    except (OSError, TypeError):  # a class made by a function (spec_model): its module's text
        source = file.read_text(encoding="utf-8")
    if re.search(rf"self\.{name}\s*[:=]", source):
        return None
    return f"{cls} ({module}) has no method or attribute {name}"


def check(span: str) -> str | None:
    """Why ``span`` names something that does not exist, or None (also when it is no
    reference: an audit.yaml key, an output file, a sentence)."""
    token = re.match(r"[\w/.:*-]+", span.strip())
    if token is None or token.group(0).endswith(":"):  # an audit.yaml key: ``data.reader: auto``
        return None
    ref = token.group(0).rstrip(".")
    if not ref or ref.startswith(HYPOTHETICAL) or "<" in span.split("(")[0]:
        return None
    if ref.endswith(OUTPUT_SUFFIXES) or "*" in ref or (":" in ref and "::" not in ref):
        return None
    if "::" in ref:
        path, name = ref.split("::", 1)
        file = next((r / path for r in (SRC, PROJECT_ROOT) if (r / path).is_file()), None)
        if file is None:
            return f"{path} does not exist"
        return None if _defines(file, name.split(".")[0]) else f"{path} defines no {name}"
    if "/" in ref:
        if any((root / ref).exists() for root in (SRC, SRC.parent, PROJECT_ROOT)):
            return None
        head, _, name = ref.rpartition(".")
        file = _module_file(head) if name != "py" else None
        module, _, attrs = ref.partition(".")  # path/module.Class.attribute
        if file is None and "." in attrs and _module_file(module) is not None:
            return _resolve(module.replace("/", "."), attrs.split("."))
        if file is None:
            return f"no file {ref}"
        return None if _defines(file, name) else f"{head} defines no {name}"
    if ref.endswith(".py"):
        found = list(SRC.rglob(ref)) or list(PROJECT_ROOT.glob(ref))
        return None if found else f"no file {ref}"
    if "." in ref:
        first = ref.split(".")[0]
        if first in ALIASES:
            ref = ref.replace(first, ALIASES[first], 1)
            first = ref.split(".")[0]
        if first[:1].isupper() and first not in NOT_OURS:
            return _class_attribute(first, ref.split(".")[1])
        if not first or _module_file(first) is None:
            return None  # an attribute of a variable (run.results, spec.build): not a module
        parts = ref.split(".")
        # the longest prefix that is a module, then attributes
        for cut in range(len(parts), 0, -1):
            if _module_file(".".join(parts[:cut])) is not None:
                break
        obj = importlib.import_module("primafacie." + ".".join(parts[:cut]))
        for name in parts[cut:]:
            if not hasattr(obj, name):
                return f"{'.'.join(parts[:cut])} has no {'.'.join(parts[cut:])}"
            obj = getattr(obj, name)
        return None
    if ref in NOT_OURS or not re.fullmatch(r"[A-Za-z_]\w*", ref):
        return None
    if ref[0].isupper() and any(c.islower() for c in ref):
        found = re.search(rf"^\s*class\s+{ref}\b|^{ref}\s*[:=]", _source(), flags=re.M)
        return None if found else f"no class {ref}"
    if "_" in ref or span.strip().startswith(f"{ref}("):
        return None if re.search(rf"\b{ref}\b", _source()) else f"no name {ref}"
    return None


def test_the_page_exists_and_cites_code():
    assert len(spans(DOC.read_text(encoding="utf-8"))) > 100


def test_every_name_the_page_cites_exists():
    wrong = sorted({f"`{s}`: {why}" for s in spans(DOC.read_text(encoding="utf-8"))
                    if (why := check(s))})  # fmt: skip
    assert not wrong, "docs/architecture.md cites what is not in the code:\n" + "\n".join(wrong)


@pytest.mark.parametrize(
    "span",
    ["situation/enginex.py", "commands/_analysis.AnalysisCommandX", "data.read_tablex",
     "AuditData.comparedx()", "AnalysisX.define", "rb.columnsx(frame)",
     "AuditConfigX", "as_audit_datax", "commands/reproduce.py::run_plainx", "tests/nowhere/",
     "tests/test_architecture.py::NOT_A_LIST",
     "commands/_analysis.AnalysisCommand.run_enginex", "commands/_analysis.Nothing.run_engine",
     # a method of that name elsewhere in the package does not make it this class'
     "AnalysisCommand.run_plain", "AnalysisCommand.fit", "RecourseSpec.with_flags"],
)  # fmt: skip
def test_a_wrong_name_is_found(span):
    assert check(span) is not None


@pytest.mark.parametrize(
    "span",
    ["situation/engine.py", "commands/_analysis.AnalysisCommand", "data.read_table",
     "AuditData.compared()", "Analysis.define", "rb.columns(frame)",
     "AuditConfig", "as_audit_data", "commands/reproduce.py::run_plain", "tests/cli/",
     "tests/test_architecture.py::CROSS_IMPORTS_ALLOWED",
     "audit.yaml", "analyses.<name>", "run.results", "spec.build(data, ctx)",
     "commands/_analysis.AnalysisCommand.run_engine", "AnalysisCommand.with_flags",
     "AnalysisCommand.data_roles", "AuditData.frame", "AnalysisRun.results"],
)  # fmt: skip
def test_a_right_name_or_no_reference_passes(span):
    assert check(span) is None
