"""k-clique listing and counting by ordering.

Orient every edge from earlier to later in a degeneracy order; each k-clique
then has exactly one earliest vertex v, and its other k-1 vertices are later
neighbours of v (at most d of them). Per root v the later neighbourhood is
re-indexed to bits 0..s-1, ``adj[i]`` holds the *later* neighbours of local
vertex i, and the search descends with candidates = common later neighbours.
Counting stops one level early: the cliques of the last level are a popcount.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

from ..graph import positions
from ..order import degeneracy_order
from ._bits import Progress, bits, gather, masks_within, row_masks


def _roots(G, progress: Progress = None):
    """Yield (v, S, adj): S = later neighbours of v, adj = oriented bitsets over S."""
    order = degeneracy_order(G)
    rank = positions(order)
    pos = np.full(G.n, -1, dtype=np.int64)
    for v in order if progress is None else progress(order):
        N = G.neighbors(v)
        S = N[rank[N] > rank[v]]
        S = S[np.argsort(rank[S])]  # local ids follow the order
        pos[S] = np.arange(len(S))
        rows, w = gather(G.indptr, G.indices, S)
        cols = pos[w]
        keep = cols > rows  # both in S, and w later than S[row]
        pos[S] = -1
        yield int(v), S, row_masks(rows[keep], cols[keep], len(S), len(S))


def count_k_cliques_range(G, ks: Iterable[int], *, progress: Progress = None) -> dict[int, int]:
    """{k: number of k-cliques} for every k in ks, in one pass."""
    ks = sorted(set(int(k) for k in ks))
    if not ks or ks[0] < 1:
        raise ValueError(f"k must be >= 1, got {ks}")
    K = ks[-1]
    totals = [0, G.n, G.m] + [0] * (K - 2)
    for _, S, adj in _roots(G, progress) if K >= 3 else ():
        # node = (clique size c, candidates); a child adds bit i, and each
        # of the child's candidates completes a (c+2)-clique: a popcount
        stack = [(1, (1 << len(S)) - 1)]
        while stack:
            c, cand = stack.pop()
            for i in bits(cand):
                sub = cand & adj[i]
                totals[c + 2] += sub.bit_count()
                if c + 2 < K and sub:
                    stack.append((c + 1, sub))
    return {k: totals[k] for k in ks}


def count_k_cliques(G, k: int, *, progress: Progress = None) -> int:
    """Number of k-cliques of G (k=1: n, k=2: m)."""
    return count_k_cliques_range(G, [k], progress=progress)[int(k)]


def k_cliques(G, k: int, *, progress: Progress = None) -> Iterator[list[int]]:
    """Yield every k-clique of G once, as a list of vertex ids (earliest in the order first)."""
    k = int(k)
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if k == 1:
        yield from ([v] for v in range(G.n))
        return
    for v, S, adj in _roots(G, progress):
        ids = S.tolist()
        stack = [((), (1 << len(S)) - 1)]
        while stack:
            R, cand = stack.pop()
            if len(R) == k - 1:
                yield [v, *(ids[i] for i in R)]
                continue
            if len(R) + cand.bit_count() < k - 1:
                continue
            for i in bits(cand):
                stack.append(((*R, i), cand & adj[i]))


def count_from_edge_tasks(out_ptr: np.ndarray, out_idx: np.ndarray, u, v, k: int) -> int:
    """k-cliques (k >= 3) whose two earliest vertices are the oriented edge (u[i], v[i]), in a graph
    given by its later-neighbour CSR (``out_idx`` sorted per vertex; ids follow the order).

    Each k-clique has exactly one pair of earliest vertices, so the counts of disjoint edge sets
    add up (KCMiner's edge tasks; how ``mce_kit.distributed`` splits them). Python ints: no wrap.
    """
    k = int(k)
    if k < 3:
        raise ValueError(f"k must be >= 3 for edge tasks (k = 1, 2 are n and m), got {k}")
    pos = np.full(len(out_ptr) - 1, -1, dtype=np.int64)
    total = 0
    for a, b in zip(np.asarray(u).tolist(), np.asarray(v).tolist(), strict=True):
        S = np.intersect1d(out_idx[out_ptr[a]:out_ptr[a + 1]], out_idx[out_ptr[b]:out_ptr[b + 1]],
                           assume_unique=True)
        if len(S) < k - 2:
            continue
        if k == 3:
            total += len(S)
            continue
        adj = masks_within(out_ptr, out_idx, S, pos)
        stack = [(2, (1 << len(S)) - 1)]  # (clique size, candidates): each candidate of a child closes one
        while stack:
            c, cand = stack.pop()
            for i in bits(cand):
                sub = cand & adj[i]
                if c + 2 == k:
                    total += sub.bit_count()
                elif c + 1 + sub.bit_count() >= k:
                    stack.append((c + 1, sub))
    return total
