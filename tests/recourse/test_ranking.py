"""The query part of the FACTS engine (:mod:`primafacie.recourse.ranking`), by hand."""

import pandas as pd
import pytest

from primafacie.decisions import Rule
from primafacie.errors import InputError
from primafacie.recourse import RecourseFairness


def test_queries_need_a_fit():
    audit = RecourseFairness(Rule("x == 'h'"), protected="g")
    for query in (audit.subgroup_labels, audit.budgets, audit.curves, lambda: audit.rank("EE")):
        with pytest.raises(InputError, match=r"call run\(data\) before ranking"):
            query()


def test_scores_of_one_subgroup_by_hand():
    # 50 rejected in a, 25 in b, all with x=l; x -> h flips everyone in b and nobody in a
    df = pd.DataFrame(
        {"g": ["a", "b"] * 50, "x": ["lo", "hi", "lo", "lo"] * 25, "y": ["u", "v"] * 50}
    )
    audit = RecourseFairness(Rule("(x == 'hi') and (g == 'b')"), protected="g", support=0.1).fit(df)
    out = audit.scores("EE")
    assert audit.subgroup_labels() == ["x=lo"]
    assert out["d"].tolist() == [[0.0, 1.0]]  # effectiveness: a 0 of 50, b 25 of 25
    assert out["score"].tolist() == [1.0] and out["rank"].tolist() == [1]
    assert audit.subgroup_index("x=lo") == 0
