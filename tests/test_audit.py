"""Tests of primafacie.audit: the demo end to end, results.json schema, byte-identical reruns,
failing analyses and bad configurations."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from primafacie import analysis as analysis_mod
from primafacie.audit import json_safe, registry, run_audit
from primafacie.config import load_config
from primafacie.errors import AnalysisError, InputError
from primafacie.io import MANIFEST
from primafacie.report import validate_results
from tests.shared import demo_with_result

N = 300


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The demo once (``run_demo(n=300, seed=1)``, built once per test run and shared with
    tests/test_compute_dask.py through tests/shared.py: read it, never write into it), then
    the audit again from the audit.yaml it wrote, in another process with another string-hash
    seed (the inputs' own determinism is tested in tests/datasets/test_credit_world.py).
    ``(demo folder, re-audit folder, AuditResult, what the re-audit printed)``."""
    a, first = demo_with_result(n=N, seed=1)
    b = tmp_path_factory.mktemp("demo") / "b"
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    cmd = [sys.executable, "-m", "primafacie.cli", "audit", str(a / "audit.yaml"),
           "--out", str(b), "--no-progress"]  # fmt: skip
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return a, b, first, proc.stdout


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != MANIFEST  # bookkeeping of which command wrote what
    }


def test_demo_runs_every_analysis(demo):
    a, _b, res, _ = demo
    assert {name: run.status for name, run in res.runs.items()} == {
        "groups": "ok", "situation": "ok", "recourse": "ok", "principal": "ok", "certainty": "ok",
        "alternatives": "ok",  # on by default: the demo's decision is a model, with an outcome
    }  # fmt: skip
    sit = res.runs["situation"]
    assert set(sit.results) == {"single_gender", "single_race", "multiple", "intersectional"}
    assert res.runs["certainty"].numbers["selected"]
    assert list(res.summary()["status"]) == ["ok"] * 6
    assert res.plot().axes  # the overview figure
    out = a
    html = (out / "report.html").read_text()
    # many-valued numeric features enter FACTS as quantile bins, never one item per value
    import re

    tables = " ".join(p.read_text() for p in (out / "tables").glob("recourse_*.csv"))
    assert re.search(r"income=\(", tables)
    assert not re.search(r"(income|savings|loan_amount|age)=\d", tables)
    # the principal section says which group is A=1 and which A=0
    assert "Coding of the protected attribute: A=1: gender = male; A=0: gender = female." in html
    for rel in ("report.html", "results.json", "audit.yaml", "inputs/credit_world.csv",
                "inputs/lr.skops", "inputs/gb.skops", "tables/situation_summary.csv"):  # fmt: skip
        assert (out / rel).is_file(), rel
    assert set(res.files) == {
        p.relative_to(out).as_posix()
        for p in out.rglob("*")
        if p.is_file()
        and p.name != MANIFEST
        and not p.relative_to(out).as_posix().startswith(("inputs/", "audit.yaml"))
    }


def test_report_has_every_section_with_a_figure(demo):
    """A browser-free check of the page structure (the browser test checks rendering)."""
    import re

    a, _b, _, _ = demo
    html = (a / "report.html").read_text(encoding="utf-8")
    parts = re.split(r'<section id="', html)[1:]
    sections = {p.split('"', 1)[0]: p for p in parts}
    assert list(sections) == [
        "summary", "sec-groups", "sec-situation", "sec-recourse", "sec-principal",
        "sec-certainty", "sec-alternatives", "appendix",
    ]  # fmt: skip
    for sid in ("sec-groups", "sec-situation", "sec-recourse", "sec-principal", "sec-certainty",
                "sec-alternatives"):  # fmt: skip
        assert 'data-status="ok"' in sections[sid] and "<figure" in sections[sid], sid
    assert 'class="dag"' in sections["appendix"]
    assert "<script src" not in html and "<link" not in html and "@import" not in html


def test_results_json_follows_its_schema_and_has_no_absolute_paths(demo):
    a, _b, res, _ = demo
    text = (a / "results.json").read_text(encoding="utf-8")
    doc = json.loads(text)
    validate_results(doc)
    assert doc == res.to_dict() | {"files": list(res.files)}
    assert doc["data"]["n"] == N
    assert doc["seeds"]["audit"] == 1
    assert {i["path"] for i in doc["inputs"]} == {
        "inputs/credit_world.csv", "inputs/lr.skops", "inputs/gb.skops",
    }  # fmt: skip
    assert str(a.parent) not in text and "NaN" not in text and "Infinity" not in text
    assert str(a.parent) not in (a / "report.html").read_text(encoding="utf-8")
    # every count carries its denominator
    for g in doc["data"]["groups"]:
        assert g["n_protected"] + g["n_non_protected"] == g["n"] == N


def test_provenance_block_in_results_report_and_dossier_pages(demo, tmp_path):
    """results.json and report.html carry the version, the SHA-256 of audit.yaml (as
    sha256sum prints it) and of every input, the seeds, the correction and no date; --date
    adds the date and nothing else changes."""
    import hashlib

    a, _b, res, _ = demo
    doc = json.loads((a / "results.json").read_text(encoding="utf-8"))
    prov = doc["provenance"]
    cfg_bytes = (a / "audit.yaml").read_bytes()
    assert prov["configuration"]["sha256"] == hashlib.sha256(cfg_bytes).hexdigest()
    assert prov["configuration"]["path"] == "audit.yaml"
    for item in prov["inputs"]:
        data = (a / item["path"]).read_bytes()
        assert item["sha256"] == hashlib.sha256(data).hexdigest()
    assert {i["role"] for i in prov["inputs"]} >= {"data", "decision model"}
    assert prov["seeds"] == doc["seeds"] and prov["date"] is None
    assert prov["corrections"] == {
        "situation": doc["config"]["analyses"]["situation"]["multiplicity"]
    }
    html = (a / "report.html").read_text(encoding="utf-8")
    assert 'id="provenance"' in html and prov["configuration"]["sha256"] in html
    assert all(i["sha256"] in html for i in prov["inputs"])
    assert f"primafacie {prov['primafacie']}" in html
    # --date: the date is printed; everything else of results.json stays the same (the
    # demo's configuration with group metrics and one situation test, run with and without a
    # date: the date is the writer's, whatever ran; the whole demo again cost 6 s)
    small = load_config(_small_config(a, tmp_path, {"groups": {}, "situation": {
        "k": [5], "methods": ["st"], "dimensions": ["single"]}}))  # fmt: skip
    run_audit(small, tmp_path / "u", progress=False)
    dated = run_audit(small, tmp_path / "d", progress=False, date="2026-11-26")
    doc_u, doc_d = (json.loads((tmp_path / d / "results.json").read_text(encoding="utf-8"))
                    for d in ("u", "d"))  # fmt: skip
    assert doc_u["provenance"]["date"] is None
    assert doc_d["provenance"]["date"] == "2026-11-26"
    assert "2026-11-26" in (tmp_path / "d" / "report.html").read_text(encoding="utf-8")
    assert "2026-11-26" not in (tmp_path / "u" / "report.html").read_text(encoding="utf-8")
    doc_d["provenance"]["date"] = None
    assert doc_d == doc_u
    assert dated.provenance["date"] == "2026-11-26"
    with pytest.raises(InputError, match="--date 2026-02-30: expected a date YYYY-MM-DD"):
        run_audit(small, tmp_path / "e", date="2026-02-30")
    assert not (tmp_path / "e").exists()


def test_rerun_is_byte_identical(demo):
    """The demo and the audit re-run from its audit.yaml (another process, another hash seed)
    give the same files, byte for byte."""
    demo_dir, rerun_dir, first, stdout = demo
    a, b = _files(demo_dir), _files(rerun_dir)
    assert sorted(b) == sorted(first.files)
    different = [name for name in b if a[name] != b[name]]
    if different:
        import difflib

        first = different[0]
        diff = difflib.unified_diff(
            a[first].decode().splitlines(), b[first].decode().splitlines(), lineterm="", n=2
        )
        pytest.fail(
            f"{different} differ; first lines of the {first} diff:\n" + "\n".join(list(diff)[:40])
        )
    assert "situation" in stdout and "report.html" in stdout


def _small_config(a: Path, tmp_path: Path, analyses: dict) -> Path:
    cfg = yaml.safe_load((a / "audit.yaml").read_text())
    # the alternatives search is on by default with the demo's model and outcome: off here,
    # unless the test asks for it
    cfg["analyses"] = {"alternatives": None, **analyses}
    cfg["data"] = str(a / cfg["data"])
    cfg["decision"] = {"model": str(a / cfg["decision"]["model"])}
    path = tmp_path / "audit.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


CERTAINTY = {
    "certainty": {
        "decision_makers": {"officer": {"column": "human"}, "rule": {"rule": "income > 30"}}
    }
}


def test_failing_analysis_writes_nothing_unless_keep_going(demo, tmp_path, monkeypatch):
    a, _b, _, _ = demo

    def boom(spec, ctx):
        raise AnalysisError("solver exploded")

    patched = tuple(
        dataclasses.replace(a, run=boom) if a.name == "certainty" else a for a in registry.ANALYSES
    )
    monkeypatch.setattr(registry, "ANALYSES", patched)
    cfg = load_config(_small_config(a, tmp_path, CERTAINTY))
    with pytest.raises(AnalysisError, match="certainty: solver exploded"):
        run_audit(cfg, tmp_path / "out", progress=False)
    assert not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out")] == []
    res = run_audit(cfg, tmp_path / "out", progress=False, keep_going=True)
    assert res.failed == ["certainty"]
    validate_results(json.loads((tmp_path / "out" / "results.json").read_text()))


def test_bad_inputs_raise_input_error_and_write_nothing(demo, tmp_path):
    a, _b, _, _ = demo
    # group metrics are on by default: no analysis means turning them off too
    cfg = load_config(_small_config(a, tmp_path, {"groups": None}))
    with pytest.raises(InputError, match="asks for no analysis"):
        run_audit(cfg, tmp_path / "out", progress=False)
    raw = yaml.safe_load((a / "audit.yaml").read_text())
    raw["data"] = "missing.csv"
    raw.pop("causal")
    raw["analyses"] = {"situation": {"k": [5]}}
    (tmp_path / "b.yaml").write_text(yaml.safe_dump(raw))
    with pytest.raises(InputError, match="causal"):
        run_audit(load_config(tmp_path / "b.yaml"), tmp_path / "out", progress=False)
    raw["analyses"] = CERTAINTY
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(raw))
    with pytest.raises(InputError, match="missing.csv"):
        run_audit(load_config(tmp_path / "c.yaml"), tmp_path / "out", progress=False)
    assert not (tmp_path / "out").exists()


def test_json_safe_and_row_pruning():
    assert json_safe({"a": np.float64("nan"), 1: (np.int64(2), float("-inf"), np.bool_(True))}) == {
        "a": None, "1": [2, "-inf", True],
    }  # fmt: skip
    pruned = analysis_mod._prune_rows(
        {"rows": [{"x": i} for i in range(600)], "keep": [1] * 600, "timings": {"fit": 0.1}},
        "t.csv",
    )
    assert pruned == {"rows": {"rows": 600, "see": "t.csv"}, "keep": [1] * 600}


def test_compute_backend_gives_identical_tables(demo, tmp_path):
    a, _b, _, _ = demo
    st_only = {"situation": {"k": [5, 10], "methods": ["st"]}}
    # one thread against two (the default is every usable core): the same bytes
    config = load_config(_small_config(a, tmp_path, st_only))
    local = config.model_copy(update={"compute": config.compute.model_copy(update={"n_jobs": 1})})
    threaded = local.model_copy(update={"compute": local.compute.model_copy(update={"n_jobs": 2})})
    assert local.compute.build().n_jobs == 1 and threaded.compute.build().n_jobs == 2
    run_audit(local, tmp_path / "local", progress=False)
    run_audit(threaded, tmp_path / "threads", progress=False)
    a, b = _files(tmp_path / "local" / "tables"), _files(tmp_path / "threads" / "tables")
    assert a == b and "situation_single_gender.csv" in a


def test_a_user_style_config_rule_single_attribute_covariates(demo, tmp_path):
    """Adapters outside the demo's settings: a rule decision, one protected attribute, ST and
    CST only, principal within region cells, certainty of the audited decision alone."""
    a, _b, _, _ = demo
    raw = yaml.safe_load((a / "audit.yaml").read_text())
    raw["data"] = str(a / raw["data"])
    raw["decision"] = {"rule": "income + 2 * savings > 40"}
    raw["protected"] = {"gender": "female"}
    raw["causal"]["edges"] = [e for e in raw["causal"]["edges"] if "race" not in e]
    raw["analyses"] = {
        "situation": {"k": [5], "methods": ["st", "cst"]},
        "recourse": {"support": 0.1, "metrics": ["ECE"], "phi": [0.5]},
        "principal": {"definitions": [2], "covariates": ["region"]},
        "certainty": {},
    }
    path = tmp_path / "audit.yaml"
    path.write_text(yaml.safe_dump(raw))
    res = run_audit(load_config(path), tmp_path / "out", progress=False)
    assert {n: r.status for n, r in res.runs.items()} == dict.fromkeys(
        ["groups", "situation", "recourse", "principal", "certainty"], "ok"
    )
    assert set(res.runs["situation"].results) == {"single_gender"}
    summary = res.runs["principal"].results["evaluation"].summary()
    assert set(summary["cell"]) == {"region=rural", "region=suburban", "region=urban"}
    assert res.runs["certainty"].numbers["selected"] == ["audited decision"]
    validate_results(json.loads((tmp_path / "out" / "results.json").read_text()))


def test_centred_methods_need_a_model_or_rule(demo, tmp_path):
    a, _b, _, _ = demo
    raw = yaml.safe_load((a / "audit.yaml").read_text())
    raw["decision"] = {"column": "human"}
    raw["analyses"] = {"situation": {"k": [5], "methods": ["st", "cf"]}}
    (tmp_path / "a.yaml").write_text(yaml.safe_dump(raw))
    with pytest.raises(InputError, match=r"methods \['cf'\].*decision"):
        run_audit(load_config(tmp_path / "a.yaml"), tmp_path / "out", progress=False)


def test_multiple_dimensions_need_two_protected_attributes(demo, tmp_path):
    a, _b, _, _ = demo
    raw = yaml.safe_load((a / "audit.yaml").read_text())
    raw["data"] = "not-read.csv"  # the check happens before any data is read
    raw["protected"] = {"gender": "female"}
    raw["causal"]["edges"] = [e for e in raw["causal"]["edges"] if "race" not in e]
    raw["analyses"] = {"situation": {"k": [5], "dimensions": ["single", "intersectional"]}}
    (tmp_path / "a.yaml").write_text(yaml.safe_dump(raw))
    with pytest.raises(InputError, match=r"\['intersectional'\] need at least two"):
        run_audit(load_config(tmp_path / "a.yaml"), tmp_path / "out", progress=False)


def test_constant_decisions_are_flagged(demo, tmp_path):
    """A rule no one passes makes every decision unfavourable: the audit says so up front
    instead of presenting 0-vs-0 rates as fairness."""
    a, _b, _, _ = demo
    path = _small_config(a, tmp_path, CERTAINTY)
    cfg = yaml.safe_load(path.read_text())
    cfg["decision"] = {"rule": "income > 1000000"}
    path.write_text(yaml.safe_dump(cfg))
    res = run_audit(load_config(path), tmp_path / "out", progress=False)
    (warning,) = res.data_info["warnings"]
    assert warning.startswith(f"every decision is unfavourable (0 favourable of {N})")
    html = (tmp_path / "out" / "report.html").read_text()
    assert f"every decision is unfavourable (0 favourable of {N})" in html
    validate_results(json.loads((tmp_path / "out" / "results.json").read_text()))


def test_every_data_check_runs_before_any_analysis(demo, tmp_path, monkeypatch):
    """A multi-valued race with principal (as on COMPAS) exits 2 before situation testing
    starts, naming the settings that fix it; so does a k larger than a search space."""
    from typer.testing import CliRunner

    from primafacie.cli import app

    a, _b, _, _ = demo
    started = []
    patched = tuple(
        dataclasses.replace(a, run=lambda spec, ctx, _n=a.name: started.append(_n))
        for a in registry.ANALYSES
    )
    monkeypatch.setattr(registry, "ANALYSES", patched)
    monkeypatch.setattr("primafacie.audit.run.ANALYSES", patched)
    analyses = {"groups": {}, "situation": {"k": [10], "methods": ["st"]},
                "principal": {"protected": "race"}}  # fmt: skip
    path = _small_config(a, tmp_path, analyses)
    with pytest.raises(InputError) as err:
        run_audit(load_config(path), tmp_path / "out", progress=False)
    assert started == [] and not (tmp_path / "out").exists()
    msg = str(err.value)
    assert "'race' must be binary for principal strata" in msg and "3 distinct values" in msg
    assert "analyses.principal.protected" in msg and "'gender'" in msg  # the binary one
    assert "'black' or 'hispanic' with all other values of 'race'" in msg
    res = CliRunner().invoke(app, ["audit", str(path), "--out", str(tmp_path / "cli")])
    assert res.exit_code == 2 and "must be binary for principal strata" in res.output
    assert started == [] and "Traceback" not in res.output
    # k against the search spaces: checked before any analysis runs too
    big = _small_config(a, tmp_path, {"groups": {}, "situation": {"k": [5000], "methods": ["st"]}})
    with pytest.raises(InputError, match="k=5000 is larger than the control search space"):
        run_audit(load_config(big), tmp_path / "out2", progress=False)
    assert started == []
    # certainty's protected columns against max_levels: also before the first analysis
    few = _small_config(a, tmp_path, {"groups": {}, "certainty": {"max_levels": 2}})
    with pytest.raises(InputError, match="protected column 'race' has 3 distinct values"):
        run_audit(load_config(few), tmp_path / "out3", progress=False)
    assert started == []


def test_streamed_tables_and_paged_rows_give_the_same_files(demo, tmp_path, monkeypatch):
    """Issue 22: tables written in chunks and results.json never building the rows it leaves
    out give the bytes of one-piece writing and pruning."""
    import primafacie.io as pio

    a, _b, _, _ = demo
    st = {"situation": {"k": [5, 10], "methods": ["st", "cst"]}}
    config = load_config(_small_config(a, tmp_path, st))
    run_audit(config, tmp_path / "whole", progress=False)
    monkeypatch.setattr(pio, "CSV_CHUNK_ROWS", 17)
    built = []
    real = analysis_mod._prune_rows
    monkeypatch.setattr(
        analysis_mod, "_prune_rows", lambda obj, see, *a: built.append(obj) or real(obj, see, *a)
    )
    run_audit(config, tmp_path / "chunks", progress=False)
    a, b = _files(tmp_path / "whole"), _files(tmp_path / "chunks")
    assert a == b
    results = json.loads(b["results.json"])["analyses"]["situation"]["results"]
    rows = results["single_gender"]["complainants"]
    assert rows == {"rows": rows["rows"], "see": "tables/situation_single_gender.csv"}
    assert rows["rows"] > analysis_mod.MAX_JSON_ROWS
    assert b["tables/situation_single_gender.csv"].count(b"\n") == rows["rows"] + 1
    # what reached the pruning held no list of records longer than results.json keeps
    lists = [o["complainants"] for o in built if isinstance(o, dict) and "complainants" in o]
    assert {"rows": rows["rows"], "see": rows["see"]} in lists
    assert not any(isinstance(v, list) and len(v) > analysis_mod.MAX_JSON_ROWS for v in lists)


def test_the_demo_counts_every_file_it_wrote(demo, monkeypatch):
    """The demo's last line counts the audit's outputs and the inputs it wrote beside them
    (it said 75 files of 79: audit.yaml and inputs/ were left out)."""
    import io

    from rich.console import Console

    from primafacie.commands import audit as audit_command

    a, _b, res, _ = demo
    inputs = ["audit.yaml", *sorted(f"inputs/{p.name}" for p in (a / "inputs").iterdir())]
    printed = io.StringIO()
    monkeypatch.setattr(audit_command, "console", Console(file=printed, width=10_000))
    audit_command.print_summary(res, inputs)
    out = printed.getvalue()
    written = _files(a)
    assert set(written) == set(res.files) | set(inputs) and len(inputs) == 4
    assert (
        f"wrote {len(written)} files to {a} ({len(res.files)} audit outputs, audit.yaml and 3 "
        "inputs)" in out
    )
