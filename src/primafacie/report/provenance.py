"""The provenance block of a filed page (the report and every dossier): rendered once here.

The block itself is computed by :func:`primafacie.audit.inputs.provenance` (version,
configuration and input SHA-256, seeds, corrections, date); this module only renders it, and
:func:`stamp` adds it to a page that was rendered without it (dossier pages are built before
the audit knows every input hash).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..corrections import CORRECTION_NAMES  # how a multiplicity setting reads on a page

__all__ = ["CORRECTION_NAMES", "provenance_html", "stamp"]

_SOURCE = '{% from "_provenance.html" import provenance %}{{ provenance(p, names) }}'


def provenance_html(prov: Mapping[str, Any]) -> str:
    """The ``<div class="provenance">`` of ``prov`` (every value escaped).

    Parameters
    ----------
    prov
        :func:`primafacie.audit.inputs.provenance`'s block.

    Returns
    -------
    str
        An HTML fragment.
    """
    from .html import template_environment

    return template_environment().from_string(_SOURCE).render(p=prov, names=CORRECTION_NAMES)


def stamp(page: str, prov: Mapping[str, Any] | None) -> str:
    """``page`` with the provenance block before its closing ``</body>`` (unchanged when
    ``prov`` is empty or the page has no body end)."""
    if not prov:
        return page
    at = page.rfind("</body>")
    if at < 0:
        return page
    return page[:at] + provenance_html(prov) + page[at:]
