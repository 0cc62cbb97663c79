"""The tables a Local Law 144 bias audit publishes (6 RCNY §5-300, §5-301).

Definitions of the rule (§5-300): a *selection rate* is the rate at which individuals in a
category are selected to move forward or assigned a classification; a *scoring rate* is the
rate at which individuals in a category receive a score above the sample's median score; an
*impact ratio* is a category's selection (or scoring) rate divided by the rate of the most
selected category. The audit reports them for each sex category, each race/ethnicity category
and each intersectional category (§5-301). An auditor may exclude a category that represents
less than 2% of the data from the impact-ratio calculations, and then reports its count and
rate; the number of individuals in an unknown category is reported separately.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._renamed import renamed_argument
from ..base import Engine, as_audit_data
from ..errors import InputError
from ..groupcodes import SEP, combination_label, cross_codes, value_codes
from .params import DEFAULT_EXCLUDE_BELOW, PARAMETER_CONSTRAINTS, WHERE
from .results import LL144Result

__all__ = ["LL144Tables"]


class LL144Tables(Engine):
    """Selection (or scoring) rates and impact ratios per category, as the rule defines them.

    Parameters
    ----------
    categories
        ``{dimension label: column}``, e.g. ``{"sex": "gender", "race/ethnicity": "race"}``.
        Every combination of the dimensions is an intersectional category.
    exclude_below
        Categories holding less than this share of the data (among individuals of known
        category) are listed with their counts and rates but left out of the impact ratios
        (and cannot be the highest); 0 keeps every category.
    unknown
        Values that mean "unknown category" (blank cells always do); counted apart and left out
        of the rates.

    Examples
    --------
    >>> df = pd.DataFrame({"sex": ["F"] * 4 + ["M"] * 4, "sel": [1, 0, 0, 0, 1, 1, 0, 1]})
    >>> res = LL144Tables({"sex": "sex"}).run(df, df["sel"].to_numpy())
    >>> res.table[["category", "n", "k", "rate", "impact_ratio"]].to_string(index=False)
    'category  n  k  rate  impact_ratio\\n       F  4  1  0.25      0.333333\\n       M  4  3  0.75      1.000000'
    """

    _parameter_constraints = PARAMETER_CONSTRAINTS
    _where = WHERE

    def __init__(
        self,
        categories: Mapping[str, str],
        exclude_below: float = DEFAULT_EXCLUDE_BELOW,
        unknown: Sequence[Any] = (),
    ) -> None:
        self._store_params(locals())  # as given; checked at run against the declarations

    def _known(self, col: pd.Series) -> np.ndarray:
        """Rows of known category: not blank and not a listed unknown value."""
        blank = (
            col.isna().to_numpy() | (col.astype("string").str.strip().fillna("") == "").to_numpy()
        )
        listed = col.astype(str).isin([str(v) for v in self.unknown]).to_numpy()
        return ~(blank | listed)

    def _check_unknown(self, frame: pd.DataFrame) -> None:
        """Every listed unknown value must occur in some category column, as spelled."""
        present = set()
        for c in self.categories.values():
            present |= set(frame[c].dropna().astype(str))
        missing = [v for v in self.unknown if str(v) not in present]
        if missing:
            raise InputError(
                f"analyses.ll144.unknown: {missing} occur in no category column "
                f"({', '.join(self.categories.values())}); their values: {sorted(present)[:12]}"
            )

    def run(self, data: pd.DataFrame | Any = None, selected: np.ndarray | None = None,
            score: Any = None, *, frame: Any = None) -> LL144Result:  # fmt: skip
        """The rule's tables for ``data``.

        Parameters
        ----------
        data
            One row per individual assessed, with the category columns: a pandas, polars or
            pyarrow table, or an :class:`~primafacie.data.AuditData` (its table is used).
        selected
            0/1 per row: selected (favourable decision). Give this or ``score``.
        score
            A score per row: the rates become scoring rates (score above the median of the
            individuals of known category on every dimension).
        frame
            Former name of ``data`` (every engine's ``run`` takes ``data``): read for one
            release with a DeprecationWarning; giving both is an error naming both.

        Returns
        -------
        LL144Result
        """
        if frame is not None:
            renamed_argument(f"{type(self).__name__}.run", "frame", "data")
            if data is not None:
                raise InputError(f"{type(self).__name__}.run: give data only (got both data and "
                                 "the deprecated frame)")  # fmt: skip
            data = frame
        self._validate_params()
        frame = as_audit_data(data, owner=type(self).__name__).frame
        missing = [c for c in self.categories.values() if c not in frame.columns]
        if missing:
            raise InputError(f"ll144.categories: columns {missing} are not in the data")
        if (selected is None) == (score is None):
            raise InputError("LL144Tables.run: give selected (0/1 per row) or score")
        self._check_unknown(frame)
        known = {d: self._known(frame[c]) for d, c in self.categories.items()}
        all_known = np.logical_and.reduce(list(known.values()))
        median = None
        if score is not None:
            s = np.asarray(score, dtype=float)
            if np.isnan(s[all_known]).any():
                raise InputError("ll144: the score has missing values among known categories")
            median = float(np.median(s[all_known]))
            hit = s > median
        else:
            hit = np.asarray(selected).astype(bool)
        frames, unknown = [], {}
        dims = list(self.categories)
        for combo in [[d] for d in dims] + ([dims] if len(dims) > 1 else []):
            label = SEP.join(combo)
            mask = np.logical_and.reduce([known[d] for d in combo])
            unknown[label] = int((~mask).sum())
            frames.append(self._dimension(frame, combo, label, mask, hit))
        table = pd.concat(frames, ignore_index=True)
        return LL144Result(
            table=table,
            unknown=unknown,
            n=int(len(frame)),
            scoring=score is not None,
            median=median,
            exclude_below=float(self.exclude_below),
            categories=dict(self.categories),
        )

    def _dimension(self, frame, combo, label, mask, hit) -> pd.DataFrame:
        """One dimension's (or the intersection's) categories with rates and impact ratios."""
        cols = [self.categories[d] for d in combo]
        codes, values = [], []
        for c in cols:
            code, uniq = value_codes(frame[c][mask].astype(str))
            codes.append(code)
            values.append(uniq)
        group, parts = cross_codes(codes, [len(v) for v in values])
        n = np.bincount(group, minlength=len(parts))
        k = np.bincount(group, weights=hit[mask].astype(float), minlength=len(parts)).astype(
            np.int64
        )
        rate = k / n
        share = n / max(int(mask.sum()), 1)
        excluded = share < self.exclude_below
        top = np.where(excluded, -np.inf, rate)
        best = float(top.max()) if np.isfinite(top.max()) else np.nan
        with np.errstate(invalid="ignore", divide="ignore"):
            # no ratio when every category is excluded or nobody was selected
            ratio = np.where(excluded, np.nan, rate / best) if best > 0 else np.full(len(n), np.nan)
        labels = [
            combination_label(v[i] for v, i in zip(values, row, strict=True)) for row in parts
        ]
        return pd.DataFrame(
            {
                "dimension": label,
                "category": labels,
                "n": n,
                "k": k,
                "rate": rate,
                "share": share,
                "excluded": excluded,
                "impact_ratio": ratio,
                "highest": ~excluded & (rate == best),
            }
        )
