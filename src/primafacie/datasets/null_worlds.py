"""Worlds where the truth is known: no discrimination by design, or a known direct effect.

They serve two checks of situation testing (issue 15, ``docs/statistics.md``):

* **calibration under the null**: on a world without discrimination, the share of
  complainants flagged significant at α must be about α (or below), and after a
  false-discovery-rate adjustment a run should rarely report any discovery;
* **power**: on a world with a known rejection gap, the share of the (all truly
  discriminated) protected individuals that a method detects.

The structural equations, with ``A = 1`` the protected group::

    A  ~ Bernoulli(protected_share)
    X1, X2 ~ N(0, 1)                        (independent of A)
    X3 = N(0, 1) + shift · A                (kind="unused": A shifts X3; otherwise shift = 0)
    U  ~ Uniform(0, 1)                      (the decision's own noise, one draw per person)
    π(x) = 0.25 + 0.5 · sigmoid(X1 + X2 / 2)   (probability of a favourable decision)
    ŷ  = 1{U < π(x) − gap · A}

* ``kind="unaffected"`` (null world a): A affects nothing, ``gap = 0``.
* ``kind="unused"`` (null world b): A shifts X3, which the distance uses, but the decision
  uses only X1 and X2, which A does not affect; ``gap = 0``.
* :func:`make_gap_world`: like (a) but every protected person's probability of a favourable
  decision is ``gap`` lower (a direct effect of A): each of them is truly discriminated
  against, by exactly ``gap`` in rejection probability, whatever x.

The decision is random given x (through U), so neighbourhoods hold a mix of decisions, as in
real data; a deterministic threshold would make most neighbourhoods unanimous and every test
trivially non-significant. The counterfactual table is the truth, not an estimate:
``do(A := 0)`` removes the shift of X3 and the gap while keeping each person's U, so
``ŷ^CF = 1{U < π(x^CF)}``; non-protected rows are unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..data import AuditData
from ..validation import Interval, Options, validate_params

__all__ = ["World", "make_null_world", "make_gap_world", "NULL_KINDS"]

#: The two null worlds: (a) A affects nothing, (b) A affects a feature the decision ignores.
NULL_KINDS = ("unaffected", "unused")
_FEATURES = {"x1": "numeric", "x2": "numeric", "x3": "numeric"}


@dataclass(frozen=True)
class World:
    """A generated world: the audit data, the true counterfactuals and the true gap.

    Attributes
    ----------
    data
        AuditData with features x1, x2, x3, protected ``{"a": 1}`` and decision ``y``.
    counterfactuals
        One row per data row under ``do(a := 0)`` (features and the counterfactual decision
        ``y``), to pass as ``SituationTest.run(counterfactuals=...)``.
    gap
        The true difference in rejection probability of every protected person (0: null).
    """

    data: AuditData
    counterfactuals: pd.DataFrame
    gap: float


def _world(n: int, kind: str, gap: float, shift: float, protected_share: float, seed: int) -> World:
    rng = np.random.default_rng(seed)
    a = (rng.random(n) < protected_share).astype(np.int64)
    x1, x2, e3 = rng.normal(size=(3, n))
    u = rng.random(n)
    x3 = e3 + (shift * a if kind == "unused" else 0.0)
    accept = 0.25 + 0.5 / (1 + np.exp(-(x1 + x2 / 2)))  # π(x) in [0.25, 0.75]
    y = (u < accept - gap * a).astype(np.int64)
    frame = pd.DataFrame({"x1": x1, "x2": x2, "x3": x3, "a": a, "y": y})
    # the true counterfactual under do(a := 0): the same U, no shift, no gap
    cf = frame.assign(x3=e3, a=0, y=(u < accept).astype(np.int64))
    data = AuditData(frame, features=dict(_FEATURES), protected={"a": 1}, decision="y")
    return World(data=data, counterfactuals=cf, gap=float(gap))


_COMMON = {
    "n": [Interval(int, 20, None)],
    "protected_share": [Interval(float, 0, 1, closed="neither")],
    "seed": [Interval(int, 0, None)],
}


def make_null_world(
    n: int = 3000,
    kind: str = "unaffected",
    shift: float = 1.0,
    protected_share: float = 0.35,
    seed: int = 0,
) -> World:
    """A world without discrimination by design (calibration under the null).

    Parameters
    ----------
    n
        Number of rows.
    kind
        ``"unaffected"`` (a: the protected attribute affects nothing) or ``"unused"`` (b: it
        shifts x3 by ``shift`` standard deviations, but the decision uses only x1 and x2).
    shift
        The effect of A on x3 in world (b).
    protected_share
        P(A = 1).
    seed
        Seed of the generator (every draw comes from it).

    Returns
    -------
    World
        With ``gap == 0``.

    Examples
    --------
    >>> w = make_null_world(n=1000, kind="unused", seed=1)
    >>> w.data.n, w.gap, list(w.counterfactuals.columns)
    (1000, 0.0, ['x1', 'x2', 'x3', 'a', 'y'])
    >>> bool((w.counterfactuals.y == w.data.frame.y).all())  # no decision depends on A
    True
    """
    validate_params(
        "make_null_world",
        {**_COMMON, "kind": [Options(*NULL_KINDS)], "shift": [Interval(float, None, None)]},
        {
            "n": n,
            "kind": kind,
            "shift": float(shift),
            "protected_share": float(protected_share),
            "seed": seed,
        },
    )
    return _world(n, kind, 0.0, float(shift), float(protected_share), seed)


def make_gap_world(
    n: int = 3000, gap: float = 0.1, protected_share: float = 0.35, seed: int = 0
) -> World:
    """A world with a known direct effect: protected people are rejected ``gap`` more often.

    Parameters
    ----------
    n
        Number of rows.
    gap
        The difference in rejection probability, in [0, 0.25] (π(x) ≥ 0.25 keeps every
        probability valid): 0.05, 0.10 and 0.20 in ``docs/statistics.md``.
    protected_share
        P(A = 1).
    seed
        Seed of the generator.

    Returns
    -------
    World

    Examples
    --------
    >>> w = make_gap_world(n=20000, gap=0.2, seed=0)
    >>> f = w.data.frame
    >>> round(float(f.y[f.a == 0].mean() - f.y[f.a == 1].mean()), 2)
    0.2
    """
    validate_params(
        "make_gap_world",
        {**_COMMON, "gap": [Interval(float, 0, 0.25)]},
        {"n": n, "gap": float(gap), "protected_share": float(protected_share), "seed": seed},
    )
    return _world(n, "unaffected", float(gap), 0.0, float(protected_share), seed)
