"""``PrincipalFairness``: the user-facing estimator (configure in ``__init__``, run on AuditData)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..data import AuditData
from ..errors import InputError
from .estimate import CellCounts, bootstrap_counts, count_cells, encode_cells
from .evaluate import DEFAULT_TOL, evaluate_margins
from .repair import randomised_repair
from .results import PrincipalResult, RepairResult

__all__ = ["PrincipalFairness", "principal_arrays"]

_EMPTY_POLICIES = ("error", "skip")


def _as_definitions(definition: Any, definitions: Any) -> tuple[int, ...]:
    raw = definitions if definitions is not None else definition
    vals = tuple(raw) if isinstance(raw, (list, tuple, set)) else (raw,)
    if not vals:
        raise InputError("definitions must list 1 and/or 2")
    out = []
    for d in vals:
        if isinstance(d, bool) or d not in (1, 2):
            raise InputError(f"definition must be 1 or 2, got {d!r}")
        out.append(int(d))
    return tuple(dict.fromkeys(out))


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


def _pct(arr: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore", RuntimeWarning
        )  # all-NaN column: an always-infeasible program
        lo = np.nanquantile(arr, alpha, axis=0)
        hi = np.nanquantile(arr, 1.0 - alpha, axis=0)
    return lo, hi


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
) -> PrincipalResult:
    """Evaluate the method on 0/1 arrays (the engine behind :meth:`PrincipalFairness.evaluate`).

    Parameters
    ----------
    a, s, y
        Protected attribute, decision and outcome as 0/1 arrays.
    codes, labels
        Optional cell code per row and cell labels.
    definitions, joint, tol, min_group, empty_cells, n_boot, seed, level
        See :class:`PrincipalFairness`.
    protected, a1, a0, covariates
        Labels carried into the result.

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
    if empty_cells not in _EMPTY_POLICIES:
        raise InputError(f"empty_cells must be one of {_EMPTY_POLICIES}, got {empty_cells!r}")
    if not 0.0 < level < 1.0:
        raise InputError(f"level must be in (0, 1), got {level!r}")
    if n_boot < 0:
        raise InputError(f"n_boot must be >= 0, got {n_boot!r}")
    cc: CellCounts = count_cells(a, s, y, codes, labels, min_group=min_group)
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
                msg
                + "; coarsen the covariates, or skip such cells (--skip-empty on the CLI, empty_cells='skip' in Python)"
            )
        warnings.warn(msg + "; skipped", stacklevel=2)
    if cc.small.any():
        warnings.warn(
            f"{int(cc.small.sum())} cell(s) have an arm with fewer than {min_group} people; "
            "they are flagged 'small' in the results",
            stacklevel=2,
        )
    idx = np.flatnonzero(valid)
    if idx.size == 0:
        raise InputError(
            f"no covariate cell has both groups of {protected!r}; nothing can be compared"
        )
    p = cc.p[idx]
    vals = evaluate_margins(p, definitions=definitions, joint=joint, tol=tol)
    full: dict[str, np.ndarray] = {}
    for key, arr in vals.items():
        shape = (cc.counts.shape[0],) + arr.shape[1:]
        if arr.dtype == bool:
            out = np.zeros(shape, dtype=bool)
        else:
            out = np.full(shape, np.nan)
        out[idx] = arr
        full[key] = out
    boot = None
    if n_boot and idx.size:
        bc = bootstrap_counts(cc.counts[idx], n_boot, seed)  # (B, C', 2, 2, 2)
        bp = bc / bc.sum(axis=(3, 4), keepdims=True)
        flat = bp.reshape(-1, 2, 2, 2)
        bv = evaluate_margins(flat, definitions=definitions, joint=joint, tol=tol)
        shaped = {k: v.reshape((n_boot, idx.size) + v.shape[1:]) for k, v in bv.items()}
        summ = _boot_summary(shaped, level)
        boot = {}
        for key, arr in summ.items():
            out = np.full(cc.counts.shape[0], np.nan)
            out[idx] = arr
            boot[key] = out
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
    )


class PrincipalFairness:
    """Counterfactual fairness on principal strata: evaluation by bounds/LP and minimal repair.

    Parameters
    ----------
    definition
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
    definitions
        Alias of ``definition`` (the name used by ``audit.yaml``).
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
        Which protected attribute of the AuditData to use when it has several.

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
    >>> res = PrincipalFairness(definition=2).evaluate(data)
    >>> res.summary().loc[1, "verdict"]
    'not refuted'
    """

    def __init__(
        self,
        definition: int | Sequence[int] = 2,
        covariates: Sequence[str] = (),
        n_boot: int = 0,
        seed: int | None = 0,
        *,
        definitions: Sequence[int] | None = None,
        joint: str = "tau0",
        tol: float = DEFAULT_TOL,
        min_group: int = 5,
        empty_cells: str = "error",
        level: float = 0.95,
        protected: str | None = None,
    ) -> None:
        self.definition = definition
        self.covariates = covariates
        self.n_boot = n_boot
        self.seed = seed
        self.definitions = definitions
        self.joint = joint
        self.tol = tol
        self.min_group = min_group
        self.empty_cells = empty_cells
        self.level = level
        self.protected = protected

    # ------------------------------------------------------------------ helpers
    def _defs(self) -> tuple[int, ...]:
        return _as_definitions(self.definition, self.definitions)

    def _arrays(self, data: AuditData) -> dict[str, Any]:
        if not isinstance(data, AuditData):
            raise InputError(f"data must be an AuditData, got {type(data).__name__}")
        if self.joint not in ("tau0", "tau1"):
            raise InputError(f"joint must be 'tau0' or 'tau1', got {self.joint!r}")
        if not data.protected:
            raise InputError("the data has no protected attribute (protected={column: value})")
        attr = data.protected_attribute(self.protected, how="pass protected=NAME")
        col = data.frame[attr]
        values = pd.unique(col)
        if len(values) != 2:
            raise InputError(
                f"protected attribute {attr!r} must be binary for principal strata; it has "
                f"{len(values)} distinct values: {sorted(map(str, values))[:10]}"
            )
        mask = data.protected_mask(attr)
        a = (~mask).astype(np.int8)  # A=0: the protected group
        a0 = str(col[mask].iloc[0])
        a1 = str(col[~mask].iloc[0])
        s = data.decision_array()
        y = data.outcome_array()
        covs = list(self.covariates or ())
        if attr in covs:
            raise InputError(f"the protected attribute {attr!r} cannot also be a covariate")
        for role, name in (("decision", data.decision), ("outcome", data.outcome)):
            if name in covs:
                raise InputError(f"the {role} column {name!r} cannot also be a covariate")
        codes, labels, _ = encode_cells(data.frame, covs)
        return dict(
            a=a, s=s, y=y, codes=codes, labels=labels, protected=attr, a1=a1, a0=a0, covariates=covs
        )

    # ------------------------------------------------------------------ API
    def evaluate(self, data: AuditData) -> PrincipalResult:
        """Bounds, LP ranges, verdicts and eps* per covariate cell.

        Parameters
        ----------
        data
            AuditData with one binary protected attribute, ``decision`` and ``outcome`` set.

        Returns
        -------
        PrincipalResult
        """
        arr = self._arrays(data)
        return principal_arrays(
            arr["a"],
            arr["s"],
            arr["y"],
            arr["codes"],
            arr["labels"],
            definitions=self._defs(),
            joint=self.joint,
            tol=self.tol,
            min_group=self.min_group,
            empty_cells=self.empty_cells,
            n_boot=int(self.n_boot),
            seed=self.seed,
            level=self.level,
            protected=arr["protected"],
            a1=arr["a1"],
            a0=arr["a0"],
            covariates=arr["covariates"],
        )

    def repair(
        self, data: AuditData, definition: int | None = None, seed: int | None = None
    ) -> RepairResult:
        """Solve for eps* and apply the seeded randomised intervention to the decisions.

        Parameters
        ----------
        data
            As for :meth:`evaluate`.
        definition
            Which definition to repair for (default: the first configured one).
        seed
            Seed of the intervention (default: the estimator's seed).

        Returns
        -------
        RepairResult
            eps per cell, S' per row, the post-repair check on the estimated margins and the
            evaluation of S' on the data (no bootstrap here: use :meth:`evaluate` for that).
        """
        defs = self._defs()
        d = defs[0] if definition is None else _as_definitions(definition, None)[0]
        arr = self._arrays(data)
        kw = dict(
            joint=self.joint,
            tol=self.tol,
            min_group=self.min_group,
            empty_cells=self.empty_cells,
            protected=arr["protected"],
            a1=arr["a1"],
            a0=arr["a0"],
            covariates=arr["covariates"],
            level=self.level,
        )
        before = principal_arrays(
            arr["a"],
            arr["s"],
            arr["y"],
            arr["codes"],
            arr["labels"],
            definitions=(d,),
            n_boot=0,
            seed=self.seed,
            **kw,
        )
        eps = before.values[f"eps_def{d}"]
        s_new = randomised_repair(
            arr["s"],
            arr["a"],
            np.nan_to_num(eps),
            arr["codes"],
            self.seed if seed is None else seed,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # already warned for `before`
            after = principal_arrays(
                arr["a"],
                s_new,
                arr["y"],
                arr["codes"],
                arr["labels"],
                definitions=(d,),
                n_boot=0,
                seed=self.seed,
                **kw,
            )
        return RepairResult(
            definition=d,
            evaluation=before,
            eps=eps,
            decisions=arr["s"],
            repaired=s_new,
            a=arr["a"],
            cell_codes=arr["codes"],
            ids=data.ids,
            after=after,
            seed=self.seed if seed is None else seed,
        )

    def __repr__(self) -> str:
        return (
            f"PrincipalFairness(definition={self.definition!r}, covariates={list(self.covariates)!r}, "
            f"n_boot={self.n_boot!r}, seed={self.seed!r}, joint={self.joint!r})"
        )
