"""Every parameter of situation testing, declared once; what is derived from the
declarations is listed in :mod:`primafacie.params`.

>>> WHERE["methods"]
'--method, analyses.situation.methods'
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

from ..corrections import MULTIPLICITY  # the adjustments, in the order of the docs
from ..params import Param, constraints, where
from ..validation import ALPHA, BOOL, Interval, ListOf, Options, Predicate

__all__ = ["PARAMS", "ENGINE_PARAMS", "WHERE", "METHODS", "DEFAULT_K", "DIMENSIONS"]

#: Methods in display order.
METHODS = ("st", "cst", "cst_centers", "cf")
#: The kinds of test, in the order the audit runs them.
DIMENSIONS = ("single", "multiple", "intersectional")
#: The one default neighbourhood grid (engine, ``audit.yaml`` and ``--k``): the first three
#: sizes of the paper's grid. A single k hides how much a verdict depends on k, and one
#: search at the largest k serves the smaller ones as prefixes, so the grid costs little more.
DEFAULT_K = (15, 30, 50)
#: Confidence intervals of the rate difference, the engine's too (wilson is newcombe's name
#: for the difference of two Wilson intervals).
INTERVALS = ("wald", "newcombe", "wilson")
#: Tie rules of the neighbour search (``neighbors.TIE_RULES``).
TIE_RULES = ("first", "last")

_ALIASES = {"cst_wo": "cst", "cst_w": "cst_centers", "cstwo": "cst", "cstwi": "cst_centers"}


def _method_name(value: Any) -> str:
    name = str(value).lower()
    return _ALIASES.get(name, name)


#: A method name (case-insensitive) or one of its aliases.
_METHOD = Predicate(
    lambda v: isinstance(v, str) and _method_name(v) in METHODS,
    "one of " + ", ".join(map(repr, METHODS)) + " (aliases 'cst_wo', 'cst_w')",
    bad="foo",
    values=METHODS,
)

#: Every parameter, in the order of ``analyses.situation`` in audit.yaml.
PARAMS: tuple[Param, ...] = (
    Param("k", [ListOf(Interval(Integral, 1, None), scalar=True)], list(DEFAULT_K),
          "Neighbourhood sizes (one search at the largest serves all).", flag="--k", cli="list"),
    Param("alpha", ALPHA, 0.05,
          "Significance level of the one-sided interval.", flag="--alpha"),
    Param("tau", [Interval(Real, -1, 1)], 0.0,
          "Tolerated difference in rejection rates before a case is flagged.", flag="--tau"),
    Param("methods", [ListOf(_METHOD, scalar=True)], list(METHODS),
          "st (situation testing), cst (counterfactual ST without centres), cst_centers "
          "(with centres), cf (counterfactual fairness).", flag="--method",
          cli="list"),
    Param("dimensions", [ListOf(Options(*DIMENSIONS))], ["single"],
          "single (per attribute), multiple (Bonferroni over attributes), intersectional "
          "(protected on every attribute).", flag="--dimension", cli="list"),
    Param("direction", [Options("negative", "positive")], "negative",
          "negative (against the protected) or positive discrimination.", flag="--direction"),
    Param("interval", [Options(*INTERVALS)], "newcombe",
          "Confidence interval of the rate difference: newcombe (default; its p-values keep "
          "the adjustment calibrated; wilson is the same) or wald (the paper's; needed with "
          "legacy).", flag="--interval"),
    Param("max_distance", [Interval(Real, 0, None, closed="neither"), None], None,
          "Optional largest Gower distance of a neighbour.", flag="--max-distance"),
    Param("legacy", [BOOL], False,
          "Reproduce the CST authors' code conventions of the published tables (z-scores "
          "refitted on the counterfactuals, ties to the larger index, rounded z); needs "
          "interval wald. Off: the corrected method (docs/statistics.md says why).",
          flag="--legacy"),
    Param("multiplicity", [Options(*MULTIPLICITY)], "bh",
          "Adjustment across complainants of each (method, k): none, bonferroni, holm, bh "
          "(Benjamini-Hochberg, false discovery rate at alpha; default) or by "
          "(Benjamini-Yekutieli, valid under any dependence). Adds p_adjusted and "
          "significant_adjusted; the unadjusted columns are unchanged.", flag="--multiplicity"),
    Param("ties", [None, Options(*TIE_RULES)], None,
          "Tie rule of the neighbour search (default: by mode).", key=""),
    Param("complainants", [Options("all", "rejected")], "all",
          "Who is tested (engine argument).", key=""),
    Param("n_attributes", [None, Interval(Integral, 1, None)], None,
          "Protected attributes of the multiple test (engine argument).", key=""),
    Param("strict_k", [BOOL], True, "Refuse a k above a group's size (engine argument).",
          key=""),
    Param("keep_neighbors", [BOOL], True, "Keep the neighbour lists (engine argument).",
          key=""),
    Param("chunk_size", [None, Interval(Integral, 1, None)], None,
          "Complainants per chunk (engine argument).", key=""),
)  # fmt: skip

#: The parameters of :class:`~primafacie.situation.SituationTest`: all but ``dimensions``,
#: which chooses the tests rather than setting an engine parameter.
ENGINE_PARAMS: tuple[Param, ...] = tuple(p for p in PARAMS if p.name != "dimensions")

#: What each parameter of the engine accepts.
PARAMETER_CONSTRAINTS: dict[str, list[Any]] = constraints(ENGINE_PARAMS)

#: Where a user of the CLI or of ``audit.yaml`` sets each parameter; appended to the message.
WHERE: dict[str, str] = where(PARAMS, "situation")
