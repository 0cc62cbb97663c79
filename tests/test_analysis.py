"""The analysis descriptor's run record (src/primafacie/analysis.py): AnalysisRun.of derives a
completed run from its Results."""

from __future__ import annotations

import pandas as pd

from primafacie.analysis import Analysis, AnalysisRun
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


class _Counted(_Res):
    """A Result with numbers and an extra table, as the engines' Results have."""

    def numbers(self):
        return {"k": 1, "n": 2}

    def extra_tables(self):
        return {f"{self.word} counts": pd.DataFrame({"k": [1], "n": [2]})}


def test_numbers_and_extra_tables_come_from_the_results_after_the_given_tables():
    run = AnalysisRun.of("toy", {"a": _Counted("a"), "b": _Counted("b")},
                         tables={"toy_summary": pd.DataFrame({"x": [1]})})  # fmt: skip
    assert dict(run.numbers) == {"k": 1, "n": 2}  # the main (first) Result's
    # Results' tables, then the given ones, then each Result's extra tables: the order
    # results.json lists them in
    assert list(run.tables) == ["toy_a", "toy_a_summary", "toy_b", "toy_b_summary",
                                "toy_summary", "toy_a_counts", "toy_b_counts"]  # fmt: skip
    assert run.to_dict()["tables"][-1] == "tables/toy_b_counts.csv"
    given = AnalysisRun.of("toy", {"a": _Counted("a")}, {"all": 3}, headline="h", scope="s")
    assert (dict(given.numbers), given.headline, given.scope) == ({"all": 3}, "h", "s")


def test_a_result_without_numbers_or_extra_tables_gives_none():
    run = AnalysisRun.of("toy", {"a": _Res("a")})
    assert dict(run.numbers) == {} and list(run.tables) == ["toy_a", "toy_a_summary"]


def test_define_takes_the_hooks_a_module_defines_and_keywords_override_them():
    def run(spec, ctx): ...

    def section(run, data, cfg): ...

    def finding(run):
        return {"level": "clear"}

    module = {"run": run, "section": section, "finding": finding, "LEAD": "Counts.",
              "GLOSSARY": (("k", "count"),), "check": "not a function", "pd": pd}  # fmt: skip
    toy = Analysis.define(module, name="toy", title="Toy", spec=dict)
    assert (toy.run, toy.section, toy.finding) == (run, section, finding)
    assert toy.lead == "Counts." and toy.glossary == (("k", "count"),)
    assert toy.check is Analysis.check  # a non-callable of a hook's name is not a hook
    other = Analysis.define(module, name="toy", title="Toy", spec=dict, lead="Other.")
    assert other.lead == "Other." and other.finding is finding


def test_every_registered_analysis_has_its_hooks_from_its_own_module():
    from primafacie.audit.registry import ANALYSES

    for analysis in ANALYSES:
        assert analysis.run.__module__ == analysis.section.__module__
        assert analysis.run.__module__.endswith(".analysis"), analysis.name
