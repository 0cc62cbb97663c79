"""Reference groups: whom each protected group is compared with.

``protected:`` takes, per attribute, the protected value(s) with the reference ``rest`` (every
other row, the default), or ``{values: [..], reference: [..] | rest | highest}``:

* a list compares the protected values with the listed values only; rows holding neither are
  left out of that comparison and counted (rows, share and the values they hold);
* ``highest`` is the non-protected value with the highest selection rate (favourable
  decisions / rows), as NYC Local Law 144 compares with the most selected category. Ties are
  broken deterministically: the value with more rows, then the first value in sorted order
  (the order of :func:`primafacie.groupcodes.value_codes`). The value chosen and the rule are
  stated with the comparison.

Examples
--------
>>> split_protected({"sex": "f", "race": {"values": ["b"], "reference": ["w"]}})
({'sex': ('f',), 'race': ('b',)}, {'race': ('w',)})
>>> highest_value(pd.Series(["a", "b", "c", "c"]), np.array([1, 0, 1, 0]), {"a"})
'c'
>>> highest_value(pd.Series(list("abbcccc")), np.array([1, 1, 0, 1, 1, 0, 0]), {"a"})  # tie
'c'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import InputError
from .groupcodes import value_codes
from .weights import check_weights

# pandas is imported in the functions that use it: importing the situation engine must not
# load it (issue 22, start-up); the annotations name it only for type checkers.
if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "HIGHEST",
    "REST",
    "ReferenceMixin",
    "describe",
    "highest_value",
    "parse_reference",
    "split_protected",
]

#: Reference keywords: every non-protected row (the default), or the most selected value.
REST, HIGHEST = "rest", "highest"

#: How ``highest`` breaks ties, stated with every comparison that used it.
TIE_RULE = "ties broken by more rows, then the first value in sorted order"


def _as_tuple(value: Any) -> tuple:
    if isinstance(value, (list, tuple, set, frozenset)):
        return tuple(value)
    return (value,)


def parse_reference(attr: str, reference: Any) -> tuple | str | None:
    """One attribute's reference: a tuple of values, :data:`HIGHEST`, or None for ``rest``.

    Raises
    ------
    InputError
        An empty list, or a mapping (naming the key ``protected.<attr>.reference``).
    """
    if reference is None or (isinstance(reference, str) and reference == REST):
        return None
    if isinstance(reference, str) and reference == HIGHEST:
        return HIGHEST
    if isinstance(reference, Mapping):
        raise InputError(
            f"protected.{attr}.reference: expected a list of values, rest or highest; got a mapping"
        )
    values = _as_tuple(reference)
    if not values:
        raise InputError(
            f"protected.{attr}.reference: the list is empty; list the reference values, or "
            "give rest (every other row) or highest"
        )
    return values


def split_protected(protected: Mapping[str, Any]) -> tuple[dict[str, tuple], dict[str, Any]]:
    """``{attr: value | [values] | {values, reference}}`` -> (protected values, references).

    Attributes compared with ``rest`` have no entry in the references.
    """
    values: dict[str, tuple] = {}
    refs: dict[str, Any] = {}
    for attr, spec in dict(protected).items():
        attr = str(attr)
        if isinstance(spec, Mapping):
            unknown = sorted(set(map(str, spec)) - {"values", "reference"})
            if unknown or "values" not in spec:
                raise InputError(
                    f"protected.{attr}: expected {{values: [..], reference: [..] | rest | "
                    f"highest}}; got keys {sorted(map(str, spec))}"
                )
            values[attr] = _as_tuple(spec["values"])
            ref = parse_reference(attr, spec.get("reference"))
            if ref is not None:
                refs[attr] = ref
        else:
            values[attr] = _as_tuple(spec)
        if not values[attr]:  # no protected row: the attribute would be silently not audited
            key = f"protected.{attr}" + (".values" if isinstance(spec, Mapping) else "")
            raise InputError(
                f"{key}: the list of protected values is empty; list the values of {attr} "
                "whose rows are protected (or remove the attribute)"
            )
    return values, refs


def highest_value(col: pd.Series, yhat: np.ndarray, protected_values: set) -> Any:
    """The non-protected value of ``col`` with the highest selection rate.

    Parameters
    ----------
    col
        The protected attribute's column.
    yhat
        0/1 favourable decision per row.
    protected_values
        The values that are protected, as text (never a reference).

    Returns
    -------
    The value (as in the data). Ties: more rows, then the first in sorted order.
    """
    codes, values = value_codes(col)
    n = np.bincount(codes, minlength=len(values)).astype(float)
    k = np.bincount(codes, weights=np.asarray(yhat, dtype=float), minlength=len(values))
    eligible = np.array([str(v) not in protected_values for v in values])
    if not eligible.any():
        raise InputError(f"reference: highest: every value of {col.name!r} is protected")
    rate = np.where(eligible, k / np.maximum(n, 1), -1.0)
    # lexsort: last key first; the highest rate, then more rows, then the sorted-order index
    order = np.lexsort((np.arange(len(values)), -n, -rate))
    return values[int(order[0])]


def describe(comparison: Mapping[str, Any]) -> str:
    """A comparison in words: ``race: African-American vs Caucasian (1,918 rows (31.0%) of
    other values left out: Hispanic, Other)``.

    Parameters
    ----------
    comparison
        One record of :meth:`primafacie.data.AuditData.comparisons`.
    """
    prot = ", ".join(map(str, comparison["protected"]))
    rule = comparison["rule"]
    if rule == REST:
        return f"{comparison['attribute']}: {prot} vs every other value"
    ref = ", ".join(map(str, comparison["reference"]))
    text = f"{comparison['attribute']}: {prot} vs {ref}"
    if rule == HIGHEST:
        text += f" (the non-protected value with the highest selection rate; {TIE_RULE})"
    left = int(comparison["left_out"])
    if left:
        named = ", ".join(map(str, comparison["left_out_values"][:8]))
        more = " …" if len(comparison["left_out_values"]) > 8 else ""
        text += (
            f" ({left:,} rows ({100 * comparison['left_out_share']:.1f}%) of other values left "
            f"out: {named}{more})"
        )
    else:
        text += " (no row left out)"
    return text


class ReferenceMixin:
    """The reference groups and weights of :class:`~primafacie.data.AuditData` (its methods
    live here to keep the table class small; they use its ``frame``, ``protected``,
    ``reference``, ``weights`` and masks)."""

    frame: pd.DataFrame
    protected: dict[str, tuple]
    reference: dict[str, Any]
    weights: str | None
    # set by AuditData to its module's value matching, which this module cannot import (cycle)
    _check_listed: Callable[..., None]
    _matches: Callable[[pd.Series, tuple], np.ndarray]

    def _validate_references(self) -> None:
        """Reference values exist as written and are not protected; highest has a decision;
        the weights column is valid."""
        if self.weights is not None:
            self._require_column(self.weights, "weights")
            if self.weights in set(self.features) | set(self.protected):
                raise InputError(f"weights column {self.weights!r} also has another role")
            check_weights(self.frame[self.weights], self.weights)
        for attr, ref in self.reference.items():
            if attr not in self.protected:
                raise InputError(
                    f"reference given for {attr!r}, which is not a protected attribute; "
                    f"protected: {list(self.protected)}"
                )
            if ref == HIGHEST:
                if self.decision is None:
                    raise InputError(
                        f"protected.{attr}.reference: highest needs the decision (the value with "
                        "the highest selection rate)"
                    )
                continue
            col = self.frame[attr]
            self._check_listed(col, attr, ref, "protected", f"protected.{attr}.reference value")
            both = sorted({str(v) for v in ref} & {str(v) for v in self.protected[attr]})
            if both:
                raise InputError(
                    f"protected.{attr}: value(s) {both} are both protected and reference; a "
                    "value is in one of the two groups"
                )

    def weights_array(self) -> np.ndarray | None:
        """The sample weights as float64 (None without a weights column)."""
        if self.weights is None:
            return None
        return check_weights(self.frame[self.weights], self.weights)

    def reference_values(self, attribute: str) -> tuple | None:
        """The reference values of ``attribute``: the listed values, the value ``highest``
        chose, or None when the reference is every non-protected row (``rest``)."""
        ref = self.reference.get(attribute)
        if ref != HIGHEST:
            return ref
        if attribute not in self._highest:
            prot = {str(v) for v in self.protected[attribute]}
            col = self.frame[attribute]
            self._highest[attribute] = (highest_value(col, self.decision_array(), prot),)
        return self._highest[attribute]

    def reference_mask(self, attribute: str) -> np.ndarray:
        """Boolean mask of the reference group of ``attribute`` (every non-protected row for
        ``rest``)."""
        values = self.reference_values(attribute)
        if values is None:
            return ~self.protected_mask(attribute)
        return self._matches(self.frame[attribute], values)

    def comparison_mask(self) -> np.ndarray:
        """Rows that are protected or reference on every attribute with a listed (or
        ``highest``) reference: the rows of the comparisons (all rows without one)."""
        mask = np.ones(self.n, dtype=bool)
        for attr in self.reference:
            mask &= self.protected_mask(attr) | self.reference_mask(attr)
        return mask

    def comparisons(self) -> list[dict[str, Any]]:
        """Each protected attribute's comparison: protected and reference values, the rule
        (``rest``, ``listed`` or ``highest``), and the rows left out (count, share, values)."""
        import pandas as pd

        out = []
        for attr, values in self.protected.items():
            ref = self.reference_values(attr)
            rule = self.reference.get(attr)
            record: dict[str, Any] = {
                "attribute": attr,
                "protected": [str(v) for v in values],
                "rule": REST if rule is None else (HIGHEST if rule == HIGHEST else "listed"),
                "reference": REST if ref is None else [str(v) for v in ref],
                "n": int(self.n),
            }
            inside = self.protected_mask(attr) | self.reference_mask(attr)
            left = self.frame[attr][~inside]
            record["left_out"] = int((~inside).sum())
            record["left_out_share"] = float((~inside).mean())
            record["left_out_values"] = sorted(map(str, pd.unique(left)))
            out.append(record)
        return out

    def compared(self) -> ReferenceMixin:
        """The rows of the comparisons only (:meth:`comparison_mask`), every reference then
        being the rest of the rows; ``self`` when no attribute has a listed reference.

        The rows keep their identity: without an id column, a column ``__row__`` holds each
        row's position in this table and becomes the id, so a complainant or a control is
        named by its row in the audited data. ``comparison_info`` holds :meth:`comparisons`.
        """
        if not self.reference:
            return self
        if self._compared is not None:
            return self._compared
        info = self.comparisons()
        mask = self.comparison_mask()
        frame = self.frame
        id_column = self.id_column
        if id_column is None:
            id_column = "__row__"
            while id_column in frame.columns:  # a data column of that name stays untouched
                id_column = f"_{id_column}_"
            frame = frame.assign(**{id_column: np.arange(self.n)})
        out = self.replace(
            frame=frame.loc[mask].reset_index(drop=True),
            protected=dict(self.protected),
            reference={},
            id_column=id_column,
        )
        out.comparison_info = info
        self._compared = out
        return out
