"""Host preparation of large graphs done on the GPU: the same steps, the same arrays.

    order, core, indptr, indices = degeneracy_csr(G)   # peeling (one block, cuda/peel.cu) + relabelling
    u, v, p, x = seeds.seed_sets(indptr, indices, "edge")   # on the GPU past PREP_GPU_MIN_ENTRIES // 4
    o, indptr, indices, out_ptr, out_idx, u, v, bound = oriented_csr(G.indptr, G.indices, "degree")
    o, bound, (d_out, d_all) = oriented_blobs(G.indptr, G.indices, "degree")
    u, v, rows, stack = seed_needs(indptr, indices, "edge", rows_words, stack_words)  # a launcher's

Each function runs the NumPy code of the host path (``order.peel_arrays``,
``order.relabel_arrays``, ``order.orient_arrays``, ``graph.csr_arrays``, ``seeds.seed_bounds``) with CuPy
as the array module, so the results equal the host's array for array (the
peeling takes the same batches in the same order; CSR rows are sorted and
unique either way). Only NumPy arrays go in and come out. ``use_gpu`` decides:
``device="auto"`` takes the GPU when one answers and the graph has at least
``GPU_MIN_ENTRIES`` adjacency entries (2m), below which the host is as fast; a k-clique call's
orientation takes it from ``PREP_GPU_MIN_ENTRIES`` on, a maximal-clique call's order, relabelling and
seeds from a quarter of that (``use_gpu_for_prep``).
"""

from __future__ import annotations

import numpy as np

from ..accel import DEVICES, GPU_MIN_ENTRIES, use_gpu, use_gpu_for_prep  # noqa: F401 (callers' names)
from ..accel import to_host as _done


def peel(ptr, idx):
    """(order, core numbers), int32 CuPy arrays, of the CSR graph ``ptr, idx`` (CuPy arrays): the
    batches of ``order.peel_arrays`` in one launch of one block (``cuda/peel.cu``), where the array
    code took a few launches and a host sync per round."""
    import cupy

    from .loader import load_module

    n = len(ptr) - 1
    ptr = ptr.astype(cupy.int64, copy=False)
    idx = idx.astype(cupy.int32, copy=False)
    deg = cupy.diff(ptr).astype(cupy.int32)
    core = cupy.full(n, -1, dtype=cupy.int32)
    order, batch, hit, live = (cupy.empty(max(n, 1), dtype=cupy.int32) for _ in range(4))
    mark = cupy.zeros(max(n, 1), dtype=cupy.int32)
    if n:
        kernel = load_module("peel.cu").get_function("peel_kernel")
        kernel((1,), (1024,), (ptr, idx, np.int32(n), deg, core, order, batch, hit, mark, live))
    return order[:n], core


def degeneracy_csr(indptr, indices, keep=None):
    """(order, core numbers, indptr, indices): the graph peeled and relabelled in degeneracy order.
    ``keep(name, device array)`` is given the relabelled CSR's int32 device arrays ("indptr",
    "indices"), so a launcher uses them without copying the host's back."""
    import cupy

    from ..order import relabel_arrays

    ptr, idx = cupy.asarray(indptr), cupy.asarray(indices)
    order, core = peel(ptr, idx)
    ptr, idx = relabel_arrays(ptr, idx, order, cupy)
    ptr, idx = ptr.astype(cupy.int32, copy=False), idx.astype(cupy.int32, copy=False)
    if keep is not None:
        keep("indptr", ptr)
        keep("indices", idx)
    return _done(order, core, ptr, idx)


def oriented_csr(indptr, indices, order: str):
    """(order, indptr, indices, out_ptr, out_idx, u, v, bound): ``order.oriented_csr`` of the graph
    in its "degree" (by degree, ties by id) or "degeneracy" order (the peel above), on the GPU."""
    return _done(*_oriented(indptr, indices, order))


def oriented_blobs(indptr, indices, order: str):
    """``oriented_csr`` as the k-clique launchers send it: (order, bound) on the host and the two
    blobs on the GPU, built there ([out_ptr | out_idx | u0 v0 u1 v1 ...] and [indptr | indices | u0 v0
    ...], int32): no host concatenation, no upload before a launch, and no copy back unless the
    host asks (``kclique.Oriented.blob``)."""
    import cupy

    vertices, ptr, idx, out_ptr, out_idx, u, v, bound = _oriented(indptr, indices, order)
    uv = cupy.stack([u, v], axis=1).ravel()
    blobs = cupy.concatenate([out_ptr, out_idx, uv]), cupy.concatenate([ptr, idx, uv])
    del ptr, idx, out_ptr, out_idx, u, v, uv
    return (*_done(vertices, bound), blobs)


def _oriented(indptr, indices, order: str):
    import cupy

    from ..order import orient_arrays, relabel_arrays
    from .sort import argsort, pair_bits

    ptr, idx = cupy.asarray(indptr), cupy.asarray(indices)
    n = len(ptr) - 1
    if order == "degree":  # order.degree_order: one key per vertex, (degree, id)
        key = cupy.left_shift(cupy.diff(ptr).astype(cupy.int64), 32) | cupy.arange(n, dtype=cupy.int64)
        vertices = argsort(key, pair_bits(n - 1))
    else:
        vertices = peel(ptr, idx)[0]
    ptr, idx = relabel_arrays(ptr, idx, vertices, cupy)
    ptr, idx = ptr.astype(cupy.int32), idx.astype(cupy.int32)
    return (vertices, ptr, idx, *orient_arrays(ptr, idx, cupy))


def seed_sets(indptr, indices, seeding: str):
    """``seeds.seed_sets`` computed on the GPU."""
    import cupy

    return _done(*_seed_bounds(cupy.asarray(indptr), cupy.asarray(indices), seeding))


def _seed_bounds(ptr, idx, seeding: str):
    """``seeds.seed_bounds`` of CuPy arrays: edge seeds by ``edge_seeds``, vertex seeds by the array code."""
    import cupy

    from .seeds import seed_bounds

    return edge_seeds(ptr, idx) if seeding == "edge" else seed_bounds(ptr, idx, seeding, cupy)


def edge_seeds(ptr, idx):
    """(u, v, p, x) of the edge seeds, CuPy arrays equal to ``seeds.seed_bounds(ptr, idx, "edge")``'s,
    from ``cuda/seeds.cu``: two launches and a scan, where the array code took some twenty operations
    (1.4 ms on soc-Slashdot0902, H200, 2026-11-27)."""
    import cupy

    from .loader import load_module

    n, entries = len(ptr) - 1, len(idx)
    ptr, idx = ptr.astype(cupy.int32, copy=False), idx.astype(cupy.int32, copy=False)
    module = load_module("seeds.cu")
    later = cupy.zeros(max(n, 1), dtype=cupy.int64)
    if n:
        module.get_function("later_counts")((-(-n // 256),), (256,), (ptr, idx, np.int32(n), later))
    end = cupy.cumsum(later[:n])
    total = int(end[-1]) if n else 0
    u, v = cupy.empty(total, dtype=cupy.int32), cupy.empty(total, dtype=cupy.int32)
    p, x = cupy.empty(total, dtype=cupy.int64), cupy.empty(total, dtype=cupy.int64)
    if total:
        module.get_function("edge_seeds")((-(-entries // 256),), (256,),
                                          (ptr, idx, np.int32(n), np.int64(entries), later, end, u, v, p, x))
    return u, v, p, x


def seed_needs(indptr, indices, seeding: str, rows_words, stack_words, keep=None, host: bool = True):
    """(u, v, rows words, stack words) of every seed (a launcher's word counts), on the GPU.
    ``keep(name, device array)`` is given the seeds' device arrays ("seed u", "seed v");
    ``host=False`` leaves all four on the GPU (CuPy arrays)."""
    import cupy

    from .seeds import per_seed

    u, v, p, x = _seed_bounds(cupy.asarray(indptr), cupy.asarray(indices), seeding)
    if keep is not None:
        keep("seed u", u)
        keep("seed v", v)
    out = (u, v, *per_seed(p, x, rows_words, stack_words))
    return _done(*out) if host else out
