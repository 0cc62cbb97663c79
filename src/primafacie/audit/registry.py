"""The registry: every analysis an audit can run, defined once, in report order.

Adding an analysis is one ``analysis.py`` in its engine package (an
:class:`~primafacie.analysis.Analysis`) and one line here; the audit, the report,
``results.json``, the ``audit.yaml`` schema and the terminal summary all iterate
:data:`ANALYSES`.

>>> [a.name for a in ANALYSES]
['groups', 'situation', 'recourse', 'principal', 'certainty', 'alternatives', 'll144']
"""

from __future__ import annotations

from typing import Any

from ..alternatives.analysis import ANALYSIS as ALTERNATIVES
from ..analysis import Analysis
from ..certainty.analysis import ANALYSIS as CERTAINTY
from ..errors import InputError
from ..groups.analysis import ANALYSIS as GROUPS
from ..ll144.analysis import ANALYSIS as LL144
from ..principal.analysis import ANALYSIS as PRINCIPAL
from ..recourse.analysis import ANALYSIS as RECOURSE
from ..situation.analysis import ANALYSIS as SITUATION

__all__ = ["ANALYSES", "get", "requested", "names"]

#: Every analysis, in report order.
ANALYSES: tuple[Analysis, ...] = (
    GROUPS,
    SITUATION,
    RECOURSE,
    PRINCIPAL,
    CERTAINTY,
    ALTERNATIVES,
    LL144,
)


def names() -> list[str]:
    """The registry names, in report order."""
    return [a.name for a in ANALYSES]


def get(name: str) -> Analysis:
    """The analysis called ``name``; an :class:`InputError` listing the names otherwise."""
    for a in ANALYSES:
        if a.name == name:
            return a
    raise InputError(f"unknown analysis {name!r}; expected one of {', '.join(names())}")


def requested(cfg: Any) -> list[Analysis]:
    """The analyses a configuration asks for (its ``analyses.<name>`` sections), in order."""
    return [a for a in ANALYSES if getattr(cfg.analyses, a.name) is not None]


def spec_of(cfg: Any, name: str) -> Any:
    """The configuration's ``analyses.<name>`` section, or an InputError saying it is absent."""
    get(name)
    spec = getattr(cfg.analyses, name)
    if spec is None:
        raise InputError(f"the configuration has no analyses.{name} section")
    return spec
