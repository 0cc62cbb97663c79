"""``primafacie dossier`` (src/primafacie/commands/dossier.py) through typer's CliRunner: the
pages carry the audit's numbers, redaction, identical reruns, and bad input exits 2."""

from __future__ import annotations

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from primafacie.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The demo world (n = 400) with only situation testing, single attributes."""
    from primafacie.datasets.credit_world import write_demo_inputs

    folder = tmp_path_factory.mktemp("dossier_cli")
    path = write_demo_inputs(folder, n=400, seed=2)
    cfg = yaml.safe_load(path.read_text())
    cfg["analyses"] = {
        "situation": {"k": [10, 15], "methods": ["st", "cst", "cst_centers"],
                      "dimensions": ["single"]},
        "alternatives": None,  # on by default with the demo's model; it writes no dossier
    }  # fmt: skip
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    res = runner.invoke(app, ["audit", str(path), "--out", str(folder / "audit"), "--no-progress"])
    assert res.exit_code == 0, res.output
    table = pd.read_csv(folder / "audit" / "tables" / "situation_single_gender.csv")
    return folder, path, table


def _ids(table: pd.DataFrame, n: int) -> list[str]:
    main = table[(table["method"] == "cst") & (table["k"] == 15)]
    return [str(i) for i in main.sort_values("delta", ascending=False)["id"].head(n)]


def test_pages_carry_the_audits_numbers(demo):
    folder, path, table = demo
    ids = _ids(table, 2)
    out = folder / "pages"
    args = ["dossier", str(path), "--id", ids[0], "--id", ids[1], "--out", str(out)]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    assert f"wrote 2 page(s) and dossiers.csv to {out}" in res.output.replace("\n", "")
    index = pd.read_csv(out / "dossiers.csv")
    assert sorted(p.name for p in out.glob("*.html")) == sorted(f"{i}.html" for i in ids)
    main = table[(table["method"] == "cst") & (table["k"] == 15)].set_index("id")
    for rec in index[index["test"] == "single_gender"].itertuples():
        row = main.loc[rec.id]
        assert (rec.p_c, rec.p_t, rec.delta, rec.ci_low) == (
            row["p_c"], row["p_t"], row["delta"], row["ci_low"]
        )  # fmt: skip
    page = (out / f"{ids[0]}.html").read_text()
    assert "SHA-256" in page and "inputs/lr.skops" in page  # the model and its hash
    # a rerun gives the same bytes
    again = folder / "again"
    assert runner.invoke(app, [*args[:-1], str(again)]).exit_code == 0
    for p in out.glob("*.html"):
        assert (again / p.name).read_bytes() == p.read_bytes()


def test_pages_carry_the_provenance_and_the_date_only_when_given(demo):
    """Each page: primafacie version, SHA-256 of audit.yaml and of the data and model files,
    the seed and the correction in force; --date prints the date, a bad one exits 2."""
    import hashlib

    folder, path, table = demo
    ident = _ids(table, 1)[0]
    out, dated = folder / "prov", folder / "prov_dated"
    base = ["dossier", str(path), "--id", ident]
    assert runner.invoke(app, [*base, "--out", str(out)]).exit_code == 0
    page = (out / f"{ident}.html").read_text()
    assert 'id="provenance"' in page and "primafacie " in page
    assert hashlib.sha256(path.read_bytes()).hexdigest() in page
    for rel in ("inputs/credit_world.csv", "inputs/lr.skops"):
        assert hashlib.sha256((path.parent / rel).read_bytes()).hexdigest() in page
    seed = yaml.safe_load(path.read_text())["seed"]
    assert f"audit = {seed}" in page and "situation: Benjamini–Hochberg (bh)" in page
    assert "not stated" in page
    res = runner.invoke(app, [*base, "--out", str(dated), "--date", "2026-11-26"])
    assert res.exit_code == 0, res.output
    assert "2026-11-26" in (dated / f"{ident}.html").read_text()
    bad = runner.invoke(app, [*base, "--out", str(folder / "x"), "--date", "26.11.2026"])
    assert bad.exit_code == 2 and "expected a date YYYY-MM-DD" in bad.output
    assert not (folder / "x").exists()


def test_redact_flag_hides_the_column(demo):
    folder, path, table = demo
    out = folder / "redacted"
    args = ["dossier", str(path), "--id", _ids(table, 1)[0], "--redact", "savings"]
    res = runner.invoke(app, [*args, "--out", str(out)])
    assert res.exit_code == 0, res.output
    page = next(out.glob("*.html")).read_text()
    assert "savings" not in page and "income" in page


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--id", "999999"], "--id '999999': no row has this id"),
        ([], "give at least one complainant with --id"),
        (["--id", "{id}", "--redact", "nope"], "redact: ['nope'] are not columns"),
    ],
)
def test_bad_input_exits_2_with_a_message(demo, extra, message):
    folder, path, table = demo
    extra = [a.replace("{id}", _ids(table, 1)[0]) for a in extra]
    res = runner.invoke(app, ["dossier", str(path), *extra, "--out", str(folder / "bad")])
    assert res.exit_code == 2, res.output
    assert message in " ".join(res.output.split())
    assert not (folder / "bad").exists()


def test_a_non_complainant_is_refused(demo):
    folder, path, _ = demo
    frame = pd.read_csv(folder / "inputs" / "credit_world.csv")
    male_white = frame[(frame["gender"] == "male") & (frame["race"] == "white")]["id"].iloc[0]
    res = runner.invoke(app, ["dossier", str(path), "--id", str(male_white), "--out",
                              str(folder / "bad2")])  # fmt: skip
    assert res.exit_code == 2
    assert "is not a complainant" in " ".join(res.output.split())
