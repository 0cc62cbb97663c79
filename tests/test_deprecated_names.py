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


# ---------------------------------------------------------------- SituationTest(method=) -> methods=
def _two_attributes():
    import pandas as pd

    from primafacie.data import AuditData

    df = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 1.1, 2.1, 3.1, 4.1] * 2,
                       "a": [1, 1, 1, 1, 0, 0, 0, 0] * 2, "b": [1, 0] * 8,
                       "y": [0, 0, 1, 1, 1, 1, 1, 1] * 2})  # fmt: skip
    return AuditData(df, features={"x": "numeric"}, protected={"a": 1, "b": 1}, decision="y")


def test_situation_method_is_a_deprecated_name_of_methods():
    from primafacie.situation import SituationTest

    data = _two_attributes()
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # the new name warns nothing
        new = SituationTest(methods=["st"], k=2, attribute="a")
        expected = new.run(data).to_frame()
    assert "methods" in new.get_params() and repr(new).startswith("SituationTest(methods=['st']")
    with pytest.warns(DeprecationWarning, match=r"SituationTest\(method=\.\.\.\) is deprecated "
                      r"and will be removed in the next release; use methods=\.\.\.") as caught:  # fmt: skip
        old = SituationTest(method=["st"], k=2, attribute="a")
    assert caught[0].filename == __file__  # points at the line that built the engine
    assert old.get_params()["method"] == ["st"] and "method=['st']" in repr(old)
    assert old.run(data).to_frame().equals(expected)


def test_situation_method_and_methods_together_are_refused_naming_both():
    from primafacie.errors import InputError
    from primafacie.situation import SituationTest

    data = _two_attributes()
    with pytest.warns(DeprecationWarning):
        both = SituationTest(methods=["cst"], method="st", k=2, attribute="a")
    message = (
        "SituationTest: give methods only (got methods=['cst'] and the deprecated method='st')"
    )
    for call in (both.run, both.check):
        with pytest.raises(InputError) as err:
            call(data)
        assert str(err.value) == message
    # a bad value under the old name is named as given, with where the new one is set
    with pytest.warns(DeprecationWarning):
        bad = SituationTest(method="foo", k=2, attribute="a")
    with pytest.raises(InputError, match=r"SituationTest: method must be None or one of 'st'.*"
                       r"got 'foo' \(deprecated: --method, analyses\.situation\.methods\)"):  # fmt: skip
        bad.run(data)


@pytest.mark.parametrize("name", ["MultipleSituationTest", "IntersectionalSituationTest"])
def test_multidimensional_tests_read_method_as_methods(name):
    import primafacie.situation as situation

    engine = getattr(situation, name)
    data = _two_attributes()
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        expected = engine(methods="st", k=2).run(data).to_frame()
    with pytest.warns(DeprecationWarning, match=rf"{name}\(method=\.\.\.\) is deprecated") as w:
        old = engine(method="st", k=2)
    assert w[0].filename == __file__ and old.settings == {"methods": "st", "k": 2}
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # the SituationTests it runs: no more
        assert old.run(data).to_frame().equals(expected)


def test_run_with_state_is_a_deprecated_verb_of_run_keep_state():
    from primafacie.errors import InputError
    from primafacie.situation import SituationTest
    from primafacie.situation.engine import RunState

    data = _two_attributes()
    cf = data.frame.assign(x=data.frame.x + 3.0 * data.frame.a)
    engine = SituationTest(methods=["st", "cst"], k=2, attribute="a")
    with pytest.raises(InputError, match=r"run\(data, \.\.\., keep_state=True\) first"):
        engine.rerun_counterfactual(counterfactuals=cf)
    assert not hasattr(engine, "state_")  # a run without keep_state keeps nothing
    engine.run(data, counterfactuals=cf)
    assert not hasattr(engine, "state_")
    res = engine.run(data, counterfactuals=cf, keep_state=True)
    assert isinstance(engine.state_, RunState)
    assert engine.rerun_counterfactual(counterfactuals=cf).table.equals(res.table)
    with pytest.warns(DeprecationWarning, match=r"SituationTest\.run_with_state is deprecated "
                      r"and will be removed in the next release; use SituationTest\.run\(\.\.\., "
                      r"keep_state=True\)") as caught:  # fmt: skip
        old, state = engine.run_with_state(data, counterfactuals=cf)
    assert caught[0].filename == __file__
    assert old.table.equals(res.table) and state is engine.state_
    assert engine.rerun_counterfactual(state, counterfactuals=cf).table.equals(res.table)


def test_ll144_run_frame_is_a_deprecated_name_of_data():
    import pandas as pd

    from primafacie.errors import InputError
    from primafacie.ll144 import LL144Tables

    df = pd.DataFrame({"sex": ["f", "f", "m", "m"], "sel": [1, 0, 1, 1]})
    engine = LL144Tables({"sex": "sex"}, exclude_below=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        new = engine.run(data=df, selected=df["sel"].to_numpy())
    with pytest.warns(DeprecationWarning, match=r"LL144Tables\.run\(frame=\.\.\.\) is "
                      r"deprecated and will be removed in the next release; use data=") as w:  # fmt: skip
        old = engine.run(frame=df, selected=df["sel"].to_numpy())
    assert w[0].filename == __file__
    pd.testing.assert_frame_equal(old.to_frame(), new.to_frame())
    with (
        pytest.warns(DeprecationWarning),
        pytest.raises(
            InputError,
            match=r"LL144Tables\.run: give data only \(got both data and the deprecated frame\)",
        ),
    ):
        engine.run(df, df["sel"].to_numpy(), frame=df)
