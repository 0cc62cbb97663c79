"""Tests of primafacie.validation: each constraint, the message format, invalid values."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import pytest

from primafacie.errors import InputError
from primafacie.validation import (
    InstanceOf,
    Interval,
    ListOf,
    Options,
    Predicate,
    check_binary,
    check_value,
    describe,
    invalid_value,
    is_satisfied,
    validate_params,
)


@pytest.mark.parametrize(
    "constraint, value, ok",
    [
        (Interval(Real, 0, 1, closed="neither"), 0.5, True),
        (Interval(Real, 0, 1, closed="neither"), 0.0, False),
        (Interval(Real, 0, 1, closed="neither"), 1.0, False),
        (Interval(Real, 0, 1, closed="left"), 0.0, True),
        (Interval(Real, 0, 1, closed="right"), 1.0, True),
        (Interval(Real, 0, 1), float("nan"), False),
        (Interval(Real, 0, 1), True, False),  # a boolean is not a number here
        (Interval(Real, 0, 1), "0.5", False),
        (Interval(Real, 0, 1), np.float32(0.25), True),
        (Interval(Integral, 1, None), 3, True),
        (Interval(Integral, 1, None), np.int64(3), True),
        (Interval(Integral, 1, None), 3.0, False),
        (Interval(Integral, 1, None), 0, False),
        (Options("wald", "newcombe"), "wald", True),
        (Options("wald", "newcombe"), "Wald", False),
        (Options(1, 2), True, False),
        (Options(1, 2), [1], False),
        (InstanceOf(bool, name="a boolean"), False, True),
        (InstanceOf(bool, name="a boolean"), np.bool_(True), True),
        (InstanceOf(bool, name="a boolean"), 0, False),
        (InstanceOf(int), True, False),
        (ListOf(Interval(Integral, 1, None), scalar=True), 30, True),
        (ListOf(Interval(Integral, 1, None), scalar=True), [15, 30], True),
        (ListOf(Interval(Integral, 1, None), scalar=True), [], False),
        (ListOf(Interval(Integral, 1, None), scalar=True), [15, 0], False),
        (ListOf(Interval(Integral, 1, None)), 30, False),
        (Predicate(lambda v: v % 2 == 0, "an even number", 3), 4, True),
        (Predicate(lambda v: v % 2 == 0, "an even number", 3), "x", False),
    ],
)
def test_constraint_satisfied(constraint, value, ok):
    assert constraint.satisfied(value) is ok


def test_descriptions_are_words():
    assert Interval(Real, 0, 1, closed="neither").describe() == "a number in (0, 1)"
    assert Interval(Real, -1, 1).describe() == "a number in [-1, 1]"
    assert Interval(Integral, 1, None).describe() == "an integer ≥ 1"
    assert Interval(Real, 0, None, closed="neither").describe() == "a number > 0"
    assert Interval(Real, None, 5, closed="neither").describe() == "a number < 5"
    assert describe([None, Interval(Real, 0, None, closed="neither")]) == "None or a number > 0"
    assert describe([Options("a"), Options("b"), None]) == "one of 'a', one of 'b' or None"


def test_none_in_list_accepts_none_only_there():
    assert is_satisfied([None, Interval(Real, 0, 1)], None)
    assert not is_satisfied([Interval(Real, 0, 1)], None)


def test_one_message_format_with_where():
    cons = {
        "alpha": [Interval(Real, 0, 1, closed="neither")],
        "direction": [Options("negative", "positive")],
    }
    with pytest.raises(InputError) as exc:
        validate_params(
            "SituationTest",
            cons,
            {"alpha": 1.5, "direction": "up"},
            where={"alpha": "--alpha, analyses.situation.alpha"},
        )
    assert str(exc.value).splitlines() == [
        "SituationTest: alpha must be a number in (0, 1); got 1.5 "
        "(--alpha, analyses.situation.alpha)",
        "SituationTest: direction must be one of 'negative', 'positive'; got 'up'",
    ]


def test_valid_params_pass_and_unknown_params_are_ignored():
    validate_params("X", {"a": [Interval(Real, 0, 1)]}, {"a": 0.5, "b": object()})


def test_check_value_raises_value_error_with_same_text():
    with pytest.raises(ValueError, match=r"^tau must be a number in \[-1, 1\]; got 2$"):
        check_value("tau", 2, [Interval(Real, -1, 1)])


@pytest.mark.parametrize(
    "constraints",
    [
        [Interval(Real, 0, 1, closed="neither")],
        [Interval(Integral, 1, None)],
        [Interval(Real, None, 0)],
        [None, Interval(Real, 0, None, closed="neither")],
        [Options("a", "b")],
        [InstanceOf(bool, name="a boolean")],
        [InstanceOf(str)],
        [ListOf(Options("st", "cst"), scalar=True)],
        [Predicate(lambda v: v == 1, "one", 2)],
    ],
)
def test_invalid_value_violates(constraints):
    assert not is_satisfied(constraints, invalid_value(constraints))


def test_check_binary():
    assert check_binary(np.array([1, 0, 1]), "y").tolist() == [0, 1]
    assert check_binary(np.array(["yes", "no"], dtype=object), "y").tolist() == ["yes", "no"]
    with pytest.raises(InputError, match="column 'y' must be binary"):
        check_binary(np.array([0, 1, 2]), "column 'y'")
    with pytest.raises(InputError, match="missing values"):
        check_binary(np.array([0.0, np.nan]), "column 'y'")
    with pytest.raises(InputError, match="missing values"):
        check_binary(np.array(["a", None], dtype=object), "column 'y'")


# ---------------------------------------------------------------------- every declared constraint
def _declared() -> list[tuple[str, str, list]]:
    """(owner, parameter, constraints) for every engine that declares constraints."""
    from primafacie.causal import SCM
    from primafacie.certainty import CertaintyRanking
    from primafacie.principal import PrincipalFairness
    from primafacie.recourse import RecourseFairness
    from primafacie.recourse.params import RUN_CONSTRAINTS
    from primafacie.situation import (
        IntersectionalSituationTest,
        MultipleSituationTest,
        SituationTest,
    )

    owners = {
        cls.__name__: cls._parameter_constraints
        for cls in (
            SituationTest,
            MultipleSituationTest,
            IntersectionalSituationTest,
            RecourseFairness,
            PrincipalFairness,
            CertaintyRanking,
            SCM,
        )
    }
    owners["RecourseFairness.run"] = RUN_CONSTRAINTS
    return [(o, p, c) for o, cons in owners.items() for p, c in cons.items()]


_DECLARED = _declared()


def test_every_engine_declares_constraints():
    owners = {o for o, _, _ in _DECLARED}
    assert len(owners) == 8 and len(_DECLARED) > 40


@pytest.mark.parametrize(
    "owner, param, constraints", _DECLARED, ids=[f"{o}.{p}" for o, p, _ in _DECLARED]
)
def test_every_declared_constraint_rejects_an_invalid_value_in_one_format(
    owner, param, constraints
):
    """The common test: each declared constraint is fed a value it must refuse, and the
    message names the owner and the parameter, says what is accepted and what was given."""
    bad = invalid_value(constraints)
    with pytest.raises(InputError) as exc:
        validate_params(owner, {param: constraints}, {param: bad})
    message = str(exc.value)
    assert message.startswith(f"{owner}: {param} must be {describe(constraints)}; got ")
