"""The counterfactual queries of a fitted :class:`~primafacie.causal.scm.SCM`: abduction of
the noise, action ``do(A := a)`` and prediction of the descendants in topological order.

:class:`SCMCounterfactuals` reads the fitted state (``dag_``, ``mechanisms_``,
``categories_``, ``clip_``, ``round_``) and never changes it: mechanisms are fitted once on
the factual data and never refitted on counterfactual data.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..data import AuditData, to_pandas
from ..errors import InputError
from . import encoding, frames

__all__ = ["SCMCounterfactuals"]


class SCMCounterfactuals:
    """Abduction, action and prediction over the nodes of a fitted SCM, vectorised over rows.

    A part of :class:`~primafacie.causal.scm.SCM` (not used alone): every public method needs
    :meth:`SCM.fit` to have run.
    """

    # ------------------------------------------------------------------ encoding
    def _design(self, node: str, vals: Mapping[str, np.ndarray]) -> np.ndarray:
        """Mechanism input of ``node`` from encoded parents (codes or floats)."""
        return encoding.design(self.dag_.parents[node], vals, self.categories_)

    def _factual(self, frame: pd.DataFrame, node: str, idx: np.ndarray | None) -> np.ndarray:
        col = frame[node]
        if node in self.categories_:
            # coded from the column itself: a text column becomes no object array first
            if idx is not None and len(idx) != len(col):
                col = col.iloc[idx]
            return encoding.codes(node, col, self.categories_[node])
        vals = col.to_numpy()
        if idx is not None and len(idx) != len(vals):
            vals = vals[idx]
        return np.asarray(vals, dtype=float)

    # ------------------------------------------------------------------ counterfactuals
    def _require_fitted(self) -> None:
        if not self._fitted:
            raise InputError("the SCM is not fitted: call .fit(data) first")

    def _parse_intervention(self, intervention: Mapping[str, Any]) -> dict[str, Any]:
        if not isinstance(intervention, Mapping) or not intervention:
            raise InputError("intervention must be a non-empty mapping {node: value}")
        out = {}
        for node, value in intervention.items():
            if node not in self.dag_.parents:
                raise InputError(
                    f"intervention on unknown node {node!r}; the graph's nodes are: "
                    f"{', '.join(self.dag_.nodes)}"
                )
            out[node] = encoding.intervention_value(node, value, self.categories_.get(node))
        return out

    def abduct(self, data: AuditData | Any, rows: Any = None) -> pd.DataFrame:
        """The abducted noise of every endogenous node, one row per selected row.

        Numeric node: the residual ``û_j = x_j − f_j(pa_j)``. Categorical node: the midpoint
        ``u ∈ (0, 1)`` of the factual category's cumulative-probability interval.

        Parameters
        ----------
        data
            Table or AuditData with the node columns.
        rows
            Boolean mask or integer positions; ``None`` for all rows.

        Returns
        -------
        pandas.DataFrame
            One column per endogenous node (topological order), index = the selected positions.

        Examples
        --------
        >>> import pandas as pd
        >>> from primafacie.causal import SCM
        >>> df = pd.DataFrame({"a": [0, 0, 1, 1], "x": [1.0, 2.0, 4.0, 5.0]})
        >>> SCM([("a", "x")]).fit(df).abduct(df)["x"].round(6).tolist()
        [-0.5, 0.5, -0.5, 0.5]
        """
        self._require_fitted()
        frame = data.frame if isinstance(data, AuditData) else to_pandas(data)
        frames.require_columns(frame, self.dag_.nodes)
        idx = frames.row_positions(rows, len(frame))
        vals = {v: self._factual(frame, v, idx) for v in self.dag_.nodes}
        out = {
            v: mech.noise(self._design(v, vals), vals[v]) for v, mech in self.mechanisms_.items()
        }
        return pd.DataFrame(out, index=idx)

    def counterfactual(
        self,
        frame: AuditData | Any,
        intervention: Mapping[str, Any],
        rows: Any = None,
        noise: pd.DataFrame | None = None,
    ) -> pd.DataFrame:
        """Counterfactual table under ``do(intervention)``: abduction, action, prediction.

        Parameters
        ----------
        frame
            Table or AuditData holding the node columns (other columns are copied unchanged).
        intervention
            ``{node: value}``; a categorical node's value must be one of its fitted categories.
        rows
            Boolean mask or integer positions of the rows to change. Other rows are returned
            exactly equal to their factual values (CST spec §8.10). ``None`` changes all rows.
        noise
            Optional abducted noise (as returned by :meth:`abduct`, indexed by row position)
            used instead of abducting it again, e.g. rounded noise to mimic published files.

        Returns
        -------
        pandas.DataFrame
            Same shape, columns and index as ``frame``. Intervened nodes take their value and
            every descendant is recomputed in topological order; clip/round apply to the
            recomputed values. A selected row whose parents of a node are unchanged keeps that
            node's factual value exactly (no clip/round), unless ``noise`` is given.

        Raises
        ------
        InputError
            Not fitted, unknown intervened node, value outside the node's domain, bad rows.

        Examples
        --------
        >>> import pandas as pd
        >>> from primafacie.causal import SCM
        >>> df = pd.DataFrame({"a": [0, 1], "x": [1.0, 4.0], "y": [2.0, 9.0]})
        >>> scm = SCM([("a", "x"), ("x", "y")]).fit(df)
        >>> scm.counterfactual(df, {"a": 0}, rows=[1]).round(6).to_dict("list")
        {'a': [0, 0], 'x': [1.0, 1.0], 'y': [2.0, 2.0]}
        """
        self._require_fitted()
        src = frame.frame if isinstance(frame, AuditData) else to_pandas(frame)
        do = self._parse_intervention(intervention)
        targets = [v for v in self.dag_.descendants(list(do)) if v not in do]
        needed = set(do) | set(targets) | {p for v in targets for p in self.dag_.parents[v]}
        frames.require_columns(src, [v for v in self.dag_.nodes if v in needed])
        idx = frames.row_positions(rows, len(src))
        if len(idx) == 0:
            return src.copy()
        given = None if noise is None else frames.align_noise(noise, targets, idx)
        fact = {v: self._factual(src, v, idx) for v in needed}
        cf = dict(fact)
        for v, value in do.items():  # action
            cf[v] = np.full(len(idx), value, dtype=np.int64 if v in self.categories_ else float)
        for v in targets:  # abduction and prediction, parents before children
            cf[v] = self._predict_node(v, fact, cf, given)
        changed = {v: cf[v] for v in list(do) + targets}
        return frames.write_back(src, idx, changed, self.categories_)

    def _predict_node(
        self,
        node: str,
        fact: Mapping[str, np.ndarray],
        cf: Mapping[str, np.ndarray],
        given: pd.DataFrame | None,
    ) -> np.ndarray:
        """One node's counterfactual values from its factual and counterfactual parents."""
        mech = self.mechanisms_[node]
        Xf, Xc = self._design(node, fact), self._design(node, cf)
        same = np.all(Xf == Xc, axis=1)
        if given is not None:
            new = mech.evaluate(Xc, given[node].to_numpy(dtype=float))
        else:
            new = mech.counterfactual(Xf, fact[node], Xc)
        if mech.kind == "categorical":
            return np.where(same, fact[node], new)
        if node in self.clip_:
            lo, hi = self.clip_[node]
            new = np.clip(new, -np.inf if lo is None else lo, np.inf if hi is None else hi)
        if node in self.round_:
            new = np.round(new, self.round_[node])
        # Unchanged parents -> factual value exactly (x - f + f can differ by an ulp); given
        # noise is the user's to apply to every selected row.
        return np.where(same, fact[node], new) if given is None else new
