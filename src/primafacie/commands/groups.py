"""``primafacie groups``: selection rates, four-fifths ratios and error-rate gaps per group.

Options, ``--config``, outputs and words are derived (:mod:`._analysis`); this module holds
the help, the score roles (declared parameters) and how the flags become an AuditData; the
table printed is the report's (:func:`primafacie.groups.analysis.tables`). With ``--config``
the CSVs are the audit's ``tables/groups_*.csv`` byte for byte.
"""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from ..groups.params import PARAMS
from ..params import by_name
from . import _data
from ._analysis import AnalysisCommand, role
from ._common import escape

# pandas and the engine are imported inside the functions: the CLI loads this module to render
# --help, which must not wait for them.

HELP = """Group metrics: for each protected attribute and their intersections, the selection rate
(favourable decisions among the group's members) of every group, each protected group's
difference from and ratio to the reference (non-protected) group with their intervals, and the
four-fifths rule (a ratio below 0.8 suggests adverse impact). With --outcome, the true positive,
false positive and false negative rates, the positive predictive value and the accuracy per
group follow, with the equal-opportunity (TPR gap) and equalized-odds differences. Every rate
is k of n with its Wilson interval; a group smaller than --min-group is flagged, never dropped.

Example (the demo's loan officer, column human, on its generated credit world):

    primafacie groups --data credit_world.csv \\
        --protected gender=female --protected race=black,hispanic \\
        --decision human --favorable 1 --outcome repaid \\
        --out out/groups

    primafacie groups --config audit.yaml --out out/groups

COMPAS as every COMPAS analysis reads it (African-American against Caucasian defendants only,
the other races left out and counted), one year, rows with a missing decision dropped:

    primafacie groups --data compas.csv --protected race=African-American \\
        --reference Caucasian --decision is_recid --favorable 0 \\
        --where "c_charge_degree == 'F'" --dropna is_recid --out out/compas

Weighted (Adult's census weights; intervals use the Kish effective sample size) from a
semicolon-separated Latin-1 file that writes '?' for missing:

    primafacie groups --data adult.csv --sep ";" --encoding latin-1 \\
        --na-values "?" --protected sex=Female --decision income \\
        --favorable ">50K" --weights fnlwgt --out out/adult

With --config the metrics are measured exactly as `primafacie audit` measures them (section
analyses.groups, on by default; the decision may then be a model or a rule), and rates.csv and
summary.csv equal the audit's tables/groups_metrics.csv and tables/groups_metrics_summary.csv.

A score (--score COL, or decision: {score: COL, threshold: T} with --config) adds, with
--thresholds 3,5,7 or --sweep, every group's selection rate and the impact ratio at each
threshold (thresholds.csv), and with --outcome the AUC (DeLong interval) and a calibration
table per group (auc.csv, calibration.csv).

Writes rates.csv (one row per group and metric: k, n, rate, interval, difference and ratio to
the reference), summary.csv (one row per protected group: selection rates, difference, ratio,
four-fifths flag, error-rate gaps) and groups.json to --out; nothing is written when the input
is bad (exit 2).
"""


_DECLARED = by_name(PARAMS)  # the score roles set these (their help is the command's own)


class Groups(AnalysisCommand):
    """``primafacie groups`` (the help text is :data:`HELP`)."""

    name, help, params, status = "groups", HELP, PARAMS, "measuring groups…"
    no_data = "give --data FILE (with --protected and --decision) or --config FILE"
    config_help = "audit.yaml (section analyses.groups) instead of flags."
    data_roles = ("favorable", "outcome_favorable", "weights")  # the AuditData's, read below
    roles = (
        role("data"),
        role("protected", "COL=VALUE[,VALUE...]: the protected group(s) (repeatable)."),
        role("decision"), role("favorable"),
        role("outcome", "True-outcome column (adds the error rates)."), role("outcome_favorable"),
        role("score", "Numeric score column: with --thresholds or --sweep, rates and impact "
             "ratios at each threshold; with --outcome, AUC and calibration per group.",
             param=_DECLARED["score"]),
        role("score_favorable", "above (score >= threshold is favourable) or below.", str,
             _DECLARED["score_favorable"].default, param=_DECLARED["score_favorable"]),
    )  # fmt: skip

    def from_flags(self, spec: Any, v: dict[str, Any], reading: dict[str, Any]) -> tuple:
        """The AuditData the flags describe (the audit's reader, :func:`_data.load`), measured
        by the engine the spec builds, with the engine arguments the flags set (the score's,
        :meth:`~._analysis.AnalysisCommand.run_engine`)."""
        if not v["protected"]:
            raise InputError("give at least one --protected COL=VALUE (repeat it per attribute)")
        if v["decision"] is None:
            raise InputError("give --decision COL (the column of decisions)")
        prot = _data.protected_values(v["protected"])
        doc = {
            **_data.config_from_flags(reading, v["data"], prot), "features": {},
            "decision": {"column": v["decision"]}, "favorable": _data.scalar(v["favorable"]),
            "outcome": v["outcome"], "outcome_favorable": _data.scalar(v["outcome_favorable"]),
        }  # fmt: skip
        named = [("--decision", v["decision"]), ("--outcome", v["outcome"]),
                 *(("--protected", c) for c in prot), ("--score", v["score"])]  # fmt: skip
        audit = _data.load(doc, named)[1]
        return self.run_engine(spec.build(audit), v, reading, audit), (v["data"],)

    def files(self, res: Any) -> list[tuple[str, Any]]:
        """rates.csv, summary.csv, the score tables and groups.json (the audit's frames)."""
        scores = [(f"{name}.csv", frame) for name, frame in res.extra_tables().items()]
        return [("rates.csv", res.to_frame()), ("summary.csv", res.summary()), *scores,
                ("groups.json", res.to_dict())]  # fmt: skip

    def words(self, res: Any) -> list[str]:
        """Headline, scope, caveats, then what the score sweep found."""
        said = res.scores.sentences() if res.scores is not None else []
        return [*super().words(res), *(escape(f"  {s}") for s in said)]


register = Groups().register
