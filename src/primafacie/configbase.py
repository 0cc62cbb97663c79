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
