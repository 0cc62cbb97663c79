"""What an audit read: package versions, input files with checksums, who was audited."""

from __future__ import annotations

import hashlib
import platform
from importlib import metadata
from pathlib import Path
from typing import Any

from ..config import AuditConfig
from ..data import AuditData, parquet_files
from ..errors import InputError
from ..io import file_sha256

__all__ = ["versions", "input_files", "data_info"]

_VERSION_PACKAGES = (
    "primafacie", "numpy", "pandas", "scipy", "scikit-learn", "mlxtend", "matplotlib", "jinja2",
    "pydantic", "skops", "onnxruntime",
)  # fmt: skip


def versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for pkg in _VERSION_PACKAGES:
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def input_files(cfg: AuditConfig) -> list[dict[str, str]]:
    """Every file the audit reads, with its path as written in the configuration and SHA-256.

    A model file also records its ``format`` (``skops``, ``onnx`` or ``pickle``); its hash is
    that of the bytes the model was built from (read once per run, through
    :meth:`~primafacie.config.AuditConfig.model_file`), so a refused pickle fails here,
    before the data are read.
    """
    seen: dict[str, dict[str, str]] = {}
    key = Path(cfg.data).as_posix()
    full = cfg.resolve(cfg.data)
    if full.is_dir():  # a folder of Parquet files
        seen[key] = {"role": "data", "path": key, "sha256": folder_sha256(full)}
    elif not full.is_file():
        raise InputError(f"data file not found: {full}")
    else:
        seen[key] = {"role": "data", "path": key, "sha256": file_sha256(full)}
    for role, spec, where in cfg.model_files():
        key = Path(spec.model).as_posix()
        if key in seen:
            continue
        loaded = cfg.model_file(spec, where)
        seen[key] = {"role": role, "path": key, "sha256": loaded.sha256, "format": loaded.format}
    return list(seen.values())


def folder_sha256(folder: Path) -> str:
    """SHA-256 of a Parquet folder: of one line ``relative/path<TAB>sha256`` per file read,
    in the order they are read, so renaming, adding or changing a part changes it."""
    lines = "".join(
        f"{f.relative_to(folder).as_posix()}\t{file_sha256(f)}\n" for f in parquet_files(folder)
    )
    return hashlib.sha256(lines.encode()).hexdigest()


def data_info(cfg: AuditConfig, data: AuditData) -> dict[str, Any]:
    """Who was audited: n, features, and per protected attribute the group sizes and rates."""
    y_hat = data.decision_array()
    groups = []
    for attr, values in data.protected.items():
        mask = data.protected_mask(attr)
        row: dict[str, Any] = {
            "attribute": attr,
            "protected_values": [str(v) for v in values],
            "n": int(data.n),
            "n_protected": int(mask.sum()),
            "n_non_protected": int((~mask).sum()),
            "favourable_protected": int(y_hat[mask].sum()),
            "favourable_non_protected": int(y_hat[~mask].sum()),
        }
        if data.outcome is not None:
            y = data.outcome_array()
            row["outcome_favourable_protected"] = int(y[mask].sum())
            row["outcome_favourable_non_protected"] = int(y[~mask].sum())
        groups.append(row)
    if len(data.protected) > 1:
        mask = data.protected_mask(list(data.protected))
        groups.append(
            {
                "attribute": " & ".join(data.protected),
                "protected_values": ["protected on every attribute"],
                "n": int(data.n),
                "n_protected": int(mask.sum()),
                "n_non_protected": int((~mask).sum()),
                "favourable_protected": int(y_hat[mask].sum()),
                "favourable_non_protected": int(y_hat[~mask].sum()),
            }
        )
    if cfg.decision.column is not None:
        source = f"recorded column {cfg.decision.column!r}"
    elif cfg.decision.model is not None:
        source = f"model {Path(cfg.decision.model).as_posix()}"
    elif cfg.decision.score is not None:
        side = "below" if cfg.decision.favorable == "below" else "at or above"
        source = f"score {cfg.decision.score!r}, favourable {side} {cfg.decision.threshold:g}"
    else:
        source = f"rule {cfg.decision.rule}"
    n_fav = int(y_hat.sum())
    warnings_ = []
    if n_fav in (0, data.n):
        which = "unfavourable" if n_fav == 0 else "favourable"
        warnings_.append(
            f"every decision is {which} ({n_fav} favourable of {data.n}): no analysis can find a "
            "difference between groups; check the favourable value, the rule or the model"
        )
    return {
        "warnings": warnings_,
        "n": int(data.n),
        "features": {k: v.kind for k, v in data.features.items()},
        "protected": {k: [str(v) for v in vals] for k, vals in data.protected.items()},
        "decision_source": source,
        "n_favourable": int(y_hat.sum()),
        "outcome": data.outcome,
        "n_outcome_favourable": int(data.outcome_array().sum()) if data.outcome else None,
        "groups": groups,
        # the rows a `where:` filter left out (absent without a filter)
        **({"where": data.frame.attrs["where"]} if "where" in data.frame.attrs else {}),
    }
