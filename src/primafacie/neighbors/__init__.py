r"""Gower's distance and exact k-NN search whose backend is chosen by measured cost.

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
    SciPy cKDTrees over an *embedding* whose L1 distance is exact: the numeric columns,
    categoricals beyond the ``AutoRule.max_keyed`` with most levels as one-hot blocks of 0.5,
    and the *keyed* categoricals (up to 3, e.g. a 5,000-level postcode) as codes. For every
    subset T of the keyed columns (a *stratum*: a query searches the rows sharing its codes
    on T), a group of at most 4·(k + 8) rows is fetched whole and a larger group is searched
    in its own tree over the other columns (~4x faster than one big tree, measured); beyond
    256 large groups one tree holds them all with the extra coordinate ``W·key_T`` (``key_T``
    numbers the code combinations on T; ``W`` exceeds any other part of a distance), so its
    nearest rows are the group's rows ranked by the rest of the distance.
``faiss``
    The same strata over faiss ``IndexFlat`` (METRIC_L1, float32, multi-threaded SIMD scan);
    queries whose certificate fails (ties reaching past the k + 8 fetched) are searched by
    brute force.

Why the candidates hold the exact top k. Write ``d = d_low + #(keyed columns that differ)``
(``d_low``: numeric and one-hot part). Take a row x whose codes agree with the query on
exactly the keyed columns T_x. If the stratum T_x did not fetch x, it fetched k rows y whose
embedded distance is ``≤ rho < d_low(x) - margin < W``: each y agrees on T_x, so ``d(y) ≤
d_low(y) + |keyed \ T_x| < d(x) - margin``, and x cannot be among the k nearest, whatever the
tie rule. Strata are visited by increasing ``|keyed \ T|``; once a query's current k-th
distance is below that count (less a float and rounding margin) no later stratum can improve
it and the query skips them: on the credit world nearly every query is answered by its own
stratum (its own employment × region cell) and a postcode adds one gathered group.

A gathered group of a stratum T is read from a table of first positions (one cell per key and
code, instead of a binary search per query). Its rows are ordered by their code on one keyed
column outside T, and the run of rows sharing the query's code there is skipped as a range:
those rows belong to a stratum of fewer mismatches, already visited. Every pair left differs
from its query on each keyed column outside T, so its sum starts from their number (the same
exact integer, the same bits) and reads no code; it is pruned on its first numeric column,
read from a contiguous copy, before its rows are gathered (issue 22: with a 5,000-level
postcode most gathered pairs stop there).

Candidates are certified: with ``rho`` the k-th candidate distance of a search, ``margin`` is 4
× the float error bound + 2 rounding steps of ``decimals``; when ties reach past the
``k + extra`` nearest (each tree chooses ``extra`` from a sample of its queries,
:mod:`~primafacie.neighbors.candidates`), a radius search fetches every row within
``rho + margin`` (never a per-query brute fallback on the tree, so data full of exact ties
stay fast). The union is ranked in the
canonical arithmetic with the tie rule, so every backend returns the brute-force answer.

The ``auto`` rule (:func:`choose_algorithm`, thresholds in :class:`AutoRule`)
-------------------------------------------------------------------------------
Measured by ``python benchmarks/scale.py --calibrate`` on the shared 2-core machine (wall
seconds, index building included, m queries of k = 51 among n rows of uniform data rounded to
3 decimals; "dims" = numeric columns + one-hot levels, keyed categoricals excluded; brute force
timed on m / 10 queries and scaled; the machine was loaded, so read ratios, not digits):

==========  ====  ==============  ======  ======  ======  =====
n           dims  categoricals     m      brute   tree    faiss
==========  ====  ==============  ======  ======  ======  =====
2·10^4      5     3, 3            10^4     13.8    3.2     2.4
10^5        3     3, 3            2·10^4   278     8.8     8.9
10^5        5     3, 3            2·10^4   403     11.4    8.8
10^5        5     3, 3, 5000      2·10^4   355     9.3     9.7
10^5        7     3, 3            2·10^4   217     9.3     4.0
10^5        10    3, 3            2·10^4   79      30.4    14.1
10^5        20    none            2·10^4   413     562     23.8
==========  ====  ==============  ======  ======  ======  =====

and on the whole situation test of the credit world at 10^5 rows (5 dims, ``benchmarks/scale.py
--case 1e5,0,tree`` vs ``faiss``): tree 10.2 s of CPU, faiss 14.6 s. The tree's cost per query
grows with ``log n`` and faiss's with ``n``, so the tree's lead grows with the rows. Hence:
brute force when ``n ≤ 2,000`` or ``k ≥ n/2`` (no index pays off); the tree up to 6 dims when
faiss is installed and up to 12 without it; faiss beyond (when installed), brute force
otherwise. A postcode with 5,000 levels adds no dimension (it is keyed): 9.3 s vs 11.4 s.

Repeated rows. When at most half of the base's rows are distinct and the rule above picks
brute force for the *distinct* rows, ``auto`` scans those only and expands each to its rows
(:mod:`~primafacie.neighbors.grouped`; equal rows are at equal distances, bit for bit): the
CST law-school searches (~1,000 distinct (LSAT, UGPA) pairs among 3,500-20,000 rows) cost a
1,000-column block per query instead of a tree over all rows and the import of scipy.spatial.
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
