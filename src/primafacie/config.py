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
from typing import Any, Literal, Optional, Union

import numpy as np
import pandas as pd
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .data import MAX_LEVELS, AuditData, read_table
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
]

Scalar = Union[bool, int, float, str]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DecisionSpec(_Strict):
    """Where ŷ comes from: exactly one of a recorded ``column``, a ``model`` file or a ``rule``."""

    column: Optional[str] = None
    model: Optional[Path] = None
    rule: Optional[str] = None

    @model_validator(mode="after")
    def _exactly_one(self) -> DecisionSpec:
        given = [k for k in ("column", "model", "rule") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one of column, model or rule (got {given or 'none'})")
        if self.rule is not None:
            try:
                Rule(self.rule)
            except InputError as exc:
                raise ValueError(str(exc)) from None
        return self


class OrdinalSpec(_Strict):
    """An ordinal feature with its levels from lowest to highest."""

    ordinal: Optional[list[Scalar]] = None


FeatureKind = Union[Literal["numeric", "categorical", "ordinal"], OrdinalSpec]


class CausalSpec(_Strict):
    """The causal DAG (edges parent -> child) and the mechanism fitted for each node."""

    edges: list[tuple[str, str]]
    mechanism: Literal["linear", "random_forest", "gradient_boosting"] = "linear"
    clip: dict[str, tuple[float, float]] = Field(default_factory=dict)
    round: dict[str, int] = Field(default_factory=dict)


class SituationSpec(_Strict):
    """Situation testing: ST, CST w/o (``cst``), CST w/ (``cst_centers``), CF."""

    k: list[int] = Field(default_factory=lambda: [15, 30, 50])
    alpha: float = Field(0.05, gt=0, lt=1)
    tau: float = Field(0.0, ge=-1, le=1)
    methods: list[Literal["st", "cst", "cst_centers", "cf"]] = Field(
        default_factory=lambda: ["st", "cst", "cst_centers", "cf"]
    )
    dimensions: list[Literal["single", "multiple", "intersectional"]] = Field(
        default_factory=lambda: ["single"]
    )
    direction: Literal["negative", "positive"] = "negative"
    interval: Literal["wald", "newcombe", "wilson"] = "wald"
    max_distance: Optional[float] = Field(None, gt=0)
    legacy: bool = False

    @field_validator("k", mode="before")
    @classmethod
    def _k_list(cls, v: Any) -> Any:
        return [v] if isinstance(v, int) else v

    @field_validator("k")
    @classmethod
    def _k_positive(cls, v: list[int]) -> list[int]:
        if not v:
            raise ValueError("k must list at least one neighbourhood size")
        bad = [x for x in v if x <= 0]
        if bad:
            raise ValueError(f"k must be positive integers, got {bad}")
        return sorted(set(v))


class RecourseSpec(_Strict):
    """FACTS subgroup recourse audit."""

    support: float = Field(0.01, gt=0, le=1)
    phi: list[float] = Field(default_factory=lambda: [0.3, 0.7])
    metrics: Union[Literal["all"], list[str]] = "all"
    feature_weights: dict[str, float] = Field(default_factory=dict)
    immutable: list[str] = Field(default_factory=list)
    monotone: list[str] = Field(default_factory=list)
    bins: dict[str, Union[int, list[float]]] = Field(default_factory=dict)
    protected: Optional[str] = None
    top: int = Field(10, gt=0)


class PrincipalSpec(_Strict):
    """Principal-stratum counterfactual fairness (needs ``outcome``)."""

    definitions: list[Literal[1, 2]] = Field(default_factory=lambda: [1, 2])
    covariates: list[str] = Field(default_factory=list)
    protected: Optional[str] = None
    n_boot: int = Field(0, ge=0)
    seed: int = 0


class DecisionMakerSpec(DecisionSpec):
    """One decision-maker of the certainty ranking: a column, a model file or a rule."""


class CertaintySpec(_Strict):
    """Certainty-of-fairness ranking of decision-makers."""

    criterion: Literal["statistical_parity", "equal_opportunity", "predictive_parity"] = (
        "statistical_parity"
    )
    decision_makers: dict[str, DecisionMakerSpec] = Field(default_factory=dict)
    protected: Optional[list[str]] = None
    tie_breaker: Optional[str] = None
    max_levels: Optional[int] = Field(20, ge=1)


class AnalysesSpec(_Strict):
    """Which analyses to run; an absent section is not run."""

    situation: Optional[SituationSpec] = None
    recourse: Optional[RecourseSpec] = None
    principal: Optional[PrincipalSpec] = None
    certainty: Optional[CertaintySpec] = None


class ComputeSpec(_Strict):
    """Execution backend."""

    backend: Literal["local", "dask"] = "local"
    address: Optional[str] = None
    n_jobs: int = Field(1, ge=1)


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
        if self.analyses.principal is not None and self.outcome is None:
            raise ValueError(
                "[analyses.principal] analyses.principal needs outcome: the ground-truth column"
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

    def read_frame(self) -> pd.DataFrame:
        """The data table as read from disk (never modified)."""
        return read_table(self.data_path)

    def audit_data(self, frame: pd.DataFrame | None = None) -> AuditData:
        """Build the :class:`AuditData`; ŷ is computed from the model or rule when needed."""
        frame = self.read_frame() if frame is None else frame
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
    "DecisionMakerSpec.column": "Column holding this decision-maker's decisions.",
    "DecisionMakerSpec.model": "Fitted estimator file of this decision-maker.",
    "DecisionMakerSpec.rule": "Rule expression of this decision-maker.",
    "OrdinalSpec.ordinal": "Levels from lowest to highest.",
    "CausalSpec.edges": "Directed edges [cause, effect] among protected attributes and features.",
    "CausalSpec.mechanism": "Regressor of each additive-noise structural equation.",
    "CausalSpec.clip": "Per node [low, high] limits of the counterfactual values.",
    "CausalSpec.round": "Per node number of decimals of the counterfactual values.",
    "SituationSpec.k": "Neighbourhood sizes (one search at the largest serves all).",
    "SituationSpec.alpha": "Significance level of the one-sided interval.",
    "SituationSpec.tau": "Tolerated difference in rejection rates before a case is flagged.",
    "SituationSpec.methods": "st (situation testing), cst (counterfactual ST without centres), "
    "cst_centers (with centres), cf (counterfactual fairness).",
    "SituationSpec.dimensions": "single (per attribute), multiple (Bonferroni over attributes), "
    "intersectional (protected on every attribute).",
    "SituationSpec.direction": "negative (against the protected) or positive discrimination.",
    "SituationSpec.interval": "Confidence interval of the rate difference.",
    "SituationSpec.max_distance": "Optional largest Gower distance of a neighbour.",
    "SituationSpec.legacy": "Reproduce the authors' code conventions (published tables).",
    "RecourseSpec.support": "Minimum support of frequent itemsets, in (0, 1].",
    "RecourseSpec.phi": "Effectiveness thresholds of ECR and ECE.",
    "RecourseSpec.metrics": "all, or a list such as [EE, ECE, FECT].",
    "RecourseSpec.feature_weights": "Cost weight per feature (default 1).",
    "RecourseSpec.immutable": "Features an action may not change (protected ones never change).",
    "RecourseSpec.monotone": "Features that may not decrease.",
    "RecourseSpec.bins": "Numeric bins per feature: a number of quantiles or a list of edges.",
    "RecourseSpec.protected": "Protected attribute audited (default: the only one).",
    "RecourseSpec.top": "Comparative subgroup counterfactuals shown per definition.",
    "PrincipalSpec.definitions": "1 (both strata) and/or 2 (pooled) counterfactual fairness on "
    "principal strata.",
    "PrincipalSpec.covariates": "Columns defining the cells evaluated separately.",
    "PrincipalSpec.protected": "Protected attribute (default: the only one).",
    "PrincipalSpec.n_boot": "Bootstrap replicates for intervals (0 = none).",
    "PrincipalSpec.seed": "Seed of the bootstrap and of the repair.",
    "CertaintySpec.criterion": "Fairness criterion whose disparity is ranked.",
    "CertaintySpec.decision_makers": "Decision-makers to rank: {name: {column|model|rule}} "
    "(default: the audited decision).",
    "CertaintySpec.protected": "Protected columns (default: all, crossed into groups).",
    "CertaintySpec.tie_breaker": "accuracy, to break ties in utility (needs outcome).",
    "CertaintySpec.max_levels": "Largest number of values of a protected column (each value is "
    "a group); null allows any.",
    "AnalysesSpec.situation": "Situation testing (ST, CST, CF).",
    "AnalysesSpec.recourse": "FACTS subgroup recourse fairness.",
    "AnalysesSpec.principal": "Counterfactual fairness on principal strata.",
    "AnalysesSpec.certainty": "Ranking of decision-makers by certainty of fairness.",
    "ComputeSpec.backend": "local (numpy) or dask (distributed).",
    "ComputeSpec.address": "Address of a running dask scheduler (default: a local cluster).",
    "ComputeSpec.n_jobs": "Local worker threads.",
}


def config_schema() -> dict[str, Any]:
    """JSON Schema of ``audit.yaml`` (what ``primafacie schema`` prints); every key described."""
    schema = AuditConfig.model_json_schema()
    schema.get("properties", {}).pop("base_dir", None)
    schema["title"] = "primafacie audit.yaml"
    models = {"AuditConfig": schema, **schema.get("$defs", {})}
    for model, body in models.items():
        for key, prop in body.get("properties", {}).items():
            text = KEY_DESCRIPTIONS.get(f"{model}.{key}")
            if text and "description" not in prop:
                prop["description"] = text
    return schema
