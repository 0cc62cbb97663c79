"""Legal notes per jurisdiction: only the chosen jurisdiction's, with their citations."""

from __future__ import annotations

import pytest

from primafacie.config import AuditConfig
from primafacie.legal import JURISDICTIONS, legal_note
from primafacie.report.sections import _appendix_notes


@pytest.mark.parametrize(
    ("jurisdiction", "cites", "never"),
    [
        ("eu", ["Directive 2000/43/EC"], ["Title VII", "1607.4", "Local Law 144"]),
        ("us-employment", ["Title VII", "29 CFR 1607.4(D)", "four-fifths"], ["Directive"]),
        ("nyc-ll144", ["Local Law 144", "6 RCNY"], ["Directive", "Title VII"]),
        ("none", [], ["Directive", "Title VII", "Local Law 144"]),
    ],
)
def test_each_jurisdiction_cites_its_own_law_only(jurisdiction, cites, never):
    text = " ".join(legal_note(jurisdiction))
    for c in cites:
        assert c in text
    for n in never:
        assert n not in text
    assert text.endswith(legal_note("none")[-1])  # the not-a-verdict note always closes
    notes = _appendix_notes(jurisdiction)
    assert notes[0]["paragraphs"] == legal_note(jurisdiction)


def test_config_key_and_its_values():
    base = {"data": "x.csv", "decision": {"column": "d"}, "features": {}, "protected": {"a": 1}}
    assert AuditConfig.model_validate(base).jurisdiction == "eu"
    assert (
        AuditConfig.model_validate({**base, "jurisdiction": "nyc-ll144"}).jurisdiction
        == "nyc-ll144"
    )
    with pytest.raises(ValueError, match="jurisdiction"):
        AuditConfig.model_validate({**base, "jurisdiction": "uk"})
    assert set(JURISDICTIONS) == {"eu", "us-employment", "nyc-ll144", "none"}
    with pytest.raises(ValueError, match="one of eu"):
        legal_note("uk")
