"""How ŷ is obtained: a recorded column, a fitted estimator, or a safe rule expression.

A rule such as ``AnnualSalary + 5 * AccountBalance > 225000`` is parsed into a syntax tree and
evaluated by a whitelist walker over numpy columns: arithmetic, comparisons, boolean
operators, column names and literal numbers/strings only. Nothing is ever passed to ``eval``.
"""

from __future__ import annotations

import ast
import operator
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .errors import InputError

__all__ = ["Rule", "ModelDecider", "as_decider", "load_model", "predict_binary"]

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


class Rule:
    """A decision rule over named columns, parsed without ``eval``.

    Parameters
    ----------
    expression
        e.g. ``"AnnualSalary + 5 * AccountBalance > 225000"``. Allowed: numbers, quoted
        strings (for equality tests), column names, ``+ - * / // % **``, comparisons
        (chains too), ``and``/``or``/``not`` and parentheses. Function calls, attribute
        access, subscripts and everything else are rejected with a message naming them.

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
        try:
            self._tree = ast.parse(expression.strip(), mode="eval")
        except SyntaxError as exc:
            raise InputError(f"rule {expression!r} is not a valid expression: {exc.msg}") from exc
        names: set[str] = set()
        for node in ast.walk(self._tree):
            self._check(node, names)
        if not names:
            raise InputError(f"rule {expression!r} uses no column")
        self.columns = tuple(sorted(names))

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
            return _BINOPS[type(node.op)](self._eval(node.left, env), self._eval(node.right, env))
        if isinstance(node, ast.UnaryOp):
            return _UNARY[type(node.op)](self._eval(node.operand, env))
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
            for op, comp in zip(node.ops, node.comparators, strict=True):
                right = self._eval(comp, env)
                result = np.logical_and(result, _CMPOPS[type(op)](left, right))
                left = right
            return result
        raise InputError(f"rule {self.expression!r}: cannot evaluate {type(node).__name__}")

    def evaluate(self, data: pd.DataFrame | dict[str, Any]) -> np.ndarray:
        """Value of the expression on every row (numeric or boolean array)."""
        missing = [c for c in self.columns if c not in data]
        if missing:
            raise InputError(
                f"rule {self.expression!r} uses column(s) {missing} that are not in the data"
            )

        def env(name: str) -> np.ndarray:
            values = data[name]
            return values.to_numpy() if hasattr(values, "to_numpy") else np.asarray(values)

        n = len(data) if isinstance(data, pd.DataFrame) else len(np.asarray(data[self.columns[0]]))
        out = np.asarray(self._eval(self._tree, env))
        return np.broadcast_to(out, (n,)).copy() if out.ndim == 0 else out

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
        self.estimator = estimator
        if features is None and hasattr(estimator, "feature_names_in_"):
            features = list(estimator.feature_names_in_)
        self.features = None if features is None else list(features)
        self.favorable = _model_label(estimator, favorable)

    def predict(self, data: pd.DataFrame) -> np.ndarray:
        """Favourable indicator (int8 0/1) of the estimator's predictions on ``data``."""
        X = data
        if self.features is not None:
            missing = [c for c in self.features if c not in data]
            if missing:
                raise InputError(f"the model needs column(s) {missing} that are not in the data")
            X = data[self.features]
        raw = np.asarray(self.estimator.predict(X))
        if raw.shape[0] != len(data):
            raise InputError(f"the model returned {raw.shape[0]} predictions for {len(data)} rows")
        values = np.unique(raw)
        if len(values) > 2:
            raise InputError(
                f"the model's predictions must be binary; got {len(values)} distinct values "
                f"such as {values[:5].tolist()}"
            )
        return (raw == self.favorable).astype(np.int8)

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


def predict_binary(decider: Any, data: pd.DataFrame) -> np.ndarray:
    """Apply a decider and check the result is a 0/1 vector of the right length."""
    out = np.asarray(
        as_decider(decider).predict(data) if hasattr(decider, "predict") else decider(data)
    )
    if out.shape != (len(data),):
        raise InputError(f"the decision maker returned shape {out.shape} for {len(data)} rows")
    if not np.isin(out, (0, 1)).all():
        raise InputError("the decision maker must return 0/1 (1 = favourable)")
    return out.astype(np.int8)


def load_model(path: str | os.PathLike) -> Any:
    """Load a fitted estimator from a joblib/pickle file.

    Unpickling runs code stored in the file: it is done only because the user named this file.
    """
    import joblib

    path = Path(path)
    if not path.is_file():
        raise InputError(f"model file not found: {path}")
    with open(path, "rb") as fh:
        head = fh.read(512)
    try:
        model = joblib.load(path)
    except Exception as exc:
        # pickles of protocol 0/1 and bz2/lzma joblib files also start with ASCII bytes, so a
        # file is called a text table only once it failed to load
        if head and all(b >= 0x20 or b in (9, 10, 13) for b in head):
            first = head.splitlines()[0][:60].decode("utf-8", "replace") if head.strip() else ""
            raise InputError(
                f"{path} does not look like a joblib/pickle model file (it is text starting "
                f"{first!r}); --model expects a fitted estimator saved with joblib.dump, not a "
                "data table"
            ) from exc
        raise InputError(
            f"cannot load model {path} as a joblib/pickle file: {type(exc).__name__}: {exc}"
        ) from exc
    if not hasattr(model, "predict"):
        raise InputError(f"the object in {path} ({type(model).__name__}) has no predict() method")
    return model
