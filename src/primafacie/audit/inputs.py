"""What an audit read: package versions, input files with checksums, who was audited."""

from __future__ import annotations

import hashlib
import json
import platform
import re
from datetime import date as _date
from importlib import metadata
from pathlib import Path
from typing import Any

from ..config import AuditConfig
from ..data import AuditData, parquet_files
from ..data_files import reader_note, repeated_note
from ..errors import InputError
from ..io import sha256_file

__all__ = ["versions", "input_files", "input_paths", "data_info", "provenance", "check_date"]

_VERSION_PACKAGES = (
    "primafacie", "numpy", "pandas", "scipy", "scikit-learn", "mlxtend", "matplotlib", "jinja2",
    "pydantic", "skops", "onnxruntime", "python-calamine", "duckdb",
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
    data = getattr(cfg.data, "path", cfg.data)  # None for data: {sql: ...}
    items: list[tuple[str, Any]] = [("data", data)] if data is not None else []
    if cfg.decision.model is not None:
        items.append(("decision model", cfg.decision.model))
    cert = cfg.analyses.certainty
    if cert is not None:
        for name, dm in cert.decision_makers.items():
            if dm.model is not None:
                items.append((f"decision-maker {name}", dm.model))
    items += [(role, spec.model) for role, spec, _ in cfg.section_models()]
    return items + cfg.train_files()


def input_files(cfg: AuditConfig) -> list[dict[str, str]]:
    """Every file the audit reads, with its path as written in the configuration and SHA-256.

    A model file also records its ``format`` (``skops``, ``onnx`` or ``pickle``); its hash is
    that of the bytes the model was built from (read once per run, through
    :meth:`~primafacie.config.AuditConfig.model_file`), so a refused pickle fails here,
    before the data are read.
    """
    seen: dict[str, dict[str, str]] = {}
    data = getattr(cfg.data, "path", cfg.data)  # data: FILE or data: {path: FILE, ...}
    sql = getattr(cfg.data, "sql", None)
    if sql is not None:  # the query's text is hashed; the files it reads are not known here
        digest = hashlib.sha256(sql.encode("utf-8")).hexdigest()
        seen["data.sql"] = {"role": "data query", "path": "data.sql", "sha256": digest}
    key = Path(data).as_posix() if data is not None else ""
    full = cfg.resolve(data) if data is not None else None
    if full is None:
        pass
    elif full.is_dir():  # a folder of Parquet files
        seen[key] = {"role": "data", "path": key, "sha256": folder_sha256(full)}
    elif not full.is_file():
        raise InputError(f"data file not found: {full}")
    else:
        seen[key] = {"role": "data", "path": key, "sha256": sha256_file(full)}
    for role, path in cfg.train_files():
        key, full = Path(path).as_posix(), cfg.resolve(path)
        if key not in seen:
            if not full.is_file():
                raise InputError(f"train data file not found: {full}")
            seen[key] = {"role": role, "path": key, "sha256": sha256_file(full)}
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
        f"{f.relative_to(folder).as_posix()}\t{sha256_file(f)}\n" for f in parquet_files(folder)
    )
    return hashlib.sha256(lines.encode()).hexdigest()


def _group_row(
    attribute: str, protected_values: list[str], n: int, mask: Any, y_hat: Any
) -> dict[str, Any]:
    """One record of ``data.groups``: of ``n`` rows, the sizes and favourable decisions
    (``y_hat``) of the protected rows (boolean ``mask``) and of the others."""
    return {
        "attribute": attribute,
        "protected_values": protected_values,
        "n": int(n),
        "n_protected": int(mask.sum()),
        "n_non_protected": int((~mask).sum()),
        "favourable_protected": int(y_hat[mask].sum()),
        "favourable_non_protected": int(y_hat[~mask].sum()),
    }


def data_info(cfg: AuditConfig, data: AuditData) -> dict[str, Any]:
    """Who was audited: n, features, and per protected attribute the group sizes and rates."""
    y_hat = data.decision_array()
    groups = []
    for attr, values in data.protected.items():
        mask = data.protected_mask(attr)
        row = _group_row(attr, [str(v) for v in values], data.n, mask, y_hat)
        if data.outcome is not None:
            y = data.outcome_array()
            row["outcome_favourable_protected"] = int(y[mask].sum())
            row["outcome_favourable_non_protected"] = int(y[~mask].sum())
        groups.append(row)
    if len(data.protected) > 1:
        mask = data.protected_mask(list(data.protected))
        every = ["protected on every attribute"]
        groups.append(_group_row(" & ".join(data.protected), every, data.n, mask, y_hat))
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
        **_file_notes(data),
        # each comparison with its reference and the rows left out (with a listed reference)
        **({"comparisons": data.comparisons()} if data.reference else {}),
        **({"weights": _weights_info(data)} if data.weights is not None else {}),
    }


def _weights_info(data: AuditData) -> dict[str, Any]:
    """The weights column, its total, its Kish effective size and how they are used."""
    from ..weights import METHOD, kish_n_eff

    w = data.weights_array()
    return {
        "column": data.weights,
        "sum": float(w.sum()),
        "n_eff": float(kish_n_eff(w.sum(), (w**2).sum())),
        "zero": int((w == 0).sum()),
        "method": METHOD,
    }


#: A categorical feature with at least this share of distinct values per row looks like an id.
ID_LIKE_SHARE = 0.9


def _file_notes(data: AuditData) -> dict[str, Any]:
    """What reading the file changed or found, each key absent when there is nothing to say:
    ``reader`` (``data.reader`` when given), ``dropped`` (rows ``dropna`` removed),
    ``merged_columns`` (a repeated header, merged or left out) and ``notes`` (one sentence
    each, for the report: a reader that fell back, those two, and a categorical feature
    whose number of values is close to the number of rows, i.e. an id)."""
    attrs = data.frame.attrs
    out: dict[str, Any] = {}
    notes = []
    if "dropped" in attrs:
        d = attrs["dropped"]
        out["dropped"] = d
        cols = ", ".join(f"{c}: {n}" for c, n in d["per_column"].items())
        groups = "; ".join(
            f"{attr}: " + ", ".join(f"{v} {n}" for v, n in counts.items())
            for attr, counts in d["per_group"].items()
        )
        notes.append(
            f"dropna: {d['rows_dropped']} of {d['rows_read']} rows were dropped for a missing "
            f"value (missing per column: {cols})"
            + (f"; dropped per group: {groups}" if groups else "")
        )
    if "reader" in attrs:  # data.reader given: which reader read it, and any fallback
        out["reader"] = dict(attrs["reader"])
        if (note := reader_note(attrs["reader"])) is not None:
            notes.append(note)
    repeated = [*attrs.get("merged_columns", ()), *attrs.get("ambiguous_columns", ())]
    if repeated:
        out["merged_columns"] = repeated
        notes += [repeated_note(item) for item in repeated]
    for name, spec in data.features.items():
        if spec.kind != "categorical" or data.n < 20:
            continue
        levels = int(data.frame[name].nunique())
        if levels >= ID_LIKE_SHARE * data.n:
            notes.append(
                f"categorical feature {name!r} has {levels} distinct values among {data.n} rows: "
                "it looks like an identifier, so two people share a value almost never and it "
                "makes nobody comparable; check that it is meant to be a feature"
            )
    if notes:
        out["notes"] = notes
    return out


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def check_date(text: str | None) -> str | None:
    """A ``--date`` value, checked: ``YYYY-MM-DD`` of a real day, or None when not given.

    Examples
    --------
    >>> check_date("2026-11-26")
    '2026-11-26'
    >>> check_date("26/11/2026")  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    primafacie.errors.InputError: --date 26/11/2026: expected a date YYYY-MM-DD ...
    """
    if text is None:
        return None
    text = str(text).strip()
    try:
        if not _DATE.fullmatch(text):
            raise ValueError
        _date.fromisoformat(text)
    except ValueError:
        raise InputError(
            f"--date {text}: expected a date YYYY-MM-DD (e.g. 2026-11-26); leave it out to "
            "write no date, so reruns stay byte-identical"
        ) from None
    return text


def _corrections(resolved: dict[str, Any]) -> dict[str, str]:
    """``{analysis: correction}`` for every requested analysis with a multiple-testing
    correction setting (read from the resolved configuration, so no analysis is named here)."""
    out = {}
    for name, section in (resolved.get("analyses") or {}).items():
        if isinstance(section, dict) and "multiplicity" in section:
            out[name] = str(section["multiplicity"])
    return out


def provenance(
    cfg: AuditConfig,
    inputs: list[dict[str, str]],
    seeds: dict[str, int],
    date: str | None = None,
) -> dict[str, Any]:
    """What a filed page must carry to be checked: tool version, configuration and input
    hashes, seeds, the correction in force and the date only when one was given.

    Parameters
    ----------
    cfg
        The configuration (its file, when read by :func:`~primafacie.config.load_config`).
    inputs
        :func:`input_files` of ``cfg`` (role, path, sha256).
    seeds
        The seeds in force (``{"audit": ..., ...}``).
    date
        ``--date`` (checked by :func:`check_date`); None writes no date, so reruns of the same
        inputs give byte-identical files.

    Returns
    -------
    dict
        ``{"primafacie", "configuration": {"path", "sha256", "resolved_sha256"}, "inputs",
        "seeds", "corrections", "date"}``; ``configuration.sha256`` is the file's (as
        ``sha256sum`` prints it; None for a configuration built in Python) and
        ``resolved_sha256`` that of the resolved settings (canonical JSON, defaults filled in).
    """
    resolved = cfg.resolved()
    canonical = json.dumps(resolved, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    source = cfg.source
    return {
        "primafacie": versions().get("primafacie", "not installed"),
        "configuration": {
            "path": source.name if source is not None else None,
            "sha256": sha256_file(source) if source is not None and source.is_file() else None,
            "resolved_sha256": hashlib.sha256(canonical.encode("utf-8")).hexdigest(),
        },
        "inputs": [dict(i) for i in inputs],
        "seeds": {k: int(v) for k, v in seeds.items()},
        "corrections": _corrections(resolved),
        "date": check_date(date),
    }
