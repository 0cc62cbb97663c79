"""Defaults of the analysis commands' flags, written as literals.

They are the analyses' spec defaults (``SituationSpec()``, ``RecourseSpec()``, ``PrincipalSpec()``,
``CertaintySpec()``; groups declares its parameters in ``groups/params.py``), which the flags
and ``audit.yaml`` share. They are spelled out here because importing a spec imports its engine
package, numpy and pandas, and ``primafacie --help`` must answer before any of that loads.
``tests/cli/test_startup.py`` checks that every value equals the spec's default, so the two
cannot drift apart.
"""

from __future__ import annotations

from typing import NamedTuple, Optional


class SituationDefaults(NamedTuple):
    """``SituationSpec()``'s values of the keys ``primafacie situation`` has flags for."""

    k: tuple[int, ...] = (15, 30, 50)
    methods: tuple[str, ...] = ("st", "cst", "cst_centers", "cf")
    dimensions: tuple[str, ...] = ("single",)
    alpha: float = 0.05
    tau: float = 0.0
    direction: str = "negative"
    interval: str = "newcombe"
    max_distance: Optional[float] = None
    legacy: bool = False
    multiplicity: str = "bh"


SITUATION = SituationDefaults()
