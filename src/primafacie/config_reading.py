"""How an :class:`~primafacie.config.AuditConfig` reads its data: the columns it uses, the
rows ``where`` and ``dropna`` keep, and the decision a score, model or rule gives.

A mixin of ``AuditConfig``, kept apart so the configuration model holds its keys and checks
and this module the reading; it reads only the configuration's fields.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .data import AuditData, _parse_feature, drop_missing, read_table, table_columns, to_pandas
from .data_dictionary import compact
from .decisions import ModelDecider, Rule, score_decisions
from .errors import InputError
from .formats import listing

__all__ = ["DataReading"]


class DataReading:
    """The data-reading methods of ``AuditConfig`` (see :mod:`primafacie.config`)."""

    def used_columns(self, available: Sequence[str]) -> list[str] | None:
        """The columns of the data file this audit reads (column projection).

        The role columns (features, protected attributes, decision, outcome, id), the columns
        of every rule and of every model (its ``feature_names_in_``), the certainty
        decision-makers' columns, and any column of the file named anywhere in the analyses
        or causal sections (e.g. ``principal.covariates``): a section's column-valued keys are
        found by name, so a new analysis key needs no edit here.

        Parameters
        ----------
        available
            The file's columns (:func:`~primafacie.data.table_columns`).

        Returns
        -------
        list of str or None
            The used columns in file order; ``None`` (read every column) when the
            configuration names a column the file lacks, so that the error raised later
            lists every column and suggests the closest one, exactly as without projection.

        Examples
        --------
        >>> from primafacie.config import AuditConfig
        >>> cfg = AuditConfig.model_validate({
        ...     "data": "loans.csv", "decision": {"rule": "salary > 10"},
        ...     "features": {"region": "categorical"}, "protected": {"gender": "f"},
        ...     "analyses": {"principal": {"covariates": ["region"]}}, "outcome": "repaid"})
        >>> cfg.used_columns(["id", "salary", "gender", "region", "repaid", "notes"])
        ['salary', 'gender', 'region', 'repaid']
        >>> cfg.used_columns(["salary", "gender", "repaid"]) is None  # 'region' is missing
        True
        """
        present = [str(c) for c in available]
        named = [*self.features, *self.protected]
        named += [
            c
            for c in (
                self.decision.column, self.decision.score, self.outcome, self.id, self.weights
            )
            if c
        ]  # fmt: skip
        if self.where:
            named.extend(Rule(self.where).columns)
        if self.time is not None:
            named.append(self.time.source)
        if isinstance(self.dropna, list):
            named.extend(self.dropna)
        deciders = [self.decider(), *self.decision_makers().values()]
        for _, spec, key in self.section_models():  # a model to refit reads columns too
            deciders.append(self.model_file(spec, key).model)
        for dm in deciders:
            if isinstance(dm, str):  # a decision-maker's recorded column
                named.append(dm)
            elif isinstance(dm, Rule):
                named.extend(dm.columns)
            elif getattr(dm, "features", None) is not None:  # a ModelDecider
                named.extend(map(str, dm.features))
            elif getattr(dm, "feature_names_in_", None) is not None:  # a bare estimator
                named.extend(map(str, dm.feature_names_in_))
        known = set(present)
        if any(c not in known for c in named):
            return None
        sections = [self.analyses.model_dump(), self.causal.model_dump() if self.causal else {}]
        named_anywhere = _strings(sections) & known
        wanted = set(named) | named_anywhere
        return [c for c in present if c in wanted]

    def read_frame(self, all_columns: bool = False, encoded: bool = False) -> pd.DataFrame:
        """The data table as read from disk (never modified).

        Parameters
        ----------
        all_columns
            Read every column; by default only :meth:`used_columns` are read, so a wide
            Parquet table costs only the bytes of the audited columns.
        encoded
            Hold the low-cardinality text columns of :meth:`dictionary_columns`
            dictionary-encoded (:mod:`primafacie.data_dictionary`); by default every column
            as read.

        Returns
        -------
        pandas.DataFrame
        """
        opts = self.data_options
        dictionary = self.dictionary_columns() if encoded else []
        if all_columns:
            return read_table(self.data_path, dictionary=dictionary, **opts)
        listed = {k: v for k, v in opts.items() if k != "decimal"}
        columns = self.used_columns(table_columns(self.data_path, **listed))
        return read_table(self.data_path, columns=columns, dictionary=dictionary, **opts)

    def dictionary_columns(self) -> list[str]:
        """The columns the audit may hold dictionary-encoded, by their declared role: the
        categorical and ordinal features, the protected attributes, the recorded decision
        and the outcome; never the id, weights or time, and none a model file reads (a model
        gets the frame as before: with a model file, none).

        Returns
        -------
        list of str

        Examples
        --------
        >>> from primafacie.config import AuditConfig
        >>> cfg = AuditConfig.model_validate({
        ...     "data": "loans.csv", "decision": {"column": "approved"}, "id": "gender",
        ...     "features": {"region": "categorical", "salary": "numeric"},
        ...     "protected": {"gender": "f"}, "outcome": "repaid"})
        >>> cfg.dictionary_columns()
        ['region', 'approved', 'repaid']
        """
        if self.model_files():
            return []
        names = [
            name
            for name, kind in self.feature_spec().items()
            if _parse_feature(name, kind).kind != "numeric"
        ]
        names += [*self.protected, self.decision.column or "", self.outcome or ""]
        never = {self.id, self.weights, self.time.source if self.time is not None else None}
        return [n for n in dict.fromkeys(names) if n and n not in never]

    def audit_data(self, frame: pd.DataFrame | None = None) -> AuditData:
        """Build the :class:`AuditData`; ŷ is computed from the model or rule when needed.

        Parameters
        ----------
        frame
            The table (pandas, polars or pyarrow); by default the configured file, reading
            only the columns the audit uses (:meth:`read_frame`).

        Returns
        -------
        AuditData
        """
        frame = self.read_frame(encoded=True) if frame is None else to_pandas(frame)
        frame = self.filtered(frame)
        frame = drop_missing(frame, self.dropna_columns(frame), list(self.protected))
        frame = compact(frame, frame.attrs.get("encoded_columns", ()))
        favorable: Any = self.favorable
        if self.decision.score is not None:
            frame = frame.copy()
            frame[self.decision_column] = score_decisions(
                frame, self.decision.score, self.decision.threshold, self.decision.favorable
            )
            favorable = 1
        decider = self.decider()
        if isinstance(decider, Rule):  # a quoted value the data never spell: always true/false
            check_spellings_of(decider, frame, f"decision.rule {decider.expression!r}:")
        if decider is not None:
            # a new frame whose columns share the read's (pandas' copy-on-write: the decision
            # column set below is the new frame's alone), not a copy of every column: 46 B
            # per row at once beside the rule's temporaries (docs/scaling.md)
            frame = frame.copy(deep=False)
            try:
                if isinstance(decider, ModelDecider):
                    decider.check_columns(list(frame.columns), declared=list(self.features))
                    if decider.features is None:
                        decider.features = list(self.features)
                frame[self.decision_column] = np.asarray(decider.predict(frame), dtype=np.int8)
            except InputError as exc:
                source = self.resolve(self.decision.model) if self.decision.model else None
                raise InputError(_with_source(exc, source)) from None
            favorable = 1
        if isinstance(decider, ModelDecider) and not frame[self.decision_column].any():
            self._check_labels(decider, frame)  # no row favoured: the wrong label, or a finding
        return AuditData(
            frame,
            features=self.feature_spec(),
            protected=self.protected_spec(),
            weights=self.weights,
            decision=self.decision_column,
            favorable=favorable,
            outcome=self.outcome,
            outcome_favorable=self.outcome_favorable,
            id_column=self.id,
            max_levels=self.max_levels,
        )

    def _check_labels(self, decider: ModelDecider, frame: pd.DataFrame) -> None:
        """A model that favours no row: a finding when it predicts only its other label (the
        audit warns, every decision unfavourable), but the wrong ``favorable:`` when the label
        is not one the model knows, or it has no list of labels and never predicts it (a
        regressor predicting {0, 2} with ``favorable: 1`` ran to "No evidence", exit 0)."""
        head = frame[decider.features].head(100_000) if decider.features else frame.head(100_000)
        values = np.unique(np.asarray(decider.estimator.predict(head))).tolist()
        classes = getattr(decider.estimator, "classes_", None)
        if classes is not None and set(values) <= set(np.asarray(classes).tolist()):
            return
        raise InputError(
            f"decision.model {self.decision.model}: the model predicts the favourable label "
            f"{self.favorable!r} (favorable:) for none of the {len(frame):,} audited rows; it "
            f"predicts {listing(map(repr, values), 5)}, so no decision would be favourable. "
            "Give favorable: the model's label for the favourable decision"
        )

    def filtered(self, frame: pd.DataFrame) -> pd.DataFrame:
        """The rows ``where`` selects (all rows without it), index reset.

        Raises
        ------
        InputError
            When the filter selects no row (an audit of nobody), naming the filter.
        """
        if not self.where:
            return frame
        try:
            rule = Rule(self.where)
            check_spellings_of(rule, frame, f"where: {self.where!r}:")
            keep = rule.predict(frame).astype(bool)
        except InputError as exc:
            raise InputError(exc if str(exc).startswith("where:") else f"where: {exc}") from None
        if not keep.any():
            raise InputError(f"where: {self.where!r} selects none of the {len(frame)} rows")
        out = frame.loc[keep].reset_index(drop=True)
        # carried to data_info (results.json): the rows the filter left out, and the filter
        out.attrs["where"] = {
            "filter": self.where,
            "rows_read": len(frame),
            "left_out": int((~keep).sum()),
        }
        return out

    def dropna_columns(self, frame: pd.DataFrame) -> list[str]:
        """The columns whose missing values drop a row: ``dropna: [columns]``, or with
        ``dropna: true`` the audited ones (features, protected attributes, decision, score,
        outcome, id and the rule's columns) present in ``frame``; none without ``dropna``.

        Raises
        ------
        InputError
            When ``dropna`` lists a column the data lack (naming the key and the column).
        """
        if self.dropna is False:
            return []
        if isinstance(self.dropna, list):
            absent = [c for c in self.dropna if c not in frame.columns]
            if absent:
                raise InputError(
                    f"dropna: column {absent[0]!r} is not in the data; columns are: "
                    + ", ".join(map(str, frame.columns))
                )
            return list(dict.fromkeys(self.dropna))
        named = [*self.features, *self.protected]
        named += [c for c in (self.decision.column, self.decision.score, self.outcome, self.id)
                  if c]  # fmt: skip
        if self.decision.rule is not None:
            named.extend(Rule(self.decision.rule).columns)
        return [c for c in dict.fromkeys(named) if c in frame.columns]


def _strings(doc: Any) -> set[str]:
    """Every string (mapping key or value) in a nested structure of dicts and lists."""
    out: set[str] = set()
    stack = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            out.add(node)
        elif isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, (list, tuple, set)):
            stack.extend(node)
    return out


def _with_source(exc: InputError, path: Path | None) -> str:
    """The message of ``exc`` prefixed with the model file (``decision.model``) when known."""
    msg = str(exc)
    if path is None or str(path) in msg:
        return msg
    return f"decision.model {path}: {msg}"


def check_spellings_of(rule: Rule, frame: pd.DataFrame, where: str) -> None:
    """Every quoted value the rule compares a column with occurs in that column as written,
    as protected and favourable values must (:func:`~primafacie.data.check_listed_values`):
    ``region != 'Urban'`` on data that spell it ``urban`` kept every row, silently.

    Raises
    ------
    InputError
        Headed by ``where`` (the setting), naming the column, the value and, when it matches
        only after case or space folding, the data's spelling.
    """
    from .data import check_listed_values

    for column, text in rule.text_comparisons():
        if column in frame.columns:  # an unknown column is the rule's own error
            check_listed_values(frame[column], column, (text,), "compared", f"{where} the value")
