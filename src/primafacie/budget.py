"""Bounded work: the memory a run will need, estimated before it starts, against the machine's.

An audit runs its analyses one after the other, so its peak memory is about the data plus the
largest analysis' working set. :func:`check_audit` estimates each requested analysis' dominant
arrays from the configuration and the data's shape (rows, levels), before any analysis runs,
and refuses the run (:class:`~primafacie.errors.InputError`, exit 2) when one would not fit in
the memory available (``MemAvailable`` of ``/proc/meminfo``, lowered to the cgroup's
``memory.max`` headroom in a container), naming the estimate and the setting to change. An
engine calls :func:`require` before it allocates a large array, so the API is bounded too.

The estimates count the arrays that grow with the settings (measured, see ``docs/security.md``
"Bounded work"); they are not a promise that a smaller run fits, only that a run far too large
is refused before it starts instead of dying half way.

Examples
--------
>>> require(Need("principal", "the bootstrap counts", "analyses.principal.n_boot", 10**6),
...         available=10**9)
>>> require(Need("principal", "the bootstrap counts", "analyses.principal.n_boot", 10**12),
...         available=10**9)
Traceback (most recent call last):
...
primafacie.errors.InputError: principal: the bootstrap counts would need about 1.0 TB of memory...
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import InputError

__all__ = [
    "Need",
    "available_memory",
    "require",
    "check_audit",
    "audit_needs",
    "memory_error_message",
    "SETTINGS",
]

#: Bytes per (bootstrap replicate x covariate cell) of principal fairness: counts, shares and
#: the per-definition margins of every replicate (measured peak: 714 B with 2 definitions).
PRINCIPAL_BYTES_PER_REPLICATE_CELL = 800
#: Bytes per (row x item) of the recourse item matrix: a bool one-hot, its padded transpose
#: and the packed bitset (1 + 1 + 1/8), rounded up for the copies made while mining.
RECOURSE_BYTES_PER_ROW_ITEM = 3

#: Bytes per (row x category) of a categorical node of the causal model (classifier
#: probabilities, the CDF over the fixed category order and its cumulative sum): measured
#: peak 24.0 B at 4,000 x 400, 8,000 x 400 and 4,000 x 800 (tracemalloc, fit + noise).
CAUSAL_BYTES_PER_ROW_CATEGORY = 24

#: Bytes per (row x method x k) of situation testing's reduced neighbour lists.
SITUATION_BYTES_PER_ROW_SEARCH = 40

#: What to change when an analysis needs too much memory (named in every message).
SETTINGS = {
    "principal": "analyses.principal.n_boot (or fewer analyses.principal.covariates)",
    "recourse": "the values of the categorical features (leave out or bin a feature with many "
    "values, e.g. an id) or analyses.recourse.bins",
    "situation": "analyses.situation.k and analyses.situation.methods (or fewer rows)",
    "certainty": "analyses.certainty.n_draws",
}


@dataclass(frozen=True)
class Need:
    """Memory an analysis will need: ``bytes`` for ``what``, set by ``setting``."""

    analysis: str
    what: str
    setting: str
    bytes: int


def _fmt(n: float) -> str:
    """Bytes in decimal units (1.0 TB = 10^12 bytes), two significant figures or more."""
    for unit, size in (("EB", 1e18), ("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n / 1e3:.1f} kB"


def _read_int(path: Path) -> int | None:
    try:
        text = path.read_text().split()[0]
    except (OSError, IndexError):
        return None
    return int(text) if text.isdigit() else None  # "max" (no limit) -> None


def _meminfo_available(path: Path = Path("/proc/meminfo")) -> int | None:
    try:
        for line in path.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024  # kB
    except (OSError, ValueError, IndexError):
        return None
    return None


def _cgroup_headroom(root: Path = Path("/sys/fs/cgroup")) -> int | None:
    """Limit minus usage of this process' memory cgroup (v2, else v1), or None (no limit)."""
    for limit_file, usage_file in (
        (root / "memory.max", root / "memory.current"),
        (root / "memory" / "memory.limit_in_bytes", root / "memory" / "memory.usage_in_bytes"),
    ):
        limit = _read_int(limit_file)
        if limit is not None and limit < 1 << 60:  # v1 writes "no limit" as ~2^63
            return max(0, limit - (_read_int(usage_file) or 0))
    return None


def available_memory() -> int | None:
    """Bytes this process may still allocate: the smaller of ``MemAvailable`` and the cgroup's
    headroom; ``PRIMAFACIE_MEMORY`` (bytes) overrides both; None when nothing is known."""
    override = os.environ.get("PRIMAFACIE_MEMORY")
    if override and override.strip().isdigit():
        return int(override)
    known = [v for v in (_meminfo_available(), _cgroup_headroom()) if v is not None]
    return min(known) if known else None


def require(need: Need, available: int | None = None) -> None:
    """Refuse ``need`` when it exceeds the memory available (``available`` or the machine's).

    Raises
    ------
    InputError
        With the estimate, the memory available and the setting to change.
    """
    available = available_memory() if available is None else available
    if available is None or need.bytes <= available:
        return
    raise InputError(
        f"{need.analysis}: {need.what} would need about {_fmt(need.bytes)} of memory, more "
        f"than the {_fmt(available)} available (MemAvailable, cgroup memory.max); lower "
        f"{need.setting}"
    )


def _levels(data: Any, columns: list[str]) -> list[int]:
    frame = data.frame
    return [int(frame[c].nunique(dropna=False)) for c in columns if c in frame.columns]


def _principal(spec: Any, data: Any) -> Need:
    cells = min(math.prod(_levels(data, list(spec.covariates))), max(1, data.n))
    return Need(
        "principal",
        f"the bootstrap ({spec.n_boot} replicates x {cells} covariate cells)",
        SETTINGS["principal"],
        int(spec.n_boot) * cells * PRINCIPAL_BYTES_PER_REPLICATE_CELL,
    )


def _recourse(spec: Any, data: Any) -> Need:
    items = 0
    for name, feature in data.features.items():
        kind = getattr(feature, "kind", feature)
        levels = _levels(data, [name])[0] if name in data.frame.columns else 0
        if kind == "numeric":
            bins = spec.bins.get(name)
            levels = min(levels, len(bins) + 1 if isinstance(bins, list) else bins or 10)
        items += levels
    return Need(
        "recourse",
        f"the item matrix ({data.n} rows x {items} feature values)",
        SETTINGS["recourse"],
        data.n * items * RECOURSE_BYTES_PER_ROW_ITEM,
    )


def _situation(spec: Any, data: Any) -> Need:
    ks, methods, d = len(spec.k), len(spec.methods), max(1, len(data.features))
    # per row and method: a float64 copy of the n x d search matrix (factual or
    # counterfactual), and per k the reduced neighbour counts (5 columns x 2 x 4 B, see
    # docs/scaling.md): 704 B a row for the 10^6-row benchmark, whose measured peak was 1,825
    per_row = methods * (8 * d + SITUATION_BYTES_PER_ROW_SEARCH * ks)
    return Need(
        "situation",
        f"the k-NN searches ({data.n} rows, {ks} values of k, {methods} methods)",
        SETTINGS["situation"],
        data.n * per_row,
    )


#: Estimator of each analysis whose working set grows with its settings.
ESTIMATORS: dict[str, Callable[[Any, Any], Need]] = {
    "principal": _principal,
    "recourse": _recourse,
    "situation": _situation,
}


def _causal(cfg: Any, data: Any) -> Need | None:
    """The causal model's largest categorical node with parents: its classifier's CDF grows
    with rows x categories (a many-level categorical feature costs one column everywhere
    else)."""
    causal = getattr(cfg, "causal", None)
    if causal is None:
        return None
    children = {str(b) for _, b in causal.edges}
    sizes = [
        (_levels(data, [name])[0], name)
        for name, feature in data.features.items()
        if name in children
        and getattr(feature, "kind", feature) != "numeric"
        and name in data.frame.columns
    ]
    if not sizes:
        return None
    levels, name = max(sizes)
    return Need(
        "causal model",
        f"the categorical node {name!r} ({data.n} rows x {levels} categories)",
        f"the number of values of {name!r} (bin it, or leave it out of causal.edges)",
        data.n * levels * CAUSAL_BYTES_PER_ROW_CATEGORY,
    )


def audit_needs(cfg: Any, data: Any, scm: bool = False) -> list[Need]:
    """The estimated working set of every requested analysis that has an estimator, and of
    the causal model when one is fitted (``scm``)."""
    needs = []
    for name, estimate in ESTIMATORS.items():
        spec = getattr(cfg.analyses, name, None)
        if spec is not None:
            needs.append(estimate(spec, data))
    causal = _causal(cfg, data) if scm else None
    if causal is not None:
        needs.append(causal)
    return needs


def check_audit(cfg: Any, data: Any, available: int | None = None, scm: bool = False) -> None:
    """Refuse an audit one of whose analyses would not fit in memory, before it runs.

    Parameters
    ----------
    cfg, data
        The configuration and the audited data.
    available
        Bytes available (default: :func:`available_memory`).
    scm
        The audit fits the causal model (its categorical nodes are estimated too).

    Raises
    ------
    InputError
        Naming the analysis, the estimate, the memory available and the setting to change.
    """
    available = available_memory() if available is None else available
    for need in audit_needs(cfg, data, scm):
        require(need, available)


def memory_error_message(analysis: str | None, exc: BaseException) -> str:
    """What to say when an allocation failed anyway: the analysis and the setting to lower."""
    detail = str(exc).strip() or "an allocation failed"
    where = f"{analysis}: " if analysis else ""
    setting = SETTINGS.get(analysis or "", "the sizes of the run (rows, levels, replicates)")
    return f"{where}out of memory ({detail}); lower {setting}"
