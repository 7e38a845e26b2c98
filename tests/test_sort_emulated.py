"""The radix sort (cuda/radix_sort.cu) on CPU fibers (tests/emulated.py): the passes as
``gpu.sort`` launches them give NumPy's sort and its stable argsort, across tile edges, with
many equal keys and with keys of every width. No GPU needed."""

import numpy as np
import pytest
from emulated import HAVE_GXX, build, launch_args

from mce_kit.gpu import sort as gsort

pytestmark = pytest.mark.skipif(not HAVE_GXX, reason="needs g++ (C++20)")


@pytest.fixture(scope="module")
def exes(tmp_path_factory):
    out = tmp_path_factory.mktemp("radix")
    return {k: build("radix_sort.cu", k, out / k, main="args_main.cpp")
            for k in ("radix_histogram", "radix_scan_rows", "radix_scatter")}


def emulated_sort(exes, keys: np.ndarray, bits: int):
    """``gpu.sort._radix``'s passes: (sorted keys, stable positions)."""
    n = len(keys)
    tiles = -(-n // gsort.TILE)
    src, src_index = keys.view(np.uint64), None
    for p in range(gsort.passes(bits)):
        shift = np.int32(gsort.RADIX_BITS * p)
        counts = launch_args(exes["radix_histogram"], tiles, gsort.THREADS, src, np.int64(n), shift,
                             np.zeros(256 * tiles, np.uint32), np.int32(tiles))[3]
        counts, _, totals = launch_args(exes["radix_scan_rows"], 256, min(1024, -(-tiles // 32) * 32), counts,
                                        np.int32(tiles), np.zeros(256, np.uint32))
        dst, dst_index = launch_args(exes["radix_scatter"], tiles, gsort.THREADS, src, np.zeros(n, np.uint64),
                                     src_index, np.zeros(n, np.int32), np.int64(n), shift, counts, totals,
                                     np.int32(tiles))[1:4:2]
        src, src_index = dst, dst_index
    return src.view(np.int64), src_index


@pytest.mark.parametrize("n, high, bits", [(1, 5, 3), (700, 4, 2), (4095, 1 << 20, 20), (4096, 1 << 40, 40),
                                           (4097, 3, 9), (9000, 1 << 62, 64), (9000, 50, 16)])
def test_emulated_radix_sort_equals_numpy(exes, n, high, bits):
    keys = np.random.default_rng(n + bits).integers(0, high, n, dtype=np.int64)
    got, order = emulated_sort(exes, keys, bits)
    assert np.array_equal(got, np.sort(keys))
    assert np.array_equal(order, np.argsort(keys, kind="stable"))


def test_emulated_row_scans_over_many_rounds(exes):
    tiles = 2500   # rows longer than a block: three rounds of 1024 each
    a = np.random.default_rng(3).integers(0, 1000, (256, tiles), dtype=np.uint32)
    got, _, totals = launch_args(exes["radix_scan_rows"], 256, 1024, a.ravel().copy(), np.int32(tiles),
                                 np.zeros(256, np.uint32))
    want = np.cumsum(a, axis=1) - a
    assert np.array_equal(got.reshape(256, tiles), want) and np.array_equal(totals, a.sum(axis=1))


def test_host_route_and_pass_count():
    keys = np.array([5, 3, 5, 1], np.int64)
    assert np.array_equal(gsort.sort(keys), [1, 3, 5, 5])
    order = gsort.argsort(keys)
    assert np.array_equal(order, [3, 1, 0, 2]) and order.dtype == np.int32   # as on the GPU
    assert [gsort.passes(b) for b in (0, 1, 8, 9, 34, 64)] == [1, 1, 1, 2, 5, 8]


@pytest.mark.parametrize("bits", [1, 9, 16, 17])
def test_host_argsort_of_short_keys_is_stable(bits):
    """Keys of at most 16 bits take NumPy's 16-bit (radix) sort: the same stable order."""
    keys = np.random.default_rng(bits).integers(0, 1 << bits, 5000).astype(np.int64)
    order = gsort.argsort(keys, bits)
    assert np.array_equal(order, np.argsort(keys, kind="stable")) and order.dtype == np.int32
