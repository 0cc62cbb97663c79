"""Reaching a running Dask cluster is the audit's first stage (src/primafacie/audit/run.py,
``_backend``): Dask retries a refused connection until ``compute.timeout``, and the user sees
that wait as a stage naming the address and the deadline, before any data are read."""

from __future__ import annotations

import pytest
import yaml

from primafacie.audit import run as audit_run
from primafacie.config import load_config
from primafacie.datasets.credit_world import CREDIT_FEATURES, generate_credit_world
from primafacie.errors import InputError


def _config(tmp_path, compute):
    generate_credit_world(100, seed=1).to_csv(tmp_path / "world.csv", index=False)
    cfg = {
        "data": "world.csv", "id": "id", "decision": {"column": "human"}, "favorable": 1,
        "features": dict(CREDIT_FEATURES), "protected": {"gender": "female"},
        "analyses": {"groups": {}}, "compute": compute,
    }  # fmt: skip
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")
    return load_config(tmp_path / "audit.yaml")


class _Recorder:
    """A stand-in for the progress display that records every call."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def start(self, name: str) -> None:
        self.calls.append(("start", name))

    def step(self, name: str, completed: int, total: int, note: str = "") -> None:
        self.calls.append(("step", name, note))

    def done(self, name: str, note: str = "") -> None:
        self.calls.append(("done", name, note))


def test_a_cluster_address_adds_the_connect_stage_first(tmp_path):
    on = _config(tmp_path, {"backend": "dask", "address": "tcp://127.0.0.1:9"})
    assert audit_run.stage_names(on)[:2] == ["connect to Dask scheduler", "load data"]
    for compute in ({"backend": "dask", "n_jobs": 2}, {"backend": "local"}):
        assert audit_run.stage_names(_config(tmp_path, compute))[0] == "load data"


def test_an_unreachable_scheduler_is_shown_waiting_then_refused_before_the_data(tmp_path):
    pytest.importorskip("distributed", reason="the [dask] extra is not installed")
    cfg = _config(tmp_path, {"backend": "dask", "address": "tcp://127.0.0.1:9", "timeout": 3})
    stages = _Recorder()
    with pytest.raises(InputError, match=r"Dask scheduler at 'tcp://127\.0\.0\.1:9'") as caught:
        audit_run.compute_audit(cfg, stages=stages)
    # Dask's own window (0.8 x the timeout) as a person would write it
    assert "000000" not in str(caught.value)
    assert stages.calls == [
        ("start", "connect to Dask scheduler"),
        ("step", "connect to Dask scheduler", "tcp://127.0.0.1:9 (up to 3 s)"),
    ]  # the stage never ends and "load data" never starts
