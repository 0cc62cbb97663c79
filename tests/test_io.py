import json

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


def test_manifest_never_removes_the_run_s_own_input(tmp_path):
    """principal --repair writes repaired_decisions.csv; auditing that file with --out at the
    same folder (without --repair) must not delete the input being audited."""
    from primafacie.io import atomic_output_dir

    out = tmp_path / "out"
    with atomic_output_dir(out, owner="principal") as stage:
        (stage / "summary.csv").write_text("v1\n")
        (stage / "repaired_decisions.csv").write_text("data\n")
    with atomic_output_dir(out, owner="principal", keep=[out / "repaired_decisions.csv"]) as stage:
        (stage / "summary.csv").write_text("v2\n")
    assert (out / "repaired_decisions.csv").read_text() == "data\n"


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
