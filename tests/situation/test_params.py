"""situation/params.py: the declarations of situation testing's parameters."""

from __future__ import annotations

from primafacie.intervals import ALPHA
from primafacie.neighbors import TIE_RULES
from primafacie.params import by_name
from primafacie.situation import params
from primafacie.situation.engine import SituationTest
from primafacie.situation.multiplicity import MULTIPLICITY
from primafacie.situation.spec import SituationSpec
from primafacie.situation.stats import INTERVALS


def test_option_lists_equal_the_engine_modules_own():
    """The declarations spell the options without importing numpy; the modules that compute
    with them define the same tuples."""
    assert params.INTERVALS == INTERVALS
    assert params.MULTIPLICITY == MULTIPLICITY
    assert params.TIE_RULES == TIE_RULES
    assert by_name(params.PARAMS)["alpha"].constraints == ALPHA


def test_engine_constraints_and_spec_defaults_come_from_the_declarations():
    # the deprecated method= (read for one release) is checked as methods is, None allowed
    own = dict(SituationTest._parameter_constraints)
    assert own.pop("method") == [None, *params.PARAMETER_CONSTRAINTS["methods"]]
    assert own == params.PARAMETER_CONSTRAINTS
    assert "dimensions" not in SituationTest._parameter_constraints
    spec = SituationSpec()
    for p in params.PARAMS:
        if p.config_key:
            assert getattr(spec, p.config_key) == p.default, p.name
            assert SituationSpec.key_descriptions[p.config_key] == p.help
