"""The radix sort on the GPU (gpu/sort.py) against NumPy: sorted keys and the stable argsort, from
one key to millions, narrow and full-width keys, many equal keys; three runs each (a race would
move an answer)."""

import numpy as np
import pytest

from mce_kit.gpu import has_gpu
from mce_kit.gpu import sort as gsort

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not has_gpu(), reason="no GPU")]


CASES = [(1, 3, 2), (4095, 7, 3), (4097, 1 << 20, 20), (100_003, 1 << 34, 34), (1 << 20, 1 << 62, 64),
         (3_000_001, 1000, 10), (3_000_001, 1 << 45, 45)]


@pytest.mark.parametrize("n, high, bits", CASES)
def test_radix_sort_equals_numpy(n, high, bits):
    import cupy

    keys = np.random.default_rng(n ^ bits).integers(0, high, n, dtype=np.int64)
    want_keys, want_order = np.sort(keys), np.argsort(keys, kind="stable")
    d = cupy.asarray(keys)
    for _ in range(3):
        got = gsort.sort(d, bits)
        order = gsort.argsort(d, bits)
        assert got.dtype == cupy.int64 and order.dtype == cupy.int32
        assert np.array_equal(got.get(), want_keys)
        assert np.array_equal(order.get(), want_order)
    assert np.array_equal(d.get(), keys)   # the input is left as it was


def test_radix_sort_edges():
    import cupy

    assert gsort.sort(cupy.zeros(0, dtype=cupy.int64)).size == 0
    assert gsort.argsort(cupy.zeros(0, dtype=cupy.int64)).size == 0
    with pytest.raises(TypeError, match="64-bit"):
        gsort.sort(cupy.zeros(3, dtype=cupy.int32))
    keys = cupy.asarray(np.array([2**63 - 1, 0, 2**40, 5], np.int64))
    assert gsort.sort(keys).get().tolist() == [0, 5, 2**40, 2**63 - 1]
