"""The multiple-testing corrections, declared once: their codes and the words people read.

Situation testing adjusts its p-values with them (:mod:`primafacie.situation.multiplicity`)
and the report names the one in force (:mod:`primafacie.report.provenance`); every wording
below is derived from :data:`CORRECTIONS`. The module imports nothing, so the declarations of
parameters (``situation/params.py``) and ``report/`` may both use it.

Examples
--------
>>> MULTIPLICITY_NAMES["bh"], MULTIPLICITY_SHORT["bh"], CORRECTION_NAMES["bh"]
('Benjamini–Hochberg', 'BH', 'Benjamini–Hochberg (bh)')
>>> MULTIPLICITY_NAMES["none"], CORRECTION_NAMES["none"], CORRECTION_NAMES["holm"]
('no adjustment', 'none', 'Holm')
"""

from __future__ import annotations

__all__ = ["CORRECTIONS", "MULTIPLICITY", "MULTIPLICITY_NAMES", "MULTIPLICITY_SHORT",
           "CORRECTION_NAMES"]  # fmt: skip

#: code -> (the name sentences use, the short name of the nav and the cards), in the order of
#: the docs.
CORRECTIONS: dict[str, tuple[str, str]] = {
    "none": ("no adjustment", "none"), "bonferroni": ("Bonferroni", "Bonferroni"),
    "holm": ("Holm", "Holm"), "bh": ("Benjamini–Hochberg", "BH"),
    "by": ("Benjamini–Yekutieli", "BY"),
}  # fmt: skip

#: The codes (``analyses.situation.multiplicity`` and the engine's ``multiplicity``).
MULTIPLICITY = tuple(CORRECTIONS)

#: How the narrative names each correction ("after the Holm adjustment").
MULTIPLICITY_NAMES = {code: name for code, (name, _) in CORRECTIONS.items()}

#: The short names of the corrections in force, for the nav and the cards.
MULTIPLICITY_SHORT = {code: short for code, (_, short) in CORRECTIONS.items() if code != "none"}

#: How a ``multiplicity`` setting reads on a page (the provenance): its name, followed by its
#: code when the short name differs; ``none`` as written.
CORRECTION_NAMES = {
    code: short if code == "none" else name if name == short else f"{name} ({code})"
    for code, (name, short) in CORRECTIONS.items()
}
