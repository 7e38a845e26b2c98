"""k-cliques in Numba: counting by listing (fixed k) and pivot counting (every k at once).

Both orient the graph by a degeneracy order (relabelled, so later = higher id) and give each
root v the sub-graph of its later neighbours S (at most d) as bit rows.

Listing (``count_range``): descend with candidates = common later neighbours; the last level is
a popcount. Work grows like the number of (k-1)-cliques, so it is the fast choice for small k.

Pivoting (``leaves_range``): Pivoter's succinct clique tree, as in ``mce_kit.cpu.pivot``: a
node (P, h, p) holds h chosen vertices and p pivots; its children are the pivot u and each
w in P minus N(u). Leaves are counted per (h, p) in int64 (never more than the tree's nodes);
the caller turns them into exact counts with ``cpu.pivot.combine_leaf_table`` (Python ints: the
binomials pass 2^63). With ``k_min`` a node that cannot reach k_min vertices is cut (one k).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ..jit import njit
from ._bits import ONE, ZERO, bit, count_and, first_above, lowest, popcount


@njit()
def _later_rows(indptr, indices, v, pos, oriented):
    """(bit rows of v's later neighbourhood S over S, |S|): row i holds S[i]'s neighbours in S
    (only the later ones when ``oriented``)."""
    a, b = indptr[v], indptr[v + 1]
    s = first_above(indices, a, b, v)
    p = b - s
    W = max(1, (p + 63) >> 6)
    adj = np.zeros((p, W), np.uint64)
    for i in range(p):
        pos[indices[s + i]] = i
    for i in range(p):
        w = indices[s + i]
        lo = first_above(indices, indptr[w], indptr[w + 1], w) if oriented else indptr[w]
        for e in range(lo, indptr[w + 1]):
            j = pos[indices[e]]
            if j >= 0:
                adj[i, j >> 6] |= bit(j)
    for i in range(p):
        pos[indices[s + i]] = -1
    return adj, p


@njit()
def _count_root(adj, p, k) -> int:
    """k-cliques (k >= 3) made of the root and k-1 vertices of its later neighbourhood."""
    if p < k - 1:
        return 0
    W = adj.shape[1]
    total = 0
    if k == 3:
        for i in range(p):
            for w in range(W):
                total += int(popcount(adj[i, w]))
        return total
    D = k - 2  # levels: the candidates after choosing 1..k-3 vertices below the root
    cand = np.zeros((D, W), np.uint64)
    cw = np.zeros(D, np.int64)
    for j in range(p):
        cand[0, j >> 6] |= bit(j)
    d = 0
    while d >= 0:
        while cw[d] < W and cand[d, cw[d]] == ZERO:
            cw[d] += 1
        if cw[d] == W:
            d -= 1
            continue
        w = cw[d]
        word = cand[d, w]
        u = (w << 6) + int(lowest(word))
        cand[d, w] = word & (word - ONE)
        row = adj[u]
        if d + 3 == k:  # root + d + 1 chosen vertices: each common candidate closes a k-clique
            total += count_and(cand[d], row)
        else:
            c = 0
            for i in range(W):
                cand[d + 1, i] = cand[d, i] & row[i]
                c += int(popcount(cand[d + 1, i]))
            if c >= k - d - 3:
                cw[d + 1] = 0
                d += 1
    return total


@njit(nogil=True)
def count_range(indptr, indices, first, last, step, k):
    """k-cliques (k >= 3) whose earliest vertex is one of first, first + step, ... < last."""
    n = len(indptr) - 1
    total = 0
    pos = np.full(n, -1, np.int32)
    for v in range(first, last, step):
        adj, p = _later_rows(indptr, indices, v, pos, True)
        total += _count_root(adj, p, k)
    return total


@njit(parallel=True)
def count_threads(indptr, indices, first, last, T, k):
    """``count_range``'s T strides on Numba's threads (``mce_kit.threads.on_threads``)."""
    out = np.zeros(T, np.int64)
    for t in prange(T):
        out[t] = count_range(indptr, indices, first + t, last, T, k)
    return out


@njit()
def _sct_root(adj, p, k_min, k_max, leaves):
    """Leaves (h, pivots) of the succinct clique tree below the root (P = all of S, h = 1)."""
    W = adj.shape[1]
    D = p + 1
    Ps = np.zeros((D, W), np.uint64)
    Rest = np.zeros((D, W), np.uint64)
    Cs = np.zeros((D, W), np.uint64)
    Cw = np.zeros(D, np.int64)
    H = np.zeros(D, np.int64)
    Q = np.zeros(D, np.int64)
    Piv = np.zeros(D, np.int64)
    for j in range(p):
        Ps[0, j >> 6] |= bit(j)
    H[0] = 1
    d = 0
    fresh = True
    while True:
        if fresh:
            fresh = False
            P = Ps[d]
            Cw[d] = W
            n_p = 0
            for i in range(W):
                n_p += int(popcount(P[i]))
            if n_p == 0:
                leaves[H[d], Q[d]] += 1
            elif H[d] + Q[d] + n_p >= k_min:
                best, u = -1, 0
                for w in range(W):
                    word = P[w]
                    while word != ZERO:
                        x = (w << 6) + int(lowest(word))
                        word &= word - ONE
                        c = count_and(P, adj[x])
                        if c > best:
                            best, u = c, x
                row = adj[u]
                for i in range(W):
                    Cs[d, i] = P[i] & ~row[i]
                    Rest[d, i] = P[i]
                Piv[d] = u
                Cw[d] = 0
        while d >= 0:
            while Cw[d] < W and Cs[d, Cw[d]] == ZERO:
                Cw[d] += 1
            if Cw[d] < W:
                break
            d -= 1
        if d < 0:
            return
        w = Cw[d]
        word = Cs[d, w]
        x = (w << 6) + int(lowest(word))
        Cs[d, w] = word & (word - ONE)
        row = adj[x]
        if x == Piv[d]:
            H[d + 1], Q[d + 1] = H[d], Q[d] + 1
        elif H[d] + 1 >= k_max:
            leaves[H[d] + 1, 0] += 1  # the held set alone: any larger clique passes k_max
            Rest[d, w] &= ~bit(x)
            continue
        else:
            H[d + 1], Q[d + 1] = H[d] + 1, Q[d]
        for i in range(W):
            Ps[d + 1, i] = Rest[d, i] & row[i]
        Rest[d, w] &= ~bit(x)
        d += 1
        fresh = True


@njit(nogil=True)
def leaves_range(indptr, indices, first, last, step, k_min, k_max, width):
    """Leaf counts [h, pivots] of the succinct clique trees of roots first, first + step, ... < last
    (width: d + 3)."""
    n = len(indptr) - 1
    leaves = np.zeros((width, width), np.int64)
    pos = np.full(n, -1, np.int32)
    for v in range(first, last, step):
        adj, p = _later_rows(indptr, indices, v, pos, False)
        if p > 0:
            _sct_root(adj, p, k_min, k_max, leaves)
    return leaves


@njit(parallel=True)
def leaves_threads(indptr, indices, first, last, T, k_min, k_max, width):
    """``leaves_range``'s T strides on Numba's threads (``mce_kit.threads.on_threads``)."""
    out = np.zeros((T, width, width), np.int64)
    for t in prange(T):
        out[t] = leaves_range(indptr, indices, first + t, last, T, k_min, k_max, width)
    return out
