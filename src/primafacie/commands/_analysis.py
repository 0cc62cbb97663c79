"""The one analysis command, derived from an analysis' declarations.

A command module declares an :class:`AnalysisCommand`: its name (the registry's), its
``HELP`` with the worked examples, the data-role flags special to it (:class:`Role`) and what
is genuinely its own (how the flags become data, which files it writes, its summary table).
Everything else is derived here, once:

* one typer option per declared parameter (:data:`PARAMS` of ``<analysis>/params.py``: flag,
  default, help, choices; a hidden option per former name in ``RENAMED``), the data flags of
  :mod:`._data`, ``--config`` and ``--out``;
* ``--config``: every analysis flag typed besides it is refused, then the configuration runs
  exactly as ``primafacie audit`` runs it (:func:`~primafacie.audit.compute_audit` with the
  other analyses off);
* the flags: the spec is built from the declared options (:func:`spec_from_flags`: a bad
  value names its flag and key), then the command reads its data and runs the engine;
* the outputs written all-or-nothing by their suffix, then the summary table, headline,
  scope and caveats printed (the tables are the report section's, :meth:`tables`).

Only typer is imported at module level: ``primafacie <cmd> --help`` builds the options
without numpy or pandas (the declarations import neither).
"""

from __future__ import annotations

import inspect
import sys
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Optional

import typer

from ..errors import InputError
from ..terminal import print_table
from . import _data
from ._common import (
    TRUST_PICKLE_HELP,
    TRUSTED_TYPE_HELP,
    _cli_type,
    console,
    err_console,
    escape,
    guarded,
    option,
    spec_from_flags,
)

__all__ = ["AnalysisCommand", "Role", "role", "switch", "split_list"]


@dataclass(frozen=True)
class Role:
    """A flag that names the data's roles or the command's own switches, in the command's own
    place in ``--help``; with ``param``, it sets that declared parameter of the analysis (the
    spec's key, else the engine argument the command reads from the values)."""

    name: str
    flag: str
    type: Any
    default: Any
    help: str
    param: Any = None

    def value(self, given: Any) -> Any:
        """The value of the option as the command reads it: with ``param``, what the parameter
        gets (a switch's value, else its default; a repeated option's list; its default when
        left out)."""
        if self.param is not None and self.param.switch is not None:
            return self.param.switch.value if given else self.param.default
        if self.param is not None and (given is None or isinstance(given, (list, tuple))):
            return list(given or ()) or self.param.default
        return _data.scalar(given) if getattr(self.param, "cli", "") == "scalar" else given


#: The roles several commands share, with their usual help (a command may reword it).
_ROLES = {r.name: r for r in (
    Role("data", "--data", Optional[Path], None, "CSV or Parquet table."),
    Role("protected", "--protected", list[str], [], "COL=VALUE (repeatable)."),
    Role("decision", "--decision", Optional[str], None, "Decision column ŷ."),
    Role("favorable", "--favorable", str, "1", "Favourable decision value."),
    Role("outcome", "--outcome", Optional[str], None, "True-outcome column."),
    Role("outcome_favorable", "--outcome-favorable", str, "1", "Favourable true-outcome value."),
    Role("rule", "--rule", Optional[str], None, "b() as an expression."),
    Role("model", "--model", Optional[Path], None, "b() as a .skops/.onnx file."),
    Role("trust_pickle", "--trust-pickle", bool, False, TRUST_PICKLE_HELP),
    Role("trusted_type", "--trusted-type", list[str], [], TRUSTED_TYPE_HELP),
)}  # fmt: skip

_SAME = object()


def role(name: str, help: str | None = None, type: Any = _SAME, default: Any = _SAME,
         flag: str | None = None, param: Any = None) -> Role:  # fmt: skip
    """A role: a shared one by name (:data:`_ROLES`) with what is given replaced, or a new one
    (then ``type`` and ``default`` are needed; the flag is the name with dashes)."""
    base = _ROLES.get(name) or Role(name, "--" + name.replace("_", "-"), Optional[str], None, "")
    return Role(name, flag or base.flag, base.type if type is _SAME else type,
                base.default if default is _SAME else default, help or base.help, param)  # fmt: skip


def switch(param: Any) -> Role:
    """The flag of a declared parameter's :class:`~primafacie.params.Switch` (``--skip-empty``),
    placed among the roles: given, the parameter is the switch's value; else its default."""
    return Role(param.name, param.flag, bool, False, param.switch.help, param)


# ---------------------------------------------------------------------- values of the options
def split_list(text: str | None, flag: str, cast: Any = str, where: str = "") -> list | None:
    """A comma-separated option (``--k 15,30``) as a list, each item cast; an item that does
    not cast is an InputError naming the flag (and the ``audit.yaml`` key, ``where``).

    Examples
    --------
    >>> split_list("15, 30", "--k", int), split_list("st,,cf", "--method")
    ([15, 30], ['st', 'cf'])
    """
    if text is None:
        return None
    items = [v.strip() for v in str(text).split(",")]
    if cast is str:  # names: an empty item is a stray comma
        return [v for v in items if v]
    out = []
    for v in items:
        try:
            out.append(cast(v))
        except ValueError:
            what, one, example = ("integers", "an integer", "15,30,50") if cast is int else (
                "numbers", "a number", "3,5,7.5")  # fmt: skip
            raise InputError(f"{flag} expects {what} separated by commas (e.g. {example}); "
                             f"{v!r} is not {one}" + (f" ({where})" if where else "")) from None  # fmt: skip
    return out


def _item_cast(param: Any) -> Any:
    """How the items of a comma-separated option are read: as the declared type's items
    (``list[int]`` → int; a Literal of integers → int where the text is a number)."""
    from ..params import annotation

    kind = annotation(param)
    if typing.get_origin(kind) is typing.Union:  # Optional[list[...]]
        kind = next(a for a in typing.get_args(kind) if a is not type(None))
    args = typing.get_args(kind)
    item = args[0] if args else str
    if typing.get_origin(item) is typing.Literal:
        ints = all(isinstance(v, int) for v in typing.get_args(item))
        return (lambda v: int(v) if v.isdigit() else v) if ints else str
    return item if item in (int, float) else str


def _zero_is_none(param: Any) -> bool:
    """An integer option whose declaration allows null besides a default: the command line
    cannot type null, so 0 stands for it (when 0 is not itself accepted)."""
    from ..validation import check_value

    if param.default is None or None not in param.constraints or param.cli:
        return False
    try:
        check_value(param.name, 0, [c for c in param.constraints if c is not None])
    except (ValueError, TypeError, InputError):
        return isinstance(param.default, int) and not isinstance(param.default, bool)
    return False


# ---------------------------------------------------------------------- the command
class AnalysisCommand:
    """``primafacie <name>``: flags or ``--config`` → spec → engine → files and summary.

    A subclass sets the class attributes and implements :meth:`from_flags` and
    :meth:`files`; :meth:`from_run` (the Results of a ``--config`` run), :meth:`result`,
    :meth:`tables`, :meth:`words` and :meth:`show` have defaults for a one-Result analysis.
    """

    #: Registry name of the analysis (= the command).
    name: ClassVar[str]
    #: The ``--help`` text, with worked examples.
    help: ClassVar[str]
    #: The declared parameters (``<analysis>.params.PARAMS``) and their former names.
    params: ClassVar[Sequence[Any]]
    renamed: ClassVar[dict[str, str]] = {}
    #: The command's own flags, in ``--help`` order (a role named like a parameter, or with
    #: its flag, replaces that parameter's option).
    roles: ClassVar[Sequence[Role]] = ()
    #: Flags allowed besides ``--config`` (they adjust the run, not the analysis).
    with_config: ClassVar[tuple[str, ...]] = ()
    #: Parsers of options the declarations cannot describe (``{name: parse(value)}``).
    parsers: ClassVar[dict[str, Callable[[Any], Any]]] = {}
    #: The usage error of a run without data.
    no_data: ClassVar[str] = "give --data FILE or --config FILE"
    #: What the spinner says while the engine runs.
    status: ClassVar[str] = ""
    #: ``--help`` of ``--config``.
    config_help: ClassVar[str] = "audit.yaml instead of flags."
    #: What heads each caveat printed (``None``: the caveats are not printed).
    bullet: ClassVar[Optional[str]] = "  • "
    #: Declared engine arguments whose flags the command gives to its data (the roles of the
    #: AuditData it reads), so not to the engine as well (:meth:`engine_flags`).
    data_roles: ClassVar[tuple[str, ...]] = ()

    # -------------------------------------------------------------- what a command defines
    def from_flags(
        self, spec: Any, v: dict[str, Any], reading: dict[str, Any]
    ) -> tuple[Any, tuple]:
        """The outputs (whatever :meth:`files` and :meth:`show` read) and the input files of a
        run from flags; ``v`` holds every option's value (declared parameters parsed)."""
        raise NotImplementedError

    def from_run(self, run: Any, cfg: Any, audit: Any, v: dict[str, Any]) -> Any:
        """The outputs of a ``--config`` run (``run`` the analysis' AnalysisRun, ``audit``
        the AuditResult of ``cfg``): by default its first Result."""
        return next(iter(run.results.values()))

    def files(self, res: Any) -> list[tuple[str, Any]]:
        """``(file name, table, text, figure or JSON document)`` in writing order."""
        raise NotImplementedError

    def result(self, res: Any) -> Any:
        """The Result among the outputs whose tables and words are printed (the outputs)."""
        return res

    def tables(self, res: Any) -> list[Any]:
        """The report's table blocks printed before the words: the ``tables`` of the module
        of the analysis' section (``<analysis>/analysis.py``), so that the two cannot
        disagree; none when it has none."""
        from ..audit.registry import get

        tables = getattr(sys.modules[get(self.name).section.__module__], "tables", None)
        return tables(self.result(res)) if tables is not None else []

    def words(self, res: Any) -> list[str]:
        """Headline, scope and caveats (each after :attr:`bullet`), as printed (rich markup,
        escaped)."""
        r = self.result(res)
        notes = [] if self.bullet is None else [escape(self.bullet + c) for c in r.caveats()]
        return [escape(r.headline()), escape(f"scope: {r.scope()}"), *notes]

    def show(self, res: Any, out: Path, names: list[str]) -> None:
        """Print the tables, the words and where the files (``names``) went."""
        for table in self.tables(res):
            print_table(console, table)
        for line in self.words(res):
            console.print(line)
        console.print(escape(f"wrote {out}/{', '.join(names)}"))

    # -------------------------------------------------------------- derived
    def declared(self) -> list[Any]:
        """The declared parameters that get an option (a role or a data flag of
        :mod:`._data` may take one's place)."""
        taken = {r.name for r in self.roles} | {r.flag for r in self.roles}
        taken |= {f.flag for f in _data.DATA_FLAGS}
        return [p for p in self.params if p.flag and not {p.name, p.flag} & taken]

    def signature(self) -> inspect.Signature:
        """What typer reads: ``ctx``, the roles, the declared options, former names (hidden),
        ``--config`` and ``--out``, and ``reading`` (replaced by the data flags)."""
        by_name = {p.name: p for p in self.params}
        opts = [(r.name, typer.Option(r.default, r.flag, help=r.help), r.type) for r in self.roles]
        opts += [("config", typer.Option(None, "--config", help=self.config_help), Optional[Path]),
                 ("out", typer.Option(Path(f"out/{self.name}"), "--out", help="Output folder."),
                  Path)]  # fmt: skip
        null = " On the command line 0 stands for null."  # what 0 means when it stands for null
        opts += [(p.name, option(p, help=p.help + null) if _zero_is_none(p) else option(p),
                  _cli_type(p)) for p in self.declared()]  # fmt: skip
        opts += [(old, typer.Option(None, "--" + old.replace("_", "-"), hidden=True,
                                    help=f"Deprecated: {by_name[new].flag}."),
                  Optional[_cli_type(by_name[new])]) for old, new in self.renamed.items()]  # fmt: skip
        opts.append(("reading", None, Any))
        kw = inspect.Parameter.KEYWORD_ONLY
        params = [inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                    annotation=typer.Context)]  # fmt: skip
        params += [inspect.Parameter(n, kw, default=d, annotation=t) for n, d, t in opts]
        return inspect.Signature(params)

    def register(self, app: typer.Typer) -> None:
        """Add the command to ``app``: a function whose signature is :meth:`signature`."""

        def command(ctx: typer.Context, **values: Any) -> None:
            self.run(ctx, values)

        sig = self.signature()
        command.__signature__ = sig  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in sig.parameters.values()}
        command.__name__ = command.__qualname__ = self.name  # named in memory errors
        command.__doc__ = f"``primafacie {self.name}`` (:class:`{type(self).__name__}`)."
        app.command(self.name, help=self.help)(guarded(_data.data_options(command)))

    # -------------------------------------------------------------- one run
    def run(self, ctx: typer.Context, v: dict[str, Any]) -> None:
        """Parse (flags or ``--config``), build, run, write, print."""
        config, out, reading = v.pop("config"), v.pop("out"), v.pop("reading")
        if config is None and v.get("data") is None:  # before any import: answers at once
            raise InputError(self.no_data)
        self._renamed(ctx, v)
        v.update({r.name: r.value(v[r.name]) for r in self.roles})
        if config is not None:
            res, inputs = self.from_config(ctx, config, out, reading, v)
        else:
            res, inputs = self.from_flags(self.spec_of_flags(v), v, reading)
        self.show(res, out, self.write(out, res, inputs))

    def _renamed(self, ctx: typer.Context, v: dict[str, Any]) -> None:
        """A former option name is read for one release, with a note on stderr."""
        flags = {p.name: p.flag for p in self.params}
        for old, new in self.renamed.items():
            value = v.pop(old)
            if value is None:
                continue
            oldflag = "--" + old.replace("_", "-")
            typer.echo(f"note: {oldflag} is deprecated; use {flags[new]}", err=True)
            if _typed(ctx, new) and v[new] != value:
                raise InputError(f"give {flags[new]} only ({flags[new]} and {oldflag} differ)")
            v[new] = value

    def spec_of_flags(self, v: dict[str, Any]) -> Any:
        """The ``analyses.<name>`` spec of the declared options (each parsed to what
        audit.yaml holds); its errors name the flags."""
        from ..audit.registry import get

        keys: dict[str, Any] = {}
        for p in self.declared():
            value = v[p.name]
            if p.name in self.parsers:
                value = self.parsers[p.name](value)
            elif p.cli == "list":
                value = split_list(value, p.flag, _item_cast(p), p.where(self.name))
            v[p.name] = None if _zero_is_none(p) and value == 0 else value
            if p.config_key and value is not None:  # an option left out: the spec's default
                keys[p.config_key] = v[p.name]
        keys |= {r.param.config_key: v[r.name] for r in self.roles
                 if r.param is not None and r.param.config_key}  # fmt: skip
        return spec_from_flags(get(self.name).spec, **keys, **self.more_keys(v))

    def more_keys(self, v: dict[str, Any]) -> dict[str, Any]:
        """Keys of the spec that the command's own flags set (none by default)."""
        return {}

    def engine_flags(self, v: dict[str, Any], reading: dict[str, Any]) -> dict[str, Any]:
        """The engine arguments the flags set: the declared parameters without an
        ``analyses.<name>`` key whose flag is a role (its value) or a data flag, but for
        :attr:`data_roles`."""
        given = {**reading, **v}
        return {p.name: given[p.name] for p in self.params
                if p.flag and not p.config_key and p.name in given
                and p.name not in self.data_roles}  # fmt: skip

    def with_flags(self, engine: Any, v: dict[str, Any], reading: dict[str, Any]) -> Any:
        """``engine`` (built by the spec) with the arguments the flags set
        (:meth:`engine_flags`, those its constructor takes) applied to it.

        Parameters
        ----------
        engine
            An :class:`~primafacie.base.Engine`, not yet run.
        v, reading
            The options' values and the data flags' (as :meth:`from_flags` gets them).

        Returns
        -------
        The same engine.
        """
        flags = self.engine_flags(v, reading)
        params = engine.get_params() if flags else {}  # (situation's multiple test has none)
        for name, value in flags.items():
            if name in params:  # --budget is an argument of run, not of the engine
                setattr(engine, name, value)
        return engine

    def run_engine(self, engine: Any, v: dict[str, Any], reading: dict[str, Any], *args: Any,
                   status: str | None = None, **kwargs: Any) -> Any:  # fmt: skip
        """Run the engine(s) the spec built on the flags' data: :meth:`with_flags`, then
        ``run(*args, **kwargs)`` under the spinner (``status``, default :attr:`status`).

        Parameters
        ----------
        engine
            One engine, or ``{label: engine}`` (each run on the same arguments).
        v, reading
            The options' values and the data flags' (as :meth:`from_flags` gets them).
        *args, **kwargs
            The arguments of the engines' ``run``.

        Returns
        -------
        The engine's Result, or ``{label: Result}``.

        Raises
        ------
        InputError
            The engine's, headed by the flag of the data role it is about when the analysis
            declares that flag (:func:`._data.role_flagged`: the user typed a flag, the
            engine names a role).
        """
        engines = engine if isinstance(engine, Mapping) else {None: engine}
        for e in engines.values():
            self.with_flags(e, v, reading)
        with err_console.status(status or self.status):
            try:
                out = {label: e.run(*args, **kwargs) for label, e in engines.items()}
            except InputError as exc:
                flags = {p.flag for p in self.params if p.flag}
                raise InputError(_data.role_flagged(str(exc), flags)) from None
        return out if isinstance(engine, Mapping) else out[None]

    def from_config(self, ctx: typer.Context, config: Path, out: Path, reading: Any,
                    v: dict[str, Any]) -> tuple[Any, tuple]:  # fmt: skip
        """Run ``analyses.<name>`` of ``config`` exactly as ``primafacie audit`` runs it; a
        data or analysis flag typed besides it is refused (the file alone says what runs)."""
        _data.refuse_with_config(reading, config)
        # the roles in their order, then the analysis' keys alphabetically
        keys = sorted(self.declared(), key=lambda p: p.flag)
        flags = {r.name: r.flag for r in self.roles} | {p.name: p.flag for p in keys}
        typed = [f for n, f in flags.items() if n not in self.with_config and _typed(ctx, n)]
        if typed:
            raise InputError(
                f"--config builds the analysis from {config} alone (as `primafacie audit` does); "
                f"drop {', '.join(typed)} or set the keys of analyses.{self.name} in the file"
            )
        from ..audit.inputs import input_paths
        from ..audit.registry import spec_of
        from ..config import load_config
        from ..io import check_output_dir

        cfg = load_config(config)
        try:
            spec_of(cfg, self.name)
        except InputError as exc:
            raise InputError(f"{config}: {exc}") from None
        inputs = input_paths(cfg, config)
        check_output_dir(out, inputs)  # before any work: no input inside --out
        return self.from_config_file(cfg, v), inputs

    def from_config_file(self, cfg: Any, v: dict[str, Any]) -> Any:
        """The outputs of the configuration's run of this analysis alone."""
        from ..audit import compute_audit
        from ..audit.registry import ANALYSES

        others = {a.name: None for a in ANALYSES if a.name != self.name}
        only = cfg.model_copy(update={"analyses": cfg.analyses.model_copy(update=others)})
        with err_console.status(self.status or f"{self.name}…"):
            audit = compute_audit(only)
            run = audit.runs[self.name]
            if run.status != "ok":  # it cannot run on this file (a model it cannot refit)
                raise InputError(f"analyses.{self.name}: {run.message}")
            return self.from_run(run, cfg, audit, v)

    def write(self, out: Path, res: Any, inputs: Sequence[Any]) -> list[str]:
        """Every file of :meth:`files`, swapped into ``out`` in one step (the inputs kept);
        their names."""
        from ..io import atomic_output_dir, atomic_write_json, atomic_write_table, atomic_write_text

        files = self.files(res)
        with atomic_output_dir(out, owner=self.name, keep=tuple(inputs)) as stage:
            for name, value in files:
                path = stage / name
                if hasattr(value, "to_csv"):
                    atomic_write_table(path, value)
                elif isinstance(value, str):
                    atomic_write_text(path, value)
                elif hasattr(value, "savefig"):
                    value.savefig(path, dpi=120, bbox_inches="tight")
                else:
                    atomic_write_json(path, value)
        return [name for name, _ in files]


def _typed(ctx: typer.Context, name: str) -> bool:
    """Whether option ``name`` was typed on the command line (by the source's name: typer may
    vendor its own click, whose ParameterSource is another enum)."""
    return getattr(ctx.get_parameter_source(name), "name", None) == "COMMANDLINE"
