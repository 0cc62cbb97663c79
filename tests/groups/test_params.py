"""groups/params.py: the data roles an engine takes as arguments are declared once, here."""

from __future__ import annotations

import pandas as pd
import pytest

from primafacie.certainty.params import PARAMS as CERTAINTY_PARAMS
from primafacie.certainty.params import WHERE as CERTAINTY_WHERE
from primafacie.errors import InputError
from primafacie.groups import GroupMetrics
from primafacie.groups.params import FAVORABLE, OUTCOME_FAVORABLE, PARAMS, WEIGHTS, WHERE
from primafacie.params import by_name

ROLES = (FAVORABLE, OUTCOME_FAVORABLE, WEIGHTS)


@pytest.mark.parametrize("params", [PARAMS, CERTAINTY_PARAMS], ids=["groups", "certainty"])
def test_both_analyses_hold_the_one_declaration(params):
    declared = by_name(params)
    assert [declared[p.name] is p for p in ROLES] == [True, True, True]


def test_the_where_text_is_the_same_for_both_analyses():
    assert [WHERE[p.name] for p in ROLES] == [CERTAINTY_WHERE[p.name] for p in ROLES] == [
        "--favorable, favorable", "--outcome-favorable, outcome_favorable",
        "--weights, weights",
    ]  # fmt: skip


@pytest.mark.parametrize(
    "given, message",
    [
        ({"weights": 3}, "weights must be None or a column name; got 3 (--weights, weights)"),
        ({"favorable": {}}, "favorable must be None or a value or a list of values; got {} "
                            "(--favorable, favorable)"),
        ({"outcome_favorable": {}}, "outcome_favorable must be None or a value or a list of "
                                    "values; got {} (--outcome-favorable, outcome_favorable)"),
    ],
)  # fmt: skip
def test_group_metrics_checks_the_roles_against_the_declaration(given, message):
    # before, GroupMetrics did not check them: a bad value failed later, without its flag or key
    df = pd.DataFrame({"sex": ["f", "f", "m", "m"], "d": [1, 0, 1, 1]})
    engine = GroupMetrics(min_group=1, protected={"sex": "f"}, decision="d", **given)
    with pytest.raises(InputError) as err:
        engine.run(df)
    assert str(err.value) == f"GroupMetrics: {message}"
