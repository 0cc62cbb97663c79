"""The audit's analyses overlapped (src/primafacie/audit/run.py, ``_analysis_call``): on a Dask
cluster an analysis run in the client alone (``Analysis.client_only``: group metrics) runs
beside the next one; the outputs and the errors are those of one analysis after the other."""

from __future__ import annotations

import threading
from dataclasses import replace

import pytest
import yaml

from primafacie.audit import run as audit_run
from primafacie.config import load_config
from primafacie.datasets.credit_world import (
    CREDIT_EDGES,
    CREDIT_FEATURES,
    CREDIT_PROTECTED,
    SCORECARD_RULE,
    generate_credit_world,
)
from primafacie.errors import InputError
from primafacie.groups.analysis import ANALYSIS as GROUPS


def _config(tmp_path):
    generate_credit_world(500, seed=1).to_csv(tmp_path / "world.csv", index=False)
    cfg = {
        "data": "world.csv", "id": "id", "decision": {"rule": SCORECARD_RULE},
        "features": dict(CREDIT_FEATURES), "protected": dict(CREDIT_PROTECTED),
        "causal": {"edges": [list(e) for e in CREDIT_EDGES]},
        "analyses": {"groups": {}, "situation": {"k": [5], "methods": ["st", "cst"]}},
    }  # fmt: skip
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")
    return load_config(tmp_path / "audit.yaml")


def _spied(monkeypatch, groups_waits=False, groups_fails=False):
    """The requested analyses with their runs recorded (start, end); ``groups_waits``: group
    metrics end only once situation testing has (possible only when they overlap);
    ``groups_fails``: group metrics raise bad input."""
    real, seen = audit_run.requested, []
    situation_done = threading.Event()

    def spy(analysis):
        def run(spec, ctx):
            seen.append(("start", analysis.name))
            if analysis.name == "groups" and groups_fails:
                raise InputError("groups: a bad column")
            if analysis.name == "groups" and groups_waits:
                assert situation_done.wait(300), "situation testing never ran beside groups"
            out = analysis.run(spec, ctx)
            seen.append(("end", analysis.name))
            if analysis.name == "situation":
                situation_done.set()
            return out

        return replace(analysis, run=run)

    monkeypatch.setattr(audit_run, "requested", lambda cfg: [spy(a) for a in real(cfg)])
    return seen


def _files(out):
    return {p.relative_to(out).as_posix(): p.read_bytes()
            for p in sorted(out.rglob("*")) if p.is_file()}  # fmt: skip


def test_group_metrics_are_run_in_the_client_alone():
    assert GROUPS.client_only


def test_a_client_only_analysis_overlaps_the_next_with_the_sequential_bytes(tmp_path, monkeypatch):
    """Overlapped (as on Dask; forced here on the local backend), group metrics run beside
    situation testing and end after it, and every output file is the sequential run's byte
    for byte (the runs are placed by name, in the analyses' order)."""
    cfg = _config(tmp_path)
    monkeypatch.setattr(audit_run, "_overlap", lambda backend: False)
    audit_run.run_audit(cfg, tmp_path / "seq", progress=False)
    monkeypatch.setattr(audit_run, "_overlap", lambda backend: True)
    seen = _spied(monkeypatch, groups_waits=True)
    result = audit_run.run_audit(cfg, tmp_path / "ovl", progress=False)
    assert [e for e in seen if e[0] == "end"] == [("end", "situation"), ("end", "groups")]
    assert list(result.runs) == ["groups", "situation"]
    a, b = _files(tmp_path / "seq"), _files(tmp_path / "ovl")
    assert a.keys() == b.keys()
    assert [name for name in a if a[name] != b[name]] == []


@pytest.mark.parametrize("overlap", [False, True])
def test_a_failing_client_only_analysis_raises_its_own_error(tmp_path, monkeypatch, overlap):
    """Group metrics failing on bad input stop the audit with their error, overlapped or not
    (overlapped, the analysis beside them ends first), and nothing is written."""
    cfg = _config(tmp_path)
    monkeypatch.setattr(audit_run, "_overlap", lambda backend: overlap)
    _spied(monkeypatch, groups_fails=True)
    with pytest.raises(InputError, match="groups: a bad column"):
        audit_run.run_audit(cfg, tmp_path / "out", progress=False)
    assert not (tmp_path / "out").exists()


def test_the_analyses_overlap_on_dask_only():
    from primafacie.compute import Backend

    assert audit_run._overlap(Backend(kind="dask", n_jobs=2))
    assert not audit_run._overlap(Backend(kind="local", n_jobs=2))
    assert not audit_run._overlap(None)
