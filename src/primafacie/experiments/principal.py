"""Reproductions of the principal-stratum fairness paper (seed 001): Tables 1, 4, 5 and 6.

``run_examples`` writes ``principal-examples.csv`` (columns example, quantity, value) for the
life-insurance example (Table 1) and the numeric example whose Definition 2 program is
infeasible (Table 4); these match the paper exactly (tests/reproduce/test_principal.py).

``run_student`` runs Section 4 on UCI Student Performance and writes ``principal-student.csv``
(subject, protected, definition, quantity, value) and ``principal-student-paper.csv`` (our value
next to the paper's Tables 5-6 for every published cell). Quantities are named
``<subgroup>:<name>`` (subgroup ``-`` for gender, else female/male/rural/urban).

``compare_examples`` and ``compare_student`` write ``NAME-vs-paper.csv`` rows: Tables 1 and 4
exactly (spec §8.1-8.3); Tables 5-6 as reference only, except the verdicts spec §8.8 asks to
reproduce (mat gender and address, por gender: no violation, eps* = 0).

Agreement with the paper (measured 2026-11-22; our preprocessing is the documented guess of
:mod:`primafacie.datasets.student`, because the paper's dichotomisation rules are in a supplement
that is missing). The comparison CSV has one row per published cell (14 subgroups x tau0', tau1',
tau', eps10, sum(eps)); ``same_verdict`` says whether both exclude 0 (or both are positive):

* NB accuracy: 73.2 % (mat) and 75.8 % (por), against the paper's 83.03 % / 80.43 %. Our S is
  therefore a different classifier. No interval matches to 3 decimals, and none should be
  expected to. Variants we tried (G1 >= quantile, Laplace smoothing, undichotomised
  categorical predictors) reach at most 76.7 %.
* Agree (5 of 14 subgroups fully): mat/gender, mat/address (female, male), por/gender. Every
  interval covers 0, no violation and eps = 0, as in Tables 5 and 6. mat/higher female and
  rural also agree: the intervals touch 0 ([0.000, ...]) in both, and eps = 0.
* Differ, mat/higher male and urban: ours refute Definitions 1 and 2 through tau0' > 0
  ([0.015, 0.140] and [0.069, 0.140]), so tau0' = 0 is infeasible and eps01 = 0.018 / 0.074.
  The paper's intervals cover 0.
* Differ, por/address: the paper finds tau1' > 0 and tau' > 0 with eps10 = 0.005 / 0.062. Ours
  are not refuted (tau' in [-0.083, 0.285] female, [-0.000, 0.168] male; eps = 0).
* Partly agree, por/higher: both refute Definition 2 in all four subgroups, with the same sign
  (tau' > 0: S favours students who want higher education). Ours find it through tau0' > 0, where
  the paper finds it through tau1' > 0 given tau0' = 0. Our repair therefore uses eps01 (force
  S'=1 for A=0) and not the paper's eps10. sum(eps) = 0.098 / 0.108 / 0.053 / 0.122 (female,
  male, rural, urban), against the paper's 0.268 / 0.070 / 0.130 / 0.174. Recoding A, Y and S
  together maps tau0' to tau1' and eps01 to eps10 (spec §6), so a different coding or
  dichotomisation is the likely cause. The spec's own check with the same guessed rules found
  the same pattern.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError
from ..io import atomic_write_csv
from ..principal.bounds import corollary1, def3_gap, def4_bounds, prop1_bounds
from ..principal.evaluate import evaluate_margins
from ..principal.lp import lp_intervals
from ..principal.population import TABLE1_STRATA, joint_targets, margins_from_joint, table1_joint
from .compare import Check, check, comparison_frame, read_run_csv
from .shared_doc import compare_doc

__all__ = [
    "run_examples",
    "run_student",
    "compare_examples",
    "compare_student",
    "student_tables",
    "examples_frame",
    "TABLE4",
    "PAPER_TABLE5",
    "PAPER_TABLE6",
]

#: Paper Table 4, ``p[a, s, y] = pr(S=s, Y=y | A=a)``.
TABLE4 = np.array([[[0.53, 0.04], [0.11, 0.32]], [[0.90, 0.02], [0.03, 0.05]]])

#: Paper Table 5: (subject, attribute, subgroup) -> tau0', tau1' (given tau0'=0), tau' intervals.
PAPER_TABLE5: dict[tuple[str, str, str], tuple[tuple[float, float], ...]] = {
    ("mat", "sex", "-"): ((-0.160, 0.134), (-0.091, 0.101), (-0.251, 0.235)),
    ("mat", "address", "female"): ((-0.146, 0.182), (-0.091, 0.136), (-0.238, 0.318)),
    ("mat", "address", "male"): ((-0.126, 0.133), (-0.077, 0.136), (-0.199, 0.269)),
    ("mat", "higher", "female"): ((0.000, 0.211), (0.000, 0.039), (0.000, 0.461)),
    ("mat", "higher", "male"): ((-0.062, 0.140), (-0.021, 0.297), (-0.021, 0.453)),
    ("mat", "higher", "rural"): ((0.000, 0.159), (0.000, 0.175), (0.000, 0.492)),
    ("mat", "higher", "urban"): ((-0.071, 0.184), (-0.071, 0.244), (-0.090, 0.470)),
    ("por", "sex", "-"): ((-0.052, 0.068), (-0.135, 0.060), (-0.188, 0.060)),
    ("por", "address", "female"): ((-0.053, 0.042), (0.004, 0.133), (0.004, 0.175)),
    ("por", "address", "male"): ((-0.052, 0.074), (0.048, 0.286), (0.048, 0.360)),
    ("por", "higher", "female"): ((-0.029, 0.055), (0.231, 0.371), (0.231, 0.426)),
    ("por", "higher", "male"): ((-0.065, 0.065), (0.053, 0.294), (0.053, 0.359)),
    ("por", "higher", "rural"): ((0.000, 0.077), (0.085, 0.429), (0.085, 0.505)),
    ("por", "higher", "urban"): ((-0.034, 0.051), (0.154, 0.268), (0.154, 0.319)),
}
#: Paper Table 6 (Definition 2): eps10 (all other eps are 0; every mat eps is 0).
PAPER_TABLE6: dict[tuple[str, str, str], float] = {
    **{k: 0.0 for k in PAPER_TABLE5 if k[0] == "mat"},
    ("por", "sex", "-"): 0.000,
    ("por", "address", "female"): 0.005,
    ("por", "address", "male"): 0.062,
    ("por", "higher", "female"): 0.268,
    ("por", "higher", "male"): 0.070,
    ("por", "higher", "rural"): 0.130,
    ("por", "higher", "urban"): 0.174,
}

#: protected attribute -> (value coded A=1, value coded A=0)
_CODING = {"sex": ("M", "F"), "address": ("U", "R"), "higher": ("yes", "no")}


def _check_options(options: dict[str, Any], allowed: set[str]) -> None:
    for key, value in options.items():
        if key == "legacy" or key in allowed:
            continue
        if value in (None, False):
            continue
        raise InputError(f"option {key!r} is not supported by this reproduction")


# ---------------------------------------------------------------------- Tables 1 and 4
def _example_rows(example: str, p: np.ndarray) -> list[tuple[str, str, float]]:
    rows: list[tuple[str, str, float]] = []
    add = lambda q, v: rows.append((example, q, float(v)))  # noqa: E731
    for a in (0, 1):
        for s in (0, 1):
            for y in (0, 1):
                add(f"p'_{s}{y}{a}", p[a, s, y])
    b = prop1_bounds(p[None])
    add("prop1_tau0_lower", b.tau0_lower[0])
    add("prop1_tau0_upper", b.tau0_upper[0])
    add("prop1_tau1_lower", b.tau1_lower[0])
    add("prop1_tau1_upper", b.tau1_upper[0])
    for name, flag in zip(
        ("cor1_eq1_lower_pos", "cor1_eq1_upper_neg", "cor1_eq2_lower_pos", "cor1_eq2_upper_neg"),
        corollary1(p[None])[0],
        strict=False,
    ):
        add(name, flag)
    r = lp_intervals(p[None], joint="tau0")
    for name, (lo, hi) in (("tau0'", r.tau0), ("tau1'", r.tau1), ("tau'", r.tau)):
        add(f"lp_{name}_lower", lo[0])
        add(f"lp_{name}_upper", hi[0])
    add("lp_tau0'=0_feasible", r.cond_feasible[0])
    v = evaluate_margins(p[None], definitions=(1, 2))
    add("def1_violated", v["violated_def1"][0])
    add("def2_violated", v["violated_def2"][0])
    for d in (1, 2):
        for j, ab in enumerate(("00", "01", "10", "11")):
            add(f"def{d}_eps{ab}", v[f"eps_def{d}"][0, j])
        add(f"def{d}_eps_sum", v[f"eps_sum_def{d}"][0])
        add(f"def{d}_post_repair_gap_closed", v[f"post_def{d}_closed"][0])
    add("def3_gap_plugin", def3_gap(p[None])[0])
    lo, hi = def4_bounds(p[None])
    add("def4_gap_lower", lo[0])
    add("def4_gap_upper", hi[0])
    return rows


def examples_frame() -> pd.DataFrame:
    """The rows of ``principal-examples.csv`` (see :func:`run_examples`)."""
    rows: list[tuple[str, str, float]] = []
    w = table1_joint()
    t = joint_targets(w)
    for (y1, y0), (size, _h1, _h0) in TABLE1_STRATA.items():
        rows.append(("table1", f"stratum_{y1}{y0}_size", float(size)))
    for key in (
        "rate_S1_11",
        "rate_S0_11",
        "rate_S1_10",
        "rate_S0_10",
        "rate_S1_01",
        "rate_S0_01",
        "rate_S1_00",
        "rate_S0_00",
        "tau1",
        "tau0",
        "tau",
        "pr_S1",
        "pr_S0",
        "def4_S1",
        "def4_S0",
    ):
        rows.append(("table1", f"true_{key}", t[key]))
    rows.append(
        ("table1", "true_def1_holds", float(abs(t["tau1"]) < 1e-12 and abs(t["tau0"]) < 1e-12))
    )
    rows.append(("table1", "true_def2_holds", float(abs(t["tau"]) < 1e-12)))
    rows.append(("table1", "true_def3_holds", float(abs(t["pr_S1"] - t["pr_S0"]) < 1e-12)))
    rows.append(("table1", "true_def4_holds", float(abs(t["def4_S1"] - t["def4_S0"]) < 1e-12)))
    rows += _example_rows("table1", margins_from_joint(w)[0])
    rows += _example_rows("table4", TABLE4)
    return pd.DataFrame(rows, columns=["example", "quantity", "value"])


def run_examples(data_dir: Path | None, out_dir: Path, **options: Any) -> list[Path]:
    """Write ``principal-examples.csv`` for the paper's Table 1 and Table 4.

    Parameters
    ----------
    data_dir
        Unused (the examples are in the paper).
    out_dir
        Output folder (a staging folder when called by the CLI).
    **options
        Only ``legacy`` (ignored: there is no authors' code to mimic).

    Returns
    -------
    list of written paths.

    Examples
    --------
    >>> import tempfile
    >>> paths = run_examples(None, Path(tempfile.mkdtemp()))
    >>> paths[0].name
    'principal-examples.csv'
    """
    _check_options(options, set())
    return [atomic_write_csv(Path(out_dir) / "principal-examples.csv", examples_frame())]


# ---------------------------------------------------------------------- Section 4
def _subgroups(attr: str, d: pd.DataFrame, cross: bool) -> list[tuple[str, np.ndarray]]:
    sex = d["sex_label"].to_numpy()
    addr = d["address_label"].to_numpy()
    if attr == "sex":
        return [("-", np.ones(len(d), dtype=bool))]
    if attr == "address":
        return [("female", sex == "F"), ("male", sex == "M")]
    groups = [
        ("female", sex == "F"),
        ("male", sex == "M"),
        ("rural", addr == "R"),
        ("urban", addr == "U"),
    ]
    if cross:
        groups += [
            (f"{s}&{a}", (sex == s[0].upper()) & (addr == a[0].upper()))
            for s in ("female", "male")
            for a in ("rural", "urban")
        ]
    return groups


def _group_rows(
    subject: str, attr: str, label: str, n_arm: np.ndarray, v: Mapping[str, np.ndarray], g: int
) -> list[tuple[str, str, str, str, float]]:
    """One subgroup's rows: arm sizes, the LP ranges of Definitions 1-2, verdicts and eps*."""

    def row(defn: str, q: str, val: float) -> tuple[str, str, str, str, float]:
        return (subject, attr, defn, f"{label}:{q}", float(val))

    rows = [
        row("-", "n_a0", n_arm[g, 0]),
        row("-", "n_a1", n_arm[g, 1]),
        row("1", "tau0'_lower", v["lp_tau0_lo"][g]),
        row("1", "tau0'_upper", v["lp_tau0_hi"][g]),
        row("1", "tau0'=0_feasible", v["cond_feasible"][g]),
        row("1", "tau1'|tau0'=0_lower", v["lp_cond_lo"][g]),
        row("1", "tau1'|tau0'=0_upper", v["lp_cond_hi"][g]),
        row("1", "tau1'_lower", v["lp_tau1_lo"][g]),
        row("1", "tau1'_upper", v["lp_tau1_hi"][g]),
        row("2", "tau'_lower", v["lp_tau_lo"][g]),
        row("2", "tau'_upper", v["lp_tau_hi"][g]),
    ]
    for defn in (1, 2):
        rows.append(row(str(defn), "violated", v[f"violated_def{defn}"][g]))
        for j, ab in enumerate(("00", "01", "10", "11")):
            rows.append(row(str(defn), f"eps{ab}", v[f"eps_def{defn}"][g, j]))
        rows.append(row(str(defn), "eps_sum", v[f"eps_sum_def{defn}"][g]))
    return rows


def _comparison(
    key: tuple[str, str, str],
    quantity: str,
    paper: tuple[float, float],
    ours: tuple[float, float],
    paper_excl: bool,
    ours_excl: bool,
) -> dict[str, Any]:
    """One row of the paper comparison: both ranges and whether each excludes 0."""
    subject, attr, label = key
    return dict(
        subject=subject,
        protected=attr,
        subgroup=label,
        quantity=quantity,
        paper_lower=paper[0],
        paper_upper=paper[1],
        ours_lower=ours[0],
        ours_upper=ours[1],
        paper_excludes_0=paper_excl,
        ours_excludes_0=ours_excl,
        same_verdict=paper_excl == ours_excl,
    )


def _paper_rows(key: tuple[str, str, str], v: Mapping[str, np.ndarray], g: int) -> list[dict]:
    """Tables 5-6 of the paper next to ours for one subgroup (none when the paper has no row)."""
    if key not in PAPER_TABLE5:
        return []
    ours = (
        (v["lp_tau0_lo"][g], v["lp_tau0_hi"][g]),
        (v["lp_cond_lo"][g], v["lp_cond_hi"][g]),
        (v["lp_tau_lo"][g], v["lp_tau_hi"][g]),
    )
    comp = []
    for name, (plo, phi), (olo, ohi) in zip(
        ("tau0'", "tau1'", "tau'"), PAPER_TABLE5[key], ours, strict=False
    ):
        # the paper prints 3 decimals; our LP is exact up to the solver's tolerance
        paper_excl = plo > 0.0005 or phi < -0.0005
        ours_excl = bool(np.isnan(olo) or olo > 1e-7 or ohi < -1e-7)
        comp.append(_comparison(key, name, (plo, phi), (olo, ohi), paper_excl, ours_excl))
    paper = PAPER_TABLE6[key]
    eps = v["eps_def2"][g]
    for name, value in (("eps10 (def 2)", eps[2]), ("eps_sum (def 2)", eps.sum())):
        comp.append(_comparison(key, name, (paper, paper), (value, value), paper > 0, value > 1e-7))
    return comp


def student_tables(
    data_dir: Path | None = None,
    subjects: tuple[str, ...] = ("mat", "por"),
    protected: tuple[str, ...] = ("sex", "address", "higher"),
    tie: str = ">",
    cross: bool = False,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Section 4: ``(results, comparison)`` frames (see :func:`run_student`)."""
    from sklearn.naive_bayes import CategoricalNB

    from ..datasets.student import STUDENT_PREDICTORS, dichotomize_student, load_student

    rows: list[tuple[str, str, str, str, float]] = []
    comp: list[dict[str, Any]] = []
    for subject in subjects:
        d = dichotomize_student(load_student(subject, data_dir), tie=tie)
        x = d[STUDENT_PREDICTORS].to_numpy()
        y = d["Y"].to_numpy()
        # e1071's naiveBayes has no Laplace smoothing by default; fitted and scored in-sample [choice]
        nb = CategoricalNB(alpha=1e-10, force_alpha=True, min_categories=2).fit(x, y)
        s = nb.predict(x).astype(np.int8)
        rows += [
            (subject, "-", "-", "n", float(len(y))),
            (subject, "-", "-", "prevalence_Y", float(y.mean())),
            (subject, "-", "-", "nb_accuracy", float((s == y).mean())),
        ]
        for attr in protected:
            one, _zero = _CODING[attr]
            a = (d[f"{attr}_label"].to_numpy() == one).astype(np.int8)
            groups = _subgroups(attr, d, cross)
            counts = np.stack(
                [
                    np.bincount(4 * a[m] + 2 * s[m] + y[m], minlength=8).reshape(2, 2, 2)
                    for _, m in groups
                ]
            )
            n_arm = counts.sum(axis=(2, 3))
            if (n_arm == 0).any():
                raise InputError(f"{subject}/{attr}: a subgroup lacks one value of {attr}")
            p = counts / n_arm[:, :, None, None]
            v = evaluate_margins(p, definitions=(1, 2), joint="tau0")
            for g, (label, _m) in enumerate(groups):
                rows += _group_rows(subject, attr, label, n_arm, v, g)
                comp += _paper_rows((subject, attr, label), v, g)
    res = pd.DataFrame(rows, columns=["subject", "protected", "definition", "quantity", "value"])
    return res, pd.DataFrame(comp)


def run_student(data_dir: Path | None, out_dir: Path, **options: Any) -> list[Path]:
    """Section 4 of the paper on UCI Student Performance; Tables 5-6 are reference values only.

    Parameters
    ----------
    data_dir
        Folder holding ``student_performance/``.
    out_dir
        Output folder.
    **options
        ``protected`` restricts to one of sex, address, higher; ``protected="higher-cross"`` (or
        ``cross=True``) adds, for higher, the four sex x address cells (female&rural, ...) to the
        paper's four one-covariate subgroups (spec §6: Assumption 1 is stated given
        X = {gender, address}, while Table 5 shows marginal subgroups). ``legacy`` is ignored.

    Returns
    -------
    ``[principal-student.csv, principal-student-paper.csv]``
    """
    _check_options(options, {"protected", "cross"})
    prot = options.get("protected")
    cross = bool(options.get("cross", False))
    attrs: tuple[str, ...] = ("sex", "address", "higher")
    if prot is not None:
        alias = {"gender": "sex"}.get(prot, prot)
        if alias == "higher-cross":
            alias, cross = "higher", True
        if alias not in attrs:
            raise InputError(
                "protected must be one of sex (gender), address, higher, higher-cross; "
                f"got {prot!r}"
            )
        attrs = (alias,)
    res, comp = student_tables(data_dir, protected=attrs, cross=cross)
    out_dir = Path(out_dir)
    return [
        atomic_write_csv(out_dir / "principal-student.csv", res),
        atomic_write_csv(out_dir / "principal-student-paper.csv", comp),
    ]


# ---------------------------------------------------------------------- ours vs paper
# Values the paper prints (Table 1 counts and §2 text; Table 4 and §3.2 text) or that the spec
# derives from them (§2, §4, §5, §8.1-8.3), typed from the spec and checked against the paper.
#: Table 1 per-stratum rates pr(S(a)=1 | stratum) = High / size (the table's counts; the text
#: swaps (1,1) and (0,0) and quotes 0.7/0.3 for (0,1): spec §2 [typo]).
_T1_RATES = {
    "11": (50 / 200, 50 / 200),
    "10": (30 / 100, 70 / 100),
    "01": (170 / 200, 30 / 200),
    "00": (150 / 200, 150 / 200),
}
#: spec §8.2: observed margins under a randomised A, counts out of 700 (keys p'_{s y a}).
_T1_MARGINS = {
    "p'_111": 80, "p'_011": 220, "p'_101": 320, "p'_001": 80,
    "p'_110": 80, "p'_010": 320, "p'_100": 220, "p'_000": 80,
}  # fmt: skip
#: spec §4 [derived] / §8.3: LP ranges on Table 4.
_T4_LP = {"tau'": (-0.13, -0.01), "tau0'": (-0.11, -0.01), "tau1'": (-0.02, 0.04)}
#: spec §5 / §8.3: eps* = (eps00, eps01, eps10, eps11) on Table 4, both definitions.
_T4_EPS = (0.0, 0.0, 0.0, 1 / 90)


def _flag(value: float, yes: str, no: str) -> str:
    return yes if value == 1 else no


_TYPO = "from the table's counts (the text swaps some rates: spec §2 [typo])"
_S82, _S4, _S5 = "spec §8.2 [derived]", "spec §4 [derived]", "spec §5 [derived]"
_BOUNDS = (("lower", -1.0), ("upper", 1.0))


def _paper_checks() -> list[tuple[str, str, Any, Any, str]]:
    """Every check of Tables 1 and 4, in the order of the comparison table, as typed from the
    paper and the spec: (where it is printed, quantity, our value's key, the paper's value,
    note); a key ``(key, yes, no)`` reads a 0/1 flag as words."""
    t1, t4 = (lambda k: ("table1", k)), (lambda k: ("table4", k))
    lp1 = (("tau0'", 4 / 35, "4/35"), ("tau1'", 4 / 35, "4/35"), ("tau'", 8 / 35, "8/35"))
    return [
        # Table 1: per-stratum rates, pr(S(a)=1) and the four definitions' verdicts
        *(("Table 1", f"pr(S({a})=1 | stratum ({st[0]},{st[1]}))", t1(f"true_rate_S{a}_{st}"),
           paper, _TYPO) for st, (r1, r0) in _T1_RATES.items() for a, paper in ((1, r1), (0, r0))),
        ("§2 text", "pr(S(1)=1)", t1("true_pr_S1"), 4 / 7, ""),
        ("§2 text", "pr(S(0)=1)", t1("true_pr_S0"), 3 / 7,
         "the text writes pr(S(1)=1)=3/7 for S(0) (spec §2 [typo])"),
        *(("§2 text", f"Table 1: Definition {d}", (t1(f"true_def{d}_holds"), "holds", "fails"),
           paper, "") for d, paper in ((1, "holds"), (2, "holds"), (3, "fails"))),
        ("spec §8.1 [derived]", "Table 1: Definition 4", (t1("true_def4_holds"), "holds", "fails"),
         "fails", ""),
        ("spec §8.1 [derived]", "pr(S(1)=1 | Y(0)=1)", t1("true_def4_S1"), 0.55, ""),
        ("spec §8.1 [derived]", "pr(S(0)=1 | Y(0)=1)", t1("true_def4_S0"), 0.20, ""),
        # Table 1 (spec §8.2): observed margins, LP ranges, eps* and Proposition 1 bounds
        *((_S82, f"Table 1 margin {key}", t1(key), count / 700, f"{count}/700")
          for key, count in _T1_MARGINS.items()),
        *(row for name, bound, text in lp1 for row in (
            (_S82, f"Table 1 LP {name} lower", t1(f"lp_{name}_lower"), -bound, f"-{text}"),
            (_S82, f"Table 1 LP {name} upper", t1(f"lp_{name}_upper"), bound, text))),
        *((_S82, f"Table 1 sum(eps*) Definition {d}", t1(f"def{d}_eps_sum"), 0.0, "")
          for d in (1, 2)),
        *((_S82, f"Table 1 Prop. 1 tau{k} {side}", t1(f"prop1_tau{k}_{side}"), paper,
           "d1 = d0 = 0") for k in (0, 1) for side, paper in _BOUNDS),
        # Table 4 (§3.2, spec §4): the definitions' verdicts and the LP ranges
        ("§3.2 text", "Table 4: Definition 2", (t4("def2_violated"), "violated", "not violated"),
         "violated", "paper: the feasible set with tau'=0 is empty"),
        (_S4, "Table 4: Definition 1", (t4("def1_violated"), "violated", "not violated"),
         "violated", ""),
        *(row for name, (lo, hi) in _T4_LP.items() for row in (
            (_S4, f"Table 4 LP {name} lower", t4(f"lp_{name}_lower"), lo, ""),
            (_S4, f"Table 4 LP {name} upper", t4(f"lp_{name}_upper"), hi,
             "paper: max tau' < 0" if name == "tau'" else ""))),
        (_S4, "Table 4: (8) + {tau0'=0}", (t4("lp_tau0'=0_feasible"), "feasible", "infeasible"),
         "infeasible", ""),
        # Table 4 (spec §4-5): Proposition 1, Corollary 1 and the minimal repair eps*
        (_S4, "Table 4 Prop. 1 tau0 lower", t4("prop1_tau0_lower"), -11 / 57, "-11/57"),
        (_S4, "Table 4 Prop. 1 tau0 upper", t4("prop1_tau0_upper"), -1 / 57, "-1/57"),
        *((_S4, f"Table 4 Prop. 1 tau1 {side}", t4(f"prop1_tau1_{side}"), paper,
           "d1 = 0.36 - 0.93 < 0") for side, paper in _BOUNDS),
        (_S4, "Table 4 Corollary 1: (2)", (t4("cor1_eq2_upper_neg"), "violated", "holds"),
         "violated", "0.03 + 0.53 = 0.56 < d0 = 0.57"),
        *(row for d in (1, 2) for row in (
            *((_S5, f"Table 4 eps{ab}* Definition {d}", t4(f"def{d}_eps{ab}"), paper,
               "1/90 = 0.01/0.90" if ab == "11" else "")
              for ab, paper in zip(("00", "01", "10", "11"), _T4_EPS, strict=True)),
            (_S5, f"Table 4 sum(eps*) Definition {d}", t4(f"def{d}_eps_sum"), sum(_T4_EPS), ""))),
    ]  # fmt: skip


def _examples_checks(e: dict[tuple[str, str], float]) -> list[Check]:
    """Every check of Tables 1 and 4 (:func:`_paper_checks`) against our values ``e``."""
    return [check(where, quantity, _flag(e[key[0]], *key[1:]) if len(key) == 3 else e[key],
                  paper, note=note) for where, quantity, key, paper, note in _paper_checks()]  # fmt: skip


@compare_doc(
    "the ``principal-examples.csv``",
    ":func:`run_examples`",
    "Reproduce options (``legacy`` is accepted and ignored).",
    " (one row per number)",
)
def compare_examples(out_dir: Path, data_dir: Path | None = None, **options: Any) -> pd.DataFrame:
    """Tables 1 and 4 (and the spec's exact derivations from them) next to ours.

    Every row is an exact check (spec §8.1-8.3): the run is a deterministic function of the
    two tables. Rows labelled ``spec §... [derived]`` are the spec's worked values computed from
    the paper's tables (the paper itself prints only the counts, pr(S(a)=1), the definitions'
    verdicts and "Definition 2 is violated").

    {{compare}}

    Examples
    --------
    >>> import tempfile
    >>> out = Path(tempfile.mkdtemp())
    >>> _ = run_examples(None, out)
    >>> frame = compare_examples(out)
    >>> sorted(set(frame.status))
    ['exact']
    """
    frame = read_run_csv(out_dir, "principal-examples.csv")
    values = {(r.example, r.quantity): float(r.value) for r in frame.itertuples()}
    return comparison_frame(_examples_checks(values))


#: Paper §4 text: naive Bayes accuracy per subject.
PAPER_NB_ACCURACY = {"mat": 0.8303, "por": 0.8043}
#: Subgroups whose verdict spec §8.8 asks to reproduce (no violation in the paper and with the
#: guessed rules); every other Table 5-6 row depends on the unpublished dichotomisation.
_VERDICT_CHECKED = {
    ("mat", "sex", "-"),
    ("mat", "address", "female"),
    ("mat", "address", "male"),
    ("por", "sex", "-"),
}
_PRINTED_ZERO = 0.0005  # the paper prints 3 decimals; "0.000" covers 0 (spec §7)
_LP_TOL = 1e-7
_REF_NOTE = "paper's dichotomisation unpublished (spec §6); our NB differs: reference only"
_ATTR_NAME = {"sex": "gender", "address": "address", "higher": "higher"}


def _verdict(lo: float, hi: float, tol: float) -> str:
    if np.isnan(lo) or np.isnan(hi):
        return "infeasible (tau0'=0 impossible)"
    if lo > tol:
        return "excludes 0 (positive)"
    if hi < -tol:
        return "excludes 0 (negative)"
    return "covers 0"


def _student_checks(res: pd.DataFrame, comp: pd.DataFrame) -> list[Check]:
    rows: list[Check] = []
    overall = res[res.protected == "-"].set_index(["subject", "quantity"]).value
    for subject, paper in PAPER_NB_ACCURACY.items():
        if (subject, "nb_accuracy") in overall.index:
            rows.append(
                check(
                    "§4 text",
                    f"{subject}: naive Bayes accuracy",
                    float(overall[(subject, "nb_accuracy")]),
                    paper,
                    reference_only=True,
                    note="in-sample; the paper's dichotomisation rules (supplement) are "
                    "unpublished, ours are the documented guess of spec §6",
                )
            )
    eps = (
        res[res.definition.astype(str) == "2"].set_index(["subject", "protected", "quantity"]).value
    )
    names = {"tau0'": "tau0'", "tau1'": "tau1' (given tau0'=0)", "tau'": "tau'"}
    for r in comp.itertuples():
        key = (r.subject, r.protected, r.subgroup)
        where = f"{r.subject}/{_ATTR_NAME.get(r.protected, r.protected)}/{r.subgroup}"
        tested = key in _VERDICT_CHECKED
        agree = "same verdict" if bool(r.same_verdict) else "verdict differs"
        if r.quantity in names:
            plo, phi = PAPER_TABLE5[key][list(names).index(r.quantity)]
            label = f"{where} {names[r.quantity]}"
            for side, ours, paper in (("lower", r.ours_lower, plo), ("upper", r.ours_upper, phi)):
                rows.append(
                    check(
                        "Table 5",
                        f"{label} {side}",
                        float(ours),
                        paper,
                        reference_only=True,
                        note=_REF_NOTE,
                    )
                )
            rows.append(
                check(
                    "Table 5",
                    f"{label}: zero",
                    _verdict(float(r.ours_lower), float(r.ours_upper), _LP_TOL),
                    _verdict(plo, phi, _PRINTED_ZERO),
                    reference_only=not tested,
                    note="spec §8.8: no violation, as in the paper"
                    if tested
                    else f"{agree}; spec §8.8: not a target (depends on the dichotomisation)",
                )
            )
        elif r.quantity == "eps10 (def 2)":
            for ab in ("00", "01", "10", "11"):
                ours = float(eps[(r.subject, r.protected, f"{r.subgroup}:eps{ab}")])
                paper = PAPER_TABLE6[key] if ab == "10" else 0.0
                if tested:
                    note = "spec §8.8: eps* = 0 (no violation), as in the paper"
                elif ab == "10":
                    note = f"{agree} (eps10 > 0 or not); {_REF_NOTE}"
                    if float(eps[(r.subject, r.protected, f"{r.subgroup}:eps01")]) > _LP_TOL:
                        note = (
                            f"{agree}: ours repairs through eps01 (tau0' > 0; recoding A, Y "
                            f"and S maps eps01 to eps10, spec §6); {_REF_NOTE}"
                        )
                else:
                    note = _REF_NOTE
                rows.append(
                    check(
                        "Table 6",
                        f"{where} eps{ab}* (Definition 2)",
                        ours,
                        paper,
                        reference_only=not tested,
                        note=note,
                    )
                )
    return rows


@compare_doc(
    "``principal-student.csv`` and ``principal-student-paper.csv``",
    ":func:`run_student` (with any ``protected`` option: only its rows are compared)",
    "Reproduce options (ignored: the CSVs already reflect them).",
)
def compare_student(out_dir: Path, data_dir: Path | None = None, **options: Any) -> pd.DataFrame:
    """Tables 5 and 6 and the naive Bayes accuracies next to ours.

    The paper's values are reference only (spec §8.8: its dichotomisation rules are in a
    missing supplement, and our naive Bayes reaches 73-76 % accuracy where the paper reports
    83.03 / 80.43 %). Each Table 5 interval has a third row, ``<interval>: zero``, with the
    verdict (covers 0 / excludes 0 and the sign, or infeasible). Only the subgroups spec §8.8
    asks to reproduce (mat gender, mat address female and male, por gender: no violation) are
    checked, together with their four Table 6 eps* (all 0); the note of every other verdict
    row says whether ours and the paper's agree (``same_verdict`` of
    ``principal-student-paper.csv``).

    {{compare}}

    Examples
    --------
    >>> _ = run_student(None, Path("out"))  # doctest: +SKIP
    >>> compare_student(Path("out")).status.value_counts()  # doctest: +SKIP
    """
    res = read_run_csv(out_dir, "principal-student.csv")
    comp = read_run_csv(out_dir, "principal-student-paper.csv")
    return comparison_frame(_student_checks(res, comp))
