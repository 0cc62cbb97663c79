"""Issue 19 item 9: bounded work. The memory a run needs is estimated before it starts and a
run that cannot fit is refused (exit 2) with the estimate and the setting to change; a
MemoryError is never an "internal error"."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from primafacie import budget
from primafacie.budget import Need, require
from primafacie.cli import app
from primafacie.commands import _common
from primafacie.errors import InputError

runner = CliRunner()


@pytest.fixture(autouse=True)
def wide_consoles(monkeypatch):
    monkeypatch.setattr(_common.err_console, "width", 400)
    monkeypatch.setattr(_common.console, "width", 200)


def test_meminfo_and_cgroup_are_read(tmp_path):
    info = tmp_path / "meminfo"
    info.write_text("MemTotal:  16000000 kB\nMemAvailable:   2000 kB\n")
    assert budget._meminfo_available(info) == 2000 * 1024
    assert budget._meminfo_available(tmp_path / "absent") is None
    v2 = tmp_path / "v2"
    v2.mkdir()
    (v2 / "memory.max").write_text("max\n")
    assert budget._cgroup_headroom(v2) is None  # no limit
    (v2 / "memory.max").write_text("1000000\n")
    (v2 / "memory.current").write_text("400000\n")
    assert budget._cgroup_headroom(v2) == 600_000
    v1 = tmp_path / "v1"
    (v1 / "memory").mkdir(parents=True)
    (v1 / "memory" / "memory.limit_in_bytes").write_text(f"{2**63 - 4096}\n")  # v1: no limit
    assert budget._cgroup_headroom(v1) is None
    (v1 / "memory" / "memory.limit_in_bytes").write_text("5000\n")
    (v1 / "memory" / "memory.usage_in_bytes").write_text("7000\n")
    assert budget._cgroup_headroom(v1) == 0


def test_available_memory_is_the_smaller_and_can_be_set(monkeypatch):
    monkeypatch.setattr(budget, "_meminfo_available", lambda: 8_000)
    monkeypatch.setattr(budget, "_cgroup_headroom", lambda: 5_000)
    monkeypatch.delenv("PRIMAFACIE_MEMORY", raising=False)
    assert budget.available_memory() == 5_000
    monkeypatch.setenv("PRIMAFACIE_MEMORY", "123")
    assert budget.available_memory() == 123


def test_require_states_the_estimate_the_memory_and_the_setting():
    need = Need("principal", "the bootstrap", "analyses.principal.n_boot", 2_400_000_000_000)
    require(need, available=3 * 10**12)
    with pytest.raises(InputError) as info:
        require(need, available=16 * 10**9)
    assert str(info.value) == (
        "principal: the bootstrap would need about 2.4 TB of memory, more than the 16.0 GB "
        "available (MemAvailable, cgroup memory.max); lower analyses.principal.n_boot"
    )


def _table(n: int = 400, ids: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "a": rng.integers(0, 2, n),
            "s": rng.integers(0, 2, n),
            "y": rng.integers(0, 2, n),
            "c": rng.choice(["u", "v", "w"], n),
            "x": rng.normal(size=n),
        }
    )
    if ids:
        frame["ref"] = [f"r{i}" for i in range(n)]
    return frame


def _config(tmp_path, analyses: str, features: str = "{c: categorical, x: numeric}", extra=""):
    folder = tmp_path / "in"
    folder.mkdir(exist_ok=True)
    (folder / "audit.yaml").write_text(
        "data: t.csv\ndecision: {column: s}\noutcome: y\n"
        f"features: {features}\nprotected: {{a: 1}}\n{extra}"
        f"analyses: {{groups: null, {analyses}}}\n"
    )
    return folder


def test_estimates_by_hand(tmp_path):
    from primafacie.config import load_config

    folder = _config(
        tmp_path,
        "principal: {n_boot: 1000, covariates: [c]}, recourse: {}, "
        "situation: {k: [5, 10], methods: [st, cf]}",
        extra="causal: {edges: [[a, x]]}\n",
    )
    _table().to_csv(folder / "t.csv", index=False)
    cfg = load_config(folder / "audit.yaml")
    data = cfg.audit_data()
    needs = {n.analysis: n for n in budget.audit_needs(cfg, data)}
    assert needs["principal"].bytes == 1000 * 3 * 800  # replicates x cells x bytes
    # items: c has 3 values, x is binned into at most 10 quantile bins
    assert needs["recourse"].bytes == 400 * (3 + 10) * 3
    # per row and method: 2 features x 8 B, and 40 B per value of k
    assert needs["situation"].bytes == 400 * 2 * (2 * 8 + 40 * 2)


def test_a_huge_principal_bootstrap_is_refused_before_any_analysis_runs(tmp_path, monkeypatch):
    folder = _config(tmp_path, "principal: {n_boot: 2000, covariates: [c]}")
    _table().to_csv(folder / "t.csv", index=False)
    monkeypatch.setenv("PRIMAFACIE_MEMORY", "1000000")  # 1 MB: 2000 x 3 x 800 B is 4.8 MB
    ran = []
    import primafacie.principal.engine as pf

    monkeypatch.setattr(pf, "bootstrap_counts", lambda *a, **k: ran.append(1))
    out = tmp_path / "out"
    res = runner.invoke(app, ["audit", str(folder / "audit.yaml"), "--out", str(out)])
    text = " ".join(res.output.split())
    assert res.exit_code == 2, text
    assert (
        "principal: the bootstrap (2000 replicates x 3 covariate cells) would need about " in text
    )
    assert "4.8 MB of memory, more than the 1.0 MB available" in text
    assert "lower analyses.principal.n_boot" in text
    assert ran == [] and not out.exists()


def test_recourse_with_many_levels_is_refused_naming_the_features(tmp_path, monkeypatch):
    folder = _config(
        tmp_path,
        "recourse: {}",
        features="{c: categorical, ref: categorical}",
        extra="max_levels: null\n",
    )
    _table(2000, ids=True).to_csv(folder / "t.csv", index=False)
    monkeypatch.setenv("PRIMAFACIE_MEMORY", "5000000")  # 2000 x 2003 x 3 B = 12 MB
    res = runner.invoke(app, ["audit", str(folder / "audit.yaml"), "--out", str(tmp_path / "o")])
    text = " ".join(res.output.split())
    assert res.exit_code == 2, text
    assert "recourse: the item matrix (2000 rows x 2003 feature values)" in text
    assert "lower the values of the categorical features" in text


def test_the_engine_refuses_through_the_api_too(monkeypatch):
    from primafacie.principal.engine import PrincipalFairness

    monkeypatch.setenv("PRIMAFACIE_MEMORY", "1000000")
    engine = PrincipalFairness(
        definitions=[1], n_boot=100_000, protected={"a": 1}, decision="s", outcome="y",
        favorable=1, outcome_favorable=1,
    )  # fmt: skip
    # the largest n_boot the declaration allows (100,000) still needs 80 MB: refused at 1 MB
    with pytest.raises(InputError, match="80.0 MB of memory"):
        engine.run(_table())


def test_a_memory_error_in_an_analysis_is_exit_2_naming_it(tmp_path, monkeypatch):
    """An allocation that fails anyway (an empty MemoryError) is bad input naming the
    analysis and its setting, even with --keep-going; never an internal error."""
    import primafacie.principal.engine as pf

    folder = _config(tmp_path, "principal: {covariates: [c]}")
    _table().to_csv(folder / "t.csv", index=False)

    def boom(*args, **kwargs):
        raise MemoryError()

    monkeypatch.setattr(pf, "count_cells", boom)
    args = ["audit", str(folder / "audit.yaml"), "--out", str(tmp_path / "o"), "--keep-going"]
    res = runner.invoke(app, args)
    text = " ".join(res.output.split())
    assert res.exit_code == 2, text
    assert "principal: out of memory (an allocation failed); lower analyses.principal.n_boot" in (
        text
    )
    assert "internal error" not in text


def test_a_memory_error_anywhere_in_a_command_is_exit_2(capsys):
    import typer

    @_common.guarded
    def reading() -> None:
        raise MemoryError("Unable to allocate 1.00 GiB for an array")

    with pytest.raises(typer.Exit) as exc:
        reading()
    assert exc.value.exit_code == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "out of memory (Unable to allocate 1.00 GiB for an array); lower the sizes" in err


def test_a_one_analysis_command_names_its_analysis_on_memory_error(capsys):
    import typer

    @_common.guarded
    def certainty() -> None:
        raise MemoryError()

    with pytest.raises(typer.Exit) as exc:
        certainty()
    assert exc.value.exit_code == 2
    err = " ".join(capsys.readouterr().err.split())
    assert (
        "certainty: out of memory (an allocation failed); lower analyses.certainty.n_draws" in err
    )
