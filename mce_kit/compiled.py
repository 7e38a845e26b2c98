"""Compiled twins (Numba) of host preparation steps: the same arrays as the NumPy code, without
its per-step overhead (what a cold call waits for).

    order, core = peel(indptr, indices)       # order.peel_arrays' batches, in O(|V| + |E|)
    sizes = two_hop_sizes(...)                # |N2(v) and v| per vertex of one side (GMBE+)
    indptr, indices = relabel(indptr, indices, order)   # order.relabel_arrays
    u, v, p, x = seed_bounds(indptr, indices, "edge")    # seeds.seed_bounds
    out_ptr, out_idx, u, v, bound = orient(indptr, indices)   # order.orient_arrays (KCMiner's tasks)
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
        nb = 0
        for i in range(n_hit):  # the next batch: the touched vertices now at most k, ascending
            w = hit[i]
            touched[w] = False
            if deg[w] <= k:
                batch[nb] = w
                nb += 1
        batch[:nb].sort()
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


@njit(cache=True)
def _relabel(indptr, indices, order):
    n = len(indptr) - 1
    rank = np.empty(n, np.int32)  # ids fit (int32 columns); half the cache lines of int64
    ptr = np.zeros(n + 1, np.int64)
    for i in range(n):
        v = order[i]
        rank[v] = i
        ptr[i + 1] = ptr[i] + indptr[v + 1] - indptr[v]
    fill = ptr[:-1].copy()
    out = np.empty(len(indices), np.int32)
    for c in range(n):  # new ids ascending: every row receives its columns sorted
        w = order[c]
        for e in range(indptr[w], indptr[w + 1]):
            r = rank[indices[e]]
            out[fill[r]] = c
            fill[r] += 1
    return ptr, out


@njit(cache=True)
def _later(indptr, indices):
    n = len(indptr) - 1
    later = np.zeros(n, np.int64)
    for a in range(n):
        for e in range(indptr[a], indptr[a + 1]):
            if indices[e] > a:
                later[a] += 1
    return later


@njit(cache=True)
def _seed_bounds(indptr, indices, edge):
    n = len(indptr) - 1
    later = _later(indptr, indices)
    m = 0
    for a in range(n):
        if edge:
            m += later[a]
        elif indptr[a + 1] > indptr[a]:
            m += 1
    u, v = np.empty(m, np.int32), np.full(m, -1, np.int32)
    p, x = np.empty(m, np.int64), np.empty(m, np.int64)
    j = 0
    for a in range(n):
        deg_a = indptr[a + 1] - indptr[a]
        if not edge:
            if deg_a > 0:
                u[j], p[j], x[j] = a, later[a], deg_a - later[a]
                j += 1
            continue
        for e in range(indptr[a], indptr[a + 1]):
            b = indices[e]
            if b > a:
                u[j], v[j] = a, b
                p[j] = min(later[a], later[b])
                x[j] = min(indptr[b + 1] - indptr[b] - later[b], deg_a)
                j += 1
    return u, v, p, x


@njit(cache=True)
def _orient(indptr, indices):
    n = len(indptr) - 1
    later = _later(indptr, indices)
    out_ptr = np.zeros(n + 1, np.int32)
    for a in range(n):
        out_ptr[a + 1] = out_ptr[a] + later[a]
    m = out_ptr[n]
    out_idx, bound = np.empty(m, np.int32), np.empty(m, np.int64)
    j = 0
    for a in range(n):
        for e in range(indptr[a], indptr[a + 1]):
            if indices[e] > a:
                out_idx[j] = indices[e]
                bound[j] = min(later[a], later[indices[e]])
                j += 1
    # stable counting sort of the edges by bound, largest first
    top = bound.max() if m else 0
    start = np.zeros(top + 2, np.int64)
    for j in range(m):
        start[top - bound[j] + 1] += 1
    for b in range(1, top + 2):
        start[b] += start[b - 1]
    u, v, by = np.empty(m, np.int32), np.empty(m, np.int32), np.empty(m, np.int64)
    for a in range(n):
        for j in range(out_ptr[a], out_ptr[a + 1]):
            s = start[top - bound[j]]
            start[top - bound[j]] += 1
            u[s], v[s], by[s] = a, out_idx[j], bound[j]
    return out_ptr, out_idx, u, v, by


def _csr(indptr, indices) -> tuple[np.ndarray, np.ndarray]:
    """One dtype per argument (int64 row pointers, int32 columns): one compiled specialisation each
    function, loaded once per process."""
    return np.asarray(indptr, dtype=np.int64), np.asarray(indices, dtype=np.int32)


def peel(indptr, indices) -> tuple[np.ndarray, np.ndarray]:
    """(order, core numbers), int32: ``order.peel_arrays`` compiled."""
    return _peel(*_csr(indptr, indices))


def two_hop_sizes(a_ptr, a_idx, b_ptr, b_idx) -> np.ndarray:
    """For each vertex v of side A (CSR ``a_ptr, a_idx`` into side B, ``b_ptr, b_idx`` back into
    A): how many vertices of A share a neighbour with v, v itself included (0 without
    neighbours); the row sizes of A A^T without forming it."""
    return _two_hop(*_csr(a_ptr, a_idx), *_csr(b_ptr, b_idx), len(a_ptr) - 1)


def relabel(indptr, indices, order) -> tuple[np.ndarray, np.ndarray]:
    """``order.relabel_arrays`` compiled: (indptr int64, indices int32), in O(|V| + |E|) (the graph is
    symmetric, so writing the new columns in ascending order fills every row sorted)."""
    return _relabel(*_csr(indptr, indices), np.asarray(order, dtype=np.int64))


def seed_bounds(indptr, indices, seeding: str) -> tuple:
    """``seeds.seed_bounds`` compiled: (u int32, v int32, p int64, x int64)."""
    return _seed_bounds(*_csr(indptr, indices), seeding == "edge")


def orient(indptr, indices) -> tuple:
    """``order.orient_arrays`` compiled: (out_ptr, out_idx, u, v, bound), the edges by bound
    descending (a stable counting sort)."""
    return _orient(*_csr(indptr, indices))


def later(indptr, indices) -> np.ndarray:
    """``seeds.later_counts`` compiled."""
    return _later(*_csr(indptr, indices))
