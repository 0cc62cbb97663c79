"""``PrincipalFairness``: the user-facing estimator (configure in ``__init__``, run on AuditData)."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..base import Engine
from ..data import AuditData
from ..errors import InputError
from ..validation import validate_params
from .estimate import CellCounts, bootstrap_counts, count_cells, encode_cells
from .evaluate import DEFAULT_TOL, evaluate_margins
from .params import _DEFINITIONS, PARAMETER_CONSTRAINTS, WHERE, _names
from .repair import randomised_repair
from .results import PrincipalResult, RepairResult

__all__ = ["PrincipalFairness", "principal_arrays"]


def _as_definitions(definitions: Any, definition: Any = None) -> tuple[int, ...]:
    """The validated definition(s) as a tuple without repeats, in the order given (the
    deprecated ``definition``, when given, with a DeprecationWarning)."""
    raw = definitions
    if definition is not None:
        warnings.warn(
            "PrincipalFairness(definition=...) is deprecated and will be removed in the next "
            "release; use definitions=... (the audit.yaml key)",
            DeprecationWarning,
            stacklevel=4,  # the caller of run / repair
        )
        raw = definition
    validate_params(
        "PrincipalFairness", {"definitions": [_DEFINITIONS]}, {"definitions": raw}, WHERE
    )
    vals = tuple(raw) if isinstance(raw, (list, tuple, set)) else (raw,)
    return tuple(dict.fromkeys(int(d) for d in vals))


def _boot_summary(boot_vals: dict[str, np.ndarray], level: float) -> dict[str, np.ndarray]:
    """Percentile intervals over replicates (axis 0); NaN-aware (an infeasible replicate is NaN)."""
    alpha = (1.0 - level) / 2.0
    out: dict[str, np.ndarray] = {}
    for key, arr in boot_vals.items():
        if key.startswith("violated_def"):
            out["share_" + key] = arr.mean(axis=0)
            continue
        if key.startswith("eps_def") and arr.ndim == 3:
            for j, ab in enumerate(("00", "01", "10", "11")):
                sub = arr[:, :, j]
                out[f"{key}_{ab}@lo"], out[f"{key}_{ab}@hi"] = _pct(sub, alpha)
            continue
        if arr.ndim != 2 or arr.dtype == bool:
            continue
        out[f"{key}@lo"], out[f"{key}@hi"] = _pct(arr, alpha)
    return out


#: Bootstrap replicates per backend task (each is C' cells of 2x2x2 tables: small).
_BOOT_BLOCK = 256


def _boot_block(shared: tuple, bp: np.ndarray) -> dict[str, np.ndarray]:
    """Margins of a block of replicates ``(b, C', 2, 2, 2)``, shaped ``(b, C', ...)``."""
    definitions, joint, tol = shared
    bv = evaluate_margins(bp.reshape(-1, 2, 2, 2), definitions=definitions, joint=joint, tol=tol)
    return {k: v.reshape(bp.shape[:2] + v.shape[1:]) for k, v in bv.items()}


def _boot_values(
    bp: np.ndarray, definitions: Sequence[int], joint: str, tol: float, backend: Any
) -> dict[str, np.ndarray]:
    """Margins of every replicate, ``{key: (B, C', ...)}``; blocks of replicates on the
    backend when one is given (every cell is evaluated on its own, so blocking changes no
    value; the replicates themselves were drawn before, from one seeded stream)."""
    shared = (tuple(definitions), joint, tol)
    if backend is None:
        return _boot_block(shared, bp)
    from ..compute import chunk_slices, get_backend

    blocks = [bp[sl] for sl in chunk_slices(len(bp), _BOOT_BLOCK)]
    parts = get_backend(backend).map(_boot_block, blocks, shared=shared)
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def _require_bootstrap(n_boot: int, cells: int) -> None:
    """Refuse a bootstrap whose arrays cannot fit in memory, before drawing it."""
    from ..budget import PRINCIPAL_BYTES_PER_REPLICATE_CELL, SETTINGS, Need, require

    what = f"the bootstrap ({n_boot} replicates x {cells} covariate cells)"
    need = n_boot * cells * PRINCIPAL_BYTES_PER_REPLICATE_CELL
    require(Need("principal", what, SETTINGS["principal"], need))


def _cells_to_evaluate(
    cc: CellCounts, empty_cells: str, min_group: int, protected: str, a0: Any, a1: Any
) -> np.ndarray:
    """Indices of the cells with both groups; warn about (or refuse) the others and small ones."""
    valid = cc.valid
    if not valid.all():
        bad = np.flatnonzero(~valid)
        arm_sizes = cc.n_arm[bad[0]]
        missing = f"A=0 ({a0})" if arm_sizes[0] == 0 else f"A=1 ({a1})"
        msg = (
            f"{len(bad)} covariate cell(s) lack one group of {protected!r}; first: "
            f"{cc.labels[bad[0]]!r} has no {missing} rows (n(A=0)={arm_sizes[0]}, "
            f"n(A=1)={arm_sizes[1]})"
        )
        if empty_cells == "error":
            raise InputError(
                msg + "; coarsen the covariates, or skip such cells (--skip-empty on the CLI, "
                "empty_cells='skip' in Python)"
            )
        warnings.warn(msg + "; skipped", stacklevel=3)  # the caller of principal_arrays
    if cc.small.any():
        warnings.warn(
            f"{int(cc.small.sum())} cell(s) have an arm with fewer than {min_group} people; "
            "they are flagged 'small' in the results",
            stacklevel=3,
        )
    idx = np.flatnonzero(valid)
    if idx.size == 0:
        raise InputError(
            f"no covariate cell has both groups of {protected!r}; nothing can be compared"
        )
    return idx


def _scatter(arr: np.ndarray, idx: np.ndarray, n_cells: int) -> np.ndarray:
    """Values of the evaluated cells placed in an array over every cell (NaN / False elsewhere)."""
    shape = (n_cells,) + arr.shape[1:]
    out = np.zeros(shape, dtype=bool) if arr.dtype == bool else np.full(shape, np.nan)
    out[idx] = arr
    return out


def _pct(arr: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore", RuntimeWarning
        )  # all-NaN column: an always-infeasible program
        lo = np.nanquantile(arr, alpha, axis=0)
        hi = np.nanquantile(arr, 1.0 - alpha, axis=0)
    return lo, hi


#: The engine's parameters that :func:`principal_arrays` takes, validated against their
#: declarations (:data:`PARAMETER_CONSTRAINTS`) and passed by :class:`PrincipalFairness`.
_ENGINE_ARGS = tuple("definitions joint tol min_group empty_cells n_boot seed level".split())
#: The labels :class:`PrincipalFairness` reads from the data and carries into the result.
_LABELS = tuple("protected a1 a0 covariates decision outcome".split())


# over 80 lines only through its numpy-style docstring; the body is under 60
def principal_arrays(
    a: np.ndarray,
    s: np.ndarray,
    y: np.ndarray,
    codes: np.ndarray | None = None,
    labels: Sequence[str] | None = None,
    *,
    definitions: Sequence[int] = (2,),
    joint: str = "tau0",
    tol: float = DEFAULT_TOL,
    min_group: int = 5,
    empty_cells: str = "error",
    n_boot: int = 0,
    seed: int | None = 0,
    level: float = 0.95,
    protected: str = "A",
    a1: str = "1",
    a0: str = "0",
    covariates: Sequence[str] = (),
    decision: str | None = None,
    outcome: str | None = None,
    backend: Any = None,
) -> PrincipalResult:
    """Evaluate the method on 0/1 arrays (the engine behind :meth:`PrincipalFairness.run`).

    Parameters
    ----------
    a, s, y
        Protected attribute, decision and outcome as 0/1 arrays.
    codes, labels
        Optional cell code per row and cell labels.
    definitions, joint, tol, min_group, empty_cells, n_boot, seed, level
        See :class:`PrincipalFairness`.
    protected, a1, a0, covariates, decision, outcome
        Labels carried into the result (``decision`` / ``outcome``: the column names of S
        and Y, shown in its scope).
    backend
        :mod:`primafacie.compute` backend the bootstrap replicates are evaluated on, in
        blocks (the counts are drawn here, from one seeded stream, so every backend gives the
        same replicates and the same intervals).

    Returns
    -------
    PrincipalResult

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 400); y = rng.integers(0, 2, 400); s = y.copy()
    >>> r = principal_arrays(a, s, y)
    >>> bool(r.violated(2)[0]), float(r.values["eps_sum_def2"][0])
    (False, 0.0)
    """
    args = locals()
    validate_params("principal_arrays", PARAMETER_CONSTRAINTS, {k: args[k] for k in _ENGINE_ARGS})
    cc: CellCounts = count_cells(a, s, y, codes, labels, min_group=min_group)
    idx = _cells_to_evaluate(cc, empty_cells, min_group, protected, a0, a1)
    vals = evaluate_margins(cc.p[idx], definitions=definitions, joint=joint, tol=tol)
    full = {key: _scatter(arr, idx, cc.counts.shape[0]) for key, arr in vals.items()}
    boot = None
    if n_boot:
        _require_bootstrap(int(n_boot), len(idx))
        bc = bootstrap_counts(cc.counts[idx], n_boot, seed)  # (B, C', 2, 2, 2)
        bp = bc / bc.sum(axis=(3, 4), keepdims=True)
        shaped = _boot_values(bp, definitions, joint, tol, backend)
        summ = _boot_summary(shaped, level)
        boot = {key: _scatter(arr, idx, cc.counts.shape[0]) for key, arr in summ.items()}
    valid = cc.valid
    return PrincipalResult(
        protected=protected,
        a1=str(a1),
        a0=str(a0),
        definitions=tuple(definitions),
        covariates=tuple(covariates),
        joint=joint,
        tol=tol,
        labels=cc.labels,
        counts=cc.counts,
        evaluated=valid,
        small=cc.small,
        min_group=min_group,
        values=full,
        boot=boot,
        n_boot=int(n_boot),
        level=level,
        seed=seed,
        decision=decision,
        outcome=outcome,
    )


def _pooled(data: Any, attr: str) -> bool:
    """Whether ``attr`` compares its protected values with a listed (or ``highest``)
    reference: its rows are then the two groups, binary by construction whatever the number
    of values on each side, which are pooled. ``data`` may be the audit's ``compared()`` rows
    (the reference then in ``comparison_info``)."""
    if data.reference.get(attr) is not None:
        return True
    info = getattr(data, "comparison_info", None) or []
    return any(c["attribute"] == attr and c["rule"] != "rest" for c in info)


def _sides(data: Any, attr: str, mask: np.ndarray) -> tuple[str, str]:
    """The labels of A=0 (protected) and A=1: the value of each side, or with a listed
    reference the values found on each side, sorted and joined (``"b, h (pooled)"`` when a
    side holds several)."""
    col = data.frame[attr]
    if not _pooled(data, attr):
        return str(col[mask].iloc[0]), str(col[~mask].iloc[0])

    def label(values: Any) -> str:
        found = sorted(map(str, pd.unique(values)))
        return ", ".join(found) + (" (pooled)" if len(found) > 1 else "")

    return label(col[mask]), label(col[~mask])


def _check_binary(data: Any, attr: str) -> None:
    """Principal strata compare exactly two groups: a protected attribute with more values is
    an error that names what to set instead (a binary protected attribute, a listed
    reference, or a 0/1 column comparing the protected value(s) with all others); with a
    listed or ``highest`` reference the comparison is binary by construction."""
    values = pd.unique(data.frame[attr])
    if len(values) == 2 or _pooled(data, attr):
        return
    shown = sorted(map(str, values))[:10]
    protected = [str(v) for v in data.protected.get(attr, ())]
    binary = [a for a in data.protected if a != attr and data.frame[a].nunique(dropna=False) == 2]
    fixes = []
    if binary:
        fixes.append(
            f"set analyses.principal.protected (protected= in Python, --protected) to a binary "
            f"protected attribute: {', '.join(map(repr, binary))}"
        )
    flag = f"{attr}_{'_'.join(protected) or 'protected'}"
    fixes.append(
        f"or give a reference (protected: {{{attr}: {{values: [...], reference: [...] | "
        "highest}}): the protected values are then compared with the reference values, each "
        "side pooled"
    )
    fixes.append(
        f"or compare {' or '.join(map(repr, protected)) or 'the protected value(s)'} with all "
        f"other values of {attr!r}: add a column {flag!r} that is 1 for them and 0 otherwise, "
        f"and declare it instead (protected: {{{flag}: 1}})"
    )
    raise InputError(
        f"protected attribute {attr!r} must be binary for principal strata (they compare two "
        f"groups); it has {len(values)} distinct values: {shown}. To fix: "
        + "; ".join(fixes).removeprefix("or ")  # the first fix is not an alternative
    )


class PrincipalFairness(Engine):
    """Counterfactual fairness on principal strata: evaluation by bounds/LP and minimal repair.

    Parameters
    ----------
    definitions
        1 (strong: each of the strata Y(1)=Y(0)=1 and =0) or 2 (weak: pooled), or a list of both.
        Verdicts for both definitions are always reported; this selects the repair program(s).
    covariates
        Discrete columns X; Assumption 1 (A independent of the potential values given X) is taken
        to hold within each cell, and everything is computed per cell.
    n_boot
        Bootstrap replicates for percentile intervals of the bounds, LP endpoints and sum(eps*)
        (an extension, not from the paper; 0 = off).
    seed
        Seed of the bootstrap and of the randomised repair.
    definition
        Former name of ``definitions`` (read for one release, with a DeprecationWarning).
    joint
        ``"tau0"``: bound tau1' with tau0'=0 fixed (the paper's Section 4 / Table 5; default);
        ``"tau1"``: bound tau0' with tau1'=0 (its Section 3.2).
    tol
        Zero tolerance (default 1e-7, HiGHS' feasibility tolerance; the spec's 1e-9 is below the
        solver's accuracy, so a bound that is exactly 0 could flip).
    min_group
        Cells with an arm smaller than this are flagged ``small`` (estimates unreliable).
    empty_cells
        ``"error"`` (default: InputError naming the cell) or ``"skip"`` (warn and skip it).
    level
        Bootstrap percentile interval level.
    protected
        With an AuditData: which of its protected attributes to use when it has several (a
        name). With a table: ``{column: protected value(s)}`` (the protected group is A=0). A
        mapping given with an AuditData replaces its protected attributes.
    decision, outcome
        Decision (S) and true-outcome (Y) columns; required with a table, and they override
        the AuditData's roles when given.
    favorable, outcome_favorable
        Values of ``decision`` / ``outcome`` coded 1 (default: the AuditData's, else 1).
    backend
        :mod:`primafacie.compute` backend the bootstrap replicates are evaluated on (blocks of
        replicates; identical results on every backend).

    Notes
    -----
    Coding: A = 0 is the protected group of ``AuditData.protected`` and A = 1 the other value of
    the (binary) column; S = 1 and Y = 1 are the favourable decision / outcome. tau' > 0 means S
    favours A=1 among people whose outcome A does not change.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from primafacie import AuditData, PrincipalFairness
    >>> rng = np.random.default_rng(1)
    >>> df = pd.DataFrame({"g": rng.choice(["f", "m"], 500), "y": rng.integers(0, 2, 500)})
    >>> df["s"] = df["y"]
    >>> data = AuditData(df, features={}, protected={"g": "f"}, decision="s", outcome="y")
    >>> res = PrincipalFairness(definitions=2).run(data)
    >>> res.summary().loc[1, "verdict"]
    'not refuted'

    A table works as well, with the roles given to the constructor:

    >>> pf = PrincipalFairness(definitions=2, protected={"g": "f"}, decision="s", outcome="y")
    >>> pf.run(df).summary().loc[1, "verdict"]
    'not refuted'
    """

    _parameter_constraints: dict[str, list[Any]] = PARAMETER_CONSTRAINTS
    _where = WHERE

    def __init__(
        self,
        definitions: int | Sequence[int] = 2,
        covariates: Sequence[str] = (),
        n_boot: int = 0,
        seed: int | None = 0,
        *,
        definition: int | Sequence[int] | None = None,
        joint: str = "tau0",
        tol: float = DEFAULT_TOL,
        min_group: int = 5,
        empty_cells: str = "error",
        level: float = 0.95,
        protected: str | Mapping[str, Any] | None = None,
        decision: str | None = None,
        outcome: str | None = None,
        favorable: Any = None,
        outcome_favorable: Any = None,
        backend: Any = None,
    ) -> None:
        self._store_params(locals())

    # ------------------------------------------------------------------ helpers
    def _defs(self) -> tuple[int, ...]:
        return _as_definitions(self.definitions, self.definition)

    def _audit_data(self, data: Any) -> AuditData:
        """The AuditData to evaluate: ``data`` itself, or with the constructor's roles applied;
        with a listed or ``highest`` reference, its protected and reference rows only."""
        return self._as_audit_data(data, require=("protected", "decision", "outcome")).compared()

    def check(self, data: Any) -> str:
        """Every requirement the data must meet, checked without computing anything (the audit
        calls it before any analysis runs); returns the protected attribute evaluated.

        Raises
        ------
        InputError
            No protected attribute, a protected attribute that is not binary (the message
            names the binary ones to choose instead), or a covariate that is also a role.
        """
        self._validate_params()
        data = self._audit_data(data)
        if not data.protected:
            raise InputError("the data has no protected attribute (protected={column: value})")
        name = self.protected if isinstance(self.protected, str) else None
        attr = data.protected_attribute(name, how="pass protected=NAME")
        _check_binary(data, attr)
        covs = _names(self.covariates)
        if attr in covs:
            raise InputError(f"the protected attribute {attr!r} cannot also be a covariate")
        for role, col_name in (("decision", data.decision), ("outcome", data.outcome)):
            if col_name in covs:
                raise InputError(f"the {role} column {col_name!r} cannot also be a covariate")
        return attr

    def _arrays(self, data: Any) -> dict[str, Any]:
        self._validate_params()
        data = self._audit_data(data)
        attr = self.check(data)
        mask = data.protected_mask(attr)
        a = (~mask).astype(np.int8)  # A=0: the protected group
        a0, a1 = _sides(data, attr, mask)
        s = data.decision_array()
        y = data.outcome_array()
        covs = _names(self.covariates)
        codes, labels, _ = encode_cells(data.frame, covs)
        return dict(
            a=a,
            s=s,
            y=y,
            codes=codes,
            labels=labels,
            protected=attr,
            a1=a1,
            a0=a0,
            covariates=covs,
            ids=data.ids,
            decision=data.decision,
            outcome=data.outcome,
        )

    def _evaluate_arrays(
        self, arr: dict[str, Any], definitions: tuple[int, ...], s: np.ndarray, n_boot: int
    ) -> PrincipalResult:
        own = {name: getattr(self, name) for name in _ENGINE_ARGS}
        labels = {name: arr[name] for name in _LABELS}
        keywords = own | labels | {"definitions": definitions, "n_boot": n_boot}
        return principal_arrays(arr["a"], s, arr["y"], arr["codes"], arr["labels"], **keywords,
                                backend=self.backend)  # fmt: skip

    # ------------------------------------------------------------------ API
    def run(self, data: AuditData | pd.DataFrame | Any) -> PrincipalResult:
        """Bounds, LP ranges, verdicts and eps* per covariate cell.

        Parameters
        ----------
        data
            An :class:`~primafacie.data.AuditData` with one binary protected attribute (or
            ``protected=NAME``), ``decision`` and ``outcome`` set; or a DataFrame / polars /
            pyarrow table, with ``protected={column: value}``, ``decision`` and ``outcome``
            given to the constructor.

        Returns
        -------
        PrincipalResult

        Raises
        ------
        InputError
            A parameter outside its constraints (the message names it, what it accepts and
            the flag / ``audit.yaml`` key), a missing role, a non-binary column, or a cell
            lacking a group with ``empty_cells="error"``.
        """
        arr = self._arrays(data)
        return self._evaluate_arrays(arr, self._defs(), arr["s"], int(self.n_boot))

    def evaluate(self, data: AuditData | pd.DataFrame | Any) -> PrincipalResult:
        """Deprecated alias of :meth:`run` (every engine runs as ``.run(data)``)."""
        warnings.warn(
            "PrincipalFairness.evaluate is deprecated and will be removed in the next release; "
            "use PrincipalFairness.run",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.run(data)

    def repair(
        self,
        data: AuditData | pd.DataFrame | Any,
        definition: int | None = None,
        seed: int | None = None,
    ) -> RepairResult:
        """Solve for eps* and apply the seeded randomised intervention to the decisions.

        Parameters
        ----------
        data
            As for :meth:`run`.
        definition
            Which definition to repair for (default: the first configured one).
        seed
            Seed of the intervention (default: the estimator's seed).

        Returns
        -------
        RepairResult
            eps per cell, S' per row, the post-repair check on the estimated margins and the
            evaluation of S' on the data (no bootstrap here: use :meth:`run` for that).
        """
        defs = self._defs()
        d = defs[0] if definition is None else _as_definitions(definition)[0]
        arr = self._arrays(data)
        if seed is not None:
            validate_params(
                "PrincipalFairness.repair", {"seed": PARAMETER_CONSTRAINTS["seed"]}, {"seed": seed}
            )
        seed = self.seed if seed is None else seed
        before = self._evaluate_arrays(arr, (d,), arr["s"], 0)
        eps = before.values[f"eps_def{d}"]
        s_new = randomised_repair(arr["s"], arr["a"], np.nan_to_num(eps), arr["codes"], seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # already warned for `before`
            after = self._evaluate_arrays(arr, (d,), s_new, 0)
        return RepairResult(
            definition=d,
            evaluation=before,
            eps=eps,
            decisions=arr["s"],
            repaired=s_new,
            a=arr["a"],
            cell_codes=arr["codes"],
            ids=arr["ids"],
            after=after,
            seed=seed,
        )
