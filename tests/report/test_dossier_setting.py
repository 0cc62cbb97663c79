"""Dossier pages carry the audit's time window per complainant and its jurisdiction's notes."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd

from primafacie.data import AuditData
from primafacie.situation import SituationTest
from primafacie.situation.analysis import dossier_setting
from primafacie.situation.dossier import build_dossiers


def _world():
    df = pd.DataFrame(
        {
            "x": [0.0, 1, 2, 10, 0.5, 1.5, 2.5, 3.5],
            "a": [1] * 4 + [0] * 4,
            "y": [0, 0, 1, 0, 1, 1, 0, 1],
            "when": ["2024-01-05", "2024-02-10", "2024-02-11", "2024-03-01"] * 2,
        }
    )
    data = AuditData(df, features={"x": "numeric"}, protected={"a": 1}, decision="y")
    return data, SituationTest(methods="st", k=2).run(data)


def test_the_record_shows_the_complainants_time_window():
    data, res = _world()
    time = SimpleNamespace(column="when", by=None, window="month", source="when")
    setting = dossier_setting(SimpleNamespace(time=time, jurisdiction="eu"), data)
    assert setting["windows"] == ["2024-01", "2024-02", "2024-02", "2024-03"] * 2
    book = build_dossiers({"single_a": res}, data, ids=[1], **setting)
    page = book.pages()["dossiers/1.html"]
    assert "time window" in page and "2024-02" in page
    plain = build_dossiers({"single_a": res}, data, ids=[1])
    assert "time window" not in plain.pages()["dossiers/1.html"]


def test_the_pages_carry_the_jurisdictions_legal_notes():
    data, res = _world()
    us = build_dossiers({"single_a": res}, data, ids=[0], jurisdiction="us-employment")
    page = us.pages()["dossiers/0.html"]
    assert "Title VII" in page and "Directive 2000/43/EC" not in page
    eu = build_dossiers({"single_a": res}, data, ids=[0]).pages()["dossiers/0.html"]
    assert "Directive 2000/43/EC" in eu and "Title VII" not in eu
