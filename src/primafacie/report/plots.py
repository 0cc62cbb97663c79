"""Figures of the audit report: matplotlib figures rendered to deterministic inline SVG.

Every plot function takes plain tables (pandas DataFrames with documented columns) and returns a
matplotlib Figure, or ``None`` when the table lacks what the plot needs, so the report can say
so instead of failing. :func:`svg_of` turns a Figure into an ``<svg>`` string whose bytes depend
only on the figure's content (fixed hash salt, no date), which keeps report.html byte-identical
across runs. :func:`scm_graph_svg` draws the causal DAG directly as SVG (a layered layout, no
graphviz).
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from collections.abc import Iterator, Sequence
from html import escape
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "svg_of",
    "window_trend",
    "plain_text",
    "tight_layout",
    "group_rates",
    "situation_counts",
    "delta_intervals",
    "group_composition",
    "cumulative_effectiveness",
    "principal_intervals",
    "certainty_plane",
    "scm_graph_svg",
]

#: Fixed salt for matplotlib's SVG element ids (otherwise random per run).
SVG_HASH_SALT = "primafacie"
PALETTE = ["#1f5fa8", "#d9822b", "#2e8b57", "#a23b72", "#6c757d", "#b8860b", "#17a2b8"]


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def _figure(width: float = 7.0, height: float = 3.6) -> tuple[Any, Any]:
    plt = _plt()
    with plt.rc_context({"font.size": 9, "axes.spines.top": False, "axes.spines.right": False}):
        fig, ax = plt.subplots(figsize=(width, height), dpi=100)
    return fig, ax


def window_trend(
    series: list[tuple[str, Any]],
    windows: Any,
    value: str,
    ylabel: str,
    hline: float | None = None,
) -> Any:
    """One line per series across the time windows, each point with its interval bar
    (``<value>_low`` to ``<value>_high``); points of small windows (``window_small``) are
    hollow and small windows are labelled ``(small)`` on the axis.

    Parameters
    ----------
    series
        ``[(label, rows)]``: the rows of one line (``window``, ``window_small``, ``value``
        and its bounds), in drawing order; lines are offset slightly so bars do not overlap.
    windows
        The window table (``window``, ``small``), in axis order.
    value, ylabel
        The column drawn and the y-axis label.
    hline
        A dashed reference line (e.g. four-fifths), or none.

    Returns
    -------
    matplotlib.figure.Figure
    """
    order = list(windows["window"])
    x_of = {w: i for i, w in enumerate(order)}
    fig, ax = _figure(7.0, 3.6)
    for j, (label, g) in enumerate(series):
        x = g["window"].map(x_of).to_numpy(float) + (j - len(series) / 2) * 0.04
        y = g[value].to_numpy(float)
        err = np.vstack([y - g[f"{value}_low"].to_numpy(float),
                         g[f"{value}_high"].to_numpy(float) - y])  # fmt: skip
        line = ax.errorbar(x, y, yerr=np.clip(err, 0, None), marker="o", ms=4, capsize=2, lw=1,
                           label=label)  # fmt: skip
        small = g["window_small"].to_numpy(bool)
        ax.plot(x[small], y[small], "o", ms=7, mfc="white", color=line[0].get_color())
    if hline is not None:
        ax.axhline(hline, ls="--", lw=0.8, color="grey")
    small_w = set(windows.loc[windows["small"], "window"])
    ax.set_xticks(range(len(order)))
    ax.set_xticklabels([f"{w}\n(small)" if w in small_w else w for w in order], fontsize=7,
                       rotation=45 if len(order) > 8 else 0)  # fmt: skip
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=7, frameon=False, loc="best")
    return fig


#: Text from data (a region called ``$``, an id ``$$x$$``) is shown as typed, never parsed as
#: mathtext, which raises on an unbalanced ``$`` (no label of ours uses mathtext).
_PLAIN = {"text.parse_math": False, "text.usetex": False}


def plain_text(fig: Any) -> Any:
    """Turn off mathtext and TeX on every text of ``fig`` (titles, labels, legends, tick
    labels, annotations), so a label from the data cannot crash the drawing, and show its
    control characters as code points (:func:`~primafacie.formats.visible_controls`);
    returns ``fig``.

    Tick labels made later, while drawing, are covered by drawing under the same settings
    (:func:`svg_of`, :func:`tight_layout`).

    Examples
    --------
    >>> fig, ax = _figure(); _ = ax.set_title("$"); _ = ax.set_xticks([0, 1], ["$$", "a$b$"])
    >>> "$$" in svg_of(plain_text(fig))
    True
    """
    from matplotlib.text import Text

    from ..formats import visible_controls

    for text in fig.findobj(Text):
        text.set_parse_math(False)
        text.set_usetex(False)
        shown = visible_controls(text.get_text())  # no glyph: a warning with the raw bytes
        if shown != text.get_text():
            text.set_text(shown)
    return fig


def tight_layout(fig: Any) -> None:
    """``fig.tight_layout()`` with every text plain (:func:`plain_text`): laying out measures
    the texts, which would parse a label from the data as mathtext."""
    import matplotlib

    plain_text(fig)
    with matplotlib.rc_context(_PLAIN), _no_glyph_warning():
        fig.tight_layout()


@contextlib.contextmanager
def _no_glyph_warning() -> Iterator[None]:
    """matplotlib's "Glyph 7 (\\x07) missing from font" carries the data's raw control bytes
    (a tick label made while drawing, which :func:`plain_text` cannot reach) to the terminal."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .* missing from font")
        yield


def svg_of(fig: Any, title: str | None = None) -> str:
    """Render a matplotlib Figure as a deterministic inline ``<svg>`` element and close it.

    Parameters
    ----------
    fig
        A matplotlib Figure.
    title
        Accessible name (``aria-label``) of the image.

    Returns
    -------
    str
        The ``<svg ...>...</svg>`` markup without XML prolog or DOCTYPE, so it can be inlined.

    Examples
    --------
    >>> fig, ax = _figure(); _ = ax.plot([0, 1], [0, 1])
    >>> svg_of(fig).startswith("<svg")
    True
    """
    import matplotlib

    plt = _plt()
    buf = io.StringIO()
    rc = {"svg.hashsalt": SVG_HASH_SALT, "svg.fonttype": "none", "svg.image_inline": True}
    plain_text(fig)
    with matplotlib.rc_context({**rc, **_PLAIN}), _no_glyph_warning():
        fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight")
    plt.close(fig)
    text = buf.getvalue()
    start = text.find("<svg")
    svg = text[start:].strip()
    label = escape(title or "figure", quote=True)
    svg = svg.replace("<svg ", f'<svg role="img" aria-label="{label}" class="plot" ', 1)
    # Fixed pixel sizes would overflow narrow screens; the viewBox keeps the aspect ratio.
    svg = re.sub(r'(<svg[^>]*?) width="[^"]*" height="[^"]*"', r"\1", svg, count=1)
    return svg


# ---------------------------------------------------------------------- situation testing
def situation_counts(summary: pd.DataFrame) -> Any:
    """Bars of flagged and significant complainants by method and k.

    ``summary`` needs columns ``method``, ``k``, ``cases`` (or ``n_flagged``) and
    ``significant``; an optional ``dimension`` column prefixes the row labels, and with a
    ``denominator`` column the bars show shares (%) instead of counts.
    """
    cols = {c.lower(): c for c in summary.columns}
    flag = cols.get("n_flagged") or cols.get("flagged") or cols.get("cases")
    sig = cols.get("n_significant") or cols.get("significant")
    if summary.empty or not {"method", "k"} <= set(cols) or flag is None:
        return None
    df = summary.copy()
    share = "denominator" in cols
    if share:  # tests have different denominators: compare shares, not raw counts
        den = df[cols["denominator"]].astype(float).where(lambda d: d > 0)
        df[flag] = 100 * df[flag] / den
        if sig is not None:
            df[sig] = 100 * df[sig] / den
    if "dimension" in cols:
        df["label"] = df[cols["dimension"]].astype(str) + " · " + df[cols["method"]].astype(str)
    else:
        df["label"] = df[cols["method"]].astype(str)
    labels = list(dict.fromkeys(df["label"]))
    ks = sorted(df[cols["k"]].dropna().unique())
    fig, ax = _figure(7.2, 0.35 * max(len(labels), 3) * max(len(ks), 1) / 1.6 + 1.4)
    height = 0.8 / max(len(ks), 1)
    for j, k in enumerate(ks):
        sub = df[df[cols["k"]] == k].set_index("label").reindex(labels)
        y = np.arange(len(labels)) + j * height
        ax.barh(y, sub[flag].fillna(0), height=height * 0.95, color=PALETTE[j % 7], alpha=0.35,
                label=f"k={k} flagged")  # fmt: skip
        if sig is not None:
            ax.barh(y, sub[sig].fillna(0), height=height * 0.95, color=PALETTE[j % 7],
                    label=f"k={k} significant")  # fmt: skip
    ax.set_yticks(np.arange(len(labels)) + height * (len(ks) - 1) / 2, labels)
    ax.invert_yaxis()
    ax.set_xlabel("% of protected individuals" if share else "complainants (count)")
    ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.set_title("Cases of potential discrimination by method and k (dark = significant)")
    return fig


def delta_intervals(
    frame: pd.DataFrame, top: int = 20, tau: float = 0.0, direction: str | None = "negative"
) -> Any:
    """Δp with its one-sided interval for the ``top`` strongest complainants.

    ``frame`` needs ``delta`` and the interval's bound: ``ci_low`` (negative discrimination,
    interval [lower bound, ∞), largest Δp first) or, with ``direction="positive"``, ``ci_high``
    (interval (−∞, upper bound], most negative Δp first). An ``id`` or ``complainant`` column
    labels rows. A ``significant_adjusted`` column, when present, colours the points (the
    verdict after the multiple-testing correction in force, issue 23); else the interval does
    (the bound beyond τ).
    """
    positive = direction == "positive"
    bound = "ci_high" if positive else "ci_low"
    if frame.empty or not {"delta", bound} <= set(frame.columns):
        return None
    df = frame.dropna(subset=["delta"]).sort_values("delta", ascending=positive, kind="stable")
    df = df.head(top)
    if df.empty:
        return None
    label_col = next((c for c in ("id", "complainant", "row") if c in df.columns), None)
    labels = df[label_col].astype(str).tolist() if label_col else [str(i) for i in df.index]
    fig, ax = _figure(7.0, 0.22 * len(df) + 1.2)
    y = np.arange(len(df))
    b = df[bound].to_numpy(dtype=float)
    d = df["delta"].to_numpy(dtype=float)
    adjusted = "significant_adjusted" in df.columns
    beyond = b < tau if positive else b > tau
    sig = df["significant_adjusted"].to_numpy(dtype=bool) if adjusted else beyond
    after = " after adjustment" if adjusted else ""
    shown = "(−∞, upper bound]" if positive else "[lower bound, ∞)"
    ax.hlines(y, b, d, color="#888888", lw=1.5)
    ax.plot([], [], color="#888888", lw=1.5, label=f"one-sided interval {shown}")
    ax.scatter(d[sig], y[sig], color=PALETTE[1], zorder=3, s=18, label=f"Δp, significant{after}")
    ax.scatter(d[~sig], y[~sig], color=PALETTE[0], zorder=3, s=18, label="Δp, not significant")
    ax.axvline(tau, color="black", lw=0.8, ls="--")
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    finite = b[np.isfinite(b)]  # a bound is NaN where the test was undefined
    if positive:
        ax.set_xlim(-1.02, max(0.05, float(finite.max()) + 0.05 if finite.size else 0.05))
    else:
        ax.set_xlim(min(-0.05, float(finite.min()) - 0.05 if finite.size else -0.05), 1.02)
    ax.set_xlabel("Δp = rejection rate among similar protected − among similar non-protected")
    ax.set_ylabel("complainant id")
    ax.legend(fontsize=7, frameon=False, loc="lower right" if positive else "lower left")
    return fig


def group_composition(composition: pd.DataFrame) -> Any:
    """Control vs test group: mean of each feature (standardised) for the top complainants.

    ``composition`` has one row per (group, feature) with columns ``group`` (``control`` /
    ``test``), ``feature`` and ``mean_z`` (mean of the standardised feature over the group's
    members, averaged over complainants) and optionally ``rejected_share``.
    """
    need = {"group", "feature", "mean_z"}
    if composition.empty or not need <= set(composition.columns):
        return None
    piv = composition.pivot_table(index="feature", columns="group", values="mean_z", sort=False)
    fig, ax = _figure(7.0, 0.3 * len(piv) + 1.3)
    y = np.arange(len(piv))
    for j, grp in enumerate(piv.columns):
        ax.barh(y + j * 0.4, piv[grp].to_numpy(), height=0.38, color=PALETTE[j], label=str(grp))
    ax.set_yticks(y + 0.2, list(piv.index))
    ax.invert_yaxis()
    ax.axvline(0, color="black", lw=0.6)
    ax.set_xlabel("group mean, in standard deviations from the population mean")
    ax.legend(fontsize=8, frameon=False)
    return fig


# ---------------------------------------------------------------------- group metrics
def group_rates(
    frame: pd.DataFrame, ax: Any = None, max_groups: int = 40, level: float = 0.95
) -> Any:
    """Rates with their intervals per group, one panel row per group, one colour per metric.

    ``frame`` needs ``attribute``, ``group``, ``metric`` (a label), ``rate``, ``ci_low`` and
    ``ci_high``; an optional ``role`` column marks the reference group (its rate of the first
    metric is drawn as a dashed line per attribute block) and ``small`` adds "(small)" to the
    label. Groups beyond ``max_groups`` are left out of the figure (the table has them all);
    ``level`` is the intervals' level, named on the axis.

    Examples
    --------
    >>> df = pd.DataFrame({"attribute": "sex", "group": ["f", "m"], "metric": "selection rate",
    ...                    "rate": [0.2, 0.5], "ci_low": [0.1, 0.4], "ci_high": [0.3, 0.6],
    ...                    "role": ["protected", "reference"]})
    >>> group_rates(df).axes[0].get_xlabel()
    'rate (95% interval)'
    """
    need = {"attribute", "group", "metric", "rate", "ci_low", "ci_high"}
    if frame.empty or not need <= set(frame.columns):
        return None
    keys = list(dict.fromkeys(zip(frame["attribute"], frame["group"], strict=True)))
    keys = keys[:max_groups]
    row = {key: i for i, key in enumerate(keys)}
    metrics = list(dict.fromkeys(frame["metric"]))
    if ax is None:
        fig, ax = _figure(7.0, 0.26 * len(keys) + 1.4)
    else:
        fig = ax.figure
    step = 0.7 / max(len(metrics), 1)
    for j, metric in enumerate(metrics):
        sub = frame[(frame["metric"] == metric)]
        sub = sub[[k in row for k in zip(sub["attribute"], sub["group"], strict=True)]]
        y = np.array([row[k] for k in zip(sub["attribute"], sub["group"], strict=True)], float)
        y = y + (j - (len(metrics) - 1) / 2) * step
        rate = sub["rate"].to_numpy(dtype=float)
        ax.hlines(y, sub["ci_low"].to_numpy(dtype=float), sub["ci_high"].to_numpy(dtype=float),
                  color=PALETTE[j % len(PALETTE)], lw=1.6)  # fmt: skip
        ax.scatter(rate, y, color=PALETTE[j % len(PALETTE)], s=16, zorder=3, label=str(metric))
    if "role" in frame.columns:
        ref = frame[(frame["role"] == "reference") & (frame["metric"] == metrics[0])]
        for r in ref.itertuples():
            rows = [i for (a, _), i in row.items() if a == r.attribute]
            if rows and np.isfinite(r.rate):
                ax.vlines(r.rate, min(rows) - 0.45, max(rows) + 0.45, color="black", lw=0.8,
                          ls="--")  # fmt: skip
    small = {}
    if "small" in frame.columns:
        small = dict(zip(zip(frame["attribute"], frame["group"], strict=True),
                         frame["small"].astype(bool), strict=True))  # fmt: skip
    labels = [f"{a}: {g}" + (" (small)" if small.get((a, g)) else "") for a, g in keys]
    ax.set_yticks(np.arange(len(keys)), labels)
    ax.invert_yaxis()
    ax.set_xlim(-0.02, 1.02)
    ax.set_xlabel(f"rate ({100 * level:g}% interval)")
    ax.legend(fontsize=8, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.12 - 0.6 / (len(keys) + 2)),
              ncol=max(len(metrics), 1))  # fmt: skip
    return fig


# ---------------------------------------------------------------------- recourse
def cumulative_effectiveness(curves: pd.DataFrame, title: str = "") -> Any:
    """Cumulative effectiveness (share of the group that recovers) against action cost.

    ``curves`` needs columns ``group``, ``cost`` and ``effectiveness`` (0..1), one row per
    point of each group's curve. Every curve starts at (0, 0) and runs to the largest cost of
    any group, so a group that never reaches recourse shows as a line along 0 (drawn above the
    axis, dashed, and named "never reaches recourse" in the legend) instead of vanishing, and
    groups with identical curves stay apart through their line styles.

    Examples
    --------
    >>> c = pd.DataFrame({"group": ["a", "a", "b"], "cost": [1.0, 2.0, 0.0],
    ...                   "effectiveness": [0.5, 1.0, 0.0]})
    >>> fig = cumulative_effectiveness(c)
    >>> [ln.get_label() for ln in fig.axes[0].get_lines()]
    ['a', 'b (never reaches recourse)']
    """
    if curves.empty or not {"group", "cost", "effectiveness"} <= set(curves.columns):
        return None
    finite = curves["cost"].replace([np.inf, -np.inf], np.nan).dropna()
    x_end = float(finite.max()) if len(finite) else 1.0
    x_end = x_end if x_end > 0 else 1.0
    fig, ax = _figure(5.2, 3.0)
    styles = ["-", "--", "-.", ":"]
    for j, (grp, sub) in enumerate(curves.groupby("group", sort=False)):
        sub = sub[np.isfinite(sub["cost"].to_numpy(dtype=float))].sort_values("cost", kind="stable")
        x = np.concatenate([[0.0], sub["cost"].to_numpy(dtype=float), [x_end]])
        last = float(sub["effectiveness"].iloc[-1]) if len(sub) else 0.0
        y = np.concatenate([[0.0], sub["effectiveness"].to_numpy(dtype=float), [last]])
        never = not np.nanmax(y) > 0
        ax.step(x, y, where="post", color=PALETTE[j % 7], lw=2.0 if never else 1.6,
                ls="--" if never else styles[j % len(styles)], zorder=3 + j, clip_on=False,
                label=f"{grp} (never reaches recourse)" if never else str(grp))  # fmt: skip
    ax.set_xlim(0, x_end * 1.02)
    ax.set_ylim(-0.04, 1.04)
    ax.set_xlabel("cost of the action")
    ax.set_ylabel("share of the group that gets the\nfavourable decision (cumulative)")
    ax.legend(fontsize=8, frameon=False, loc="center right")
    if title:
        ax.set_title(title, fontsize=9)
    return fig


# ---------------------------------------------------------------------- principal strata
def principal_intervals(frame: pd.DataFrame) -> Any:
    """Bounds of τ (and LP feasibility intervals) per definition and cell.

    ``frame`` needs ``label`` (e.g. "Def 1 · τ1 · all"), ``lower`` and ``upper``; an optional
    ``kind`` (``bounds`` / ``lp``) colours the interval.
    """
    if frame.empty or not {"label", "lower", "upper"} <= set(frame.columns):
        return None
    df = frame.reset_index(drop=True)
    fig, ax = _figure(7.0, 0.32 * len(df) + 1.2)
    y = np.arange(len(df))
    kinds = df["kind"].astype(str) if "kind" in df.columns else pd.Series(["bounds"] * len(df))
    for j, kind in enumerate(dict.fromkeys(kinds)):
        m = (kinds == kind).to_numpy()
        ax.hlines(y[m], df["lower"][m], df["upper"][m], color=PALETTE[j], lw=4, label=kind)
        ax.scatter(df["lower"][m], y[m], color=PALETTE[j], s=10)
        ax.scatter(df["upper"][m], y[m], color=PALETTE[j], s=10)
    ax.axvline(0, color="black", lw=0.8, ls="--")
    ax.set_yticks(y, df["label"].astype(str).tolist())
    ax.invert_yaxis()
    ax.set_xlabel("difference in favourable-decision rate within the stratum (0 = fair)")
    ax.legend(fontsize=8, frameon=False)
    ax.set_title("An interval that excludes 0 proves unfairness; one that contains 0 cannot")
    return fig


# ---------------------------------------------------------------------- certainty
def certainty_plane(
    frame: pd.DataFrame,
    selected: Sequence[str] = (),
    curves: Sequence[tuple[float, Any, Any]] = (),
) -> Any:
    """Decision-makers in the (disparity, uncertainty) plane with the indifference curves given.

    ``frame`` needs ``name``, ``disparity`` and ``uncertainty``; the ``selected`` names are
    ringed; ``curves`` are ``(level, disparity, uncertainty)`` arrays of the utility's level
    sets, computed by the analysis (:func:`primafacie.certainty.utility.indifference_curve`),
    drawn grey (level 0 dashed) and labelled at their last point.
    """
    if frame.empty or not {"name", "disparity", "uncertainty"} <= set(frame.columns):
        return None
    fig, ax = _figure(5.6, 4.2)
    for c, d, s in curves:
        d, s = np.asarray(d, dtype=float), np.asarray(s, dtype=float)
        ax.plot(d, s, color="#bbbbbb", lw=0.8, ls="-" if c else "--")
        if len(d):
            ax.annotate(f"u={c:g}", (d[-1], s[-1]), fontsize=7, color="#777777")
    xmax = max(0.6, float(frame["disparity"].max()) * 1.2)
    ymax = max(0.05, float(frame["uncertainty"].max()) * 1.3)
    for j, row in enumerate(frame.itertuples(index=False)):
        chosen = row.name in set(selected)
        ax.scatter([row.disparity], [row.uncertainty], s=60 if chosen else 30,
                   color=PALETTE[j % 7], edgecolor="black" if chosen else "none",
                   linewidth=1.5, zorder=3, label=f"{row.name}{' (selected)' if chosen else ''}")  # fmt: skip
    ax.set_xlim(0, min(1.0, xmax))
    ax.set_ylim(0, min(1.0, ymax))
    ax.set_xlabel("disparity δ (gap in favourable-decision rate)")
    ax.set_ylabel("uncertainty σ̄² (normalised posterior variance)")
    ax.legend(fontsize=7, frameon=False, loc="upper right")
    ax.set_title("Lower-left is certainly fair; grey lines join equally preferred points")
    return fig


# ---------------------------------------------------------------------- causal graph
def _layers(nodes: list[str], edges: list[tuple[str, str]]) -> dict[str, int]:
    """Longest-path layer of every node (roots at 0); the DAG is validated upstream."""
    parents: dict[str, list[str]] = {n: [] for n in nodes}
    for a, b in edges:
        parents[b].append(a)
    layer: dict[str, int] = {}

    def depth(n: str, seen: tuple[str, ...] = ()) -> int:
        if n in layer:
            return layer[n]
        if n in seen:  # a cycle: keep drawing rather than recurse forever
            return 0
        layer[n] = 1 + max((depth(p, (*seen, n)) for p in parents[n]), default=-1)
        return layer[n]

    for n in nodes:
        depth(n)
    return layer


def scm_graph_svg(
    edges: Sequence[Sequence[str]],
    protected: Sequence[str] = (),
    outcome: str | None = None,
    extra_nodes: Sequence[str] = (),
) -> str:
    """The causal DAG as a small self-contained SVG (layered left to right).

    Parameters
    ----------
    edges
        ``(parent, child)`` pairs.
    protected
        Protected attributes (drawn in orange).
    outcome
        Optional node drawn in green (e.g. the decision).
    extra_nodes
        Nodes without edges to show too.

    Returns
    -------
    str
        ``<svg>`` markup; node names are escaped.

    Examples
    --------
    >>> svg = scm_graph_svg([("gender", "income")], protected=["gender"])
    >>> "gender" in svg and svg.startswith("<svg")
    True
    """
    edge_list = [(str(a), str(b)) for a, b in edges]
    nodes = list(dict.fromkeys([n for e in edge_list for n in e] + [str(n) for n in extra_nodes]))
    if not nodes:
        return '<svg role="img" aria-label="empty causal graph" width="10" height="10"></svg>'
    layer = _layers(nodes, edge_list)
    by_layer: dict[int, list[str]] = {}
    for n in nodes:
        by_layer.setdefault(layer[n], []).append(n)
    col_w, row_h, box_w, box_h, pad = 170, 54, 130, 30, 20
    n_rows = max(len(v) for v in by_layer.values())
    span_max = max((layer[b] - layer[a] for a, b in edge_list), default=1)
    # Edges that skip layers arc above the rows so they do not cross the boxes in between.
    top = pad + 14 * max(span_max - 1, 0)
    width = pad * 2 + col_w * (max(by_layer) + 1) - (col_w - box_w)
    height = 2 * top + row_h * n_rows
    pos: dict[str, tuple[float, float]] = {}
    for lay, members in sorted(by_layer.items()):
        offset = (n_rows - len(members)) * row_h / 2
        for i, n in enumerate(members):
            pos[n] = (pad + lay * col_w, top + offset + i * row_h)
    parts = [
        f'<svg role="img" aria-label="causal graph" class="dag" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" xmlns="http://www.w3.org/2000/svg">',
        '<defs><marker id="dag-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
        'fill="#555"/></marker></defs>',
    ]
    for a, b in edge_list:
        (xa, ya), (xb, yb) = pos[a], pos[b]
        span = layer[b] - layer[a]
        if span > 1:
            members = by_layer[layer[a]]
            below = len(members) > 1 and members.index(a) >= len(members) / 2
            x1, y1 = xa + box_w, ya + box_h / 2
            x2 = xb + box_w / 2
            if below:
                y2 = yb + box_h
                lift = max(ya, yb) + box_h + 14 * (span - 1) + 10
            else:
                y2 = yb
                lift = min(ya, yb) - 14 * (span - 1) - 10
            d = f"M{x1:.1f},{y1:.1f} C{x1 + 30:.1f},{lift:.1f} {x2:.1f},{lift:.1f} {x2:.1f},{y2:.1f}"
        else:
            x1, y1 = xa + box_w, ya + box_h / 2
            x2, y2 = xb, yb + box_h / 2
            if span <= 0:  # same-layer edge (only in a cyclic input)
                x1, x2 = xa + box_w / 2, xb + box_w / 2
            mid = (x1 + x2) / 2
            d = f"M{x1:.1f},{y1:.1f} C{mid:.1f},{y1:.1f} {mid:.1f},{y2:.1f} {x2:.1f},{y2:.1f}"
        parts.append(
            f'<path d="{d}" fill="none" stroke="#555" stroke-opacity="0.75" stroke-width="1.2" '
            'marker-end="url(#dag-arrow)"/>'
        )
    prot = {str(p) for p in protected}
    for n in nodes:
        x, y = pos[n]
        fill = "#fde2c8" if n in prot else ("#d4edda" if n == outcome else "#e8eef7")
        stroke = "#d9822b" if n in prot else ("#2e8b57" if n == outcome else "#1f5fa8")
        parts.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{box_w}" height="{box_h}" rx="6" '
            f'fill="{fill}" stroke="{stroke}" stroke-width="1.5"/>'
            f'<text x="{x + box_w / 2:.1f}" y="{y + box_h / 2 + 4:.1f}" text-anchor="middle" '
            f'font-size="12" font-family="sans-serif">{escape(n)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
