"""``primafacie certainty``: rank decision-makers by how certainly fair they are.

Options, ``--config``, outputs and words are derived (:mod:`._analysis`); this module holds
the help, the decision-maker flags (``--model``, ``--column``, ``--rule`` as NAME=...) and how
they are read; the ranking printed is the report's
(:func:`primafacie.certainty.analysis.tables`).
"""

from __future__ import annotations

from typing import Any, Optional

from ..certainty.params import PARAMS, RENAMED
from ..errors import InputError
from ..params import by_name
from . import _data
from ._analysis import AnalysisCommand, role
from ._common import MODEL_FILES_HELP, err_console, escape, load_cli_model, parse_pairs

# the engine and pandas are imported inside the functions: the CLI loads this module to render
# --help, which must not wait for them.

HELP = f"""Rank decision-makers (models, rules, recorded human decisions) by how *certainly*
fair they are and select the best (Duong & Conrad, ECAI 2024).

Each decision-maker becomes (disparity, uncertainty): the gap between the most and least
privileged group and the Beta-posterior uncertainty of that gap; u_topsis ranks them.

Example:

    primafacie certainty --data loans.csv --protected gender \\
        --outcome repaid --column clerk=human_decision \\
        --model lr=lr.skops --rule strict="salary > 50000" \\
        --tie-breaker accuracy --n-draws 20000 --seed 1 \\
        --out out/certainty

    primafacie certainty --config audit.yaml --out out/certainty

Weighted, on the 2024 rows of sheet "loans" of an Excel file:

    primafacie certainty --data loans.xlsx --sheet loans \\
        --where "year == 2024" --weights w --protected gender \\
        --column clerk=human_decision --out out/c24

With --config the ranking is built from the file exactly as `primafacie audit` builds it
(without a decision_makers list, the audited decision is ranked alone).

Writes certainty.csv (ranking), certainty_counts.csv (per group: n, k, posterior, credible
interval), certainty.json and certainty.png into --out; nothing is written when the input is
bad (exit 2). {MODEL_FILES_HELP}
"""


class Certainty(AnalysisCommand):
    """``primafacie certainty`` (the help text is :data:`HELP`)."""

    name, help, params, renamed = "certainty", HELP, PARAMS, RENAMED
    no_data, status = "give --data FILE (or --config audit.yaml)", "scoring decision-makers ..."
    config_help, bullet = "audit.yaml with an analyses.certainty section.", None
    _names = Optional[list[str]]
    roles = (
        role("data"),
        role("protected", "Protected column; repeat for intersectional groups.", _names, None,
             param=by_name(PARAMS)["protected"]),
        role("model", "NAME=FILE: a fitted estimator (.skops or .onnx).", _names, None),
        role("trust_pickle"), role("trusted_type", type=_names, default=None),
        role("column", "NAME=COL: a column of recorded decisions.", _names, None),
        role("rule", 'NAME=EXPR: a rule such as "salary > 50000".', _names, None),
        *(role(name, param=by_name(PARAMS)[name])
          for name in ("favorable", "outcome", "outcome_favorable")),
    )  # fmt: skip

    def from_flags(self, spec: Any, v: dict[str, Any], reading: dict[str, Any]) -> tuple:
        """The table (read by the configuration's reader, :func:`_data.read_frame`) and the
        decision-makers the flags name (models loaded, rules parsed), ranked by the engine the
        spec builds (the roles of a plain table set on it)."""
        from ..decisions import Rule

        if not v["protected"]:
            raise InputError("give --protected COLUMN (repeat it for intersectional groups)")
        pairs = {flag: parse_pairs(v[flag[2:]], flag) for flag in ("--column", "--rule")}
        recorded, rules = ([value for _, value in pairs[f]] for f in ("--column", "--rule"))
        # the audited columns of --dropna all: a recorded decision, a rule's columns, else (only
        # models) the protected columns alone
        decision = {"rule": rules[0]} if rules and not recorded else {
            "column": (recorded or list(v["protected"]))[0]}  # fmt: skip
        roles = {"protected": list(v["protected"]), "decision": decision, "outcome": v["outcome"]}
        table = _data.read_frame(reading or {}, v["data"], "certainty", roles)
        read = {"--model": lambda f: load_cli_model(f, v["trust_pickle"], v["trusted_type"]),
                "--column": str, "--rule": Rule}  # fmt: skip
        # --model files are named (and loaded) once the data are read, as before
        pairs = {"--model": parse_pairs(v["model"], "--model"), **pairs}
        dms: dict[str, Any] = {}
        for flag, named in pairs.items():
            for name, value in named:
                if name in dms:
                    raise InputError(f"decision-maker name {name!r} is used twice")
                dms[name] = read[flag](value)
        if not dms:
            raise InputError("name at least one decision-maker: --model, --column or --rule")
        # the roles of a plain table (--favorable, --weights, ...) are the engine's arguments
        return self.run_engine(spec.build(), v, reading, table, dms), (v["data"],)

    def files(self, res: Any) -> list[tuple[str, Any]]:
        """certainty.csv, certainty_counts.csv, certainty.json and certainty.png."""
        return [("certainty.csv", res.to_frame()), ("certainty_counts.csv", res.counts_frame()),
                ("certainty.json", res.to_dict()), ("certainty.png", res.plot())]  # fmt: skip

    def words(self, res: Any) -> list[str]:
        """Who is selected, the headline and the scope (the caveats go to stderr)."""
        return [f"selected: [bold]{', '.join(res.selected)}[/]", *super().words(res)]

    def show(self, res: Any, out: Any, names: list[str]) -> None:
        """The summary, then the caveats on stderr."""
        super().show(res, out, names)
        for note in res.caveats():
            err_console.print(f"[yellow]caveat:[/] {escape(note)}")


register = Certainty().register
