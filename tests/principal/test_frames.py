"""principal/frames.py: the tables of a PrincipalResult, laid out from its arrays."""

from __future__ import annotations

import numpy as np

from primafacie.principal import principal_arrays
from primafacie.principal.frames import cond_name, counts_frame, quantity_frame, verdict_frame


def _result():
    # 4 people per (A, S=Y) pattern, one cell: 20 rows, A=0 (protected) rows 0, 1 mod 4
    a = np.array([0, 0, 1, 1] * 5)
    y = np.array([1, 0, 1, 0] * 5)
    return principal_arrays(a, y.copy(), y, protected="g", definitions=(1, 2))


def test_counts_frame_by_hand():
    frame = counts_frame(_result())
    assert len(frame) == 8 and frame["count"].sum() == 20
    # A=0, S=1, Y=1: 5 of the 10 protected people, so p = 0.5; S != Y never happens
    row = frame[(frame.A == 0) & (frame.S == 1) & (frame.Y == 1)].iloc[0]
    assert (row["count"], row["n_arm"], row["p"]) == (5, 10, 0.5)
    assert (frame[frame.S != frame.Y]["count"] == 0).all()


def test_the_result_methods_are_these_frames():
    res = _result()
    assert quantity_frame(res).equals(res.to_frame())
    assert verdict_frame(res).equals(res.summary())
    summ = verdict_frame(res)
    # identical groups (S = Y for everyone): nothing is refuted
    assert summ.set_index("definition").loc[[1, 2], "verdict"].tolist() == ["not refuted"] * 2
    assert cond_name("tau0") == "lp_tau1'|tau0'=0" and cond_name("tau1") == "lp_tau0'|tau1'=0"
    assert cond_name(res.joint) in set(quantity_frame(res)["quantity"])
