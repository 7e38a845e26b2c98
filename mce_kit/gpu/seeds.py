"""Host preparation shared by the maximal-clique kernels (RDMCE, mce-gpu).

    order, indptr, indices, isolated = degeneracy_csr(G)
    u, v, p, x = seed_sets(indptr, indices, "edge")   # or "vertex"

Vertices are relabelled in degeneracy order, so a vertex has at most d later
neighbours. A seed is a vertex (v = -1: P = later neighbours, X = earlier ones)
or an edge u < v (P = common neighbours after v, X = those before v); ``p`` and
``x`` bound |P| and |X| of each seed without computing the intersections, which
is what the launchers size their per-worker buffers from.
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph


def degeneracy_csr(G: Graph):
    """(order, indptr, indices, isolated) of ``G`` relabelled in degeneracy order (int32 CSR)."""
    from ..order import degeneracy_order

    order = degeneracy_order(G)
    H = G.relabel(order)
    indptr = np.ascontiguousarray(H.indptr, dtype=np.int32)
    indices = np.ascontiguousarray(H.indices, dtype=np.int32)
    isolated = np.flatnonzero(np.diff(indptr) == 0).astype(np.int32)
    return np.asarray(order), indptr, indices, isolated


def seed_sets(indptr, indices, seeding: str):
    """(u, v, p, x): every seed and upper bounds on its |P| and |X| (int64 bounds)."""
    n = len(indptr) - 1
    deg = np.diff(indptr).astype(np.int64)
    src = np.repeat(np.arange(n, dtype=np.int64), deg)
    later = np.bincount(src[indices > src], minlength=n)
    earlier = deg - later
    if seeding == "edge":
        keep = src < indices
        u, v = src[keep], indices[keep].astype(np.int64)
        p = np.minimum(later[u], later[v])
        x = np.minimum(earlier[v], deg[u])
    elif seeding == "vertex":
        u = np.flatnonzero(deg > 0)
        v = np.full(len(u), -1, dtype=np.int64)
        p, x = later[u], earlier[u]
    else:
        raise ValueError(f"seeding must be 'edge' or 'vertex', got {seeding!r}")
    return u.astype(np.int32), v.astype(np.int32), p.astype(np.int64), x.astype(np.int64)
