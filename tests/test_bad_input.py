"""Issue 11: every foreseeable user mistake exits 2 before any work, with a message naming the
file, column, value or key; no silent wrong answer; all-or-nothing output; exact-tie ranks.

The table ``CASES`` drives ``primafacie audit`` (and ``demo``) through typer's CliRunner on a
small hand-made table. Each failing case asserts the exit code, the culprit named in the
message, no traceback, and the output folder unchanged (it holds a previous run's files) or
absent. Each passing case asserts the counts it states (computed by hand from ``make_frame``).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import joblib
import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from primafacie.cli import app
from primafacie.commands import _common
from primafacie.data import AuditData
from primafacie.errors import InputError
from tests.shared import demo_inputs, private_copy

runner = CliRunner()

N = 60
N_FEMALE = 24  # rows 0..23
N_SMOKER = 30  # every other row says "yes"


class FailingModel:
    """A fitted-looking model whose predict() raises (its module is importable by joblib)."""

    feature_names_in_ = np.array(["income", "region"], dtype=object)
    classes_ = np.array([0, 1])

    def predict(self, X):
        raise RuntimeError("boom inside the user's model")


def make_frame() -> pd.DataFrame:
    """60 applicants; 24 women; income 20..79; approved iff income >= 50 (30 rows)."""
    i = np.arange(N)
    return pd.DataFrame(
        {
            "id": i,
            "gender": np.where(i < N_FEMALE, "female", "male"),
            "region": np.array(["north", "south", "east"])[i % 3],
            "income": 20 + i,
            "smoker": np.where(i % 2 == 0, "yes", "no"),
            "group": 1 + (i % 4 == 0),
            "approved": (20 + i >= 50).astype(int),
            "repaid": (i % 3 != 0).astype(int),
        }
    )


def base_config() -> dict[str, Any]:
    return {
        "data": "data.csv",
        "decision": {"column": "approved"},
        "favorable": 1,
        "outcome": "repaid",
        "features": {"income": "numeric", "region": "categorical"},
        "protected": {"gender": "female"},
        "analyses": {"certainty": {}},
    }


@dataclass
class Case:
    """One row of the table: how to break the inputs and what the CLI must say."""

    id: str
    culprit: tuple[str, ...]
    code: int = 2
    cfg: dict[str, Any] = field(default_factory=dict)  # dotted key -> value (DROP removes)
    frame: Callable[[pd.DataFrame], pd.DataFrame] | None = None
    data_text: Callable[[str], str | bytes] | None = None  # rewrite the CSV text
    yaml_text: Callable[[str], str | bytes] | None = None  # rewrite the YAML text
    setup: Callable[[Path], None] | None = None  # extra files in the folder
    out: str = "out"  # the --out argument, relative to the folder
    counts: dict[str, int] | None = None  # exit 0: data_info of the first protected attribute
    fresh_out: bool = False  # the output folder does not exist before the run


DROP = object()


def _set(cfg: dict, dotted: str, value: Any) -> None:
    keys = dotted.split(".")
    for key in keys[:-1]:
        cfg = cfg.setdefault(key, {})
    if value is DROP:
        cfg.pop(keys[-1], None)
    else:
        cfg[keys[-1]] = value


def _model(tmp: Path, name: str, obj: Any) -> None:
    joblib.dump(obj, tmp / name)


def _lr(columns: list[str], frame: pd.DataFrame | None = None):
    from sklearn.linear_model import LogisticRegression

    df = make_frame() if frame is None else frame
    X = df[columns] if frame is None else frame
    return LogisticRegression().fit(X, df["approved"] if frame is None else make_frame().approved)


def _unfitted(tmp: Path) -> None:
    from sklearn.linear_model import LogisticRegression

    _model(tmp, "m.joblib", LogisticRegression())


def _other_columns(tmp: Path) -> None:
    df = make_frame().rename(columns={"income": "salary"})
    from sklearn.linear_model import LogisticRegression

    _model(tmp, "m.joblib", LogisticRegression().fit(df[["salary"]], df["approved"]))


def _regressor(tmp: Path) -> None:
    from sklearn.linear_model import LinearRegression

    df = make_frame()
    _model(tmp, "m.joblib", LinearRegression().fit(df[["income"]], df["approved"]))


def _good_model(tmp: Path) -> None:
    from sklearn.tree import DecisionTreeClassifier

    df = make_frame()
    _model(tmp, "m.joblib", DecisionTreeClassifier().fit(df[["income"]], df["approved"]))


def _double(X):
    """A function of this test module: no default trusts it in a skops file."""
    return X * 2


def _skops_with_function(tmp: Path) -> None:
    """A skops pipeline whose FunctionTransformer calls :func:`_double`."""
    import skops.io as sio
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    df = make_frame()
    est = make_pipeline(FunctionTransformer(_double), LogisticRegression())
    sio.dump(est.fit(df[["income"]], df["approved"]), tmp / "m.skops")


def _write(tmp: Path, name: str, content: str | bytes) -> None:
    path = tmp / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)


def _deep_yaml(text: str) -> str:
    return text + "seed: " + "[" * 60 + "1" + "]" * 60 + "\n"


def _alias_bomb(text: str) -> str:
    lines = ["bomb0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"bomb{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 8)]
    return text + "\n".join(lines) + "\n"


MODEL = {"decision": {"model": "m.joblib", "trust": "pickle"}}  # the loader's own errors
RULE = "decision"
LONG_RULE = " + ".join(["income"] * 3000) + " > 1"
DEEP_RULE = "+".join(["income"] * 400) + " > 1"

CASES: list[Case] = [
    # ------------------------------------------------------------------ data files
    Case("data-missing", ("data file not found", "nowhere.csv"), cfg={"data": "nowhere.csv"}),
    Case("data-is-folder", ("data file", "folder"), cfg={"data": "folder"},
         setup=lambda t: (t / "folder").mkdir()),
    Case("data-not-utf8", ("data.csv", "not UTF-8"),
         data_text=lambda s: s.replace("north", "nörth").encode("latin-1")),
    Case("data-empty-file", ("cannot read", "data.csv"), data_text=lambda s: ""),
    Case("data-header-only", ("no rows",), data_text=lambda s: s.splitlines()[0] + "\n"),
    Case("data-duplicated-column", ("income", "appears 2 times"),
         data_text=lambda s: s.replace("smoker", "income", 1)),
    Case("data-thousands-separator", ("income", "'1,234'", "data row 1"),
         data_text=lambda s: s.replace(",", ";").replace(";20;", ";1,234;", 1)),
    Case("data-thousands-separator-quoted", ("income", "'12,345'", "data row 2"),
         data_text=lambda s: s.replace(",21,", ',"12,345",', 1)),
    Case("data-unknown-parquet", ("cannot read", "data.parquet"), cfg={"data": "data.parquet"},
         setup=lambda t: (t / "data.parquet").write_bytes(b"not parquet")),
    # ------------------------------------------------------------------ protected values
    Case("protected-column-missing", ("protected column 'sex'", "not in the data"),
         cfg={"protected": {"sex": "female"}}),
    Case("protected-value-typo", ("'femle'", "gender", "did you mean 'female'?"),
         cfg={"protected": {"gender": "femle"}}),
    Case("protected-value-case", ("'Female'", "'female' (24 rows)"),
         cfg={"protected": {"gender": "Female"}}),
    Case("protected-value-space", ("'female'", "'female ' (24 rows)"),
         frame=lambda d: d.assign(gender=d.gender.replace("female", "female "))),
    Case("protected-mixed-spellings", ("gender", "'Female ' (4 rows)", "'female' (20 rows)"),
         frame=lambda d: d.assign(gender=np.where(d.index < 4, "Female ", d.gender))),
    Case("protected-one-of-two-absent", ("'nonbinary'", "never occurs"),
         cfg={"protected": {"gender": ["female", "nonbinary"]}}),
    Case("protected-yaml-boolean", ("smoker", "boolean", "quote"),
         cfg={"protected": {"smoker": "YESMARK"}},
         yaml_text=lambda s: s.replace("YESMARK", "yes")),
    Case("protected-yaml-boolean-NO", ("smoker", "boolean", "'no'"),
         cfg={"protected": {"smoker": "NOMARK"}},
         yaml_text=lambda s: s.replace("NOMARK", "NO")),
    Case("protected-missing-values", ("protected attribute 'gender' has missing values",),
         frame=lambda d: d.assign(gender=d.gender.where(d.index != 5))),
    Case("protected-everyone", ("every row of 'smoker' is protected",),
         cfg={"protected": {"smoker": ["yes", "no"]}}),
    Case("protected-also-feature", ("gender", "both"),
         cfg={"features": {"income": "numeric", "gender": "categorical"}}),
    # ------------------------------------------------------------------ decision / outcome
    Case("favorable-absent", ("favourable value 7", "approved"), cfg={"favorable": 7}),
    Case("favorable-yaml-boolean", ("approved", "boolean", "quote"),
         frame=lambda d: d.assign(approved=np.where(d.approved == 1, "yes", "no")),
         cfg={"favorable": "YESMARK"}, yaml_text=lambda s: s.replace("YESMARK", "yes")),
    Case("favorable-case", ("'Approved'", "'approved'"),
         frame=lambda d: d.assign(approved=np.where(d.approved == 1, "approved", "denied")),
         cfg={"favorable": "Approved"}),
    Case("outcome-favorable-absent", ("outcome_favorable value 'good'", "repaid"),
         cfg={"outcome_favorable": "good"}),
    Case("outcome-column-missing", ("outcome column 'Repaid'", "did you mean 'repaid'?"),
         cfg={"outcome": "Repaid"}),
    Case("decision-column-missing", ("decision column 'aproved'", "did you mean 'approved'?"),
         cfg={"decision": {"column": "aproved"}}),
    Case("decision-not-binary", ("decision column 'income' must be binary",),
         cfg={"decision": {"column": "income"}, "features": {"region": "categorical"}}),
    Case("decision-missing-values", ("decision column 'approved' has missing values",),
         frame=lambda d: d.assign(approved=d.approved.where(d.index != 3))),
    Case("decision-mixed-spellings", ("approved", "'Yes' (1 rows)", "'yes'"),
         frame=lambda d: d.assign(approved=np.where(d.index == 59, "Yes",
                                                    np.where(d.approved == 1, "yes", "no"))),
         cfg={"favorable": "yes"}),
    # ------------------------------------------------------------------ features
    Case("feature-missing", ("feature column 'incme'", "did you mean 'income'?"),
         cfg={"features": {"incme": "numeric"}}),
    Case("feature-numeric-text", ("feature 'region' is declared numeric",),
         cfg={"features": {"region": "numeric"}}),
    Case("feature-missing-values", ("feature 'income' has 1 missing value",),
         frame=lambda d: d.assign(income=d.income.where(d.index != 7))),
    Case("feature-too-many-levels", ("categorical feature 'id'", "60 distinct values",
                                     "max_levels=50"),
         cfg={"features": {"income": "numeric", "id": "categorical"}, "max_levels": 50}),
    # a declared categorical feature is taken whatever its levels (issue 24): no default cap
    Case("ok-many-levels-declared", (), code=0,
         frame=lambda d: pd.concat([d] * 20, ignore_index=True).assign(
             code=lambda x: [f"c{j}" for j in range(len(x))]),
         cfg={"features": {"income": "numeric", "code": "categorical"}},
         counts={"n": 20 * N}),
    Case("feature-ordinal-undeclared-level", ("ordinal feature 'region'", "'east'"),
         cfg={"features": {"region": {"ordinal": ["north", "south"]}}}),
    Case("id-duplicated", ("id column 'group' has duplicated values",), cfg={"id": "group"}),
    # ------------------------------------------------------------------ audit.yaml
    Case("config-not-utf8", ("audit.yaml", "not UTF-8"),
         yaml_text=lambda s: s.encode("utf-8") + "# café\n".encode("latin-1")),
    Case("config-invalid-yaml", ("audit.yaml", "not valid YAML"),
         yaml_text=lambda s: s + "features: [unclosed\n"),
    Case("config-duplicated-key", ("key 'seed' is given twice",),
         yaml_text=lambda s: s + "seed: 1\nseed: 2\n"),
    Case("config-unknown-key", ("unknown key 'protectd'", "did you mean 'protected'?"),
         yaml_text=lambda s: s + "protectd: {gender: female}\n"),
    Case("config-too-deep", ("audit.yaml", "nests deeper than 20 levels at seed.0.0.0"),
         yaml_text=_deep_yaml),
    Case("config-alias-bomb", ("audit.yaml", "more than 100,000 values",
                               "under the key 'bomb7'"), yaml_text=_alias_bomb),
    Case("config-not-mapping", ("audit.yaml", "must be a mapping"), yaml_text=lambda s: "- a\n"),
    Case("config-missing-data", ("missing required key 'data'",), cfg={"data": DROP}),
    Case("config-max-levels-zero", ("max_levels",), cfg={"max_levels": 0}),
    # group metrics are on by default: asking for no analysis turns them off too
    Case("config-no-analysis", ("asks for no analysis",), cfg={"analyses": {"groups": None}}),
    Case("config-bad-alpha", ("analyses.situation.alpha",),
         cfg={"analyses": {"situation": {"alpha": 2, "methods": ["st"]}}}),
    # ------------------------------------------------------------------ rules
    Case("rule-syntax", ("not a valid expression",), cfg={RULE: {"rule": "income >"}}),
    Case("rule-call", ("a function call is not allowed",),
         cfg={RULE: {"rule": "__import__('os').system('true') > 0"}}),
    Case("rule-huge-power", ("9**387420489", "too large"), cfg={RULE: {"rule": "9**9**9 > income"}}),
    Case("rule-huge-int", ("more than 256 bits",), cfg={RULE: {"rule": "income > 2**200 * 2**200"}}),
    Case("rule-string-repetition", ("quoted string can only be compared",),
         cfg={RULE: {"rule": "'a' * 10**9 == region"}}),
    Case("rule-too-long", ("characters long", "10,000"), cfg={RULE: {"rule": LONG_RULE}}),
    Case("rule-too-deep", ("nests more than 200 levels",), cfg={RULE: {"rule": DEEP_RULE}}),
    Case("rule-text-vs-number", ("column 'region' holds text", "region == '3'"),
         cfg={RULE: {"rule": "region > 3"}}),
    Case("rule-number-vs-text", ("column 'income' is numeric", "'50'"),
         cfg={RULE: {"rule": "income >= '50'"}}),
    Case("rule-unknown-column", ("incme",), cfg={RULE: {"rule": "incme > 50"}}),
    Case("rule-not-boolean", ("must end in a comparison",), cfg={RULE: {"rule": "income + 1"}}),
    Case("rule-divide-by-zero", ("division by zero",), cfg={RULE: {"rule": "income > 1 / 0"}}),
    # ------------------------------------------------------------------ model files
    Case("model-missing", ("model file not found", "m.joblib"), cfg=MODEL),
    Case("model-pickle-untrusted", ("m.joblib", "runs arbitrary code", "skops.io.dump",
                                    "trust: pickle"), cfg={"decision": {"model": "m.joblib"}},
         setup=_good_model),
    Case("model-skops-untrusted-type", ("m.skops", "not trusted", "_double",
                                        "decision.trusted_types"),
         cfg={"decision": {"model": "m.skops"}}, setup=_skops_with_function),
    Case("model-trust-without-model", ("trust applies to a model file",),
         cfg={"decision": {"column": "approved", "trust": "pickle"}}),
    Case("model-is-csv", ("m.joblib", "does not look like a model file"), cfg=MODEL,
         setup=lambda t: _write(t, "m.joblib", "income,approved\n1,0\n")),
    Case("model-corrupt", ("cannot load model", "m.joblib"), cfg=MODEL,
         setup=lambda t: _write(t, "m.joblib", bytes(range(256)) * 4)),
    Case("model-unfitted", ("m.joblib", "LogisticRegression", "not fitted"), cfg=MODEL,
         setup=_unfitted),
    Case("model-other-columns", ("m.joblib", "missing from the data: ['salary']",
                                 "not fitted on: ['income', 'region']"), cfg=MODEL,
         setup=_other_columns),
    Case("model-predict-fails", ("m.joblib", "predict() failed", "boom inside"), cfg=MODEL,
         setup=lambda t: _model(t, "m.joblib", FailingModel())),
    Case("model-probabilities", ("m.joblib", "returns probabilities"), cfg=MODEL,
         setup=_regressor),
    Case("model-favorable-label", ("favourable value 'approve'", "labels [0, 1]"),
         cfg={**MODEL, "favorable": "approve"}, setup=_good_model),
    Case("model-no-predict", ("has no predict() method",), cfg=MODEL,
         setup=lambda t: _model(t, "m.joblib", {"weights": [1, 2]})),
    # ------------------------------------------------------------------ output folders
    Case("out-is-file", ("--out", "existing file"), out="taken.txt",
         setup=lambda t: _write(t, "taken.txt", "mine\n")),
    Case("out-is-data-file", ("--out", "is the input file"), out="data.csv"),
    Case("out-is-config-file", ("--out", "is the input file"), out="audit.yaml"),
    Case("out-under-a-file", ("--out", "is a file, so the folder cannot be created"),
         out="data.csv/report"),
    # ------------------------------------------------------------------ exit 0 with counts
    Case("ok-recorded-decision", (), code=0,
         counts={"n": N, "n_protected": N_FEMALE, "favourable_protected": 0,
                 "favourable_non_protected": 30}),
    Case("ok-two-protected-values", (), code=0, cfg={"protected": {"region": ["north", "east"]},
                                                     "features": {"income": "numeric"}},
         counts={"n": N, "n_protected": 40, "n_non_protected": 20}),
    Case("ok-quoted-yes", (), code=0, cfg={"protected": {"smoker": "yes"}},
         counts={"n_protected": N_SMOKER, "favourable_protected": 15}),
    Case("ok-number-as-text", (), code=0, cfg={"protected": {"group": "2"}},
         counts={"n_protected": 15}),
    Case("ok-max-levels-null", (), code=0,
         cfg={"features": {"income": "numeric", "id": "categorical"}, "max_levels": None},
         counts={"n_protected": N_FEMALE}),
    # (a == 'x') + (b >= 1) >= 2 holds when both hold: north rows with income >= 50
    Case("ok-rule-bool-arithmetic", (), code=0,
         cfg={RULE: {"rule": "(region == 'north') + (income >= 50) >= 2"}},
         counts={"favourable_protected": 0, "favourable_non_protected": 10}),
    Case("ok-model", (), code=0, cfg=MODEL, setup=_good_model,
         counts={"favourable_protected": 0, "favourable_non_protected": 30}),
    Case("ok-fresh-out", (), code=0, fresh_out=True, counts={"n_protected": N_FEMALE}),
]  # fmt: skip


def _snapshot(folder: Path) -> dict[str, bytes]:
    if not folder.exists():
        return {}
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _side_folders(folder: Path) -> list[str]:
    return sorted(
        p.name
        for p in folder.parent.iterdir()
        if p.name.startswith(f".{folder.name}.") and p.is_dir()
    )


@pytest.fixture(autouse=True)
def wide_consoles(monkeypatch):
    """Rich wraps at 80 columns when not on a terminal; keep messages on one line."""
    monkeypatch.setattr(_common.err_console, "width", 2000)
    monkeypatch.setattr(_common.console, "width", 400)


def _prepare(tmp: Path, case: Case) -> list[str]:
    frame = make_frame()
    if case.frame is not None:
        frame = case.frame(frame)
    text = frame.to_csv(index=False, lineterminator="\n")
    _write(tmp, "data.csv", case.data_text(text) if case.data_text else text)
    cfg = base_config()
    for key, value in case.cfg.items():
        _set(cfg, key, value)
    ytext = yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True)
    _write(tmp, "audit.yaml", case.yaml_text(ytext) if case.yaml_text else ytext)
    if case.setup is not None:
        case.setup(tmp)
    return ["audit", str(tmp / "audit.yaml"), "--out", str(tmp / case.out), "--no-progress"]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_cli_bad_input_table(tmp_path, case):
    args = _prepare(tmp_path, case)
    out = tmp_path / case.out
    if case.out == "out" and not case.fresh_out:
        # a previous run's files: a failing run must leave them exactly as they were
        out.mkdir()
        (out / "report.html").write_text("previous report\n")
        (out / "tables").mkdir()
        (out / "tables" / "old.csv").write_text("a\n1\n")
    before = _snapshot(out) if out.is_dir() else None
    before_file = out.read_bytes() if out.is_file() else None

    result = runner.invoke(app, args)

    output = " ".join(result.output.split())
    assert result.exit_code == case.code, output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert "internal error" not in output, output
    for culprit in case.culprit:
        assert culprit in output, f"{culprit!r} not in: {output}"
    if case.code != 0:
        if before is not None:
            assert _snapshot(out) == before
        elif before_file is not None:
            assert out.read_bytes() == before_file
        else:
            assert not out.exists()
        if out.parent.is_dir():
            assert _side_folders(out) == []
        return
    info = json.loads((out / "results.json").read_text())["data"]
    row = info["groups"][0] if "groups" in info else info
    for key, value in (case.counts or {}).items():
        assert row[key] == value, (key, row)
    assert _side_folders(out) == []
    if not case.fresh_out:  # user files are kept beside the new run's files
        assert (out / "tables" / "old.csv").read_text() == "a\n1\n"


def test_the_table_has_at_least_60_cases():
    assert len(CASES) >= 60
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_out_in_a_read_only_folder(tmp_path):  # pragma: no cover - CI does not run as root
    args = _prepare(tmp_path, Case("ro", ()))
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        args[3] = str(locked / "out")
        result = runner.invoke(app, args)
        assert result.exit_code == 2 and "not writable" in result.output
    finally:
        locked.chmod(0o700)


# ---------------------------------------------------------------------- property test
@st.composite
def _spellings(draw) -> str:
    """'female' with each letter's case flipped at random and whitespace padding."""
    flips = draw(st.lists(st.booleans(), min_size=6, max_size=6))
    word = "".join(c.upper() if f else c for c, f in zip("female", flips, strict=True))
    pad = st.sampled_from(["", " ", "  ", "\t", "\u00a0"])
    return draw(pad) + word + draw(pad)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data_spelling=_spellings(), value_spelling=_spellings(), n_changed=st.integers(0, N_FEMALE))
def test_perturbed_spellings_never_change_the_protected_count_silently(
    data_spelling, value_spelling, n_changed
):
    """Some women's rows spelled differently (case, spaces), the protected value spelled some
    way: either every woman is protected, or an InputError naming the column is raised; a
    protected count other than the intended one never comes back silently."""
    df = make_frame()
    df.loc[: n_changed - 1, "gender"] = data_spelling
    try:
        data = AuditData(df, features={"income": "numeric"}, protected={"gender": value_spelling},
                         decision="approved")  # fmt: skip
    except InputError as exc:
        assert "gender" in str(exc)
        return
    count = int(data.protected_mask().sum())
    # accepted only when the data hold one spelling of the women and the value is it
    spellings = set(df.gender[:N_FEMALE])
    assert spellings == {value_spelling}
    assert count == N_FEMALE


# ---------------------------------------------------------------------- exact ties
def test_exactly_equal_recourse_scores_share_a_rank():
    """25/28 - 39/44 and 41/42 - 32/33 are both 1/154, but differ in floats; a larger score
    1/2 ranks first and the next smaller score 1/200 must rank third, not fourth."""
    from primafacie.recourse.metrics import dense_rank, exact_scores

    d = np.array([[25 / 28, 39 / 44], [32 / 33, 41 / 42], [3 / 4, 1 / 4], [3 / 200, 2 / 200]])
    n = np.array([[28, 44], [33, 42], [4, 4], [200, 200]])
    score = d.max(axis=1) - d.min(axis=1)
    assert score[0] != score[1]  # the float noise this test is about
    assert dense_rank(score).tolist() == [2, 3, 1, 4]  # noise splits the tie
    num, den = exact_scores(d, n)
    assert num.tolist() == [1, 1, 1, 1] and den.tolist() == [154, 154, 2, 200]
    assert dense_rank(score, exact=(num, den)).tolist() == [2, 2, 1, 3]


def test_exact_ties_survive_in_a_recourse_audit_ranking():
    """Through RecourseFairness.scores(): two subgroups built with exact 1/154 EE gaps share a
    rank under EE micro."""
    from primafacie.recourse.engine import RecourseFairness
    from primafacie.recourse.metrics import RecourseTable

    audit = RecourseFairness.__new__(RecourseFairness)
    # subgroup 0: 25 of 28 vs 39 of 44 have recourse; subgroup 1: 41 of 42 vs 32 of 33
    n = np.array([[28, 44], [42, 33], [10, 10]])
    n_rec = np.array([[25, 39], [41, 32], [9, 9]])
    one = np.zeros((3, 2), dtype=np.int64)
    audit.table_ = RecourseTable(
        groups=("a", "b"), n=n, starts=np.array([0, 1, 2, 3]), cost=np.ones(3), eff=n_rec.copy(),
        cum=n_rec.copy(), n_rec=n_rec, rc_sum=np.ones((3, 2)), seq_order=one, seq_cum=one,
    )  # fmt: skip
    audit.legacy = False
    out = audit.scores("EE", "micro")
    assert out["score"][0] != out["score"][1]
    assert out["rank"].tolist() == [1, 1, 0]


def test_cost_scores_tie_within_a_relative_tolerance():
    from primafacie.recourse.metrics import dense_rank

    a = (0.1 + 0.2) - 0.1  # 0.20000000000000004
    assert a != 0.2
    assert dense_rank(np.array([a, 0.2, 0.5, 0.1]), rtol=1e-9).tolist() == [2, 2, 1, 3]


# ---------------------------------------------------------------------- signals
def _demo(out: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    return subprocess.Popen(
        [sys.executable, "-m", "primafacie.cli", "demo", "--out", str(out), "--n", "100",
         "--no-progress"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip


def _wait_for_staging(out: Path, proc: subprocess.Popen, timeout: float = 300) -> None:
    # Wall seconds, not a speed check (tests/cli/test_startup.py times the process): at a load
    # of 30 on 2 cores the demo's child took over 60 s to reach its staging folder.
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if _side_folders(out):
            return
        if proc.poll() is not None:
            pytest.fail(f"demo ended before staging: {proc.communicate()}")
        time.sleep(0.05)
    pytest.fail("no staging folder appeared")


def _small_audit(tmp: Path) -> Path:
    """A private copy of the shared demo inputs whose audit.yaml runs the group metrics only."""
    path = private_copy(demo_inputs(n=300, seed=0), tmp / "inputs-copy") / "audit.yaml"
    cfg = yaml.safe_load(path.read_text())
    cfg["analyses"] = {"alternatives": None, "groups": cfg["analyses"]["groups"]}
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_signal_during_demo_leaves_old_output_and_next_run_cleans_up(tmp_path, sig):
    out = tmp_path / "demo"
    out.mkdir()
    (out / "report.html").write_text("previous report\n")
    before = _snapshot(out)
    proc = _demo(out)
    _wait_for_staging(out, proc)
    time.sleep(0.5)  # inside the work, not at its start
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    if sig == signal.SIGTERM:
        assert proc.returncode == 143, err.decode()
        assert b"Traceback" not in err
        assert _side_folders(out) == []  # handled like Ctrl-C: staging removed at once
    else:
        assert proc.returncode == -signal.SIGKILL
        assert _side_folders(out) != []  # a killed run cannot clean up after itself
    assert _snapshot(out) == before
    # The next run only has to reach the same output folder (its cleanup is the one every
    # command's atomic_output_dir does): a small audit of the run's shared demo inputs, not a
    # second full demo (tens of CPU seconds, most of them the alternatives search).
    result = runner.invoke(app, ["audit", str(_small_audit(tmp_path)), "--out", str(out),
                                 "--no-progress"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert _side_folders(out) == []
    assert (out / "report.html").read_text() != "previous report\n"


# ---------------------------------------------------------------------- OS errors
def test_an_os_error_about_a_named_file_exits_2_and_other_ones_stay_internal(capsys):
    import typer

    @_common.guarded
    def denied() -> None:
        raise PermissionError(13, "Permission denied", "/audit/data.csv")

    @_common.guarded
    def bug() -> None:
        raise OSError("no file involved")

    with pytest.raises(typer.Exit) as exc:
        denied()
    assert exc.value.exit_code == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "cannot access /audit/data.csv: Permission denied" in err
    with pytest.raises(typer.Exit) as exc:
        bug()
    assert exc.value.exit_code == 1


def test_sigterm_handler_is_restored_after_a_command():
    before = signal.getsignal(signal.SIGTERM)
    result = runner.invoke(app, ["audit", "/nonexistent/audit.yaml"])
    assert result.exit_code == 2 and "configuration file not found" in result.output
    assert signal.getsignal(signal.SIGTERM) == before


def test_sigterm_that_surfaces_as_another_error_is_still_a_termination(capsys):
    """A SIGTERM landing inside an extension module's initialisation comes back as that
    module's own error (e.g. ImportError: initialization failed): exit 143, never 'internal'."""
    import typer

    @_common.guarded
    def import_interrupted() -> None:
        try:
            _common._raise_terminated(signal.SIGTERM, None)
        except _common.Terminated:
            raise ImportError("initialization failed") from None

    with pytest.raises(typer.Exit) as exc:
        import_interrupted()
    assert exc.value.exit_code == 143
    assert "internal error" not in capsys.readouterr().err

    @_common.guarded
    def plain_bug() -> None:
        raise ImportError("initialization failed")

    with pytest.raises(typer.Exit) as exc:
        plain_bug()
    assert exc.value.exit_code == 1  # without a signal it stays an internal error


def test_exit_code_is_guardeds_mapping_for_a_plain_run(capsys):
    """``exit_code`` (what guarded and reproduce's plain run give an exception): 2 bad input, 1
    analysis failure or internal error, 130 Ctrl-C, 143 SIGTERM, each with its one line."""
    from primafacie.errors import AnalysisError

    cases = [(InputError("bad key"), 2, "error: bad key"),
             (AnalysisError("no fit"), 1, "analysis failed: no fit"),
             (FileNotFoundError(2, "No such file", "/x.csv"), 2, "cannot access /x.csv"),
             (ValueError("oops"), 1, "internal error: ValueError: oops"),
             (KeyboardInterrupt(), 130, "interrupted; nothing was written"),
             (_common.Terminated(), 143, "terminated; nothing was written")]  # fmt: skip
    _common._committed_outputs().clear()
    for exc, code, said in cases:
        assert _common.exit_code(exc) == code
        assert said in " ".join(capsys.readouterr().err.split())
