"""Model files that cannot run code: skops and ONNX; pickle and joblib only when trusted.

The audited party often supplies the model, so its file is hostile input. A pickle (and a
joblib file, which is a pickle) runs whatever code its author put in it the moment it is
loaded, so it is refused unless the configuration says ``trust: pickle`` for that file (or
the command line says ``--trust-pickle``). Two formats hold no code:

* **skops** (``.skops``): loaded by :func:`skops.io.loads` with an explicit list of trusted
  types: skops' own defaults, plus the *classes* defined in scikit-learn and numpy's scalar
  and dtype classes (never a function), plus the types the configuration lists in
  ``trusted_types``. Any other type is refused with its name and the key that trusts it.
* **ONNX** (``.onnx``): a graph of operators run by onnxruntime (:class:`OnnxModel`).

A file is read once into memory; its SHA-256 is computed on those bytes and the model is
built from the same bytes, so the recorded hash is that of what ran. :class:`ModelCache`
keeps every model loaded in one run, keyed by resolved path, SHA-256 and trust settings, so a
trusted pickle is unpickled once per run however many analyses use it.

Examples
--------
>>> model_format("m.skops", b"PK")
'skops'
>>> model_format("m.bin", b"\\x80\\x04")
'pickle'
"""

from __future__ import annotations

import hashlib
import importlib
import io
import json
import os
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .errors import InputError

__all__ = [
    "FORMATS",
    "LoadedModel",
    "ModelCache",
    "OnnxModel",
    "bytes_sha256",
    "load_model_file",
    "model_format",
    "skops_bytes",
]

#: The model formats primafacie reads, as recorded in ``results.json``.
FORMATS = ("skops", "onnx", "pickle")
_EXTENSIONS = {
    ".skops": "skops",
    ".onnx": "onnx",
    ".joblib": "pickle",
    ".jbl": "pickle",
    ".pkl": "pickle",
    ".pickle": "pickle",
    ".sav": "pickle",
}
#: Largest model file read, in bytes (the whole file is held in memory to hash and load it).
MAX_MODEL_BYTES = 4 << 30


def bytes_sha256(data: bytes) -> str:
    """Hex SHA-256 of ``data`` (the model's bytes as loaded; see :func:`primafacie.io.file_sha256`
    for a file on disk)."""
    return hashlib.sha256(data).hexdigest()


def model_format(path: str | os.PathLike, head: bytes) -> str:
    """``skops``, ``onnx`` or ``pickle``: from the file's extension, else from its first bytes.

    A skops file is a zip archive (``PK``); an ONNX file is a protobuf message whose first
    field is the IR version (byte ``0x08``). Anything else is treated as a pickle, so an
    unknown file is refused unless pickles are trusted.
    """
    ext = Path(path).suffix.lower()
    if ext in _EXTENSIONS:
        return _EXTENSIONS[ext]
    if head.startswith(b"PK"):
        return "skops"
    if head.startswith(b"\x08"):
        return "onnx"
    return "pickle"


@dataclass(frozen=True)
class LoadedModel:
    """A model read from a file: the object with ``predict``, its format and SHA-256."""

    model: Any
    format: str
    sha256: str
    path: Path


def _hint(key: str | None, what: str) -> str:
    """Where to say "trust this": a configuration key, or the CLI flag when ``key`` is None."""
    if what == "pickle":
        if key is None:
            return "pass --trust-pickle"
        return f"add `trust: pickle` under {key} (e.g. {{model: m.joblib, trust: pickle}})"
    if key is None:
        return "pass --trusted-type TYPE for each"
    return f"list them under {key}.trusted_types (e.g. {{model: m.skops, trusted_types: [...]}})"


def _pickle_refused(path: Path, key: str | None) -> str:
    return (
        f"{path} is a pickle/joblib model file: loading a pickle runs arbitrary code of whoever "
        "wrote it (it can run shell commands before returning the model), so it is refused. "
        "Convert it to skops once, where you trust the file:\n"
        "    import joblib, skops.io\n"
        f"    skops.io.dump(joblib.load({path.name!r}), {path.stem + '.skops'!r})\n"
        "and name the .skops file (an ONNX file works too). If you trust whoever wrote this "
        f"file, {_hint(key, 'pickle')}."
    )


def _default_trusted(name: str) -> bool:
    """A class defined in scikit-learn, or a numpy scalar/dtype class; never a function.

    The module is imported only when it is inside scikit-learn or numpy (and not a test
    module), so a hostile type name cannot make primafacie import arbitrary code.
    """
    module, _, attr = name.rpartition(".")
    top = module.split(".")[0]
    if top not in ("sklearn", "numpy") or not attr:
        return False
    if any(p.startswith(("test", "conftest", "_testing")) or not p for p in module.split(".")):
        return False
    try:
        obj = getattr(importlib.import_module(module), attr)
    except Exception:  # an unknown module or name is simply not trusted
        return False
    if not isinstance(obj, type):
        return False
    if top == "numpy":
        return issubclass(obj, (np.generic, np.dtype))
    return True


def _load_skops(data: bytes, path: Path, trusted_types: Sequence[str], key: str | None) -> Any:
    try:
        import skops.io as sio
    except ImportError as exc:
        raise InputError(
            f"{path}: reading a .skops model needs the skops package: "
            "pip install 'primafacie[models]'"
        ) from exc
    try:
        found = sio.get_untrusted_types(data=data)
    except Exception as exc:
        raise InputError(
            f"{path} is not a readable skops file: {type(exc).__name__}: {exc}"
        ) from exc
    extra = set(trusted_types)
    untrusted = [t for t in found if t not in extra and not _default_trusted(t)]
    if untrusted:
        raise InputError(
            f"{path}: the skops file holds types that are not trusted: {untrusted}; an untrusted "
            "type could run code when the model is used. Check them; to trust them, "
            f"{_hint(key, 'types')}."
        )
    try:
        return sio.loads(data, trusted=list(found))
    except Exception as exc:
        raise InputError(f"cannot load skops model {path}: {type(exc).__name__}: {exc}") from exc


_ONNX_DTYPES = {
    "tensor(float)": np.float32,
    "tensor(double)": np.float64,
    "tensor(int64)": np.int64,
    "tensor(int32)": np.int32,
    "tensor(bool)": np.bool_,
    "tensor(string)": object,
}


class OnnxModel:
    """An ONNX classifier run by onnxruntime, with a scikit-learn style ``predict``.

    One input of shape ``[n, d]`` takes the features in the audit's declared order
    (``n_features_in_ = d``); several inputs of shape ``[n, 1]`` (or ``[n]``) take the
    columns of the same names (``feature_names_in_``). ``predict`` returns the label output:
    the first tensor output whose name contains ``label`` (skl2onnx names it ``label`` or
    ``output_label``), else the first tensor output.
    """

    def __init__(self, data: bytes, path: Path):
        self._data = data
        self.path = path
        self._open()

    def _open(self) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        # one thread: deterministic reductions, and the run's own workers share the cores
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        # from bytes: an external-data path in the file has no folder to resolve against
        self._session = ort.InferenceSession(
            self._data, sess_options=options, providers=["CPUExecutionProvider"]
        )
        inputs = self._session.get_inputs()
        self._inputs = [(i.name, i.type, list(i.shape)) for i in inputs]
        for name, kind, _ in self._inputs:
            if kind not in _ONNX_DTYPES:
                raise InputError(f"{self.path}: ONNX input {name!r} has unsupported type {kind}")
        if len(inputs) == 1:
            shape = self._inputs[0][2]
            if len(shape) == 2 and isinstance(shape[1], int):
                self.n_features_in_ = int(shape[1])
        else:
            self.feature_names_in_ = np.array([i[0] for i in self._inputs], dtype=object)
        tensors = [o.name for o in self._session.get_outputs() if o.type.startswith("tensor(")]
        if not tensors:
            raise InputError(f"{self.path}: the ONNX model has no tensor output (a label)")
        self._label = next((n for n in tensors if "label" in n.lower()), tensors[0])

    def __getstate__(self) -> dict[str, Any]:  # a session cannot be pickled (Dask workers)
        return {"_data": self._data, "path": self.path}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._open()

    def predict(self, X: Any) -> np.ndarray:
        """The label output for each row of ``X`` (a DataFrame or a 2-D array)."""
        frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X))
        if len(self._inputs) == 1:
            name, kind, _ = self._inputs[0]
            values = frame.to_numpy()
            feeds = {name: _as_onnx(values, kind)}
        else:
            feeds = {}
            for name, kind, shape in self._inputs:
                col = frame[name].to_numpy()
                feeds[name] = _as_onnx(col if len(shape) == 1 else col.reshape(-1, 1), kind)
        out = np.asarray(self._session.run([self._label], feeds)[0])
        return out.reshape(-1) if out.ndim == 2 and out.shape[1] == 1 else out

    def __repr__(self) -> str:
        return f"OnnxModel({self.path.name})"


def _as_onnx(values: np.ndarray, kind: str) -> np.ndarray:
    dtype = _ONNX_DTYPES[kind]
    if dtype is object:
        return values.astype(str).astype(object)
    return values.astype(dtype)


def _load_onnx(data: bytes, path: Path) -> OnnxModel:
    try:
        import onnxruntime  # noqa: F401
    except ImportError as exc:
        raise InputError(
            f"{path}: reading a .onnx model needs the onnxruntime package: "
            "pip install 'primafacie[models]'"
        ) from exc
    try:
        return OnnxModel(data, path)
    except InputError:
        raise
    except Exception as exc:
        raise InputError(f"cannot load ONNX model {path}: {type(exc).__name__}: {exc}") from exc


def _load_pickle(data: bytes, path: Path) -> Any:
    import joblib

    try:
        return joblib.load(io.BytesIO(data))
    except Exception as exc:
        raise InputError(
            f"cannot load model {path} as a joblib/pickle file: {type(exc).__name__}: {exc}"
        ) from exc


def _read(path: Path) -> bytes:
    if not path.is_file():
        raise InputError(f"model file not found: {path}")
    size = path.stat().st_size
    if size > MAX_MODEL_BYTES:
        raise InputError(f"model file {path} is {size:,} bytes; at most {MAX_MODEL_BYTES:,}")
    return path.read_bytes()


def _text_hint(data: bytes, path: Path) -> None:
    """A text file (e.g. a CSV given as the model) is named as such."""
    head = data[:512]
    if head and all(b >= 0x20 or b in (9, 10, 13) for b in head):
        first = head.splitlines()[0][:60].decode("utf-8", "replace") if head.strip() else ""
        raise InputError(
            f"{path} does not look like a model file (it is text starting {first!r}); a model "
            "is a fitted estimator saved with skops.io.dump (.skops) or converted to .onnx, "
            "not a data table"
        )


def _build(
    data: bytes,
    path: Path,
    trust: str | None,
    trusted_types: Sequence[str],
    key: str | None,
) -> LoadedModel:
    fmt = model_format(path, data[:8])
    if fmt == "pickle" and trust != "pickle":
        if path.suffix.lower() not in _EXTENSIONS:  # e.g. a CSV given as the model
            _text_hint(data, path)
        raise InputError(_pickle_refused(path, key))
    try:
        if fmt == "skops":
            model = _load_skops(data, path, trusted_types, key)
        elif fmt == "onnx":
            model = _load_onnx(data, path)
        else:
            model = _load_pickle(data, path)
    except InputError:
        _text_hint(data, path)
        raise
    if not hasattr(model, "predict"):
        raise InputError(f"the object in {path} ({type(model).__name__}) has no predict() method")
    return LoadedModel(model=model, format=fmt, sha256=bytes_sha256(data), path=path)


def load_model_file(
    path: str | os.PathLike,
    trust: str | None = None,
    trusted_types: Sequence[str] = (),
    key: str | None = None,
) -> LoadedModel:
    """Read a model file: skops or ONNX always, pickle/joblib only with ``trust="pickle"``.

    Parameters
    ----------
    path
        The model file.
    trust
        ``"pickle"`` to allow a pickle/joblib file (it runs its author's code); else None.
    trusted_types
        skops types to trust beyond the defaults (scikit-learn classes, numpy scalars).
    key
        The configuration key that holds this model (e.g. ``decision``), named in the
        message that says how to trust the file; None for the command line's flags.

    Returns
    -------
    LoadedModel

    Raises
    ------
    InputError
        A missing or unreadable file, a refused pickle, an untrusted skops type, or an
        object without ``predict``.
    """
    path = Path(path)
    return _build(_read(path), path, trust, trusted_types, key)


class ModelCache:
    """The models of one run, each read and built once.

    Keyed by resolved path, SHA-256 of the bytes and the trust settings: asking twice for
    the same file returns the same object (a trusted pickle runs its code once per run), and
    a file changed on disk between two requests is read again and hashed anew.
    """

    def __init__(self) -> None:
        self._models: dict[tuple[Any, ...], LoadedModel] = {}

    def load(
        self,
        path: str | os.PathLike,
        trust: str | None = None,
        trusted_types: Sequence[str] = (),
        key: str | None = None,
    ) -> LoadedModel:
        """:func:`load_model_file`, once per (file, content, trust)."""
        full = Path(path).resolve()
        data = _read(full)
        cache_key = (str(full), bytes_sha256(data), trust, tuple(sorted(trusted_types)))
        if cache_key not in self._models:
            self._models[cache_key] = _build(data, Path(path), trust, trusted_types, key)
        return self._models[cache_key]


def skops_bytes(model: Any) -> bytes:
    """``skops.io.dumps(model)`` made deterministic: the same model gives the same bytes.

    skops names its arrays and object ids after memory addresses and stamps each zip entry
    with the current time; both are replaced by their order of appearance and a fixed date,
    so a seeded demo writes byte-identical model files (and results.json their hashes).

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> m = LogisticRegression().fit([[0.0], [1.0]], [0, 1])
    >>> skops_bytes(m) == skops_bytes(m)
    True
    """
    try:
        import skops.io as sio
    except ImportError as exc:
        raise InputError(
            "writing a .skops model needs the skops package: pip install 'primafacie[models]'"
        ) from exc

    src = zipfile.ZipFile(io.BytesIO(sio.dumps(model)))
    ids: dict[str, str] = {}

    def renamed(old: str) -> str:
        return ids.setdefault(old, str(len(ids)))

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            out = {}
            for k, v in node.items():
                if k == "__id__" and isinstance(v, int):
                    v = int(renamed(str(v)))
                elif k == "file" and isinstance(v, str) and v.endswith(".npy"):
                    v = renamed(v[: -len(".npy")]) + ".npy"
                out[k] = walk(v)
            return out
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    schema = walk(json.loads(src.read("schema.json")))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as dst:
        for info in src.infolist():
            if info.filename == "schema.json":
                body = json.dumps(schema, indent=2).encode()
                name = "schema.json"
            else:
                body = src.read(info.filename)
                name = renamed(info.filename[: -len(".npy")]) + ".npy"
            entry = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            entry.external_attr = 0o644 << 16
            dst.writestr(entry, body)
    return buf.getvalue()
