"""The README's Python examples run as written, in order, in one namespace."""

from __future__ import annotations

import re

import matplotlib
import pytest

from primafacie.paths import PROJECT_ROOT

matplotlib.use("Agg")

README = PROJECT_ROOT / "README.md"


def _blocks() -> list[str]:
    text = README.read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_readme_has_examples_for_every_analysis():
    code = "\n".join(_blocks())
    for name in ("SituationTest", "RecourseFairness", "PrincipalFairness", "CertaintyRanking"):
        assert name in code, f"README has no Python example for {name}"


#: A block whose first line is ``# needs: PATH`` runs only when PATH (relative to the project)
#: exists, e.g. a real data set that cannot be shipped; every other block always runs.
NEEDS = re.compile(r"\A#\s*needs:\s*(\S+)")


def test_readme_examples_run(capsys, tmp_path, monkeypatch):
    blocks = _blocks()
    if not blocks:
        pytest.fail("README.md has no ```python blocks")
    monkeypatch.chdir(tmp_path)  # the blocks write into out/ as a reader's would
    namespace: dict = {}
    for i, block in enumerate(blocks):
        needs = NEEDS.match(block)
        if needs and not (PROJECT_ROOT / needs.group(1)).exists():
            continue
        try:
            exec(compile(block, f"README.md:python-block-{i}", "exec"), namespace)  # noqa: S102
        except Exception as exc:  # pragma: no cover - the message is the point
            pytest.fail(f"README python block {i} failed: {type(exc).__name__}: {exc}\n{block}")
    assert len(namespace["res"].to_frame()) > 0
    assert namespace["repair"] is not None
    assert (tmp_path / "out" / "audit" / "report.html").is_file()  # the Python API block ran
    assert "groups" in namespace["groups"].name


def _schema_keys(node: dict, defs: dict, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every key path of the audit.yaml JSON Schema (the user-facing options)."""

    def resolve(n: dict) -> dict:
        if "$ref" in n:
            return defs[n["$ref"].split("/")[-1]]
        for sub in n.get("anyOf", []) + n.get("oneOf", []):
            found = resolve(sub)
            if found.get("properties"):
                return found
        return n

    out = []
    for key, sub in (resolve(node).get("properties") or {}).items():
        out.append((*prefix, key))
        out += _schema_keys(sub, defs, (*prefix, key))
    return out


def test_readme_mentions_every_option_of_audit_yaml():
    """Each key of the configuration schema is in the README's reference table, in the row of
    its section (an analysis' keys in that analysis' row), quoted as code."""
    from primafacie.config import config_schema

    schema = config_schema()
    text = README.read_text(encoding="utf-8")
    rows: dict[str, str] = {}
    for m in re.finditer(r"^\| ([^|]*)\|[^\n]*", text, re.M):
        for key in re.findall(r"`([^`]+)`", m.group(1)):
            rows[key] = m.group(0)
    missing = []
    for path in _schema_keys(schema, schema.get("$defs", {})):
        if path == ("analyses",):  # the container: each analysis has its own row
            continue
        if path[0] == "analyses":
            row = rows.get(f"analyses.{path[1]}", "")
        else:
            row = rows.get(path[0], "")
        quoted = re.search(r"`[^`]*\b" + re.escape(path[-1]) + r"\b", row)
        if not row or (len(path) > 1 and not quoted):
            missing.append(".".join(path))
    assert not missing, f"README's configuration table does not mention {missing}"


def test_readme_mentions_every_command_and_flag_added_by_issue_23():
    text = README.read_text(encoding="utf-8")
    from primafacie.cli import COMMANDS

    names = set(COMMANDS)
    assert {"demo", "audit", "diff", "check", "dossier"} <= names
    absent = [n for n in names if f"primafacie {n}" not in text and n not in text]
    assert not absent, absent
    assert "primafacie dossier" in text and "--date" in text
