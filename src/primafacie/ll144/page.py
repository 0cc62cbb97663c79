"""The one-page published summary of a Local Law 144 bias audit (HTML), from its Result."""

from __future__ import annotations

from typing import Any

__all__ = ["summary_page"]


def summary_page(res: Any, audit_date: str | None, distribution_date: str | None,
                 data_source: str | None) -> str:  # fmt: skip
    """The summary the rule asks an employer to publish, as one self-contained HTML page.

    Every value is escaped text; the page loads nothing (a no-network Content-Security-Policy).
    """
    from .. import __version__
    from ..report.html import template_environment

    dims = []
    for dim, rows in res.table.groupby("dimension", sort=False):
        dims.append(
            (
                dim,
                [
                    {
                        "category": r.category,
                        "n": int(r.n),
                        "rate": f"{100 * r.rate:.1f}% ({r.k} of {r.n})",
                        "ratio": "excluded" if r.excluded else f"{r.impact_ratio:.3f}",
                    }
                    for r in rows.itertuples()
                ],
            )
        )
    return template_environment().get_template("ll144_summary.html").render(
        audit_date=audit_date, distribution_date=distribution_date, data_source=data_source,
        n=res.n, rate_name=res.rate_name, median=res.median, unknown=list(res.unknown.items()),
        dimensions=dims, exclude=f"{100 * res.exclude_below:g}", version=__version__,
    )  # fmt: skip
