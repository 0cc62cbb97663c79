"""File names from data (src/primafacie/filenames.py, analysis.table_stem): distinct within
a run, also without case; long names cut with a hash; dossier pages and their links."""

from __future__ import annotations

import hashlib
import re

import numpy as np
import pandas as pd

from primafacie import AuditData
from primafacie.analysis import result_tables, table_path, table_stem
from primafacie.filenames import MAX_NAME, distinct_names, short_hash, slug
from primafacie.situation import SituationTest
from primafacie.situation.dossier import build_dossiers


def _distinct_without_case(names):
    return len({n.casefold() for n in names}) == len(names)


def test_short_hash_is_the_sha256_prefix():
    assert short_hash("A 3") == hashlib.sha256(b"A 3").hexdigest()[:8] == "0931c615"


def test_clashing_values_get_their_own_hash_and_others_keep_their_name():
    names = distinct_names(["A 3", "A_3", "B"])
    assert names == {"A 3": "A_3_0931c615", "A_3": "A_3_" + short_hash("A_3"), "B": "B"}
    names = distinct_names(["Gender", "gender"])  # one file on macOS/Windows otherwise
    assert _distinct_without_case(names.values())
    names = distinct_names(["φύλο", "φυλή"])  # both slug to nothing
    assert _distinct_without_case(names.values()) and all(n.isascii() for n in names.values())


def test_long_names_are_cut_with_a_hash_and_stay_distinct():
    a, b = "x" * 300, "x" * 299 + "y"
    assert len(slug(a)) == MAX_NAME and slug(a).endswith(short_hash(a))
    names = distinct_names([a, b])
    assert _distinct_without_case(names.values())
    assert all(len(n) <= MAX_NAME for n in names.values())


def test_no_hidden_or_parent_names_and_reserved_prefixes_are_moved():
    assert slug("../../etc/passwd") == "_.._etc_passwd"
    assert not slug(".x").startswith(".")
    names = distinct_names(["subgroup_a", "b"], reserved=["subgroup_"])
    assert not names["subgroup_a"].startswith("subgroup_") and names["b"] == "b"


def test_table_stems_of_clashing_attributes_differ_and_links_agree():
    # "single_a_summary" is named like the summary table of "single_a" (the report linked the
    # other test's summary)
    labels = ["single_Gender", "single_gender", "single_φύλο", "single_φυλή", "single_a",
              "single_a_summary", "single_race"]  # fmt: skip
    stems = [table_stem("situation", lab, among=labels) for lab in labels]
    assert _distinct_without_case(stems)
    assert stems[-1] == "situation_single_race"  # no clash: the name is unchanged
    assert table_stem("recourse", "rank_Equal Effectiveness (EE)") == (
        "recourse_rank_equal_effectiveness_ee"
    )

    class R:
        def __init__(self, v):
            self.v = v

        def to_frame(self):
            return pd.DataFrame({"v": [self.v]})

        def summary(self):
            return pd.DataFrame({"s": [self.v]})

    results = {lab: R(i) for i, lab in enumerate(labels)}
    tables = result_tables("situation", results)
    assert len(tables) == 2 * len(labels)  # no table overwrote another
    for i, lab in enumerate(labels):  # the report's link names the table of that label
        stem = table_path("situation", lab, results)[len("tables/") : -len(".csv")]
        assert tables[stem]["v"].tolist() == [i]
        assert tables[f"{stem}_summary"]["s"].tolist() == [i]
    assert len(table_stem("situation", "single_" + "a" * 300)) == MAX_NAME


def test_dossier_files_are_distinct_and_the_index_links_the_right_page():
    rng = np.random.default_rng(1)
    n = 60
    ids = ["A 3", "A_3", "a_3", "L" * 300] + [f"p{i}" for i in range(4, n)]
    df = pd.DataFrame({"pid": ids, "x": rng.normal(size=n), "g": [1] * 30 + [0] * 30})
    df["y"] = (df["x"] + rng.normal(size=n) > 0).astype(int)
    df.loc[:3, "y"] = [0, 1, 0, 1]
    data = AuditData(df, features={"x": "numeric"}, protected={"g": 1}, decision="y",
                     id_column="pid")  # fmt: skip
    res = SituationTest(methods="st", k=3).run(data)
    book = build_dossiers({"single_g": res}, data, ids=ids[:4])
    files = list(book.pages())
    assert len(files) == 4 and _distinct_without_case(files)
    assert all(len(f.split("/")[1]) <= MAX_NAME + len(".html") for f in files)
    index = book.to_frame().drop_duplicates("id")
    for ident, file in zip(index["id"], index["file"], strict=True):
        page = book.pages()[file]
        h1 = re.search(r"<h1>Dossier of complainant (.*)</h1>", page).group(1)
        assert h1 == ident  # the link goes to this person's page
    assert book.links() == dict(zip(index["id"].astype(str), index["file"], strict=True))
