"""Sorting for the preparation, on NumPy or CuPy arrays alike (the array's type decides):

    keys = sort(keys, bits)          # ascending
    order = argsort(keys, bits)      # stable: equal keys keep their input order

On CuPy, 64-bit keys below 2**bits go through our stable radix sort (``cuda/radix_sort.cu``, one
pass per 8 bits): CuPy's own sort runs Thrust, whose first call in a process loaded its module
for 30-75 ms on an H200 (2026-11-27), a cost every one-call process paid in its preparation.
Warm, ours is slower: 1.4x Thrust's time on a million keys, 2.7-3.5x on eight million
(data/results/logs/radix_sort_h200_424ddf0.log, scripts/sort_bench.py).
NumPy sorts stably itself (keys of at most 16 bits as 16-bit keys, which it radix sorts);
``argsort`` returns int32 positions on either.
"""

from __future__ import annotations

import numpy as np

THREADS, ITEMS = 256, 16   # radix_sort.cu's SORT_THREADS, SORT_ITEMS
TILE = THREADS * ITEMS
RADIX_BITS = 8
MAX_KEYS = (1 << 31) - 1   # positions are int32, offsets 32-bit


def pair_bits(top: int) -> int:
    """Bits of the keys ``high << 32 | low`` with ``0 <= high <= top`` and ``low`` under 2**32."""
    return 32 + max(int(top), 1).bit_length()


def sort(keys, bits: int = 64):
    """``keys`` ascending (each in [0, 2**bits) on the GPU)."""
    if isinstance(keys, np.ndarray):
        return np.sort(keys)
    return _radix(keys, bits, with_index=False)[0]


def argsort(keys, bits: int = 64):
    """Positions (int32 on either module) that sort ``keys`` stably; each key in [0, 2**bits) (the GPU's
    passes and NumPy's 16-bit sort rely on it)."""
    if isinstance(keys, np.ndarray):
        if keys.size > MAX_KEYS:
            raise ValueError(f"argsort: {keys.size:,} keys; at most {MAX_KEYS:,}")
        if bits <= 16:   # NumPy's stable sort of 16-bit keys is a radix sort (3-5x faster here)
            keys = keys.astype(np.uint16)
        return np.argsort(keys, kind="stable").astype(np.int32)
    return _radix(keys, bits, with_index=True)[1]


def passes(bits: int) -> int:
    return max(1, -(-int(bits) // RADIX_BITS))


def _radix(keys, bits: int, with_index: bool):
    import cupy

    from .loader import load_module

    keys = cupy.ascontiguousarray(keys)
    if keys.dtype not in (cupy.int64, cupy.uint64):
        raise TypeError(f"radix sort: 64-bit integer keys, got {keys.dtype}")
    if not 0 <= bits <= 64:
        raise ValueError(f"radix sort: bits = {bits} outside 0..64")
    n = keys.size
    if n > MAX_KEYS:
        raise ValueError(f"radix sort: {n:,} keys; at most {MAX_KEYS:,}")
    if n == 0:
        return keys.copy(), cupy.empty(0, dtype=cupy.int32)
    mod = load_module("radix_sort.cu")
    hist, scan, scatter = (mod.get_function(f)
                           for f in ("radix_histogram", "radix_scan_rows", "radix_scatter"))
    tiles, rounds = -(-n // TILE), passes(bits)
    scan_threads = min(1024, -(-tiles // 32) * 32)
    counts, totals = cupy.empty(256 * tiles, dtype=cupy.uint32), cupy.empty(256, dtype=cupy.uint32)
    out = [cupy.empty(n, dtype=cupy.uint64) for _ in range(min(rounds, 2))]   # ping-pong, input untouched
    out_index = [cupy.empty(n, dtype=cupy.int32) for _ in range(min(rounds, 2))] if with_index else [None] * 2
    src, src_index = keys.view(cupy.uint64), None
    n64, tiles32 = np.int64(n), np.int32(tiles)
    for p in range(rounds):
        dst, dst_index, shift = out[p % 2], out_index[p % 2], np.int32(RADIX_BITS * p)
        hist((tiles,), (THREADS,), (src, n64, shift, counts, tiles32))
        scan((256,), (scan_threads,), (counts, tiles32, totals))
        scatter((tiles,), (THREADS,), (src, dst, src_index, dst_index, n64, shift, counts, totals, tiles32))
        src, src_index = dst, dst_index
    return src.view(keys.dtype), src_index
