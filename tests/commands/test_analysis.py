"""commands/_analysis.py: the engine arguments the flags set, and the one way a command runs
its engine (``with_flags``, ``run_engine``)."""

from __future__ import annotations

import pytest

from primafacie.base import Engine
from primafacie.commands.certainty import Certainty
from primafacie.commands.groups import Groups
from primafacie.errors import InputError


class Toy(Engine):
    """An engine with one argument a groups flag sets (``score``) and one none sets."""

    def __init__(self, score=None, label="x"):
        self._store_params(locals())

    def run(self, data, fail=None):
        if fail:
            raise InputError(fail)
        return data, self.score


#: What the groups command's options hold (roles and score flags) and its data flags.
V = {"score": "s", "score_favorable": "below", "favorable": 1, "outcome_favorable": 0,
     "budgets": None}  # fmt: skip
READING = {"weights": "w"}


def test_engine_flags_leave_out_what_the_command_gives_its_data():
    assert Groups().engine_flags(V, READING) == {"score": "s", "score_favorable": "below"}
    # certainty gives them to its engine: a plain table has no roles of its own
    assert Certainty().engine_flags(V, READING) == {
        "favorable": 1, "outcome_favorable": 0, "weights": "w",
    }  # fmt: skip


def test_with_flags_sets_only_the_engines_own_arguments():
    engine = Groups().with_flags(Toy(), V, READING)
    assert engine.get_params() == {"score": "s", "label": "x"}  # score_favorable: not Toy's


def test_run_engine_runs_one_engine_or_each_of_a_mapping():
    cmd = Groups()
    assert cmd.run_engine(Toy(), V, READING, "data") == ("data", "s")
    assert cmd.run_engine({"a": Toy(), "b": Toy()}, V, READING, "d") == {
        "a": ("d", "s"), "b": ("d", "s"),
    }  # fmt: skip


@pytest.mark.parametrize(
    "command, message",
    [
        (Certainty(), "--outcome: outcome column 'y' is not in the data"),
        (Groups(), "outcome column 'y' is not in the data"),  # groups declares no --outcome
    ],
)
def test_run_engine_heads_a_role_error_with_the_declared_flag(command, message):
    with pytest.raises(InputError) as err:
        command.run_engine(Toy(), {}, {}, "data", fail="outcome column 'y' is not in the data")
    assert str(err.value) == message
