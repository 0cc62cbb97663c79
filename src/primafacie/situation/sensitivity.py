"""How robust are the CST verdicts to the causal model? ("your causal graph is wrong")

The counterfactual test group of a complainant depends on the SCM; the control group, the
factual test group and the search spaces do not. This module re-runs counterfactual
situation testing under alternative causal models and counts, for every complainant and k,
under how many of them the verdict (significant or not) stays the same.

The alternatives (:func:`variants`), in this order:

1. **edge removed**: each edge of the graph removed in turn (``edges_removed``);
2. **edge added**: each plausible missing edge added in turn (:func:`candidate_edges`), at most
   ``edges_added`` of them;
3. **mechanism**: the structural equations refitted with another mechanism (``mechanisms``,
   among linear, gradient boosting, random forest; the audited one is skipped);
4. **graph**: user-listed alternative graphs (``graphs``), each with the audited mechanism.

Each alternative costs one SCM fit, one counterfactual generation and one test-group search
(:meth:`~primafacie.situation.engine.SituationTest.rerun_counterfactual`): the factual search
spaces and control groups are reused. When an alternative graph no longer contains the
protected attribute (its only edges were removed), the attribute causes nothing: the
counterfactual is the factual record, and CST becomes ST.

Defaults (``analyses.situation.sensitivity: {}`` or ``true``): every edge removed, at most 10
added edges, the three mechanisms, no user graph. The verdict compared is the one of the
counterfactual method of the run (CST w/o when it ran, else CST w/, else CF).

Examples
--------
>>> candidate_edges([("a", "x"), ("x", "y"), ("c", "y")], "a")
[('a', 'y'), ('c', 'x')]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import numpy as np
import pandas as pd
from pydantic import Field, field_validator

from ..analysis import MAX_JSON_ROWS, table_path
from ..causal.graph import DAG, Edge, parse_edges
from ..configbase import Strict
from ..errors import InputError
from ..jsonsafe import json_safe
from .engine import RunState, SituationTest
from .labels import method_name
from .results import SituationResult

__all__ = [
    "SENSITIVITY_LABEL",
    "MECHANISMS",
    "SensitivitySpec",
    "Variant",
    "SensitivityResult",
    "candidate_edges",
    "variants",
    "variant_scm",
    "run_sensitivity",
]

#: The label of the sensitivity Result in the situation analysis' ``run.results``.
SENSITIVITY_LABEL = "sensitivity"
#: The mechanisms that can be swapped in (``SCM(mechanism=...)`` names).
MECHANISMS = ("linear", "gradient_boosting", "random_forest")
#: The counterfactual methods whose verdicts are compared, in order of preference.
_CF_METHODS = ("cst", "cst_centers", "cf")
#: The analysis whose tables these are (situation; table names via ``table_path``).
_ANALYSIS = "situation"
#: Name of the audited model in the tables.
FACTUAL = "as audited"
_KINDS = ("edge removed", "edge added", "mechanism", "graph")


class SensitivitySpec(Strict):
    """``analyses.situation.sensitivity``: the alternative causal models to try."""

    #: What each key means (shown by editors through the audit.yaml schema).
    key_descriptions: ClassVar[dict[str, str]] = {
        "edges_removed": "Try the graph with each edge removed in turn (default true).",
        "edges_added": "Try at most this many plausible missing edges, added in turn "
        "(default 10; 0 = none).",
        "mechanisms": "Mechanisms to swap in (default linear, gradient_boosting, "
        "random_forest; the audited one is skipped).",
        "graphs": "Alternative graphs, each a list of [parent, child] edges (default none).",
    }

    edges_removed: bool = True
    edges_added: int = Field(10, ge=0)
    mechanisms: list[Literal["linear", "gradient_boosting", "random_forest"]] = Field(
        default_factory=lambda: list(MECHANISMS)
    )
    graphs: list[list[tuple[str, str]]] = Field(default_factory=list)

    @field_validator("graphs")
    @classmethod
    def _graphs(cls, v: list[list[tuple[str, str]]]) -> list[list[tuple[str, str]]]:
        for i, edges in enumerate(v, start=1):
            try:
                dag = DAG.from_edges(edges)
            except InputError as exc:
                raise ValueError(f"graph {i}: {exc}") from exc
            del dag
        return v


@dataclass(frozen=True)
class Variant:
    """One alternative causal model.

    Attributes
    ----------
    name
        How tables and dossiers call it, e.g. ``"remove gender -> income"``.
    kind
        ``"edge removed"``, ``"edge added"``, ``"mechanism"`` or ``"graph"``.
    edges
        Its graph.
    mechanism
        Its mechanism (a name, or the audited SCM's own setting).
    edge
        The edge removed or added (None for the other kinds).
    """

    name: str
    kind: str
    edges: tuple[Edge, ...]
    mechanism: Any
    edge: Edge | None = None


def _arrow(edge: Edge) -> str:
    return f"{edge[0]} -> {edge[1]}"


def candidate_edges(edges: Sequence[Edge], attribute: str, limit: int | None = None) -> list[Edge]:
    """Plausible missing edges: from an ancestor of the attribute's descendants to a descendant.

    An edge ``u -> v`` is a candidate when ``v`` is a (strict) descendant of ``attribute``, ``u``
    is an ancestor of some descendant (the attribute itself included) or a descendant, the
    edge is not in the graph, and adding it creates no cycle (``v`` is not an ancestor of
    ``u``). Candidates are ordered by the topological position of ``u``, then of ``v``, so
    edges out of the protected attribute and out of early causes come first; ``limit`` keeps
    the first ones.

    Parameters
    ----------
    edges
        The graph's ``(parent, child)`` pairs.
    attribute
        The protected attribute (a node of the graph).
    limit
        Keep at most this many (None: all).

    Returns
    -------
    list of tuple

    Examples
    --------
    >>> candidate_edges([("g", "s"), ("g", "b"), ("s", "b")], "g")
    []
    >>> candidate_edges([("g", "s"), ("s", "b"), ("c", "b")], "g")
    [('g', 'b'), ('c', 's')]
    """
    dag = DAG.from_edges(edges)
    dag.require(attribute, "the sensitivity analysis (protected attribute)")
    desc = dag.descendants(attribute)
    if not desc:
        return []
    sources = set(dag.ancestors(desc)) | set(desc)
    rank = {v: i for i, v in enumerate(dag.order)}
    present = set(dag.edges)
    out = []
    for u in sorted(sources, key=rank.__getitem__):
        before = set(dag.ancestors(u))  # v -> ... -> u exists: u -> v would close a cycle
        for v in desc:
            if v != u and (u, v) not in present and v not in before:
                out.append((u, v))
    out.sort(key=lambda e: (rank[e[0]], rank[e[1]]))
    return out if limit is None else out[:limit]


def variants(
    edges: Sequence[Edge],
    attribute: str,
    mechanism: Any = "linear",
    edges_removed: bool = True,
    edges_added: int = 10,
    mechanisms: Sequence[str] = MECHANISMS,
    graphs: Sequence[Sequence[Edge]] = (),
) -> list[Variant]:
    """The alternative causal models, in a fixed order (removed, added, mechanism, graphs).

    Parameters
    ----------
    edges
        The audited graph.
    attribute
        The protected attribute.
    mechanism
        The audited SCM's mechanism; a listed mechanism equal to it is skipped.
    edges_removed, edges_added, mechanisms, graphs
        As in :class:`SensitivitySpec`.

    Returns
    -------
    list of Variant

    Examples
    --------
    >>> [v.name for v in variants([("g", "s"), ("s", "b")], "g", mechanisms=["linear",
    ...  "random_forest"])]
    ['remove g -> s', 'remove s -> b', 'add g -> b', 'mechanism random_forest']
    """
    base = tuple(parse_edges(edges))
    out: list[Variant] = []
    if edges_removed:
        for edge in base:
            rest = tuple(e for e in base if e != edge)
            out.append(Variant(f"remove {_arrow(edge)}", "edge removed", rest, mechanism, edge))
    for edge in candidate_edges(base, attribute, limit=edges_added):
        out.append(Variant(f"add {_arrow(edge)}", "edge added", (*base, edge), mechanism, edge))
    for name in dict.fromkeys(mechanisms):
        if not (isinstance(mechanism, str) and name == mechanism):
            out.append(Variant(f"mechanism {name}", "mechanism", base, name))
    for i, graph in enumerate(graphs, start=1):
        out.append(Variant(f"graph {i}", "graph", tuple(parse_edges(graph)), mechanism))
    return out


def _keep_nodes(setting: Any, nodes: set[str]) -> Any:
    """A per-node mapping restricted to the nodes of a variant's graph (others unchanged)."""
    if isinstance(setting, Mapping):
        return {k: v for k, v in setting.items() if str(k) in nodes}
    return setting


def variant_scm(scm: Any, variant: Variant, attribute: str) -> Any:
    """An unfitted SCM for ``variant`` with the audited SCM's other settings (clip, round,
    kinds, categorical handling), or None when the protected attribute is not in its graph
    (it then causes nothing: the counterfactual is the factual record).

    Examples
    --------
    >>> from primafacie.causal import SCM
    >>> v = variants([("g", "s"), ("s", "b")], "g")[0]
    >>> variant_scm(SCM([("g", "s"), ("s", "b")]), v, "g") is None
    True
    """
    from ..causal import SCM

    nodes = {v for e in variant.edges for v in e}
    if attribute not in nodes:
        return None
    return SCM(
        edges=[list(e) for e in variant.edges],
        mechanism=_keep_nodes(variant.mechanism, nodes),
        clip=_keep_nodes(getattr(scm, "clip", None), nodes),
        round=_keep_nodes(getattr(scm, "round", None), nodes),
        categorical=getattr(scm, "categorical", "classifier"),
        protected=getattr(scm, "protected", None),
        kinds=_keep_nodes(getattr(scm, "kinds", None), nodes),
    )


def _records(frame: pd.DataFrame, label: str) -> Any:
    """Records of ``frame``, or its row count and CSV when it is too long for results.json."""
    if len(frame) > MAX_JSON_ROWS:
        return {"rows": len(frame), "see": table_path(_ANALYSIS, label)}
    return frame.to_dict(orient="records")


def _method(result: SituationResult) -> str:
    methods = list(result.params["methods"])
    for m in _CF_METHODS:
        if m in methods:
            return m
    raise InputError(
        "analyses.situation.sensitivity compares counterfactual verdicts, but methods "
        f"{methods} has none; add cst (or cst_centers, cf) to analyses.situation.methods"
    )


def _verdicts(result: SituationResult, method: str, ks: Sequence[int]) -> np.ndarray:
    """(k, complainant) significance of ``method``; rows follow the engine's complainants."""
    table = result.table
    sel = table[table["method"] == method]
    return np.stack([sel.loc[sel["k"] == k, "significant"].to_numpy(dtype=bool) for k in ks])


@dataclass
class _Part:
    """The verdicts of one protected attribute's test under every variant."""

    test: str
    attribute: str
    method: str
    ks: list[int]
    rows: np.ndarray  # complainants' data-row positions
    ids: np.ndarray
    base: np.ndarray  # (k, c) verdicts under the audited SCM
    sig: np.ndarray  # (variant, k, c) verdicts under each variant
    variants: list[Variant]


@dataclass
class SensitivityResult:
    """Robustness of CST verdicts to the causal model (one part per protected attribute).

    A verdict is *significant or not* for one complainant at one k. It is **overturned** by a
    variant when it differs under that variant; a case is **robust** when it is significant
    under the audited model and under every variant. A verdict **depends on a single edge**
    when exactly one of the edge variants (removed or added) overturns it.
    """

    parts: list[_Part]
    params: dict[str, Any] = field(default_factory=dict)

    # ------------------------------------------------------------------ per complainant
    def _changed(self, part: _Part) -> np.ndarray:
        return part.sig != part.base[None]

    def to_frame(self) -> pd.DataFrame:
        """One row per (test, complainant, k): the audited verdict, how many variants keep it,
        whether it is robust and which variants overturn it (``"; "``-separated)."""
        frames = []
        for part in self.parts:
            changed = self._changed(part)
            n_c = len(part.rows)
            names = np.full((len(part.ks), n_c), "", dtype=object)
            for i, v in enumerate(part.variants):  # a loop over variants, not rows
                sep = np.where(names == "", "", "; ")
                names = np.where(changed[i], names + sep + v.name, names)
            n_var = len(part.variants)
            frames.append(
                pd.DataFrame(
                    {
                        "test": part.test,
                        "row": np.tile(part.rows, len(part.ks)),
                        "id": np.tile(part.ids, len(part.ks)),
                        "k": np.repeat(part.ks, n_c),
                        "method": part.method,
                        "significant": part.base.ravel(),
                        "n_variants": n_var,
                        "n_same": (n_var - changed.sum(axis=0)).ravel(),
                        "robust": (part.base & ~changed.any(axis=0)).ravel(),
                        "overturned_by": names.ravel().astype(str),
                    }
                )
            )
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def overturning(self, row: int, test: str | None = None) -> list[str]:
        """The variants under which complainant ``row`` (its data-row position, the ``row``
        column of the situation tables) gets another verdict at any k, in variant order.

        Parameters
        ----------
        row
            The complainant's row position in the data.
        test
            Restrict to one test label (e.g. ``"single_gender"``); default: every test.

        Returns
        -------
        list of str
            Variant names (empty when no variant changes the verdict).

        Raises
        ------
        InputError
            ``row`` is not a complainant of the test(s).
        """
        parts = [p for p in self.parts if test is None or p.test == test]
        if test is not None and not parts:
            raise InputError(f"no sensitivity test {test!r}; tests: {[p.test for p in self.parts]}")
        out: list[str] = []
        found = False
        for part in parts:
            pos = np.flatnonzero(part.rows == int(row))
            if not len(pos):
                continue
            found = True
            hit = self._changed(part)[:, :, pos[0]].any(axis=1)
            out += [v.name for v, h in zip(part.variants, hit, strict=True) if h]
        if not found:
            raise InputError(
                f"row {row!r} is not a complainant of the sensitivity analysis "
                f"({', '.join(p.test for p in parts)}); complainants are protected rows"
            )
        return list(dict.fromkeys(out))

    # ------------------------------------------------------------------ per variant
    def summary(self) -> pd.DataFrame:
        """Variants × k: significant cases, verdicts gained and lost against the audited
        model, and verdicts unchanged (the audited model comes first)."""
        frames = []
        for part in self.parts:
            n_v, n_k = len(part.variants), len(part.ks)
            sig = np.concatenate([part.base[None], part.sig])  # (1 + v, k, c)
            gained = (sig & ~part.base[None]).sum(axis=2)
            lost = (~sig & part.base[None]).sum(axis=2)
            kinds = ["audited"] + [v.kind for v in part.variants]
            frames.append(
                pd.DataFrame(
                    {
                        "test": part.test,
                        "variant": np.repeat([FACTUAL] + [v.name for v in part.variants], n_k),
                        "kind": np.repeat(kinds, n_k),
                        "k": np.tile(part.ks, n_v + 1),
                        "method": part.method,
                        "significant": sig.sum(axis=2).ravel(),
                        "gained": gained.ravel(),
                        "lost": lost.ravel(),
                        "unchanged": (len(part.rows) - gained - lost).ravel(),
                        "denominator": len(part.rows),
                    }
                )
            )
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def robust_counts(self) -> pd.DataFrame:
        """Per test and k: significant cases under the audited model and robust cases."""
        rows = []
        for part in self.parts:
            robust = part.base & ~self._changed(part).any(axis=0)
            for i, k in enumerate(part.ks):
                rows.append(
                    {
                        "test": part.test,
                        "k": k,
                        "method": part.method,
                        "significant": int(part.base[i].sum()),
                        "robust": int(robust[i].sum()),
                        "n_variants": len(part.variants),
                        "denominator": len(part.rows),
                    }
                )
        return pd.DataFrame(rows)

    def single_edge(self) -> pd.DataFrame:
        """Complainants whose verdict at some k is overturned by exactly one edge variant
        (removed or added), named with that edge."""
        frames = []
        for part in self.parts:
            is_edge = np.array([v.edge is not None for v in part.variants], dtype=bool)
            if not is_edge.any():
                continue
            changed = self._changed(part)[is_edge]  # (edge variants, k, c)
            one = changed.sum(axis=0) == 1
            which = changed.argmax(axis=0)
            ki, ci = np.nonzero(one)
            edge_vars = [v for v, e in zip(part.variants, is_edge, strict=True) if e]
            picked = [edge_vars[j] for j in which[ki, ci]]
            frames.append(
                pd.DataFrame(
                    {
                        "test": part.test,
                        "row": part.rows[ci],
                        "id": part.ids[ci],
                        "k": np.asarray(part.ks)[ki],
                        "significant": part.base[ki, ci],
                        "variant": [v.name for v in picked],
                        "edge": [_arrow(v.edge) for v in picked],
                        "change": [v.kind for v in picked],
                    }
                ).sort_values(["row", "k"], kind="stable")
            )
        cols = ["test", "row", "id", "k", "significant", "variant", "edge", "change"]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=cols)

    def variant_table(self) -> pd.DataFrame:
        """The variants of every test: name, kind, the edge changed, mechanism, graph size."""
        return pd.DataFrame(
            [
                {
                    "test": part.test,
                    "variant": v.name,
                    "kind": v.kind,
                    "edge": "" if v.edge is None else _arrow(v.edge),
                    "mechanism": v.mechanism if isinstance(v.mechanism, str) else "custom",
                    "n_edges": len(v.edges),
                }
                for part in self.parts
                for v in part.variants
            ]
        )

    # ------------------------------------------------------------------ words
    def _main(self, part: _Part) -> tuple[int, int, int]:
        """(k, significant, robust) at the largest k."""
        i = len(part.ks) - 1
        robust = part.base[i] & ~self._changed(part)[:, i].any(axis=0)
        return part.ks[i], int(part.base[i].sum()), int(robust.sum())

    def headline(self) -> str:
        """Robust cases at the largest k, per test, and the verdicts hanging on one edge."""
        texts = []
        single = self.single_edge()
        for part in self.parts:
            k, n_sig, n_rob = self._main(part)
            name = f"{part.attribute}: " if len(self.parts) > 1 else ""
            hanging = int(((single["test"] == part.test) & (single["k"] == k)).sum())
            # the variants re-test each complainant alone: their verdicts are unadjusted, and
            # the words say so (issue 23: "significant" means after adjustment elsewhere)
            texts.append(
                f"{name}{n_rob} of the {n_sig} {method_name(part.method)} cases (k={k}) "
                "significant before any adjustment across complainants are robust: "
                f"significant under all {len(part.variants)} alternative causal models; "
                f"{hanging} verdict{'' if hanging == 1 else 's'} at k={k} "
                f"depend{'s' if hanging == 1 else ''} on a single edge."
            )
        return " ".join(texts)

    def scope(self) -> str:
        """Who was compared, under which alternatives."""
        texts = []
        for part in self.parts:
            counts = {kind: sum(v.kind == kind for v in part.variants) for kind in _KINDS}
            what = ", ".join(f"{n} {kind}" for kind, n in counts.items() if n)
            texts.append(
                f"{len(part.rows)} complainants protected on {part.attribute!r} re-tested "
                f"with {part.method} under {len(part.variants)} alternative causal models "
                f"({what or 'none'}); the control and factual test groups are unchanged."
            )
        return " ".join(texts)

    def caveats(self) -> list[str]:
        """What the robustness count does not say."""
        out = [
            "Robustness is measured against the listed alternatives only: a verdict robust to "
            "one-edge changes can still depend on several edges changed together."
        ]
        if any(not p.variants for p in self.parts):
            out.append("The causal graph offered no alternative model: nothing was varied.")
        return out

    def extra_tables(self) -> dict[str, pd.DataFrame]:
        """The tables beside :meth:`to_frame` and :meth:`summary`: ``sensitivity_single_edge``,
        ``sensitivity_variants`` and ``sensitivity_robust`` (labels in the situation run)."""
        return {
            f"{SENSITIVITY_LABEL}_single_edge": self.single_edge(),
            f"{SENSITIVITY_LABEL}_variants": self.variant_table(),
            f"{SENSITIVITY_LABEL}_robust": self.robust_counts(),
        }

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe record: parameters, variants, robust counts, the variants table and the
        per-complainant rows (long lists are replaced by their CSV in results.json)."""
        return json_safe(
            {
                "params": dict(self.params),
                "variants": self.variant_table().to_dict(orient="records"),
                "robust": self.robust_counts().to_dict(orient="records"),
                "summary": self.summary().to_dict(orient="records"),
                "single_edge": _records(self.single_edge(), "sensitivity_single_edge"),
                "complainants": self.to_frame().to_dict(orient="records"),
            }
        )

    def plot(self, ax: Any = None) -> Any:
        """Significant cases under each variant at the largest k (horizontal bars)."""
        import matplotlib.pyplot as plt

        summ = self.summary()
        if summ.empty:
            return None
        last = summ[summ["k"] == summ.groupby("test")["k"].transform("max")]
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 0.3 * len(last) + 1))
        labels = (
            last["variant"]
            if last["test"].nunique() == 1
            else last["test"] + ": " + last["variant"]
        )
        ax.barh(labels.to_numpy()[::-1], last["significant"].to_numpy()[::-1], color="#4c72b0")
        ax.set_xlabel("significant cases")
        return ax.figure


def run_sensitivity(
    spec: SensitivitySpec,
    runs: Mapping[str, tuple[SituationTest, SituationResult, RunState]],
    scm: Any,
    decider: Any = None,
    tick: Any = None,
) -> SensitivityResult:
    """Re-test every single-attribute test's complainants under every variant.

    Parameters
    ----------
    spec
        Which variants (:class:`SensitivitySpec`).
    runs
        ``{test label: (engine, result, state)}`` from
        ``SituationTest.run(..., keep_state=True)`` (the state is the engine's ``state_``).
    scm
        The audited SCM (its edges, mechanism, clip, round and kinds seed the variants).
    decider
        b(), needed when the compared method counts the centres (cst_centers, cf).
    tick
        Optional progress callback ``tick(done, total, note)``.

    Returns
    -------
    SensitivityResult
    """
    if scm is None:
        raise InputError(
            "analyses.situation.sensitivity varies the causal model: it needs the causal: section"
        )
    edges = [tuple(map(str, e)) for e in scm.edges]
    parts = []
    for label, (engine, result, state) in runs.items():
        attribute = state.plan.attribute
        method = _method(result)
        ks = list(result.params["k"])
        found = variants(
            edges,
            attribute,
            scm.mechanism,
            spec.edges_removed,
            spec.edges_added,
            spec.mechanisms,
            spec.graphs,
        )
        base = _verdicts(result, method, ks)
        sig = np.repeat(base[None], len(found), axis=0)
        inert = _inert(edges, attribute, found)
        for i, variant in enumerate(found):
            if tick is not None:
                tick(i, len(found), f"{label}: {variant.name}")
            if not inert[i]:
                sig[i] = _verdicts(_rerun(engine, state, scm, variant, method, decider), method, ks)
        rows = state.plan.comp_rows
        parts.append(
            _Part(
                test=label,
                attribute=attribute,
                method=method,
                ks=ks,
                rows=rows,
                ids=np.asarray(state.data.ids)[rows],
                base=base,
                sig=sig,
                variants=found,
            )
        )
    params = spec.model_dump(mode="json")
    params["mechanism"] = scm.mechanism if isinstance(scm.mechanism, str) else "custom"
    return SensitivityResult(parts=parts, params=params)


def _inert(edges: Sequence[Edge], attribute: str, found: Sequence[Variant]) -> list[bool]:
    """Which variants leave the attribute's counterfactuals exactly as audited: removing an
    edge into a node that is not a descendant of the attribute changes neither the
    descendants' parents (so not their fitted equations) nor the nodes the counterfactual
    loop recomputes, so the verdicts are the audited ones and nothing needs to run."""
    desc = set(DAG.from_edges(edges).descendants(attribute))
    return [v.kind == "edge removed" and v.edge[1] not in desc for v in found]


def _rerun(
    engine: SituationTest,
    state: RunState,
    scm: Any,
    variant: Variant,
    method: str,
    decider: Any,
) -> SituationResult:
    """One variant: fit its SCM (or use the factual record) and re-run the CF stages."""
    attribute = state.plan.attribute
    alt = variant_scm(scm, variant, attribute)
    if alt is None:
        # the attribute causes nothing under this graph: x^CF = x, so CST is ST
        frame = state.data.frame.drop(columns=[state.data.decision], errors="ignore")
        return engine.rerun_counterfactual(
            state, counterfactuals=frame, decider=decider, methods=[method]
        )
    try:
        alt.fit(state.data)
    except InputError as exc:
        raise InputError(f"sensitivity variant {variant.name!r}: {exc}") from exc
    return engine.rerun_counterfactual(state, scm=alt, decider=decider, methods=[method])
