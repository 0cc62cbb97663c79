"""``analyses.ll144`` of audit.yaml: the Local Law 144 bias audit's settings.

The keys are derived from :data:`primafacie.ll144.params.PARAMS` (type, default, constraint,
description); this module adds only how the section becomes an engine.
"""

from __future__ import annotations

from typing import Any

from ..configbase import Strict as _Strict
from ..configbase import spec_model
from .params import ENGINE_PARAMS, PARAMS

__all__ = ["LL144Spec"]

_ENGINE_ARGS = tuple(p.name for p in ENGINE_PARAMS)


class _LL144Base(_Strict):
    """NYC Local Law 144 bias audit tables.

    Examples
    --------
    >>> LL144Spec(categories={"sex": "gender"}).exclude_below
    0.02
    >>> LL144Spec(categories={})
    Traceback (most recent call last):
    ...
    pydantic_core._pydantic_core.ValidationError: 1 validation error for LL144Spec
    categories
      Value error, categories must be a non-empty mapping {label: column}, e.g. {sex: gender, race/ethnicity: race}; got {} (--category, analyses.ll144.categories) ...
    """

    def build(self, data: Any = None, ctx: Any = None) -> Any:
        """The :class:`~primafacie.ll144.LL144Tables` this section configures.

        Examples
        --------
        >>> LL144Spec(categories={"sex": "gender"}, unknown=["?"]).build()
        LL144Tables(categories={'sex': 'gender'}, unknown=['?'])
        """
        from .engine import LL144Tables

        args = self.engine_args()
        return LL144Tables(**{name: args[name] for name in _ENGINE_ARGS})


def _date_text(value: Any) -> Any:
    # YAML reads 2026-11-26 as a date; the summary prints the text
    return value if value is None else str(value)


LL144Spec = spec_model(
    "LL144Spec", _LL144Base, PARAMS, "ll144",
    normalize={"audit_date": _date_text, "distribution_date": _date_text},
)  # fmt: skip
