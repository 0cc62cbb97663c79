"""The data flags of every per-analysis command (``commands/_data.py``): a run with the flags
writes and prints exactly what the same run from a configuration file does, and each bad value
exits 2 naming its flag."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from primafacie.cli import app
from primafacie.commands import _common
from primafacie.commands._data import DATA_FLAGS, config_from_flags

runner = CliRunner()


@pytest.fixture(autouse=True)
def wide_consoles(monkeypatch):
    monkeypatch.setattr(_common.err_console, "width", 400)
    monkeypatch.setattr(_common.console, "width", 200)


@pytest.fixture(scope="module")
def people(tmp_path_factory):
    """400 applicants in a ';'-separated Latin-1 file with '?' for missing and a decimal
    comma: race (Black, White, Hispanic), sex, a score x, decision d, outcome y, weights w,
    year; two missing decisions in 2023."""
    rng = np.random.default_rng(7)
    n = 400
    df = pd.DataFrame({
        "race": rng.choice(["Black", "White", "Hispanic"], n, p=[0.35, 0.45, 0.2]),
        "sex": rng.choice(["f", "m"], n),
        "x": np.round(rng.normal(size=n), 3),
        "y": rng.integers(0, 2, n),
        "w": rng.choice([1.0, 2.0, 3.5], n),
        "year": rng.choice([2023, 2024], n),
        "city": rng.choice(["Zürich", "Genève"], n),
    })  # fmt: skip
    df["d"] = ((df["x"] + 0.5 * (df["race"] == "White")) > 0).astype(int).astype(object)
    missing = np.flatnonzero(df["year"] == 2023)[:2]
    df.loc[missing, "d"] = "?"
    folder = tmp_path_factory.mktemp("people")
    path = folder / "people.csv"
    text = df.to_csv(index=False, sep=";", decimal=",")
    path.write_bytes(text.encode("latin-1"))
    return path, df


#: The reading flags and the same keys of audit.yaml.
READ_FLAGS = ["--sep", ";", "--decimal", ",", "--encoding", "latin-1", "--na-values", "?",
              "--where", "year == 2024", "--dropna", "all"]  # fmt: skip


def _read_keys(path):
    return {"data": {"path": str(path), "sep": ";", "decimal": ",", "encoding": "latin-1",
                     "na_values": ["?"]}, "where": "year == 2024", "dropna": True}  # fmt: skip


def _run(args):
    res = runner.invoke(app, [str(a) for a in args])
    return res


def _outputs(out):
    # the manifest records the input files (the configuration file is one of them)
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and p.suffix != ".png" and p.name != ".primafacie-manifest.json"}  # fmt: skip


def _same(tmp_path, flags, doc, command, files_differ=()):
    """Run ``command`` with ``flags``, then with ``--config`` of ``doc``, into the same
    folder; both must exit 0 and give the same files and stdout."""
    out = tmp_path / "out"
    first = _run([command, *flags, "--out", out])
    assert first.exit_code == 0, first.output
    got = _outputs(out)
    shutil.rmtree(out)
    (tmp_path / "audit.yaml").write_text(
        yaml.safe_dump(doc, allow_unicode=True, sort_keys=False), "utf-8"
    )
    second = _run([command, "--config", tmp_path / "audit.yaml", "--out", out])
    assert second.exit_code == 0, second.output
    want = _outputs(out)
    assert sorted(got) == sorted(want)
    for name in got:
        if name not in files_differ:
            assert got[name] == want[name], name
    assert first.stdout == second.stdout
    return got


def test_groups_flags_equal_the_config(people, tmp_path):
    path, df = people
    flags = ["--data", path, *READ_FLAGS, "--protected", "race=Black", "--reference", "White",
             "--decision", "d", "--weights", "w", "--outcome", "y"]  # fmt: skip
    doc = {**_read_keys(path), "decision": {"column": "d"}, "features": {}, "outcome": "y",
           "protected": {"race": {"values": "Black", "reference": ["White"]}}, "weights": "w",
           "analyses": {"groups": {}}}  # fmt: skip
    got = _same(tmp_path, flags, doc, "groups")
    # the hand count: 2024, decision known, Black vs White only, weighted by w
    kept = df[(df["year"] == 2024) & (df["d"] != "?")]
    rates = pd.read_csv(pd.io.common.BytesIO(got["rates.csv"]))
    black = kept[kept["race"] == "Black"]
    row = rates[(rates["group"] == "Black") & (rates["metric"] == "selection_rate")].iloc[0]
    expected = (black["w"] * black["d"].astype(int)).sum() / black["w"].sum()
    assert row["rate"] == pytest.approx(expected)
    assert set(rates["reference"].astype(str)) == {"White"}


def test_reader_flag_equals_the_config_and_reads_what_pandas_reads(people, tmp_path):
    path, _ = people
    flags = ["--data", path, *READ_FLAGS, "--reader", "duckdb", "--protected", "race=Black",
             "--decision", "d"]  # fmt: skip
    doc = {**_read_keys(path), "decision": {"column": "d"}, "features": {},
           "protected": {"race": "Black"}, "analyses": {"groups": {}}}  # fmt: skip
    doc["data"] = {**doc["data"], "reader": "duckdb"}
    duck = _same(tmp_path, flags, doc, "groups")
    flags_pandas = [f for f in flags if f not in ("--reader", "duckdb")]
    res = _run(["groups", *flags_pandas, "--out", tmp_path / "pandas"])
    assert res.exit_code == 0, res.output
    # the same rates whichever reader read the file
    assert duck["rates.csv"] == (tmp_path / "pandas" / "rates.csv").read_bytes()


def test_principal_flags_equal_the_config(people, tmp_path):
    path, _ = people
    flags = ["--data", path, *READ_FLAGS, "--protected", "race=Black", "--reference", "White",
             "--decision", "d", "--outcome", "y", "--n-boot", "0"]  # fmt: skip
    doc = {**_read_keys(path), "decision": {"column": "d"}, "features": {}, "outcome": "y",
           "protected": {"race": {"values": "Black", "reference": ["White"]}},
           "analyses": {"principal": {"n_boot": 0}}}  # fmt: skip
    _same(tmp_path, flags, doc, "principal")


def test_situation_flags_equal_the_config(people, tmp_path):
    path, _ = people
    flags = ["--data", path, *READ_FLAGS, "--protected", "race=Black", "--reference", "White",
             "--feature", "x", "--feature", "sex:categorical", "--decision", "d",
             "--k", "5", "--method", "st"]  # fmt: skip
    doc = {**_read_keys(path), "decision": {"column": "d"},
           "features": {"x": "numeric", "sex": "categorical"},
           "protected": {"race": {"values": "Black", "reference": ["White"]}},
           "analyses": {"situation": {"k": [5], "methods": ["st"]}}}  # fmt: skip
    _same(tmp_path, flags, doc, "situation")


def test_ll144_flags_equal_the_config(people, tmp_path):
    path, _ = people
    flags = ["--data", path, *READ_FLAGS, "--decision", "d", "--category", "sex=sex",
             "--category", "race/ethnicity=race", "--audit-date", "2026-11-26"]  # fmt: skip
    doc = {**_read_keys(path), "decision": {"column": "d"}, "features": {},
           "protected": {"race": "Black"},
           "analyses": {"ll144": {"categories": {"sex": "sex", "race/ethnicity": "race"},
                                  "audit_date": "2026-11-26"}}}  # fmt: skip
    _same(tmp_path, flags, doc, "ll144")


def test_certainty_flags_equal_the_config(people, tmp_path):
    path, _ = people
    flags = ["--data", path, *READ_FLAGS, "--protected", "race", "--column", "clerk=d",
             "--weights", "w", "--n-draws", "0"]  # fmt: skip
    doc = {**_read_keys(path), "decision": {"column": "d"}, "features": {}, "weights": "w",
           "protected": {"race": "Black"},
           "analyses": {"groups": None, "certainty": {
               "protected": ["race"], "n_draws": None,
               "decision_makers": {"clerk": {"column": "d"}}}}}  # fmt: skip
    _same(tmp_path, flags, doc, "certainty")


def test_recourse_flags_read_what_the_same_file_as_the_defaults_gives(people, tmp_path):
    """recourse's flags mine the table as read; read with the flags, it is the table a
    comma-separated UTF-8 file of the same kept rows gives with the defaults."""
    path, df = people
    kept = df[(df["year"] == 2024) & (df["d"] != "?")].drop(columns=["year", "w"])
    kept = kept.assign(d=kept["d"].astype(int))
    plain = tmp_path / "plain.csv"
    kept.to_csv(plain, index=False)
    common = ["--rule", "x > 0.2", "--protected", "race", "--exclude", "d", "--exclude", "y",
              "--metrics", "EE", "--n-boot", "0"]  # fmt: skip
    a = _run(["recourse", "--data", path, *READ_FLAGS, *common, "--exclude", "w",
              "--exclude", "year", "--out", tmp_path / "a"])  # fmt: skip
    b = _run(["recourse", "--data", plain, *common, "--out", tmp_path / "b"])
    assert a.exit_code == 0 and b.exit_code == 0, a.output + b.output
    assert _outputs(tmp_path / "a") == _outputs(tmp_path / "b")


def test_no_header_and_names_read_a_headerless_file(people, tmp_path):
    path, df = people
    lines = path.read_bytes().split(b"\n", 1)[1]
    bare = tmp_path / "bare.csv"
    bare.write_bytes(lines)
    names = ",".join(df.columns)
    base = ["groups", "--protected", "race=Black", "--decision", "d", *READ_FLAGS]
    a = _run([*base, "--data", bare, "--no-header", "--names", names, "--out", tmp_path / "a"])
    b = _run([*base, "--data", path, "--out", tmp_path / "b"])
    assert a.exit_code == 0 and b.exit_code == 0, a.output + b.output
    assert _outputs(tmp_path / "a") == _outputs(tmp_path / "b")


# ------------------------------------------------------------------------ bad values
_GROUPS = ["groups", "--protected", "race=Black", "--decision", "d", "--sep", ";",
           "--decimal", ",", "--encoding", "latin-1", "--na-values", "?", "--dropna", "all"]  # fmt: skip


@pytest.mark.parametrize(
    "args, message",
    [
        (["--weights", "wt"], "--weights (weights): weights column 'wt'"),
        (["--weights", "race"], "--weights (weights): weights column 'race' is also protected"),
        (["--weights", "city"], "--weights (weights): weights column 'city' must be numeric"),
        (["--where", "year ==== 2024"], "--where (where):"),
        (["--where", "year == 1999"], "--where (where): 'year == 1999' selects none"),
        (["--where", "nope > 1"], "--where (where):"),
        (["--reference", "Caucasian"], "--reference: protected.race.reference value 'Caucasian' "
                                       "of protected column 'race' never occurs"),
        (["--reference", "white"], "the data spell it 'White'"),
        (["--reference", "Black"], "are both protected and reference"),
        (["--reference", "rest", "--reference", "White"], "--reference rest stands alone"),
        (["--protected", "sex=f", "--reference", "White"], "--reference 'White': with 2"),
        (["--dropna", "age,d"], "--dropna (dropna): column 'age' is not in the data"),
        (["--names", "a,b"], "names lists 2 columns but the header has 8"),
        (["--sep", ":"], "--sep (data.sep)"),
        (["--decimal", ";"], "--decimal (data.decimal)"),
        (["--encoding", "klingon"], "--encoding (data.encoding): 'klingon' is not a known"),
        (["--no-header"], "--names (data.names): header: false needs names"),
        (["--sheet", "1"], "--sheet (data.sheet): sheet applies to Excel files"),
        (["--reader", "polars"], "--reader (data.reader)"),
    ],
)  # fmt: skip
def test_a_bad_data_flag_exits_2_naming_it(people, tmp_path, args, message):
    path, _ = people
    out = tmp_path / "out"
    res = _run([*_GROUPS, "--data", path, *args, "--out", out])
    assert res.exit_code == 2, res.output
    said = " ".join(res.output.split())
    assert message in said and (said.startswith("error: " + args[0]) or "--" in message), said
    assert not out.exists()


def test_names_count_wrong_exits_2_naming_the_flag(people, tmp_path):
    path, _ = people
    res = _run([*_GROUPS, "--data", path, "--no-header", "--names", "a,b,c", "--out",
                tmp_path / "o"])  # fmt: skip
    assert res.exit_code == 2, res.output
    said = " ".join(res.output.split())
    assert "--protected 'race' is not a column" in said or "names" in said


@pytest.mark.parametrize(
    "command, args, message",
    [
        (["principal", "--protected", "race=Black", "--outcome", "y", "--decision", "d"],
         ["--weights", "w"], "weights are not defined for principal"),
        (["situation", "--protected", "race=Black", "--feature", "x", "--decision", "d"],
         ["--weights", "w"], "weights are not defined for situation"),
        (["recourse", "--rule", "x > 0", "--protected", "race"], ["--weights", "w"],
         "weights are not defined for recourse"),
        (["ll144", "--decision", "d", "--category", "sex=sex"], ["--weights", "w"],
         "weights are not defined for"),
        (["certainty", "--protected", "race", "--column", "c=d"], ["--reference", "White"],
         "--reference: this command's groups are every value of a column"),
        (["ll144", "--decision", "d", "--category", "sex=sexe"], [],
         "--category 'sexe' is not a column"),
    ],
)  # fmt: skip
def test_a_flag_an_analysis_does_not_define_is_refused(people, tmp_path, command, args, message):
    path, _ = people
    read = ["--sep", ";", "--decimal", ",", "--encoding", "latin-1", "--na-values", "?",
            "--dropna", "all"]  # fmt: skip
    res = _run([*command, "--data", path, *read, *args, "--out", tmp_path / "o"])
    assert res.exit_code == 2, res.output
    assert message in " ".join(res.output.split())


def test_data_flags_with_config_are_refused_naming_the_key(people, tmp_path):
    path, _ = people
    doc = {**_read_keys(path), "decision": {"column": "d"}, "features": {},
           "protected": {"race": "Black"}}  # fmt: skip
    (tmp_path / "audit.yaml").write_text(
        yaml.safe_dump(doc, allow_unicode=True, sort_keys=False), "utf-8"
    )
    for command in ("groups", "principal", "situation", "certainty", "recourse", "ll144",
                    "alternatives"):  # fmt: skip
        res = _run([command, "--config", tmp_path / "audit.yaml", "--where", "x > 0", "--out",
                    tmp_path / "o"])  # fmt: skip
        assert res.exit_code == 2, (command, res.output)
        assert "drop --where or set where in the file" in " ".join(res.output.split())


def test_every_command_lists_the_data_flags_and_an_example_with_them():
    for command in ("groups", "principal", "situation", "certainty", "recourse", "ll144"):
        res = runner.invoke(app, [command, "--help"], terminal_width=200)
        text = " ".join(res.output.split())
        for f in DATA_FLAGS:
            assert f.flag in text, (command, f.flag)
        assert "--where" in text.split("Reading the data")[0], command  # in the example


def test_config_from_flags_spells_the_keys_as_audit_yaml():
    doc = config_from_flags(
        {"reference": ["race=White,Asian", "sex=rest"], "weights": "w", "dropna": "a, b",
         "sep": "tab", "no_header": True, "names": "a,b", "na_values": ["?", "NA"],
         "sheet": None}, "x.csv", {"race": "Black", "sex": "f"})  # fmt: skip
    assert doc == {
        "data": {"path": "x.csv", "sep": "\t", "header": False, "names": ["a", "b"],
                 "na_values": ["?", "NA"]},
        "protected": {"race": {"values": "Black", "reference": ["White", "Asian"]},
                      "sex": {"values": "f", "reference": "rest"}},
        "weights": "w", "dropna": ["a", "b"],
    }  # fmt: skip
