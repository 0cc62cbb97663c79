"""Parameter constraints declared as data, and one validator with one message format.

Every engine declares what its parameters accept in a class attribute, in the spirit of
scikit-learn's ``_parameter_constraints``::

    class SituationTest:
        _parameter_constraints = {
            "alpha": [Interval(Real, 0, 1, closed="neither")],
            "direction": [Options("negative", "positive")],
            "max_distance": [None, Interval(Real, 0, None, closed="neither")],
        }

and calls :func:`validate_params` at ``run``/``fit`` (``__init__`` only stores its arguments).
A value is accepted when it satisfies *any* constraint of its list (``None`` in the list accepts
``None``). A rejected value raises :class:`~primafacie.errors.InputError` with one message
format, which names the parameter, what it accepts, what it got and, when known, the CLI flag
and the ``audit.yaml`` key that set it::

    SituationTest: alpha must be a number in (0, 1); got 1.5 (--alpha, analyses.situation.alpha)

The pydantic models of ``audit.yaml`` reuse the same constraints through
:func:`check_value` (which raises ``ValueError`` with the same text), so a constraint is
written once. :func:`invalid_value` gives a value that violates a constraint, for the common
test that feeds every declared constraint a bad value.

Examples
--------
>>> from numbers import Real
>>> validate_params("Demo", {"alpha": [Interval(Real, 0, 1, closed="neither")]}, {"alpha": 0.1})
>>> validate_params("Demo", {"alpha": [Interval(Real, 0, 1, closed="neither")]}, {"alpha": 2})
Traceback (most recent call last):
...
primafacie.errors.InputError: Demo: alpha must be a number in (0, 1); got 2
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any

from .errors import InputError

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "Constraint",
    "Interval",
    "Options",
    "InstanceOf",
    "ListOf",
    "Predicate",
    "describe",
    "is_satisfied",
    "check_value",
    "validate_params",
    "invalid_value",
    "check_binary",
]


class Constraint:
    """Base class: ``satisfied(value)``, ``describe()`` and ``invalid()`` (a violating value)."""

    def satisfied(self, value: Any) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def describe(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def invalid(self) -> Any:
        """A value that violates this constraint (for the common tests)."""
        return object()


# numpy is not imported here: the declaration modules (and through them ``--help``) use these
# constraints. A numpy value can only exist once numpy is loaded, so its types are looked up
# in sys.modules; numpy registers its integers and floats as numbers.Integral / numbers.Real.
def _numpy_types(name: str) -> tuple[type, ...]:
    np = sys.modules.get("numpy")
    return (getattr(np, name),) if np is not None else ()


def _is_bool(value: Any) -> bool:
    return isinstance(value, (bool, *_numpy_types("bool_")))


def _is_number(value: Any, kind: type) -> bool:
    if _is_bool(value):
        return False
    return isinstance(value, Integral if kind is Integral else Real)


def _bound(x: float | None) -> str | None:
    """A bound as a message shows it: a whole number in full (``10000000``, not ``1e+07``)."""
    if x is None:
        return None
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else f"{x:g}"


@dataclass(frozen=True)
class Interval(Constraint):
    """A number (``Real``) or a whole number (``Integral``) in an interval.

    ``left``/``right`` may be ``None`` (unbounded); ``closed`` is ``"both"``, ``"left"``,
    ``"right"`` or ``"neither"``. NaN is never inside.

    >>> Interval(Integral, 1, None).describe()
    'an integer ≥ 1'
    >>> Interval(Real, -1, 1).satisfied(0.5), Interval(Real, 0, 1, closed="neither").satisfied(0)
    (True, False)
    """

    kind: type
    left: float | None
    right: float | None
    closed: str = "both"

    def satisfied(self, value: Any) -> bool:
        if not _is_number(value, self.kind):
            return False
        x = float(value)
        if math.isnan(x):
            return False
        lo_closed = self.closed in ("both", "left")
        hi_closed = self.closed in ("both", "right")
        if self.left is not None and (x < self.left or (x == self.left and not lo_closed)):
            return False
        return not (
            self.right is not None and (x > self.right or (x == self.right and not hi_closed))
        )

    def describe(self) -> str:
        noun = "an integer" if self.kind is Integral else "a number"
        lo, hi = _bound(self.left), _bound(self.right)
        lo_closed = self.closed in ("both", "left")
        hi_closed = self.closed in ("both", "right")
        if lo is not None and hi is not None:
            return f"{noun} in {'[' if lo_closed else '('}{lo}, {hi}{']' if hi_closed else ')'}"
        if lo is not None:
            return f"{noun} {'≥' if lo_closed else '>'} {lo}"
        if hi is not None:
            return f"{noun} {'≤' if hi_closed else '<'} {hi}"
        return noun

    def invalid(self) -> Any:
        if self.right is not None:
            return self.right + 1
        if self.left is not None:
            return self.left - 1
        return "not a number"


@dataclass(frozen=True, init=False)
class Options(Constraint):
    """One of a fixed set of values (compared with ``==``; strings case-sensitively).

    >>> Options("wald", "newcombe").describe()
    "one of 'wald', 'newcombe'"
    """

    values: tuple

    def __init__(self, *values: Any) -> None:
        object.__setattr__(self, "values", tuple(values))

    def satisfied(self, value: Any) -> bool:
        if isinstance(value, (list, dict, set, *_numpy_types("ndarray"))):
            return False
        try:
            return any(value == v and type(value) is not bool for v in self.values)
        except (TypeError, ValueError):
            return False

    def describe(self) -> str:
        return "one of " + ", ".join(repr(v) for v in self.values)

    def invalid(self) -> Any:
        return "not-an-option"


@dataclass(frozen=True, init=False)
class InstanceOf(Constraint):
    """An instance of one of the given types; ``name`` is how the message calls it.

    >>> InstanceOf(bool, name="a boolean").satisfied(1)
    False
    """

    types: tuple
    name: str

    def __init__(self, *types: type, name: str | None = None) -> None:
        object.__setattr__(self, "types", tuple(types))
        object.__setattr__(self, "name", name or " or ".join(t.__name__ for t in types))

    def satisfied(self, value: Any) -> bool:
        if bool in self.types and _is_bool(value):
            return True
        if _is_bool(value) and bool not in self.types:
            return False
        return isinstance(value, self.types)

    def describe(self) -> str:
        return self.name

    def invalid(self) -> Any:
        return object() if bool in self.types or str in self.types else "wrong type"


@dataclass(frozen=True)
class ListOf(Constraint):
    """A non-empty list (or tuple) whose items satisfy ``item``; with ``scalar=True`` one item
    alone is also accepted (``k=30`` as well as ``k=[15, 30]``).

    >>> ListOf(Interval(Integral, 1, None), scalar=True).satisfied([15, 30])
    True
    >>> ListOf(Options("st", "cst")).describe()
    "a non-empty list of one of 'st', 'cst'"
    """

    item: Constraint
    scalar: bool = False

    def satisfied(self, value: Any) -> bool:
        if isinstance(value, (list, tuple, *_numpy_types("ndarray"))):
            return len(value) > 0 and all(self.item.satisfied(v) for v in value)
        return self.scalar and self.item.satisfied(value)

    def describe(self) -> str:
        inner = self.item.describe()
        return (
            f"{inner} or a non-empty list of them"
            if self.scalar
            else f"a non-empty list of {inner}"
        )

    def invalid(self) -> Any:
        return [self.item.invalid()]


@dataclass(frozen=True)
class Predicate(Constraint):
    """Any test written as a function, with its description (for what an interval cannot say);
    ``values``: the names it accepts as written in audit.yaml (the schema's choices), when it
    also accepts aliases of them."""

    test: Callable[[Any], bool]
    text: str
    bad: Any = None
    values: tuple[Any, ...] = ()

    def satisfied(self, value: Any) -> bool:
        try:
            return bool(self.test(value))
        except Exception:  # noqa: BLE001 - a failing test means "not satisfied"
            return False

    def describe(self) -> str:
        return self.text

    def invalid(self) -> Any:
        return self.bad


#: A column name (many parameters name one).
COLUMN = InstanceOf(str, name="a column name")
#: A boolean (``True``/``False``, never 1/0).
BOOL = InstanceOf(bool, name="a boolean")


def is_names(value: Any) -> bool:
    """A column name, or a list (tuple, set) of them, possibly empty."""
    if isinstance(value, str):
        return True
    return isinstance(value, (list, tuple, set, frozenset)) and all(
        isinstance(v, str) for v in value
    )


#: What a significance level accepts: the one definition, used by the engines' constraints,
#: the declarations of the analyses' parameters and :mod:`primafacie.intervals`.
ALPHA = [Interval(Real, 0, 1, closed="neither")]


def describe(constraints: Sequence[Any]) -> str:
    """What a list of constraints accepts, in words (``None`` reads "None")."""
    parts = ["None" if c is None else c.describe() for c in constraints]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]


def is_satisfied(constraints: Sequence[Any], value: Any) -> bool:
    """Whether ``value`` satisfies any of ``constraints`` (``None`` accepts ``None``)."""
    return any(value is None if c is None else c.satisfied(value) for c in constraints)


def _message(owner: str, name: str, constraints: Sequence[Any], value: Any, where: str) -> str:
    shown = repr(value)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    head = f"{owner}: {name}" if owner else name
    tail = f" ({where})" if where else ""
    return f"{head} must be {describe(constraints)}; got {shown}{tail}"


def check_value(
    name: str, value: Any, constraints: Sequence[Any], owner: str = "", where: str = ""
) -> Any:
    """Raise ``ValueError`` (for pydantic validators) when ``value`` violates ``constraints``.

    Returns ``value`` unchanged, so it can end a pydantic ``field_validator``.

    >>> check_value("tau", 0.5, [Interval(Real, -1, 1)])
    0.5
    """
    if not is_satisfied(constraints, value):
        raise ValueError(_message(owner, name, constraints, value, where))
    return value


def validate_params(
    owner: str,
    constraints: Mapping[str, Sequence[Any]],
    params: Mapping[str, Any],
    where: Mapping[str, str] | None = None,
) -> None:
    """Check every parameter of ``params`` that has constraints; raise one :class:`InputError`.

    Parameters
    ----------
    owner
        Class or function name shown first in the message (``"SituationTest"``).
    constraints
        ``{parameter: [constraint, ...]}``; a parameter without an entry is not checked.
    params
        ``{parameter: value}``, typically ``{p: getattr(self, p) for p in constraints}``.
    where
        Optional ``{parameter: "--flag, audit.yaml key"}`` appended to the message, so a user
        of the CLI or the configuration knows what to change.

    Raises
    ------
    InputError
        Naming every invalid parameter, one per line, in declaration order.
    """
    where = where or {}
    errors = [
        _message(owner, name, cons, params[name], where.get(name, ""))
        for name, cons in constraints.items()
        if name in params and not is_satisfied(cons, params[name])
    ]
    if errors:
        raise InputError("\n".join(errors))


def invalid_value(constraints: Sequence[Any]) -> Any:
    """A value that violates every constraint of the list (for the common tests).

    >>> invalid_value([Interval(Real, 0, 1, closed="neither")])
    2
    """
    for c in constraints:
        if c is None:
            continue
        bad = c.invalid()
        if not is_satisfied(constraints, bad):
            return bad
    for bad in (object(), "not-an-option", -1e308, [object()]):
        if not is_satisfied(constraints, bad):
            return bad
    raise ValueError(f"no invalid value found for {describe(constraints)}")


def check_binary(values: Iterable[Any] | np.ndarray, what: str) -> np.ndarray:
    """The unique values of a decision (at most two, no missing value), or an InputError.

    The one binary-decision check shared by :class:`~primafacie.data.AuditData`,
    :class:`~primafacie.decisions.ModelDecider` and the certainty audit.

    Parameters
    ----------
    values
        The decisions (any dtype).
    what
        What they are, for the message ("column 'approved'", "the model's predictions").

    Returns
    -------
    numpy.ndarray
        The sorted distinct values (one or two).

    >>> import numpy as np
    >>> check_binary(np.array([1, 0, 1]), "column 'y'").tolist()
    [0, 1]
    >>> check_binary(np.array([0, 1, 2]), "column 'y'")
    Traceback (most recent call last):
    ...
    primafacie.errors.InputError: column 'y' must be binary (two values); got 3 distinct values such as ['0', '1', '2']
    """
    import numpy as np

    arr = np.asarray(values)
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise InputError(f"{what} has missing values; a decision must be given for every row")
    if arr.dtype.kind == "O":
        import pandas as pd

        series = pd.Series(arr)
        if series.isna().any():
            raise InputError(f"{what} has missing values; a decision must be given for every row")
        uniq = pd.unique(series)
    else:
        uniq = np.unique(arr)
    if len(uniq) > 2:
        sample = sorted(map(str, uniq))[:5]
        raise InputError(
            f"{what} must be binary (two values); got {len(uniq)} distinct values such as {sample}"
        )
    return np.sort(np.asarray(uniq)) if arr.dtype.kind != "O" else np.asarray(uniq)
