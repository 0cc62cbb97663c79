import pytest

from primafacie.errors import DataMissingError
from primafacie.paths import PROJECT_ROOT, require_file, resolve_data_dir


def test_resolution_order(tmp_path, monkeypatch):
    monkeypatch.setenv("PRIMAFACIE_DATA", str(tmp_path))
    assert resolve_data_dir(None) == tmp_path
    assert resolve_data_dir("/x/y").as_posix() == "/x/y"
    monkeypatch.delenv("PRIMAFACIE_DATA")
    assert resolve_data_dir(None) == (PROJECT_ROOT.parent / "shared" / "data").resolve()


def test_require_file_names_missing(tmp_path):
    (tmp_path / "adult").mkdir()
    (tmp_path / "adult" / "adult.data").write_text("x")
    assert require_file(tmp_path, "adult", "adult.data").name == "adult.data"
    with pytest.raises(DataMissingError, match="adult/adult.test"):
        require_file(tmp_path, "adult", "adult.test")
