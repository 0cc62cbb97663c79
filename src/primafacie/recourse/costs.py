"""Cost of an action for a subgroup (FACTS App. B).

A change of feature f from v to v' costs ``w_f * delta_f(v, v')`` with

* numeric: ``|v - v'| / (max - min)`` (range-normalised over the audit data; ``normalize=False``
  keeps raw units; binned numeric features use the bin mid-points),
* categorical: ``1[v != v']``,
* ordinal: ``|pos(v) - pos(v')|`` (rank distance in the declared order).

The cost of an action on subgroup p is the sum over p's features. Every member of the subgroup
has the same value on those features, so every member pays the same cost.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["FeatureCost", "CostModel", "delta_matrix"]

KINDS = ("numeric", "categorical", "ordinal")


def delta_matrix(
    kind: str, positions: np.ndarray, normalize_range: float | None = None
) -> np.ndarray:
    """Pairwise change sizes between the coded values of one feature.

    Parameters
    ----------
    kind
        ``"numeric"``, ``"categorical"`` or ``"ordinal"``.
    positions
        Per code: the numeric value (numeric) or the rank in the order (ordinal); ignored for
        categorical.
    normalize_range
        Divide numeric differences by this range (None or 0: no normalisation).

    Returns
    -------
    ndarray (k, k)
        ``delta[a, b]`` = size of the change from code a to code b.

    Examples
    --------
    >>> float(delta_matrix("ordinal", np.array([0, 1, 2]))[0, 2])
    2.0
    >>> float(delta_matrix("categorical", np.array([0, 1]))[0, 1])
    1.0
    >>> float(delta_matrix("numeric", np.array([0.0, 5.0]), normalize_range=10.0)[0, 1])
    0.5
    """
    pos = np.asarray(positions, dtype=float)
    if kind == "categorical":
        return 1.0 - np.eye(len(pos))
    diff = np.abs(pos[:, None] - pos[None, :])
    if kind == "numeric" and normalize_range:
        diff = diff / normalize_range
    return diff


@dataclass(frozen=True)
class FeatureCost:
    """Cost rule of one feature: its weight and its (k, k) change-size matrix."""

    name: str
    kind: str
    weight: float
    delta: np.ndarray


class CostModel:
    """Per-feature weighted change sizes; cost of moving a subgroup's values to an action's.

    Parameters
    ----------
    features
        One :class:`FeatureCost` per mined column, in the item space's column order.

    Examples
    --------
    >>> cm = CostModel([FeatureCost("hpw", "ordinal", 2.0, delta_matrix("ordinal", np.arange(3))),
    ...                 FeatureCost("occ", "categorical", 4.0, delta_matrix("categorical", np.arange(3)))])
    >>> cm.costs(np.array([0, 1]), np.array([0, 0]), np.array([[1, 2], [0, 0]])).tolist()
    [6.0, 0.0]
    """

    def __init__(self, features: Sequence[FeatureCost]) -> None:
        self.features = list(features)
        self.weights = np.array([f.weight for f in self.features], dtype=float)

    def costs(self, cols: np.ndarray, if_codes: np.ndarray, then_codes: np.ndarray) -> np.ndarray:
        """Cost of each action (rows of ``then_codes``) for a subgroup with ``if_codes``."""
        then_codes = np.atleast_2d(then_codes)
        total = np.zeros(then_codes.shape[0], dtype=float)
        for j, col in enumerate(cols):
            feat = self.features[int(col)]
            total += feat.weight * feat.delta[int(if_codes[j]), then_codes[:, j]]
        return total
