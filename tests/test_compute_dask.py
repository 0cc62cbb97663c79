"""The Dask backend on a LocalCluster of processes gives results identical to the local one."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("distributed", reason="the [dask] extra is not installed")

from primafacie import SCM, Rule, SituationTest  # noqa: E402
from primafacie.compute import Backend, close_dask_clients, map_chunks  # noqa: E402
from primafacie.datasets.loan_world import LOAN_EDGES, loan_world_data  # noqa: E402


@pytest.fixture(scope="module")
def dask_backend():
    yield Backend(kind="dask", n_jobs=2)
    close_dask_clients()


def test_map_chunks_on_processes_in_order(dask_backend):
    out = map_chunks(lambda idx: int(idx.sum()), np.arange(10), chunk_size=3, backend=dask_backend)
    assert out == [3, 12, 21, 9]


def test_situation_test_identical_on_dask(dask_backend):
    data = loan_world_data(n=1500, seed=3)
    scm = SCM(edges=LOAN_EDGES).fit(data)
    rule = Rule("AnnualSalary + 5 * AccountBalance > 225000")
    settings = dict(method=["st", "cst", "cst_centers", "cf"], k=[5, 15], chunk_size=97)
    local = SituationTest(**settings).run(data, scm=scm, decider=rule)
    remote = SituationTest(**settings, backend=dask_backend).run(data, scm=scm, decider=rule)
    a, b = local.to_frame(), remote.to_frame()
    assert len(a) > 0
    assert a.equals(b)
    assert local.summary().equals(remote.summary())


def test_unreachable_scheduler_is_an_input_error():
    from primafacie.errors import InputError

    with pytest.raises(InputError, match="cannot reach the Dask scheduler"):
        Backend(kind="dask", address="tcp://127.0.0.1:9").map(len, [[1]])
