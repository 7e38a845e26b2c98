"""Seeded synthetic graphs for workloads larger than the bundled ones.

    G = rmat(scale=16, edge_factor=16, seed=1)         # Graph500 R-MAT / Kronecker
    B = bipartite_chung_lu(20_000, 5_000, 200_000, seed=1)   # heavy tails on both sides

Same arguments, same graph, on every machine (NumPy's PCG64). Vectorised:
scale 24 (16.7 M vertices, 268 M edge draws) needs a few GiB and tens of seconds.
"""

from __future__ import annotations

import numpy as np

from .graph import BipartiteGraph, Graph

GRAPH500 = (0.57, 0.19, 0.19)  # a, b, c; d = 1 - a - b - c


def rmat_edges(scale: int, edge_factor: int = 16, abc=GRAPH500, seed: int = 0, chunk: int = 1 << 24):
    """Endpoint arrays of ``edge_factor * 2**scale`` R-MAT draws, vertex ids permuted at random.

    Each draw picks one quadrant per bit of the vertex ids with probabilities
    a, b, c, d (Graph500). Self-loops and repeats are left in; ``rmat`` removes them.
    """
    if not 1 <= scale <= 31:
        raise ValueError(f"scale must be in 1..31, got {scale}")
    a, b, c = abc
    if min(a, b, c) < 0 or a + b + c > 1:
        raise ValueError(f"R-MAT probabilities must be >= 0 with a+b+c <= 1, got {abc}")
    rng = np.random.default_rng(seed)
    m = edge_factor << scale
    u = np.zeros(m, dtype=np.int64)
    v = np.zeros(m, dtype=np.int64)
    for s in range(0, m, chunk):
        e = slice(s, min(m, s + chunk))
        for bit in range(scale):
            r = rng.random(e.stop - e.start)
            # quadrant: a -> (0,0), b -> (0,1), c -> (1,0), d -> (1,1)
            u[e] |= (r >= a + b).astype(np.int64) << bit
            v[e] |= ((r >= a) & (r < a + b) | (r >= a + b + c)).astype(np.int64) << bit
    perm = rng.permutation(1 << scale)
    return perm[u], perm[v]


def rmat(scale: int, edge_factor: int = 16, abc=GRAPH500, seed: int = 0) -> Graph:
    """The simple undirected R-MAT graph on ``2**scale`` vertices (isolated vertices kept)."""
    u, v = rmat_edges(scale, edge_factor, abc, seed)
    return Graph.from_edges(1 << scale, u, v, name=f"rmat-s{scale}-ef{edge_factor}-seed{seed}")


def bipartite_chung_lu(n_u: int, n_v: int, m: int, exponent: float = 2.1, seed: int = 0) -> BipartiteGraph:
    """About ``m`` distinct edges between U and V, both sides with power-law expected degrees.

    Endpoints are drawn independently with probability proportional to
    ``(i + 1) ** (-1 / (exponent - 1))`` on each side (Chung-Lu), so both sides
    have heavy tails; repeats are merged.
    """
    if n_u < 1 or n_v < 1 or m < 0:
        raise ValueError(f"need n_u, n_v >= 1 and m >= 0, got {n_u}, {n_v}, {m}")
    rng = np.random.default_rng(seed)

    def side(n):
        w = (np.arange(n) + 1.0) ** (-1.0 / (exponent - 1.0))
        return rng.permutation(n)[np.searchsorted(np.cumsum(w / w.sum()), rng.random(m), side="right")
                                  .clip(0, n - 1)]

    u, v = side(n_u), side(n_v)
    return BipartiteGraph.from_edges(n_u, n_v, u, v, name=f"chung-lu-{n_u}x{n_v}-m{m}-seed{seed}")
