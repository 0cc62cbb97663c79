"""``primafacie alternatives`` (src/primafacie/commands/alternatives.py) and the search in an
audit: on by default with a model and an outcome, a training file, the section's own model,
an ONNX model refused, flags (exit 2 for bad input, never a traceback)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from primafacie.cli import app
from primafacie.config import load_config

from ..alternatives.worlds import write_inputs

runner = CliRunner()

FAST = {"folds": 3, "n_boot": 100, "n_draws": 500}


def _edit(path, **changes):
    cfg = yaml.safe_load(path.read_text())
    cfg.update(changes)
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


def test_on_by_default_with_a_model_and_an_outcome(tmp_path):
    path = write_inputs(tmp_path)
    spec = load_config(path).analyses.alternatives
    assert spec is not None and spec.by_default and spec.folds == 5
    for off in (False, "off", None):
        cfg = load_config(_edit(path, analyses={"groups": {}, "alternatives": off}))
        assert cfg.analyses.alternatives is None
    asked = load_config(_edit(path, analyses={"alternatives": {"folds": 3}})).analyses
    assert asked.alternatives.folds == 3 and not asked.alternatives.by_default
    # no outcome, or a decision that is not a model: not run unless asked for
    no_outcome = yaml.safe_load(path.read_text())
    no_outcome.pop("outcome")
    no_outcome.pop("analyses")
    path.write_text(yaml.safe_dump(no_outcome))
    assert load_config(path).analyses.alternatives is None
    assert (
        load_config(_edit(path, outcome="y", decision={"column": "y"})).analyses.alternatives
        is None
    )


def test_an_audit_runs_it_by_default_and_writes_its_record(tmp_path):
    path = _edit(write_inputs(tmp_path, n=1200, train_n=1200), train="train.csv")
    code = runner.invoke(app, ["audit", str(path), "--out", str(tmp_path / "out"), "--no-progress"])
    assert code.exit_code == 0, code.output
    doc = json.loads((tmp_path / "out" / "results.json").read_text())
    run = doc["analyses"]["alternatives"]
    assert run["status"] == "ok"
    n = run["numbers"]
    assert n["train"] == "file" and n["candidates"] >= 4
    # the training file is an input of the run: hashed in the provenance
    assert {"train data", "data", "decision model"} <= {i["role"] for i in doc["inputs"]}
    for side in ("baseline", "best"):
        assert set(n[side]) >= {"utility", "utility_ci", "disparity", "disparity_ci"}
    assert set(n["best"]) >= {"dropped", "estimator", "params", "p_most_fair"}
    table = pd.read_csv(tmp_path / "out" / "tables" / "alternatives_candidates.csv")
    assert len(table) == n["candidates"] + 1
    html = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert "Less discriminatory alternatives" in html and "Search space: " in html
    off = _edit(path, analyses={"groups": {}, "alternatives": False})
    code = runner.invoke(app, ["audit", str(off), "--out", str(tmp_path / "off"), "--no-progress"])
    assert code.exit_code == 0, code.output
    doc = json.loads((tmp_path / "off" / "results.json").read_text())
    assert "alternatives" not in doc["analyses"]


def test_a_training_file_refits_and_the_audited_rows_compare(tmp_path):
    path = write_inputs(tmp_path, n=1500, train_n=2500, **FAST)
    _edit(path, train="train.csv")
    out = tmp_path / "out"
    res = runner.invoke(app, ["alternatives", "--config", str(path), "--out", str(out)])
    assert res.exit_code == 0, res.output
    doc = json.loads((out / "alternatives.json").read_text())
    s = doc["settings"]
    assert s["train"] == "file" and doc["train"] == "file"
    assert (s["n_search"], s["n_holdout"]) == (2500, 1500)  # every audited row compared
    assert "training data file" in res.output.replace("\n", " ")
    # the section's own key wins over the top-level one
    pd.read_csv(tmp_path / "train.csv").head(900).to_csv(tmp_path / "small.csv", index=False)
    _edit(path, analyses={"alternatives": {**FAST, "train": "small.csv"}})
    res = runner.invoke(app, ["alternatives", "--config", str(path), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert json.loads((out / "alternatives.json").read_text())["settings"]["n_search"] == 900


def _flat(res) -> str:
    """The output without the line breaks the terminal puts inside a long path."""
    return res.output.replace("\n", "")


def test_train_file_is_read_like_the_data_and_checked(tmp_path):
    path = write_inputs(tmp_path, **FAST)
    frame = pd.read_csv(tmp_path / "train.csv")
    frame.to_csv(tmp_path / "semi.csv", sep=";", decimal=",", index=False)
    pd.read_csv(tmp_path / "data.csv").to_csv(tmp_path / "d.csv", sep=";", decimal=",", index=False)
    _edit(path, data={"path": "d.csv", "sep": ";", "decimal": ","}, train="semi.csv")
    res = runner.invoke(app, ["alternatives", "--config", str(path), "--out", str(tmp_path / "o")])
    assert res.exit_code == 0, res.output
    frame.drop(columns=["y"]).to_csv(tmp_path / "semi.csv", sep=";", decimal=",", index=False)
    res = runner.invoke(app, ["alternatives", "--config", str(path), "--out", str(tmp_path / "p")])
    assert res.exit_code == 2 and "semi.csv" in _flat(res) and "y" in _flat(res), res.output
    _edit(path, train="missing.csv")
    res = runner.invoke(app, ["alternatives", "--config", str(path), "--out", str(tmp_path / "q")])
    assert res.exit_code == 2 and "missing.csv" in _flat(res), res.output
    assert not (tmp_path / "p").exists() and not (tmp_path / "q").exists()


def test_the_sections_own_model_and_onnx_refused(tmp_path):
    from sklearn.tree import DecisionTreeClassifier

    from primafacie.modelfiles import skops_bytes

    from ..alternatives.worlds import FEATURES

    path = write_inputs(tmp_path, **FAST)
    train = pd.read_csv(tmp_path / "train.csv")
    tree = DecisionTreeClassifier(max_depth=3, random_state=0)
    (tmp_path / "tree.skops").write_bytes(skops_bytes(tree.fit(train[list(FEATURES)], train["y"])))
    _edit(path, analyses={"alternatives": {**FAST, "model": "tree.skops"}})
    out = tmp_path / "out"
    res = runner.invoke(app, ["alternatives", "--config", str(path), "--out", str(out)])
    assert res.exit_code == 0, res.output
    table = pd.read_csv(out / "candidates.csv")
    # the refitted tree has the tree's own (coarse) scores: a few distinct thresholds
    assert table["estimator"].eq("audited").all()
    skl2onnx = pytest.importorskip("skl2onnx")
    X = train[list(FEATURES)].to_numpy(np.float32)[:1]
    onx = skl2onnx.to_onnx(tree, X, options={"zipmap": False})
    (tmp_path / "tree.onnx").write_bytes(onx.SerializeToString())
    _edit(path, analyses={"alternatives": {**FAST, "model": "tree.onnx"}})
    res = runner.invoke(app, ["alternatives", "--config", str(path), "--out", str(tmp_path / "x")])
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())
    assert "analyses.alternatives.model" in text and "cannot be refitted" in text
    assert "scikit-learn model file" in text and "Traceback" not in res.output


def test_flags_run_it_and_are_refused_with_config(tmp_path):
    path = write_inputs(tmp_path, **FAST)
    args = ["alternatives", "--data", str(tmp_path / "data.csv"),
            "--model", str(tmp_path / "model.skops"), "--protected", "group=p", "--outcome", "y",
            "--folds", "3", "--n-boot", "100", "--n-draws", "500"]  # fmt: skip
    res = runner.invoke(app, [*args, "--out", str(tmp_path / "a")])
    assert res.exit_code == 0, res.output
    flags = pd.read_csv(tmp_path / "a" / "candidates.csv")
    res = runner.invoke(app, ["alternatives", "--config", str(path), "--out", str(tmp_path / "b")])
    assert res.exit_code == 0, res.output
    pd.testing.assert_frame_equal(flags, pd.read_csv(tmp_path / "b" / "candidates.csv"))
    res = runner.invoke(app, [*args, "--folds", "1", "--out", str(tmp_path / "c")])
    assert res.exit_code == 2
    assert "--folds, analyses.alternatives.folds" in " ".join(res.output.split())
    res = runner.invoke(app, ["alternatives", "--config", str(path), "--folds", "3"])
    assert res.exit_code == 2 and "--folds" in res.output
    res = runner.invoke(app, ["alternatives", "--data", str(tmp_path / "data.csv")])
    assert res.exit_code == 2 and "--model" in res.output


def test_the_data_file_flags_read_data_and_train_and_row_flags_are_refused(tmp_path):
    """--sep (and the other file options) read --data and --train alike; --n-draws 0 is null
    (no posterior draws); --where, --dropna, --weights and --reference are refused by name."""
    write_inputs(tmp_path, n=600, train_n=600)
    for name in ("data", "train"):
        pd.read_csv(tmp_path / f"{name}.csv").to_csv(tmp_path / f"{name}.txt", sep=";",
                                                     index=False)  # fmt: skip
    base = ["alternatives", "--model", str(tmp_path / "model.skops"), "--protected", "group=p",
            "--outcome", "y", "--folds", "3", "--n-boot", "100", "--n-draws", "0"]  # fmt: skip
    comma = [*base, "--data", str(tmp_path / "data.csv"), "--train", str(tmp_path / "train.csv")]
    res = runner.invoke(app, [*comma, "--out", str(tmp_path / "a")])
    assert res.exit_code == 0, res.output
    semi = [*base, "--data", str(tmp_path / "data.txt"), "--train", str(tmp_path / "train.txt")]
    res = runner.invoke(app, [*semi, "--sep", ";", "--out", str(tmp_path / "b")])
    assert res.exit_code == 0, res.output
    a, b = (pd.read_csv(tmp_path / d / "candidates.csv") for d in ("a", "b"))
    pd.testing.assert_frame_equal(a, b)
    doc = json.loads((tmp_path / "a" / "alternatives.json").read_text())
    assert doc["train"] == "file" and doc["best"]["p_most_fair"] is None
    for extra in (["--where", "x > 0"], ["--dropna", "all"], ["--weights", "x"],
                  ["--reference", "r"]):  # fmt: skip
        res = runner.invoke(app, [*comma, *extra, "--out", str(tmp_path / "c")])
        assert res.exit_code == 2, (extra, res.output)
        assert f"{extra[0]}: not applied by alternatives" in " ".join(res.output.split())
        assert not (tmp_path / "c").exists()


def test_config_whose_search_is_unavailable_is_refused_naming_the_section(tmp_path):
    """On by default with an ONNX decision model (named .model), the audit goes on without the
    search; the command, asked for the search alone, exits 2 naming the section and what to
    give."""
    skl2onnx = pytest.importorskip("skl2onnx")
    from ..alternatives.worlds import FEATURES

    path = write_inputs(tmp_path, n=300, train_n=300)
    train = pd.read_csv(tmp_path / "train.csv")
    from sklearn.linear_model import LogisticRegression

    lr = LogisticRegression().fit(train[list(FEATURES)].to_numpy(np.float32), train["y"])
    X = train[list(FEATURES)].to_numpy(np.float32)[:1]
    onx = skl2onnx.to_onnx(lr, X, options={"zipmap": False})
    # an ONNX file under another extension: known by its first bytes, after the default is set
    (tmp_path / "lr.model").write_bytes(onx.SerializeToString())
    _edit(path, decision={"model": "lr.model"})
    assert load_config(path).analyses.alternatives.by_default
    res = runner.invoke(app, ["alternatives", "--config", str(path), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())
    assert "analyses.alternatives: decision.model: an ONNX model cannot be refitted" in text
    assert "give analyses.alternatives.model: FILE" in text and "Traceback" not in res.output
    assert not (tmp_path / "o").exists()
