"""Maximal cliques in Numba: one Bron–Kerbosch sub-problem per vertex, on bitsets.

The graph is relabelled by a degeneracy order, so vertex v's later neighbours are the ids
above v. Root v: P = later neighbours (at most d), X = earlier neighbours that touch P (the
others can never block a clique found from v). Local adjacency is two bit matrices: every
vertex's row over P, and P's rows over X. Tomita's pivot (most neighbours in P, over P and X)
picks the branches; a P that is already a clique ends the branch at once (one clique, if no
X vertex sees all of P), an early termination in the spirit of HBBMC. Roots run in parallel
(Python threads, each a stride of roots, so heavy late roots spread); listing runs serially into a
buffer that the caller grows.
"""

from __future__ import annotations

import numpy as np

from ..jit import njit
from ._bits import ONE, ZERO, bit, count_and, first_above, lowest, popcount


@njit()
def _emit(v, Rs, d, P, ids, size, out_v, out_off, cur) -> bool:
    """Write clique {v} + Rs[1..d] + bits of P (local ids -> ids) to the buffers; False when full."""
    k, nv = cur[0], cur[1]
    if k + 1 >= len(out_off) or nv + size > len(out_v):
        return False
    out_v[nv] = v
    nv += 1
    for i in range(1, d + 1):
        out_v[nv] = ids[Rs[i]]
        nv += 1
    for w in range(len(P)):
        word = P[w]
        while word != ZERO:
            out_v[nv] = ids[(w << 6) + int(lowest(word))]
            nv += 1
            word &= word - ONE
    out_off[k + 1] = nv
    cur[0], cur[1] = k + 1, nv
    return True


@njit()
def _root(indptr, indices, v, pos, lo, hi, hist, out_v, out_off, cur) -> bool:
    """Maximal cliques whose earliest vertex is v, with size in [lo, hi]: counted into hist and,
    when out_off is not empty, listed (False: the buffer is full; the caller retries v)."""
    listing = len(out_off) > 0
    a, b = indptr[v], indptr[v + 1]
    if a == b:
        if lo <= 1:
            hist[1] += 1
            if listing:
                return _emit(v, np.zeros(1, np.int64), 0, np.zeros(0, np.uint64), indices, 1,
                             out_v, out_off, cur)
        return True
    s = first_above(indices, a, b, v)
    p = b - s
    if p == 0 or hi < 2:
        return True  # {v} is not maximal, and every clique through v has an earlier vertex
    for i in range(p):
        pos[indices[s + i]] = i
    for i in range(a, s):
        pos[indices[i]] = -2
    xc = 0
    for i in range(p):  # X ids for earlier neighbours that touch P
        w = indices[s + i]
        for e in range(indptr[w], indptr[w + 1]):
            y = indices[e]
            if pos[y] == -2:
                pos[y] = p + xc
                xc += 1
    Wp = (p + 63) >> 6
    Wx = max(1, (xc + 63) >> 6)
    adjP = np.zeros((p + xc, Wp), np.uint64)
    adjX = np.zeros((p, Wx), np.uint64)
    for i in range(p):
        w = indices[s + i]
        for e in range(indptr[w], indptr[w + 1]):
            j = pos[indices[e]]
            if j >= p:
                adjX[i, (j - p) >> 6] |= bit(j - p)
                adjP[j, i >> 6] |= bit(i)
            elif j >= 0:
                adjP[i, j >> 6] |= bit(j)
    for i in range(a, b):
        pos[indices[i]] = -1
    ids = indices[s:b]
    D = p + 1
    Ps = np.zeros((D, Wp), np.uint64)
    XPs = np.zeros((D, Wp), np.uint64)
    XXs = np.zeros((D, Wx), np.uint64)
    Cs = np.zeros((D, Wp), np.uint64)
    Cw = np.zeros(D, np.int64)
    Rs = np.zeros(D, np.int64)
    for j in range(p):
        Ps[0, j >> 6] |= bit(j)
    for j in range(xc):
        XXs[0, j >> 6] |= bit(j)
    d = 0
    fresh = True
    while True:
        if fresh:
            fresh = False
            P, XP, XX = Ps[d], XPs[d], XXs[d]
            r = d + 1
            n_p = 0
            for w in range(Wp):
                n_p += int(popcount(P[w]))
            Cw[d] = Wp
            if n_p == 0:
                blocked = False
                for w in range(Wp):
                    if XP[w] != ZERO:
                        blocked = True
                for w in range(Wx):
                    if XX[w] != ZERO:
                        blocked = True
                if not blocked and r >= lo:
                    hist[r] += 1
                    if listing and not _emit(v, Rs, d, P, ids, r, out_v, out_off, cur):
                        return False
            elif r < hi and r + n_p >= lo:
                best, best_row, clique = -1, 0, True
                for w in range(Wp):  # pivot candidates in P; is P a clique?
                    word = P[w]
                    while word != ZERO:
                        u = (w << 6) + int(lowest(word))
                        word &= word - ONE
                        c = count_and(P, adjP[u])
                        if c != n_p - 1:
                            clique = False
                        if c > best:
                            best, best_row = c, u
                covered = False  # an X vertex adjacent to all of P: nothing below is maximal
                for w in range(Wp):
                    word = XP[w]
                    while word != ZERO and not covered:
                        u = (w << 6) + int(lowest(word))
                        word &= word - ONE
                        c = count_and(P, adjP[u])
                        if c > best:
                            best, best_row = c, u
                        covered = c == n_p
                for w in range(Wx):
                    word = XX[w]
                    while word != ZERO and not covered:
                        u = p + (w << 6) + int(lowest(word))
                        word &= word - ONE
                        c = count_and(P, adjP[u])
                        if c > best:
                            best, best_row = c, u
                        covered = c == n_p
                if covered:
                    pass
                elif clique:  # early termination: R + P is the one maximal clique below
                    if r + n_p <= hi:
                        hist[r + n_p] += 1
                        if listing and not _emit(v, Rs, d, P, ids, r + n_p, out_v, out_off, cur):
                            return False
                else:
                    row = adjP[best_row]
                    for w in range(Wp):
                        Cs[d, w] = P[w] & ~row[w]
                    Cw[d] = 0
        while d >= 0:  # next branch: the lowest bit left in C at the deepest level that has one
            while Cw[d] < Wp and Cs[d, Cw[d]] == ZERO:
                Cw[d] += 1
            if Cw[d] < Wp:
                break
            d -= 1
        if d < 0:
            return True
        w = Cw[d]
        word = Cs[d, w]
        u = (w << 6) + int(lowest(word))
        Cs[d, w] = word & (word - ONE)
        Nu, Nx = adjP[u], adjX[u]
        for i in range(Wp):
            Ps[d + 1, i] = Ps[d, i] & Nu[i]
            XPs[d + 1, i] = XPs[d, i] & Nu[i]
        for i in range(Wx):
            XXs[d + 1, i] = XXs[d, i] & Nx[i]
        Ps[d, w] &= ~bit(u)
        XPs[d, w] |= bit(u)
        Rs[d + 1] = u
        d += 1
        fresh = True


@njit(nogil=True)
def run_range(indptr, indices, first, last, step, lo, hi, hist, out_v, out_off):
    """Maximal cliques (size in [lo, hi]) from roots first, first + step, ... < last: counted by
    size into hist and, when out_off is not empty, listed into (out_off, out_v) until full.
    Returns (next root to run, cliques written); a root whose cliques do not fit is not written
    (nor counted). One entry point for counting and listing: each costs seconds to compile.
    Counting runs one stride per thread (the GIL is released)."""
    n = len(indptr) - 1
    pos = np.full(n, -1, np.int32)
    cur = np.zeros(2, np.int64)
    if len(out_off):
        out_off[0] = 0
    for v in range(first, last, step):
        k, nv = cur[0], cur[1]
        if not _root(indptr, indices, v, pos, lo, hi, hist, out_v, out_off, cur):
            cur[0], cur[1] = k, nv
            return v, k
    return last, cur[0]
