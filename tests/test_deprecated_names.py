"""Names renamed in 0.2 keep working for one release, each with a DeprecationWarning naming the
new name: old engine classes through their package's lazy ``__getattr__``, old engine modules
through the shim left at their path (``primafacie._renamed``)."""

# rename_vocabulary: skip-file (this file spells the old names on purpose)

from __future__ import annotations

import importlib
import importlib.util
import sys
import warnings
from pathlib import Path

import pytest

from primafacie._renamed import MOVED_MODULES, RENAMED_NAMES

from .test_rename_vocabulary import rv

ROOT = Path(__file__).resolve().parent.parent
OLD_NAMES = [(pkg, old, new) for pkg, names in RENAMED_NAMES.items() for old, new in names.items()]


def _script():
    # the script as its own test module loads it (one loader for both files)
    return rv


def _fresh(name: str):
    """Import ``name`` anew (its module-level warning fires again)."""
    sys.modules.pop(name, None)
    parent, _, last = name.rpartition(".")
    if parent in sys.modules:
        sys.modules[parent].__dict__.pop(last, None)
    return importlib.import_module(name)


@pytest.mark.parametrize(("package", "old", "new"), OLD_NAMES)
def test_old_class_name_resolves_with_a_warning_naming_the_new_one(package, old, new):
    module = importlib.import_module(package)
    with pytest.warns(DeprecationWarning, match=rf"{package}\.{old} is deprecated: it is now "
                      rf"{package}\.{new} \(renamed in 0\.2") as caught:  # fmt: skip
        value = getattr(module, old)
    assert value is getattr(module, new)
    # the warning points at the code that used the old name, not at the lazy loader
    assert caught[0].filename == __file__
    assert old not in module.__all__ and new in module.__all__
    with pytest.warns(DeprecationWarning):  # not cached under the old name: warns every time
        getattr(module, old)


def test_old_class_name_through_from_import():
    with pytest.warns(DeprecationWarning, match="RecourseFairness"):
        from primafacie.recourse import RecourseAudit
    from primafacie.recourse import RecourseFairness

    assert RecourseAudit is RecourseFairness
    with pytest.warns(DeprecationWarning, match="CertaintyRanking"):
        from primafacie import CertaintyAudit
    assert CertaintyAudit.__name__ == "CertaintyRanking"


def test_unknown_names_are_still_attribute_errors():
    import primafacie.ll144 as ll144
    import primafacie.recourse as recourse

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and they do not warn
        for module in (recourse, ll144):
            with pytest.raises(AttributeError, match="NoSuchAudit"):
                module.NoSuchAudit  # noqa: B018


@pytest.mark.parametrize(("old", "new"), sorted(MOVED_MODULES.items()))
def test_old_module_warns_on_import_and_re_exports_the_engine(old, new):
    engine = importlib.import_module(new)
    with pytest.warns(DeprecationWarning, match=rf"module {old} is deprecated: import from "
                      rf"{new} \(renamed in 0\.2"):  # fmt: skip
        shim = _fresh(old)
    assert sorted(shim.__all__) == sorted(engine.__all__)
    for name in engine.__all__:
        assert getattr(shim, name) is getattr(engine, name)
    private = next(n for n in vars(engine) if n.startswith("_") and not n.startswith("__"))
    assert getattr(shim, private) is getattr(engine, private)  # old tests' private imports
    with pytest.raises(AttributeError, match=f"module '{old}' has no attribute 'nothing_here'"):
        shim.nothing_here  # noqa: B018


def test_old_module_gives_the_old_class_name_too():
    with pytest.warns(DeprecationWarning):
        shim = _fresh("primafacie.recourse.audit")
    from primafacie.recourse.engine import STAGES, RecourseFairness

    with pytest.warns(DeprecationWarning, match="RecourseFairness"):
        assert shim.RecourseAudit is RecourseFairness
    assert shim.STAGES is STAGES
    with pytest.warns(DeprecationWarning, match="CertaintyRanking"):
        from primafacie.certainty.audit import CertaintyAudit
    assert CertaintyAudit.__name__ == "CertaintyRanking"


def test_every_old_module_path_holds_the_hand_written_shim():
    shim = (ROOT / _script().SHIM).read_bytes()
    for old in MOVED_MODULES:
        path = ROOT / "src" / Path(*old.split(".")).with_suffix(".py")
        assert path.read_bytes() == shim, f"{path} is not the shim {_script().SHIM}"


def test_the_script_and_the_deprecation_tables_agree():
    """What tools/rename_vocabulary.py renames is exactly what keeps working under the old
    name (a rename without its deprecation, or the reverse, fails here)."""
    script = _script()
    assert script.MODULES == MOVED_MODULES
    deprecated = {old: new for names in RENAMED_NAMES.values() for old, new in names.items()}
    assert deprecated == script.CLASSES
    # every old class is reachable from the package that defines it
    for old in script.CLASSES:
        assert any(old in names for pkg, names in RENAMED_NAMES.items() if pkg != "primafacie")
