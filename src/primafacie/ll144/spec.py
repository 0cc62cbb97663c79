"""``analyses.ll144`` of audit.yaml: the Local Law 144 bias audit's settings."""

from __future__ import annotations

import datetime as _dt
from typing import Any, ClassVar, Optional, Union

from pydantic import field_validator

from ..configbase import Scalar
from ..configbase import Strict as _Strict

__all__ = ["LL144Spec"]


class LL144Spec(_Strict):
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
      Value error, analyses.ll144.categories: give at least one {label: column}, e.g. {sex: gender, race/ethnicity: race} ...
    """

    key_descriptions: ClassVar[dict[str, str]] = {
        "categories": "{label: column} of the rule's categories, e.g. {sex: gender, "
        "race/ethnicity: race}; their combinations are the intersectional categories.",
        "score": "false: selection rates from the audited decision; true: the decision column "
        "is a score; or a score column. Scores give scoring rates (share above the median).",
        "exclude_below": "Categories under this share of the data are listed but left out of "
        "the impact ratios, as the rule allows (0.02); 0 keeps them all.",
        "unknown": "Values meaning an unknown category (blank cells always do); counted apart.",
        "audit_date": "Date of the bias audit (YYYY-MM-DD), printed on the summary.",
        "distribution_date": "Distribution date of the tool audited (YYYY-MM-DD).",
        "data_source": "Where the data came from (historical data of the employer, test data).",
    }

    categories: dict[str, str]
    score: Union[bool, str] = False
    exclude_below: float = 0.02
    unknown: list[Scalar] = []
    audit_date: Optional[str] = None
    distribution_date: Optional[str] = None
    data_source: Optional[str] = None

    @field_validator("categories")
    @classmethod
    def _some(cls, v: dict[str, str]) -> dict[str, str]:
        if not v:
            raise ValueError(
                "analyses.ll144.categories: give at least one {label: column}, e.g. "
                "{sex: gender, race/ethnicity: race}"
            )
        return v

    @field_validator("exclude_below")
    @classmethod
    def _share(cls, v: float) -> float:
        if not 0 <= v < 0.5:
            raise ValueError(f"analyses.ll144.exclude_below must be in [0, 0.5); got {v}")
        return v

    @field_validator("audit_date", "distribution_date")
    @classmethod
    def _date(cls, v: Any, info: Any) -> Any:
        if v is not None:
            try:
                _dt.date.fromisoformat(str(v))
            except ValueError:
                raise ValueError(
                    f"analyses.ll144.{info.field_name} must be a date YYYY-MM-DD; got {v!r}"
                ) from None
            return str(v)
        return v

    def build(self, data: Any = None, ctx: Any = None) -> Any:
        """The :class:`~primafacie.ll144.LL144Tables` this section configures."""
        from .engine import LL144Tables

        return LL144Tables(self.categories, self.exclude_below, self.unknown)
