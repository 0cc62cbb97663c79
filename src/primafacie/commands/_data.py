"""The data flags of every per-analysis command, declared once, and the one way they read data.

``--reference``, ``--weights``, ``--where``, ``--dropna`` and the file options (``--sep``,
``--decimal``, ``--encoding``, ``--sheet``, ``--no-header`` with ``--names``,
``--na-values``) set the keys of ``audit.yaml`` that say how the data are read
(:func:`config_from_flags`); :func:`load` validates the configuration they make with
:class:`~primafacie.config.AuditConfig` and reads it with its own reader
(``AuditConfig.audit_data``), so a run from flags and the same run from a configuration file
read the same rows, and a bad value gets the configuration's message, headed by its flag.

This module imports only typer: ``primafacie --help`` builds the options without pandas.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple, Optional, TypeVar

import typer

from ..errors import InputError

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["DATA_FLAGS", "DataFlag", "config_from_flags", "data_options", "load", "read_frame"]


class DataFlag(NamedTuple):
    """One data flag: its parameter name, flag, the audit.yaml key it sets, type and help."""

    name: str
    flag: str
    key: str
    type: Any
    help: str


#: The data flags, in the order ``--help`` lists them.
DATA_FLAGS: tuple[DataFlag, ...] = (
    DataFlag("reference", "--reference", "protected.<column>.reference", list[str],
             "The group each protected group is compared with: VALUE (repeat for several), "
             "COL=VALUE[,VALUE] with several --protected, rest (everyone else, the default) "
             "or highest (the group with the highest selection rate)."),
    DataFlag("weights", "--weights", "weights", Optional[str],
             "Column of sample weights (weighted rates, Kish effective sample size)."),
    DataFlag("where", "--where", "where", Optional[str],
             "Rows to audit, in the rule language, e.g. \"year == 2024 and region != 'test'\"."),
    DataFlag("dropna", "--dropna", "dropna", Optional[str],
             "Drop rows with a missing value: in the audited columns (--dropna all) or in "
             "the columns listed (--dropna age,income); without it a missing value is an "
             "error."),
    DataFlag("sep", "--sep", "data.sep", Optional[str],
             "CSV separator: , ; | or tab (default ',')."),
    DataFlag("decimal", "--decimal", "data.decimal", Optional[str],
             "CSV decimal mark: . or , (default '.')."),
    DataFlag("encoding", "--encoding", "data.encoding", Optional[str],
             "CSV text encoding, e.g. latin-1 (default utf-8)."),
    DataFlag("sheet", "--sheet", "data.sheet", Optional[str],
             "Excel sheet: its name or number from 0 (default the first)."),
    DataFlag("no_header", "--no-header", "data.header", bool,
             "The file has no header row; name its columns with --names."),
    DataFlag("names", "--names", "data.names", Optional[str],
             "Column names, comma-separated (with --no-header, one per column)."),
    DataFlag("na_values", "--na-values", "data.na_values", list[str],
             "A cell value that means missing, e.g. ? (repeat for several)."),
    DataFlag("reader", "--reader", "data.reader", Optional[str],
             "The reader: auto (pandas for CSV, pyarrow for Parquet, DuckDB for SQL), "
             "duckdb or pandas."),
)  # fmt: skip

#: The flag of each configuration key (the first part of a message's "[key]" or "key:").
_FLAG_OF = {f.key.split(".<")[0]: f.flag for f in DATA_FLAGS} | {"data.header": "--no-header"}


def _option(f: DataFlag) -> Any:
    default: Any = [] if f.type == list[str] else (False if f.type is bool else None)
    return typer.Option(default, f.flag, help=f.help, rich_help_panel="Reading the data")


def data_options(fn: F) -> F:
    """Give a command the options of :data:`DATA_FLAGS` (help panel "Reading the data").

    The command takes a parameter ``reading``; this decorator replaces it, in the signature
    typer reads, by the data options and passes their values back as ``reading``
    (``{name: value}``), so every command spells and documents them alike.
    """
    sig = inspect.signature(fn)
    kept = [p for p in sig.parameters.values() if p.name != "reading"]
    added = [
        inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=_option(f),
                          annotation=f.type)
        for f in DATA_FLAGS
    ]  # fmt: skip
    names = {f.name for f in DATA_FLAGS}

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        reading = {name: kwargs.pop(name) for name in list(kwargs) if name in names}
        return fn(*args, reading=reading, **kwargs)

    positional = [p for p in kept if p.kind is not p.KEYWORD_ONLY]
    keyword = [p for p in kept if p.kind is p.KEYWORD_ONLY]
    wrapper.__signature__ = sig.replace(parameters=[*positional, *keyword, *added])  # type: ignore[attr-defined]
    hints = {k: v for k, v in getattr(fn, "__annotations__", {}).items() if k != "reading"}
    wrapper.__annotations__ = hints | {p.name: p.annotation for p in added}
    wrapper.__data_flags__ = {f.name: f.flag for f in DATA_FLAGS}  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]


def given(reading: Mapping[str, Any]) -> list[str]:
    """The data flags that were typed (a value other than the default)."""
    return [f.flag for f in DATA_FLAGS if reading.get(f.name) not in (None, False, [], ())]


def scalar(text: Any) -> Any:
    """A flag's value as audit.yaml would hold it: ``'1'`` -> 1, ``'0.5'`` -> 0.5, else text.

    Examples
    --------
    >>> scalar("1"), scalar("0.5"), scalar("female")
    (1, 0.5, 'female')
    """
    if not isinstance(text, str):
        return text
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def protected_values(items: Sequence[str]) -> dict[str, Any]:
    """``--protected COL=VALUE[,VALUE...]`` (repeated) as ``protected:`` of audit.yaml, each
    value read as YAML reads a scalar (:func:`scalar`).

    Examples
    --------
    >>> protected_values(["gender=female", "race=black,hispanic", "Gender=1"])
    {'gender': 'female', 'race': ['black', 'hispanic'], 'Gender': 1}
    """
    out: dict[str, Any] = {}
    for item in items:
        col, sep, value = item.partition("=")
        values = [scalar(v.strip()) for v in value.split(",") if v.strip()]
        if not sep or not col.strip() or not values:
            raise InputError(f"--protected expects COL=VALUE[,VALUE...], got {item!r}")
        if col.strip() in out:
            raise InputError(f"--protected names column {col.strip()!r} twice")
        out[col.strip()] = values if len(values) > 1 else values[0]
    return out


#: The flag behind each role an AuditData message starts with (most specific first).
_ROLE_FLAGS = (
    ("outcome_favorable", "--outcome-favorable"),
    ("favourable value", "--favorable"),
    ("outcome", "--outcome"),
    ("decision", "--decision"),
    ("protected", "--protected"),
)


def refuse_with_config(reading: Mapping[str, Any], config: Path) -> None:
    """With ``--config`` the file says how the data are read, as for ``primafacie audit``; a
    data flag typed besides it is refused (naming it and its key), never silently mixed in."""
    keys = {f.flag: f.key for f in DATA_FLAGS}
    typed = given(reading)
    if typed:
        raise InputError(
            f"--config reads the data as {config} says (as `primafacie audit` does); drop "
            f"{', '.join(typed)} or set {', '.join(keys[f] for f in typed)} in the file"
        )


def _split(text: str | None) -> list[str] | None:
    return None if text is None else [v.strip() for v in text.split(",") if v.strip()]


def _references(values: Sequence[str], protected: Mapping[str, Any]) -> dict[str, Any]:
    """``{column: reference}`` from the ``--reference`` values (see :data:`DATA_FLAGS`)."""
    per: dict[str, list[str]] = {}
    plain: list[str] = []
    for item in values:
        col, sep, rest = item.partition("=")
        if sep and col.strip() in protected:
            per.setdefault(col.strip(), []).extend(_split(rest) or [])
        else:
            plain.append(item.strip())
    if plain:
        if len(protected) != 1:
            raise InputError(
                f"--reference {plain[0]!r}: with {len(protected)} protected attributes "
                f"({', '.join(protected)}) say whose reference it is: --reference COL=VALUE"
            )
        per.setdefault(next(iter(protected)), []).extend(plain)
    out: dict[str, Any] = {}
    for col, refs in per.items():
        keywords = [r for r in refs if r in ("rest", "highest")]
        if keywords and len(refs) > 1:
            raise InputError(
                f"--reference {keywords[0]} stands alone for {col!r}; it cannot be combined "
                f"with other values ({', '.join(r for r in refs if r != keywords[0])})"
            )
        if not refs:
            raise InputError(f"--reference {col}=: list at least one reference value")
        out[col] = keywords[0] if keywords else refs
    return out


def _data_key(data: Path | None, reading: Mapping[str, Any]) -> Any:
    """``data:``: the plain path, or ``{path, sep, ...}`` when a file option was given."""
    spec: dict[str, Any] = {}
    for key in ("sep", "decimal", "encoding"):
        if reading.get(key) is not None:
            spec[key] = "\t" if reading[key] in ("tab", "\\t") else reading[key]
    if reading.get("sheet") is not None:
        sheet = reading["sheet"]
        spec["sheet"] = int(sheet) if sheet.isdigit() else sheet
    if reading.get("no_header"):
        spec["header"] = False
    if reading.get("names") is not None:
        spec["names"] = _split(reading["names"])
    if reading.get("na_values"):
        spec["na_values"] = list(reading["na_values"])
    if reading.get("reader") is not None:
        spec["reader"] = reading["reader"]
    if not spec:
        return None if data is None else str(data)
    return {"path": None if data is None else str(data), **spec}


def config_from_flags(
    reading: Mapping[str, Any], data: Path | None, protected: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The ``data:``, ``protected:``, ``weights``, ``where`` and ``dropna`` keys of an
    ``audit.yaml`` document, from the data flags.

    Parameters
    ----------
    reading
        The values of :data:`DATA_FLAGS` (``{name: value}``), as :func:`data_options` passes.
    data
        The ``--data`` file.
    protected
        ``{column: value or values}`` of ``--protected``; ``None`` for a command whose
        protected columns carry no values (then ``--reference`` is refused).

    Returns
    -------
    dict
        Only the keys the flags set, as ``audit.yaml`` spells them.

    Examples
    --------
    >>> config_from_flags({"reference": ["Caucasian"], "where": "age > 25", "dropna": "all"},
    ...                   Path("compas.csv"), {"race": "African-American"})
    ... # doctest: +NORMALIZE_WHITESPACE
    {'data': 'compas.csv', 'protected': {'race': {'values': 'African-American',
     'reference': ['Caucasian']}}, 'where': 'age > 25', 'dropna': True}
    """
    doc: dict[str, Any] = {"data": _data_key(data, reading)}
    if protected is not None:
        refs = _references(reading.get("reference") or [], protected)
        doc["protected"] = {
            col: {"values": value, "reference": refs[col]} if col in refs else value
            for col, value in protected.items()
        }
    elif reading.get("reference"):
        raise InputError(
            "--reference: this command's groups are every value of a column (no protected "
            "value is given), so there is no protected group to compare with a reference"
        )
    if reading.get("weights") is not None:
        doc["weights"] = reading["weights"]
    if reading.get("where") is not None:
        doc["where"] = reading["where"]
    if reading.get("dropna") is not None:
        text = reading["dropna"].strip()
        doc["dropna"] = True if text.lower() in ("all", "true") else _split(text)
    return doc


def flagged(message: str) -> str:
    """A configuration message headed by the flag of the key it is about (``[data.sep] ...``
    or ``where: ...`` -> ``--sep (data.sep): ...``); other messages are kept."""
    m = re.match(r"\[([\w.]+)\]\s*", message)
    key = m.group(1) if m else message.split(":", 1)[0].strip()
    body = message[m.end() :] if m else message
    if key.startswith("protected.") and key.endswith(".reference"):
        return f"--reference ({key}): {body.split(':', 1)[-1].strip()}"
    if key.startswith("protected.") and "both protected and reference" in message:
        return f"--reference ({key}.reference): {body.split(':', 1)[-1].strip()}"
    flag = _FLAG_OF.get(key)
    said = re.search(r": (names|na_values|sheet|encoding|decimal|sep|reader) ", message)
    if flag is None and said:  # the file reader's message, after the file's name
        return f"{_FLAG_OF['data.' + said.group(1)]} (data.{said.group(1)}): {message}"
    if flag is None and message.startswith("weights column"):
        return f"--weights (weights): {message}"
    if flag is None and " of protected column " in message and "reference" in message:
        return f"--reference: {message}"
    if flag is None:
        return message
    text = body if m else body.split(":", 1)[-1].strip()
    return f"{flag} ({key}): {text}"


def validate(doc: Mapping[str, Any]) -> Any:
    """The :class:`~primafacie.config.AuditConfig` of ``doc``; its errors name the flags."""
    from pydantic import ValidationError

    from ..config import AuditConfig, DataSpec

    try:
        if isinstance(doc.get("data"), dict):  # its own errors, not the union's with a path
            DataSpec.model_validate(doc["data"])
        return AuditConfig.model_validate(dict(doc))
    except ValidationError as exc:
        msgs = [str(e["msg"]).removeprefix("Value error, ") for e in exc.errors()]
        prefix = "data." if exc.title == "DataSpec" else ""
        located = [
            m if m.startswith("[") else f"[{prefix}{'.'.join(map(str, e['loc']))}] {m}"
            for m, e in zip(msgs, exc.errors(), strict=True)
        ]
        raise InputError("\n".join(dict.fromkeys(flagged(m) for m in located))) from None


def check_columns(cfg: Any, named: Sequence[tuple[str, str | None]]) -> None:
    """Each ``(flag, column)`` names a column of the file (its header, read with the
    configuration's options), else an InputError names the flag and lists the columns."""
    from ..data import table_columns

    if not named or cfg.data_path is None:
        return
    opts = {k: v for k, v in cfg.data_options.items() if k != "decimal"}
    columns = [str(c) for c in table_columns(cfg.data_path, **opts)]
    for flag, col in named:
        if col is not None and col not in columns:
            raise InputError(
                f"{flag} {col!r} is not a column of {cfg.data_path}; columns: {', '.join(columns)}"
            )


def check_columns_of(frame: Any, named: Sequence[tuple[str, str | None]]) -> None:
    """Each ``(flag, column)`` names a column of ``frame``, else an InputError naming the flag
    and listing the columns."""
    columns = [str(c) for c in frame.columns]
    for flag, col in named:
        if col is not None and col not in columns:
            raise InputError(f"{flag} {col!r} is not a column of the data; columns: "
                             f"{', '.join(columns)}")  # fmt: skip


def load(
    doc: Mapping[str, Any],
    named: Sequence[tuple[str, str | None]] = (),
    analysis: str | None = None,
) -> tuple[Any, Any]:
    """The configuration of ``doc`` (built by a command from its flags with
    :func:`config_from_flags`) and the :class:`~primafacie.data.AuditData` its reader
    (``AuditConfig.audit_data``, the audit's) reads; errors name the flags, and each
    ``(flag, column)`` of ``named`` must be a column of the file. Every column is read, as
    the commands always did (one may use a column the configuration does not name: --score).
    ``analysis`` names the command's analysis, so that the configuration refuses what it
    does not define (``--weights``) with the audit's message."""
    if analysis is not None and doc.get("weights") is not None:
        doc = {**doc, "analyses": {analysis: {}}}
    cfg = validate(doc)
    try:
        check_columns(cfg, named)
        return cfg, cfg.audit_data(cfg.read_frame(all_columns=True))
    except InputError as exc:
        raise InputError(role_flagged(str(exc))) from None


def role_flagged(message: str, flags: Collection[str] | None = None) -> str:
    """A message of the reader or an engine headed by the flag it is about: :func:`flagged`,
    then, when it starts with a role (AuditData and the engines name the role; the user typed
    a flag), that role's flag among ``flags`` (default: every role's).

    Examples
    --------
    >>> role_flagged("outcome column 'y' is not in the data", {"--outcome"})
    "--outcome: outcome column 'y' is not in the data"
    >>> role_flagged("decision column 'y' is not in the data", {"--outcome"})
    "decision column 'y' is not in the data"
    """
    text = flagged(message)
    flag = next((f for role, f in _ROLE_FLAGS
                 if text.startswith(role) and (flags is None or f in flags)), None)  # fmt: skip
    return f"{flag}: {text}" if flag else text


def read_frame(
    reading: Mapping[str, Any],
    data: Path,
    analysis: str,
    roles: Mapping[str, Any],
    section: Mapping[str, Any] | None = None,
) -> Any:
    """The table of a command whose protected columns carry no values (certainty, recourse),
    read, filtered by ``--where`` and with ``--dropna`` applied by the configuration's own
    reader.

    Parameters
    ----------
    reading, data
        As for :func:`config_from_flags`.
    analysis
        The command's analysis: a flag it does not define (``--weights``) is refused with
        the configuration's message.
    roles
        ``protected`` (a list of columns), ``decision`` (the ``decision:`` key) and
        ``outcome``: the audited columns ``--dropna all`` covers.
    section
        The analysis' ``analyses.<analysis>`` keys that the configuration requires (for the
        check of ``--weights``).
    """
    from ..data import drop_missing

    doc = {**config_from_flags(reading, data), "decision": dict(roles["decision"])}
    protected = dict.fromkeys(roles.get("protected") or ["__none__"], 1)  # values unused
    doc |= {"features": {}, "protected": protected, "outcome": roles.get("outcome")}
    cfg = validate(
        {**doc, "analyses": {analysis: dict(section or {})}} if "weights" in doc else doc
    )
    try:
        frame = cfg.filtered(cfg.read_frame(all_columns=True))
        return drop_missing(frame, cfg.dropna_columns(frame), list(roles.get("protected") or []))
    except InputError as exc:
        raise InputError(flagged(str(exc))) from None


def read_like_data(reading: Mapping[str, Any], path: Path) -> Any:
    """Another table of the run (a counterfactual table) read with the data's file options
    (``--sep``, ``--encoding``, ...), as ``AuditConfig.data_options`` passes them."""
    from ..data import read_table

    spec = _data_key(path, reading)
    if not isinstance(spec, dict):
        return read_table(path)
    validate_data = validate({"data": spec, "decision": {"column": "_"}, "features": {},
                              "protected": {"_": 1}})  # fmt: skip
    return read_table(path, **validate_data.data_options)
