"""Compiled twins (Numba) of host preparation steps: the same arrays as the NumPy code, without
its per-step overhead (what a cold call waits for).

    order, core = peel(indptr, indices)       # order.peel_arrays' batches, in O(|V| + |E|)
    sizes = two_hop_sizes(...)                # |N2(v) and v| per vertex of one side (GMBE+)
    indptr, indices = relabel(indptr, indices, order)   # order.relabel_arrays
    u, v, p, x = seed_bounds(indptr, indices, "edge")    # seeds.seed_bounds
    out_ptr, out_idx, u, v, bound = orient(indptr, indices)   # order.orient_arrays (KCMiner's tasks)

Every twin but ``peel`` runs on several threads (``mce_kit.threads.strided``; ``threads=None``:
``prep_threads``' rule), each thread on rows of its own (a contiguous part of them, balanced by
entries; ``two_hop_sizes``: every T-th), and gives the same arrays whatever the count.
"""

from __future__ import annotations

import numpy as np

from .jit import njit, sort_ints
from .threads import strided

ENTRIES_PER_THREAD = 1 << 16  # ~0.4 ms of serial work (GPU host): more than a hand-off (~0.3 ms for 16)
RELABEL_MIN_THREADS = 4  # relabel's parallel form adds a counting pass (~0.6 of the serial work)


@njit()
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
        sort_ints(batch, nb)
    return order, core


def prep_threads(entries: int, threads: int | None = None, rows: int = 0, least: int = 2) -> int:
    """Threads for a step over ``entries`` adjacency entries: ``threads``, or one per
    ``ENTRIES_PER_THREAD`` entries up to every usable core (a small graph stays on one), at most
    entries / ``rows`` for a step whose every thread also passes over ``rows`` rows, and one where
    that leaves fewer than ``least`` (a step whose parallel form does more work than its serial one)."""
    if threads is not None:
        return max(1, int(threads))
    if entries < least * ENTRIES_PER_THREAD:
        return 1
    from .config import usable_cores

    T = min(usable_cores(), entries // ENTRIES_PER_THREAD, entries // max(rows, 1))
    return T if T >= least else 1


def _cuts(indptr, parts: int) -> np.ndarray:
    """``parts + 1`` row boundaries (int64) splitting the CSR's entries evenly: part k is rows
    cuts[k] .. cuts[k + 1] - 1."""
    if parts == 1:
        return np.array([0, len(indptr) - 1], np.int64)
    cuts = np.searchsorted(indptr, np.arange(parts + 1, dtype=np.int64) * int(indptr[-1]) // parts)
    cuts[-1] = len(indptr) - 1
    return cuts.astype(np.int64)


def _by_parts(kernel, T: int, head: tuple, *tail, own=None) -> None:
    """``kernel`` on T threads, thread t on part t of ``tail[0]`` (the cuts)."""
    strided(kernel, T, head, 0, T, *tail, own=own)


@njit(nogil=True)
def _later_part(indptr, indices, start, stop, step, cuts, later):
    for k in range(start, stop, step):
        for a in range(cuts[k], cuts[k + 1]):
            c = 0
            for e in range(indptr[a], indptr[a + 1]):
                if indices[e] > a:
                    c += 1
            later[a] = c


def _later_counts(indptr, indices, T: int, cuts) -> np.ndarray:
    later = np.empty(len(indptr) - 1, np.int64)
    _by_parts(_later_part, T, (indptr, indices), cuts, later)
    return later


@njit(nogil=True)
def _ranks_and_rows(indptr, order):
    """(rank int32, the new row pointers int64) of the relabelling by ``order``."""
    n = len(order)
    rank = np.empty(n, np.int32)  # ids fit (int32 columns); half the cache lines of int64
    ptr = np.zeros(n + 1, np.int64)
    for i in range(n):
        v = order[i]
        rank[v] = i
        ptr[i + 1] = ptr[i] + indptr[v + 1] - indptr[v]
    return rank, ptr


@njit(nogil=True)
def _relabel_offsets(indptr, indices, order, ptr, part_of, start, stop, step, cuts, fill):
    """fill[t, r]: where new row r receives its first column from part t (after the earlier
    parts'); ``part_of[w]``: the part of old vertex w's new id."""
    T = fill.shape[0]
    count = np.zeros(T, np.int64)
    for k in range(start, stop, step):
        for r in range(cuts[k], cuts[k + 1]):
            w = order[r]
            for e in range(indptr[w], indptr[w + 1]):
                count[part_of[indices[e]]] += 1
            at = ptr[r]
            for t in range(T):
                fill[t, r] = at
                at += count[t]
                count[t] = 0


@njit(nogil=True)
def _relabel_scatter(indptr, indices, order, rank, start, stop, step, cuts, out, fill):
    for k in range(start, stop, step):
        for c in range(cuts[k], cuts[k + 1]):  # new ids ascending: every row receives its columns sorted
            w = order[c]
            for e in range(indptr[w], indptr[w + 1]):
                r = rank[indices[e]]
                out[fill[r]] = c
                fill[r] += 1


@njit(nogil=True)
def _seeds_part(indptr, indices, later, first, edge, start, stop, step, cuts, u, v, p, x):
    for k in range(start, stop, step):
        for a in range(cuts[k], cuts[k + 1]):
            deg_a, j = indptr[a + 1] - indptr[a], first[a]
            if not edge:
                if deg_a > 0:
                    u[j], p[j], x[j] = a, later[a], deg_a - later[a]
                continue
            for e in range(indptr[a], indptr[a + 1]):
                b = indices[e]
                if b > a:
                    u[j], v[j] = a, b
                    p[j] = min(later[a], later[b])
                    x[j] = min(indptr[b + 1] - indptr[b] - later[b], deg_a)
                    j += 1


@njit(nogil=True)
def _orient_part(indptr, indices, later, out_ptr, start, stop, step, cuts, out_idx, bound, hist):
    top = len(hist) - 1
    for k in range(start, stop, step):
        for a in range(cuts[k], cuts[k + 1]):
            j = out_ptr[a]
            for e in range(indptr[a], indptr[a + 1]):
                b = indices[e]
                if b > a:
                    out_idx[j] = b
                    bound[j] = min(later[a], later[b])
                    hist[top - bound[j]] += 1  # bucket 0: the largest bound
                    j += 1


@njit(nogil=True)
def _orient_scatter(out_ptr, out_idx, bound, start, stop, step, cuts, u, v, by, slot):
    top = len(slot) - 1
    for k in range(start, stop, step):
        for a in range(cuts[k], cuts[k + 1]):
            for j in range(out_ptr[a], out_ptr[a + 1]):
                s = slot[top - bound[j]]
                slot[top - bound[j]] = s + 1
                u[s], v[s], by[s] = a, out_idx[j], bound[j]


@njit(nogil=True)
def _two_hop_part(a_ptr, a_idx, b_ptr, b_idx, start, stop, step, out, seen):
    for v in range(start, stop, step):
        c = 0
        for e in range(a_ptr[v], a_ptr[v + 1]):
            u = a_idx[e]
            for f in range(b_ptr[u], b_ptr[u + 1]):
                w = b_idx[f]
                if seen[w] != v:
                    seen[w] = v
                    c += 1
        out[v] = c


def _csr(indptr, indices) -> tuple[np.ndarray, np.ndarray]:
    """One dtype per argument (int64 row pointers, int32 columns): one compiled specialisation each
    function, loaded once per process."""
    return np.asarray(indptr, dtype=np.int64), np.asarray(indices, dtype=np.int32)


def _exclusive_sum(counts, dtype=np.int64) -> np.ndarray:
    """[0, c0, c0 + c1, ...] (one longer than ``counts``)."""
    out = np.zeros(len(counts) + 1, dtype)
    np.cumsum(counts, out=out[1:])
    return out


def peel(indptr, indices) -> tuple[np.ndarray, np.ndarray]:
    """(order, core numbers), int32: ``order.peel_arrays`` compiled (one thread)."""
    return _peel(*_csr(indptr, indices))


def two_hop_sizes(a_ptr, a_idx, b_ptr, b_idx, threads: int | None = None) -> np.ndarray:
    """For each vertex v of side A (CSR ``a_ptr, a_idx`` into side B, ``b_ptr, b_idx`` back into
    A): how many vertices of A share a neighbour with v, v itself included (0 without
    neighbours); the row sizes of A A^T without forming it. Threads by the 2-hop walk's length (each
    thread marks A's vertices in an array of its own)."""
    (a_ptr, a_idx), (b_ptr, b_idx) = _csr(a_ptr, a_idx), _csr(b_ptr, b_idx)
    n_a = len(a_ptr) - 1
    deg_b = np.diff(b_ptr)
    walk = int(deg_b @ deg_b)  # B's vertex u appears deg_b[u] times in a_idx: the 2-hop walk's length
    T = prep_threads(walk, threads, rows=n_a)
    out = np.empty(n_a, np.int64)
    strided(_two_hop_part, T, (a_ptr, a_idx, b_ptr, b_idx), 0, n_a, out,
            own=[(np.full(n_a, -1, np.int64),) for _ in range(min(T, max(n_a, 1)))])
    return out


def relabel(indptr, indices, order, threads: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``order.relabel_arrays`` compiled: (indptr int64, indices int32), in O(|V| + |E|) (the graph is
    symmetric, so writing the new columns in ascending order fills every row sorted). On T threads
    thread t writes the columns of part t's new ids, in each row after the earlier parts' (T offsets
    per row, counted beforehand: at most one thread per unit of mean degree)."""
    indptr, indices = _csr(indptr, indices)
    order = np.asarray(order, dtype=np.int64)
    n, m = len(order), len(indices)
    rank, ptr = _ranks_and_rows(indptr, order)
    out = np.empty(m, np.int32)
    T = prep_threads(m, threads, rows=n, least=RELABEL_MIN_THREADS)
    cuts = _cuts(ptr, T)  # part t: new ids cuts[t] .. (its sources, and the rows it counts)
    if T == 1:
        fill = ptr[:-1].copy()[None]
    else:
        fill = np.empty((T, n), np.int64)
        part_of = np.take(np.repeat(np.arange(T, dtype=np.int32), np.diff(cuts)), rank)  # by old id
        _by_parts(_relabel_offsets, T, (indptr, indices, order, ptr, part_of), cuts, fill)
    _by_parts(_relabel_scatter, T, (indptr, indices, order, rank), cuts, out, own=[(f,) for f in fill])
    return ptr, out


def seed_bounds(indptr, indices, seeding: str, threads: int | None = None) -> tuple:
    """``seeds.seed_bounds`` compiled: (u int32, v int32, p int64, x int64)."""
    indptr, indices = _csr(indptr, indices)
    T = prep_threads(len(indices), threads)
    cuts = _cuts(indptr, T)
    later = _later_counts(indptr, indices, T, cuts)
    edge = seeding == "edge"
    first = _exclusive_sum(later if edge else np.diff(indptr) > 0)  # each vertex's first seed
    m = int(first[-1])
    u, v = np.empty(m, np.int32), np.empty(m, np.int32) if edge else np.full(m, -1, np.int32)
    p, x = np.empty(m, np.int64), np.empty(m, np.int64)
    _by_parts(_seeds_part, T, (indptr, indices, later, first, edge), cuts, u, v, p, x)
    return u, v, p, x


def orient(indptr, indices, threads: int | None = None) -> tuple:
    """``order.orient_arrays`` compiled: (out_ptr, out_idx, u, v, bound), the edges by bound
    descending, ties in CSR order (a stable counting sort: each thread counts its part's bounds,
    then writes them after the earlier parts')."""
    indptr, indices = _csr(indptr, indices)
    T = prep_threads(len(indices), threads)
    cuts = _cuts(indptr, T)
    later = _later_counts(indptr, indices, T, cuts)
    out_ptr = _exclusive_sum(later, np.int32)
    m = int(out_ptr[-1])
    out_idx, bound = np.empty(m, np.int32), np.empty(m, np.int64)
    hist = np.zeros((T, int(later.max(initial=0)) + 1), np.int64)  # bucket top - bound, per part
    _by_parts(_orient_part, T, (indptr, indices, later, out_ptr), cuts, out_idx, bound,
              own=[(h,) for h in hist])
    slot = (np.cumsum(hist.T) - hist.T.ravel()).reshape(hist.shape[::-1]).T.copy()  # bucket, then part
    u, v, by = np.empty(m, np.int32), np.empty(m, np.int32), np.empty(m, np.int64)
    _by_parts(_orient_scatter, T, (out_ptr, out_idx, bound), cuts, u, v, by, own=[(s,) for s in slot])
    return out_ptr, out_idx, u, v, by


def later(indptr, indices, threads: int | None = None) -> np.ndarray:
    """``seeds.later_counts`` compiled."""
    indptr, indices = _csr(indptr, indices)
    T = prep_threads(len(indices), threads)
    return _later_counts(indptr, indices, T, _cuts(indptr, T))
