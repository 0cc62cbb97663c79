"""Posterior probability that each decision-maker is the most fair (seeded Monte Carlo).

What "most fair" means
----------------------
The method (Duong & Conrad 2024) gives each group's favourable rate an independent Beta
posterior and measures a decision-maker by its disparity ``max_g p_g - min_g p_g`` (the
paper's multi-group disparity, eq. 20; ``|p_i - p_j|`` for two groups). Here the true rates are
drawn from those posteriors and, in each draw, the decision-maker with the *smallest
disparity* is the most fair. ``p_most_fair`` is the share of draws in which a decision-maker is
that one: the posterior probability that its true disparity is the smallest of those compared.

Why the disparity and not the utility: the utility ``u(δ, σ̄²)`` adds the uncertainty σ̄² to
the disparity because δ is a point estimate. A posterior draw *is* a possible value of the true
rates; the spread of the draws already carries the uncertainty, so scoring a draw with
``u(δ_draw, σ̄²)`` would count it twice. The probability therefore answers the question "how
sure are we that this one really has the smallest gap?", which complements the utility ranking
(a decision-maker can be selected by the utility and still have a modest ``p_most_fair`` when
the others are close).

Conventions
-----------
* Groups with no row in the criterion's denominator (``n = 0``) are left out of that
  decision-maker's disparity, as in the ranking (``on_empty="skip"``).
* The max and min run over every non-empty group of the decision-maker (not only the pair
  i*, j* of the point estimate): in a draw, another group may be the extreme one.
* Decision-makers' posteriors are independent, as in the method (each is scored on its own
  counts), although they often judge the same people; the probability is conditional on that
  model.
* Ties in a draw (probability zero for continuous draws) share the draw equally.
* Draws come from ``numpy.random.default_rng(seed)`` in blocks along the draw axis; the
  blocks consume the generator in order, so the result does not depend on the block size.
  The Monte Carlo standard error of a probability ``p`` is ``sqrt(p (1 - p) / n_draws)``
  (at most 0.005 with the default 10,000 draws).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import InputError
from .params import DEFAULT_DRAWS  # declared with the parameter n_draws
from .posterior import UNIFORM_PRIOR, as_counts, check_counts, check_prior

__all__ = ["DEFAULT_DRAWS", "MAX_BLOCK", "prob_most_fair", "mc_standard_error"]
#: Largest number of Beta variates held at once (draws x decision-makers x groups): ~32 MB.
MAX_BLOCK = 4_000_000


def prob_most_fair(
    k,
    n,
    prior: Sequence[float] = UNIFORM_PRIOR,
    n_draws: int = DEFAULT_DRAWS,
    seed: int = 0,
    max_block: int = MAX_BLOCK,
) -> np.ndarray:
    """Posterior probability that each decision-maker has the smallest disparity.

    Parameters
    ----------
    k, n
        Successes and trials of shape (m, G): m decision-makers over G groups; a group with
        ``n = 0`` is left out of that decision-maker (at least two non-empty groups each).
    prior
        Beta prior ``(alpha0, beta0)`` of every group (the paper's Beta(1, 1) by default).
    n_draws
        Monte Carlo draws (>= 1).
    seed
        Seed of ``numpy.random.default_rng``: the same counts, prior and seed give the same
        probabilities, whatever ``max_block``.
    max_block
        Largest number of Beta variates drawn at once (bounds memory).

    Returns
    -------
    numpy.ndarray
        (m,) probabilities summing to 1.

    Examples
    --------
    >>> p = prob_most_fair([[50, 50], [80, 20]], [[100, 100], [100, 100]], n_draws=2000)
    >>> p.round(3).tolist()  # equal rates vs a 60-point gap
    [1.0, 0.0]
    >>> float(prob_most_fair([[3, 0]], [[3, 3]])[0])  # alone, it is the most fair
    1.0
    """
    a0, b0 = check_prior(prior)
    k = np.atleast_2d(as_counts(k))
    n = np.atleast_2d(as_counts(n))
    if k.shape != n.shape or k.ndim != 2:
        raise InputError(
            f"k and n must be (decision-makers, groups) arrays; got {k.shape}, {n.shape}"
        )
    check_counts(k, n, allow_empty=True)
    if isinstance(n_draws, bool) or not isinstance(n_draws, (int, np.integer)) or n_draws < 1:
        raise InputError(f"n_draws must be an integer >= 1; got {n_draws!r}")
    present = n > 0
    if (present.sum(axis=1) < 2).any():
        bad = np.flatnonzero(present.sum(axis=1) < 2).tolist()
        raise InputError(f"decision-maker(s) at rows {bad} have fewer than two non-empty groups")
    m, g = n.shape
    if m == 1:
        return np.ones(1)
    alpha, beta = a0 + k, b0 + n - k
    rng = np.random.default_rng(seed)
    wins = np.zeros(m)
    block = max(1, int(max_block) // (m * g))
    for start in range(0, n_draws, block):
        size = min(block, n_draws - start)
        p = rng.beta(alpha, beta, size=(size, m, g))
        # empty groups can be neither the max nor the min
        hi = np.where(present, p, -np.inf).max(axis=2)
        lo = np.where(present, p, np.inf).min(axis=2)
        gap = hi - lo  # (size, m)
        best = gap == gap.min(axis=1, keepdims=True)
        wins += (best / best.sum(axis=1, keepdims=True)).sum(axis=0)
    return wins / n_draws


def mc_standard_error(p, n_draws: int) -> np.ndarray:
    """Monte Carlo standard error ``sqrt(p (1 - p) / n_draws)`` of estimated probabilities.

    Examples
    --------
    >>> float(mc_standard_error(0.5, 10_000))
    0.005
    """
    p = np.asarray(p, dtype=float)
    return np.sqrt(p * (1.0 - p) / n_draws)
