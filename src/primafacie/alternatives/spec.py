"""``analyses.alternatives`` of audit.yaml: the search's settings, checked with the engine's
own constraints (:data:`~primafacie.alternatives.params.PARAMS`), and the one place where they
become an :class:`AlternativeSearch`.

Besides the engine's parameters the section names two inputs: ``model`` (a model file to refit
instead of ``decision.model``, read by the same loaders) and ``train`` (a data file with the
same columns and the true outcome, on which the candidates are refitted; default: the
top-level ``train:``, else the audited rows).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Literal, Optional

from pydantic import Field, PrivateAttr, field_validator

from ..configbase import Strict as _Strict
from ..configbase import spec_model
from .params import PARAMS

__all__ = ["AlternativesSpec", "ModelFileSpec"]

#: The section's own key of the model file (named in messages about it).
MODEL_KEY = "analyses.alternatives.model"


class ModelFileSpec(_Strict):
    """A model file to refit: skops, or a pickle/joblib with ``trust: pickle`` (read by the
    loaders of ``decision.model``; an ONNX file is read but cannot be refitted)."""

    model: Path
    trust: Optional[Literal["pickle"]] = None
    trusted_types: Optional[list[str]] = None

    key_descriptions: ClassVar[dict[str, str]] = {
        "model": "The model file, relative to audit.yaml.",
        "trust": "pickle: allow this pickle/joblib file, which runs its author's code when "
        "loaded (only for a file you trust).",
        "trusted_types": "skops types to trust beyond scikit-learn's classes.",
    }


class _AlternativesBase(_Strict):
    """The less-discriminatory-alternative search.

    The keys are derived from :data:`primafacie.alternatives.params.PARAMS`, plus ``model`` and
    ``train``.

    Examples
    --------
    >>> AlternativesSpec().tolerance, AlternativesSpec().holdout
    (0.01, 0.3)
    >>> AlternativesSpec(model="other.skops").model.model.name
    'other.skops'
    >>> AlternativesSpec(n_boot=10**9)
    Traceback (most recent call last):
    ...
    pydantic_core._pydantic_core.ValidationError: 1 validation error for AlternativesSpec
    n_boot
      Value error, n_boot must be an integer in [50, 10000]; got 1000000000 (--n-boot, analyses.alternatives.n_boot) ...
    """

    # no ``params: ClassVar`` here (the other specs have one): ``params`` is also a key of this
    # section (the hyperparameter grid); spec_model sets the class attribute to the Param tuple
    nested_specs: ClassVar[tuple[type, ...]] = (ModelFileSpec,)
    #: Keys that are not parameters of the engine (the declared ones are added to these).
    key_descriptions: ClassVar[dict[str, str]] = {
        "model": "A model file to refit instead of decision.model: FILE or {model: FILE, "
        "trust: pickle, trusted_types: [...]} (skops, or a trusted pickle; an ONNX model "
        "cannot be refitted).",
        "train": "A data file with the same columns and the true outcome, on which the "
        "candidates are refitted (read like data:); default: the top-level train:, else the "
        "audited rows with their outcome.",
    }
    #: Set on the section the configuration adds by itself (a model and an outcome were given
    #: and the file has no analyses.alternatives): a model that cannot be refitted then makes
    #: the analysis unavailable instead of failing the audit.
    _by_default: bool = PrivateAttr(default=False)

    @field_validator("model", mode="before", check_fields=False)
    @classmethod
    def _model_file(cls, v: Any) -> Any:
        if isinstance(v, (str, Path)):
            return {"model": v}
        return v

    @property
    def by_default(self) -> bool:
        """Whether the configuration added this section by itself (see the class attributes)."""
        return self._by_default

    def model_files(self) -> list[tuple[str, ModelFileSpec, str]]:
        """``(role, spec, key)`` of the model file this section names (none by default)."""
        return [] if self.model is None else [("alternatives model", self.model, MODEL_KEY)]

    def build(self, data: Any = None, ctx: Any = None) -> Any:
        """The :class:`~primafacie.alternatives.AlternativeSearch` this section configures.

        Examples
        --------
        >>> AlternativesSpec(folds=3).build().folds
        3
        """
        from .engine import AlternativeSearch

        args = self.engine_args()  # the engine takes a tuple and a dict, never None
        return AlternativeSearch(**{**args, "estimators": tuple(args["estimators"] or ()),
                                    "params": dict(args["params"] or {})})  # fmt: skip


AlternativesSpec = spec_model(
    "AlternativesSpec",
    _AlternativesBase,
    PARAMS,
    "alternatives",
    # an empty list (the flag's default, or estimators: [] in the file) asks for no estimator
    normalize={"estimators": lambda v: None if isinstance(v, (list, tuple)) and not v else v},
    nested={
        "model": (Optional[ModelFileSpec], Field(None), "seed"),
        "train": (Optional[Path], Field(None), "seed"),
    },
)
