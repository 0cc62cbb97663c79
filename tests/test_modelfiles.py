"""Model files that cannot run code (issue 19 item 1): skops, ONNX, and pickles only when trusted.

A hostile pickle here is a real one: its ``__reduce__`` makes unpickling call
:func:`_payload`, which appends a line to a marker file (a real attacker would run a shell
command) and then returns a working model, so a run that loaded it would look normal.
"""

from __future__ import annotations

import hashlib
import json
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from typer.testing import CliRunner

from primafacie.cli import app
from primafacie.config import load_config
from primafacie.decisions import ModelDecider, load_model
from primafacie.errors import InputError
from primafacie.modelfiles import (
    ModelCache,
    OnnxModel,
    load_model_file,
    model_format,
    skops_bytes,
)

sio = pytest.importorskip("skops.io")
runner = CliRunner()
N = 120


def _payload(marker: str, model: Any) -> Any:
    """What the hostile pickle runs when it is loaded: leave a trace, return the model."""
    with open(marker, "a") as fh:
        fh.write("ran\n")
    return model


class Hostile:
    """Pickles to "call _payload(marker, model)"."""

    def __init__(self, model: Any, marker: Path):
        self.model, self.marker = model, marker

    def __reduce__(self) -> tuple:
        return (_payload, (str(self.marker), self.model))


def frame() -> pd.DataFrame:
    """120 applicants; half women; approved iff income >= 60 (a logistic fit recovers it)."""
    i = np.arange(N)
    return pd.DataFrame(
        {
            "gender": np.where(i % 2 == 0, "female", "male"),
            "income": (i * 7) % 100 + 10.0,
            "years": (i % 13).astype(float),
            "approved": (((i * 7) % 100 + 10) >= 60).astype(int),
        }
    )


def fitted(kind: str = "lr") -> Any:
    df = frame()
    est = (
        LogisticRegression(C=100.0)
        if kind == "lr"
        else GradientBoostingClassifier(n_estimators=5, random_state=0)
    )
    return est.fit(df[["income", "years"]], df["approved"])


def hostile_pickle(path: Path, marker: Path) -> Path:
    path.write_bytes(pickle.dumps(Hostile(fitted(), marker)))
    return path


def loads(marker: Path) -> int:
    """How many times the hostile pickle ran."""
    return len(marker.read_text().splitlines()) if marker.exists() else 0


def write_audit(tmp: Path, decision: dict, makers: dict | None = None) -> Path:
    frame().to_csv(tmp / "data.csv", index=False)
    cfg: dict[str, Any] = {
        "data": "data.csv",
        "decision": decision,
        "features": {"income": "numeric", "years": "numeric"},
        "protected": {"gender": "female"},
        "analyses": {"groups": {"min_group": 5}},
    }
    if makers is not None:
        cfg["analyses"]["certainty"] = {"decision_makers": makers, "n_draws": None}
    (tmp / "audit.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    return tmp / "audit.yaml"


def run(args: list[str]) -> tuple[int, str]:
    res = runner.invoke(app, args)
    assert "Traceback" not in res.output and "internal error" not in res.output, res.output
    return res.exit_code, " ".join(res.output.split())


# ----------------------------------------------------------------------------- formats
def test_model_format_by_extension_then_by_content():
    assert model_format("m.SKOPS", b"") == "skops"
    assert model_format("m.onnx", b"") == "onnx"
    assert model_format("m.joblib", b"PK") == "pickle"  # the extension decides
    assert model_format("m.bin", b"PK\x03\x04") == "skops"
    assert model_format("m.bin", b"\x08\x07") == "onnx"
    assert model_format("m", b"\x80\x05") == "pickle"
    assert model_format("m", b"") == "pickle"  # unknown: the refused format


def test_skops_round_trip_records_format_and_hash(tmp_path):
    est = fitted("gb")  # holds sklearn.tree._tree.Tree, outside skops' own defaults
    path = tmp_path / "gb.skops"
    path.write_bytes(skops_bytes(est))
    loaded = load_model_file(path)
    assert loaded.format == "skops"
    assert loaded.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    X = frame()[["income", "years"]]
    assert loaded.model.predict(X).tolist() == est.predict(X).tolist()
    assert load_model(path).predict(X).tolist() == est.predict(X).tolist()


def test_skops_bytes_are_deterministic_and_load_like_skops_dump(tmp_path):
    est = fitted("gb")
    assert skops_bytes(est) == skops_bytes(fitted("gb"))
    sio.dump(est, tmp_path / "plain.skops")
    (tmp_path / "ours.skops").write_bytes(skops_bytes(est))
    X = frame()[["income", "years"]]
    a = load_model(tmp_path / "plain.skops").predict_proba(X)
    b = load_model(tmp_path / "ours.skops").predict_proba(X)
    assert np.array_equal(a, b)


def _double(X: Any) -> Any:
    return X * 2


def test_skops_untrusted_type_is_refused_naming_it_and_the_key(tmp_path):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    df = frame()
    est = make_pipeline(FunctionTransformer(_double), LogisticRegression())
    est.fit(df[["income", "years"]], df["approved"])
    path = tmp_path / "p.skops"
    sio.dump(est, path)
    name = f"{__name__}._double"
    with pytest.raises(InputError, match="not trusted") as info:
        load_model_file(path, key="decision")
    assert name in str(info.value) and "decision.trusted_types" in str(info.value)
    with pytest.raises(InputError, match="--trusted-type"):
        load_model_file(path)  # the CLI's wording
    # trusted by the configuration: loads and predicts as the original
    model = load_model_file(path, trusted_types=[name]).model
    X = df[["income", "years"]]
    assert model.predict(X).tolist() == est.predict(X).tolist()


def test_sklearn_functions_are_not_trusted_by_default():
    from primafacie.modelfiles import _default_trusted

    assert _default_trusted("sklearn.tree._tree.Tree")
    assert _default_trusted("numpy.float64")
    assert not _default_trusted("sklearn.utils.shuffle")  # a function, not a class
    assert not _default_trusted("numpy.load")
    assert not _default_trusted("os.system")
    assert not _default_trusted("sklearn.nope.Nothing")


def test_onnx_model_gives_the_sklearn_decisions(tmp_path):
    skl2onnx = pytest.importorskip("skl2onnx")
    df = frame()
    X = df[["income", "years"]]
    for kind in ("lr", "gb"):
        est = fitted(kind)
        onx = skl2onnx.to_onnx(est, X.to_numpy(np.float32)[:1], options={"zipmap": False})
        path = tmp_path / f"{kind}.onnx"
        path.write_bytes(onx.SerializeToString())
        loaded = load_model_file(path)
        assert loaded.format == "onnx" and isinstance(loaded.model, OnnxModel)
        assert loaded.model.n_features_in_ == 2
        assert loaded.model.predict(X).tolist() == est.predict(X).tolist()
        # "1" from a command line names label 1 although ONNX lists no classes_
        dec = ModelDecider(loaded.model, features=["income", "years"], favorable="1")
        assert dec.predict(df).tolist() == est.predict(X).tolist()
        # pickled for a Dask worker: the session is rebuilt from the bytes
        clone = pickle.loads(pickle.dumps(loaded.model))
        assert clone.predict(X).tolist() == est.predict(X).tolist()


def test_onnx_with_one_input_per_column(tmp_path):
    skl2onnx = pytest.importorskip("skl2onnx")
    from skl2onnx.common.data_types import FloatTensorType

    df = frame()
    est = fitted()
    types = [("income", FloatTensorType([None, 1])), ("years", FloatTensorType([None, 1]))]
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import Pipeline

    pipe = Pipeline([("cols", ColumnTransformer([("p", "passthrough", [0, 1])])), ("lr", est)]).fit(
        df[["income", "years"]].to_numpy(), df["approved"]
    )
    onx = skl2onnx.convert_sklearn(pipe, initial_types=types, options={id(est): {"zipmap": False}})
    (tmp_path / "cols.onnx").write_bytes(onx.SerializeToString())
    model = load_model(tmp_path / "cols.onnx")
    assert list(model.feature_names_in_) == ["income", "years"]
    shuffled = df[["years", "gender", "income"]]  # columns found by name
    expected = pipe.predict(df[["income", "years"]].to_numpy())
    assert model.predict(shuffled).tolist() == expected.tolist()


def test_corrupt_skops_and_onnx_are_input_errors(tmp_path):
    (tmp_path / "bad.skops").write_bytes(b"PK\x03\x04 not a zip")
    (tmp_path / "bad.onnx").write_bytes(b"\x08\x01 not a graph \xff\xfe")
    with pytest.raises(InputError, match="bad.skops"):
        load_model_file(tmp_path / "bad.skops")
    with pytest.raises(InputError, match="bad.onnx"):
        load_model_file(tmp_path / "bad.onnx")


# ----------------------------------------------------------------------------- pickles
def test_pickle_is_refused_without_running_it(tmp_path):
    marker = tmp_path / "marker"
    path = hostile_pickle(tmp_path / "m.joblib", marker)
    with pytest.raises(InputError) as info:
        load_model_file(path, key="decision")
    msg = str(info.value)
    assert "runs arbitrary code" in msg
    assert "skops.io.dump(joblib.load('m.joblib'), 'm.skops')" in msg
    assert "trust: pickle" in msg and "decision" in msg
    with pytest.raises(InputError, match="--trust-pickle"):
        load_model(path)
    assert not marker.exists()
    # a pickle under any other name is refused too (format from the content)
    (tmp_path / "m.model").write_bytes(path.read_bytes())
    with pytest.raises(InputError, match="runs arbitrary code"):
        load_model_file(tmp_path / "m.model")
    assert not marker.exists()


def test_trusted_pickle_is_loaded_once_per_cache(tmp_path):
    marker = tmp_path / "marker"
    path = hostile_pickle(tmp_path / "m.joblib", marker)
    cache = ModelCache()
    a = cache.load(path, trust="pickle")
    b = cache.load(tmp_path / "." / "m.joblib", trust="pickle")
    assert a is b and a.format == "pickle" and loads(marker) == 1
    assert a.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    hostile_pickle(path, marker)  # same bytes: still cached
    assert cache.load(path, trust="pickle") is a and loads(marker) == 1


def test_audit_refuses_a_pickle_and_nothing_runs(tmp_path):
    marker = tmp_path / "marker"
    hostile_pickle(tmp_path / "m.joblib", marker)
    cfg = write_audit(tmp_path, {"model": "m.joblib"})
    code, out = run(["audit", str(cfg), "--out", str(tmp_path / "out"), "--no-progress"])
    assert code == 2, out
    assert "runs arbitrary code" in out and "trust: pickle" in out and "skops.io.dump" in out
    assert not marker.exists() and not (tmp_path / "out").exists()


def test_certainty_decision_maker_pickle_refused_through_audit_and_commands(tmp_path):
    marker = tmp_path / "marker"
    hostile_pickle(tmp_path / "m.joblib", marker)
    sio.dump(fitted(), tmp_path / "lr.skops")
    cfg = write_audit(tmp_path, {"model": "lr.skops"}, {"m": {"model": "m.joblib"}})
    key = "analyses.certainty.decision_makers.m"
    code, out = run(["audit", str(cfg), "--out", str(tmp_path / "a"), "--no-progress"])
    assert code == 2 and key in out, out
    code, out = run(["certainty", "--config", str(cfg), "--out", str(tmp_path / "c")])
    assert code == 2 and key in out and "runs arbitrary code" in out, out
    data = str(tmp_path / "data.csv")
    code, out = run(["certainty", "--data", data, "--protected", "gender",
                     "--model", f"m={tmp_path / 'm.joblib'}", "--out", str(tmp_path / "f")])  # fmt: skip
    assert code == 2 and "--trust-pickle" in out, out
    assert not marker.exists()


def test_groups_config_and_model_flags_refuse_a_pickle(tmp_path):
    marker = tmp_path / "marker"
    hostile_pickle(tmp_path / "m.joblib", marker)
    cfg = write_audit(tmp_path, {"model": "m.joblib"})
    code, out = run(["groups", "--config", str(cfg), "--out", str(tmp_path / "g")])
    assert code == 2 and "runs arbitrary code" in out, out
    data, model = str(tmp_path / "data.csv"), str(tmp_path / "m.joblib")
    code, out = run(["recourse", "--data", data, "--model", model, "--protected", "gender",
                     "--out", str(tmp_path / "r")])  # fmt: skip
    assert code == 2 and "--trust-pickle" in out, out
    code, out = run(["situation", "--data", data, "--model", model, "--protected",
                     "gender=female", "--feature", "income", "--feature", "years",
                     "--out", str(tmp_path / "s")])  # fmt: skip
    assert code == 2 and "--trust-pickle" in out, out
    assert not marker.exists()


def test_trust_pickle_in_audit_loads_once_and_records_format_and_hash(tmp_path):
    marker = tmp_path / "marker"
    hostile_pickle(tmp_path / "m.joblib", marker)
    (tmp_path / "gb.skops").write_bytes(skops_bytes(fitted("gb")))
    trusted = {"model": "m.joblib", "trust": "pickle"}
    makers = {"same": trusted, "gb": {"model": "gb.skops"}, "clerk": {"column": "approved"}}
    cfg = write_audit(tmp_path, trusted, makers)
    code, out = run(["audit", str(cfg), "--out", str(tmp_path / "out"), "--no-progress"])
    assert code == 0, out
    assert loads(marker) == 1  # decision, certainty maker, data projection: one unpickling
    inputs = json.loads((tmp_path / "out" / "results.json").read_text())["inputs"]
    models = {i["path"]: i for i in inputs if i["role"] != "data"}
    for name, fmt in (("m.joblib", "pickle"), ("gb.skops", "skops")):
        assert models[name]["format"] == fmt
        digest = hashlib.sha256((tmp_path / name).read_bytes()).hexdigest()
        assert models[name]["sha256"] == digest
    assert "format" not in next(i for i in inputs if i["role"] == "data")


def test_trust_pickle_flag_on_the_commands(tmp_path):
    marker = tmp_path / "marker"
    hostile_pickle(tmp_path / "m.joblib", marker)
    frame().to_csv(tmp_path / "data.csv", index=False)
    data, model = str(tmp_path / "data.csv"), str(tmp_path / "m.joblib")
    code, out = run(["certainty", "--data", data, "--protected", "gender", "--model",
                     f"m={model}", "--trust-pickle", "--n-draws", "0",
                     "--out", str(tmp_path / "c")])  # fmt: skip
    assert code == 0, out
    assert loads(marker) == 1


def test_trust_pickle_with_config_is_refused(tmp_path):
    cfg = write_audit(tmp_path, {"column": "approved"}, {"clerk": {"column": "approved"}})
    code, out = run(["certainty", "--config", str(cfg), "--trust-pickle",
                     "--out", str(tmp_path / "c")])  # fmt: skip
    assert code == 2 and "--trust-pickle" in out, out


def test_config_rejects_trust_other_than_pickle(tmp_path):
    sio.dump(fitted(), tmp_path / "lr.skops")
    cfg = write_audit(tmp_path, {"model": "lr.skops", "trust": "everything"})
    with pytest.raises(InputError, match="trust"):
        load_config(cfg)


def test_onnx_decision_model_and_decision_maker_in_an_audit(tmp_path):
    skl2onnx = pytest.importorskip("skl2onnx")
    X = frame()[["income", "years"]]
    for kind in ("lr", "gb"):
        onx = skl2onnx.to_onnx(fitted(kind), X.to_numpy(np.float32)[:1], options={"zipmap": False})
        (tmp_path / f"{kind}.onnx").write_bytes(onx.SerializeToString())
    path = write_audit(tmp_path, {"model": "lr.onnx"}, {"gb": {"model": "gb.onnx"}})
    cfg = load_config(path)
    assert cfg.audit_data().decision_array().tolist() == fitted().predict(X).tolist()
    code, out = run(["audit", str(path), "--out", str(tmp_path / "out"), "--no-progress"])
    assert code == 0, out
    doc = json.loads((tmp_path / "out" / "results.json").read_text())
    formats = {i["path"]: i.get("format") for i in doc["inputs"]}
    assert formats == {"data.csv": None, "lr.onnx": "onnx", "gb.onnx": "onnx"}
    ranking = pd.read_csv(tmp_path / "out" / "tables" / "certainty_ranking.csv")
    assert "gb" in set(ranking["decision_maker"])


def test_trusted_type_flag_on_a_command(tmp_path):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    df = frame()
    df.to_csv(tmp_path / "data.csv", index=False)
    est = make_pipeline(FunctionTransformer(_double), LogisticRegression())
    sio.dump(est.fit(df[["income", "years"]], df["approved"]), tmp_path / "p.skops")
    args = ["certainty", "--data", str(tmp_path / "data.csv"), "--protected", "gender",
            "--model", f"p={tmp_path / 'p.skops'}", "--n-draws", "0"]  # fmt: skip
    code, out = run([*args, "--out", str(tmp_path / "a")])
    assert code == 2 and f"{__name__}._double" in out and "--trusted-type" in out, out
    code, out = run([*args, "--trusted-type", f"{__name__}._double", "--out", str(tmp_path / "b")])
    assert code == 0, out
