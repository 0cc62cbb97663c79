"""One declaration per parameter, from which everything else is derived.

An analysis declares each of its parameters once, as a :class:`Param` (name, constraint,
default, help, CLI flag, ``audit.yaml`` key), in its declaration module
(``primafacie/<analysis>/params.py``). From that tuple come, through the helpers below:

- the engine's ``_parameter_constraints`` (:func:`constraints`), checked by
  :func:`primafacie.validation.validate_params`;
- the "where to fix it" part of every message (:func:`where`:
  ``"--alpha, analyses.groups.alpha"``);
- the pydantic model and JSON Schema of ``analyses.<analysis>``
  (:func:`primafacie.configbase.spec_model`, with :func:`annotation` as each field's type);
- the typer options of the analysis' command (:func:`primafacie.commands._common.option`,
  built for every declared parameter by :class:`~primafacie.commands._analysis.AnalysisCommand`);
- the parameter tables of ``docs/parameters.md`` (:func:`markdown_table`).

The model is scikit-learn's ``_parameter_constraints`` (constraints as data, one message
format), with the default, help text and flag beside the constraint so that nothing is
written twice. This module and the declaration modules import no numpy, pandas, pydantic or
engine code: the CLI reads them to render ``--help``.

Examples
--------
>>> from numbers import Real
>>> from primafacie.validation import Interval
>>> ALPHA = Param("alpha", [Interval(Real, 0, 1, closed="neither")], 0.05,
...               "Two-sided level of every interval.", flag="--alpha")
>>> where((ALPHA,), "groups")
{'alpha': '--alpha, analyses.groups.alpha'}
>>> annotation(ALPHA)
<class 'float'>
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from numbers import Integral
from typing import Any, Literal, Optional, Union

from .validation import InstanceOf, Interval, ListOf, Options, describe

__all__ = [
    "Param",
    "constraints",
    "where",
    "annotation",
    "by_name",
    "with_param",
    "markdown_table",
    "REQUIRED",
    "Switch",
]


class _Required:
    """The default of a parameter that has none: ``audit.yaml`` must give its key (the
    engine's argument has no default either), and its flag has no default."""

    def __repr__(self) -> str:
        return "REQUIRED"


#: ``default`` of a :class:`Param` that must be given (see :class:`_Required`).
REQUIRED: Any = _Required()


@dataclass(frozen=True)
class Switch:
    """A flag that takes no value (``--skip-empty``): given, it sets ``value``; left out, the
    parameter keeps its default. ``help`` is the flag's own ``--help`` line."""

    value: Any
    help: str


@dataclass(frozen=True)
class Param:
    """One parameter of an analysis, declared once.

    Parameters
    ----------
    name
        The engine's argument name (``alpha``).
    constraints
        What it accepts, as :mod:`primafacie.validation` constraints (``None`` accepts None).
    default
        Its default (a list default is copied for every model instance), or
        :data:`REQUIRED` when it must be given.
    help
        One or two sentences: what it does, its unit and, for a bound, why that bound.
    flag
        The CLI option that sets it (``--alpha``), or ``None`` when there is none.
    key
        Its ``audit.yaml`` key under ``analyses.<analysis>`` (default: ``name``; ``""`` for
        an engine argument that the configuration does not set).
    type
        The field type of the ``audit.yaml`` model when it cannot be derived from the
        constraints (see :func:`annotation`).
    cli
        How the command line spells it: ``"list"`` for a comma-separated list
        (``--k 15,30``); ``"scalar"`` for a value read as audit.yaml reads one (``1`` the
        number, ``approved`` the text); ``""`` for a scalar option.
    source
        A configuration key outside ``analyses.<analysis>`` that sets it (``outcome``,
        ``compute``), quoted in messages after the flag.
    switch
        When ``flag`` takes no value: the :class:`Switch` (what it sets, its help).
    """

    name: str
    constraints: Sequence[Any]
    default: Any
    help: str
    flag: Optional[str] = None
    key: Optional[str] = None
    type: Any = None
    cli: str = ""
    source: str = ""
    switch: Optional[Switch] = None

    @property
    def config_key(self) -> str:
        """The ``audit.yaml`` key (``""``: none)."""
        return self.name if self.key is None else self.key

    def where(self, analysis: str) -> str:
        """``"--alpha, analyses.groups.alpha"``: what a user changes to fix a bad value."""
        parts = [self.flag] if self.flag else []
        if self.config_key:
            parts.append(f"analyses.{analysis}.{self.config_key}")
        if self.source:
            parts.append(self.source)
        return ", ".join(parts)

    def cli_default(self) -> Any:
        """The default as the command line shows it (a list as ``15,30,50``; none when the
        parameter is required)."""
        if self.default is REQUIRED:
            return None
        if self.cli == "list" and isinstance(self.default, (list, tuple)):
            return ",".join(map(str, self.default))
        return self.default

    def describe(self) -> str:
        """What the parameter accepts, in words (the validator's wording)."""
        return describe(self.constraints)


def by_name(params: Iterable[Param]) -> dict[str, Param]:
    """``{name: Param}`` in declaration order."""
    return {p.name: p for p in params}


def constraints(params: Iterable[Param]) -> dict[str, list[Any]]:
    """The engine's ``_parameter_constraints``: ``{name: [constraint, ...]}``."""
    return {p.name: p.constraints for p in params}  # the declared lists themselves


def where(params: Iterable[Param], analysis: str) -> dict[str, str]:
    """``{name: "--flag, analyses.<analysis>.key"}`` for every parameter a user can set."""
    out = {p.name: p.where(analysis) for p in params}
    return {name: text for name, text in out.items() if text}


def with_param(params: Sequence[Param], param: Param) -> tuple[Param, ...]:
    """A copy of ``params`` with ``param`` added (or replacing the one of the same name).

    >>> a = Param("a", [Interval(Integral, 0, None)], 1, "A.")
    >>> [p.name for p in with_param((a,), Param("b", [], 0, "B."))]
    ['a', 'b']
    """
    kept = [p for p in params if p.name != param.name]
    return (*kept, param)


def _scalar_type(c: Any) -> Any:
    """The Python type a single constraint stands for (None when it cannot say)."""
    if isinstance(c, Options) or getattr(c, "values", ()):
        return Literal[c.values]  # type: ignore[valid-type]
    if isinstance(c, Interval):
        return int if c.kind is Integral else float
    if isinstance(c, InstanceOf) and len(c.types) == 1 and c.types[0] in (bool, str, int):
        return c.types[0]
    return None


def annotation(param: Param) -> Any:
    """The field type of ``param`` in the ``audit.yaml`` model: ``param.type`` when given,
    else derived from its constraints (Options or a Predicate's ``values`` -> Literal,
    Interval -> int/float, ListOf -> list[...], None -> Optional; a constraint audit.yaml
    cannot write, such as a callable, is left out), else ``Any``.

    >>> from primafacie.validation import ListOf, Options
    >>> annotation(Param("m", [ListOf(Options("st", "cf"))], ["st"], "M."))
    list[typing.Literal['st', 'cf']]
    """
    if param.type is not None:
        return param.type
    optional = any(c is None for c in param.constraints)
    types = []
    for c in param.constraints:
        item = _scalar_type(c.item) if isinstance(c, ListOf) else None
        t = list[item] if item is not None else (None if c is None else _scalar_type(c))
        if t is not None:
            types.append(t)
    if not types:
        return Any
    kind = types[0] if len(types) == 1 else Union[tuple(types)]  # type: ignore[valid-type]
    return Optional[kind] if optional else kind


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown_table(params: Iterable[Param], analysis: str) -> str:
    """The docs' table of an analysis' parameters: key, flag, default, accepts, help.

    Only what a user sets (an ``audit.yaml`` key or a flag) is listed.
    """
    rows = [
        "| `audit.yaml` key | CLI flag | default | accepts | meaning |",
        "|---|---|---|---|---|",
    ]
    for p in params:
        if not (p.config_key or p.flag):
            continue
        key = f"`analyses.{analysis}.{p.config_key}`" if p.config_key else "—"
        flag = f"`{p.flag}`" if p.flag else "—"
        default = "none" if p.default is None else f"`{p.cli_default()}`"
        if p.default is REQUIRED:
            default = "required"
        rows.append(f"| {key} | {flag} | {_cell(default)} | {_cell(p.describe())} | "
                    f"{_cell(p.help)} |")  # fmt: skip
    return "\n".join(rows) + "\n"
