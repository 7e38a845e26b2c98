"""Compiled twins (Numba) of host preparation steps: the same arrays as the NumPy code, without
its per-step overhead (what a cold call waits for).

    order, core = peel(indptr, indices)       # order.peel_arrays' batches, in O(|V| + |E|)
    sizes = two_hop_sizes(...)                # |N2(v) and v| per vertex of one side (GMBE+)
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _peel(indptr, indices):
    n = len(indptr) - 1
    deg = np.empty(n, np.int64)
    for v in range(n):
        deg[v] = indptr[v + 1] - indptr[v]
    alive = np.ones(n, np.bool_)
    touched = np.zeros(n, np.bool_)
    core = np.zeros(n, np.int32)
    order = np.empty(n, np.int32)
    live = np.arange(n)
    n_live = n
    hit = np.empty(n, np.int64)
    batch = np.empty(n, np.int64)
    nb = 0
    for v in range(n):
        if deg[v] == 0:
            batch[nb] = v
            nb += 1
    removed, k = 0, 0
    while removed < n:
        if nb == 0:  # a new level: compact the live list, k = the smallest degree left
            m = 0
            for i in range(n_live):
                if alive[live[i]]:
                    live[m] = live[i]
                    m += 1
            n_live = m
            k = deg[live[0]]
            for i in range(n_live):
                k = min(k, deg[live[i]])
            for i in range(n_live):
                if deg[live[i]] <= k:
                    batch[nb] = live[i]
                    nb += 1
        for i in range(nb):
            v = batch[i]
            alive[v] = False
            core[v] = k
            order[removed + i] = v
        removed += nb
        n_hit = 0
        for i in range(nb):
            v = batch[i]
            for e in range(indptr[v], indptr[v + 1]):
                w = indices[e]
                if alive[w]:
                    deg[w] -= 1
                    if not touched[w]:
                        touched[w] = True
                        hit[n_hit] = w
                        n_hit += 1
        nxt = np.sort(hit[:n_hit])
        nb = 0
        for i in range(n_hit):
            w = nxt[i]
            touched[w] = False
            if deg[w] <= k:
                batch[nb] = w
                nb += 1
    return order, core


@njit(cache=True)
def _two_hop(a_ptr, a_idx, b_ptr, b_idx, n_a):
    seen = np.full(n_a, -1, np.int64)
    out = np.zeros(n_a, np.int64)
    for v in range(n_a):
        c = 0
        for e in range(a_ptr[v], a_ptr[v + 1]):
            u = a_idx[e]
            for f in range(b_ptr[u], b_ptr[u + 1]):
                w = b_idx[f]
                if seen[w] != v:
                    seen[w] = v
                    c += 1
        out[v] = c
    return out


def peel(indptr, indices) -> tuple[np.ndarray, np.ndarray]:
    """(order, core numbers), int32: ``order.peel_arrays`` compiled."""
    return _peel(np.asarray(indptr), np.asarray(indices))


def two_hop_sizes(a_ptr, a_idx, b_ptr, b_idx) -> np.ndarray:
    """For each vertex v of side A (CSR ``a_ptr, a_idx`` into side B, ``b_ptr, b_idx`` back into
    A): how many vertices of A share a neighbour with v, v itself included (0 without
    neighbours); the row sizes of A A^T without forming it."""
    return _two_hop(np.asarray(a_ptr), np.asarray(a_idx), np.asarray(b_ptr), np.asarray(b_idx),
                    len(a_ptr) - 1)
