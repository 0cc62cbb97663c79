"""The engine and Result bases (src/primafacie/base.py): parameters, repr, validation, the one
input coercion, the cached summary and the abstract Result methods."""

from __future__ import annotations

import warnings
from numbers import Integral

import numpy as np
import pandas as pd
import pytest

from primafacie.base import BaseResult, Engine, as_audit_data, deprecated_verb
from primafacie.data import AuditData
from primafacie.errors import InputError
from primafacie.validation import Interval


class _Toy(Engine):
    _parameter_constraints = {"k": [Interval(Integral, 1, None)]}
    _where = {"k": "--k, analyses.toy.k"}

    def __init__(self, k=3, weights=None, *, protected=None, decision=None):
        self.k = k
        self.weights = weights
        self.protected = protected
        self.decision = decision


def _frame():
    return pd.DataFrame({"g": ["f", "m", "f", "m"], "d": [0, 1, 1, 1], "x": [1.0, 2, 3, 4]})


def test_get_params_are_the_constructor_arguments_verbatim():
    w = np.array([1.0, 2.0])
    toy = _Toy(k=5, weights=w)
    params = toy.get_params()
    assert list(params) == ["k", "weights", "protected", "decision"]
    assert params["k"] == 5 and params["weights"] is w


class _Stored(Engine):
    def __init__(self, k=3, weights=None, *, protected=None, decision=None):
        self._store_params(locals())


def test_store_params_keeps_every_argument_of_the_signature_verbatim():
    w = np.array([1.0, 2.0])
    stored = _Stored(7, w, decision="d")
    assert stored.get_params() == {"k": 7, "weights": w, "protected": None, "decision": "d"}
    assert stored.weights is w  # stored as given, not copied
    assert not hasattr(stored, "self")  # only the arguments, not the rest of locals()
    assert repr(stored) == repr(_Toy(7, w, decision="d")).replace("_Toy", "_Stored")


class _Wrapped(_Stored):
    def __init__(self, extra=1, k=3):
        super().__init__(k=k)
        self._store_params(locals())


def test_store_params_in_a_subclass_stores_the_arguments_of_each_init():
    # the names are those of the __init__ that calls it, not of type(self).__init__
    wrapped = _Wrapped(extra=2, k=5)
    assert (wrapped.extra, wrapped.k, wrapped.decision) == (2, 5, None)
    assert wrapped.get_params() == {"extra": 2, "k": 5}
    # super()'s __class__ cell (here _Wrapped) is not stored: a further subclass keeps its type
    deeper = type("_Deeper", (_Wrapped,), {})()
    assert type(deeper).__name__ == "_Deeper"


def test_repr_shows_only_what_differs_from_the_defaults():
    assert repr(_Toy()) == "_Toy()"
    assert repr(_Toy(k=5, decision="d")) == "_Toy(k=5, decision='d')"
    # an array never equals a default: shown, and no elementwise == error
    assert repr(_Toy(weights=np.array([1]))) == "_Toy(weights=array([1]))"
    assert repr(_Toy(k=3.0)) == "_Toy(k=3.0)"  # same value, other type: not the default


def test_validation_names_the_owner_the_value_and_where_to_fix_it():
    _Toy(k=2)._validate_params()
    with pytest.raises(InputError, match=r"^_Toy: k must be an integer ≥ 1; got 0 "
                                         r"\(--k, analyses.toy.k\)$"):  # fmt: skip
        _Toy(k=0)._validate_params()
    with pytest.raises(InputError, match="got -1"):  # explicit values, e.g. edited copies
        _Toy()._validate_params({"k": -1})


def test_an_audit_data_passes_through_or_takes_the_constructor_roles():
    data = AuditData(_frame(), features={"x": "numeric"}, protected={"g": "f"}, decision="d")
    assert _Toy()._as_audit_data(data) is data
    swapped = _Toy(protected={"g": "m"})._as_audit_data(data)
    assert swapped.protected_mask("g").tolist() == [False, True, False, True]
    assert list(swapped.features) == ["x"]  # the AuditData keeps its own features
    # a bare name picks an attribute (the engine's business), it declares no protected value
    assert _Toy(protected="g")._as_audit_data(data) is data


@pytest.mark.parametrize("kind", ["pandas", "mapping", "pyarrow", "polars"])
def test_every_kind_of_table_becomes_the_same_audit_data(kind):
    frame = _frame()
    if kind == "pyarrow":
        table = pytest.importorskip("pyarrow").Table.from_pandas(frame)
    elif kind == "polars":
        table = pytest.importorskip("polars").from_pandas(frame)
    elif kind == "mapping":
        table = {c: frame[c].tolist() for c in frame.columns}
    else:
        table = frame
    data = _Toy(protected={"g": "f"}, decision="d")._as_audit_data(table, require=("protected",))
    assert isinstance(data, AuditData)
    assert data.protected_mask("g").tolist() == [True, False, True, False]
    assert data.decision_array().tolist() == [0, 1, 1, 1]
    assert data.features == {}  # a table's features are given, never guessed, by default


def test_a_table_without_a_required_role_names_what_to_give():
    with pytest.raises(InputError, match=r"with a table, give the roles: _Toy\(protected="
                                         r"\{column: protected value\(s\)\}, decision=COLUMN\), "
                                         r"or pass an AuditData"):  # fmt: skip
        _Toy()._as_audit_data(_frame(), require=("protected", "decision"))
    with pytest.raises(InputError, match=r"with a table, give decision=COLUMN to _Toy "
                                         r"\(or pass an AuditData\)"):  # fmt: skip
        _Toy(protected={"g": "f"})._as_audit_data(_frame(), require=("protected", "decision"))
    with pytest.raises(InputError, match="pandas/polars/pyarrow table"):
        as_audit_data([1, 2, 3])


def test_features_none_infers_them_as_audit_data_does():
    data = as_audit_data(_frame(), features=None, protected={"g": "f"}, decision="d")
    assert list(data.features) == ["x"] and data.features["x"].kind == "numeric"


class _Res(BaseResult):
    builds = 0

    def _summary(self):
        type(self).builds += 1
        return pd.DataFrame({"k": [3], "n": [10]})

    def to_frame(self):
        return self.summary()

    def to_dict(self):
        return {"k": 3}

    def headline(self):
        return "3 of 10"

    def scope(self):
        return "10 people"

    def caveats(self):
        return []


def test_summary_is_built_once_and_returned_as_a_copy():
    _Res.builds = 0
    res = _Res()
    first = res.summary()
    first.loc[0, "k"] = 99
    assert res.summary().loc[0, "k"] == 3 and _Res.builds == 1


def test_a_result_must_say_its_headline_scope_and_caveats():
    class NoScope(BaseResult):
        def to_frame(self):
            return pd.DataFrame()

        def to_dict(self):
            return {}

        def headline(self):
            return ""

        def caveats(self):
            return []

    with pytest.raises(TypeError, match="scope"):
        NoScope()


def test_repr_html_renders_the_result_offline():
    html = _Res()._repr_html_()
    assert "3 of 10" in html and "10 people" in html and "<script" not in html


def test_deprecated_verb_names_the_old_and_the_new_verb():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        deprecated_verb("X", "evaluate", "score")
    assert caught[0].category is DeprecationWarning
    assert str(caught[0].message) == (
        "X.evaluate is deprecated and will be removed in the next release; use X.score"
    )


def test_to_frame_is_a_copy_of_the_table_and_numbers_and_extra_tables_default_to_none():
    class Tabled(_Res):
        table = pd.DataFrame({"group": ["f", "m"], "k": [1, 3]})
        to_frame = BaseResult.to_frame

    res = Tabled()
    frame = res.to_frame()
    frame.loc[0, "k"] = 99  # a copy: the Result's table keeps 1
    assert Tabled.table.loc[0, "k"] == 1 and frame.equals(res.to_frame()) is False
    assert res.numbers() == {} and res.extra_tables() == {}

    class Untabled(_Res):
        to_frame = BaseResult.to_frame

    with pytest.raises(NotImplementedError, match="Untabled has no table"):
        Untabled().to_frame()


def test_to_dict_is_derived_from_the_declared_keys():
    class Inner:  # a nested record (a scope, another Result) writes its own dict
        def to_dict(self):
            return {"groups": ("f", "m")}

    class Declared(_Res):
        dict_keys = ("analysis", "rows=table", "inner", "note?", "kept=note", "n=count", "opt?")
        to_dict = BaseResult.to_dict
        analysis = "toy"
        table = pd.DataFrame({"k": [1.0, np.nan], "ratio": [np.inf, 0.5]})
        inner = Inner()
        note = None
        opt = 0  # not None: kept although optional

        def count(self):
            return np.int64(2)

    assert Declared().to_dict() == {
        "analysis": "toy",
        "rows": [{"k": 1.0, "ratio": "inf"}, {"k": None, "ratio": 0.5}],
        "inner": {"groups": ["f", "m"]},
        "kept": None,
        "n": 2,
        "opt": 0,
    }
    # the order of the declaration is the order of the keys (results.json stays byte-identical)
    assert list(Declared().to_dict()) == ["analysis", "rows", "inner", "kept", "n", "opt"]


def test_figure_axes_uses_the_given_axes_or_makes_a_figure_and_laid_out_returns_it():
    from primafacie.base import figure_axes, laid_out

    fig, (left, right) = figure_axes(figsize=(4, 2), ncols=2)
    assert tuple(fig.get_size_inches()) == (4.0, 2.0)
    again, ax = figure_axes(right)
    assert again is fig and ax is right
    right.set_title("$x_1$ from the data")  # laid out as plain text, never mathtext
    assert laid_out(fig) is fig
