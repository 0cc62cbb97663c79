import numpy as np
import pytest

from primafacie.compute import Backend, chunk_slices, get_backend, map_chunks
from primafacie.errors import InputError


def test_chunk_slices_cover_range():
    assert chunk_slices(10, 4) == [slice(0, 4), slice(4, 8), slice(8, 10)]
    assert chunk_slices(0, 4) == []
    with pytest.raises(InputError):
        chunk_slices(3, 0)


@pytest.mark.parametrize("backend", [None, "local", {"backend": "local", "n_jobs": 2}])
def test_map_chunks_in_order(backend):
    out = map_chunks(lambda idx: idx.sum(), np.arange(10), chunk_size=3, backend=backend)
    assert out == [3, 12, 21, 9]


def test_unknown_backend():
    with pytest.raises(InputError, match="unknown compute backend 'spark'"):
        Backend(kind="spark").map(len, [[1]])
    assert get_backend({"backend": "local"}).kind == "local"
