"""How ŷ is obtained: a recorded column, a fitted estimator, or a safe rule expression.

A rule such as ``AnnualSalary + 5 * AccountBalance > 225000`` is parsed into a syntax tree and
evaluated by a whitelist walker over numpy columns: arithmetic, comparisons, boolean
operators, column names and literal numbers/strings only. Nothing is ever passed to ``eval``.
"""

from __future__ import annotations

import ast
import math
import operator
import os
from collections.abc import Callable, Mapping, Sequence
from itertools import pairwise
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import InputError

# pandas is imported in the functions that use it: importing the situation engine must not
# load it (issue 22, start-up); the annotations name it only for type checkers.
if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "Rule",
    "ModelDecider",
    "as_decider",
    "check_fitted",
    "load_model",
    "predict_binary",
    "score_decisions",
]

_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_CMPOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}
_UNARY: dict[type, Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Not: np.logical_not,
}


#: Longest rule expression accepted, in characters.
MAX_RULE_LENGTH = 10_000
#: Deepest nesting of a rule's syntax tree (``a + b + c`` nests one level per term).
MAX_RULE_DEPTH = 200
#: Largest integer a rule's constant arithmetic may produce, in bits (about 1e77).
MAX_INT_BITS = 256
#: Largest exponent of an integer power between constants.
MAX_EXPONENT = 1_000


def _is_text(value: Any) -> bool:
    """A string constant or an array of strings (a text column)."""
    if isinstance(value, str):
        return True
    arr = value if isinstance(value, np.ndarray) else None
    if arr is None or arr.size == 0:
        return False
    if arr.dtype.kind in "US":
        return True
    return arr.dtype.kind == "O" and isinstance(arr.flat[0], str)


def _is_number(value: Any) -> bool:
    if isinstance(value, (bool, int, float, np.number, np.bool_)):
        return True
    return isinstance(value, np.ndarray) and value.dtype.kind in "biuf"


def _as_number(value: Any) -> Any:
    """Booleans count as 0/1 in arithmetic, as in Python (numpy would OR two bool arrays)."""
    if isinstance(value, np.ndarray) and value.dtype == bool:
        return value.astype(np.int64)
    return value


def _backtick_names(expression: str) -> tuple[str, dict[str, str]]:
    """Replace each column name quoted in backticks (as in pandas ``query``) by a placeholder
    identifier; return the text and ``{placeholder: name}``. Backticks inside a quoted string
    are left alone; an unclosed or empty pair is an error.

    Examples
    --------
    >>> _backtick_names("`credit score` > 1 and x == 'a`b'")
    ("_q0_ > 1 and x == 'a`b'", {'_q0_': 'credit score'})
    """
    out: list[str] = []
    names: dict[str, str] = {}
    i, quote, n = 0, "", len(expression)
    while i < n:
        ch = expression[i]
        if quote:
            out.append(ch)
            if ch == "\\" and i + 1 < n:
                out.append(expression[i + 1])
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
            out.append(ch)
        elif ch == "`":
            end = expression.find("`", i + 1)
            if end < 0:
                raise InputError(f"rule {expression!r}: a backtick at position {i} is not closed")
            name = expression[i + 1 : end]
            if not name.strip():
                raise InputError(f"rule {expression!r}: empty backticks at position {i}")
            k = len(names)
            while f"_q{k}_" in expression:  # a placeholder never shadows a real name
                k += 1
            names[f"_q{k}_"] = name
            out.append(f"_q{k}_")
            i = end
        else:
            out.append(ch)
        i += 1
    return "".join(out), names


def _column_hint(missing: Sequence[str], columns: Sequence[str]) -> str:
    """'; did you mean ...' for each unknown name, and the backtick syntax when the intended
    column holds characters a bare name cannot (``-``, spaces, ...)."""
    import difflib
    import re

    picks: dict[str, list[str]] = {}
    for name in missing:
        close = difflib.get_close_matches(name, columns, n=1, cutoff=0.6)
        # a bare credit-score parses as credit - score: find the column holding the part
        holding = [c for c in columns if not c.isidentifier() and name in re.split(r"\W+", c)]
        for pick in (close or holding)[:1]:
            picks.setdefault(pick, []).append(repr(name))
    hints = [
        f"{', '.join(names)}: did you mean {pick if pick.isidentifier() else f'`{pick}`'}?"
        for pick, names in picks.items()
    ]
    odd = [c for c in columns if not c.isidentifier()]
    if odd:
        hints.append(
            "a column name with '-', spaces or other symbols is written in backticks, as in "
            f"pandas query: `{odd[0]}`"
        )
    return ("; " + "; ".join(hints)) if hints else ""


class Rule:
    """A decision rule over named columns, parsed without ``eval``.

    Parameters
    ----------
    expression
        e.g. ``"AnnualSalary + 5 * AccountBalance > 225000"``. Allowed: numbers, quoted
        strings (for equality tests), column names, ``+ - * / // % **``, comparisons
        (chains too), ``and``/``or``/``not`` and parentheses. A column name that is not a
        Python identifier (``credit-score``, ``annual income``) is written in backticks, as
        in pandas ``query``: ``"`credit-score` > 600"``. Function calls, attribute access,
        subscripts and everything else are rejected with a message naming them.

    Notes
    -----
    Limits that keep a rule from hanging or exhausting the machine, checked when the rule is
    built (so when ``audit.yaml`` is loaded): at most :data:`MAX_RULE_LENGTH` characters and
    :data:`MAX_RULE_DEPTH` levels of nesting; arithmetic between constants is computed once,
    with integer powers up to :data:`MAX_EXPONENT` and integers up to :data:`MAX_INT_BITS`
    bits; a quoted string may only be compared, never used in arithmetic (no repetition).
    Booleans in arithmetic count as 0/1 as in Python: ``(a == 'x') + (b >= 1) >= 2`` holds
    when both tests do. Comparing a text column with a number (or a numeric column with a
    quoted string) is an :class:`~primafacie.errors.InputError` naming the column.

    Examples
    --------
    >>> import pandas as pd
    >>> rule = Rule("salary + 5 * balance > 225000")
    >>> rule.columns
    ('balance', 'salary')
    >>> rule.predict(pd.DataFrame({"salary": [100000, 200000], "balance": [10000, 20000]})).tolist()
    [0, 1]
    """

    def __init__(self, expression: str) -> None:
        if not isinstance(expression, str) or not expression.strip():
            raise InputError("a rule must be a non-empty expression string")
        self.expression = expression
        if len(expression) > MAX_RULE_LENGTH:
            raise InputError(
                f"rule {self._short()} is {len(expression):,} characters long, more than the "
                f"limit of {MAX_RULE_LENGTH:,}; simplify it or compute the decision into a column"
            )
        text, quoted = _backtick_names(expression)
        try:
            self._tree = ast.parse(text.strip(), mode="eval")
        except SyntaxError as exc:
            hint = f" (at most {MAX_RULE_DEPTH} levels)" if "nested" in str(exc.msg) else ""
            raise InputError(
                f"rule {self._short()} is not a valid expression: {exc.msg}{hint}"
            ) from exc
        except (RecursionError, MemoryError) as exc:
            raise InputError(
                f"rule {self._short()} nests too deeply (limit {MAX_RULE_DEPTH} levels)"
            ) from exc
        for node in ast.walk(self._tree):  # `credit-score` was parsed as a placeholder name
            if isinstance(node, ast.Name) and node.id in quoted:
                node.id = quoted[node.id]
        self._check_depth()
        names: set[str] = set()
        for node in ast.walk(self._tree):
            self._check(node, names)
        if not names:
            raise InputError(f"rule {self._short()} uses no column")
        self.columns = tuple(sorted(names))
        self._tree = ast.Expression(body=self._fold(self._tree.body))

    def _short(self) -> str:
        text = self.expression
        return repr(text if len(text) <= 80 else text[:60] + " ... " + text[-15:])

    def _check_depth(self) -> None:
        """Depth of the syntax tree, measured without recursion; over the limit is an error."""
        stack = [(self._tree, 0)]
        while stack:
            node, depth = stack.pop()
            if depth > MAX_RULE_DEPTH:
                raise InputError(
                    f"rule {self._short()} nests more than {MAX_RULE_DEPTH} levels deep (a long "
                    "chain of + or * counts one level per term); simplify it or compute the "
                    "decision into a column"
                )
            stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))

    def _fold(self, node: ast.AST) -> ast.AST:
        """Compute arithmetic between constants once, within bounds (see the class notes)."""
        if isinstance(node, ast.BinOp):
            left, right = self._fold(node.left), self._fold(node.right)
            if isinstance(left, ast.Constant) and isinstance(right, ast.Constant):
                value = self._const_binop(node.op, left.value, right.value)
                return ast.copy_location(ast.Constant(value), node)
            return ast.copy_location(ast.BinOp(left, node.op, right), node)
        if isinstance(node, ast.UnaryOp):
            operand = self._fold(node.operand)
            if isinstance(operand, ast.Constant) and not isinstance(node.op, ast.Not):
                if isinstance(operand.value, str):
                    self._text_arithmetic()
                value = _UNARY[type(node.op)](operand.value)
                return ast.copy_location(ast.Constant(value), node)
            return ast.copy_location(ast.UnaryOp(node.op, operand), node)
        if isinstance(node, ast.BoolOp):
            return ast.copy_location(
                ast.BoolOp(node.op, [self._fold(v) for v in node.values]), node
            )
        if isinstance(node, ast.Compare):
            return ast.copy_location(
                ast.Compare(
                    self._fold(node.left), node.ops, [self._fold(c) for c in node.comparators]
                ),
                node,
            )
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            self._check_int(node.value)
        return node

    def _text_arithmetic(self) -> None:
        raise InputError(
            f"rule {self._short()}: a quoted string can only be compared (== or !=) with a "
            "column, not used in arithmetic"
        )

    def _check_int(self, value: Any) -> None:
        if isinstance(value, int) and abs(value).bit_length() > MAX_INT_BITS:
            raise InputError(
                f"rule {self._short()}: a constant has more than {MAX_INT_BITS} bits (about "
                "1e77); use a smaller number"
            )

    def _const_binop(self, op: ast.operator, a: Any, b: Any) -> Any:
        if isinstance(a, str) or isinstance(b, str):
            self._text_arithmetic()
        if isinstance(op, ast.Pow) and isinstance(a, int) and isinstance(b, int):
            # bits of a**b: b * log2|a| (0 and 1 stay small whatever b)
            bits = b * math.log2(abs(a)) if abs(a) > 1 and b > 0 else 0
            if b > MAX_EXPONENT or bits > MAX_INT_BITS:
                raise InputError(
                    f"rule {self._short()}: the power {a}**{b} is too large (integers up to "
                    f"{MAX_INT_BITS} bits, exponents up to {MAX_EXPONENT}); use a smaller number"
                )
        try:
            value = _BINOPS[type(op)](a, b)
        except (ArithmeticError, ValueError) as exc:
            raise InputError(
                f"rule {self._short()}: cannot compute {a!r} {type(op).__name__} {b!r}: {exc}"
            ) from exc
        if isinstance(value, complex):
            raise InputError(f"rule {self._short()}: {a!r} ** {b!r} is not a real number")
        self._check_int(value)
        return value

    def _check(self, node: ast.AST, names: set[str]) -> None:
        allowed = (
            ast.Expression, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.Name,
            ast.Constant, ast.Load, ast.And, ast.Or,
            *_BINOPS, *_CMPOPS, *_UNARY,
        )  # fmt: skip
        if not isinstance(node, allowed):
            what = {
                ast.Call: "a function call",
                ast.Attribute: "attribute access",
                ast.Subscript: "a subscript",
                ast.Lambda: "a lambda",
            }.get(type(node), f"'{type(node).__name__}'")
            raise InputError(
                f"rule {self.expression!r}: {what} is not allowed; a rule may use column names, "
                "numbers, arithmetic, comparisons and and/or/not"
            )
        if isinstance(node, ast.Constant) and not isinstance(node.value, (int, float, str, bool)):
            raise InputError(f"rule {self.expression!r}: constant {node.value!r} is not allowed")
        if isinstance(node, ast.Name):
            names.add(node.id)

    def _eval(self, node: ast.AST, env: Callable[[str], np.ndarray]) -> Any:
        if isinstance(node, ast.Expression):
            return self._eval(node.body, env)
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return env(node.id)
        if isinstance(node, ast.BinOp):
            left, right = self._eval(node.left, env), self._eval(node.right, env)
            for side, value in ((node.left, left), (node.right, right)):
                if _is_text(value):
                    what = f"text column {side.id!r}" if isinstance(side, ast.Name) else "text"
                    raise InputError(
                        f"rule {self._short()}: {what} cannot be used in arithmetic; compare it "
                        "with a quoted value instead, e.g. region == 'north'"
                    )
            with np.errstate(all="ignore"):
                return _BINOPS[type(node.op)](_as_number(left), _as_number(right))
        if isinstance(node, ast.UnaryOp):
            value = self._eval(node.operand, env)
            if isinstance(node.op, ast.Not):
                return np.logical_not(value)
            if _is_text(value):
                raise InputError(
                    f"rule {self._short()}: text cannot be negated; compare it with a quoted "
                    "value instead"
                )
            return _UNARY[type(node.op)](_as_number(value))
        if isinstance(node, ast.BoolOp):
            combine = np.logical_and if isinstance(node.op, ast.And) else np.logical_or
            values = [np.asarray(self._eval(v, env), dtype=bool) for v in node.values]
            out = values[0]
            for v in values[1:]:
                out = combine(out, v)
            return out
        if isinstance(node, ast.Compare):
            left = self._eval(node.left, env)
            result: Any = True
            left_node = node.left
            for op, comp in zip(node.ops, node.comparators, strict=True):
                right = self._eval(comp, env)
                self._check_comparable(left_node, left, comp, right)
                result = np.logical_and(result, _CMPOPS[type(op)](left, right))
                left, left_node = right, comp
            return result
        raise InputError(f"rule {self.expression!r}: cannot evaluate {type(node).__name__}")

    def _check_comparable(self, a_node: ast.AST, a: Any, b_node: ast.AST, b: Any) -> None:
        """Text against a number would be silently False everywhere (or a TypeError)."""
        for text_node, text, num_node, num in ((a_node, a, b_node, b), (b_node, b, a_node, a)):
            if not (_is_text(text) and _is_number(num)):
                continue
            if isinstance(text_node, ast.Name):
                shown = num_node.value if isinstance(num_node, ast.Constant) else "the value"
                raise InputError(
                    f"rule {self._short()}: column {text_node.id!r} holds text but is compared "
                    f"with a number; quote the value, e.g. {text_node.id} == '{shown}'"
                )
            if isinstance(num_node, ast.Name):
                raise InputError(
                    f"rule {self._short()}: column {num_node.id!r} is numeric but is compared "
                    f"with the text {text!r}; write the number without quotes"
                )
            raise InputError(f"rule {self._short()}: compares text with a number")

    def evaluate(self, data: pd.DataFrame | dict[str, Any]) -> np.ndarray:
        """Value of the expression on every row (numeric or boolean array)."""
        import pandas as pd

        data = _table(data)
        missing = [c for c in self.columns if c not in data]
        if missing:
            raise InputError(
                f"rule {self.expression!r} uses column(s) {missing} that are not in the data"
                + _column_hint(missing, [str(c) for c in data])
            )

        def env(name: str) -> np.ndarray:
            return _column_values(data[name])

        n = len(data) if isinstance(data, pd.DataFrame) else len(np.asarray(data[self.columns[0]]))
        try:
            out = np.asarray(self._eval(self._tree, env))
        except (TypeError, ValueError) as exc:  # numpy's message, with the rule named
            if isinstance(exc, InputError):
                raise
            raise InputError(
                f"rule {self._short()} cannot be evaluated on columns {list(self.columns)}: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        return np.broadcast_to(out, (n,)).copy() if out.ndim == 0 else out

    def text_comparisons(self) -> list[tuple[str, str]]:
        """``(column, text)`` of every comparison of a column with a quoted string, in order,
        so a caller can check the data hold that spelling (a value that matches no row, or
        matches only after case folding, makes ``region != 'Urban'`` always true).

        Examples
        --------
        >>> Rule("x > 1 and region != 'Urban' and 'a' == kind").text_comparisons()
        [('region', 'Urban'), ('kind', 'a')]
        """
        out = []
        for node in ast.walk(self._tree):
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                for a, b in pairwise(sides):  # a chain a == b == c: adjacent pairs
                    for name, text in ((a, b), (b, a)):
                        if (
                            isinstance(name, ast.Name)
                            and isinstance(text, ast.Constant)
                            and (isinstance(text.value, str))
                        ):
                            out.append((name.id, text.value))
        return out

    def predict(self, data: pd.DataFrame | dict[str, Any]) -> np.ndarray:
        """1 where the rule holds (favourable), 0 elsewhere, as int8."""
        out = self.evaluate(data)
        if out.dtype != bool:
            raise InputError(
                f"rule {self.expression!r} must end in a comparison or boolean test to give a "
                "decision"
            )
        return out.astype(np.int8)

    __call__ = predict

    def __repr__(self) -> str:
        return f"Rule({self.expression!r})"


def _column_values(values: Any) -> np.ndarray:
    """A column's values as numpy, as ``values.to_numpy()`` gives them.

    A categorical column of text is taken apart: pandas makes its array by taking the
    categories' text by the codes, then one new Python ``str`` per row (issue 22: at
    2 x 10^6 rows of the credit world, the audit's rule ``... and region != 'urban'`` peaked
    170 MB above the frame, 85 B per row). The categories' own few strings taken by the codes
    give the same object array, equal element by element (a missing value, code -1, is the
    text dtype's own missing value, as pandas gives it), for 8 B per row.

    Parameters
    ----------
    values
        A column of the rule's data (a pandas Series, or any array-like of a mapping).

    Returns
    -------
    numpy.ndarray
    """
    import pandas as pd

    dtype = getattr(values, "dtype", None)
    if (
        isinstance(values, pd.Series)
        and isinstance(dtype, pd.CategoricalDtype)
        and isinstance(dtype.categories.dtype, pd.StringDtype)
    ):
        text = np.empty(len(dtype.categories) + 1, dtype=object)
        text[:-1] = dtype.categories.to_numpy(dtype=object)
        text[-1] = dtype.categories.dtype.na_value  # the last: where the code is -1
        return text[values.cat.codes.to_numpy()]
    return values.to_numpy() if hasattr(values, "to_numpy") else np.asarray(values)


def _same_label(label: Any, favorable: Any) -> bool:
    """``favorable`` (often text from a CLI or YAML) names the estimator's ``label``."""
    if isinstance(favorable, str) and not isinstance(label, str):
        text = favorable.strip().lower()
        if isinstance(label, bool):
            return text in (("true", "1", "1.0") if label else ("false", "0", "0.0"))
        try:
            return float(text) == float(label)
        except (TypeError, ValueError):
            return False
    if isinstance(label, str) and isinstance(favorable, bool):
        # YAML 1.1 reads an unquoted yes/no/on/off/true/false as a boolean
        words = ("true", "yes", "y", "on", "1") if favorable else ("false", "no", "n", "off", "0")
        return label.strip().lower() in words
    if isinstance(label, str) and not isinstance(favorable, str):
        return label.strip() == str(favorable)
    try:
        return bool(label == favorable)
    except (TypeError, ValueError):
        return False


def _model_label(estimator: Any, favorable: Any) -> Any:
    """The estimator's own label equal to ``favorable`` (``"1"`` from a CLI or YAML matches 1,
    1.0 and True; ``"true"``/``"false"`` match booleans).

    An estimator that lists its labels (``classes_``) must have the favourable one among them:
    otherwise every prediction would read as unfavourable and an audit would look "fair".
    """
    classes = getattr(estimator, "classes_", None)
    if classes is None:
        return favorable
    labels = list(np.asarray(classes).tolist())
    if isinstance(favorable, np.generic):
        favorable = favorable.item()
    for label in labels:
        if _same_label(label, favorable):
            return label
    raise InputError(
        f"the favourable value {favorable!r} is not one of the model's labels {labels} "
        "(its classes_); give the label the model predicts for the favourable decision"
    )


class ModelDecider:
    """Wrap a fitted estimator (anything with ``predict``) as a decision function.

    ``features`` are the columns passed to ``predict`` in that order (default: the estimator's
    ``feature_names_in_`` when present, else every column given). ``favorable`` is the label
    the estimator uses for the favourable decision.
    """

    def __init__(self, estimator: Any, features: Sequence[str] | None = None, favorable: Any = 1):
        if not hasattr(estimator, "predict"):
            raise InputError(
                f"the model {type(estimator).__name__} has no predict() method; give a fitted "
                "scikit-learn style estimator"
            )
        check_fitted(estimator, f"the model {type(estimator).__name__}")
        self.estimator = estimator
        if features is None and hasattr(estimator, "feature_names_in_"):
            features = list(estimator.feature_names_in_)
        self.features = None if features is None else list(features)
        self.favorable = _model_label(estimator, favorable)

    def check_columns(self, data_columns: Sequence[str], declared: Sequence[str] = ()) -> None:
        """Check the model was fitted on columns the data has, before any prediction.

        Parameters
        ----------
        data_columns
            Columns of the data the model will see.
        declared
            The audit's declared features: those the model was not fitted on are named as
            the "extra" columns when some of the model's are missing.

        Raises
        ------
        InputError
            When columns the model was fitted on are absent (naming the missing ones and the
            declared features the model does not know), or, for a model fitted on an unnamed
            array, when its number of inputs differs from the number of features.
        """
        names = getattr(self.estimator, "feature_names_in_", None)
        if names is not None:
            model_cols = [str(c) for c in names]
            missing = [c for c in model_cols if c not in set(map(str, data_columns))]
            if missing:
                extra = [c for c in declared if c not in set(model_cols)]
                also = f"; the audit's features it was not fitted on: {extra}" if extra else ""
                raise InputError(
                    f"the model was fitted on other columns: missing from the data: {missing}"
                    f"{also} (the model's columns: {model_cols[:20]})"
                )
            return
        n_in = getattr(self.estimator, "n_features_in_", None)
        cols = self.features if self.features is not None else list(declared)
        if n_in is not None and cols and int(n_in) != len(cols):
            raise InputError(
                f"the model was fitted on {int(n_in)} unnamed columns but is given {len(cols)} "
                f"features {list(cols)[:20]}; refit it on a DataFrame with these columns"
            )

    def predict(self, data: pd.DataFrame) -> np.ndarray:
        """Favourable indicator (int8 0/1) of the estimator's predictions on ``data``.

        Raises
        ------
        InputError
            When columns the model needs are missing, its ``predict`` fails, or it returns
            anything but one label per row (e.g. probabilities).
        """
        data = _table(data)
        X = data
        if self.features is not None:
            self.check_columns(list(data.columns))
            missing = [c for c in self.features if c not in data]
            if missing:
                raise InputError(f"the model needs column(s) {missing} that are not in the data")
            X = data[self.features]
        try:
            raw = np.asarray(self.estimator.predict(X))
        except Exception as exc:  # the estimator's own error; the user needs to know which
            cols = [str(c) for c in X.columns][:20]
            hint = (
                ""
                if hasattr(self.estimator, "feature_names_in_")
                else " (fit the model on a DataFrame so it records feature_names_in_, or pass "
                "features=[...])"
            )
            raise InputError(
                f"predict() failed on columns {cols}: {type(exc).__name__}: {exc}{hint}"
            ) from exc
        if raw.ndim == 1 and raw.shape[0] != len(data):
            raise InputError(f"the model returned {raw.shape[0]} predictions for {len(data)} rows")
        if raw.ndim != 1:
            raise InputError(
                f"the model's predict() returned shape {raw.shape} for {len(data)} rows; it must "
                "return one label per row (a 2-D result looks like probabilities)"
            )
        values = np.unique(raw)
        if raw.dtype.kind == "f" and np.any((values > 0) & (values < 1)):
            raise InputError(
                "the model's predict() returns probabilities (values such as "
                f"{values[(values > 0) & (values < 1)][:3].tolist()}), not labels; save a "
                "classifier whose predict() gives the decision, or a rule with a threshold"
            )
        if len(values) > 2:
            raise InputError(
                f"the model's predictions must be binary; got {len(values)} distinct values "
                f"such as {values[:5].tolist()}"
            )
        favorable = self.favorable
        if getattr(self.estimator, "classes_", None) is None:
            # no list of labels (e.g. an ONNX model): "1" from a CLI or YAML names label 1
            favorable = next((v for v in values.tolist() if _same_label(v, favorable)), favorable)
        return (raw == favorable).astype(np.int8)

    __call__ = predict

    def __repr__(self) -> str:
        return f"ModelDecider({type(self.estimator).__name__}, favorable={self.favorable!r})"


def as_decider(obj: Any, features: Sequence[str] | None = None, favorable: Any = 1) -> Any:
    """Turn a rule string, :class:`Rule`, estimator or callable into ``predict(df) -> 0/1``."""
    if isinstance(obj, (Rule, ModelDecider)):
        return obj
    if isinstance(obj, str):
        return Rule(obj)
    if hasattr(obj, "predict"):
        return ModelDecider(obj, features=features, favorable=favorable)
    if callable(obj):
        return obj
    raise InputError(
        f"cannot use {type(obj).__name__} as a decision maker: give a rule expression, a fitted "
        "estimator with predict(), or a callable"
    )


def _table(data: Any) -> Any:
    """A pandas frame or a mapping of columns as given; a polars/pyarrow table as pandas."""
    import pandas as pd

    if isinstance(data, (pd.DataFrame, Mapping)):
        return data
    from .data import to_pandas

    return to_pandas(data)


def predict_binary(decider: Any, data: pd.DataFrame) -> np.ndarray:
    """Apply a decider and check the result is a 0/1 vector of the right length.

    ``decider`` is anything :func:`as_decider` accepts: a rule string, a :class:`Rule`, a
    fitted estimator or a callable; anything else is an :class:`InputError`.
    """
    decider = as_decider(decider)
    data = _table(data)
    out = np.asarray(decider.predict(data) if hasattr(decider, "predict") else decider(data))
    if out.shape != (len(data),):
        raise InputError(f"the decision maker returned shape {out.shape} for {len(data)} rows")
    if not np.isin(out, (0, 1)).all():
        raise InputError("the decision maker must return 0/1 (1 = favourable)")
    return out.astype(np.int8)


def score_decisions(
    frame: pd.DataFrame, column: str, threshold: float, favorable: str | None = "above"
) -> np.ndarray:
    """0/1 decisions (1 = favourable) from a numeric score and a threshold.

    ``favorable="above"`` (default): favourable when ``score >= threshold``; ``"below"``:
    when ``score < threshold``. The threshold belongs to the "above" side either way, so
    ``threshold: 5, favorable: below`` makes COMPAS deciles 1–4 favourable.

    Raises
    ------
    InputError
        When the column is absent, not numeric or has missing values.

    Examples
    --------
    >>> df = pd.DataFrame({"decile": [1, 4, 5, 10]})
    >>> score_decisions(df, "decile", 5, "below").tolist()
    [1, 1, 0, 0]
    """
    import pandas as pd

    if column not in frame.columns:
        raise InputError(f"decision.score: column {column!r} is not in the data")
    values = frame[column]
    if not (pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)):
        raise InputError(
            f"decision.score: column {column!r} is not numeric ({values.dtype}); a score needs "
            "numbers (decimal commas: read the file with decimal: ',')"
        )
    if values.isna().any():
        first = int(np.flatnonzero(values.isna().to_numpy())[0])
        raise InputError(
            f"decision.score: column {column!r} has {int(values.isna().sum())} missing values "
            f"(first at row {first})"
        )
    s = values.to_numpy(dtype=float)
    hit = s < threshold if favorable == "below" else s >= threshold
    return hit.astype(np.int8)


def load_model(
    path: str | os.PathLike,
    trust: str | None = None,
    trusted_types: Sequence[str] = (),
    key: str | None = None,
) -> Any:
    """Load a fitted estimator from a skops or ONNX file (a pickle/joblib only when trusted).

    Parameters
    ----------
    path
        ``.skops``, ``.onnx``, or a pickle/joblib file.
    trust
        ``"pickle"`` to load a pickle/joblib file: unpickling runs any code its author put
        in it, so it is refused otherwise (the message shows how to convert it to skops).
    trusted_types
        skops types to trust beyond scikit-learn's classes and numpy's scalar types.
    key
        The configuration key holding the model, named in error messages (None: the CLI).

    Returns
    -------
    object
        The estimator (an :class:`~primafacie.modelfiles.OnnxModel` for ONNX).

    Raises
    ------
    InputError
        See :func:`primafacie.modelfiles.load_model_file`; also an unfitted estimator.
    """
    from .modelfiles import load_model_file

    loaded = load_model_file(path, trust=trust, trusted_types=trusted_types, key=key)
    check_fitted(loaded.model, str(path))
    return loaded.model


def check_fitted(model: Any, where: str = "the model") -> None:
    """An unfitted scikit-learn estimator is an :class:`InputError` naming ``where``.

    Objects that are not scikit-learn estimators are trusted to be usable.
    """
    try:
        from sklearn.base import BaseEstimator
        from sklearn.exceptions import NotFittedError
        from sklearn.utils.validation import check_is_fitted
    except ImportError:  # pragma: no cover - scikit-learn is a dependency
        return
    if not isinstance(model, BaseEstimator):
        return
    try:
        check_is_fitted(model)
    except NotFittedError as exc:
        raise InputError(
            f"{where}: the {type(model).__name__} in it is not fitted; call fit() before "
            "saving it (skops.io.dump)"
        ) from exc
    except TypeError:  # not an estimator after all
        return
