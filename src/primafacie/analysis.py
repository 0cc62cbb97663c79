"""What an analysis *is*, defined once: the :class:`Analysis` descriptor and what it produces.

Each engine package holds one ``analysis.py`` with an ``ANALYSIS = Analysis(...)`` (name,
title, lead text, config model, how to run it, how to show it); :mod:`primafacie.audit.registry`
lists them in report order. The audit, the report, ``results.json``, the terminal summary and
every ``--config`` command iterate that list and never spell an analysis name themselves.

The flow is one way: the audit builds a :class:`Context` (configuration, data, fitted SCM,
decider, compute backend, progress tick), calls ``analysis.run(spec, ctx)`` which builds the
engine through its spec (``spec.build(...)``) and returns an :class:`AnalysisRun` holding the
engine's Result objects, and the report calls ``analysis.section(run, data, cfg)``, which reads
only those Results.

CSV tables are named by :func:`table_stem` / :func:`table_path` only, so the writer and the
report's links cannot drift apart.

Examples
--------
>>> table_path("situation", "single_gender")
'tables/situation_single_gender.csv'
>>> table_stem("recourse", "rank_Equal Effectiveness (EE)")
'recourse_rank_equal_effectiveness_ee'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import pandas as pd

from .filenames import MAX_NAME, short_hash
from .jsonsafe import json_safe

__all__ = [
    "Analysis",
    "AnalysisRun",
    "Context",
    "Result",
    "Section",
    "Tick",
    "no_tick",
    "table_stem",
    "table_path",
    "result_tables",
    "MAX_JSON_ROWS",
]

#: ``tick(done, total, note)`` reports sub-steps of an analysis to the progress display.
Tick = Callable[[int, int, str], None]

#: Lists of per-row records longer than this are kept out of results.json (they are in the
#: result's CSV table, named in their place), so the file stays small and quick to write.
MAX_JSON_ROWS = 500

#: Wall-clock measurements some results carry; they differ between runs, so they are left out
#: of results.json (which must be byte-identical for identical inputs).
VOLATILE_KEYS = frozenset({"timings", "seconds", "elapsed", "duration", "runtime"})


def no_tick(done: int, total: int, note: str) -> None:
    """A progress callback that shows nothing."""
    return None


def table_stem(analysis: str, label: str, among: Iterable[str] = ()) -> str:
    """The file stem of an analysis table: ``<analysis>_<label>``, lower-case, ``_``-separated.

    A stem longer than :data:`~primafacie.filenames.MAX_NAME` is cut and ends with a hash of
    the label; with ``among`` (the labels of the run's other tables of this analysis), a label
    whose stem equals another's without case (``Gender`` and ``gender``, ``φύλο`` and
    ``φυλή``), or another's summary table (``a_summary`` beside ``a``), gets ``_`` and a short
    hash of the label, so no table overwrites another.

    Examples
    --------
    >>> table_stem("groups", "Gender", among=["gender"])
    'groups_gender_a04630ef'
    """
    stem = _plain_stem(analysis, label)
    others = {_plain_stem(analysis, o).casefold() for o in among if o != label}
    # another label's summary table (:func:`result_tables`) is "<its stem>_summary": a label
    # named like it ("a_summary" beside "a") is hashed here, so the report's link and the
    # file written agree (the link named the other test's summary)
    others |= {f"{o}_summary" for o in others}
    if len(stem) > MAX_NAME or stem.casefold() in others:
        stem = stem[: MAX_NAME - 9] + "_" + short_hash(label)
    return stem


def _plain_stem(analysis: str, label: str) -> str:
    text = f"{analysis}_{label}"
    stem = re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").lower()
    return stem if stem.strip("_") != analysis else f"{analysis}_{short_hash(label)}"


def table_path(analysis: str, label: str, among: Iterable[str] = ()) -> str:
    """``tables/<stem>.csv``: where :func:`table_stem`'s table is written, relative to the run
    (``among``: the labels of the analysis' other tables, as for :func:`table_stem`)."""
    return f"tables/{table_stem(analysis, label, among)}.csv"


@runtime_checkable
class Result(Protocol):
    """What every analysis Result offers (statsmodels-style result objects); the engines'
    Results implement it by deriving from :class:`primafacie.base.BaseResult`."""

    def to_frame(self) -> pd.DataFrame: ...

    def summary(self) -> Any: ...

    def to_dict(self) -> dict[str, Any]: ...

    def headline(self) -> str: ...

    def scope(self) -> str: ...

    def caveats(self) -> list[str]: ...


def result_tables(analysis: str, results: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """Every result's ``to_frame()`` (and ``summary()`` when it is a table), keyed by stem.

    ``results`` maps a label to a Result; the table of label ``L`` is ``table_stem(analysis,
    L)`` and its summary ``table_stem(analysis, L) + "_summary"``.
    """
    tables: dict[str, pd.DataFrame] = {}
    taken: set[str] = set()

    def put(stem: str, frame: pd.DataFrame, key: str) -> None:
        # a label named like another's summary ("x_summary") must not overwrite it either
        if stem.casefold() in taken:
            stem = f"{stem[: MAX_NAME - 9]}_{short_hash(key)}"
        taken.add(stem.casefold())
        tables[stem] = frame

    for label, res in results.items():
        stem = table_stem(analysis, label, among=results)
        # a table the analysis already wrote (Parquet parts, named by the Result's
        # ``files``) is not read back to be written again
        frame = None if getattr(res, "files", None) else res.to_frame()
        if isinstance(frame, pd.DataFrame):
            put(stem, frame, label)
        summ = res.summary()
        if isinstance(summ, pd.DataFrame):
            put(f"{stem}_summary", summ, f"{label}\0summary")
    return tables


def _extra_tables(result: Any) -> Mapping[str, pd.DataFrame]:
    """A Result's ``extra_tables()`` (none for an object without them, e.g. a dossier book)."""
    more = getattr(result, "extra_tables", None)
    return more() if callable(more) else {}


def _prune_rows(obj: Any, see: str, limit: int = MAX_JSON_ROWS) -> Any:
    """Replace long lists of records by ``{"rows": n, "see": csv}`` and drop wall-clock timings
    (:data:`VOLATILE_KEYS`); everything else is kept."""
    if isinstance(obj, Mapping):
        return {
            k: _prune_rows(v, see, limit) for k, v in obj.items() if str(k) not in VOLATILE_KEYS
        }
    if isinstance(obj, list) and len(obj) > limit and obj and isinstance(obj[0], Mapping):
        return {"rows": len(obj), "see": see}
    return obj


def _result_dict(result: Any, see: str) -> Any:
    """A Result's ``to_dict()`` with its long lists of records pruned (:func:`_prune_rows`).

    A Result whose ``to_dict`` takes ``max_rows`` and ``see`` is asked not to build the
    records it would have to prune (a situation test's per-complainant rows: ~10^7 dicts at
    10^6 decisions); the output is the same as pruning them afterwards.
    """
    import inspect

    try:
        params = inspect.signature(result.to_dict).parameters
    except (TypeError, ValueError):  # a builtin or an object without a signature
        params = {}
    if "max_rows" in params and "see" in params:
        return _prune_rows(result.to_dict(max_rows=MAX_JSON_ROWS, see=see), see)
    return _prune_rows(result.to_dict(), see)


@dataclass(frozen=True)
class Context:
    """What an analysis gets besides its own spec when the audit runs it.

    Attributes
    ----------
    config
        The whole :class:`~primafacie.config.AuditConfig` (for cross-section settings).
    data
        The audited :class:`~primafacie.data.AuditData`.
    scm
        The fitted :class:`~primafacie.causal.SCM` when an analysis needs one, else ``None``.
    decider
        b(): the decision model or rule (``None`` for a recorded column).
    backend
        The :mod:`primafacie.compute` backend, or ``None`` for the local default.
    tick
        Progress callback ``tick(done, total, note)``.
    tables_dir
        The ``tables/`` folder of the audit's staging folder, where an analysis may write a
        table too large to hold while it runs (a situation test's Parquet parts); None when
        the audit is computed in memory only.
    """

    config: Any
    data: Any
    scm: Any = None
    decider: Any = None
    backend: Any = None
    tick: Tick = no_tick
    tables_dir: Any = None


@dataclass(frozen=True)
class AnalysisRun:
    """What one analysis produced in an audit.

    Attributes
    ----------
    name
        The analysis' registry name.
    status
        ``"ok"``, ``"unavailable"`` or ``"failed"`` (only when the audit was asked to keep
        going after an analysis error).
    message
        Why the status is not ``"ok"`` (or a note shown above the section).
    results
        ``{label: Result}``: the engine's own result objects.
    tables
        ``{csv stem: DataFrame}`` written as ``tables/<stem>.csv``.
    numbers
        JSON-safe headline numbers (counts with their denominators).
    headline
        One sentence for the executive summary.
    scope
        Who was tested, with denominators and who was left out.
    caveats
        Sentences qualifying the findings (shown in the report and written to results.json).
    seconds
        Wall time (printed in the terminal only, never written, so outputs stay identical).
    """

    name: str
    status: str
    message: str = ""
    results: Mapping[str, Any] = field(default_factory=dict)
    tables: Mapping[str, pd.DataFrame] = field(default_factory=dict)
    numbers: Mapping[str, Any] = field(default_factory=dict)
    headline: str = ""
    scope: str = ""
    caveats: tuple[str, ...] = ()
    seconds: float = 0.0

    @classmethod
    def of(
        cls,
        name: str,
        results: Mapping[str, Any],
        numbers: Mapping[str, Any] | None = None,
        *,
        main: str | None = None,
        tables: Mapping[str, pd.DataFrame] | None = None,
        headline: str | None = None,
        scope: str | None = None,
        caveats: Iterable[str] | None = None,
    ) -> AnalysisRun:
        """A completed run derived from its Results, nothing copied by hand: the tables of
        every Result (:func:`result_tables`, then ``tables``, then each Result's
        ``extra_tables()``), and the numbers, headline, scope and caveats of the main one.

        This is the one way an analysis' Results become a run (the audit, the time windows
        and every ``--config`` command go through it), so results.json has one layout.

        Parameters
        ----------
        name
            The analysis' registry name.
        results
            ``{label: Result}``.
        numbers
            JSON-safe headline numbers, when they are more than the main Result's
            ``numbers()`` (settings of the spec, numbers of several Results).
        main
            Label of the Result whose numbers, headline, scope and caveats the run reports
            (default: the first).
        tables
            Tables beside the Results' own (``{stem: DataFrame}``).
        headline, scope, caveats
            The words when they are more than the main Result's (several tests, each named).

        Returns
        -------
        AnalysisRun

        Examples
        --------
        >>> from primafacie.base import BaseResult
        >>> class Toy(BaseResult):
        ...     table = pd.DataFrame({"group": ["f"], "k": [3], "n": [10]})
        ...     def _summary(self): return None
        ...     def numbers(self): return {"k": 3, "n": 10}
        ...     def extra_tables(self): return {"counts": self.table[["k", "n"]]}
        ...     def to_dict(self): return {}
        ...     def headline(self): return "3 of 10"
        ...     def scope(self): return "10 people"
        ...     def caveats(self): return ["small"]
        >>> run = AnalysisRun.of("toy", {"rates": Toy()})
        >>> list(run.tables), run.numbers, run.headline, run.caveats
        (['toy_rates', 'toy_counts'], {'k': 3, 'n': 10}, '3 of 10', ('small',))
        """
        res = results[main] if main is not None else next(iter(results.values()), None)
        extra = {
            table_stem(name, label): frame
            for r in results.values()
            for label, frame in _extra_tables(r).items()
        }
        return cls(
            name,
            "ok",
            results=dict(results),
            tables={**result_tables(name, results), **dict(tables or {}), **extra},
            numbers=dict(res.numbers() if numbers is None else numbers),
            headline=res.headline() if headline is None else headline,
            scope=res.scope() if scope is None else scope,
            caveats=tuple(res.caveats() if caveats is None else caveats),
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe record: status, message, headline, numbers, every result's ``to_dict()``."""
        return {
            "status": self.status,
            "message": self.message,
            "headline": self.headline,
            "scope": self.scope,
            "caveats": list(self.caveats),
            "numbers": json_safe(self.numbers),
            "results": {
                k: json_safe(_result_dict(v, table_path(self.name, k)))
                for k, v in self.results.items()
            },
            "tables": [f"tables/{stem}.csv" for stem in self.tables],
        }


#: A report section: ``{"findings": [sentences], "blocks": [figure/table/heading/text/cards]}``.
Section = dict


def _no_check(spec: Any, config: Any) -> None:
    return None


def _no_check_data(spec: Any, data: Any, config: Any) -> None:
    return None


def _needs_nothing(spec: Any) -> bool:
    return False


def _no_seeds(spec: Any) -> dict[str, int]:
    return {}


def _no_assumptions(spec: Mapping[str, Any], config: Mapping[str, Any]) -> list[str]:
    return []


#: The functions :meth:`Analysis.define` takes from an analysis module, by name.
_HOOKS = ("run", "section", "needs_scm", "check", "check_data", "assumptions", "seeds",
          "overview", "headline_number", "finding", "trend", "default_when")  # fmt: skip
#: The constants it takes: ``{module constant: field}``.
_CONSTANTS = {"LEAD": "lead", "GLOSSARY": "glossary"}


@dataclass(frozen=True)
class Analysis:
    """One analysis, defined once.

    Attributes
    ----------
    name
        Registry name and the ``analyses.<name>`` key of ``audit.yaml``.
    title
        Section title in the report (``"Situation testing"``).
    lead
        Plain-language explanation that opens the report section.
    spec
        The pydantic model of ``analyses.<name>``; its ``build(...)`` turns the configuration
        into engine arguments (the only place where that happens).
    run
        ``run(spec, ctx) -> AnalysisRun``: build the engine(s) through the spec, run them on
        ``ctx.data`` and collect the Results with their headline, scope and caveats.
    section
        ``section(run, data, cfg) -> Section``: the report block, reading only ``run.results``
        (``cfg`` is the resolved configuration as a dict).
    description
        One line for the ``audit.yaml`` schema.
    needs_scm
        ``needs_scm(spec)``: whether the audit must fit the causal model for this analysis.
    needs_outcome
        Whether the analysis needs the true outcome column (``outcome:`` in audit.yaml).
    check
        ``check(spec, config)``: cross-section checks that need no data (raise InputError), so
        a bad file fails before anything is read.
    check_data
        ``check_data(spec, data, config)``: every data-dependent requirement (binary protected
        attribute, k against the search spaces, ...), raising InputError with the fix; the audit
        runs every requested analysis' check after reading the data and before the causal model
        is fitted or any analysis runs, so no work is lost to a late error.
    assumptions
        ``assumptions(spec_dict, cfg)``: sentences for the report's assumptions list.
    seeds
        ``seeds(spec)``: the analysis' own random seeds, ``{name: seed}``, echoed into
        ``results.json``.
    overview
        ``overview(run)``: an optional summary figure for :meth:`AuditResult.plot` (None when
        there is nothing to draw).
    stage
        Progress-bar label (default: the title in lower case).
    headline_number
        ``headline_number(run) -> str``: the section's headline number, a few words with its
        denominator (``"3 of 120 significant"``), shown in the report's table of contents and
        the executive summary; None shows the run's status instead.
    default_on
        Run with the spec's defaults when ``audit.yaml`` has no ``analyses.<name>`` section
        (``<name>: null`` turns it off); otherwise an absent section is not run.
    finding
        ``finding(run) -> dict``: what a completed run found, for the report's badges and
        its overall verdict (issue 23): ``level`` (``"concern"``: evidence against a
        protected group; ``"clear"``: none found; ``"neutral"``: a comparison, not a test),
        ``badge`` (a few words, e.g. ``"below four-fifths"``), ``sentence`` (the finding with
        its denominator, after the correction in force) and ``strength`` (the share of that
        denominator, to name the strongest finding). None: the badge is neutral.
    glossary
        ``(term, meaning)`` pairs of the symbols and codes the section uses (τ, φ, Ma.3,
        prop1_tau1, …), shown in the report's glossary when the analysis ran.
    default_when
        ``default_when(doc) -> bool``: run with the spec's defaults when ``audit.yaml`` has no
        ``analyses.<name>`` section and this holds of the configuration (``doc``, the mapping
        of its keys), e.g. when a model and an outcome are given; ``<name>: null``, ``false``
        or ``off`` turns it off. The spec added so has ``by_default`` true.
    trend
        ``trend(window_runs, windows) -> Result``: when set and ``audit.yaml`` has ``time:``,
        the analysis also runs once per time window and this turns the per-window runs
        (``{window: AnalysisRun}``) and the window table (:mod:`primafacie.overtime.windows`)
        into a trend Result, stored as ``results["trend"]`` and ``tables/<name>_trend.csv``.
    weights
        Whether the analysis accepts sample weights (``weights:`` in audit.yaml); a
        configuration with weights and an analysis without them is refused, naming it.
    reference_rows
        Whether the analysis compares the protected rows with the rest of its rows: the audit
        then gives it only the rows of the comparisons (protected or reference on each
        attribute with a listed reference, :meth:`AuditData.compared`) and states the
        comparison and the rows left out in its scope. False for an analysis that reads the
        references itself (group metrics) or has its own categories.
    encoded_text
        Whether the analysis takes the data's dictionary-encoded text columns as they are
        (:mod:`primafacie.data_dictionary`; shown to give the bytes of the text columns); the
        audit gives the others those columns as text.
    reads_features
        Whether the analysis reads the feature columns. One that does not (group metrics:
        the protected attributes, decisions, outcomes, weights and scores) is given its text
        columns with the features' left encoded: decoding them all was ~50 B per row held
        while the situation test ran beside it (the Dask client's peak at 10^7 rows).
    client_only
        Whether the analysis runs in the audit's process alone, never on the compute backend
        (it ignores ``Context.backend``): on a Dask cluster the audit then runs it beside
        the next analysis, whose tasks would otherwise wait for it with the workers idle
        (:func:`primafacie.compute.overlapped`).
    """

    name: str
    title: str
    lead: str
    spec: type
    run: Callable[[Any, Context], AnalysisRun]
    section: Callable[[AnalysisRun, Any, Mapping[str, Any]], Section]
    description: str = ""
    needs_scm: Callable[[Any], bool] = _needs_nothing
    needs_outcome: bool = False
    check: Callable[[Any, Any], None] = _no_check
    check_data: Callable[[Any, Any, Any], None] = _no_check_data
    assumptions: Callable[[Mapping[str, Any], Mapping[str, Any]], list[str]] = _no_assumptions
    seeds: Callable[[Any], dict[str, int]] = _no_seeds
    overview: Callable[[AnalysisRun], Any] | None = None
    stage: str = ""
    headline_number: Callable[[AnalysisRun], str] | None = None
    default_on: bool = False
    finding: Callable[[AnalysisRun], dict[str, Any]] | None = None
    glossary: tuple[tuple[str, str], ...] = ()
    trend: Callable[[Mapping[str, AnalysisRun], pd.DataFrame], Any] | None = None
    weights: bool = False
    reference_rows: bool = False
    encoded_text: bool = False
    reads_features: bool = True
    default_when: Callable[[Mapping[str, Any]], bool] | None = None
    client_only: bool = False

    @classmethod
    def define(cls, namespace: Mapping[str, Any], **fields: Any) -> Analysis:
        """The analysis of a module: its hooks are the functions the module defines under the
        fields' names, the rest is given.

        An ``analysis.py`` defines ``run`` and ``section`` and whichever of the optional hooks
        it needs (``check``, ``check_data``, ``needs_scm``, ``assumptions``, ``seeds``,
        ``overview``, ``headline_number``, ``finding``, ``trend``, ``default_when``), and the
        constants ``LEAD`` and ``GLOSSARY``; ``define(globals(), name=..., title=...,
        spec=..., description=...)`` collects them, so a hook is written once, as a function,
        and never listed again. A keyword overrides what the module holds; a hook imported
        from another module is given by keyword (a linter would drop an import it sees unused).

        Parameters
        ----------
        namespace
            The module's ``globals()``.
        **fields
            The other fields of :class:`Analysis` (``name``, ``title``, ``spec``, ...).

        Returns
        -------
        Analysis

        Examples
        --------
        >>> def run(spec, ctx): ...
        >>> def section(run, data, cfg): ...
        >>> def seeds(spec): return {"toy": 0}
        >>> toy = Analysis.define({"run": run, "section": section, "seeds": seeds,
        ...                        "LEAD": "Counts."}, name="toy", title="Toy", spec=dict)
        >>> toy.lead, toy.seeds(None), toy.check is _no_check
        ('Counts.', {'toy': 0}, True)
        """
        found = {hook: namespace[hook] for hook in _HOOKS if callable(namespace.get(hook))}
        constants = {field: namespace[name] for name, field in _CONSTANTS.items()
                     if name in namespace}  # fmt: skip
        return cls(**{**found, **constants, **fields})

    @property
    def stage_name(self) -> str:
        """The progress-bar label of this analysis."""
        return self.stage or self.title.lower()
