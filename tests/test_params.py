"""primafacie.params: one declaration per parameter, and everything derived from it.

The end-to-end test declares a new parameter on a copy of an analysis' declarations and
finds it, with its default and help, in the engine's validation message, the audit.yaml
model and JSON Schema, the command's options and the docs table.
"""

from __future__ import annotations

from numbers import Integral, Real
from types import SimpleNamespace
from typing import Any, Literal, Optional

import pytest
import typer
from typer.testing import CliRunner

import primafacie.audit.registry as registry
from primafacie.commands._analysis import AnalysisCommand, role, switch
from primafacie.configbase import Strict, spec_model
from primafacie.errors import InputError
from primafacie.groups.params import PARAMS as GROUPS_PARAMS
from primafacie.params import (
    Param,
    Switch,
    annotation,
    by_name,
    constraints,
    markdown_table,
    where,
    with_param,
)
from primafacie.validation import (
    COLUMN,
    InstanceOf,
    Interval,
    ListOf,
    Options,
    validate_params,
)

NEW = Param(
    "n_widgets",
    [Interval(Integral, 1, 1000)],
    7,
    "Widgets per group (at most 1,000: a hand-checked bound).",
    flag="--n-widgets",
)


def test_where_names_the_flag_the_key_and_an_outside_source():
    params = (
        Param("alpha", [Interval(Real, 0, 1)], 0.05, "A.", flag="--alpha"),
        Param("max_step", [None], None, "M.", flag="--max-step", key=""),
        Param("backend", [None], None, "B.", key="", source="compute"),
        Param("chunk", [None], None, "C.", key=""),
    )
    assert where(params, "recourse") == {
        "alpha": "--alpha, analyses.recourse.alpha",
        "max_step": "--max-step",
        "backend": "compute",
    }
    assert constraints(params)["alpha"] == [Interval(Real, 0, 1)]


def test_annotation_is_derived_from_the_constraints():
    assert annotation(Param("a", [Interval(Integral, 1, None)], 1, "")) is int
    assert annotation(Param("a", [None, Interval(Real, 0, None)], None, "")) == Optional[float]
    assert annotation(Param("a", [Options("x", "y")], "x", "")) == Literal["x", "y"]
    assert annotation(Param("a", [ListOf(Interval(Integral, 1, None))], [1], "")) == list[int]
    assert annotation(Param("a", [InstanceOf(bool)], False, "")) is bool
    assert annotation(Param("a", [Options("all"), ListOf(Interval(Real, 0, 1))], "all", "")) \
        == Literal["all"] | list[float]  # fmt: skip
    assert annotation(Param("a", [InstanceOf(dict, list)], {}, "")) is not None


def test_with_param_adds_or_replaces_by_name():
    params = with_param(GROUPS_PARAMS, NEW)
    assert list(by_name(params))[-1] == "n_widgets" and len(params) == len(GROUPS_PARAMS) + 1
    again = with_param(params, Param("n_widgets", [], 1, "Other."))
    assert len(again) == len(params) and by_name(again)["n_widgets"].default == 1


def test_a_new_declared_parameter_appears_everywhere_it_is_derived(monkeypatch):
    params = with_param(GROUPS_PARAMS, NEW)
    # the engine's validation: constraint and "where to fix it"
    with pytest.raises(InputError) as err:
        validate_params("GroupMetrics", constraints(params), {"n_widgets": 10**6},
                        where(params, "groups"))  # fmt: skip
    assert str(err.value) == (
        "GroupMetrics: n_widgets must be an integer in [1, 1000]; got 1000000 "
        "(--n-widgets, analyses.groups.n_widgets)"
    )
    # the audit.yaml model and its JSON Schema
    from primafacie.groups.spec import _GroupsBase

    model = spec_model("GroupsSpec", _GroupsBase, params, "groups")
    assert model().n_widgets == 7 and model(n_widgets=3).n_widgets == 3
    prop = model.model_json_schema()["properties"]["n_widgets"]
    assert prop["default"] == 7 and prop["type"] == "integer"
    assert prop["description"] == NEW.help
    with pytest.raises(ValueError, match=r"got 0 \(--n-widgets, analyses.groups.n_widgets\)"):
        model(n_widgets=0)
    # the command's options, built by the generic analysis command from the declarations
    seen = {}
    declared = params

    class Widgets(AnalysisCommand):
        name, help, params, roles = "groups", "Widgets.", declared, (role("data"),)

        def from_flags(self, spec, v, reading):
            seen.update(spec=spec, v=v)
            raise typer.Exit(0)

    monkeypatch.setattr(registry, "get", lambda name: SimpleNamespace(spec=model))
    app = typer.Typer()
    Widgets().register(app)
    runner = CliRunner()
    help_text = runner.invoke(app, ["--help"], terminal_width=200).output
    assert "--n-widgets" in help_text and "Widgets per group" in help_text
    assert "[default: 7]" in help_text
    assert runner.invoke(app, ["--data", "x.csv", "--n-widgets", "12"]).exit_code == 0
    assert seen["v"]["n_widgets"] == 12 and seen["v"]["min_group"] == 30
    assert seen["spec"].n_widgets == 12 and seen["spec"].min_group == 30
    bad = runner.invoke(app, ["--data", "x.csv", "--n-widgets", "0"])
    assert bad.exit_code == 2
    assert "(--n-widgets, analyses.groups.n_widgets)" in " ".join(bad.output.split())
    # with --config the flag is refused, by its name
    res = runner.invoke(app, ["--config", "audit.yaml", "--n-widgets", "3"])
    assert res.exit_code == 2 and "drop --n-widgets" in " ".join(res.output.split())
    # the docs table
    table = markdown_table(params, "groups")
    row = next(line for line in table.splitlines() if "n_widgets" in line)
    assert row == (
        "| `analyses.groups.n_widgets` | `--n-widgets` | `7` | an integer in [1, 1000] | "
        "Widgets per group (at most 1,000: a hand-checked bound). |"
    )


def test_declarations_of_groups_match_the_engine_and_the_model():
    from primafacie.groups.engine import GroupMetrics
    from primafacie.groups.spec import GroupsSpec

    assert GroupMetrics._parameter_constraints == constraints(GROUPS_PARAMS)
    spec = GroupsSpec()
    for p in GROUPS_PARAMS:
        if p.config_key:
            assert getattr(spec, p.config_key) == p.default
            assert GroupsSpec.key_descriptions[p.config_key] == p.help


def test_the_model_of_a_spec_is_strict():
    model = spec_model("Demo", Strict, (NEW,), "demo")
    with pytest.raises(ValueError, match="Extra inputs"):
        model(nope=1)


def test_annotation_leaves_out_what_audit_yaml_cannot_write_and_reads_predicate_values():
    from primafacie.validation import Predicate

    anyone = Predicate(callable, "a callable", bad=1)
    named = Predicate(lambda v: v in ("a", "b", "x"), "a or b (alias x)", values=("a", "b"))
    assert annotation(Param("u", [Options("t", "n"), anyone], "t", "U.")) == Literal["t", "n"]
    assert annotation(Param("c", [named], "a", "C.")) == Literal["a", "b"]
    assert (
        annotation(Param("m", [ListOf(named, scalar=True)], ["a"], "M.")) == list[Literal["a", "b"]]
    )
    assert annotation(Param("f", [anyone], None, "F.")) is Any  # nothing audit.yaml can write


def test_a_lone_item_of_a_list_key_is_a_list_when_its_constraint_accepts_it():
    from primafacie.groups.spec import GroupsSpec
    from primafacie.principal.spec import PrincipalSpec
    from primafacie.recourse.spec import RecourseSpec
    from primafacie.situation.spec import SituationSpec

    assert SituationSpec(k=30).k == [30]
    assert SituationSpec(methods="cst_wo").methods == ["cst"]  # alias read after wrapping
    assert RecourseSpec(immutable="age").immutable == ["age"]  # was refused by the list type
    assert RecourseSpec(metrics="all").metrics == "all"  # the other type takes it as is
    assert RecourseSpec(metrics="EE").metrics == ["EE"]
    assert PrincipalSpec(definitions=2).definitions == [2]
    assert GroupsSpec(thresholds=5).thresholds == [5.0]
    # a value the constraint refuses is shown as written, not wrapped
    with pytest.raises(ValueError, match=r"got True \(--thresholds"):
        GroupsSpec(thresholds=True)
    with pytest.raises(ValueError, match=r"got True \(--k"):
        SituationSpec(k=True)
    with pytest.raises(ValueError, match="got 'single'"):
        SituationSpec(dimensions="single")  # a list only: no lone item


def test_a_declared_switch_and_a_role_that_sets_a_parameter(monkeypatch):
    """A parameter whose flag takes no value (a :class:`Switch`) and a repeated role that sets
    a declared parameter: each keeps its place among the roles in ``--help`` and in the
    ``--config`` refusal, and its value reaches the spec with no conversion in the command."""
    from primafacie.groups.spec import _GroupsBase

    skip = Param("on_empty", [Options("error", "skip")], "error", "Empty: error or skip.",
                 flag="--skip", switch=Switch("skip", "Skip empty groups."))  # fmt: skip
    cols = Param("cols", [None, ListOf(COLUMN)], None, "Columns.", flag="--col",
                 type=Optional[list[str]])  # fmt: skip
    declared = with_param(with_param(GROUPS_PARAMS, skip), cols)
    model = spec_model("GroupsSpec", _GroupsBase, declared, "groups")
    seen = {}

    class Toy(AnalysisCommand):
        name, help, params = "groups", "Toy.", declared
        roles = (role("data"), switch(skip),
                 role("cols", "A column (repeat).", Optional[list[str]], None, "--col", cols),
                 role("extra", "Extra.", int, 0))  # fmt: skip

        def from_flags(self, spec, v, reading):
            seen.update(spec=spec, v=v)
            raise typer.Exit(0)

    monkeypatch.setattr(registry, "get", lambda name: SimpleNamespace(spec=model))
    app = typer.Typer()
    Toy().register(app)
    runner = CliRunner()
    text = runner.invoke(app, ["--help"], terminal_width=200).output
    assert "Skip empty groups." in text and "Empty: error or skip." not in text
    assert text.index("--skip") < text.index("--col") < text.index("--extra")
    assert text.index("--extra") < text.index("--config")
    assert runner.invoke(app, ["--data", "x.csv"]).exit_code == 0
    assert seen["spec"].on_empty == seen["v"]["on_empty"] == "error"
    assert seen["spec"].cols is None
    res = runner.invoke(app, ["--data", "x", "--skip", "--col", "a", "--col", "b"])
    assert res.exit_code == 0, res.output
    assert seen["spec"].on_empty == seen["v"]["on_empty"] == "skip"
    assert seen["spec"].cols == seen["v"]["cols"] == ["a", "b"]
    bad = runner.invoke(app, ["--data", "x.csv", "--skip=yes"])
    assert bad.exit_code == 2 and "does not take a value" in bad.output
    res = runner.invoke(app, ["--config", "a.yaml", "--min-group", "3", "--skip", "--col", "a"])
    assert res.exit_code == 2 and "drop --skip, --col, --min-group" in " ".join(res.output.split())


def test_engine_args_are_the_declared_keys_under_their_engine_names():
    from primafacie.situation.spec import SituationSpec

    args = SituationSpec(methods=["st"], k=[5], interval="wilson").engine_kwargs()
    assert args["methods"] == ["st"] and "method" not in args and "dimensions" not in args
    assert args["interval"] == "newcombe" and args["k"] == [5]


def test_a_command_prints_its_section_modules_tables_and_words_after_its_bullet(monkeypatch):
    """The tables a command prints are the ``tables`` of its analysis' section module, of the
    Result :meth:`AnalysisCommand.result` picks (none when the module has no ``tables``); each
    caveat follows the command's ``bullet`` (``None``: the caveats are not printed)."""
    from primafacie.commands.groups import Groups
    from primafacie.commands.ll144 import LL144
    from primafacie.commands.principal import Principal
    from primafacie.principal import analysis as principal_analysis

    class Toy:
        def headline(self):
            return "h"

        def scope(self):
            return "s"

        def caveats(self):
            return ["c1", "c2"]

    toy = Toy()
    monkeypatch.setattr(principal_analysis, "tables", lambda res: [res])
    assert Principal().tables((toy, [])) == [toy]  # the evaluation, not the repairs
    assert LL144().tables(("spec", toy)) == []  # ll144's module has no tables
    assert Principal().words((toy, [])) == ["h", "scope: s", "c1", "c2"]
    assert LL144().words(("spec", toy)) == ["h", "scope: s"]
    assert AnalysisCommand.words(Groups(), toy) == ["h", "scope: s", "  • c1", "  • c2"]
