"""The causal package reproduces what the single-module ``causal.py`` computed.

The frozen tables come from ``golden_cases.py`` run on main at 016a48c (before the split into
graph / mechanisms / scm): loan world and credit world, every mechanism setting (linear,
random forest, gradient boosting, user estimators, per-node mappings, a user classifier),
with row selections, clip/round, given noise, abduction and merged nodes.

Integer and categorical tables must be identical. Floating-point tables are compared to a relative
1e-9: the frozen values were written under one numpy/scikit-learn/BLAS build, and a fresh install
(CI pulls the newest) moves the last bits of a least-squares fit (measured: 2.5e-13 relative on the
credit world's salaries). A real regression (a wrong edge, scaler or noise) moves values by far more.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from .golden_cases import GOLDEN, cases, table_arrays, to_dicts

CASES = cases()
RTOL = 1e-9


def _close(got, want):
    """Equal structure, equal non-floats, floats within RTOL."""
    if isinstance(want, dict):
        return (
            isinstance(got, dict)
            and got.keys() == want.keys()
            and all(_close(got[k], want[k]) for k in want)
        )
    if isinstance(want, list):
        return (
            isinstance(got, list)
            and len(got) == len(want)
            and all(_close(g, w) for g, w in zip(got, want, strict=True))
        )
    if isinstance(want, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        return abs(got - want) <= RTOL * max(abs(want), abs(got))
    return got == want


@pytest.fixture(scope="module")
def frozen() -> dict[str, np.ndarray]:
    with np.load(GOLDEN / "counterfactuals.npz", allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


@pytest.mark.parametrize("name", sorted(CASES))
def test_counterfactuals_bit_for_bit(frozen, name):
    got = table_arrays(CASES[name]())
    want = {k.split("::", 1)[1]: v for k, v in frozen.items() if k.startswith(name + "::")}
    assert want, f"no frozen table for {name}"
    assert sorted(got) == sorted(want)
    for key, arr in want.items():
        assert got[key].dtype == arr.dtype, key
        if np.issubdtype(arr.dtype, np.floating):
            np.testing.assert_allclose(got[key], arr, rtol=RTOL, atol=0, err_msg=key)
        else:
            assert np.array_equal(got[key], arr), key


def test_frozen_cases_cover_every_mechanism_kind():
    names = set(CASES)
    for world, mech in [("loan", "linear"), ("loan", "tree"), ("credit", "mapping")]:
        assert any(n.startswith(f"{world}/{mech}/") for n in names)


def test_to_dict_unchanged():
    want = json.loads((GOLDEN / "to_dict.json").read_text())
    got = json.loads(json.dumps(to_dicts(), sort_keys=True))
    assert _close(got, want)


def test_close_tolerates_only_the_last_bits():
    assert _close({"a": [1.0, "x"]}, {"a": [1.0 + 1e-12, "x"]})
    assert not _close({"a": [1.0001, "x"]}, {"a": [1.0, "x"]})
    assert not _close({"a": [1.0, "y"]}, {"a": [1.0, "x"]})
    assert not _close({"a": [1.0]}, {"b": [1.0]})
