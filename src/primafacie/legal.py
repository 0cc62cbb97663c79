"""The legal notes of the report and the dossiers, per jurisdiction (``jurisdiction:``).

Each jurisdiction has its own notes, with their citations, and only those are shown: EU
non-discrimination law (the default, as before), US employment law (Title VII and the Uniform
Guidelines' four-fifths rule), New York City's Local Law 144, or none. The note that a finding
is evidence and not a verdict is shown under every jurisdiction.

Examples
--------
>>> legal_note("us-employment")[0][:40]
'Under Title VII of the Civil Rights Act '
>>> len(legal_note("none"))
1
"""

from __future__ import annotations

__all__ = ["JURISDICTIONS", "legal_note"]

_NOT_A_VERDICT = (
    "It is not a verdict. The numbers depend on the stated assumptions (the causal graph, the "
    "distance between people, the neighbourhood size k, the significance level α and the "
    "tolerance τ), and an individual case is about one person and their neighbours, not about "
    "the intent of the decision-maker."
)

_NOTES: dict[str, tuple[str, ...]] = {
    "eu": (
        "A finding in this report is evidence of potential discrimination, also called prima "
        "facie evidence: facts from which it may be presumed that discrimination occurred. In "
        "EU non-discrimination law (e.g. Directive 2000/43/EC, Art. 8; Directive 2000/78/EC, "
        "Art. 10; Directive 2006/54/EC, Art. 19) such evidence shifts the burden of proof: the "
        "decision-maker must then show that equal treatment was not breached, for instance that "
        "a difference is justified by a legitimate aim pursued by appropriate and necessary "
        "means.",
    ),
    "us-employment": (
        "Under Title VII of the Civil Rights Act of 1964 (42 U.S.C. § 2000e-2(k)), an "
        "employment practice with a disparate impact on a protected group is unlawful unless "
        "the employer shows that it is job related and consistent with business necessity, "
        "and even then when a less discriminatory alternative exists that the employer refuses "
        "to adopt (Griggs v. Duke Power Co., 401 U.S. 424 (1971)).",
        "The Uniform Guidelines on Employee Selection Procedures (29 CFR 1607.4(D)) generally "
        "regard a selection rate below four-fifths (80%) of the rate of the group with the "
        "highest rate as evidence of adverse impact; smaller differences may still be adverse "
        "impact when they are significant in both statistical and practical terms, and a "
        "larger one may not be when it rests on small numbers. The four-fifths rule is a rule "
        "of thumb, not a legal definition: courts also weigh statistical significance, such as "
        "a difference of more than two or three standard deviations (Castaneda v. Partida, 430 "
        "U.S. 482 (1977); Hazelwood School District v. United States, 433 U.S. 299 (1977)).",
    ),
    "nyc-ll144": (
        "New York City's Local Law 144 of 2021 (NYC Administrative Code §§ 20-870 to 20-874) "
        "and its rules (6 RCNY §§ 5-300 to 5-304) forbid employers and employment agencies to "
        "use an automated employment decision tool unless an independent auditor completed a "
        "bias audit of it no more than one year before its use, a summary of the most recent "
        "audit's results and the tool's distribution date are published on the employment "
        "section of their website, and candidates and employees who reside in the city are "
        "notified, at least ten business days before its use, that the tool will be used and "
        "which job qualifications and characteristics it assesses.",
        "The bias audit reports selection or scoring rates and impact ratios by sex, "
        "race/ethnicity and their intersection (6 RCNY § 5-301). The law sets no impact ratio "
        "below which a tool is unlawful, and a bias audit does not by itself establish that "
        "the tool complies with anti-discrimination law.",
    ),
    "none": (),
}

#: The values of ``jurisdiction:`` in audit.yaml (``eu`` by default).
JURISDICTIONS = tuple(_NOTES)


def legal_note(jurisdiction: str = "eu") -> list[str]:
    """The paragraphs of the legal note for ``jurisdiction``, the not-a-verdict note last.

    Raises
    ------
    ValueError
        For an unknown jurisdiction (naming those known).
    """
    if jurisdiction not in _NOTES:
        raise ValueError(
            f"jurisdiction must be one of {', '.join(JURISDICTIONS)}; got {jurisdiction!r}"
        )
    return [*_NOTES[jurisdiction], _NOT_A_VERDICT]
