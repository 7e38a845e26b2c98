"""The smallest real kernels (``cuda/degree.cu``): prove the CuPy path end to end."""

import numpy as np

from . import require_gpu
from .loader import load_module


def degrees(G) -> np.ndarray:
    """Vertex degrees of ``G`` computed on the GPU from its CSR."""
    require_gpu()
    import cupy

    indptr = cupy.asarray(G.indptr, dtype=cupy.int32)
    out = cupy.empty(G.n, dtype=cupy.int32)
    kernel = load_module("degree.cu").get_function("csr_degrees")
    kernel(((G.n + 255) // 256,), (256,), (indptr, np.int32(G.n), out))
    return out.get()


def popcount(words: np.ndarray) -> int:
    """Number of set bits in a uint32 array, summed in a 64-bit counter on the GPU."""
    require_gpu()
    import cupy

    w = cupy.asarray(words, dtype=cupy.uint32)
    total = cupy.zeros(1, dtype=cupy.uint64)
    kernel = load_module("degree.cu").get_function("bitmap_popcount")
    kernel(((len(w) + 255) // 256,), (256,), (w, np.int64(len(w)), total))
    return int(total[0])
