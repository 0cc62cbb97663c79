"""What the parameters of :class:`~primafacie.principal.PrincipalFairness` accept, declared once.

:class:`~primafacie.principal.PrincipalFairness` validates them at ``run``; the ``audit.yaml``
model :class:`~primafacie.principal.spec.PrincipalSpec` and the ``primafacie principal`` flags
check the same constraints (:func:`primafacie.validation.check_value`), so the three give one
message. Light on purpose (no solver import): the configuration loads it.

>>> from primafacie.validation import check_value
>>> check_value("n_boot", -1, PARAMETER_CONSTRAINTS["n_boot"])
Traceback (most recent call last):
...
ValueError: n_boot must be an integer in [0, 100000]; got -1
"""

from __future__ import annotations

from collections.abc import Mapping
from numbers import Integral, Real
from typing import Any

import numpy as np

from ..validation import InstanceOf, Interval, Options, Predicate

__all__ = ["PARAMETER_CONSTRAINTS", "WHERE"]


def _is_definition(value: Any) -> bool:
    return not isinstance(value, (bool, np.bool_)) and value in (1, 2)


def _is_definitions(value: Any) -> bool:
    """1, 2, or a non-empty list/tuple of them (a list of lists is not)."""
    if isinstance(value, (list, tuple, set)):
        return len(value) > 0 and all(_is_definition(v) for v in value)
    return _is_definition(value)


def _is_names(value: Any) -> bool:
    """A column name, or a list or tuple of them (possibly empty: no covariate cells)."""
    if isinstance(value, str):
        return True
    return isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)


def _names(value: Any) -> list[str]:
    return [value] if isinstance(value, str) else list(value or ())


_DEFINITIONS = Predicate(_is_definitions, "1 or 2 (or a list of both)", bad=3)

#: Most bootstrap replicates: an interval's end from B replicates moves by about
#: 0.5/sqrt(B) of the spread between reruns (0.0016 at 100,000); each replicate re-solves the
#: LPs, so a larger B only multiplies the run time.
MAX_N_BOOT = 100_000

#: What each parameter of :class:`PrincipalFairness` accepts (see :mod:`primafacie.validation`);
#: ``audit.yaml``'s ``analyses.principal`` and the CLI check the same constraints.
PARAMETER_CONSTRAINTS: dict[str, list[Any]] = {
    "definition": [_DEFINITIONS],
    "definitions": [None, _DEFINITIONS],
    "covariates": [Predicate(_is_names, "a column name or a list of them", bad=[1])],
    "n_boot": [Interval(Integral, 0, MAX_N_BOOT)],
    "seed": [None, Interval(Integral, 0, None)],
    "joint": [Options("tau0", "tau1")],
    "tol": [Interval(Real, 0, 1, closed="left")],
    "min_group": [Interval(Integral, 0, None)],
    "empty_cells": [Options("error", "skip")],
    "level": [Interval(Real, 0, 1, closed="neither")],
    "protected": [
        None,
        InstanceOf(str, name="a column name"),
        InstanceOf(Mapping, name="a mapping {column: protected value}"),
    ],
    "decision": [None, InstanceOf(str, name="a column name")],
    "outcome": [None, InstanceOf(str, name="a column name")],
}

#: The CLI flag and ``audit.yaml`` key that set a parameter, quoted in error messages.
WHERE: dict[str, str] = {
    "definition": "--definition, analyses.principal.definitions",
    "definitions": "--definition, analyses.principal.definitions",
    "covariates": "--covariates, analyses.principal.covariates",
    "n_boot": "--n-boot, analyses.principal.n_boot",
    "seed": "--seed, analyses.principal.seed",
    "joint": "--joint, analyses.principal.joint",
    "min_group": "--min-group, analyses.principal.min_group",
    "empty_cells": "--skip-empty, analyses.principal.empty_cells",
    "protected": "--protected, analyses.principal.protected",
}
