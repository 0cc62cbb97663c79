"""The dossier pages of situation testing: the analysis computes each complainant's twin
(:func:`primafacie.causal.explain.counterfactual_twin`, under the value do() sets,
:func:`~primafacie.situation.reference.reference_value`) and the report renders the pages
(:func:`primafacie.report.dossier.dossier_pages`), computing nothing.

Examples
--------
{{setup}}
>>> res = SituationTest(methods="st", k=2).run(data)
>>> book = build_dossiers({"single_a": res}, data, ids=[0])
>>> book.to_frame()[["id", "file", "p_c", "p_t"]].values.tolist()
[[0, 'dossiers/0.html', 0.5, 0.0]]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..docstrings import SITUATION_SETUP, fill
from ..errors import InputError
from ..report.dossier import Dossiers, dossier_pages
from .reference import reference_value

__doc__ = fill(__doc__, setup=SITUATION_SETUP)  # the examples' set-up, shared

__all__ = ["build_dossiers", "twin_maker"]


def twin_maker(
    scm: Any, data: Any, results: Mapping[str, Any] | None = None
) -> Callable[[int, str], Any] | None:
    """``twin(pos, attribute) -> (twin, path, noise)`` for the dossier pages, or None (no SCM).

    The value do() sets is the one the attribute's test used: its ``reference`` parameter
    when it records one, else the attribute's one non-protected value; when there is no such
    single value the page shows no twin (as it shows none for ST). Another test's reference
    is not this attribute's (the intersectional test sets its own indicator column to 0).

    Parameters
    ----------
    scm
        The fitted :class:`~primafacie.causal.SCM`, or None.
    data
        The audited :class:`~primafacie.data.AuditData`.
    results
        ``{label: SituationResult}``: their ``params["reference"]`` (when recorded) is used.
    """
    if scm is None:
        return None
    from ..causal.explain import counterfactual_twin

    asked = {p.get("attribute"): p["reference"] for p in
             (getattr(r, "params", {}) for r in (results or {}).values())
             if p.get("reference") is not None}  # fmt: skip

    def twin(pos: int, attribute: str) -> Any:
        if attribute not in scm.nodes:
            return None
        try:
            value = reference_value(data, attribute, asked.get(attribute))
        except InputError:  # no single value do() could set: no twin on the page
            return None
        return counterfactual_twin(scm, data.frame, pos, attribute, value)

    return twin


def build_dossiers(
    results: Mapping[str, Any], data: Any, *, scm: Any = None, **options: Any
) -> Dossiers:
    """A page per complainant: the given ``ids``, or the ``top`` strongest of each test.

    Parameters
    ----------
    results, data
        As :func:`primafacie.report.dossier.dossier_pages` takes them.
    scm
        The fitted SCM (None for ST only), turned into each person's twin here.
    **options
        The other keywords of :func:`~primafacie.report.dossier.dossier_pages`, declared
        there once: ``source``, ``ids``, ``top``, ``redact``, ``sensitivity``, ``windows``,
        ``jurisdiction``.

    Returns
    -------
    Dossiers
    """
    return dossier_pages(results, data, scm=scm, twin=twin_maker(scm, data, results), **options)
