"""Gower's distance and exact k-NN search whose backend is chosen by measured cost.

Gower's distance between two rows is the mean over the ``|X|`` attributes of ``|x - x'| /
range`` (numeric, ordinal) and the overlap ``1{x != x'}`` (categorical).
:class:`GowerTransformer` maps a table to a :class:`GowerMatrix` (scaled numeric columns +
integer codes); :func:`knn` returns the exact k nearest rows with a documented tie rule
(``ties="first"``: the earlier row of the search space wins; ``"last"``: the later one, as the
CST authors' heap). Every backend returns the brute-force answer bit for bit: distances are
always computed by one kernel (:func:`~primafacie.neighbors.gower.canonical_sums`), the
backends only propose candidates.

Backends
--------
``brute``
    Blocked scan: one block of queries against all base rows (≤ ~32 MB of distances), codes
    compared for equality (a categorical column costs one column whatever its levels), and an
    ``np.partition`` top k per block with ties to the earlier row. Cost ∝ m·n·(p + c).
``tree``
    scikit-learn KD-trees over an *embedding* whose L1 distance is exact: numeric columns,
    *narrow* categoricals (≤ ``AutoRule.narrow_levels`` levels) as one-hot blocks of 0.5, and,
    for a subset T of the *wide* categoricals, ``W·code`` with ``W`` larger than any other part
    of a distance. One tree per subset T (``2**wide`` trees). Why their union contains the exact
    top k: write ``d = d_low + #(wide columns that differ)``. Take a row x that matches the query
    exactly on the wide columns T_x. In the tree of T_x its distance is ``d_low(x)``; if it was
    not fetched, k fetched rows y have tree distance ``≤ rho < d_low(x) - margin < W``, so each
    y matches on T_x and ``d(y) ≤ d_low(y) + |wide \\ T_x| < d(x)``: x is not in the top k.
    A postcode with 5,000 levels is one more dimension and one more tree, not 5,000 columns.
``faiss``
    The same certificate over faiss ``IndexFlat`` (METRIC_L1, float32, multi-threaded SIMD
    scan); queries whose certificate fails are searched by brute force.

Candidates are certified: with ``rho`` the k-th candidate distance, every row within ``rho +
margin`` (4 × the float error bound + 2 rounding steps of ``decimals``) is fetched, by the
``k + 8`` nearest or, when ties reach that far, by a radius search (never a per-query brute
fallback on the tree, so data full of exact ties stay fast).

The ``auto`` rule (:func:`choose_algorithm`, thresholds in :class:`AutoRule`)
-------------------------------------------------------------------------------
Measured by ``python benchmarks/scale.py --calibrate`` on the 2-core CI machine (seconds to find
the 51 nearest of 20,000 queries among n rows; credit-world-like columns):

======================================  ========  =======  ======  ========
shape (numeric + categorical levels)     n         brute    tree    faiss
======================================  ========  =======  ======  ========
5 + (3, 3)            tree dims 12      2·10^4     7.4      0.9     2.9
5 + (3, 3)                              10^5       37       1.6     14
5 + (3, 3, 5000)      wide 1, 2 trees   10^5       42       3.5     —
20 + ()               tree dims 21      10^5       120      55      26
======================================  ========  =======  ======  ========

so: brute when ``n ≤ 2,000`` or ``k ≥ n/2`` (no index pays off); the tree when its dimension
``numeric + narrow levels + 1 ≤ 16`` and at most 2 wide categoricals; faiss (if installed)
for more dimensions without wide categoricals; brute otherwise.
"""

from .gower import GowerMatrix, GowerTransformer, as_gower_matrix, gower_distances
from .search import (
    ALGORITHMS,
    AUTO_RULE,
    TIE_RULES,
    AutoRule,
    KnnResult,
    choose_algorithm,
    knn,
)

__all__ = [
    "GowerTransformer",
    "GowerMatrix",
    "as_gower_matrix",
    "knn",
    "KnnResult",
    "TIE_RULES",
    "ALGORITHMS",
    "AUTO_RULE",
    "AutoRule",
    "choose_algorithm",
    "gower_distances",
]
