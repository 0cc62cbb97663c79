"""Defaults of the analysis commands' flags, written as literals.

They are the analyses' spec defaults (``PrincipalSpec()``, ``CertaintySpec()``), which the flags
and ``audit.yaml`` share. They are spelled out here because importing a spec imports its engine
package, numpy and pandas, and ``primafacie --help`` must answer before any of that loads.
``tests/cli/test_startup.py`` checks that every value equals the spec's default, so the two
cannot drift apart.
"""

from __future__ import annotations

from typing import NamedTuple, Optional


class PrincipalDefaults(NamedTuple):
    """``PrincipalSpec()``'s values of the keys ``primafacie principal`` has flags for."""

    definitions: tuple[int, ...] = (1, 2)
    joint: str = "tau0"
    n_boot: int = 0
    seed: int = 0
    min_group: int = 5
    empty_cells: str = "error"


class CertaintyDefaults(NamedTuple):
    """``CertaintySpec()``'s values of the keys ``primafacie certainty`` has flags for."""

    criterion: str = "statistical_parity"
    tie_breaker: Optional[str] = None
    utility: str = "topsis"
    disparity: str = "frequentist"
    epsilon: Optional[float] = None
    on_empty: str = "error"
    min_group_size: Optional[int] = None
    max_levels: int = 20


PRINCIPAL = PrincipalDefaults()
CERTAINTY = CertaintyDefaults()
