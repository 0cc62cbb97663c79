"""The counterfactual part of the SCM (:mod:`primafacie.causal.counterfactuals`), by hand.

x = 1.5 + 3 a + u on a = [0, 0, 1, 1], x = [1, 2, 4, 5]: û = [-0.5, 0.5, -0.5, 0.5].
"""

import numpy as np
import pandas as pd
import pytest

from primafacie.causal import SCM
from primafacie.errors import InputError

DF = pd.DataFrame({"a": [0, 0, 1, 1], "x": [1.0, 2.0, 4.0, 5.0]})


def test_clip_applies_to_recomputed_values_only():
    # do(a = 1): rows 0, 1 get 4.5 + û = [4, 5], clipped to 4.5; rows 2, 3 keep their parents,
    # hence their factual x = [4, 5] (not clipped)
    scm = SCM([("a", "x")], clip={"x": (None, 4.5)}).fit(DF)
    out = scm.counterfactual(DF, {"a": 1})
    assert out["a"].tolist() == [1, 1, 1, 1]
    assert out["x"].round(9).tolist() == [4.0, 4.5, 4.0, 5.0]


def test_given_noise_replaces_abduction():
    scm = SCM([("a", "x")]).fit(DF)
    noise = pd.DataFrame({"x": [0.0, 0.0]}, index=[0, 3])
    out = scm.counterfactual(DF, {"a": 1}, rows=[0, 3], noise=noise)
    # given noise applies to every selected row: 1.5 + 3 + 0 = 4.5 for rows 0 and 3
    assert out["x"].round(9).tolist() == [4.5, 2.0, 4.0, 4.5]


def test_abduct_and_intervention_errors():
    scm = SCM([("a", "x")]).fit(DF)
    assert scm.abduct(DF, rows=[1, 2])["x"].round(9).tolist() == [0.5, -0.5]
    with pytest.raises(InputError, match="intervention on unknown node 'b'"):
        scm.counterfactual(DF, {"b": 1})
    with pytest.raises(InputError, match="not fitted"):
        SCM([("a", "x")]).abduct(DF)


def test_text_nodes_are_coded_without_an_object_array(monkeypatch):
    """Fitting and abduction read a pyarrow text node's codes and categories through Arrow:
    no numpy (object) array of the column is made (~130 B per row and 0.2-0.3 CPU s per
    column at 10^6 rows otherwise); the results equal those of the object column."""
    rng = np.random.default_rng(0)
    n = 400
    g = rng.choice(["f", "m"], n)
    r = rng.choice(["north", "south", "west"], n)
    x = (g == "m") * 2.0 + (r == "west") * 1.5 + rng.normal(size=n)
    plain = pd.DataFrame({"g": g, "r": r, "x": x}).astype({"g": object, "r": object})
    arrow = plain.astype({"g": pd.StringDtype("pyarrow"), "r": pd.StringDtype("pyarrow")})
    edges = [("g", "r"), ("g", "x"), ("r", "x")]
    want = SCM(edges).fit(plain)
    real = pd.Series.to_numpy

    def no_text(self, *args, **kwargs):
        assert not isinstance(self.dtype, pd.StringDtype), f"to_numpy of text column {self.name}"
        return real(self, *args, **kwargs)

    monkeypatch.setattr(pd.Series, "to_numpy", no_text)
    scm = SCM(edges).fit(arrow)
    noise = scm.abduct(arrow, rows=np.arange(0, n, 3))
    monkeypatch.undo()
    assert scm.categories_ == want.categories_
    np.testing.assert_array_equal(scm.mechanisms_["x"].coef_, want.mechanisms_["x"].coef_)
    pd.testing.assert_frame_equal(noise, want.abduct(plain, rows=np.arange(0, n, 3)))
    cf = scm.counterfactual(arrow, {"g": "f"})
    pd.testing.assert_series_equal(cf["x"], want.counterfactual(plain, {"g": "f"})["x"])
