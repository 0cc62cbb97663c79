"""The certainty analysis in an audit: run adapter (through the spec) and report section."""

from types import SimpleNamespace

import numpy as np
import pandas as pd

from primafacie.analysis import Context
from primafacie.certainty import DEFAULT_DECISION_MAKER
from primafacie.certainty.analysis import ANALYSIS, run, section
from primafacie.certainty.spec import CertaintySpec
from primafacie.data import AuditData


def _data():
    # Figure 1 of the paper: 3 of 3 yellow hired, 0 of 3 blue
    df = pd.DataFrame({"colour": ["yellow"] * 3 + ["blue"] * 3, "A": [1, 1, 1, 0, 0, 0]})
    return AuditData(df, features={}, protected={"colour": "blue"}, decision="A")


def test_run_ranks_the_audited_decision_under_the_default_name():
    ctx = Context(config=SimpleNamespace(decision_makers=lambda: {}), data=_data())
    out = run(CertaintySpec(), ctx)
    res = out.results["ranking"]
    assert res.selected == (DEFAULT_DECISION_MAKER,)
    # disparity 1 between yellow (3 of 3) and blue (0 of 3); uncertainty
    # (18*4*1/(5^2*6) + 18*1*4/(5^2*6)) / 2 = 0.48
    assert (
        out.headline
        == res.headline()
        == (
            "Most certainly fair decision-maker (statistical parity): audited decision — "
            "disparity 1.000 between yellow (3 of 3) and blue (0 of 3), uncertainty 0.4800"
        )
    )
    assert (
        out.scope
        == res.scope()
        == (
            "1 decision-maker(s) (audited decision) on 6 people in 2 groups of colour (blue, "
            "yellow); criterion statistical parity: each rate is k of n rows of a group"
        )
    )
    assert out.caveats == ()
    assert set(out.tables) == {
        "certainty_ranking",
        "certainty_ranking_summary",
        "certainty_group_counts",
    }


def test_section_reads_prior_and_level_from_the_result():
    ctx = Context(config=SimpleNamespace(decision_makers=lambda: {}), data=_data())
    out = run(CertaintySpec(), ctx)
    sec = section(out, None, {})
    text = str(sec["blocks"])
    assert "ci = 95% credible interval of the rate (Beta(1, 1) prior)" in text
    assert sec["findings"][-1].startswith("audited decision (rank 1)")


def test_definition():
    assert ANALYSIS.name == "certainty" and ANALYSIS.spec is CertaintySpec


def test_the_plane_curves_are_u_topsis_level_sets_inside_the_square():
    from primafacie.certainty.analysis import PLANE_LEVELS, plane_curves
    from primafacie.certainty.utility import u_topsis

    curves = plane_curves()
    assert [c for c, _, _ in curves] == list(PLANE_LEVELS)
    for c, d, s in curves:
        assert len(d) and ((d >= 0) & (d <= 1)).all()
        np.testing.assert_allclose(u_topsis(d, s), c, atol=1e-12)
    # u = 0 is the vertical line δ = 0.5 (paper eq. 19), by hand
    (_, d0, _) = next(x for x in curves if x[0] == 0.0)
    np.testing.assert_array_equal(d0, 0.5)


def test_accuracy_is_shown_as_k_of_n_when_every_decision_maker_has_one():
    """The accuracy column was a bare 0.633 with no count."""
    from primafacie.certainty.analysis import tables

    df = pd.DataFrame({"colour": ["yellow"] * 3 + ["blue"] * 3, "A": [1, 1, 1, 0, 0, 0],
                       "y": [1, 0, 1, 0, 0, 1]})  # fmt: skip
    data = AuditData(df, features={}, protected={"colour": "blue"}, decision="A", outcome="y")
    ctx = Context(config=SimpleNamespace(decision_makers=lambda: {}), data=data)
    res = run(CertaintySpec(criterion="equal_opportunity"), ctx).results["ranking"]
    (table,) = tables(res)
    cell = table["rows"][0][table["columns"].index("accuracy")][0]
    row = res.to_frame().iloc[0]
    k, n = int(row["accuracy_k"]), int(row["accuracy_n"])
    assert (k, n) == (4, 6) and cell == "66.7% (4 of 6)"
    (table,) = tables(run(CertaintySpec(), Context(
        config=SimpleNamespace(decision_makers=lambda: {}), data=_data())).results["ranking"])  # fmt: skip
    assert "of" not in str(table["rows"][0][table["columns"].index("accuracy")][0])
