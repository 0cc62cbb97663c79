import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from primafacie.io import atomic_output_dir, atomic_write_csv, atomic_write_json, file_sha256


def test_atomic_output_dir_success(tmp_path):
    out = tmp_path / "out"
    with atomic_output_dir(out) as stage:
        (stage / "a.txt").write_text("x")
        (stage / "sub").mkdir()
        (stage / "sub" / "b.txt").write_text("y")
        assert not out.exists()
    assert (out / "a.txt").read_text() == "x"
    assert (out / "sub" / "b.txt").read_text() == "y"
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_atomic_output_dir_failure_leaves_nothing(tmp_path):
    out = tmp_path / "out"
    with pytest.raises(RuntimeError):
        with atomic_output_dir(out) as stage:
            (stage / "a.txt").write_text("x")
            raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []


def test_writers_are_deterministic(tmp_path):
    df = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    p = atomic_write_csv(tmp_path / "t.csv", df)
    assert p.read_bytes() == b"a,b\n1,x\n2,y\n"
    j = atomic_write_json(tmp_path / "t.json", {"b": 1, "a": [1.5]})
    assert json.loads(j.read_text()) == {"a": [1.5], "b": 1}
    assert j.read_text().index('"a"') < j.read_text().index('"b"')
    with pytest.raises(ValueError):
        atomic_write_json(tmp_path / "nan.json", {"x": float("nan")})
    assert not (tmp_path / "nan.json").exists()
    # sha256 of "a,b\n1,x\n2,y\n" computed with hashlib by hand
    import hashlib

    assert file_sha256(p) == hashlib.sha256(b"a,b\n1,x\n2,y\n").hexdigest()


def test_outputs_get_umask_permissions_not_0600(tmp_path):
    import os

    mask = os.umask(0o022)
    os.umask(mask)
    p = atomic_write_csv(tmp_path / "p.csv", pd.DataFrame({"a": [1]}))
    assert p.stat().st_mode & 0o777 == 0o666 & ~mask
    out = tmp_path / "dir"
    with atomic_output_dir(out) as stage:
        atomic_write_csv(stage / "x.csv", pd.DataFrame({"a": [1]}))
    assert (out / "x.csv").stat().st_mode & 0o777 == 0o666 & ~mask


def test_owner_manifest_removes_only_its_own_stale_files(tmp_path):
    """A rerun into the same folder drops the files the same command wrote last time and no
    longer writes; other commands' files and the user's own files stay."""
    import json

    from primafacie.io import MANIFEST, atomic_output_dir

    out = tmp_path / "out"
    with atomic_output_dir(out, owner="audit") as stage:
        (stage / "tables").mkdir()
        (stage / "tables" / "situation.csv").write_text("old\n")
        (stage / "report.html").write_text("v1\n")
    with atomic_output_dir(out, owner="demo") as stage:
        (stage / "inputs.csv").write_text("data\n")
    (out / "notes.txt").write_text("mine\n")
    with atomic_output_dir(out, owner="audit") as stage:
        (stage / "report.html").write_text("v2\n")
    assert not (out / "tables" / "situation.csv").exists()
    assert (out / "report.html").read_text() == "v2\n"
    assert (out / "inputs.csv").exists() and (out / "notes.txt").exists()
    from primafacie.io import file_sha256

    assert json.loads((out / MANIFEST).read_text()) == {
        "audit": {"report.html": file_sha256(out / "report.html")},
        "demo": {"inputs.csv": file_sha256(out / "inputs.csv")},
    }


def test_failed_run_keeps_folder_and_manifest(tmp_path):
    from primafacie.io import MANIFEST, atomic_output_dir

    out = tmp_path / "out"
    with atomic_output_dir(out, owner="audit") as stage:
        (stage / "a.csv").write_text("1\n")
    before = (out / MANIFEST).read_text()
    with pytest.raises(RuntimeError):
        with atomic_output_dir(out, owner="audit") as stage:
            (stage / "b.csv").write_text("2\n")
            raise RuntimeError("analysis failed")
    assert (out / "a.csv").exists() and not (out / "b.csv").exists()
    assert (out / MANIFEST).read_text() == before


def test_manifest_keeps_a_file_the_user_changed_since_primafacie_wrote_it(tmp_path):
    """A file the user edited after a run is theirs now: a rerun that no longer writes it keeps it."""
    from primafacie.io import atomic_output_dir

    out = tmp_path / "out"
    with atomic_output_dir(out, owner="recourse") as stage:
        (stage / "ranking_EE.csv").write_text("v1\n")
        (stage / "rankings.csv").write_text("v1\n")
    (out / "ranking_EE.csv").write_text("v1 + my annotations\n")
    with atomic_output_dir(out, owner="recourse") as stage:
        (stage / "rankings.csv").write_text("v2\n")
    assert (out / "ranking_EE.csv").read_text() == "v1 + my annotations\n"


def test_an_input_inside_the_output_folder_is_refused_before_anything_moves(tmp_path):
    """principal --repair writes repaired_decisions.csv; auditing that file with --out at the
    same folder is refused (issue 19: a rerun could overwrite or remove its own input)."""
    from primafacie.errors import InputError
    from primafacie.io import atomic_output_dir

    out = tmp_path / "out"
    with atomic_output_dir(out, owner="principal") as stage:
        (stage / "summary.csv").write_text("v1\n")
        (stage / "repaired_decisions.csv").write_text("data\n")
    before = _files(out)
    with pytest.raises(InputError, match="holds the input .*repaired_decisions.csv"):
        with atomic_output_dir(out, owner="principal", keep=[out / "repaired_decisions.csv"]):
            pytest.fail("the body must not run")
    assert _files(out) == before


def test_manifest_does_not_follow_a_symlink_to_a_user_file(tmp_path):
    """A user symlink placed where a stale output was must not get its target deleted."""
    from primafacie.io import atomic_output_dir

    out = tmp_path / "out"
    with atomic_output_dir(out, owner="audit") as stage:
        (stage / "old.csv").write_text("v1\n")
        (stage / "report.html").write_text("v1\n")
    (out / "mine.csv").write_text("v1\n")  # same bytes as the stale output
    (out / "old.csv").unlink()
    (out / "old.csv").symlink_to(out / "mine.csv")
    with atomic_output_dir(out, owner="audit") as stage:
        (stage / "report.html").write_text("v2\n")
    assert (out / "mine.csv").read_text() == "v1\n"


def test_manifest_a_file_rewritten_by_another_command_belongs_to_it(tmp_path):
    """audit wrote report.html, then demo wrote it into the same folder: a rerun of audit that
    no longer writes report.html must not delete demo's current report."""
    from primafacie.io import atomic_output_dir

    out = tmp_path / "out"
    with atomic_output_dir(out, owner="audit") as stage:
        (stage / "report.html").write_text("same\n")
        (stage / "results.json").write_text("{}\n")
    with atomic_output_dir(out, owner="demo") as stage:
        (stage / "report.html").write_text("same\n")
    with atomic_output_dir(out, owner="audit") as stage:
        (stage / "results.json").write_text("{}\n")
    assert (out / "report.html").exists()


def test_a_tampered_manifest_cannot_reach_outside_the_folder(tmp_path):
    import json

    from primafacie.io import MANIFEST, atomic_output_dir, file_sha256

    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim.csv"
    victim.write_text("mine\n")
    sha = file_sha256(victim)
    listed = {"../victim.csv": sha, str(victim): sha}
    (out / MANIFEST).write_text(json.dumps({"audit": listed}))
    with atomic_output_dir(out, owner="audit") as stage:
        (stage / "report.html").write_text("v1\n")
    assert victim.read_text() == "mine\n"


# ---------------------------------------------------------------------- issue 11: all or nothing
def _files(folder):
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _dead_pid() -> int:
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_failure_during_the_swap_puts_every_old_file_back(tmp_path, monkeypatch):
    """The swap moves old files out and new ones in; a failure halfway (here the third
    rename) must restore the old report, tables and manifest, with no side folder left."""
    import os

    import primafacie.io as pio

    out = tmp_path / "out"
    with pio.atomic_output_dir(out, owner="audit") as stage:
        (stage / "tables").mkdir()
        (stage / "tables" / "a.csv").write_text("v1\n")
        (stage / "report.html").write_text("v1\n")
    (out / "mine.txt").write_text("user\n")
    before = _files(out)
    calls = {"n": 0}
    real = os.replace

    def flaky(src, dst):
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(28, "No space left on device", str(dst))
        return real(src, dst)

    monkeypatch.setattr(pio.os, "replace", flaky)
    with pytest.raises(OSError, match="No space left"):
        with pio.atomic_output_dir(out, owner="audit") as stage:
            (stage / "tables").mkdir()
            (stage / "tables" / "b.csv").write_text("v2\n")
            (stage / "report.html").write_text("v2\n")
    monkeypatch.setattr(pio.os, "replace", real)
    assert calls["n"] >= 3
    assert _files(out) == before
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_a_failed_swap_into_a_new_folder_leaves_no_folder(tmp_path, monkeypatch):
    import os

    import primafacie.io as pio

    real = os.replace

    def broken(src, dst):
        if str(dst).endswith("b.csv"):
            raise OSError(5, "I/O error", str(dst))
        return real(src, dst)

    monkeypatch.setattr(pio.os, "replace", broken)
    with pytest.raises(OSError):
        with pio.atomic_output_dir(tmp_path / "new", owner="x") as stage:
            (stage / "a.csv").write_text("1\n")
            (stage / "sub").mkdir()
            (stage / "sub" / "b.csv").write_text("2\n")
    assert list(tmp_path.iterdir()) == []


def test_stale_staging_of_a_dead_run_is_removed_and_a_live_one_kept(tmp_path):
    from primafacie.io import atomic_output_dir

    out = tmp_path / "out"
    dead = tmp_path / f".out.staging-{_dead_pid()}-abc123"
    dead.mkdir()
    (dead / "report.html").write_text("half\n")
    live = tmp_path / ".out.staging-1-def456"  # pid 1 is always alive
    live.mkdir()
    other = tmp_path / ".output.staging-999999999-x"  # another folder's: not ours to touch
    other.mkdir()
    with atomic_output_dir(out, owner="demo") as stage:
        (stage / "report.html").write_text("v1\n")
    assert not dead.exists() and live.exists() and other.exists()
    assert (out / "report.html").read_text() == "v1\n"


def test_a_backup_left_by_a_run_killed_mid_swap_is_restored(tmp_path):
    from primafacie.io import clean_stale_staging

    out = tmp_path / "out"
    out.mkdir()
    (out / "report.html").write_text("new, beside old tables\n")
    backup = tmp_path / f".out.backup-{_dead_pid()}-zz"
    (backup / "tables").mkdir(parents=True)
    (backup / "report.html").write_text("old\n")
    (backup / "tables" / "t.csv").write_text("old\n")
    assert clean_stale_staging(out) == [backup]
    assert _files(out) == {"report.html": b"old\n", "tables/t.csv": b"old\n"}
    assert not backup.exists()


def test_out_dot_stages_beside_the_folder(tmp_path, monkeypatch):
    from primafacie.io import atomic_output_dir

    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    seen = []
    with atomic_output_dir(".", owner="x") as stage:
        seen.append(stage.name)
        (stage / "a.txt").write_text("1\n")
    assert seen[0].startswith(".work.staging-")
    assert (work / "a.txt").read_text() == "1\n"


@pytest.mark.parametrize(
    "make, inputs, message",
    [
        (lambda t: (t / "f.txt").write_text("x"), ["f.txt"], "is the input file"),
        (lambda t: (t / "f.txt").write_text("x"), [], "is an existing file"),
        (lambda t: None, [], None),
    ],
)
def test_check_output_dir(tmp_path, make, inputs, message):
    from primafacie.errors import InputError
    from primafacie.io import check_output_dir

    make(tmp_path)
    target = tmp_path / "f.txt"
    if message is None:
        assert check_output_dir(tmp_path / "new" / "deeper") == tmp_path / "new" / "deeper"
        assert not (tmp_path / "new").exists()  # a check creates nothing
        return
    with pytest.raises(InputError, match=message):
        check_output_dir(target, [tmp_path / i for i in inputs])
    with pytest.raises(InputError, match="is a file, so the folder cannot be created"):
        check_output_dir(target / "sub")


def test_sha256_file_hand_values_and_streaming(tmp_path):
    """FIPS 180-2 test vectors: "abc" and the empty string; a 2.5 MiB file (three chunks of
    1 MiB) hashes as the whole byte string does, and the old name is the same function."""
    import hashlib

    from primafacie.io import sha256_file

    (tmp_path / "abc").write_bytes(b"abc")
    (tmp_path / "empty").write_bytes(b"")
    assert sha256_file(tmp_path / "abc") == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )
    assert sha256_file(str(tmp_path / "empty")) == (
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    )
    blob = bytes(range(256)) * (10 * 1024 + 4)  # 2.5 MiB + 1 KiB, not a multiple of a chunk
    (tmp_path / "big").write_bytes(blob)
    assert sha256_file(tmp_path / "big") == hashlib.sha256(blob).hexdigest()
    assert file_sha256 is sha256_file


def test_csv_text_cells_that_start_a_formula_get_a_quote_numbers_do_not(tmp_path):
    from primafacie.io import atomic_write_table, cells_as_values

    df = pd.DataFrame(
        {
            "id": ["=1+2", "+3", "-4", "@SUM(A1)", "\tx", "\ry", "a=b", "ok"],
            "v": [-1.5, 2, -3, 4, 5, 6, 7, 8],
            "c": pd.Categorical(["=x", "y"] * 4),
            "m": [1, "-2", None, 3.5, "=A", "b", 0, -1],
        }
    )
    out = cells_as_values(df)
    assert out["id"].tolist() == ["'=1+2", "'+3", "'-4", "'@SUM(A1)", "'\tx", "'\ry", "a=b", "ok"]
    assert out["v"].tolist() == df["v"].tolist()  # numbers untouched (negative ones too)
    assert out["c"].tolist() == ["'=x", "y"] * 4
    assert out["m"].tolist()[:5] == [1, "'-2", None, 3.5, "'=A"]
    assert df["id"][0] == "=1+2"  # the caller's frame is not changed
    assert cells_as_values(pd.DataFrame({"=h": [1]})).columns.tolist() == ["'=h"]
    path = atomic_write_table(tmp_path / "t.csv", df)
    first = path.read_text().splitlines()[1]
    assert first.startswith("'=1+2,-1.5,'=x,1")


# ---------------------------------------------------------------------- issue 19: any signal
_WRITE_NEW = """
def _write_new(stage):
    (stage / "tables").mkdir()
    (stage / "tables" / "a.csv").write_text("new a\\n")
    (stage / "tables" / "c.csv").write_text("new c\\n")
    (stage / "extra").mkdir()
    (stage / "extra" / "x.txt").write_text("new x\\n")
    (stage / "report.html").write_text("new report\\n")
"""
exec(_WRITE_NEW)  # the new files, written alike in the test and in its subprocess

_SWAP_SCRIPT = r"""
import os, signal, sys, threading, time
from pathlib import Path

import primafacie.io as pio
from primafacie.commands._common import guarded

out, at, how = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
# Ctrl-C as at a terminal, whatever this process inherited: a shell without job control starts
# background jobs with SIGINT ignored, and Python then keeps it ignored, so a suite started
# that way (`make test &` in a script) saw exit 0 and no signal (the deferral rightly restores
# "ignored"); "SIGINT-ignored" sets that state on purpose (what Python keeps when it inherits
# SIGINT ignored)
signal.signal(
    signal.SIGINT, signal.SIG_IGN if how == "SIGINT-ignored" else signal.default_int_handler
)


def hook(step):
    if step != at:
        return
    pid = os.getpid()
    if how == "SIGTERM":
        os.kill(pid, signal.SIGTERM)
    elif how in ("SIGINT2", "SIGINT-ignored"):  # two Ctrl-C 1 ms apart
        os.kill(pid, signal.SIGINT)
        time.sleep(0.001)
        os.kill(pid, signal.SIGINT)
    elif how == "SIGKILL":
        os.kill(pid, signal.SIGKILL)
    time.sleep(0.05)  # paused inside the swap while the signal lands


pio._swap_hook = hook


@guarded
def main():
    with pio.atomic_output_dir(out, owner="audit") as stage:
        _write_new(stage)


{write_new}

try:
    main()
except Exception as exc:  # typer.Exit from guarded
    sys.exit(getattr(exc, "exit_code", 99))
# reached only when no signal surfaced: say what the process saw (make test, under load, twice
# got exit 0 here with nothing on stderr for SIGINT2 at "planned"; not reproduced since)
print(f"no signal surfaced: pending={sorted(signal.sigpending())} "
      f"SIGINT={signal.getsignal(signal.SIGINT)} threads={threading.active_count()} "
      f"blocked={sorted(signal.pthread_sigmask(signal.SIG_BLOCK, []))}", file=sys.stderr)
""".replace("{write_new}", _WRITE_NEW)


def _write_old(stage):
    (stage / "tables").mkdir()
    (stage / "tables" / "a.csv").write_text("old a\n")
    (stage / "tables" / "b.csv").write_text("old b\n")
    (stage / "report.html").write_text("old report\n")


def _old_and_new(tmp_path):
    """The folder's files before and after a complete run of the script (run in-process),
    and the names of the swap's steps."""
    import primafacie.io as pio

    ref = tmp_path / "ref"
    with pio.atomic_output_dir(ref, owner="audit") as stage:
        _write_old(stage)
    (ref / "mine.txt").write_text("the user's\n")
    old = _files(ref)
    steps: list[str] = []
    pio._swap_hook = steps.append
    try:
        with pio.atomic_output_dir(ref, owner="audit") as stage:
            _write_new(stage)  # noqa: F821 - defined by exec above
    finally:
        pio._swap_hook = None
        pio.committed_outputs.clear()
    return old, _files(ref), steps


@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT2", "SIGKILL"])
def test_a_signal_at_any_step_of_the_swap_leaves_exactly_old_or_exactly_new(tmp_path, how):
    """Issue 19 item 7: a signal at each step of the swap (SIGTERM; two SIGINTs 1 ms apart;
    SIGKILL, then the next run's recovery) leaves exactly the old or exactly the new files,
    and the CLI message says which."""
    import shutil
    import signal
    import subprocess
    import sys

    import primafacie.io as pio

    old, new, steps = _old_and_new(tmp_path)
    assert old != new and {"planned", "moved", "committed"} <= set(steps)
    assert any(s.startswith("out ") for s in steps) and any(s.startswith("in ") for s in steps)
    env = {**os.environ, "PYTHONPATH": str(Path(pio.__file__).parents[1])}
    procs = {}
    for i, step in enumerate(steps):  # one process per step, all at once (CI time)
        out = tmp_path / f"case-{i}" / "out"
        with pio.atomic_output_dir(out, owner="audit") as stage:
            _write_old(stage)
        (out / "mine.txt").write_text("the user's\n")
        assert _files(out) == old
        procs[step] = (
            out,
            subprocess.Popen(
                [sys.executable, "-c", _SWAP_SCRIPT, str(out), step, how],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
            ),
        )
    for step, (out, proc) in procs.items():
        _, err = proc.communicate(timeout=120)
        err = " ".join(err.decode().split())
        if how == "SIGKILL":
            assert proc.returncode == -signal.SIGKILL, (step, err)
            pio.clean_stale_staging(out)  # what the next run does first
            expected = new if step == "committed" else old
        else:
            assert proc.returncode == (143 if how == "SIGTERM" else 130), (step, err)
            assert "Traceback" not in err
            expected = new  # the signal waited for the swap to finish
            assert "nothing was written" not in err and "written completely" in err, err
        assert _files(out) == expected, (how, step)
        assert sorted(p.name for p in out.parent.iterdir()) == ["out"], (how, step)
        shutil.rmtree(out.parent)


def test_a_run_that_ignores_sigint_ignores_it_during_the_swap_too(tmp_path):
    """A process started with SIGINT ignored (``nohup``, a background job of a script) keeps
    ignoring Ctrl-C: two SIGINTs in the middle of the swap are not turned into an interrupt
    by its deferral, and the run writes every new file and exits 0. (The script sets SIGINT
    ignored itself: a ``preexec_fn`` is unsafe in a test process that runs threads.)"""
    import subprocess
    import sys

    import primafacie.io as pio

    old, new, _ = _old_and_new(tmp_path)
    out = tmp_path / "case" / "out"
    with pio.atomic_output_dir(out, owner="audit") as stage:
        _write_old(stage)
    (out / "mine.txt").write_text("the user's\n")
    assert _files(out) == old
    env = {**os.environ, "PYTHONPATH": str(Path(pio.__file__).parents[1])}
    proc = subprocess.run(
        [sys.executable, "-c", _SWAP_SCRIPT, str(out), "moved", "SIGINT-ignored"],
        capture_output=True,
        env=env,
        timeout=120,
    )
    err = " ".join(proc.stderr.decode().split())
    assert proc.returncode == 0, err
    assert "no signal surfaced" in err and "SIGINT=1" in err, err  # 1: SIG_IGN, restored
    assert _files(out) == new


def test_recovery_from_a_journal_is_idempotent(tmp_path):
    """A recovery interrupted and run again (here: run twice on a swap killed halfway) still
    gives exactly the old files."""
    import primafacie.io as pio

    out = tmp_path / "out"
    with pio.atomic_output_dir(out, owner="audit") as stage:
        _write_old(stage)
    old = _files(out)
    stage = tmp_path / "stage"
    stage.mkdir()
    (stage / "report.html").write_text("new\n")
    (stage / "z.csv").write_text("new\n")
    backup = tmp_path / f".out.backup-{_dead_pid()}-x1"
    backup.mkdir()
    plan = pio._plan_swap(stage, out, ["report.html", "z.csv"], ["tables/b.csv"])
    pio._write_journal(backup, plan)

    def stop(step):
        if step == "in z.csv":
            raise KeyboardInterrupt

    pio._swap_hook = stop
    try:
        with pytest.raises(KeyboardInterrupt):
            pio._apply_swap(stage, out, backup, plan)
    finally:
        pio._swap_hook = None
    assert _files(out) != old
    pio._rollback(out, backup, plan)  # a first recovery, then the next run's
    assert pio.clean_stale_staging(out) == [backup]
    assert _files(out) == old


def test_signals_are_deferred_and_delivered_once_after_the_block():
    import signal

    import primafacie.io as pio

    seen = []
    previous = signal.signal(signal.SIGTERM, lambda s, f: seen.append(s))
    try:
        with pio._signals_deferred():
            os.kill(os.getpid(), signal.SIGTERM)
            os.kill(os.getpid(), signal.SIGTERM)
            assert seen == []
        assert seen == [signal.SIGTERM]
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_symlinked_folder_inside_out_is_refused_before_any_work(tmp_path):
    from primafacie.errors import InputError
    from primafacie.io import atomic_output_dir, check_output_dir

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "out"
    (out / "dossiers").mkdir(parents=True)
    (out / "dossiers" / "tables").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(InputError, match="dossiers/tables, a symlink to a folder"):
        check_output_dir(out)
    with pytest.raises(InputError, match="a symlink to a folder"):
        with atomic_output_dir(out, owner="audit"):
            pytest.fail("the body must not run")
    assert list(elsewhere.iterdir()) == []
    (out / "dossiers" / "tables").unlink()
    (out / "link.txt").symlink_to(tmp_path / "nowhere")  # a file link is not followed
    assert check_output_dir(out) == out


def test_a_symlink_appearing_during_the_run_is_refused_at_the_swap(tmp_path):
    """The check before work can be raced; the swap's plan checks again, before any move."""
    from primafacie.errors import InputError
    from primafacie.io import atomic_output_dir

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(InputError, match="does not write through symlinks"):
        with atomic_output_dir(out, owner="audit") as stage:
            (stage / "tables").mkdir()
            (stage / "tables" / "t.csv").write_text("1\n")
            (out / "tables").symlink_to(elsewhere, target_is_directory=True)
    assert list(elsewhere.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere", "out"]


# ---------------------------------------------------------------- issue 22: streamed tables
def test_a_table_written_in_chunks_has_the_bytes_of_one_piece(tmp_path):
    from primafacie.io import atomic_write_table, cells_as_values

    rng = np.random.default_rng(0)
    n = 1_003
    df = pd.DataFrame(
        {
            "=name": rng.choice(["=cmd", "ok", "-3", "+x", "a,b", 'q"t'], n),
            "x": np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n)),
            "ci": np.where(rng.random(n) < 0.1, -np.inf, rng.normal(size=n)),
            "k": rng.integers(0, 50, n).astype(np.int32),
            "flag": rng.random(n) < 0.5,
            "m": pd.Categorical(rng.choice(["st", "cst", "@cf"], n)),
            "mixed": pd.Series([1, "-2", None, 3.5, "=A"] * 200 + [0, 1, 2], dtype=object),
        }
    )

    def one_piece(frame: pd.DataFrame) -> bytes:
        return cells_as_values(frame).to_csv(index=False, lineterminator="\n").encode()

    whole = one_piece(df)
    # one-row chunks on the first 41 rows (every kind of cell; 1,003 one-row chunks cost 7 s)
    head = df.head(41)
    assert atomic_write_table(tmp_path / "t1.csv", head, chunk_rows=1).read_bytes() == (
        one_piece(head)
    )
    for rows in (7, 100, 1_002, 1_003, 5_000):
        path = atomic_write_table(tmp_path / f"t{rows}.csv", df, chunk_rows=rows)
        assert path.read_bytes() == whole, rows
    assert whole.splitlines()[0].startswith(b"'=name,x,ci")  # the header, made safe, once
    assert not list(tmp_path.glob(".*.tmp"))  # no temporary file is left


def test_a_chunked_write_that_fails_leaves_no_file(tmp_path):
    from primafacie.io import atomic_write_csv

    df = pd.DataFrame({"a": range(10)})

    def boom(chunk):
        if chunk.index[0] >= 4:  # the third chunk
            raise RuntimeError("disk full")
        return chunk

    with pytest.raises(RuntimeError, match="disk full"):
        atomic_write_csv(tmp_path / "t.csv", df, chunk_rows=2, prepare=boom)
    assert list(tmp_path.iterdir()) == []
