"""The base of every ``audit.yaml`` model: strict keys, frozen, plus the decision-source model.

Kept apart from :mod:`primafacie.config` so that each analysis' spec module (``situation/spec.py``
...) can build on it without importing the whole configuration (no import circle).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator, model_validator

from .decisions import Rule
from .errors import InputError

__all__ = ["Strict", "Redacting", "DecisionSpec", "Scalar", "spec_model"]

Scalar = Union[bool, int, float, str]


class Strict(BaseModel):
    """Strict keys (an unknown key is an error naming it), frozen values."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    #: What each key means, shown by editors through the schema (:func:`spec_model` adds the
    #: declared ones; a section's base lists its keys that are not parameters).
    key_descriptions: ClassVar[dict[str, str]] = {}

    def protected_of(self, data: Any, analysis: str) -> str:
        """The section's ``protected`` attribute (default: the data's first), or an
        :class:`InputError` naming ``analyses.<analysis>.protected`` when the data do not
        declare it."""
        if not data.protected:
            raise InputError(f"analyses.{analysis}: the data declare no protected attribute")
        attr = getattr(self, "protected", None) or next(iter(data.protected))
        if attr not in data.protected:
            raise InputError(
                f"analyses.{analysis}.protected: {attr!r} is not a protected attribute; "
                f"protected: {list(data.protected)}"
            )
        return attr

    def engine_args(self) -> dict[str, Any]:
        """``{engine argument: value}`` of every declared key of the section (its
        :class:`~primafacie.params.Param` ``name`` is the engine's argument): the one
        configuration → engine mapping, derived from the declarations."""
        # the class' declarations (spec_model sets them): a section may have a key "params"
        declared = getattr(type(self), "params", ())
        args = {p.name: getattr(self, p.config_key) for p in declared if p.config_key}
        # each engine gets its own lists (several engines are built from one section)
        return {name: list(v) if isinstance(v, list) else v for name, v in args.items()}


class Redacting(Strict):
    """A dossier spec: its subclass declares ``redact`` (the columns hidden from its pages,
    described in its own words); listed names are kept once each, in order, as text."""

    # check_fields=False: the field is declared by each subclass, not here.
    @field_validator("redact", check_fields=False)
    @classmethod
    def _distinct(cls, v: list[str]) -> list[str]:
        return list(dict.fromkeys(map(str, v)))


class DecisionSpec(Strict):
    """Where ŷ comes from: exactly one of a recorded ``column``, a ``model`` file, a ``rule``
    or a ``score`` column with a ``threshold`` (favourable at or above it, or below it with
    ``favorable: below``).

    A model file is skops or ONNX; a pickle/joblib file only with ``trust: pickle`` (it runs
    its author's code when loaded). ``trusted_types`` lists skops types to trust beyond
    scikit-learn's classes (see :mod:`primafacie.modelfiles`).
    """

    column: Optional[str] = None
    model: Optional[Path] = None
    rule: Optional[str] = None
    score: Optional[str] = None
    threshold: Optional[float] = None
    favorable: Optional[Literal["above", "below"]] = None
    trust: Optional[Literal["pickle"]] = None
    trusted_types: Optional[list[str]] = None

    @model_validator(mode="after")
    def _exactly_one(self) -> DecisionSpec:
        given = [k for k in ("column", "model", "rule", "score") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(
                f"give exactly one of column, model, rule or score (got {given or 'none'})"
            )
        if self.score is None and (self.threshold is not None or self.favorable is not None):
            raise ValueError("threshold and favorable (above/below) go with score: COLUMN")
        if self.score is not None and self.threshold is None:
            raise ValueError(
                f"score: {self.score} needs a threshold: the decision is favourable when the "
                "score is at or above it (favorable: above, the default) or below it "
                "(favorable: below)"
            )
        if self.model is None:
            keys = [k for k in ("trust", "trusted_types") if getattr(self, k) is not None]
            if keys:
                raise ValueError(f"{keys[0]} applies to a model file; give model: FILE with it")
        if self.rule is not None:
            try:
                Rule(self.rule)
            except InputError as exc:
                raise ValueError(str(exc)) from None
        return self


def _field(param: Any) -> Any:
    """The pydantic field of a declared parameter: its default (a list copied per instance;
    none when it is required) and its help as the JSON Schema description and default."""
    from .params import REQUIRED

    default = param.default
    if default is REQUIRED:  # the key must be given (pydantic's "Field required")
        return Field(..., description=param.help)
    if isinstance(default, (list, tuple, dict)):
        factory: Callable[[], Any] = (
            (lambda d=default: dict(d))
            if isinstance(default, dict)
            else (lambda d=default: list(d))
        )
        # a factory's default is not in pydantic's schema: stated, so editors show it too
        return Field(default_factory=factory, description=param.help,
                     json_schema_extra={"default": factory()})  # fmt: skip
    return Field(default, description=param.help)


def _lone_item(param: Any, value: Any) -> bool:
    """Whether ``value`` is one item of a list-typed key, given alone (``k: 30`` for ``[30]``):
    no other type of the key takes it and the declared constraints accept it."""
    from typing import get_args, get_origin

    from .params import annotation
    from .validation import is_satisfied

    if value is None or isinstance(value, (list, tuple, set, frozenset, dict)):
        return False
    kind = annotation(param)
    members = get_args(kind) if get_origin(kind) is Union else (kind,)
    if not any(get_origin(m) is list for m in members):
        return False
    for m in members:
        if (get_origin(m) is Literal and value in get_args(m)) or (
            isinstance(m, type) and isinstance(value, m)
        ):
            return False
    return is_satisfied(param.constraints, value)


def spec_model(
    name: str,
    base: type[Strict],
    params: Sequence[Any],
    analysis: str,
    doc: str | None = None,
    normalize: dict[str, Callable[[Any], Any]] | None = None,
    nested: dict[str, tuple[Any, Any, str]] | None = None,
) -> type[Strict]:
    """The ``analyses.<analysis>`` model of audit.yaml, derived from the declarations.

    One field per :class:`~primafacie.params.Param` that has an ``audit.yaml`` key (type from
    :func:`~primafacie.params.annotation`, default, help as description), and one validator
    that checks every value against its declared constraints before pydantic's own type
    check, so that a wrong value reads as the engine's message with its flag and key
    (``min_group must be an integer ≥ 1; got 0 (--min-group, analyses.groups.min_group)``).

    Parameters
    ----------
    name
        The class name (``GroupsSpec``).
    base
        A :class:`Strict` subclass holding the methods (``build``) and any validator that
        relates two keys.
    params
        The analysis' declarations.
    analysis
        Its registry name (for the "where" text).
    doc
        The class docstring (default: the base's).
    normalize
        ``{key: function}`` applied before the check (aliases -> names); one item given
        alone for a list-typed key is made a list first (``k: 30`` -> ``[30]``).
    nested
        Keys that are sub-models rather than engine parameters: ``{key: (type, default or
        Field, key it follows)}``, placed after that key so the order of the keys (in the
        resolved configuration and the report) reads as the section is written.
    """
    from .params import annotation
    from .validation import check_value

    declared = [p for p in params if p.config_key]
    by_key = {p.config_key: p for p in declared}
    normalize = dict(normalize or {})

    def _declared(cls: Any, v: Any, info: Any) -> Any:
        p = by_key[info.field_name]
        if _lone_item(p, v):
            v = [v]
        if info.field_name in normalize:
            v = normalize[info.field_name](v)
        return check_value(p.config_key, v, p.constraints, where=p.where(analysis))

    fields: dict[str, Any] = {}
    for p in declared:
        fields[p.config_key] = (annotation(p), _field(p))
        for key, (kind, default, after) in (nested or {}).items():
            if after == p.config_key:
                fields[key] = (kind, default)
    validators = {"_declared": field_validator(*by_key, mode="before")(classmethod(_declared))}
    model = create_model(  # type: ignore[call-overload]
        name, __base__=base, __doc__=doc or base.__doc__, __validators__=validators,
        __module__=base.__module__, **fields,
    )  # fmt: skip
    model.params = tuple(params)
    model.key_descriptions = {
        **getattr(base, "key_descriptions", {}),
        **{p.config_key: p.help for p in declared},
    }
    return model
