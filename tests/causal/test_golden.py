"""The causal package reproduces, bit for bit, what the single-module ``causal.py`` computed.

The frozen tables come from ``golden_cases.py`` run on main at 016a48c (before the split into
graph / mechanisms / scm): loan world and credit world, every mechanism setting (linear,
random forest, gradient boosting, user estimators, per-node mappings, a user classifier),
with row selections, clip/round, given noise, abduction and merged nodes.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from .golden_cases import GOLDEN, cases, table_arrays, to_dicts

CASES = cases()


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
        # array_equal on the raw values: floats must be identical, not merely close.
        assert got[key].dtype == arr.dtype, key
        assert np.array_equal(got[key], arr), key


def test_frozen_cases_cover_every_mechanism_kind():
    names = set(CASES)
    for world, mech in [("loan", "linear"), ("loan", "tree"), ("credit", "mapping")]:
        assert any(n.startswith(f"{world}/{mech}/") for n in names)


def test_to_dict_unchanged():
    want = json.loads((GOLDEN / "to_dict.json").read_text())
    got = json.loads(json.dumps(to_dicts(), sort_keys=True))
    assert got == want
