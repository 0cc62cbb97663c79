"""The audit with a listed reference group (src/primafacie/audit/run.py): situation testing,
recourse, principal strata and certainty run on the protected and reference rows only, the
rows left out never appear as complainants or controls, and every scope says so."""

from __future__ import annotations

import json

import pytest
import yaml

from primafacie.audit.run import compute_audit
from primafacie.config import load_config
from primafacie.datasets.credit_world import CREDIT_FEATURES, SCORECARD_RULE, generate_credit_world


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    """300 applicants; race black (protected) vs white (reference); hispanic left out."""
    folder = tmp_path_factory.mktemp("reference")
    world = generate_credit_world(300)
    world.to_csv(folder / "world.csv", index=False)
    cfg = {
        "data": "world.csv", "id": "id", "decision": {"rule": SCORECARD_RULE},
        "outcome": "repaid", "features": dict(CREDIT_FEATURES),
        "protected": {"race": {"values": ["black"], "reference": ["white"]}},
        "analyses": {"groups": {}, "situation": {"k": [5], "methods": ["st"]},
                     "recourse": {"support": 0.1, "n_boot": 0}, "principal": {},
                     "certainty": {}},
    }  # fmt: skip
    (folder / "audit.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")
    return world, compute_audit(load_config(folder / "audit.yaml"))


def _ids(world, *races):
    return set(world.loc[world["race"].isin(races), "id"])


def test_situation_complainants_and_neighbours_are_never_left_out_rows(audited):
    world, res = audited
    sit = res.runs["situation"].results["single_race"]
    table = sit.to_frame(neighbors=True)
    assert len(table) and set(table["id"]) <= _ids(world, "black")
    assert set(table["id"]) == _ids(world, "black")  # every complainant is tested
    controls = {i for ids in table["control_ids"] for i in ids}
    tests = {i for ids in table["test_ids"] for i in ids}
    assert controls <= _ids(world, "black")
    assert tests <= _ids(world, "white") and tests
    assert not (controls | tests) & _ids(world, "hispanic")


def test_recourse_principal_and_certainty_compare_protected_with_reference(audited):
    world, res = audited
    n = len(_ids(world, "black", "white"))
    facts = res.runs["recourse"].results["definitions"]
    assert set(map(str, facts.groups)) == {"black", "white"}
    repair = res.runs["principal"].results["repair"]
    assert len(repair.ids) == n and set(repair.ids) == _ids(world, "black", "white")
    cert = res.runs["certainty"].results["ranking"]
    assert cert.groups == ("black", "white")
    assert int(cert.counts["members"].sum()) == n


def test_every_section_states_the_comparison_and_results_json_counts_it(audited):
    world, res = audited
    left = int((world["race"] == "hispanic").sum())
    said = f"race: black vs white ({left:,} rows"
    for name in ("situation", "recourse", "principal", "certainty"):
        assert said in res.runs[name].scope, name
        assert f"({left:,} left out)" in res.runs[name].scope
    groups = res.runs["groups"].results["metrics"]
    assert f"{left:,} rows" in groups.scope() and "race compared with white" in groups.scope()
    info = json.loads(json.dumps(res.to_dict()["data"]["comparisons"]))
    assert info == [{"attribute": "race", "protected": ["black"], "rule": "listed",
                     "reference": ["white"], "n": 300, "left_out": left,
                     "left_out_share": left / 300, "left_out_values": ["hispanic"]}]  # fmt: skip
