"""Items, binning and the two frequent-itemset miners."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from primafacie.errors import InputError
from primafacie.recourse.items import (
    ItemSpace,
    apply_bins,
    common_itemsets,
    frequent_itemsets,
    min_count,
    pack_bits,
    unpack_bits,
)


def random_table(n=400, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "a": rng.choice(["x", "y", "z"], n, p=[0.6, 0.3, 0.1]),
            "b": rng.choice(["u", "v"], n, p=[0.7, 0.3]),
            "c": rng.choice([0, 1, 2, 3], n),
            "d": rng.choice(["p", "q", "r", "s"], n, p=[0.5, 0.2, 0.2, 0.1]),
        }
    )


@pytest.mark.parametrize("support", [0.02, 0.1, 0.3])
def test_bitset_miner_equals_mlxtend_fpgrowth(support):
    df = random_table()
    sp = ItemSpace(df, list(df.columns))
    rows = np.arange(0, len(df), 2)
    ours = frequent_itemsets(sp, rows, support)
    ref = frequent_itemsets(sp, rows, support, method="mlxtend")
    assert ours == ref
    assert len(ours) > 0


def test_counts_are_exact_and_threshold_matches_mlxtend():
    df = random_table(200, seed=1)
    sp = ItemSpace(df, list(df.columns))
    rows = np.arange(len(df))
    found = frequent_itemsets(sp, rows, 0.05, max_len=2)
    thr = min_count(0.05, len(rows))
    assert thr == 10
    for items, count in found.items():
        labels = [sp.item_label(i) for i in items]
        mask = np.ones(len(df), bool)
        for col, val in labels:
            mask &= (df[col] == val).to_numpy()
        assert mask.sum() == count >= thr
        assert len(items) <= 2
        assert len({c for c, _ in labels}) == len(labels)  # one item per feature


def test_exclude_columns_and_common_intersection():
    df = random_table()
    sp = ItemSpace(df, list(df.columns))
    f0 = frequent_itemsets(sp, np.arange(0, 200), 0.1, exclude_columns=["b"])
    f1 = frequent_itemsets(sp, np.arange(200, 400), 0.1, exclude_columns=["b"])
    assert all(sp.columns[sp.item_col[i]] != "b" for s in f0 for i in s)
    common = common_itemsets([f0, f1])
    assert set(common) == set(f0) & set(f1)
    for key, (c0, c1) in common.items():
        assert c0 == f0[key] and c1 == f1[key]


def test_pack_roundtrip():
    rng = np.random.default_rng(0)
    m = rng.random((3, 130)) < 0.5
    packed = pack_bits(m)
    assert packed.dtype == np.uint64 and packed.shape == (3, 3)
    for k in range(3):
        assert (unpack_bits(packed[k], 130) == m[k]).all()
    assert int(np.bitwise_count(packed).sum()) == int(m.sum())


def test_bins_quantile_and_fixed_edges():
    df = pd.DataFrame(
        {"age": [17, 20, 30, 40, 50, 60, 70, 90], "h": [1, 30, 40, 40, 50, 60, 80, 99]}
    )
    out, specs = apply_bins(df, {"age": 4, "h": [0.9, 25, 39, 40, 55, 100]})
    assert specs["h"].labels == ("(0.9, 25]", "(25, 39]", "(39, 40]", "(40, 55]", "(55, 100]")
    assert out["h"].tolist()[:4] == ["(0.9, 25]", "(25, 39]", "(39, 40]", "(39, 40]"]
    assert len(specs["age"].labels) == 4 and specs["age"].labels[0].startswith("(16.999")
    assert list(out["age"].cat.categories) == list(specs["age"].labels)
    with pytest.raises(InputError, match="outside the edges"):
        apply_bins(df, {"h": [0, 10, 50]})
    with pytest.raises(InputError, match="not in the data"):
        apply_bins(df, {"zzz": 3})


def test_item_space_orders_and_describe():
    df = pd.DataFrame({"lvl": ["mid", "low", "high"], "k": ["b", "a", "b"]})
    sp = ItemSpace(df, ["lvl", "k"], orders={"lvl": ["low", "mid", "high"]})
    assert sp.values[0].tolist() == ["low", "mid", "high"]
    assert sp.codes[:, 0].tolist() == [1, 0, 2]
    assert sp.describe([sp.offsets[1] + 1, 2]) == {"k": "b", "lvl": "high"}
    assert sp.code_of("lvl", "high") == 2 and sp.code_of("lvl", "none") == -1


def test_mlxtend_miner_without_mlxtend_names_the_extra(monkeypatch):
    """mlxtend is an optional extra: asking for its miner without it says how to install it."""
    import sys

    monkeypatch.setitem(sys.modules, "mlxtend", None)  # makes `import mlxtend...` fail
    monkeypatch.setitem(sys.modules, "mlxtend.frequent_patterns", None)
    df = random_table(50)
    sp = ItemSpace(df, list(df.columns))
    with pytest.raises(InputError, match=r"pip install primafacie\[mlxtend\]"):
        frequent_itemsets(sp, np.arange(50), 0.1, method="mlxtend")
    assert frequent_itemsets(sp, np.arange(50), 0.1)  # the default miner needs nothing
