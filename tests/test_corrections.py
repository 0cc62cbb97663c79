"""corrections.py: the one declaration of the multiple-testing corrections and their words."""

from __future__ import annotations

from primafacie import corrections
from primafacie.report import provenance
from primafacie.situation import analysis, multiplicity, params


def test_every_wording_is_the_one_each_place_printed_before():
    """The three maps that report/ and situation/ spelled by hand, derived (sentences, nav,
    cards and the provenance block stay byte-identical)."""
    assert corrections.MULTIPLICITY == ("none", "bonferroni", "holm", "bh", "by")
    assert corrections.MULTIPLICITY_NAMES == {
        "none": "no adjustment", "bonferroni": "Bonferroni", "holm": "Holm",
        "bh": "Benjamini–Hochberg", "by": "Benjamini–Yekutieli",
    }  # fmt: skip
    assert corrections.MULTIPLICITY_SHORT == {
        "bonferroni": "Bonferroni", "holm": "Holm", "bh": "BH", "by": "BY",
    }  # fmt: skip
    assert corrections.CORRECTION_NAMES == {
        "none": "none", "bonferroni": "Bonferroni", "holm": "Holm",
        "bh": "Benjamini–Hochberg (bh)", "by": "Benjamini–Yekutieli (by)",
    }  # fmt: skip


def test_report_and_situation_read_the_one_declaration():
    assert provenance.CORRECTION_NAMES is corrections.CORRECTION_NAMES
    assert multiplicity.MULTIPLICITY_NAMES is corrections.MULTIPLICITY_NAMES
    assert analysis.MULTIPLICITY_SHORT is corrections.MULTIPLICITY_SHORT
    assert params.MULTIPLICITY is multiplicity.MULTIPLICITY is corrections.MULTIPLICITY
