"""The bases every engine and every Result derive from (scikit-learn's ``BaseEstimator``,
statsmodels' result objects).

:class:`Engine` gives an analysis engine, from its ``__init__`` signature and its declared
constraints (``_parameter_constraints``, ``_where``, derived from the analysis' ``params.py``):

- :meth:`Engine.get_params`: ``{name: value}`` of every constructor argument (stored verbatim);
- :meth:`Engine._validate_params`: one check of those values against the constraints, with
  the message format of :func:`primafacie.validation.validate_params` (owner, parameter, what
  it accepts, what it got, where to change it);
- ``__repr__``: the class name and the arguments that differ from their defaults;
- :meth:`Engine._as_audit_data`: the one coercion of a pandas / polars / pyarrow table or an
  :class:`~primafacie.data.AuditData` (with the constructor's roles applied).

:func:`as_audit_data` is that coercion as a function, for engines that take their roles as
arguments of ``run`` (``SituationTest``).

:class:`BaseResult` gives a Result its cached :meth:`~BaseResult.summary`, a JSON-safe
:meth:`~BaseResult.to_dict`, the abstract ``headline`` / ``scope`` / ``caveats`` of the
:class:`~primafacie.analysis.Result` protocol and ``_repr_html_`` (the notebook display,
rendered by :func:`primafacie.report.notebook.result_html` on first use, so a Result module
imports nothing of ``report/``).

Examples
--------
>>> from numbers import Integral
>>> from primafacie.validation import Interval
>>> class Toy(Engine):
...     _parameter_constraints = {"k": [Interval(Integral, 1, None)]}
...     _where = {"k": "--k, analyses.toy.k"}
...     def __init__(self, k=3, label="x"):
...         self._store_params(locals())
>>> Toy(), Toy(k=5), Toy(k=5).get_params()
(Toy(), Toy(k=5), {'k': 5, 'label': 'x'})
>>> Toy(k=0)._validate_params()
Traceback (most recent call last):
...
primafacie.errors.InputError: Toy: k must be an integer ≥ 1; got 0 (--k, analyses.toy.k)
"""

from __future__ import annotations

import inspect
import warnings
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar

from .docstrings import AUDIT_DATA_RETURNS, fill_doc
from .errors import InputError
from .validation import validate_params

__all__ = [
    "Engine",
    "BaseResult",
    "HTMLReprMixin",
    "as_audit_data",
    "ROLES",
    "deprecated_verb",
    "figure_axes",
    "laid_out",
]

#: The data roles an engine may take in its constructor and apply to its input.
ROLES = ("protected", "decision", "outcome", "favorable", "outcome_favorable")


@fill_doc(returns=AUDIT_DATA_RETURNS)
def as_audit_data(
    data: Any,
    *,
    owner: str = "",
    require: tuple[str, ...] = (),
    features: Any = (),
    **roles: Any,
) -> Any:
    """The :class:`~primafacie.data.AuditData` behind any input an engine accepts.

    Parameters
    ----------
    data
        An :class:`~primafacie.data.AuditData` (returned as it is, or with ``roles`` applied
        through :meth:`~primafacie.data.AuditData.replace`), or a pandas / polars / pyarrow
        table or a mapping of columns (wrapped, with no feature and the given roles).
    owner
        The engine's name, for the message when a table lacks a required role.
    require
        Roles a *table* must be given (an AuditData carries its own): ``"protected"`` must
        then be a mapping ``{column: protected value(s)}``.
    features
        The features of a table, as :class:`~primafacie.data.AuditData` takes them (default
        none; ``None`` infers them from the dtypes of every column without a role); ignored
        for an AuditData, which has its own.
    **roles
        ``protected``, ``decision``, ``outcome``, ``favorable``, ``outcome_favorable``,
        ``id_column``; ``None`` leaves a role unset (an AuditData keeps its own); a
        ``protected`` that is not a mapping (a column name) declares no protected value and
        is left to the engine.

    {{returns}}
        A table without a required role (naming the owner and the roles to give), or any
        error of :class:`~primafacie.data.AuditData` (missing column, non-binary decision...).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"g": ["f", "m"], "d": [0, 1], "x": [0.5, 1.5]})
    >>> as_audit_data(df, protected={"g": "f"}, decision="d").protected_mask().tolist()
    [True, False]
    >>> list(as_audit_data(df, protected={"g": "f"}, decision="d").features)  # none given
    []
    >>> list(as_audit_data(df, features=None, protected={"g": "f"}, decision="d").features)
    ['x']
    >>> as_audit_data(df, owner="GroupMetrics", require=("protected",))
    Traceback (most recent call last):
    ...
    primafacie.errors.InputError: with a table, give the roles: GroupMetrics(protected={column: protected value(s)}), or pass an AuditData
    """
    from .data import AuditData  # pandas: loaded when an engine runs, not at import

    given = {k: v for k, v in roles.items() if v is not None}
    if not isinstance(given.get("protected"), Mapping):
        given.pop("protected", None)  # a bare name picks one of the data's attributes
    else:
        given["protected"] = dict(given["protected"])
    if isinstance(data, AuditData):
        return data.replace(**given) if given else data
    missing = [r for r in require if r not in given]
    if missing:
        owner = owner or "the engine"
        columns = " and ".join(f"{r}=COLUMN" for r in missing if r != "protected")
        if "protected" in missing:
            raise InputError(
                f"with a table, give the roles: {owner}(protected={{column: protected "
                f"value(s)}}{', ' + columns.replace(' and ', ', ') if columns else ''}), "
                "or pass an AuditData"
            )
        raise InputError(f"with a table, give {columns} to {owner} (or pass an AuditData)")
    return AuditData(data, features=features, **given)


def _same(value: Any, default: Any) -> bool:
    """Whether a parameter still holds its default (arrays and models compare unequal)."""
    if value is default:
        return True
    if type(value) is not type(default):
        return False
    try:
        return bool(value == default)
    except Exception:  # an array's == is elementwise; a model's may raise: not a default
        return False


class Engine:
    """Base of every analysis engine: parameters stored verbatim in ``__init__``, checked at
    ``run`` against the declared constraints (scikit-learn's ``BaseEstimator`` and
    ``_parameter_constraints``).

    A subclass sets ``_parameter_constraints`` (``{name: [constraint, ...]}``, from its
    ``params.py``) and ``_where`` (``{name: "--flag, analyses.<analysis>.key"}``), and stores
    every ``__init__`` argument under its own name: ``self._store_params(locals())`` as the
    body of its ``__init__`` (:meth:`_store_params`).
    """

    #: ``{parameter: [constraint, ...]}`` checked by :meth:`_validate_params`.
    _parameter_constraints: ClassVar[Mapping[str, Any]] = {}
    #: ``{parameter: "--flag, analyses.<analysis>.key"}`` quoted in the messages.
    _where: ClassVar[Mapping[str, str]] = {}

    @classmethod
    def _param_names(cls) -> list[str]:
        """The constructor's argument names, in signature order (``self`` and ``*args`` /
        ``**kwargs`` excluded)."""
        sig = inspect.signature(cls.__init__)
        return [
            p.name
            for p in sig.parameters.values()
            if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]

    def _store_params(self, given: Mapping[str, Any]) -> None:
        """Store every constructor argument, unchanged, under its own name.

        The names are those of the ``__init__`` that calls it, so its signature is the one
        place a parameter is declared: a new argument is stored (and so in :meth:`get_params`
        and ``__repr__``) without another line. A subclass whose ``__init__`` adds arguments
        and calls ``super().__init__(...)`` stores its own the same way.

        Parameters
        ----------
        given
            ``locals()`` as the first statement of that ``__init__`` (then they are exactly
            its arguments; ``self`` and the ``__class__`` cell of ``super()`` are skipped).
        """
        for name, value in given.items():
            if name not in ("self", "__class__"):
                setattr(self, name, value)

    def get_params(self) -> dict[str, Any]:
        """``{name: value}`` of every constructor argument, as given (scikit-learn's
        ``get_params(deep=False)``).

        Returns
        -------
        dict
        """
        return {name: getattr(self, name) for name in self._param_names()}

    def _validate_params(self, params: Mapping[str, Any] | None = None) -> None:
        """Check the parameters (default: :meth:`get_params`) against the declared constraints.

        Raises
        ------
        InputError
            One line per invalid parameter: what it accepts, what it got and where to fix it.
        """
        values = self.get_params() if params is None else params
        validate_params(type(self).__name__, self._parameter_constraints, values, self._where)

    def _as_audit_data(self, data: Any, require: tuple[str, ...] = ()) -> Any:
        """``data`` as an :class:`~primafacie.data.AuditData`, with the roles given to the
        constructor (those of :data:`ROLES` it has) applied; see :func:`as_audit_data`."""
        roles = {r: getattr(self, r) for r in ROLES if hasattr(self, r)}
        return as_audit_data(data, owner=type(self).__name__, require=require, **roles)

    def __repr__(self) -> str:
        sig = inspect.signature(type(self).__init__).parameters
        shown = []
        for name, value in self.get_params().items():
            default = sig[name].default
            if default is inspect.Parameter.empty or not _same(value, default):
                shown.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(shown)})"


def deprecated_verb(owner: str, old: str, new: str = "run") -> None:
    """Warn that ``owner.old`` is deprecated for ``owner.new`` (kept one release).

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     deprecated_verb("X", "fit")
    >>> str(w[0].message)
    'X.fit is deprecated and will be removed in the next release; use X.run'
    """
    warnings.warn(
        f"{owner}.{old} is deprecated and will be removed in the next release; use {owner}.{new}",
        DeprecationWarning,
        stacklevel=3,  # the caller of the deprecated method
    )


class HTMLReprMixin:
    """Gives a Result ``_repr_html_`` (Jupyter's rich display).

    The fragment is rendered by :func:`primafacie.report.notebook.result_html` (the report's
    own blocks and macros), imported on first display only: a Result module imports nothing
    of ``report/``.
    """

    def _repr_html_(self) -> str:
        """The Result as an HTML fragment: headline, summary table and main plot."""
        from .report.notebook import result_html

        return result_html(self)


def figure_axes(ax: Any = None, figsize: tuple[float, float] = (6, 4), **subplots: Any) -> Any:
    """``(figure, axes)`` for a Result's ``plot()``: ``ax``'s own figure when one is given,
    else a new figure (matplotlib's non-interactive Agg backend, imported on first use).

    Parameters
    ----------
    ax
        Axes to draw on, or None for a new figure.
    figsize, **subplots
        Passed to ``matplotlib.pyplot.subplots`` (e.g. ``ncols=2``) for a new figure.

    Returns
    -------
    tuple
        The matplotlib Figure and its Axes (an array of them with ``nrows``/``ncols``).
    """
    if ax is not None:
        return ax.figure, ax
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=figsize, **subplots)


def laid_out(fig: Any) -> Any:
    """``fig`` after :func:`primafacie.report.plots.tight_layout` (every text plain), for
    the ``return`` of a ``plot()``."""
    from .report.plots import tight_layout

    tight_layout(fig)
    return fig


def _entry(result: Any, spec: str) -> tuple[str, Any]:
    """``(key, value)`` of one :attr:`BaseResult.dict_keys` entry (see there)."""
    key, _, source = spec.rstrip("?").partition("=")
    value = getattr(result, source or key)
    value = value() if callable(value) else value
    # a nested record (another Result, a scope) writes its own dict; a table is json_safe's
    nested = hasattr(value, "to_dict") and not hasattr(value, "to_numpy")
    return key, value.to_dict() if nested else value


class BaseResult(HTMLReprMixin, ABC):
    """Base of every Result: a cached :meth:`summary`, :meth:`to_frame` (a copy of
    ``table``), the numbers and extra tables of ``results.json`` (:meth:`numbers`,
    :meth:`extra_tables`), :meth:`to_dict` derived from :attr:`dict_keys`, the abstract
    :meth:`headline`, :meth:`scope` and :meth:`caveats` (the
    :class:`~primafacie.analysis.Result` protocol), and ``_repr_html_``.

    A subclass (usually a frozen dataclass) declares :attr:`dict_keys` (or defines
    :meth:`to_dict`), implements the three abstract methods, either holds a ``table`` or
    defines :meth:`to_frame`, and either defines :meth:`_summary` (built on the first
    :meth:`summary` call, then kept; each call returns a copy, so a caller's edits never
    reach the cache) or its own :meth:`summary`.

    Examples
    --------
    >>> import pandas as pd
    >>> class Toy(BaseResult):
    ...     built = 0
    ...     def _summary(self):
    ...         Toy.built += 1
    ...         return pd.DataFrame({"k": [3], "n": [10]})
    ...     def to_frame(self): return self.summary()
    ...     dict_keys = ("headline", "rows=summary", "note?")
    ...     note = None
    ...     def headline(self): return "3 of 10"
    ...     def scope(self): return "10 people"
    ...     def caveats(self): return []
    >>> toy = Toy()
    >>> edited = toy.summary()
    >>> edited.loc[0, "k"] = 99  # a copy: the cached table keeps 3
    >>> int(toy.summary().loc[0, "k"]), Toy.built
    (3, 1)
    >>> toy.to_dict()  # "note" is None: left out
    {'headline': '3 of 10', 'rows': [{'k': 3, 'n': 10}]}
    """

    #: The keys of :meth:`to_dict`, in order: ``"key"`` (the attribute or method of that
    #: name), ``"key=name"`` (another attribute or method), a trailing ``?`` leaves the key
    #: out when its value is None. A method is called, a nested record gives its
    #: ``to_dict()``, a table its records.
    dict_keys: ClassVar[tuple[str, ...]] = ()

    def _summary(self) -> Any:
        """The summary table, computed once by :meth:`summary`."""
        raise NotImplementedError(f"{type(self).__name__} defines no summary")

    def summary(self) -> Any:
        """The summary table (computed on the first call, then read from a cache).

        Returns
        -------
        pandas.DataFrame
            A copy: editing it leaves the Result unchanged.
        """
        cached = self.__dict__.get("_summary_cache")
        if cached is None:
            cached = self._summary()
            # frozen dataclasses refuse setattr; the cache is not a field (not compared,
            # not in repr, rebuilt by dataclasses.replace)
            object.__setattr__(self, "_summary_cache", cached)
        return cached.copy() if hasattr(cached, "copy") else cached

    def to_frame(self) -> Any:
        """One row per unit of the analysis (person, group, subgroup, decision-maker).

        The default is a copy of the Result's ``table`` (editing it leaves the Result
        unchanged); a Result without one builds its frame itself.

        Returns
        -------
        pandas.DataFrame
        """
        table = getattr(self, "table", None)
        if table is None:
            raise NotImplementedError(f"{type(self).__name__} has no table; define to_frame")
        return table.copy()

    def numbers(self) -> dict[str, Any]:
        """The headline numbers of ``results.json`` (``analyses.<name>.numbers``): counts
        with their denominators, read by ``primafacie diff`` and the release gates.

        :meth:`primafacie.analysis.AnalysisRun.of` takes them from the run's main Result;
        the default is none.

        Returns
        -------
        dict
        """
        return {}

    def extra_tables(self) -> dict[str, Any]:
        """Tables written beside :meth:`to_frame` and :meth:`summary`, ``{label: DataFrame}``
        (each becomes ``tables/<analysis>_<label>.csv`` through
        :meth:`primafacie.analysis.AnalysisRun.of`); the default is none.

        Returns
        -------
        dict
        """
        return {}

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe record of the Result (NaN as null, ±inf as ``"inf"``/``"-inf"``): the
        entries of :attr:`dict_keys`.

        Returns
        -------
        dict
        """
        return self._record(self.dict_keys)

    def _record(self, keys: tuple[str, ...]) -> dict[str, Any]:
        """The JSON-safe dict of ``keys`` (entries as in :attr:`dict_keys`)."""
        from .jsonsafe import json_safe  # pandas: loaded when a Result is written

        pairs = (_entry(self, spec) + (spec.endswith("?"),) for spec in keys)
        return json_safe({k: v for k, v, optional in pairs if v is not None or not optional})

    @abstractmethod
    def headline(self) -> str:
        """One sentence with the main finding and its denominator."""

    @abstractmethod
    def scope(self) -> str:
        """Who was tested, with denominators, and who was left out."""

    @abstractmethod
    def caveats(self) -> list[str]:
        """Sentences qualifying the findings, most important first."""
