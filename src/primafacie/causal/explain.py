"""Why a counterfactual twin differs: causal queries beside the model (DoWhy gcm's
``whatif``), not in a report page.

:func:`counterfactual_twin` answers "who would this person have been under do(A := a)": the
twin's values, the edge-by-edge path that moved them (:func:`twin_path`) and the noise
abducted from the person's own values. The dossier pages render these numbers; they compute
nothing.

Examples
--------
>>> import pandas as pd
>>> from primafacie.causal import SCM
>>> df = pd.DataFrame({"a": [0, 0, 1, 1], "x": [1.0, 2.0, 4.0, 5.0]})
>>> scm = SCM([("a", "x")]).fit(df)
>>> twin, path, noise = counterfactual_twin(scm, df, 2, "a", 0)
>>> round(float(twin["x"]), 9), [(p, round(v, 9)) for p, v in path[0]["edges"]]
(1.0, [('a', -3.0)])
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..formats import fixed
from . import encoding
from .mechanisms import LinearANM

__all__ = ["twin_path", "counterfactual_twin"]


def _number(value: float) -> str:
    """A residual for people: an integer as is, else three decimals (as the report shows)."""
    if value == int(value) and 1 <= abs(value) < 1e15:
        return f"{int(value)}"
    return fixed(value, 3)


def _encoded(scm: Any, node: str, value: Any) -> np.ndarray:
    """One value of ``node`` as the design sees it (category code, or the float)."""
    vals = np.asarray([value])
    if node in scm.categories_:
        return encoding.codes(node, vals, scm.categories_[node])
    return vals.astype(float)


def _linear_edges(scm: Any, mech: LinearANM, node: str, factual: pd.Series, twin: pd.Series):
    """``[(parent, coef × Δ design column)]`` of a linear mechanism, and their sum."""
    coef = np.asarray(mech.coef_[1:], dtype=float)
    start, total, edges = 0, 0.0, []
    for p in scm.parents(node):
        n_cat = len(scm.categories_[p]) if p in scm.categories_ else None
        f = encoding.parent_block(_encoded(scm, p, factual[p]), n_cat)[0]
        c = encoding.parent_block(_encoded(scm, p, twin[p]), n_cat)[0]
        part = float((c - f) @ coef[start : start + len(f)])
        start += len(f)
        total += part
        if part != 0.0:
            edges.append((p, part))
    return edges, total


def twin_path(scm: Any, factual: pd.Series, twin: pd.Series, attribute: str) -> list[dict]:
    """Decompose each changed node's Δ along the SCM's edges, in topological order.

    For a linear mechanism the contribution of parent ``p`` is ``Σ coef × Δ(design column of
    p)`` (one column for a numeric parent, one dummy per non-baseline category for a
    categorical one); what clip/round changed afterwards is its own line. A non-linear or
    categorical mechanism gets its total change only, said so.

    Parameters
    ----------
    scm
        The fitted :class:`~primafacie.causal.SCM`.
    factual, twin
        The person's factual and counterfactual values (indexed by column).
    attribute
        The intervened protected attribute.

    Returns
    -------
    list of dict
        One per descendant: node, mechanism, factual, twin, change, edges
        (``[(parent, contribution)]``), note.

    Examples
    --------
    >>> from primafacie.causal import SCM
    >>> df = pd.DataFrame({"a": [0, 0, 1, 1], "x": [1.0, 2.0, 4.0, 5.0]})
    >>> scm = SCM([("a", "x")]).fit(df)
    >>> [(p, round(v, 9)) for p, v in twin_path(scm, df.iloc[2], pd.Series({"a": 0, "x": 1.0}),
    ...                                          "a")[0]["edges"]]
    [('a', -3.0)]
    """
    out = []
    below = scm.descendants(attribute)
    for node in scm.topological_order:
        if node == attribute or node not in below:
            continue
        mech = scm.mechanisms_[node]
        numeric = node not in scm.categories_
        row: dict[str, Any] = {
            "node": node,
            "mechanism": mech.label,
            "factual": factual[node],
            "twin": twin[node],
            "change": float(twin[node]) - float(factual[node]) if numeric else None,
            "edges": [],
            "note": "",
        }
        if isinstance(mech, LinearANM):
            row["edges"], total = _linear_edges(scm, mech, node, factual, twin)
            rest = row["change"] - total
            if abs(rest) > 1e-9 * max(1.0, abs(row["change"])):
                row["note"] = f"clip/round changed the value by {_number(rest)}"
        elif numeric:
            row["note"] = "non-linear mechanism: total change only, not split by edge"
        elif factual[node] != twin[node]:
            row["note"] = "categorical mechanism: the category changes as a whole"
        else:
            row["note"] = "unchanged (the category holds under the twin's parents)"
        out.append(row)
    return out


def counterfactual_twin(
    scm: Any, frame: pd.DataFrame, pos: int, attribute: str, value: Any
) -> tuple[pd.Series, list[dict], dict[str, Any]]:
    """The twin of row ``pos`` under do(``attribute`` := ``value``), with its path and noise.

    Parameters
    ----------
    scm
        The fitted :class:`~primafacie.causal.SCM`.
    frame
        The factual table (the SCM's columns).
    pos
        Row position of the person.
    attribute, value
        The intervention.

    Returns
    -------
    (twin, path, noise)
        The twin's values (a Series), :func:`twin_path` of the change, and ``{node: noise}``
        abducted from the person's factual values.
    """
    person = frame.iloc[[pos]]
    twin = scm.counterfactual(person, {attribute: value}).iloc[0]
    noise = scm.abduct(person).iloc[0].to_dict()
    return twin, twin_path(scm, frame.iloc[pos], twin, attribute), noise
