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

__all__ = ["versions", "input_files", "input_paths", "data_info"]

_VERSION_PACKAGES = (
    "primafacie", "numpy", "pandas", "scipy", "scikit-learn", "mlxtend", "matplotlib", "jinja2",
    "pydantic",
)  # fmt: skip


def versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for pkg in _VERSION_PACKAGES:
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def input_paths(cfg: AuditConfig, config: str | Path | None = None) -> tuple[Path, ...]:
    """Every path the audit reads (the configuration file, its data, every model file, a
    scheduler file), resolved: none may lie inside the output folder."""
    paths = [Path(config).resolve()] if config is not None else []
    paths += [cfg.resolve(path) for _, path in _referenced(cfg)]
    address = cfg.compute.address
    if address is not None and "://" not in address:
        paths.append(cfg.resolve(address))
    return tuple(dict.fromkeys(paths))


def _referenced(cfg: AuditConfig) -> list[tuple[str, Any]]:
    """(role, path as written) of the data and every model file the configuration names."""
    items: list[tuple[str, Any]] = [("data", cfg.data)]
    if cfg.decision.model is not None:
        items.append(("decision model", cfg.decision.model))
    cert = cfg.analyses.certainty
    if cert is not None:
        for name, dm in cert.decision_makers.items():
            if dm.model is not None:
                items.append((f"decision-maker {name}", dm.model))
    return items


def input_files(cfg: AuditConfig) -> list[dict[str, str]]:
    """Every file the audit reads, with its path as written in the configuration and SHA-256."""
    items = _referenced(cfg)
    seen: dict[str, dict[str, str]] = {}
    for role, path in items:
        key = Path(path).as_posix()
        if key in seen:
            continue
        full = cfg.resolve(path)
        if role == "data" and full.is_dir():  # a folder of Parquet files
            seen[key] = {"role": role, "path": key, "sha256": folder_sha256(full)}
            continue
        if not full.is_file():
            raise InputError(f"{role} file not found: {full}")
        seen[key] = {"role": role, "path": key, "sha256": file_sha256(full)}
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
    }
