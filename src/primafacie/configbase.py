"""The base of every ``audit.yaml`` model: strict keys, frozen, plus the decision-source model.

Kept apart from :mod:`primafacie.config` so that each analysis' spec module (``situation/spec.py``
...) can build on it without importing the whole configuration (no import circle).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, model_validator

from .decisions import Rule
from .errors import InputError

__all__ = ["Strict", "DecisionSpec", "Scalar"]

Scalar = Union[bool, int, float, str]


class Strict(BaseModel):
    """Strict keys (an unknown key is an error naming it), frozen values."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class DecisionSpec(Strict):
    """Where ŷ comes from: exactly one of a recorded ``column``, a ``model`` file or a ``rule``.

    A model file is skops or ONNX; a pickle/joblib file only with ``trust: pickle`` (it runs
    its author's code when loaded). ``trusted_types`` lists skops types to trust beyond
    scikit-learn's classes (see :mod:`primafacie.modelfiles`).
    """

    column: Optional[str] = None
    model: Optional[Path] = None
    rule: Optional[str] = None
    trust: Optional[Literal["pickle"]] = None
    trusted_types: Optional[list[str]] = None

    @model_validator(mode="after")
    def _exactly_one(self) -> DecisionSpec:
        given = [k for k in ("column", "model", "rule") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one of column, model or rule (got {given or 'none'})")
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
