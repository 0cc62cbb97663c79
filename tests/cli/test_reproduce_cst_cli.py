"""``primafacie reproduce cst-loan`` writes the ours-vs-paper table next to the run's CSV."""

from __future__ import annotations

import pandas as pd
from typer.testing import CliRunner

from primafacie.cli import app

runner = CliRunner()


def test_reproduce_cst_loan_legacy_writes_vs_paper(require_data, data_dir, tmp_path):
    require_data("loan_application", "LoanApplication_v2.csv")
    require_data("loan_application", "cf_LoanApplication_v2.csv")
    out = tmp_path / "o"
    res = runner.invoke(
        app, ["reproduce", "cst-loan", "--data-dir", str(data_dir), "--out", str(out), "--legacy"]
    )
    assert res.exit_code == 0, res.output
    table = pd.read_csv(out / "cst-loan-vs-paper.csv")
    assert len(table) == 40 and (table.status == "exact").all()
    assert "40 exact" in res.output
