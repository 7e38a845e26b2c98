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


def fill(n: int, value, dtype=np.float32) -> np.ndarray:
    """An array of ``n`` copies of ``value``, written by a template kernel (``fill_value<T>``)."""
    require_gpu()
    import cupy

    ctype = {np.float32: "float", np.float64: "double", np.int32: "int", np.int64: "long long"}[dtype]
    expr = f"fill_value<{ctype}>"
    kernel = load_module("degree.cu", name_expressions=(expr,)).get_function(expr)
    out = cupy.empty(n, dtype=dtype)
    kernel(((n + 255) // 256,), (256,), (out, dtype(value), np.int64(n)))
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
