"""The analysis descriptor's run record (src/primafacie/analysis.py): AnalysisRun.of derives a
completed run from its Results."""

from __future__ import annotations

import pandas as pd

from primafacie.analysis import AnalysisRun
from primafacie.base import BaseResult


class _Res(BaseResult):
    def __init__(self, word: str) -> None:
        self.word = word

    def _summary(self):
        return pd.DataFrame({"word": [self.word]})

    def to_frame(self):
        return pd.DataFrame({"id": [1, 2], "word": [self.word] * 2})

    def to_dict(self):
        return {"word": self.word}

    def headline(self):
        return f"{self.word}: 1 of 2"

    def scope(self):
        return f"{self.word}: 2 people"

    def caveats(self):
        return [f"{self.word} is small"]


def test_a_run_takes_its_sentences_from_the_main_result_and_tables_from_all():
    run = AnalysisRun.of("toy", {"a": _Res("a"), "b": _Res("b")}, {"n": 2}, main="b")
    assert (run.name, run.status, dict(run.numbers)) == ("toy", "ok", {"n": 2})
    assert (run.headline, run.scope, run.caveats) == ("b: 1 of 2", "b: 2 people", ("b is small",))
    assert list(run.tables) == ["toy_a", "toy_a_summary", "toy_b", "toy_b_summary"]
    first = AnalysisRun.of("toy", {"a": _Res("a")}, caveats=["merged"],
                           tables={"toy_extra": pd.DataFrame({"x": [1]})})  # fmt: skip
    assert first.headline == "a: 1 of 2" and first.caveats == ("merged",)
    assert "toy_extra" in first.tables and first.to_dict()["results"]["a"] == {"word": "a"}
