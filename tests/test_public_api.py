import primafacie


def test_public_names_resolve_and_are_documented():
    for name in primafacie.__all__:
        obj = getattr(primafacie, name)
        if callable(obj) and name != "__version__":
            assert obj.__doc__, f"{name} has no docstring"


def test_design_example_runs():
    """The Python example of DESIGN.md, end to end on a generated loan world."""
    from primafacie import SCM, AuditData, SituationTest
    from primafacie.datasets import make_loan_world

    df = make_loan_world(n=600, seed=1)
    data = AuditData(
        df,
        features={"AnnualSalary": "numeric", "AccountBalance": "numeric"},
        protected={"Gender": 1},
        decision="LoanApproval",
        favorable=1,
    )
    scm = SCM(
        edges=[
            ("Gender", "AnnualSalary"),
            ("Gender", "AccountBalance"),
            ("AnnualSalary", "AccountBalance"),
        ]
    ).fit(data)
    res = SituationTest(methods="cst", k=15, alpha=0.05, tau=0.0).run(data, scm=scm)
    frame = res.to_frame()
    assert len(frame) == int(data.protected_mask().sum())
    summary = res.summary()
    assert {"cases", "n_significant"} <= set(summary.columns)
