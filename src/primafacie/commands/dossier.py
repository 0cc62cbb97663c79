"""``primafacie dossier``: a printable page per complainant, from an audit.yaml.

parse (the configuration and the ids) → build (data, causal model and the situation engines
through :meth:`~primafacie.situation.spec.SituationSpec.tests`, as the audit does) → run
(only the named complainants when no correction across complainants is in force; under one,
every complainant, since the adjusted p-value needs the whole family; the search spaces are the
whole data, so every number equals the audit's row for that person) → print (one line per
page).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from ._common import AUDIT_YAML, console, date_option, guarded, out_next_to

HELP = """Write a printable dossier page per complainant named with --id.

Each page (OUT/ID.html, self-contained, no script) holds the person's record and how the
decision was obtained, the counterfactual twin with the causal path that moved each feature,
the control and test groups with their distances, the rates with Δp and its interval, the
verdict for every method and k, the assumptions and what the evidence means legally. Print it
to PDF from a browser (A4, page numbers). OUT/dossiers.csv indexes the pages. The numbers are
those of `primafacie audit` on the same file.

Example (after `primafacie demo --out out/demo`):

    primafacie dossier out/demo/audit.yaml --id 7 --id 12 --out out/dossiers

Columns listed in analyses.situation.dossiers.redact (or --redact) are left out of every page;
ids listed there are shown as a stable pseudonym (redacted-<8 hex>), file names included.
Exit codes: 0 ok, 1 the analysis failed, 2 bad configuration, data or id.
"""


def parse(config: Path, ids: list[str], redact: list[str]) -> tuple[Any, Any, list[str]]:
    """The configuration, its situation section and the columns to hide."""
    from ..config import load_config
    from ..errors import InputError

    cfg = load_config(config)
    spec = cfg.analyses.situation
    if spec is None:
        raise InputError(f"{config}: the configuration has no analyses.situation section")
    if not ids:
        raise InputError("give at least one complainant with --id")
    if "single" not in spec.dimensions:
        raise InputError(
            "analyses.situation.dimensions must include single: a dossier reads the test of "
            "one protected attribute"
        )
    listed = list(spec.dossiers.redact) if spec.dossiers is not None else []
    return cfg, spec, list(dict.fromkeys([*listed, *redact]))


def build_and_run(cfg: Any, spec: Any, ids: list[str], redact: list[str]) -> Any:
    """Run the situation tests for the named complainants and build their pages."""
    import numpy as np

    from ..report.dossier import complainant_rows, decision_source
    from ..situation.analysis import needs_scm
    from ..situation.dossier import build_dossiers

    full = cfg.audit_data()
    data = full.compared()  # the protected and reference rows, as the audit
    mask = np.zeros(data.n, dtype=bool)
    mask[complainant_rows(ids, data)] = True  # bad ids fail before any model is fitted
    # fitted on every audited row, as the audit does
    scm = cfg.causal.build().fit(full) if needs_scm(spec) and cfg.causal else None
    # one engine per protected attribute that holds a named complainant (as in the audit)
    attrs = [a for a in data.protected if (mask & data.protected_mask(a)).any()]
    engines = spec.model_copy(update={"dimensions": ["single"]}).tests(
        attrs, backend=cfg.compute.build()
    )
    # a correction across complainants spans every complainant of the test: the adjusted
    # p-value (and so the verdict) of one person needs the whole family, as in the audit
    # (issue 23: testing the named ones alone shrank the family and overstated the verdict)
    family = None if str(spec.multiplicity) != "none" else mask
    results = {
        label: engine.run(data, scm=scm, decider=cfg.decider(), complainant_mask=family)
        for label, engine in engines.items()
    }
    from ..situation.analysis import dossier_setting

    return build_dossiers(
        results, data, scm=scm, source=decision_source(cfg), ids=ids, redact=redact,
        **dossier_setting(cfg, data),
    )  # fmt: skip


def write(book: Any, out: Path, inputs: tuple[Any, ...], provenance: Any = None) -> list[Path]:
    """Write OUT/<id>.html (with the provenance block) and OUT/dossiers.csv atomically; the
    written paths."""
    from ..io import atomic_output_dir, atomic_write_table, atomic_write_text
    from ..report.provenance import stamp

    index = book.to_frame()
    index["file"] = index["file"].str.removeprefix("dossiers/")
    with atomic_output_dir(out, owner="dossier", keep=inputs) as stage:
        for rel, html in book.pages().items():
            atomic_write_text(stage / Path(rel).name, stamp(html, provenance))
        atomic_write_table(stage / "dossiers.csv", index)
    return [out / Path(rel).name for rel in book.pages()]


def register(app: typer.Typer) -> None:
    app.command("dossier", help=HELP)(guarded(dossier))


def dossier(
    config: Path = AUDIT_YAML,
    ids: list[str] = typer.Option([], "--id", help="A complainant's id (repeat for several)."),
    out: Optional[Path] = out_next_to("dossiers"),
    redact: list[str] = typer.Option(
        [],
        "--redact",
        help="A column to hide, or an id to pseudonymise, on every page (repeat for several).",
    ),
    date: Optional[str] = date_option("on each page (default: none, byte-identical)"),
) -> None:
    """``primafacie dossier``: parse → build → run → print."""
    from ..audit.inputs import check_date, input_files, input_paths, provenance
    from ..io import check_output_dir
    from ..situation.labels import method_name

    date = check_date(date)
    cfg, spec, hidden = parse(config, ids, redact)
    out_dir = out if out is not None else Path(config).resolve().parent / "dossiers"
    check_output_dir(out_dir, input_paths(cfg, config))  # before any analysis runs
    prov = provenance(cfg, input_files(cfg), {"audit": int(cfg.seed)}, date)
    book = build_and_run(cfg, spec, ids, hidden)
    paths = write(book, out_dir, input_paths(cfg, config), prov)
    for rec in book.to_frame().itertuples(index=False):
        after = "" if rec.multiplicity == "none" else f" after {rec.multiplicity}"
        verdict = ("significant" if rec.significant else "not significant") + after
        console.print(
            f"{rec.id}: {rec.test}, {method_name(rec.method)} k={rec.k}: Δp = {rec.delta:.3f} "
            f"({verdict}) "
            f"→ {out_dir / Path(rec.file).name}"
        )
    console.print(f"wrote {len(paths)} page(s) and dossiers.csv to {out_dir}")
