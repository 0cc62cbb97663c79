"""situation/statistics.py: counts to rates, Δp, intervals, flags and adjusted p-values."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from primafacie.situation import SituationTest
from primafacie.situation.statistics import Statistics


def _stats(**kw) -> Statistics:
    base = dict(alpha=0.05, tau=0.0, direction="negative", interval="wald",
                multiplicity="bonferroni", keep_neighbors=False)  # fmt: skip
    return Statistics(**{**base, **kw})


def _counts(*rows):
    cols = np.array(rows, dtype=np.int64).T
    return dict(zip(("x_c", "n_c", "x_t", "n_t"), cols, strict=True))


def test_wald_row_by_hand():
    # 10 of 15 rejected in the control group, 3 of 15 in the test group
    out = _stats().test(_counts((10, 15, 3, 15)), legacy=False)
    p_c, p_t = 10 / 15, 3 / 15
    w = 1.6448536269514722 * math.sqrt(p_c * (1 - p_c) / 15 + p_t * (1 - p_t) / 15)
    assert out["delta"][0] == pytest.approx(0.4666666666666667)
    assert out["ci_low"][0] == pytest.approx(0.4666666666666667 - w)  # 0.2041
    assert out["ci_low"][0] == pytest.approx(0.20410, abs=1e-5)
    assert out["ci_high"][0] == np.inf
    assert bool(out["discriminated"][0]) and bool(out["significant"][0])
    assert out["k_c"].dtype == np.int32 and out["neg_t"][0] == 3


def test_positive_direction_and_an_empty_group():
    out = _stats(direction="positive").test(_counts((3, 15, 10, 15), (1, 0, 1, 2)), False)
    assert bool(out["discriminated"][0]) and out["ci_low"][0] == -np.inf
    # an empty control group: untested, no rate, no interval, no flag
    assert np.isnan(out["p_c"][1]) and np.isnan(out["ci_low"][1]) and np.isnan(out["ci_high"][1])
    assert not out["discriminated"][1] and not out["significant"][1]


def test_adjustment_is_per_block_and_uses_alpha():
    stats = _stats(multiplicity="bonferroni", alpha=0.05)
    block = {"p_value": np.array([0.01, 0.03, np.nan])}
    stats._adjust(block)
    # Bonferroni over the two tested complainants: 0.02 and 0.06
    assert block["p_adjusted"][:2] == pytest.approx([0.02, 0.06])
    assert np.isnan(block["p_adjusted"][2])
    assert block["significant_adjusted"].tolist() == [True, False, False]


@pytest.mark.parametrize(("legacy", "k"), [(False, 255), (True, 254)])
def test_blocks_widen_narrow_counts_and_decisions(legacy, k):
    """Counts held as uint8 (up to 255) and decisions as int8 give the very columns int32
    counts and int64 decisions give: the statistics add the centre (+1) after widening, so
    a full list of 255 plus its centre is 256, not a wrapped 0. Corrected mode reads prefix
    k alone, legacy k and k + 1."""
    from primafacie.situation.lists import PrefixCounts
    from primafacie.situation.planning import Plan
    from primafacie.situation.search import Lists

    rng = np.random.default_rng(0)
    m = 400
    cols = (k,) if not legacy else (k, k + 1)
    top = cols[-1]
    size = rng.integers(0, top + 1, (m, len(cols)))
    size[:5] = cols  # full lists: the largest values
    size = np.sort(size, axis=1)
    neg = np.minimum(size, rng.integers(0, top + 1, (m, len(cols))))
    neg[:2] = size[:2]  # every member rejected: neg + the complainant's own reaches 256
    y = rng.integers(0, 2, m)
    y[:2] = 0
    ycf = rng.integers(0, 2, m)

    def run(small, ydtype):
        def counts(a, b):
            return PrefixCounts(cols, a.astype(small), b.astype(small))

        lists = Lists(
            self_pos=(np.arange(m) % (k + 2)).astype(small),
            ctrl_counts=counts(neg, size),
            st_counts=counts(neg, size),
            cf_counts=counts(neg[::-1], size[::-1]),
            cf_counts_cfneg=counts(neg[::-1], size[::-1]),
            centre_rank=(np.arange(m) % (k + 1)).astype(small),
        )
        local = np.arange(m)
        plan = Plan(methods=["st", "cst", "cst_centers", "cf"], ks=[k], attribute="a",
                    legacy=legacy, ties="first", y=y.astype(ydtype), prot=None,
                    comp_rows=local, ctrl_rows=local, test_rows=local)  # fmt: skip
        stats = _stats(interval="newcombe", multiplicity="holm")
        return list(stats.blocks(plan, lists, ycf.astype(np.int64)))

    wide, narrow = run(np.int32, np.int64), run(np.uint8, np.int8)
    for a, b in zip(wide, narrow, strict=True):
        assert a[:2] == b[:2]
        for name, col in a[2].items():
            assert b[2][name].dtype == col.dtype, name
            assert np.array_equal(b[2][name].view(np.uint8), col.view(np.uint8)), name
    k_c, neg_c = narrow[2][2]["k_c"], narrow[2][2]["neg_c"]  # cst_centers: the centre counted
    assert k_c.max() == top + (0 if legacy else 1)
    if not legacy:
        assert k_c[0] == 256 and neg_c[0] == 256


def test_the_table_trims_the_heap_as_its_columns_are_joined(monkeypatch):
    """Every TRIM_BYTES of joined columns the heap is trimmed (the blocks' freed arrays
    handed back while the table grows); the table is the one built without trims."""
    from primafacie import release
    from primafacie.situation import statistics
    from tests.shared import credit_audit

    data, rule, scm = credit_audit(800)
    test = SituationTest(methods=["st", "cst", "cf"], k=[3, 5], keep_neighbors=False)
    want = test.run(data, scm=scm, decider=rule).table
    calls = []
    monkeypatch.setattr(release, "trim_heap", lambda: calls.append(1) or True)
    monkeypatch.setattr(statistics, "TRIM_BYTES", 1)  # every column joined
    got = test.run(data, scm=scm, decider=rule).table
    # one per test column and per adjusted column (17 columns of _table), the engine's
    # release before the statistics and one after each of the three searches (control,
    # test, counterfactual)
    assert len(calls) == len(statistics._TEST_COLUMNS) + 2 + 1 + 3
    pd.testing.assert_frame_equal(got, want)
    calls.clear()
    monkeypatch.setattr(statistics, "TRIM_BYTES", 2**40)
    test.run(data, scm=scm, decider=rule)
    assert len(calls) == 1 + 3  # the engine's and the searches' alone


def test_joined_trims_once_the_bytes_reach_the_threshold(monkeypatch):
    from primafacie import release
    from primafacie.situation import statistics

    calls = []
    monkeypatch.setattr(release, "trim_heap", lambda: calls.append(1) or True)
    monkeypatch.setattr(statistics, "TRIM_BYTES", 100)
    assert statistics._joined(99) == 99 and not calls
    assert statistics._joined(100) == 0 and calls == [1]
