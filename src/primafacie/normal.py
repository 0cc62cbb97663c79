"""The standard normal CDF and quantile without SciPy, bit for bit SciPy's.

``scipy.special`` costs ~0.27 s to import (it loads SciPy's array-API layer and
``numpy.testing``), more than a short run spends on its statistics, and only two of its
functions were used on the paths of situation testing and the group metrics: ``ndtr`` (the
p-values) and ``ndtri`` (the quantile of every interval). SciPy computes both with the Cephes
library's rational approximations (S. L. Moshier, *Methods and Programs for Mathematical
Functions*, 1989; the coefficients below are Cephes', as SciPy ships them in ``ndtr.c`` and
``ndtri.c``). Evaluated here in the same order of operations, in IEEE double precision, with the
C library's ``exp``, ``log`` and ``sqrt`` (Python's :mod:`math`), the results are the same
floats: ``tests/test_normal.py`` compares them with SciPy on a grid of ~10^6 points, every
branch included. The standard library's ``NormalDist().inv_cdf`` is not a substitute: it is
3 ulps from ``ndtri`` at the 5% level (1.6448536269514715 against 1.6448536269514722), which
would move interval bounds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["ndtr", "ndtri"]

# fmt: off
# ndtri: w = y - 1/2 for |w| <= 3/8 (P0/Q0); z = sqrt(-2 log y) in [2, 8) (P1/Q1), [8, 64] (P2/Q2).
_P0 = (-5.99633501014107895267e1, 9.80010754185999661536e1, -5.66762857469070293439e1,
       1.39312609387279679503e1, -1.23916583867381258016e0)
_Q0 = (1.95448858338141759834e0, 4.67627912898881538453e0, 8.63602421390890590575e1,
       -2.25462687854119370527e2, 2.00260212380060660359e2, -8.20372256168333339912e1,
       1.59056225126211695515e1, -1.18331621121330003142e0)
_P1 = (4.05544892305962419923e0, 3.15251094599893866154e1, 5.71628192246421288162e1,
       4.40805073893200834700e1, 1.46849561928858024014e1, 2.18663306850790267539e0,
       -1.40256079171354495875e-1, -3.50424626827848203418e-2, -8.57456785154685413611e-4)
_Q1 = (1.57799883256466749731e1, 4.53907635128879210584e1, 4.13172038254672030440e1,
       1.50425385692907503408e1, 2.50464946208309415979e0, -1.42182922854787788574e-1,
       -3.80806407691578277194e-2, -9.33259480895457427372e-4)
_P2 = (3.23774891776946035970e0, 6.91522889068984211695e0, 3.93881025292474443415e0,
       1.33303460815807542389e0, 2.01485389549179081538e-1, 1.23716634817820021358e-2,
       3.01581553508235416007e-4, 2.65806974686737550832e-6, 6.23974539184983293730e-9)
_Q2 = (6.02427039364742014255e0, 3.67983563856160859403e0, 1.37702099489081330271e0,
       2.16236993594496635890e-1, 1.34204006088543189037e-2, 3.28014464682127739104e-4,
       2.89247864745380683936e-6, 6.79019408009981274425e-9)
_S2PI = 2.50662827463100050242e0  # sqrt(2 pi)
_EXP_M2 = 0.13533528323661269189  # exp(-2)

# erfc(x) = exp(-x²) P(x)/Q(x) for 1 <= x < 8, exp(-x²) R(x)/S(x) beyond; erf(x) = x T(x²)/U(x²)
# for |x| <= 1.
_P = (2.46196981473530512524e-10, 5.64189564831068821977e-1, 7.46321056442269912687e0,
      4.86371970985681366614e1, 1.96520832956077098242e2, 5.26445194995477358631e2,
      9.34528527171957607540e2, 1.02755188689515710272e3, 5.57535335369399327526e2)
_Q = (1.32281951154744992508e1, 8.67072140885989742329e1, 3.54937778887819891062e2,
      9.75708501743205489753e2, 1.82390916687909736289e3, 2.24633760818710981792e3,
      1.65666309194161350182e3, 5.57535340817727675546e2)
_R = (5.64189583547755073984e-1, 1.27536670759978104416e0, 5.01905042251180477414e0,
      6.16021097993053585195e0, 7.40974269950448939160e0, 2.97886665372100240670e0)
_S = (2.26052863220117276590e0, 9.39603524938001434673e0, 1.20489539808096656605e1,
      1.70814450747565897222e1, 9.60896809063285878198e0, 3.36907645100081516050e0)
_T = (9.60497373987051638749e0, 9.00260197203842689217e1, 2.23200534594684319226e3,
      7.00332514112805075473e3, 5.55923013010394962768e4)
_U = (3.35617141647503099647e1, 5.21357949780152679795e2, 4.59432382970980127987e3,
      2.26290000613890934246e4, 4.92673942608635921086e4)
_MAXLOG = 7.09782712893383996843e2  # log of the largest double: exp(-x²) underflows below
_SQRT1_2 = 0.70710678118654752440  # 1/sqrt(2), C's M_SQRT1_2
# fmt: on

#: ``math.exp`` element by element: NumPy's vectorised ``exp`` may round differently from the C
#: library's (it has its own SIMD kernels), and SciPy's ``erfc`` calls the C library's.
_exp = np.frompyfunc(math.exp, 1, 1)


def _polevl(x, coef: Sequence[float]):
    """``coef[0] x^n + ... + coef[n]`` by Horner's rule (Cephes ``polevl``)."""
    y = coef[0]
    for c in coef[1:]:
        y = y * x + c
    return y


def _p1evl(x, coef: Sequence[float]):
    """``x^n + coef[0] x^(n-1) + ... + coef[n-1]``: a leading coefficient of 1 (``p1evl``)."""
    y = x + coef[0]
    for c in coef[1:]:
        y = y * x + c
    return y


def ndtri(p: float) -> float:
    """The standard normal quantile ``Φ⁻¹(p)``, equal to ``scipy.special.ndtri(p)``.

    Parameters
    ----------
    p
        A probability: 0 gives ``-inf``, 1 gives ``inf``, anything outside ``[0, 1]`` (NaN
        included) gives NaN, as SciPy's.

    Returns
    -------
    float

    Examples
    --------
    >>> ndtri(0.95), ndtri(0.975), ndtri(0.5)
    (1.6448536269514722, 1.959963984540054, 0.0)
    """
    if not 0.0 <= p <= 1.0:  # NaN included
        return math.nan
    if p == 0.0:
        return -math.inf
    if p == 1.0:
        return math.inf
    y, upper = p, p > 1.0 - _EXP_M2
    if upper:  # the upper tail from its complement (small, so the log branch is accurate)
        y = 1.0 - y
    if y > _EXP_M2:
        w = y - 0.5
        w2 = w * w
        return (w + w * (w2 * _polevl(w2, _P0) / _p1evl(w2, _Q0))) * _S2PI
    x = math.sqrt(-2.0 * math.log(y))
    x0 = x - math.log(x) / x
    z = 1.0 / x
    if x < 8.0:  # y > exp(-32)
        x1 = z * _polevl(z, _P1) / _p1evl(z, _Q1)
    else:
        x1 = z * _polevl(z, _P2) / _p1evl(z, _Q2)
    return x0 - x1 if upper else x1 - x0


def _erf_small(x: np.ndarray) -> np.ndarray:
    """Cephes ``erf`` for ``0 <= x <= 1``: ``x T(x²) / U(x²)``."""
    z = x * x
    return x * _polevl(z, _T) / _p1evl(z, _U)


def _erfc_ge1(x: np.ndarray) -> np.ndarray:
    """Cephes ``erfc`` for ``x >= 1``: ``exp(-x²) P(x)/Q(x)`` (``R/S`` from 8), 0 once
    ``exp(-x²)`` underflows."""
    z = -x * x
    under = z < -_MAXLOG
    e = _exp(np.where(under, 0.0, z)).astype(float)
    near = x < 8.0
    p = np.where(near, _polevl(x, _P), _polevl(x, _R))
    q = np.where(near, _p1evl(x, _Q), _p1evl(x, _S))
    return np.where(under, 0.0, (e * p) / q)


def ndtr(x) -> np.ndarray:
    """The standard normal CDF ``Φ(x)``, elementwise, equal to ``scipy.special.ndtr(x)``.

    Parameters
    ----------
    x
        A number or an array (``±inf`` give 0 and 1, NaN gives NaN).

    Returns
    -------
    numpy.ndarray
        Same shape as ``x`` (0-d for a number), float64.

    Examples
    --------
    >>> float(ndtr(1.959963984540054)), float(ndtr(0.0)), ndtr([-np.inf, np.inf]).tolist()
    (0.975, 0.5, [0.0, 1.0])
    """
    a = np.asarray(x, dtype=float)
    out = np.full(a.shape, np.nan)
    with np.errstate(all="ignore"):  # inf/inf where exp underflowed: replaced by 0 above
        s = a * _SQRT1_2
        z = np.abs(s)
        # |s| < 1/sqrt(2): 1/2 + erf(s)/2 (erf is odd)
        small = z < _SQRT1_2
        e = _erf_small(z[small])
        out[small] = 0.5 + 0.5 * np.where(s[small] < 0, -e, e)
        # otherwise erfc(|s|)/2, and 1 minus it for s > 0; erfc below 1 is 1 - erf
        big = ~small & ~np.isnan(a)
        zb = z[big]
        below = zb < 1.0
        c = np.empty(zb.shape)
        c[below] = 1.0 - _erf_small(zb[below])
        c[~below] = _erfc_ge1(zb[~below])
        half = 0.5 * c
        out[big] = np.where(s[big] > 0, 1.0 - half, half)
    return out
