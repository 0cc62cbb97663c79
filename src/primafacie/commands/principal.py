"""``primafacie principal``: counterfactual fairness on principal strata from flags or a config.

Options, ``--config``, outputs and words are derived (:mod:`._analysis`); this module holds
the help, the roles (S from a column or a rule, Y) and the ``--repair`` switch; the table
printed is the report's (:func:`primafacie.principal.analysis.tables`).
"""

from __future__ import annotations

from typing import Any, Optional

from ..errors import InputError
from ..params import by_name
from ..principal.params import PARAMS, RENAMED
from . import _data
from ._analysis import AnalysisCommand, role, switch

# pandas and the engine are imported inside the functions: the CLI loads this module to render
# --help, which must not wait for them.

HELP = """Principal-stratum counterfactual fairness of a binary decision S with respect to a binary
protected attribute A and a binary true outcome Y (Definitions 1-2 of the principal-stratification
paper): sharp bounds (Proposition 1), LP ranges of tau0', tau1', tau', verdicts, and the minimal
randomised repair eps* (sum(eps*) = unfairness). A definition can only be REFUTED, never
confirmed: "not refuted" means no evidence of violation under Assumption 1.

Writes summary.csv (verdict per cell and definition), quantities.csv (every bound and interval),
counts.csv (the (A, S, Y) counts per cell), principal.json and, with --repair, repair.csv and
repaired_decisions.csv to --out.

Example (A=0 is the protected group given after '='):

    primafacie principal --data students.csv --protected address=R \\
        --outcome top_third --decision predicted --covariates sex \\
        --definitions 1,2 --n-boot 500 --repair --out out/pf

Rural against urban students of one school only, a ';'-separated file with a decimal comma:

    primafacie principal --data students.csv --sep ";" --decimal , \\
        --protected address=R --reference U --where "school == 'GP'" \\
        --dropna all --outcome top_third --decision predicted \\
        --out out/pf-gp

or `primafacie principal --config audit.yaml --out out/pf` (section analyses.principal; the
analysis is built from the file exactly as `primafacie audit` builds it).
"""


class Principal(AnalysisCommand):
    """``primafacie principal`` (the help text is :data:`HELP`)."""

    name, help, params, renamed = "principal", HELP, PARAMS, RENAMED
    no_data = "give --data FILE (with --protected, --outcome, --decision) or --config FILE"
    roles = (
        role("data"),
        role("protected", "COL=VALUE; VALUE is coded A=0.", Optional[str], None),
        role("outcome", "Ground-truth column Y."), role("outcome_favorable", "Value of Y meaning 1."),
        role("decision", "Decision column S."), role("favorable", "Favourable decision value (S=1)."),
        role("rule", "S from a rule expression instead."),
        switch(by_name(PARAMS)["empty_cells"]),
        role("repair", "Also apply the randomised repair.", bool, False),
    )  # fmt: skip
    with_config, bullet = ("repair",), ""

    def from_flags(self, spec: Any, v: dict[str, Any], reading: dict[str, Any]) -> tuple:
        """The AuditData the flags describe (S from a column or a rule), read by the audit's
        reader: the protected and reference rows, as the audit."""
        missing = [f for f, x in (("--protected", v["protected"]), ("--outcome", v["outcome"]))
                   if x is None]  # fmt: skip
        if missing:
            raise InputError(f"missing {' and '.join(missing)}")
        if (v["decision"] is None) == (v["rule"] is None):
            raise InputError("give exactly one of --decision COL or --rule EXPR")
        col, sep, value = v["protected"].partition("=")
        if not sep or not col or value == "":
            raise InputError("--protected expects COL=VALUE (VALUE is the protected group, "
                             f"coded A=0), got {v['protected']!r}")  # fmt: skip
        doc = {
            **_data.config_from_flags(reading, v["data"], {col.strip(): _data.scalar(value)}),
            "features": {}, "favorable": _data.scalar(v["favorable"]),
            "decision": {"column": v["decision"]} if v["rule"] is None else {"rule": v["rule"]},
            "outcome": v["outcome"], "outcome_favorable": _data.scalar(v["outcome_favorable"]),
        }  # fmt: skip
        named = [("--protected", col.strip()), ("--outcome", v["outcome"]),
                 ("--decision", v["decision"])]  # fmt: skip
        audit = _data.load(doc, named, analysis="principal")[1].compared()
        pf = spec.build(audit)
        boot = f" + {pf.n_boot} bootstrap replicates" if pf.n_boot else ""
        result = self.run_engine(pf, v, reading, audit, status=f"principal-stratum bounds{boot}…")
        return (result, self.repairs(pf, audit, result, v)), (v["data"],)

    def from_run(self, run: Any, cfg: Any, audit: Any, v: dict[str, Any]) -> Any:
        """The audit's evaluation, and with ``--repair`` each definition's repair."""
        data = audit.data.compared()
        result = run.results["evaluation"]
        return result, self.repairs(cfg.analyses.principal.build(data), data, result, v)

    @staticmethod
    def repairs(pf: Any, data: Any, result: Any, v: dict[str, Any]) -> list:
        """The randomised repair for each definition evaluated (``--repair``), else none."""
        return [pf.repair(data, definition=d) for d in result.definitions] if v["repair"] else []

    def files(self, res: Any) -> list[tuple[str, Any]]:
        """summary.csv, quantities.csv, counts.csv, principal.json and, with ``--repair``,
        repair.csv and repaired_decisions.csv (one column per definition)."""
        import pandas as pd

        result, repairs = res
        payload: dict[str, Any] = {"evaluation": result.to_dict()}
        out = [("summary.csv", result.summary()), ("quantities.csv", result.to_frame()),
               ("counts.csv", result.counts_frame()), ("principal.json", payload)]  # fmt: skip
        if repairs:
            payload["repair"] = [r.to_dict() for r in repairs]
            repaired = {f"S_repaired_def{r.definition}": r.repaired for r in repairs}
            dec = repairs[0].decisions_frame().assign(**repaired)
            out += [("repair.csv", pd.concat([r.to_frame() for r in repairs])),
                    ("repaired_decisions.csv", dec.drop(columns="S_repaired"))]  # fmt: skip
        return out

    def result(self, res: Any) -> Any:
        """The evaluation (its tables and words are printed; the caveats without bullets)."""
        return res[0]


register = Principal().register
