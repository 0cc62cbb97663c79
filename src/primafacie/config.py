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
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Union

import numpy as np
import pandas as pd
import yaml
from pydantic import (
    BaseModel,
    BeforeValidator,
    Field,
    ValidationError,
    create_model,
    model_validator,
)

from .data import KIND_SYNONYMS, MAX_LEVELS, AuditData, read_table, table_columns, to_pandas
from .decisions import ModelDecider, Rule, load_model
from .errors import InputError

__all__ = [
    "AuditConfig",
    "DecisionSpec",
    "CausalSpec",
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


#: Which analyses to run (one optional section per registered analysis); an absent section is
#: not run, except for a ``default_on`` analysis, which then runs with its spec's defaults
#: (``name: null`` turns it off). Built from the registry, so a new analysis needs no edit here.
AnalysesSpec = create_model(
    "AnalysesSpec",
    __base__=_Strict,
    __doc__="Which analyses to run; an absent section is not run, except an analysis that is on "
    "by default (it runs with its defaults; null turns it off).",
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
    n_jobs: int = Field(1, ge=1)
    retries: int = Field(3, ge=0)

    def build(self) -> Any:
        """The :mod:`primafacie.compute` backend, or None for the plain local default."""
        if self.backend == "local" and self.n_jobs == 1:
            return None
        from .compute import get_backend

        return get_backend(self.model_dump())


class AuditConfig(_Strict):
    """The whole audit: data and roles, causal model, analyses, compute backend."""

    data: Path
    decision: DecisionSpec
    favorable: Scalar = 1
    outcome: Optional[str] = None
    outcome_favorable: Scalar = 1
    id: Optional[str] = None
    features: dict[str, FeatureKind]
    protected: dict[str, Union[Scalar, list[Scalar]]]
    causal: Optional[CausalSpec] = None
    analyses: AnalysesSpec = Field(default_factory=AnalysesSpec)
    compute: ComputeSpec = Field(default_factory=ComputeSpec)
    seed: int = 0
    max_levels: Optional[int] = Field(MAX_LEVELS, ge=1)
    base_dir: Path = Field(default=Path("."), exclude=True)

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
        roles = {"decision": self.decision.column, "outcome": self.outcome}
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
        for a in ANALYSES:
            if a.needs_outcome and getattr(self.analyses, a.name) is not None and not self.outcome:
                raise ValueError(
                    f"[analyses.{a.name}] analyses.{a.name} needs outcome: the ground-truth column"
                )
        return self

    # ------------------------------------------------------------------ helpers
    def resolve(self, path: Path | str) -> Path:
        """A path from the file, made absolute relative to the configuration's folder."""
        p = Path(path)
        return p if p.is_absolute() else (self.base_dir / p).resolve()

    @property
    def data_path(self) -> Path:
        return self.resolve(self.data)

    @property
    def decision_column(self) -> str:
        """The column holding ŷ in :meth:`audit_data` (computed for a model or rule)."""
        return self.decision.column or "__decision__"

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
                return ModelDecider(load_model(path), features=None, favorable=self.favorable)
            except InputError as exc:
                raise InputError(_with_source(exc, path)) from None
        return None

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
                out[name] = load_model(self.resolve(dm.model))
        return out

    def used_columns(self, available: Sequence[str]) -> list[str] | None:
        """The columns of the data file this audit reads (column projection).

        The role columns (features, protected attributes, decision, outcome, id), the columns
        of every rule and of every model (its ``feature_names_in_``), the certainty
        decision-makers' columns, and any column of the file named anywhere in the analyses
        or causal sections (e.g. ``principal.covariates``): a section's column-valued keys are
        found by name, so a new analysis key needs no edit here.

        Parameters
        ----------
        available
            The file's columns (:func:`~primafacie.data.table_columns`).

        Returns
        -------
        list of str or None
            The used columns in file order; ``None`` (read every column) when the
            configuration names a column the file lacks, so that the error raised later
            lists every column and suggests the closest one, exactly as without projection.

        Examples
        --------
        >>> cfg = AuditConfig.model_validate({
        ...     "data": "loans.csv", "decision": {"rule": "salary > 10"},
        ...     "features": {"region": "categorical"}, "protected": {"gender": "f"},
        ...     "analyses": {"principal": {"covariates": ["region"]}}, "outcome": "repaid"})
        >>> cfg.used_columns(["id", "salary", "gender", "region", "repaid", "notes"])
        ['salary', 'gender', 'region', 'repaid']
        >>> cfg.used_columns(["salary", "gender", "repaid"]) is None  # 'region' is missing
        True
        """
        present = [str(c) for c in available]
        named = [*self.features, *self.protected]
        named += [c for c in (self.decision.column, self.outcome, self.id) if c]
        deciders = [self.decider(), *self.decision_makers().values()]
        for dm in deciders:
            if isinstance(dm, str):  # a decision-maker's recorded column
                named.append(dm)
            elif isinstance(dm, Rule):
                named.extend(dm.columns)
            elif getattr(dm, "features", None) is not None:  # a ModelDecider
                named.extend(map(str, dm.features))
            elif getattr(dm, "feature_names_in_", None) is not None:  # a bare estimator
                named.extend(map(str, dm.feature_names_in_))
        known = set(present)
        if any(c not in known for c in named):
            return None
        sections = [self.analyses.model_dump(), self.causal.model_dump() if self.causal else {}]
        named_anywhere = _strings(sections) & known
        wanted = set(named) | named_anywhere
        return [c for c in present if c in wanted]

    def read_frame(self, all_columns: bool = False) -> pd.DataFrame:
        """The data table as read from disk (never modified).

        Parameters
        ----------
        all_columns
            Read every column; by default only :meth:`used_columns` are read, so a wide
            Parquet table costs only the bytes of the audited columns.

        Returns
        -------
        pandas.DataFrame
        """
        if all_columns:
            return read_table(self.data_path)
        columns = self.used_columns(table_columns(self.data_path))
        return read_table(self.data_path, columns=columns)

    def audit_data(self, frame: pd.DataFrame | None = None) -> AuditData:
        """Build the :class:`AuditData`; ŷ is computed from the model or rule when needed.

        Parameters
        ----------
        frame
            The table (pandas, polars or pyarrow); by default the configured file, reading
            only the columns the audit uses (:meth:`read_frame`).

        Returns
        -------
        AuditData
        """
        frame = self.read_frame() if frame is None else to_pandas(frame)
        favorable: Any = self.favorable
        decider = self.decider()
        if decider is not None:
            frame = frame.copy()
            try:
                if isinstance(decider, ModelDecider):
                    decider.check_columns(list(frame.columns), declared=list(self.features))
                    if decider.features is None:
                        decider.features = list(self.features)
                frame[self.decision_column] = np.asarray(decider.predict(frame), dtype=np.int8)
            except InputError as exc:
                source = self.resolve(self.decision.model) if self.decision.model else None
                raise InputError(_with_source(exc, source)) from None
            favorable = 1
        return AuditData(
            frame,
            features=self.feature_spec(),
            protected=self.protected,
            decision=self.decision_column,
            favorable=favorable,
            outcome=self.outcome,
            outcome_favorable=self.outcome_favorable,
            id_column=self.id,
            max_levels=self.max_levels,
        )

    def resolved(self) -> dict[str, Any]:
        """JSON-safe resolved configuration, defaults filled in (echoed into results)."""
        return self.model_dump(mode="json")


def _strings(doc: Any) -> set[str]:
    """Every string (mapping key or value) in a nested structure of dicts and lists."""
    out: set[str] = set()
    stack = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            out.add(node)
        elif isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, (list, tuple, set)):
            stack.extend(node)
    return out


def _with_source(exc: InputError, path: Path | None) -> str:
    """The message of ``exc`` prefixed with the model file (``decision.model``) when known."""
    msg = str(exc)
    if path is None or str(path) in msg:
        return msg
    return f"decision.model {path}: {msg}"


#: Deepest nesting of mappings and lists accepted in audit.yaml (the schema needs 5).
MAX_YAML_DEPTH = 20
#: Most values (counting every use of a YAML alias) accepted in audit.yaml.
MAX_YAML_NODES = 100_000


def _check_shape(doc: Any, source: Path) -> None:
    """Depth and size limits, walked without recursion and stopping at the first excess (so a
    "billion laughs" of aliases costs nothing)."""
    stack = [(doc, 1)]
    seen = 0
    while stack:
        node, depth = stack.pop()
        seen += 1
        if depth > MAX_YAML_DEPTH:
            raise InputError(
                f"{source}: the configuration nests deeper than {MAX_YAML_DEPTH} levels; "
                "audit.yaml needs at most a few"
            )
        if seen > MAX_YAML_NODES:
            raise InputError(
                f"{source}: the configuration has more than {MAX_YAML_NODES:,} values (counting "
                "every use of a YAML alias)"
            )
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node)


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


def _format_errors(exc: ValidationError, doc: Any, key_lines: dict[int, dict], source: str) -> str:
    lines = []
    for err in exc.errors():
        loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-")))
        loc = tuple(p for p in loc if p not in {"literal['numeric','categorical','ordinal']"})
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
            msg = err["msg"].removeprefix("Value error, ")
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
    try:
        cfg = AuditConfig.model_validate({**doc, "base_dir": path.resolve().parent})
    except ValidationError as exc:
        raise InputError(_format_errors(exc, doc, loader._key_lines, str(path))) from None  # type: ignore[attr-defined]
    return cfg


#: What each key means, for editors showing the schema (``Model.key`` -> description).
KEY_DESCRIPTIONS = {
    "AuditConfig.data": "CSV or Parquet table, relative to this file.",
    "AuditConfig.decision": "How the audited decision is obtained: a column, a model file or a rule.",
    "AuditConfig.favorable": "Value of the decision that is favourable (e.g. 1, 'approved').",
    "AuditConfig.outcome": "Optional column of the true outcome Y (principal strata, equal "
    "opportunity, accuracy).",
    "AuditConfig.outcome_favorable": "Value of the outcome that is favourable.",
    "AuditConfig.id": "Optional column of row identifiers (reported next to each complainant).",
    "AuditConfig.features": "Non-protected features: numeric, categorical or {ordinal: [levels]}.",
    "AuditConfig.protected": "Protected attributes and their protected value(s), e.g. "
    "{gender: female, race: [black, hispanic]}.",
    "AuditConfig.causal": "Causal graph for the counterfactuals (situation testing CST/CF).",
    "AuditConfig.analyses": "Which analyses to run; a missing section is not run.",
    "AuditConfig.compute": "Execution backend (local or dask).",
    "AuditConfig.seed": "Seed of every random step (same input and seed give identical outputs).",
    "AuditConfig.max_levels": "Largest number of distinct values of a categorical feature "
    "(default 1000; more is usually an id or a number read as text); null allows any.",
    "DecisionSpec.column": "Column holding recorded decisions.",
    "DecisionSpec.model": "Fitted scikit-learn estimator saved with joblib (unpickled because "
    "you named it: only files you trust).",
    "DecisionSpec.rule": "Rule expression, e.g. 'salary + 5 * balance > 225000' (never eval'd).",
    "OrdinalSpec.ordinal": "Levels from lowest to highest.",
    "CausalSpec.edges": "Directed edges [cause, effect] among protected attributes and features.",
    "CausalSpec.mechanism": "Regressor of each additive-noise structural equation.",
    "CausalSpec.clip": "Per node [low, high] limits of the counterfactual values.",
    "CausalSpec.round": "Per node number of decimals of the counterfactual values.",
    "ComputeSpec.backend": "local (numpy) or dask (distributed).",
    "ComputeSpec.address": "Address of a running dask scheduler (default: a local cluster).",
    "ComputeSpec.n_jobs": "Local worker threads.",
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
