"""Tests of the report figures: deterministic SVG, the utility formulas, the DAG drawing."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from primafacie.report import plots


def _fig():
    fig, ax = plots._figure()
    ax.plot([0, 1, 2], [2, 0, 1], label="line")
    ax.legend()
    return fig


def test_svg_is_deterministic_inline_and_undated():
    a, b = plots.svg_of(_fig(), "t"), plots.svg_of(_fig(), "t")
    assert a == b
    assert a.startswith("<svg") and a.rstrip().endswith("</svg>")
    assert "<?xml" not in a and "DOCTYPE" not in a and "<dc:date>" not in a
    assert 'aria-label="t"' in a


def test_plots_return_none_when_columns_are_missing():
    empty = pd.DataFrame({"x": [1]})
    assert plots.situation_counts(empty) is None
    assert plots.delta_intervals(empty) is None
    assert plots.group_composition(empty) is None
    assert plots.cumulative_effectiveness(empty) is None
    assert plots.principal_intervals(empty) is None
    assert plots.certainty_plane(empty) is None


def test_plots_render_with_their_documented_columns():
    summary = pd.DataFrame({"method": ["st", "cst"] * 2, "k": [5, 5, 10, 10],
                            "cases": [3, 5, 4, 6], "significant": [1, 2, 2, 3]})  # fmt: skip
    frame = pd.DataFrame({"id": [1, 2, 3], "delta": [0.5, 0.2, -0.1], "ci_low": [0.2, -0.1, -0.4]})
    curves = pd.DataFrame({"group": ["a", "a", "b", "b"], "cost": [0, 1, 0, 2],
                           "effectiveness": [0, 0.5, 0, 0.9]})  # fmt: skip
    iv = pd.DataFrame({"label": ["x", "y"], "lower": [-0.1, 0.1], "upper": [0.2, 0.3]})
    plane = pd.DataFrame(
        {"name": ["m1", "m2"], "disparity": [0.1, 0.4], "uncertainty": [0.02, 0.1]}
    )
    comp = pd.DataFrame(
        {"group": ["control", "test"], "feature": ["x", "x"], "mean_z": [0.1, -0.2]}
    )
    for fig in (
        plots.situation_counts(summary),
        plots.delta_intervals(frame),
        plots.cumulative_effectiveness(curves, "t"),
        plots.principal_intervals(iv),
        plots.certainty_plane(plane, ["m1"], [(0.3, [0.2, 0.3], [0.0, 0.5])]),
        plots.group_composition(comp),
    ):
        svg = plots.svg_of(fig)
        assert "<svg" in svg and "<path" in svg


def test_scm_graph_has_every_node_escaped_and_arrows():
    svg = plots.scm_graph_svg(
        [("gender", "income"), ("income", "savings"), ("gender", "savings"), ("<b>", "income")],
        protected=["gender"],
    )
    for node in ("gender", "income", "savings"):
        assert f">{node}</text>" in svg
    assert "&lt;b&gt;" in svg and "<b>" not in svg
    assert svg.count("marker-end") == 4
    assert svg.count("#fde2c8") == 1  # one protected node drawn in orange


def test_scm_layers_follow_longest_path():
    layer = plots._layers(["a", "b", "c"], [("a", "b"), ("b", "c"), ("a", "c")])
    assert layer == {"a": 0, "b": 1, "c": 2}


def test_cumulative_effectiveness_keeps_a_group_without_recourse_visible():
    # group b never reaches recourse (effectiveness 0 at its only cost); group a reaches 100%
    curves = pd.DataFrame({"group": ["a", "a", "b"], "cost": [1.0, 3.0, 0.5],
                           "effectiveness": [0.5, 1.0, 0.0]})  # fmt: skip
    fig = plots.cumulative_effectiveness(curves)
    lines = {ln.get_label(): ln for ln in fig.axes[0].get_lines()}
    assert set(lines) == {"a", "b (never reaches recourse)"}
    a, b = lines["a"], lines["b (never reaches recourse)"]
    # every curve starts at (0, 0) and runs to the largest cost of any group (3.0)
    assert list(a.get_xdata()) == [0.0, 1.0, 3.0, 3.0]
    assert list(a.get_ydata()) == [0.0, 0.5, 1.0, 1.0]
    assert list(b.get_xdata()) == [0.0, 0.5, 3.0] and list(b.get_ydata()) == [0.0, 0.0, 0.0]
    assert b.get_linestyle() == "--" and not b.get_clip_on()  # drawn over the axis line
    assert b.get_zorder() > 2  # above the axes spines (zorder 2.5 at most for patches)
    lo, hi = fig.axes[0].get_ylim()
    assert lo < 0 < 1 < hi
    plt_close(fig)


def test_cumulative_effectiveness_groups_with_equal_curves_stay_apart():
    curves = pd.DataFrame({"group": ["a", "b"], "cost": [1.0, 1.0],
                           "effectiveness": [0.4, 0.4]})  # fmt: skip
    fig = plots.cumulative_effectiveness(curves)
    styles = [ln.get_linestyle() for ln in fig.axes[0].get_lines()]
    assert styles == ["-", "--"]  # identical steps, told apart by their line style
    plt_close(fig)


def plt_close(fig):
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_labels_from_data_are_never_parsed_as_mathtext():
    labels = ["$", "$$", "a$b$c", r"\$x$", "[/]", "\x1b[31m"]
    fig, ax = plots._figure()
    ax.barh(range(len(labels)), range(len(labels)), label="$")
    ax.set_yticks(range(len(labels)), labels)
    ax.set_title("$$")
    ax.legend()
    plots.tight_layout(fig)  # lays out (measures) every text
    svg = plots.svg_of(fig)
    for text in ["$$", "a$b$c", r"\$x$"]:
        assert f">{text}<" in svg.replace("&#x27;", "'"), text
    frame = pd.DataFrame(
        {"method": ["$", "$$"], "k": [5, 5], "cases": [3, 4], "significant": [1, 2]}
    )
    assert "$$" in plots.svg_of(plots.situation_counts(frame))


def test_delta_intervals_of_positive_discrimination_use_the_upper_bound():
    """(−∞, upper bound]: the line runs from Δp to ci_high, the most negative Δp comes first,
    significance is the upper bound below τ, and an infinite ci_low or a NaN bound (an
    untested row) never reaches the axis limits."""
    frame = pd.DataFrame({"id": [1, 2, 3, 4], "delta": [-0.5, 0.1, -0.2, np.nan],
                          "ci_low": [-np.inf] * 4, "ci_high": [-0.2, 0.4, 0.1, np.nan]})  # fmt: skip
    fig = plots.delta_intervals(frame, direction="positive")
    ax = fig.axes[0]
    assert ax.get_xlim() == (-1.02, pytest.approx(0.45))
    assert [t.get_text() for t in ax.get_yticklabels()] == ["1", "3", "2"]
    sig, not_sig = ax.collections[1], ax.collections[2]  # hlines, then the two scatters
    assert sig.get_offsets()[:, 0].tolist() == [-0.5]
    assert sorted(not_sig.get_offsets()[:, 0].tolist()) == [-0.2, 0.1]
    assert plots.delta_intervals(frame.drop(columns="ci_high"), direction="positive") is None
    nan_only = frame.assign(ci_low=np.nan)
    assert plots.delta_intervals(nan_only).axes[0].get_xlim() == (-0.05, 1.02)
