"""Every parameter of :class:`~primafacie.principal.PrincipalFairness`, declared once;
:mod:`primafacie.params` lists what is derived from the declarations.

>>> from primafacie.validation import check_value
>>> check_value("n_boot", -1, PARAMETER_CONSTRAINTS["n_boot"])
Traceback (most recent call last):
...
ValueError: n_boot must be an integer in [0, 100000]; got -1
"""

from __future__ import annotations

from collections.abc import Mapping
from numbers import Integral, Real
from typing import Any, Literal

from ..params import Param, Switch, constraints, where
from ..validation import COLUMN, InstanceOf, Interval, Options, Predicate, _is_bool, is_names

__all__ = ["PARAMS", "PARAMETER_CONSTRAINTS", "WHERE", "MAX_N_BOOT"]


def _is_definitions(value: Any) -> bool:
    """1, 2, or a non-empty list/tuple of them (a list of lists is not)."""
    items = list(value) if isinstance(value, (list, tuple, set)) else [value]
    return len(items) > 0 and all(not _is_bool(v) and v in (1, 2) for v in items)


def _names(value: Any) -> list[str]:
    return [value] if isinstance(value, str) else list(value or ())


_DEFINITIONS = Predicate(_is_definitions, "1 or 2 (or a list of both)", bad=3)

#: Most bootstrap replicates: an interval's end from B replicates moves by about
#: 0.5/sqrt(B) of the spread between reruns (0.0016 at 100,000); each replicate re-solves the
#: LPs, so a larger B only multiplies the run time.
MAX_N_BOOT = 100_000

#: Every parameter, in the order of ``analyses.principal`` in audit.yaml.
PARAMS: tuple[Param, ...] = (
    Param("definitions", [_DEFINITIONS], [1, 2],
          "1 (both strata) and/or 2 (pooled) counterfactual fairness on principal strata.",
          flag="--definitions", type=list[Literal[1, 2]], cli="list"),
    Param("definition", [None, _DEFINITIONS], None,
          "Former name of definitions (engine argument, read with a DeprecationWarning).",
          key="", source="--definitions, analyses.principal.definitions"),
    Param("covariates", [Predicate(is_names, "a column name or a list of them", bad=[1])],
          [], "Columns defining the cells evaluated separately.", flag="--covariates",
          type=list[str], cli="list"),
    Param("protected",
          [None, COLUMN, InstanceOf(Mapping, name="a mapping {column: protected value}")],
          None, "Protected attribute (default: the first one).", flag="--protected"),
    Param("n_boot", [Interval(Integral, 0, MAX_N_BOOT)], 0,
          "Bootstrap replicates for intervals (0 = none; at most 100,000, whose Monte Carlo "
          "error, about 0.5/sqrt(n_boot), is below 0.002).", flag="--n-boot"),
    Param("seed", [None, Interval(Integral, 0, None)], 0,
          "Seed of the bootstrap and of the repair.", flag="--seed", type=int),
    Param("joint", [Options("tau0", "tau1")], "tau0",
          "tau0: bound tau1' with tau0' = 0 fixed (the paper's Section 4); tau1: the other "
          "way round.", flag="--joint"),
    Param("min_group", [Interval(Integral, 0, None)], 5,
          "Cells with a group smaller than this are flagged as unreliable.",
          flag="--min-group"),
    Param("empty_cells", [Options("error", "skip")], "error",
          "A covariate cell lacking one group: error, or skip it with a warning.",
          flag="--skip-empty", switch=Switch("skip", "Skip cells lacking a group.")),
    Param("tol", [Interval(Real, 0, 1, closed="left")], None,
          "Numerical tolerance of the fairness checks (engine argument).", key=""),
    Param("level", [Interval(Real, 0, 1, closed="neither")], 0.95,
          "Level of the bootstrap intervals.", key=""),
    Param("decision", [None, COLUMN], None, "Decision column (default: the data's).", key=""),
    Param("outcome", [None, COLUMN], None, "Outcome column (default: the data's).", key=""),
)  # fmt: skip

#: What each parameter of :class:`PrincipalFairness` accepts (see :mod:`primafacie.validation`).
PARAMETER_CONSTRAINTS: dict[str, list[Any]] = constraints(PARAMS)

#: The CLI flag and ``audit.yaml`` key that set a parameter, quoted in error messages.
WHERE: dict[str, str] = where(PARAMS, "principal")

#: Former names of parameters, read for one release with a deprecation note: ``{old: new}``.
RENAMED: dict[str, str] = {"definition": "definitions"}
