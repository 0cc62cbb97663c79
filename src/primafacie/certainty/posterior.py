"""Beta posteriors of group treatments, disparity and its normalised uncertainty (closed form).

Every function takes counts ``k`` (successes, the event E1 inside E2) and ``n`` (trials, the
event E2) per group, as scalars or numpy arrays of any broadcastable shape, so one call scores
any number of decision-makers at once.

Prior and normalisation
-----------------------
The paper uses the uniform prior Beta(1, 1). The posterior of a group is then
Beta(1 + k, 1 + n - k) and its variance is largest at n = 1, where it is 1/18; dividing by 1/18
maps the variance of every non-empty group into (0, 1] (Duong & Conrad 2024, eq. 13).
Another prior (``prior=(a0, b0)``) is an extension: the constant 1/18 is then no longer the
maximum (Jeffreys (1/2, 1/2) at n = 1 would give 1.125), so the variance is divided by the
largest posterior variance that prior can produce for any n >= 1 (:func:`max_posterior_var`),
which keeps the normalised variance in (0, 1]. The value 1 is then reached by the (n, k)
attaining that maximum, which need not be n = 1 (Beta(0.1, 10): n = k = 5), and the
uncertainty of a pair equals 1 only if both groups attain it.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from ..errors import InputError

__all__ = [
    "UNIFORM_PRIOR",
    "as_counts",
    "check_counts",
    "check_prior",
    "posterior",
    "beta_mean",
    "beta_var",
    "max_posterior_var",
    "normalized_var",
    "group_normalized_var",
    "treatment",
    "disparity",
    "uncertainty",
    "decision_maker",
    "decision_maker_multigroup",
    "MultiGroupDM",
    "credible_interval",
    "prob_disparity_exceeds",
]

#: The paper's prior: Beta(1, 1), i.e. Laplace's rule of succession.
UNIFORM_PRIOR: tuple[float, float] = (1.0, 1.0)


def check_prior(prior: Sequence[float]) -> tuple[float, float]:
    """The prior ``(alpha0, beta0)`` as floats, or an InputError unless both are finite and > 0.

    >>> check_prior([1, 1])
    (1.0, 1.0)
    """
    try:
        a0, b0 = (float(v) for v in prior)
    except (TypeError, ValueError):
        raise InputError(f"prior must be a pair (alpha0, beta0), got {prior!r}") from None
    if not (a0 > 0 and b0 > 0 and np.isfinite(a0) and np.isfinite(b0)):
        raise InputError(f"prior parameters must be finite and > 0, got {prior!r}")
    return a0, b0


def as_counts(x) -> np.ndarray:
    """Counts as a float array, or an InputError when they are not finite whole numbers.

    Integrality is checked only when the input is not already integer, so integer arrays of
    millions of counts cost one cast.

    Parameters
    ----------
    x
        Counts, array-like of any shape.

    Returns
    -------
    numpy.ndarray
        The counts as floats (whole numbers).

    Examples
    --------
    >>> as_counts([3, 1]).tolist()
    [3.0, 1.0]
    >>> as_counts([2.5])
    Traceback (most recent call last):
    ...
    primafacie.errors.InputError: counts k and n must be whole numbers
    """
    arr = np.asarray(x)
    if arr.dtype.kind in "iub":
        return arr.astype(float)
    try:
        arr = arr.astype(float)
    except (TypeError, ValueError):
        raise InputError("counts k and n must be numbers") from None
    if not np.isfinite(arr).all():
        # inf would pass both the whole-number and the 0 <= k <= n checks and give NaN
        raise InputError("counts k and n must be finite whole numbers (got NaN or inf)")
    if not np.array_equal(arr, np.floor(arr)):
        raise InputError("counts k and n must be whole numbers")
    return arr


#: Former private name of :func:`as_counts` (kept for code that imported it).
_as_counts = as_counts
_check_prior = check_prior


def legacy_count_order(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]], owner: str, old: str, new: str
) -> bool:
    """Whether ``(k, n)`` pairs were passed in the former ``(n, k)`` order; warn if so.

    Counts come as ``(k, n)`` (successes, trials) everywhere in :mod:`primafacie.certainty`.
    A caller still using the former order passes first arrays that are >= the second ones
    everywhere and larger somewhere, which is invalid for ``(k, n)`` (k <= n), so the old
    order is recognised without ambiguity (when k == n everywhere the order does not matter).
    It keeps working for one release with a :class:`DeprecationWarning`.

    Parameters
    ----------
    pairs
        ``[(first, second), ...]`` as given, validated by :func:`as_counts`.
    owner, old, new
        Function name and its former / new argument orders, for the warning.

    Returns
    -------
    bool
        True when the caller must swap each pair.
    """
    try:
        ge = all(bool(np.all(a >= b)) for a, b in pairs)
        gt = any(bool(np.any(a > b)) for a, b in pairs)
    except ValueError:  # shapes that do not broadcast: let the caller's checks say so
        return False
    if ge and gt:
        warnings.warn(
            f"{owner} now takes counts as {new} (successes before trials); the arguments look "
            f"like the former order {old} and were swapped. Pass {new} (or keywords): the "
            "former order stops working in the next release",
            DeprecationWarning,
            stacklevel=3,
        )
        return True
    return False


def check_counts(k: np.ndarray, n: np.ndarray, allow_empty: bool = False) -> None:
    """Raise an InputError unless 0 <= k <= n (and n >= 1 unless ``allow_empty``).

    >>> check_counts(np.array([1.0]), np.array([0.0]))
    Traceback (most recent call last):
    ...
    primafacie.errors.InputError: counts must satisfy 0 <= k <= n for every group
    """
    if np.any(k < 0) or np.any(k > n):
        raise InputError("counts must satisfy 0 <= k <= n for every group")
    if not allow_empty and np.any(n < 1):
        raise InputError(
            "a group has n = 0 (no member in the event E2): its rate is 0/0 and its posterior "
            "is the prior, whose normalised variance lies outside [0, 1]; drop the group"
        )


def posterior(k, n, prior: Sequence[float] = UNIFORM_PRIOR) -> tuple[np.ndarray, np.ndarray]:
    """Conjugate Beta posterior of a group's treatment P(E1 | E2, Z = i).

    Parameters
    ----------
    k, n
        Successes and trials (array-like, broadcastable), 0 <= k <= n.
    prior
        Beta prior ``(alpha0, beta0)``; the paper's uniform Beta(1, 1) by default.

    Returns
    -------
    (alpha, beta)
        ``alpha = alpha0 + k`` and ``beta = beta0 + n - k`` as float arrays.

    Examples
    --------
    >>> a, b = posterior(80, 100)
    >>> float(a), float(b)
    (81.0, 21.0)
    """
    a0, b0 = check_prior(prior)
    k, n = as_counts(k), as_counts(n)
    check_counts(k, n, allow_empty=True)
    return a0 + k, b0 + n - k


def beta_mean(alpha, beta) -> np.ndarray:
    """Mean ``alpha / (alpha + beta)`` of Beta(alpha, beta).

    Examples
    --------
    >>> float(beta_mean(9, 3))
    0.75
    """
    alpha = np.asarray(alpha, dtype=float)
    return alpha / (alpha + np.asarray(beta, dtype=float))


def beta_var(alpha, beta) -> np.ndarray:
    """Variance ``alpha beta / ((alpha + beta)^2 (alpha + beta + 1))`` of Beta(alpha, beta).

    Examples
    --------
    >>> round(float(beta_var(1, 2)), 10) == round(1 / 18, 10)
    True
    """
    alpha = np.asarray(alpha, dtype=float)
    beta = np.asarray(beta, dtype=float)
    s = alpha + beta
    return alpha * beta / (s * s * (s + 1.0))


@lru_cache(maxsize=64)
def max_posterior_var(prior: tuple[float, float] = UNIFORM_PRIOR) -> float:
    """Largest posterior variance the prior can yield for a non-empty group (n >= 1).

    For Beta(1, 1) this is ``beta_var(1, 2) = 1/18`` (n = 1). For other priors the maximum is
    searched over n = 1, 2, ... in doubling blocks until the bound ``1 / (4 (a0 + b0 + n + 1))``,
    which no posterior with n or more trials can exceed, falls below the best value found.
    For a given n only the k putting ``alpha = a0 + k`` nearest to ``(a0 + b0 + n) / 2`` can be
    the maximum (``alpha * beta`` with a fixed sum is concave), so each n costs O(1).

    Raises
    ------
    InputError
        When a0 or b0 exceeds 1e6 (the search would need millions of n): such a prior is far
        outside what the renormalisation is meant for.

    Examples
    --------
    >>> round(max_posterior_var((1.0, 1.0)) * 18, 12)
    1.0
    """
    a0, b0 = check_prior(prior)
    if max(a0, b0) > 1e6:  # its maximum would lie near n = max(a0, b0) / 2: a long search
        raise InputError(
            f"prior {prior!r} is too strong to renormalise the variance (a0 and b0 must be "
            "at most 1e6); use a weaker prior"
        )
    best = 0.0
    lo, size = 1, 1024
    while True:
        n = np.arange(lo, lo + size, dtype=float)
        k_mid = np.floor((a0 + b0 + n) / 2.0 - a0)
        for k in (np.clip(k_mid, 0, n), np.clip(k_mid + 1.0, 0, n)):
            best = max(best, float(beta_var(a0 + k, b0 + n - k).max()))
        lo += size
        if 1.0 / (4.0 * (a0 + b0 + lo + 1.0)) < best:
            return best
        if lo > 1 << 24:
            raise InputError(
                f"prior {prior!r} is too large or too skewed to renormalise the variance "
                "(its maximum lies beyond n = 2^24); use a weaker prior"
            )
        size *= 2


def normalized_var(alpha, beta, prior: Sequence[float] = UNIFORM_PRIOR) -> np.ndarray:
    """Posterior variance divided by its maximum under ``prior`` (paper eq. 13).

    With the default prior this is ``beta_var(alpha, beta) / beta_var(1, 2)``.

    Examples
    --------
    >>> float(normalized_var(2, 1)), round(float(normalized_var(2, 2)), 10)
    (1.0, 0.9)
    """
    return beta_var(alpha, beta) / max_posterior_var(check_prior(prior))


def group_normalized_var(k, n, prior: Sequence[float] = UNIFORM_PRIOR) -> np.ndarray:
    """Normalised posterior variance of groups given counts.

    For the uniform prior the closed form ``18 (k+1)(n-k+1) / ((n+2)^2 (n+3))`` is evaluated
    from integers with a single division, so groups with mirrored counts (k and n - k) get
    bit-identical values and tied decision-makers stay exactly tied.

    Examples
    --------
    >>> round(float(group_normalized_var(80, 100)), 5)
    0.02857
    """
    k, n = as_counts(k), as_counts(n)
    check_counts(k, n, allow_empty=True)
    return _norm_var_unchecked(k, n, check_prior(prior))


def _norm_var_unchecked(k: np.ndarray, n: np.ndarray, prior: tuple[float, float]) -> np.ndarray:
    if prior == UNIFORM_PRIOR:
        n2 = n + 2.0
        return 18.0 * (k + 1.0) * (n - k + 1.0) / (n2 * n2 * (n + 3.0))
    a0, b0 = prior
    return normalized_var(a0 + k, b0 + n - k, prior)


def treatment(
    k, n, kind: str = "frequentist", prior: Sequence[float] = UNIFORM_PRIOR
) -> np.ndarray:
    """Estimated treatment of a group: ``k / n`` (frequentist, eq. 7) or the posterior mean.

    Empty groups (n = 0) give NaN for the frequentist estimate, never a division error.

    Examples
    --------
    >>> float(treatment(8, 10)), float(treatment(8, 10, "bayesian"))
    (0.8, 0.75)
    """
    k, n = as_counts(k), as_counts(n)
    if kind == "frequentist":
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(n > 0, k / np.where(n > 0, n, 1.0), np.nan)
    if kind == "bayesian":
        a, b = posterior(k, n, prior)
        return beta_mean(a, b)
    raise InputError(f"kind must be 'frequentist' or 'bayesian', got {kind!r}")


def disparity(ki, ni, kj, nj, kind: str = "frequentist", prior: Sequence[float] = UNIFORM_PRIOR):
    """Pairwise disparity ``|p_i - p_j|`` (Def. 2) or its Bayesian form (Def. 4).

    The frequentist value is computed as ``|k_i n_j - k_j n_i| / (n_i n_j)`` from integers,
    so a gap of exactly one half evaluates to 0.5 (not 0.49999999999999994) and its utility
    is exactly 0.

    Parameters
    ----------
    ki, ni, kj, nj
        Counts of the two groups (array-like, broadcastable).
    kind
        ``"frequentist"`` (the paper's experiments) or ``"bayesian"`` (posterior means).
    prior
        Beta prior for the Bayesian form.

    Returns
    -------
    numpy.ndarray
        Disparity in [0, 1].

    Examples
    --------
    >>> float(disparity(7, 10, 1, 5))
    0.5
    >>> round(float(disparity(80, 100, 8, 10, kind="bayesian")), 6)
    0.044118
    """
    ki, ni, kj, nj = (as_counts(v) for v in (ki, ni, kj, nj))
    check_counts(ki, ni)
    check_counts(kj, nj)
    return _disparity_unchecked(ki, ni, kj, nj, kind, prior)


def _disparity_unchecked(ki, ni, kj, nj, kind, prior) -> np.ndarray:
    if kind == "frequentist":
        return np.abs(ki * nj - kj * ni) / (ni * nj)
    if kind == "bayesian":
        a0, b0 = check_prior(prior)
        s = a0 + b0
        return np.abs((ki + a0) * (nj + s) - (kj + a0) * (ni + s)) / ((ni + s) * (nj + s))
    raise InputError(f"kind must be 'frequentist' or 'bayesian', got {kind!r}")


def uncertainty(ki, ni, kj, nj, prior: Sequence[float] = UNIFORM_PRIOR) -> np.ndarray:
    """Uncertainty of the disparity: mean of the two normalised variances (Def. 5).

    Lies in (0, 1]. For the uniform prior it equals ``9 Var(p_i - p_j | D)`` and is 1 iff
    n_i = n_j = 1 (for other priors see the module docstring).

    Examples
    --------
    >>> float(uncertainty(1, 1, 0, 1))
    1.0
    >>> round(float(uncertainty(3, 3, 0, 3)), 3)
    0.48
    """
    ki, ni, kj, nj = (as_counts(v) for v in (ki, ni, kj, nj))
    check_counts(ki, ni)
    check_counts(kj, nj)
    p = check_prior(prior)
    return (_norm_var_unchecked(ki, ni, p) + _norm_var_unchecked(kj, nj, p)) / 2.0


def decision_maker(
    ki, ni, kj, nj, kind: str = "frequentist", prior: Sequence[float] = UNIFORM_PRIOR
) -> tuple[np.ndarray, np.ndarray]:
    """A decision-maker as the point (disparity, uncertainty) of Def. 6.

    Examples
    --------
    >>> d, s = decision_maker(3, 3, 0, 3)
    >>> float(d), round(float(s), 3)
    (1.0, 0.48)
    """
    ki, ni, kj, nj = (as_counts(v) for v in (ki, ni, kj, nj))
    check_counts(ki, ni)
    check_counts(kj, nj)
    p = check_prior(prior)
    d = _disparity_unchecked(ki, ni, kj, nj, kind, p)
    return d, (_norm_var_unchecked(ki, ni, p) + _norm_var_unchecked(kj, nj, p)) / 2.0


class MultiGroupDM:
    """Arrays describing many decision-makers over several groups (returned by
    :func:`decision_maker_multigroup`): ``disparity``, ``uncertainty``, and the chosen most
    (``i``) and least (``j``) privileged group indices, each of shape ``(m,)``."""

    __slots__ = ("disparity", "uncertainty", "i", "j")

    def __init__(self, disparity, uncertainty, i, j) -> None:
        self.disparity = disparity
        self.uncertainty = uncertainty
        self.i = i
        self.j = j

    def __iter__(self):
        return iter((self.disparity, self.uncertainty, self.i, self.j))


def decision_maker_multigroup(
    k,
    n,
    kind: str = "frequentist",
    prior: Sequence[float] = UNIFORM_PRIOR,
    ties: str = "first",
    warn_empty: bool = True,
) -> MultiGroupDM:
    """Multi-group decision-maker ``max_i p_i - min_j p_j`` with the uncertainty of that pair.

    Parameters
    ----------
    k, n
        Counts of shape ``(G,)`` for one decision-maker or ``(m, G)`` for m of them; group
        order is the label order (sorted), which matters only for ties.
    kind
        Treatment used both to pick the pair and as the disparity: ``"frequentist"`` (eq. 20,
        the paper) or ``"bayesian"`` (max - min of posterior means, an extension).
    prior
        Beta prior.
    ties
        The paper gives no rule when several groups share the extreme rate, yet the choice
        changes the uncertainty. ``"first"``: the first group (in label order) reaching the
        maximum is i*, the first group reaching the minimum other than i* is j*.
        ``"most_uncertain"``: among the tied groups take the one with the largest posterior
        variance (a more cautious, less favourable choice for a fair decision-maker).
    warn_empty
        Groups with n = 0 are skipped (their rate is undefined); a warning says so. At least
        two non-empty groups are required per decision-maker.

    Returns
    -------
    MultiGroupDM
        ``disparity``, ``uncertainty``, ``i``, ``j`` (group indices), arrays of shape (m,) or
        scalars-in-arrays of shape () for 1-D input.

    Examples
    --------
    >>> dm = decision_maker_multigroup([6, 2, 50], [6, 4, 60])
    >>> float(dm.disparity), int(dm.i), int(dm.j)
    (0.5, 0, 1)
    """
    if ties not in ("first", "most_uncertain"):
        raise InputError(f"ties must be 'first' or 'most_uncertain', got {ties!r}")
    k, n = as_counts(k), as_counts(n)
    if k.shape != n.shape or k.ndim not in (1, 2):
        raise InputError(
            f"k and n must have the same shape (G,) or (m, G); got {k.shape}, {n.shape}"
        )
    one = k.ndim == 1
    k2, n2 = np.atleast_2d(k), np.atleast_2d(n)
    check_counts(k2, n2, allow_empty=True)
    nonempty = n2 > 0
    too_few = nonempty.sum(axis=1) < 2
    if too_few.any():
        raise InputError(
            f"{int(too_few.sum())} decision-maker(s) have fewer than two non-empty groups; "
            "a disparity needs at least two groups with members in E2"
        )
    if warn_empty and not nonempty.all():
        warnings.warn(f"{int((~nonempty).sum())} empty group(s) (n = 0) were skipped", stacklevel=2)
    p = check_prior(prior)
    if kind not in ("frequentist", "bayesian"):
        raise InputError(f"kind must be 'frequentist' or 'bayesian', got {kind!r}")
    m = k2.shape[0]
    d, s = np.empty(m), np.empty(m)
    i, j = np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64)
    for lo in range(0, m, _BLOCK):  # bounded memory for millions of decision-makers
        hi = min(lo + _BLOCK, m)
        d[lo:hi], s[lo:hi], i[lo:hi], j[lo:hi] = _multigroup_block(
            k2[lo:hi], n2[lo:hi], nonempty[lo:hi], kind, p, ties
        )
    if one:
        return MultiGroupDM(d[0], s[0], i[0], j[0])
    return MultiGroupDM(d, s, i, j)


_BLOCK = 1 << 16


def _multigroup_block(k2, n2, nonempty, kind, p, ties):
    with np.errstate(invalid="ignore", divide="ignore"):
        if kind == "frequentist":
            rate = k2 / n2
        else:
            rate = (k2 + p[0]) / (n2 + p[0] + p[1])
    m, g = k2.shape
    rows = np.arange(m)
    rate_hi = np.where(nonempty, rate, -np.inf)
    rate_lo = np.where(nonempty, rate, np.inf)
    if ties == "first":
        # argmax/argmin return the first index reaching the extreme: label order
        i = rate_hi.argmax(axis=1)
        rate_lo[rows, i] = np.inf  # j* != i*, which only matters when all rates are equal
        j = rate_lo.argmin(axis=1)
    else:
        var = np.where(nonempty, _norm_var_unchecked(k2, n2, p), -np.inf)
        top = rate_hi.max(axis=1, keepdims=True)
        i = np.where(rate_hi == top, var, -np.inf).argmax(axis=1)
        rate_lo[rows, i] = np.inf
        bottom = rate_lo.min(axis=1, keepdims=True)
        j = np.where(rate_lo == bottom, var, -np.inf).argmax(axis=1)
    ki, ni, kj, nj = k2[rows, i], n2[rows, i], k2[rows, j], n2[rows, j]
    d = _disparity_unchecked(ki, ni, kj, nj, kind, p)
    s = (_norm_var_unchecked(ki, ni, p) + _norm_var_unchecked(kj, nj, p)) / 2.0
    return d, s, i, j


def credible_interval(
    k, n, level: float = 0.95, prior: Sequence[float] = UNIFORM_PRIOR
) -> tuple[np.ndarray, np.ndarray]:
    """Equal-tailed posterior credible interval of each group's treatment (beyond the paper).

    Examples
    --------
    >>> lo, hi = credible_interval(80, 100)
    >>> round(float(lo), 3), round(float(hi), 3)
    (0.711, 0.866)
    """
    from scipy.stats import beta as beta_dist

    if not 0 < level < 1:
        raise InputError(f"level must lie in (0, 1), got {level!r}")
    a, b = posterior(k, n, prior)
    tail = (1.0 - level) / 2.0
    return beta_dist.ppf(tail, a, b), beta_dist.ppf(1.0 - tail, a, b)


def prob_disparity_exceeds(
    ki,
    ni,
    kj,
    nj,
    epsilon: float,
    prior: Sequence[float] = UNIFORM_PRIOR,
    method: str = "quadrature",
    nodes: int = 2000,
    draws: int = 200_000,
    seed: int = 0,
) -> np.ndarray:
    """Posterior probability ``P(|p_i - p_j| > epsilon | D)`` (beyond the paper).

    With independent posteriors, ``P(p_i - p_j > e) = E[F_j(p_i - e)]`` where ``p_i`` follows
    group i's posterior and F_j is group j's posterior CDF. ``method="quadrature"`` evaluates
    this one-dimensional integral deterministically in quantile space,
    ``int_0^1 F_j(F_i^{-1}(u) - e) du``, with the midpoint rule on ``nodes`` points (a
    difference of two Betas has no simple closed form). Each of the two one-sided integrands
    is monotone with range in [0, 1], so the midpoint rule misses each by at most
    1 / (2 nodes) and the returned sum by at most 1 / nodes (ignoring the ~1e-12 error of
    scipy's Beta cdf/ppf); in practice the error is far smaller. Decision-makers are
    processed in blocks so memory stays bounded. ``method="monte_carlo"`` draws ``draws``
    samples per group with ``seed`` (one generator, consumed block by block).

    Examples
    --------
    >>> round(float(prob_disparity_exceeds(0, 0, 0, 0, 0.5)), 3)  # two uniform priors
    0.25
    """
    from scipy.stats import beta as beta_dist

    if not 0 <= epsilon < 1:
        raise InputError(f"epsilon must lie in [0, 1), got {epsilon!r}")
    ai, bi = posterior(ki, ni, prior)
    aj, bj = posterior(kj, nj, prior)
    ai, bi, aj, bj = np.broadcast_arrays(ai, bi, aj, bj)
    shape = ai.shape
    ai, bi, aj, bj = (x.reshape(-1, 1) for x in (ai, bi, aj, bj))
    if method not in ("quadrature", "monte_carlo"):
        raise InputError(f"method must be 'quadrature' or 'monte_carlo', got {method!r}")
    points = nodes if method == "quadrature" else draws
    if int(points) < 1:
        raise InputError(f"nodes and draws must be >= 1, got {points!r}")
    m = ai.shape[0]
    out = np.empty(m)
    u = (np.arange(nodes) + 0.5) / nodes
    rng = np.random.default_rng(seed)
    block = max(1, _PEX_BLOCK_CELLS // int(points))
    for lo in range(0, m, block):
        sl = slice(lo, min(lo + block, m))
        if method == "quadrature":
            xi = beta_dist.ppf(u, ai[sl], bi[sl])
            upper = beta_dist.cdf(xi - epsilon, aj[sl], bj[sl]).mean(axis=1)
            del xi
            xj = beta_dist.ppf(u, aj[sl], bj[sl])
            lower = beta_dist.cdf(xj - epsilon, ai[sl], bi[sl]).mean(axis=1)
        else:
            rows = sl.stop - sl.start
            gap = rng.beta(ai[sl], bi[sl], size=(rows, draws))
            gap -= rng.beta(aj[sl], bj[sl], size=(rows, draws))
            upper = (gap > epsilon).mean(axis=1)
            lower = (gap < -epsilon).mean(axis=1)
        out[sl] = upper + lower
    return np.clip(out, 0.0, 1.0).reshape(shape)


#: Cells (decision-makers x nodes or draws) per block of :func:`prob_disparity_exceeds`.
_PEX_BLOCK_CELLS = 1 << 18
