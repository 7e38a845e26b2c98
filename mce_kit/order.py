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

from .graph import Graph


def _neighbours_of(G: Graph, vs: np.ndarray) -> np.ndarray:
    """Concatenated neighbour lists of the vertices ``vs``."""
    lo = G.indptr[vs].astype(np.int64)
    lens = G.indptr[vs + 1] - lo
    ends = np.cumsum(lens)
    return G.indices[np.repeat(lo - ends + lens, lens) + np.arange(ends[-1] if len(ends) else 0)]


def _peel(G: Graph) -> tuple[np.ndarray, np.ndarray]:
    """(order, core numbers) by batch peeling."""
    deg = G.degrees().astype(np.int64)
    alive = np.ones(G.n, bool)
    core = np.zeros(G.n, np.int32)
    batches, removed, k = [], 0, 0
    batch = np.flatnonzero(deg == 0)
    live = np.arange(G.n)  # a superset of the live vertices, compacted at each new level
    while removed < G.n:
        if len(batch) == 0:
            live = live[alive[live]]
            k = deg[live].min()
            batch = live[deg[live] <= k]
        alive[batch] = False
        core[batch] = k
        batches.append(batch)
        removed += len(batch)
        nb = _neighbours_of(G, batch)
        nb = np.sort(nb[alive[nb]])
        first = np.flatnonzero(np.diff(nb, prepend=-1))
        hit = nb[first]  # distinct live neighbours and how many removed neighbours each lost
        deg[hit] -= np.diff(first, append=len(nb))
        batch = hit[deg[hit] <= k]
    order = np.concatenate(batches) if batches else np.empty(0, np.int64)
    return order.astype(np.int32), core


def core_numbers(G: Graph) -> np.ndarray:
    """Core number of every vertex (int32): the largest k with v in the k-core."""
    return _peel(G)[1]


def degeneracy_order(G: Graph) -> np.ndarray:
    """A degeneracy order (int32, ``order[i]`` = vertex at position i).

    Vertices leave in batches of the peeling (ids ascending within a batch);
    every vertex has at most its core number, so at most ``degeneracy(G)``,
    neighbours later in the order.
    """
    return _peel(G)[0]


def degeneracy(G: Graph) -> int:
    """The degeneracy d: the largest core number (0 for a graph without edges)."""
    core = core_numbers(G)
    return int(core.max()) if len(core) else 0


def degree_order(G: Graph) -> np.ndarray:
    """Vertices by ascending degree, ties by id (int32)."""
    return np.argsort(G.degrees(), kind="stable").astype(np.int32)
