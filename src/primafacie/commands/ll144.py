"""``primafacie ll144``: the NYC Local Law 144 bias audit tables and published summary.

Options, ``--config``, outputs and words are derived (:mod:`._analysis`) from the
declarations of :mod:`primafacie.ll144.params`; this module holds the help, the roles
(``--decision``, ``--favorable``, ``--category``), how the flags become the audited rows and
the files. ``rates.csv`` equals the audit's ``tables/ll144_rates.csv``.
"""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from ..ll144.params import PARAMS
from . import _data
from ._analysis import AnalysisCommand, role
from ._common import parse_pairs

# pandas and the engine are imported inside the functions: the CLI loads this module to render
# --help, which must not wait for them.

HELP = """NYC Local Law 144 bias audit (6 RCNY §5-301): for each sex category, each
race/ethnicity category and each intersectional category, the selection rate (or, with
score, the scoring rate: the share scoring above the median) and the impact ratio against the
category with the highest rate. Categories under exclude_below (2%) of the data are listed
but left out of the ratios; individuals of unknown category are counted apart.

Example (the hiring decisions of 2024 in a semicolon-separated Latin-1 file, rows with a
missing decision dropped):

    primafacie ll144 --data hiring.csv --sep ";" --encoding latin-1 \\
        --decision hired --favorable 1 \\
        --category sex=gender --category race/ethnicity=race \\
        --where "year == 2024" --dropna hired --audit-date 2026-11-26 \\
        --out out/ll144

or with an audit.yaml holding `analyses: {ll144: {categories: {sex: gender, race/ethnicity:
race}, audit_date: 2026-11-26}}`:

    primafacie ll144 --config audit.yaml --out out/ll144

Writes summary.html (the one-page summary the rule asks to publish), rates.csv,
unknown.csv and ll144.json to --out; nothing is written when the input is bad (exit 2).
"""


def _score(value: Any) -> Any:
    """``--score``: true or false (any case) as booleans, anything else a column."""
    return {"true": True, "false": False}.get(str(value).lower(), value)


class LL144(AnalysisCommand):
    """``primafacie ll144`` (the help text is :data:`HELP`)."""

    name, help, params = "ll144", HELP, PARAMS
    no_data = ("give --data FILE (with --decision and --category) or --config FILE "
               "(an audit.yaml with an analyses.ll144 section)")  # fmt: skip
    config_help, bullet = "audit.yaml with analyses.ll144.", None
    roles = (
        role("data", "CSV, Parquet or Excel table."),
        role("decision", "Decision column (the score column with --score true)."),
        role("favorable"),
        role("category", "LABEL=COLUMN: a category of the rule, e.g. sex=gender (repeat).",
             list[str], []),
    )  # fmt: skip
    parsers = {"score": _score, "unknown": lambda values: [_data.scalar(v) for v in values]}

    def more_keys(self, v: dict[str, Any]) -> dict[str, Any]:
        """``categories`` from the repeated ``--category LABEL=COLUMN`` (after the decision,
        which the rates need first)."""
        if v["decision"] is None:
            raise InputError("give --decision COL (the decision, or the score with --score)")
        categories = dict(parse_pairs(v["category"], "--category", "LABEL=COLUMN"))
        if not categories:
            raise InputError(
                "give at least one --category LABEL=COLUMN, e.g. --category sex=gender"
            )
        return {"categories": categories}

    def from_flags(self, spec: Any, v: dict[str, Any], reading: dict[str, Any]) -> tuple:
        """The rule's tables on the rows the flags describe (read by the configuration's
        reader, :func:`_data.read_frame`), with the spec for the summary page."""
        from ..data import AuditData
        from ..ll144.analysis import score_values

        decision, columns = v["decision"], list(spec.categories.values())
        roles = {"protected": columns, "decision": {"column": decision}}
        frame = _data.read_frame(reading, v["data"], "ll144", roles,
                                 {"categories": spec.categories})  # fmt: skip
        _data.check_columns_of(frame, [("--decision", decision),
                                       *(("--category", c) for c in columns)])  # fmt: skip
        if spec.score is False:
            data = AuditData(frame, features={}, protected={}, decision=decision,
                             favorable=_data.scalar(v["favorable"]))  # fmt: skip
            selected, score, frame = data.decision_array(), None, data.frame
        else:  # a score is not a 0/1 decision: read it as it is (--score true: --decision's column)
            column = decision if spec.score is True else spec.score
            _data.check_columns_of(frame, [("--score", column)])
            selected, score = None, score_values(frame, column, "--score")
        return (spec, spec.build().run(frame, selected=selected, score=score)), (v["data"],)

    def from_run(self, run: Any, cfg: Any, audit: Any, v: dict[str, Any]) -> Any:
        """The section and the audit's tables."""
        from ..ll144.analysis import LABEL

        return cfg.analyses.ll144, run.results[LABEL]

    def files(self, res: Any) -> list[tuple[str, Any]]:
        """summary.html (the page the rule asks to publish), rates.csv, unknown.csv and
        ll144.json."""
        from ..ll144.page import summary_page

        spec, result = res
        page = summary_page(result, spec.audit_date, spec.distribution_date, spec.data_source)
        return [("summary.html", page), ("rates.csv", result.to_frame()),
                ("unknown.csv", result.summary()), ("ll144.json", result.to_dict())]  # fmt: skip

    def result(self, res: Any) -> Any:
        """The rule's tables (headline and scope printed, no caveats)."""
        return res[1]


register = LL144().register
