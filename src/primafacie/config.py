"""``audit.yaml`` as pydantic models: strict keys, defaults filled in, paths relative to the file.

Every unknown or misspelled key is an error naming it, its line, and the closest valid key.
The same configuration can be built in Python: ``AuditConfig(data="loans.csv", ...)``.

Examples
--------
>>> cfg = AuditConfig.model_validate({
...     "data": "loans.csv", "decision": {"column": "approved"},
...     "features": {"salary": "numeric"}, "protected": {"gender": "female"},
...     "analyses": {"situation": {"k": [15, 30]}}})
>>> cfg.analyses.situation.k
[15, 30]
>>> cfg.analyses.situation.alpha
0.05
"""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Union

import pandas as pd
import yaml
from pydantic import (
    BaseModel,
    BeforeValidator,
    Field,
    PrivateAttr,
    ValidationError,
    create_model,
    field_validator,
    model_validator,
)

from .config_reading import DataReading, _with_source
from .data import (
    KIND_SYNONYMS,
    MAX_LEVELS,
    read_table,
    table_columns,
)
from .decisions import ModelDecider, Rule, check_fitted
from .errors import InputError
from .modelfiles import LoadedModel, ModelCache

__all__ = [
    "AuditConfig",
    "DecisionSpec",
    "CausalSpec",
    "DataSpec",
    "SituationSpec",
    "RecourseSpec",
    "PrincipalSpec",
    "CertaintySpec",
    "AnalysesSpec",
    "ComputeSpec",
    "load_config",
    "config_schema",
    "parameters_page",
]

from .audit.registry import ANALYSES
from .certainty.spec import CertaintySpec
from .configbase import DecisionSpec, Scalar
from .configbase import Strict as _Strict
from .principal.spec import PrincipalSpec
from .recourse.spec import RecourseSpec
from .situation.spec import SituationSpec


class OrdinalSpec(_Strict):
    """An ordinal feature with its levels from lowest to highest."""

    ordinal: Optional[list[Scalar]] = None


def _canonical_kind(value: Any) -> Any:
    """``nominal`` -> categorical, ``continuous`` -> numeric, ... (:data:`data.KIND_SYNONYMS`)."""
    if isinstance(value, str):
        text = value.strip().lower()
        return KIND_SYNONYMS.get(text, text)
    return value


FeatureKind = Union[
    Annotated[Literal["numeric", "categorical", "ordinal"], BeforeValidator(_canonical_kind)],
    OrdinalSpec,
]


class ProtectedSpec(_Strict):
    """A protected attribute with its reference group: ``{values: [..], reference: [..] |
    rest | highest}`` (see :mod:`primafacie.reference`)."""

    values: Union[Scalar, list[Scalar]]
    reference: Union[Literal["rest", "highest"], list[Scalar]] = "rest"


class DataSpec(_Strict):
    """``data:`` as a mapping, for a table that needs reading options: ``{path: x.csv,
    decimal: ",", sep: ";", encoding: latin-1, header: false, names: [...], na_values: [?]}``,
    ``{path: x.xlsx, sheet: Sheet2}``, ``{path: x.duckdb, table: loans}`` or ``{sql: "select
    ..."}`` (a plain path reads with the defaults)."""

    path: Optional[Path] = None
    decimal: Literal[".", ","] = "."
    sep: Optional[Literal[",", ";", "|", "\t"]] = None
    encoding: str = "utf-8"
    header: bool = True
    names: Optional[list[str]] = None
    na_values: list[str] = Field(default_factory=list)
    sheet: Optional[Union[Annotated[int, Field(ge=0)], str]] = None
    table: Optional[str] = None
    sql: Optional[str] = None
    reader: Literal["auto", "duckdb", "pandas"] = "auto"

    @model_validator(mode="after")
    def _distinct_marks(self) -> DataSpec:
        if self.decimal == "," and self.sep == ",":
            raise ValueError(
                '[data.sep] decimal: "," needs another delimiter than the comma; give sep: ";"'
            )
        return self

    @model_validator(mode="after")
    def _consistent(self) -> DataSpec:
        from .data_files import DUCKDB_SUFFIXES, EXCEL_SUFFIXES, check_text_options

        check_text_options(self.encoding, self.header, self.names)  # as ReadOptions does
        suffix = self.path.suffix.lower() if self.path is not None else ""
        duck, excel = suffix in DUCKDB_SUFFIXES, suffix in EXCEL_SUFFIXES
        if self.path is None and self.sql is None:
            raise ValueError("[data.path] give path: a file, or sql: a query")
        if self.sql is not None and self.path is not None and not duck:
            raise ValueError("[data.sql] sql runs on its own or over a .duckdb file; give "
                             "either sql or path")  # fmt: skip
        if self.sheet is not None and not excel:
            raise ValueError("[data.sheet] sheet applies to Excel files (.xlsx, .xls, .ods)")
        if self.table is not None and not duck:
            raise ValueError("[data.table] table applies to a DuckDB file (path: x.duckdb)")
        if duck and (self.table is None) == (self.sql is None):
            raise ValueError("[data.table] a .duckdb file needs table: NAME or sql: QUERY")
        if self.table is not None and self.sql is not None:
            raise ValueError("[data.sql] give table or sql, not both")
        if self.reader == "pandas" and (duck or self.path is None):
            raise ValueError("[data.reader] pandas cannot run a query or read a .duckdb file; "
                             "give reader: auto or duckdb")  # fmt: skip
        csv_only = {"sep": self.sep is not None, "decimal": self.decimal != ".",
                    "encoding": self.encoding.lower() not in ("utf-8", "utf8")}  # fmt: skip
        if self.path is None or duck or excel or suffix in (".parquet", ".pq"):
            for key, given in csv_only.items():
                if given:
                    raise ValueError(f"[data.{key}] {key} applies to CSV files only")
        if self.path is None or duck or suffix in (".parquet", ".pq"):
            for key in ("header", "names", "na_values"):
                if key in self.model_fields_set:
                    raise ValueError(f"[data.{key}] {key} applies to CSV and Excel files only")
        return self


class CausalSpec(_Strict):
    """The causal DAG (edges parent -> child) and the mechanism fitted for each node."""

    edges: list[tuple[str, str]]
    mechanism: Literal["linear", "random_forest", "gradient_boosting"] = "linear"
    clip: dict[str, tuple[float, float]] = Field(default_factory=dict)
    round: dict[str, int] = Field(default_factory=dict)

    def build(self) -> Any:
        """The unfitted :class:`~primafacie.causal.SCM` (clip and round included): the one
        place where this section becomes SCM arguments (the audit and every ``--config``
        command call it)."""
        from .causal import SCM

        return SCM(
            edges=self.edges, mechanism=self.mechanism, clip=dict(self.clip), round=dict(self.round)
        )


def _off(value: Any) -> Any:
    """``false`` and ``off`` (YAML reads an unquoted ``off`` as false) turn a section off, as
    ``null`` does."""
    if value is False or (isinstance(value, str) and value.strip().lower() == "off"):
        return None
    return value


#: Which analyses to run (one optional section per registered analysis); an absent section is
#: not run, except for a ``default_on`` analysis, which then runs with its spec's defaults, and
#: a ``default_when`` one whose condition holds (``name: null``, ``false`` or ``off`` turns it
#: off). Built from the registry, so a new analysis needs no edit here.
AnalysesSpec = create_model(
    "AnalysesSpec",
    __base__=_Strict,
    __doc__="Which analyses to run; an absent section is not run, except an analysis that is on "
    "by default (it runs with its defaults; null, false or off turns it off).",
    __validators__={
        "_off": field_validator(*(a.name for a in ANALYSES), mode="before")(
            classmethod(lambda cls, v: _off(v))
        )
    },
    **{
        a.name: (
            Optional[a.spec],
            Field(default_factory=a.spec, description=a.description)
            if a.default_on
            else Field(None, description=a.description),
        )
        for a in ANALYSES
    },
)


class ComputeSpec(_Strict):
    """Execution backend."""

    backend: Literal["local", "dask"] = "local"
    address: Optional[str] = None
    n_jobs: Optional[int] = Field(None, ge=1)
    retries: int = Field(3, ge=0)
    timeout: float = Field(30.0, gt=0, le=3600)
    #: ``address`` when it names a scheduler file: resolved against the configuration's folder
    _scheduler_file: Optional[Path] = PrivateAttr(default=None)

    @field_validator("address")
    @classmethod
    def _known_scheme(cls, value: Optional[str]) -> Optional[str]:
        # a scheme Dask does not know fails deep inside it ("internal error"); say it here
        from .compute import check_address

        return None if value is None else check_address(value)

    def build(self) -> Any:
        """The :mod:`primafacie.compute` backend, or None for the plain local default (every
        usable core)."""
        if self.backend == "local" and self.n_jobs is None:
            return None
        from .compute import get_backend

        spec = self.model_dump()
        if self._scheduler_file is not None:
            spec["address"] = str(self._scheduler_file)
        return get_backend(spec)


class TimeSpec(_Strict):
    """Time windows: ``{column: decided_at, window: month}`` or ``{by: batch}``.

    The analyses that measure per window (group metrics, certainty) run once per window as
    well as on the whole period; a window with fewer than ``min_decisions`` decisions is
    shown and flagged, never dropped.
    """

    column: Optional[str] = Field(None, description="A date/time column to cut into windows.")
    window: Literal["day", "week", "month", "quarter", "year"] = Field(
        "month", description="Calendar window of `column` (ISO weeks)."
    )
    by: Optional[str] = Field(None, description="A categorical column whose values are windows.")
    min_decisions: int = Field(
        30, ge=1, description="Windows with fewer decisions are flagged as too small."
    )

    @model_validator(mode="after")
    def _one_source(self) -> TimeSpec:
        if (self.column is None) == (self.by is None):
            raise ValueError("[time] give either column (a date column, with window) or by "
                             "(a categorical column), not both and not neither")  # fmt: skip
        return self

    @property
    def source(self) -> str:
        """The column the windows come from."""
        return self.column if self.column is not None else str(self.by)


class AuditConfig(DataReading, _Strict):
    """The whole audit: data and roles, causal model, analyses, compute backend."""

    data: Union[Path, DataSpec]
    train: Optional[Path] = None
    decision: DecisionSpec
    favorable: Scalar = 1
    outcome: Optional[str] = None
    outcome_favorable: Scalar = 1
    id: Optional[str] = None
    features: dict[str, FeatureKind]
    protected: dict[str, Union[Scalar, list[Scalar], ProtectedSpec]]
    weights: Optional[str] = None
    causal: Optional[CausalSpec] = None
    analyses: AnalysesSpec = Field(default_factory=AnalysesSpec)
    compute: ComputeSpec = Field(default_factory=ComputeSpec)
    seed: int = 0
    max_levels: Optional[int] = Field(MAX_LEVELS, ge=1)
    where: Optional[str] = None
    dropna: Union[bool, list[str]] = False
    jurisdiction: Literal["eu", "us-employment", "nyc-ll144", "none"] = "eu"
    time: Optional[TimeSpec] = None
    base_dir: Path = Field(default=Path("."), exclude=True)
    # the models of this run, each read once (a trusted pickle runs its code once per run)
    _models: ModelCache = PrivateAttr(default_factory=ModelCache)
    # the file load_config read (not a key of audit.yaml): its SHA-256 goes into the provenance
    _source: Optional[Path] = PrivateAttr(default=None)

    @property
    def source(self) -> Optional[Path]:
        """The configuration file this was read from (None when built in Python)."""
        return self._source

    @model_validator(mode="before")
    @classmethod
    def _conditional_defaults(cls, doc: Any) -> Any:
        """Add the section of every ``default_when`` analysis whose condition holds and that
        the configuration does not mention (``null``/``false``/``off`` mention it)."""
        if not isinstance(doc, dict):
            return doc
        analyses = doc.get("analyses")
        for a in ANALYSES:
            if a.default_when is None or not a.default_when(doc):
                continue
            if isinstance(analyses, BaseModel):
                if a.name in analyses.model_fields_set:
                    continue
                analyses = analyses.model_copy(update={a.name: _implicit(a.spec)})
            elif analyses is None or isinstance(analyses, dict):
                if a.name in (analyses or {}):
                    continue
                analyses = {**(analyses or {}), a.name: _implicit(a.spec)}
            doc = {**doc, "analyses": analyses}
        return doc

    @model_validator(mode="after")
    def _cross_checks(self) -> AuditConfig:
        # Errors that involve two sections start with "[key.path]" so that load_config can
        # point at the line of the offending key.
        if not self.protected:
            raise ValueError("[protected] name at least one protected attribute")
        both = sorted(set(self.features) & set(self.protected))
        if both:
            raise ValueError(
                f"[features.{both[0]}] {both} listed both as feature and as protected attribute; "
                "a protected attribute is never a feature"
            )
        roles = {"decision": self.decision.column, "outcome": self.outcome,
                 "weights": self.weights}  # fmt: skip
        for role, col in roles.items():
            if col and col in self.features:
                raise ValueError(
                    f"[features.{col}] {role} column {col!r} is also listed as a feature"
                )
        if self.causal is not None:
            known = set(self.features) | set(self.protected)
            for i, (a, b) in enumerate(self.causal.edges):
                for node in (a, b):
                    if node not in known:
                        raise ValueError(
                            f"[causal.edges.{i}] causal edge ({a}, {b}) names {node!r}, which is "
                            "neither a feature nor a protected attribute"
                        )
                if b in self.protected:
                    raise ValueError(
                        f"[causal.edges.{i}] causal edge ({a}, {b}) points into protected "
                        f"attribute {b!r}; protected attributes have no parents"
                    )
        if self.weights is not None:
            if self.weights in self.protected:
                raise ValueError(f"[weights] weights column {self.weights!r} is also protected")
            for a in ANALYSES:
                if getattr(self.analyses, a.name) is not None and not a.weights:
                    raise ValueError(
                        f"[weights] weights: {self.weights!r} is set, but weights are not "
                        f"defined for {a.title.lower()} (analyses.{a.name}); remove weights, "
                        f"or turn the analysis off ({a.name}: null)"
                    )
        for a in ANALYSES:
            if a.needs_outcome and getattr(self.analyses, a.name) is not None and not self.outcome:
                raise ValueError(
                    f"[analyses.{a.name}] analyses.{a.name} needs outcome: the ground-truth column"
                )
        address = self.compute.address
        if address is not None and "://" not in address:
            full = self.resolve(address)
            if not full.is_file():
                raise ValueError(
                    f"[compute.address] compute.address {address!r} is neither a scheduler "
                    "address (tcp://host:port, tls://host:port, ucx://host:port) nor an "
                    f"existing scheduler file ({full} not found)"
                )
            self.compute._scheduler_file = full
        return self

    # ------------------------------------------------------------------ helpers
    def resolve(self, path: Path | str) -> Path:
        """A path from the file, made absolute relative to the configuration's folder."""
        p = Path(path)
        return p if p.is_absolute() else (self.base_dir / p).resolve()

    @property
    def data_path(self) -> Optional[Path]:
        """The data file or folder, absolute; None for ``data: {sql: ...}`` alone."""
        path = self.data.path if isinstance(self.data, DataSpec) else self.data
        return None if path is None else self.resolve(path)

    @property
    def data_options(self) -> dict[str, Any]:
        """How the data are read: the keyword arguments of :func:`~primafacie.data.read_table`
        (``data: {path, decimal, sep, encoding, header, names, na_values, sheet, table, sql,
        reader}``);
        a query's relative file names start from the configuration's folder."""
        if not isinstance(self.data, DataSpec):
            return {"sep": None, "decimal": "."}
        spec = self.data
        out = {"sep": spec.sep, "decimal": spec.decimal}
        keys = ("encoding", "header", "names", "na_values", "sheet", "table", "sql", "reader")
        for key in keys:
            if key in spec.model_fields_set:
                out[key] = getattr(spec, key)
        if spec.sql is not None:
            out["base_dir"] = self.base_dir
        return out

    @property
    def decision_column(self) -> str:
        """The column holding ŷ in :meth:`audit_data` (computed for a model, rule or score)."""
        return self.decision.column or "__decision__"

    def protected_spec(self) -> dict[str, Any]:
        """Protected attributes in the form :class:`~primafacie.data.AuditData` takes."""
        return {
            name: spec.model_dump() if isinstance(spec, ProtectedSpec) else spec
            for name, spec in self.protected.items()
        }

    def feature_spec(self) -> dict[str, Any]:
        """Features in the form :class:`~primafacie.data.AuditData` takes."""
        out: dict[str, Any] = {}
        for name, kind in self.features.items():
            out[name] = kind.model_dump() if isinstance(kind, OrdinalSpec) else kind
        return out

    def decider(self) -> Any:
        """b(): a :class:`Rule` or :class:`ModelDecider`, or ``None`` for a recorded column."""
        if self.decision.rule is not None:
            return Rule(self.decision.rule)
        if self.decision.model is not None:
            path = self.resolve(self.decision.model)
            try:
                model = self.model_file(self.decision, "decision").model
                check_fitted(model, str(path))
                return ModelDecider(model, features=None, favorable=self.favorable)
            except InputError as exc:
                raise InputError(_with_source(exc, path)) from None
        return None

    def model_file(self, spec: DecisionSpec, key: str) -> LoadedModel:
        """The model ``spec`` names, read once per configuration (that is, per run).

        Parameters
        ----------
        spec
            ``decision`` or a certainty decision-maker, with ``model`` set.
        key
            Its key in audit.yaml, named in the message that says how to trust the file.

        Returns
        -------
        LoadedModel
            The model with its format and the SHA-256 of the bytes it was built from.
        """
        return self._models.load(
            self.resolve(spec.model), spec.trust, spec.trusted_types or (), key
        )

    def model_files(self) -> list[tuple[str, DecisionSpec, str]]:
        """``(role, spec, key)`` of every model file the configuration names, in order."""
        out = []
        if self.decision.model is not None:
            out.append(("decision model", self.decision, "decision"))
        cert = self.analyses.certainty
        for name, dm in (cert.decision_makers if cert else {}).items():
            if dm.model is not None:
                out.append((f"decision-maker {name}", dm, _maker_key(name)))
        return out + self.section_models()

    def section_models(self) -> list[tuple[str, DecisionSpec, str]]:
        """``(role, spec, key)`` of the model files an analysis section names itself (a model
        to refit, ...), through the section's ``model_files()``."""
        out = []
        for a in ANALYSES:
            section = getattr(self.analyses, a.name)
            if section is not None and hasattr(section, "model_files"):
                out.extend(section.model_files())
        return out

    def train_files(self) -> list[tuple[str, Path]]:
        """``(role, path as written)`` of every training data file: ``train:`` and any
        section's own ``train`` key."""
        out = [("train data", self.train)] if self.train is not None else []
        for a in ANALYSES:
            path = getattr(getattr(self.analyses, a.name), "train", None)
            if isinstance(path, Path):
                out.append((f"train data (analyses.{a.name}.train)", path))
        return out

    def train_path(self, given: Path | None = None) -> Path | None:
        """The training data file: ``given`` (an analysis' own key), else ``train:``, resolved
        against the configuration's folder; None when neither is set."""
        path = given if given is not None else self.train
        return None if path is None else self.resolve(path)

    def read_train(self, path: Path) -> pd.DataFrame:
        """A training data file, read with the reader and options of ``data:`` (and the same
        columns); the ``where`` filter is not applied (it selects the audited rows)."""
        if not path.exists():
            raise InputError(f"train data file not found: {path}")
        opts = self.data_options
        columns = self.used_columns(table_columns(path, sep=opts["sep"]))
        return read_table(path, columns=columns, **opts)

    def decision_makers(self) -> dict[str, Any]:
        """The certainty section's decision-makers: a column name, a :class:`Rule` or a model.

        Empty when the configuration has no certainty section or lists none.
        """
        spec = self.analyses.certainty
        out: dict[str, Any] = {}
        for name, dm in (spec.decision_makers if spec else {}).items():
            if dm.column is not None:
                out[name] = dm.column
            elif dm.rule is not None:
                out[name] = Rule(dm.rule)
            else:
                out[name] = self.model_file(dm, _maker_key(name)).model
                check_fitted(out[name], str(self.resolve(dm.model)))
        return out

    def resolved(self) -> dict[str, Any]:
        """JSON-safe resolved configuration, defaults filled in (echoed into results)."""
        out = self.model_dump(mode="json")
        for key in ("time", "train"):
            if out.get(key) is None:
                out.pop(key, None)  # results of audits without them keep their bytes
        if out.get("dropna") is False:
            out.pop("dropna", None)  # as for time: unchanged bytes for audits without it
        if isinstance(out.get("data"), dict):  # only the reading options that were given
            given = self.data.model_fields_set | {"path", "decimal", "sep"}  # type: ignore[union-attr]
            out["data"] = {k: v for k, v in out["data"].items() if k in given}
        return out


def _implicit(spec_cls: type) -> Any:
    """A section with its defaults, marked as added by the configuration itself."""
    spec = spec_cls()
    if "_by_default" in getattr(spec_cls, "__private_attributes__", {}):
        spec._by_default = True
    return spec


def _maker_key(name: str) -> str:
    """The audit.yaml key of a ranked decision-maker (the section found through the registry)."""
    section = next(a.name for a in ANALYSES if a.spec is CertaintySpec)
    return f"analyses.{section}.decision_makers.{name}"


#: Deepest nesting of mappings and lists accepted in audit.yaml (the schema needs 5).
MAX_YAML_DEPTH = 20
#: Most values (counting every use of a YAML alias) accepted in audit.yaml.
MAX_YAML_NODES = 100_000


def _check_shape(doc: Any, source: Path) -> None:
    """Depth and size limits, walked without recursion and stopping at the first excess (so a
    "billion laughs" of aliases costs nothing); the error names the key path where the limit
    was hit, so the user knows which section to fix."""
    stack: list[tuple[Any, int, tuple[Any, ...]]] = [(doc, 1, ())]
    seen = 0
    while stack:
        node, depth, path = stack.pop()
        seen += 1
        where = ".".join(map(str, path)) or "(top level)"
        if depth > MAX_YAML_DEPTH:
            raise InputError(
                f"{source}: the configuration nests deeper than {MAX_YAML_DEPTH} levels at "
                f"{where}; audit.yaml needs at most a few"
            )
        if seen > MAX_YAML_NODES:
            raise InputError(
                f"{source}: the configuration has more than {MAX_YAML_NODES:,} values (counting "
                f"every use of a YAML alias); the limit was reached at {where}"
                + (f", under the key {path[0]!r}" if path else "")
            )
        if isinstance(node, dict):
            stack.extend((v, depth + 1, (*path, k)) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, depth + 1, (*path, i)) for i, v in enumerate(node))


# ---------------------------------------------------------------------- YAML with line numbers
class _LineLoader(yaml.SafeLoader):
    """Safe loader that refuses duplicate keys and records the line of every key."""


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        if key in seen:
            raise InputError(f"line {line}: key {key!r} is given twice (first on line {seen[key]})")
        seen[key] = line
    mapping = loader.construct_mapping(node, deep=deep)
    lines = getattr(loader, "_key_lines", None)
    if lines is not None:
        lines[id(mapping)] = seen
    return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _line_of(doc: Any, loc: tuple, key_lines: dict[int, dict]) -> int | None:
    node, line = doc, None
    for part in loc:
        if isinstance(node, dict):
            line = key_lines.get(id(node), {}).get(part, line)
            node = node.get(part)
        elif isinstance(node, list) and isinstance(part, int) and part < len(node):
            node = node[part]
        else:
            break
    return line


def _valid_keys(model: type[BaseModel], loc: tuple) -> list[str]:
    """Field names valid at the parent of ``loc`` (for 'did you mean')."""
    current: Any = model
    for part in loc[:-1]:
        fields = getattr(current, "model_fields", None)
        if not fields or part not in fields:
            return []
        ann = fields[part].annotation
        current = _first_model(ann)
        if current is None:
            return []
    return list(getattr(current, "model_fields", {}))


def _first_model(annotation: Any) -> Any:
    import typing

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _first_model(arg)
        if found is not None:
            return found
    return None


def _is_union_tag(part: Any) -> bool:
    """A part of a pydantic error location that names a union member (``OrdinalSpec``,
    ``literal[...]``, ``function-after[...]``, ``list[str]``), not a key of the file: such
    internals never reach the user."""
    if not isinstance(part, str):
        return False
    return bool(
        part.startswith(("function-", "literal[", "list[", "dict["))
        or re.fullmatch(r"[A-Z]\w*(Spec|Config|Model)", part)
        or part in {"str", "int", "float", "bool", "none"}
    )


def _readable(err: Any) -> str:
    """pydantic's message, a choice error rewritten to echo the value and list the choices."""
    if err["type"] in ("literal_error", "enum"):
        expected = re.findall(r"'([^']*)'", str((err.get("ctx") or {}).get("expected", "")))
        if expected:
            return f"got {err.get('input')!r}; expected one of {', '.join(expected)}"
    return err["msg"].removeprefix("Value error, ")


def _format_errors(exc: ValidationError, doc: Any, key_lines: dict[int, dict], source: str) -> str:
    lines = []
    errors = exc.errors()
    for err in errors:
        if (
            len(errors) > 1
            and err["type"] == "literal_error"
            and isinstance(err.get("input"), (dict, list))
        ):
            continue  # a mapping given where a union also takes one: that member's error says it
        loc = tuple(p for p in err["loc"] if not _is_union_tag(p))
        key = ".".join(str(p) for p in loc) or "(top level)"
        line = _line_of(doc, loc, key_lines)
        where = f"{source}:{line}" if line else source
        if err["type"] == "extra_forbidden":
            valid = _valid_keys(AuditConfig, loc)
            close = difflib.get_close_matches(str(loc[-1]), valid, n=1, cutoff=0.5)
            hint = f"; did you mean {close[0]!r}?" if close else f"; valid keys: {', '.join(valid)}"
            lines.append(f"{where}: unknown key {key!r}{hint}")
        elif err["type"] == "missing":
            lines.append(f"{where}: missing required key {key!r}")
        else:
            msg = _readable(err)
            tagged = re.match(r"\[([^\]]+)\] (.*)", msg, flags=re.S)
            if tagged:
                path = tuple(int(p) if p.isdigit() else p for p in tagged.group(1).split("."))
                key, msg = tagged.group(1), tagged.group(2)
                line = _line_of(doc, loc + path, key_lines) or line
                where = f"{source}:{line}" if line else source
            lines.append(f"{where}: {key}: {msg}")
    # Union members repeat the same location; keep each message once, in order.
    return "\n".join(dict.fromkeys(lines))


def load_config(path: str | os.PathLike) -> AuditConfig:
    """Read and validate ``audit.yaml``.

    Parameters
    ----------
    path
        The YAML file. Relative paths inside it are resolved against its folder.

    Returns
    -------
    AuditConfig
        The validated configuration with defaults filled in.

    Raises
    ------
    InputError
        For a missing file, invalid YAML, a duplicated key or any invalid / unknown key; the
        message names the key, its line and the closest valid key.
    """
    path = Path(path)
    if not path.exists():
        raise InputError(f"configuration file not found: {path}")
    if not path.is_file():
        raise InputError(f"configuration {path} is not a file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{path}: not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset {exc.start}); "
            "save the configuration as UTF-8"
        ) from None
    except OSError as exc:
        raise InputError(f"cannot read configuration {path}: {exc.strerror or exc}") from None
    loader = _LineLoader(text)
    loader._key_lines = {}  # type: ignore[attr-defined]
    try:
        doc = loader.get_single_data()
    except yaml.YAMLError as exc:
        raise InputError(f"{path}: not valid YAML: {exc}") from None
    except RecursionError:
        raise InputError(
            f"{path}: the configuration nests deeper than {MAX_YAML_DEPTH} levels"
        ) from None
    except InputError as exc:  # a duplicated key: say which file
        raise InputError(f"{path}: {exc}") from None
    finally:
        loader.dispose()
    if not isinstance(doc, dict):
        raise InputError(f"{path}: the configuration must be a mapping of keys")
    _check_shape(doc, path)
    if "analyses" in doc and not doc["analyses"]:
        line = loader._key_lines.get(id(doc), {}).get("analyses")  # type: ignore[attr-defined]
        where = f"{path}:{line}" if line else str(path)
        raise InputError(
            f"{where}: analyses: asks for no analysis; name at least one of "
            + ", ".join(a.name for a in ANALYSES)
            + " (e.g. analyses: {groups: {}}), or leave the key out to run the defaults ("
            + (", ".join(a.name for a in ANALYSES if a.default_on) or "none")
            + ")"
        )
    try:
        cfg = AuditConfig.model_validate({**doc, "base_dir": path.resolve().parent})
    except ValidationError as exc:
        raise InputError(_format_errors(exc, doc, loader._key_lines, str(path))) from None  # type: ignore[attr-defined]
    cfg._source = path.resolve()
    return cfg


#: What each key means, for editors showing the schema (``Model.key`` -> description).
KEY_DESCRIPTIONS = {
    "AuditConfig.data": "CSV, Parquet, Excel or DuckDB table, relative to this file; or {path: "
    "FILE, ...reading options} (decimal, sep, encoding, header, names, na_values, sheet, table, "
    "reader) "
    "or {sql: QUERY}.",
    "DataSpec.path": "CSV, Parquet (file or folder), Excel (.xlsx, .xls, .ods) or DuckDB "
    "(.duckdb) file, relative to this file.",
    "DataSpec.decimal": 'Decimal mark of the CSV\'s numbers: "." (default) or "," (12,5).',
    "DataSpec.sep": "CSV delimiter (default: detected among , ; | and tab).",
    "DataSpec.encoding": "Text encoding of the CSV file (default utf-8; e.g. latin-1, cp1252).",
    "DataSpec.header": "false: the first row is data, not names (then give names).",
    "DataSpec.names": "Column names, one per field: they name a file without a header row, or "
    "replace the header (same count).",
    "DataSpec.na_values": 'Cell texts meaning a missing value, e.g. ["?"] (besides empty cells).',
    "DataSpec.sheet": "Excel sheet to read: its name or 0-based index (default: the first).",
    "DataSpec.table": "Table (or view) of the .duckdb file to read.",
    "DataSpec.reader": "Which reader reads a CSV or Parquet file: auto (pandas for CSV, pyarrow "
    "for Parquet: measured faster than DuckDB once its result is in pandas; DuckDB for sql and "
    ".duckdb), duckdb (same column types; falls back, with a note in the report, for an "
    "option it cannot honour: Excel, a Parquet folder, an encoding other than UTF-8/16 or "
    "Latin-1) or pandas.",
    "DataSpec.sql": "One read-only SELECT (or WITH) query run by DuckDB; relative file names in "
    "it start from this file's folder.",
    "AuditConfig.train": "Optional training data: a file with the same columns as data and "
    "the true outcome, read like data (same reader and options), on which analyses that refit "
    "a model refit it; without it they use the audited rows.",
    "AuditConfig.decision": "How the audited decision is obtained: a column, a model file or a rule.",
    "AuditConfig.favorable": "Value of the decision that is favourable (e.g. 1, 'approved').",
    "AuditConfig.outcome": "Optional column of the true outcome Y (principal strata, equal "
    "opportunity, accuracy).",
    "AuditConfig.outcome_favorable": "Value of the outcome that is favourable.",
    "AuditConfig.id": "Optional column of row identifiers (reported next to each complainant).",
    "AuditConfig.features": "Non-protected features: numeric, categorical or {ordinal: [levels]}.",
    "AuditConfig.protected": "Protected attributes and their protected value(s), e.g. "
    "{gender: female, race: [black, hispanic]} (compared with every other row), or "
    "{race: {values: [African-American], reference: [Caucasian] | rest | highest}}.",
    "ProtectedSpec.values": "The protected value(s) of the attribute, spelled as in the data.",
    "ProtectedSpec.reference": "Whom the protected values are compared with: a list of values "
    "(rows holding neither are left out of the comparison and counted), rest (every other "
    "row, the default) or highest (the non-protected value with the highest selection rate; "
    "ties: more rows, then the first in sorted order).",
    "AuditConfig.weights": "Optional column of sample weights (≥ 0): weighted rates with "
    "intervals on the Kish effective sample size, in groups and certainty; the analyses for "
    "which weights are not defined must then be off.",
    "AuditConfig.causal": "Causal graph for the counterfactuals (situation testing CST/CF).",
    "AuditConfig.analyses": "Which analyses to run; a missing section is not run.",
    "AuditConfig.compute": "Execution backend (local or dask).",
    "AuditConfig.seed": "Seed of every random step (same input and seed give identical outputs).",
    "AuditConfig.max_levels": "Largest number of distinct values of a categorical feature; "
    "default null: any (a declared feature is taken as declared; an id-like one is noted).",
    "AuditConfig.dropna": "true (the audited columns) or [columns]: drop the rows with a "
    "missing value there, counted per column and group in results.json; without it a missing "
    "value is an error.",
    "AuditConfig.where": 'Row filter in the rule language, e.g. "year == 2024 and region != '
    "'test'\": only these rows are audited; the rows left out are counted in results.json.",
    "AuditConfig.jurisdiction": "Legal notes of the report and dossiers: eu (EU "
    "non-discrimination law, the default), us-employment (Title VII, the Uniform Guidelines' "
    "four-fifths rule), nyc-ll144 (Local Law 144's audit and notice duties) or none.",
    "AuditConfig.time": "Time windows: {column: decided_at, window: month} (day, week, month, "
    "quarter, year) or {by: column}; the analyses with a trend also run once per window.",
    "DecisionSpec.column": "Column holding recorded decisions.",
    "DecisionSpec.model": "Fitted model file: .skops (skops.io.dump) or .onnx; a pickle/joblib "
    "file only with trust: pickle.",
    "DecisionSpec.trust": "pickle: allow this pickle/joblib model file, which runs its author's "
    "code when loaded (only for a file you trust).",
    "DecisionSpec.trusted_types": "skops types to trust beyond scikit-learn's classes and numpy's "
    "scalar types.",
    "DecisionSpec.rule": "Rule expression, e.g. 'salary + 5 * balance > 225000' (never eval'd).",
    "DecisionSpec.score": "Numeric score column: the decision is favourable at or above "
    "threshold (favorable: above) or below it (favorable: below).",
    "DecisionSpec.threshold": "Threshold of the score (with score).",
    "DecisionSpec.favorable": "above (default: score >= threshold is favourable) or below "
    "(score < threshold is favourable), with score.",
    "OrdinalSpec.ordinal": "Levels from lowest to highest.",
    "CausalSpec.edges": "Directed edges [cause, effect] among protected attributes and features.",
    "CausalSpec.mechanism": "Regressor of each additive-noise structural equation.",
    "CausalSpec.clip": "Per node [low, high] limits of the counterfactual values.",
    "CausalSpec.round": "Per node number of decimals of the counterfactual values.",
    "ComputeSpec.backend": "local (numpy) or dask (distributed).",
    "ComputeSpec.address": "Address of a running dask scheduler: tcp://, tls:// or ucx://host:port, "
    "or the path of its scheduler file (default: a local cluster).",
    "ComputeSpec.timeout": "Seconds allowed for the whole connection to the dask scheduler "
    "(connect and handshake); a server that does not answer as a scheduler in time is an error.",
    "ComputeSpec.n_jobs": "Local worker threads (default: every usable core; 1 = one thread).",
    "ComputeSpec.retries": "Dask: re-runs of a task that raised before the audit fails.",
}


def config_schema() -> dict[str, Any]:
    """JSON Schema of ``audit.yaml`` (what ``primafacie schema`` prints); every key described."""
    schema = AuditConfig.model_json_schema()
    schema.get("properties", {}).pop("base_dir", None)
    schema["title"] = "primafacie audit.yaml"
    models = {"AuditConfig": schema, **schema.get("$defs", {})}
    described = dict(KEY_DESCRIPTIONS)
    for analysis in ANALYSES:
        for spec in (analysis.spec, *getattr(analysis.spec, "nested_specs", ())):
            for key, text in spec.key_descriptions.items():
                described[f"{spec.__name__}.{key}"] = text
    for model, body in models.items():
        for key, prop in body.get("properties", {}).items():
            text = described.get(f"{model}.{key}")
            if text and "description" not in prop:
                prop["description"] = text
    return schema


#: How docs/parameters.md is regenerated (its first lines say so too).
PARAMETERS_DOC_COMMAND = (
    'PYTHONPATH=src python -c "from primafacie.config import parameters_page; '
    "open('docs/parameters.md', 'w', encoding='utf-8').write(parameters_page())\""
)


def parameters_page() -> str:
    """docs/parameters.md: one table per analysis whose parameters are declared in its
    ``params.py`` (:class:`~primafacie.params.Param`), generated from the declarations;
    ``tests/test_config.py`` checks that the file is up to date."""
    from .params import markdown_table

    parts = [
        "# Parameters of the analyses\n\n"
        "Generated from each analysis' declarations (`src/primafacie/<analysis>/params.py`);"
        " do not edit by hand. Regenerate with\n\n"
        f"    {PARAMETERS_DOC_COMMAND}\n\n"
        "Every value is checked against the same constraint by the engine, by `audit.yaml`"
        " and by the command's flag, and an error names the flag and the key to change.\n"
    ]
    for analysis in ANALYSES:
        params = getattr(analysis.spec, "params", ())
        if params:
            parts.append(f"\n## {analysis.title} (`analyses.{analysis.name}`)\n\n")
            parts.append(markdown_table(params, analysis.name))
    return "".join(parts)
