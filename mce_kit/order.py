"""Vertex orderings: core numbers, degeneracy order, degree order.

Peeling is done in batches with NumPy: at level ``k`` every vertex whose
remaining degree is at most ``k`` is removed at once, its neighbours'
degrees drop, and the newly eligible ones form the next batch; when none is
left, ``k`` rises to the smallest remaining degree. Each vertex removed at
level ``k`` has at most ``k`` neighbours still present, so the concatenated
batches form a degeneracy order. The cost is O(|V| + |E|) work plus NumPy
overhead per batch; long chains of single-vertex batches (paths) are the
slow case.
"""

from __future__ import annotations

import numpy as np

from .gpu.sort import argsort, pair_bits, sort
from .graph import Graph, csr_from_keys, neighbours_of, rows_of, run_starts, sorted_ptr


def peel_arrays(indptr, indices, xp=np) -> tuple:
    """(order, core numbers), both int32, of the CSR graph ``indptr, indices`` by batch peeling.

    The same steps on NumPy or CuPy arrays (``xp``), so both give the same order. A round
    whose removed vertices have many live neighbours counts their losses with one bincount
    instead of a sort (same result)."""
    n = len(indptr) - 1
    deg = (indptr[1:] - indptr[:-1]).astype(xp.int64)
    alive = xp.ones(n, dtype=bool)
    core = xp.zeros(n, dtype=xp.int32)
    batches, removed, k = [], 0, 0
    batch = xp.flatnonzero(deg == 0)
    live = xp.arange(n)  # a superset of the live vertices, compacted at each new level
    while removed < n:
        if len(batch) == 0:
            live = live[alive[live]]
            left = deg[live]
            k = int(left.min())
            batch = live[left <= k]
        alive[batch] = False
        core[batch] = k
        batches.append(batch)
        removed += len(batch)
        nb = neighbours_of(indptr, indices, batch, xp)
        nb = nb[alive[nb]]
        if xp is np and len(nb) > n // 4:
            lost = np.bincount(nb, minlength=n)
            hit = np.flatnonzero(lost)
            deg[hit] -= lost[hit]
        else:  # distinct live neighbours (ascending) and how many removed neighbours each lost
            nb = xp.sort(nb)
            first = xp.flatnonzero(run_starts(nb, xp))
            hit = nb[first]
            deg[hit] -= xp.diff(xp.concatenate([first, xp.asarray([len(nb)], dtype=first.dtype)]))
        batch = hit[deg[hit] <= k]
    order = xp.concatenate(batches) if batches else xp.empty(0, dtype=xp.int64)
    return order.astype(xp.int32), core


def relabel_arrays(indptr, indices, order, xp=np) -> tuple:
    """(indptr, indices) of the CSR graph with vertex ``order[i]`` renamed ``i``, rows sorted: one
    sort of 64-bit keys ``row << 32 | column``, or in NumPy with up to 2^16 vertices two stable
    sorts of 16-bit ranks (``Graph.relabel`` is the SciPy path on the host)."""
    n = len(indptr) - 1
    rank = xp.empty(n, dtype=xp.int64)
    rank[order] = xp.arange(n, dtype=xp.int64)
    if xp is np and n <= 1 << 16:   # by column, then stably by row: two radix passes, a third of the
        rows, cols = rank[rows_of(indptr)], rank[indices]   # time of the keys' sort (CA-GrQc, wiki-Vote)
        by_col = argsort(cols, 16)
        at = by_col[argsort(rows[by_col], 16)]
        return sorted_ptr(rows[at], n), cols[at].astype(np.int32)
    key = xp.left_shift(rank[rows_of(indptr, xp)], 32)
    key |= rank[indices]
    return csr_from_keys(sort(key, pair_bits(n - 1)), n, xp)


def orient_arrays(indptr, indices, xp=np) -> tuple:
    """(out_ptr, out_idx, u, v, bound) of the CSR graph oriented from each vertex to its larger
    neighbours: the later-neighbour CSR (int32) and its edges u < v (int32) with
    ``bound = min(out-degree(u), out-degree(v))`` (int64), largest bound first, ties in CSR order."""
    indptr = xp.asarray(indptr)
    n = len(indptr) - 1
    src = rows_of(indptr, xp).astype(xp.int32)
    keep = indices > src
    u, v = src[keep], xp.asarray(indices[keep], dtype=xp.int32)
    out_ptr = sorted_ptr(u, n, xp)   # u ascends: rows_of gives the entries in row order
    out_deg = xp.diff(out_ptr)
    out_ptr = out_ptr.astype(xp.int32)
    bound = xp.minimum(out_deg[u], out_deg[v])
    top = int(bound.max()) if len(bound) else 0
    if xp is np:
        by_size = argsort(top - bound, top.bit_length())
    else:  # one key per edge, (largest bound, CSR position): the same order from any sort
        key = xp.left_shift(xp.subtract(top, bound), 32) | xp.arange(len(bound), dtype=xp.int64)
        by_size = argsort(key, pair_bits(top))
    return out_ptr, v.copy(), u[by_size], v[by_size], bound[by_size]


def compiled_twin(name: str, entries: int):
    """``mce_kit.compiled``'s twin ``name`` when it pays (``accel.use_compiled``), else None."""
    from .accel import use_compiled

    if use_compiled(entries):
        from . import compiled

        return getattr(compiled, name)
    return None


def relabel_host(indptr, indices, order) -> tuple:
    """``relabel_arrays`` on the host: its compiled twin when it pays, else NumPy (same arrays)."""
    fast = compiled_twin("relabel", len(indices))
    return fast(indptr, indices, order) if fast else relabel_arrays(indptr, indices, order)


def orient_host(indptr, indices) -> tuple:
    """``orient_arrays``: its compiled twin when it pays, else NumPy (same arrays)."""
    fast = compiled_twin("orient", len(indices))
    return fast(indptr, indices) if fast else orient_arrays(indptr, indices)


def oriented_csr(G: Graph, order) -> tuple:
    """(indptr, indices, out_ptr, out_idx, u, v, bound): ``G`` relabelled by ``order`` (int32 CSR,
    vertex ``order[i]`` renamed ``i``), then ``orient_arrays`` of it (KCMiner's and the pivot
    counter's host preparation)."""
    indptr, indices = relabel_host(G.indptr, G.indices, np.asarray(order))
    indptr = np.ascontiguousarray(indptr, dtype=np.int32)
    indices = np.ascontiguousarray(indices, dtype=np.int32)
    return (indptr, indices, *orient_host(indptr, indices))


def peel(G: Graph) -> tuple[np.ndarray, np.ndarray]:
    """(degeneracy order, core numbers) of ``G``: ``peel_host``."""
    return peel_host(G.indptr, G.indices)


def peel_host(indptr, indices) -> tuple[np.ndarray, np.ndarray]:
    """``peel_arrays`` on the host: its Numba twin (``compiled.peel``, the same arrays) for long
    inputs or once Numba is loaded (``accel.use_compiled``), else NumPy."""
    fast = compiled_twin("peel", len(indices))
    return fast(indptr, indices) if fast else peel_arrays(indptr, indices)


def core_numbers(G: Graph) -> np.ndarray:
    """Core number of every vertex (int32): the largest k with v in the k-core."""
    return peel(G)[1]


def degeneracy_order(G: Graph) -> np.ndarray:
    """A degeneracy order (int32, ``order[i]`` = vertex at position i).

    Vertices leave in batches of the peeling (ids ascending within a batch);
    every vertex has at most its core number, so at most ``degeneracy(G)``,
    neighbours later in the order.
    """
    return peel(G)[0]


def degeneracy(G: Graph) -> int:
    """The degeneracy d: the largest core number (0 for a graph without edges)."""
    core = core_numbers(G)
    return int(core.max()) if len(core) else 0


def degree_order(G: Graph) -> np.ndarray:
    """Vertices by ascending degree, ties by id (int32)."""
    degrees = G.degrees()
    return argsort(degrees, int(degrees.max(initial=0)).bit_length())
