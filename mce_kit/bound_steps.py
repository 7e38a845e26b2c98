"""The compiled (Numba) steps of ``mce_kit.bounds`` on the host: peeling, the greedy cliques, the
(1,2)-swap, the bitset ego nets and their colourings, and a greedy colouring (see that module's
doc). Kept apart so that a process which takes its bounds on the GPU (``gpu.bounds``) never
imports Numba (its import and CPU target cost a process about half a second).
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from .jit import njit


@njit(nogil=True)
def peel(indptr, indices):
    """(degeneracy order, core numbers, size of the clique left when peeling reaches one) by
    Batagelj-Zaversnik bucket peeling, O(n + m); ties leave in bucket order."""
    n = len(indptr) - 1
    deg = np.empty(n, np.int64)
    md = 0
    for v in range(n):
        deg[v] = indptr[v + 1] - indptr[v]
        md = max(md, deg[v])
    bin_start = np.zeros(md + 2, np.int64)
    for v in range(n):
        bin_start[deg[v] + 1] += 1
    for d in range(1, md + 2):
        bin_start[d] += bin_start[d - 1]
    vert = np.empty(n, np.int32)
    pos = np.empty(n, np.int64)
    fill = bin_start.copy()
    for v in range(n):
        pos[v] = fill[deg[v]]
        vert[pos[v]] = v
        fill[deg[v]] += 1
    core = np.empty(n, np.int32)
    true_deg = deg.copy()  # deg is clamped at the current core level; this one is not
    gone = np.zeros(n, np.bool_)
    edges_left = len(indices) // 2
    tail = 0
    for i in range(n):
        v = vert[i]
        core[v] = deg[v]
        if tail == 0 and 2 * edges_left == (n - i) * (n - i - 1):
            tail = n - i  # every vertex left sees every other: a clique
        gone[v] = True
        edges_left -= true_deg[v]
        for j in range(indptr[v], indptr[v + 1]):
            u = indices[j]
            if not gone[u]:
                true_deg[u] -= 1
            if deg[u] > deg[v]:
                du = deg[u]
                pu = pos[u]
                pw = bin_start[du]
                w = vert[pw]
                if u != w:
                    pos[u], pos[w] = pw, pu
                    vert[pu], vert[pw] = w, u
                bin_start[du] += 1
                deg[u] -= 1
    return vert, core, tail


@njit(nogil=True)
def greedy_clique(indptr, indices, order, core, tail, work_cap):
    """Best clique grown greedily from the high-core vertices (see the module doc)."""
    n = len(order)
    rank = np.empty(n, np.int64)
    for i in range(n):
        rank[order[i]] = i
    best = np.empty(0, np.int32)
    if tail > 0:
        best = order[n - tail:].copy()
    mark = np.zeros(n, np.int64)  # mark[u] == stamp: u is still a candidate
    stamp = 0
    cand = np.empty(n, np.int32)
    clique = np.empty(n, np.int32)
    work = 0
    for i in range(n - 1, -1, -1):
        v = order[i]
        if core[v] + 1 <= len(best) or work > work_cap:
            break
        nc = 0
        for j in range(indptr[v], indptr[v + 1]):
            u = indices[j]
            if rank[u] > i and core[u] >= len(best):
                cand[nc] = u
                nc += 1
        work += indptr[v + 1] - indptr[v]
        if nc + 1 <= len(best):
            continue
        size = 1
        clique[0] = v
        while nc > 0:
            top = 0
            for k in range(1, nc):
                if rank[cand[k]] > rank[cand[top]]:
                    top = k
            w = cand[top]
            work += nc
            clique[size] = w
            size += 1
            stamp += 1
            for j in range(indptr[w], indptr[w + 1]):
                mark[indices[j]] = stamp
            work += indptr[w + 1] - indptr[w]
            kept = 0
            for k in range(nc):
                if mark[cand[k]] == stamp:
                    cand[kept] = cand[k]
                    kept += 1
            nc = kept
            if size + nc <= len(best):
                break
        if size > len(best):
            best = clique[:size].copy()
    return best


@njit(nogil=True)
def swap_once(indptr, indices, C):
    """C grown by one through a (1,2)-swap or an addition, else C itself."""
    n = len(indptr) - 1
    k = len(C)
    seen = np.zeros(n, np.int64)     # members of C adjacent to u
    idsum = np.zeros(n, np.int64)    # sum of those members' ids (gives the one missing)
    inC = np.zeros(n, np.bool_)
    total = 0
    for c in C:
        inC[c] = True
        total += c
    for c in C:
        for j in range(indptr[c], indptr[c + 1]):
            u = indices[j]
            seen[u] += 1
            idsum[u] += c
    for u in range(n):
        if not inC[u] and seen[u] == k:  # adjacent to all: just add it
            out = np.empty(k + 1, np.int32)
            out[:k] = C
            out[k] = u
            return out
    for u in range(n):  # u misses exactly x; a neighbour w of u missing the same x gives C - x + u + w
        if inC[u] or seen[u] != k - 1:
            continue
        x = total - idsum[u]
        for j in range(indptr[u], indptr[u + 1]):
            w = indices[j]
            if w > u and not inC[w] and seen[w] == k - 1 and total - idsum[w] == x:
                out = np.empty(k + 1, np.int32)
                t = 0
                for c in C:
                    if c != x:
                        out[t] = c
                        t += 1
                out[t] = u
                out[t + 1] = w
                return out
    return C


@intrinsic
def popcount(typingctx, x):
    """Set bits of a uint64 (one machine instruction)."""
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


@njit(nogil=True)
def bitset_rows(S, s, pos, optr, oidx, adj) -> int:
    """Rows 0..s-1 of ``adj``: the bitsets of the graph induced on S[:s], read from the
    later-neighbour CSR (``optr``, ``oidx``; each edge set both ways) with ``pos[S[k]] == k``.
    Returns the entries scanned (the ego pass's work; the CPU engine's search builds the same rows)."""
    one = np.uint64(1)
    for k in range(s):
        for x in range((s + 63) >> 6):
            adj[k, x] = 0
    scanned = 0
    for k in range(s):
        u = S[k]
        for j in range(optr[u], optr[u + 1]):
            p = pos[oidx[j]]
            if p >= 0:
                adj[k, p >> 6] |= one << np.uint64(p & 63)
                adj[p, k >> 6] |= one << np.uint64(k & 63)
        scanned += optr[u + 1] - optr[u]
    return scanned


@njit(nogil=True)
def bitset_peel(adj, s, need, A, deg, queue) -> int:
    """Peel the graph of ``bitset_rows`` to its vertices with at least ``need`` neighbours left:
    ``A`` (bitset) holds them and ``deg`` their degrees among them; returns how many there are.
    ``queue`` is scratch of s ints."""
    one = np.uint64(1)
    w = (s + 63) >> 6
    for x in range(w):
        A[x] = 0
    top = 0
    left = s
    for k in range(s):
        d = 0
        for x in range(w):
            d += popcount(adj[k, x])
        deg[k] = d
        if d >= need:
            A[k >> 6] |= one << np.uint64(k & 63)
        else:
            queue[top] = k
            top += 1
            left -= 1
    while top > 0:
        top -= 1
        k = queue[top]
        for x in range(w):
            bits = adj[k, x] & A[x]
            while bits != 0:
                p = x * 64 + trailing_zeros(bits)
                bits &= bits - one
                deg[p] -= 1
                if deg[p] < need:
                    A[p >> 6] &= ~(one << np.uint64(p & 63))
                    queue[top] = p
                    top += 1
                    left -= 1
    return left


@njit(nogil=True)
def orient(indptr, indices, order, core, min_core):
    """Later neighbours (in ``order``) of every vertex with core >= min_core, among those vertices."""
    n = len(order)
    rank = np.empty(n, np.int64)
    for i in range(n):
        rank[order[i]] = i
    optr = np.zeros(n + 1, np.int64)
    for v in range(n):
        c = 0
        if core[v] >= min_core:
            for j in range(indptr[v], indptr[v + 1]):
                u = indices[j]
                if rank[u] > rank[v] and core[u] >= min_core:
                    c += 1
        optr[v + 1] = optr[v] + c
    oidx = np.empty(optr[n], np.int32)
    for v in range(n):
        t = optr[v]
        if core[v] >= min_core:
            for j in range(indptr[v], indptr[v + 1]):
                u = indices[j]
                if rank[u] > rank[v] and core[u] >= min_core:
                    oidx[t] = u
                    t += 1
    return optr, oidx


@njit(nogil=True)
def ego_part(optr, oidx, order, core, best, colour_bound, work_cap, bound, start, stop, step):
    """``bounds._ego_pass`` over the roots order[n - 1 - r] for r in range(start, stop, step): (best clique,
    whether they were all seen); writes their ``bound``."""
    n = len(order)
    pos = np.full(n, -1, np.int64)
    S = np.empty(n, np.int64)
    most = 1
    for v in range(n):
        most = max(most, optr[v + 1] - optr[v])
    W = (most + 63) >> 6
    adj = np.zeros((most, W), np.uint64)
    deg = np.empty(most, np.int64)
    queue = np.empty(most, np.int64)
    stack = np.empty(most, np.int64)
    colour = np.empty(most, np.int64)
    used = np.zeros(most + 2, np.int64)
    A = np.zeros(W, np.uint64)
    cand = np.zeros(W, np.uint64)
    pick = np.empty(most, np.int64)
    work = 0
    one = np.uint64(1)
    for r in range(start, stop, step):
        v = order[n - 1 - r]
        lower = len(best)
        if core[v] + 1 <= lower:
            return best, True
        if work > work_cap:
            return best, False
        s = 0
        for j in range(optr[v], optr[v + 1]):
            u = oidx[j]
            if core[u] >= lower:
                pos[u] = s
                S[s] = u
                s += 1
        work += optr[v + 1] - optr[v] + 1
        bound[v] = min(bound[v], s + 1)
        if s < lower:  # no room for a clique of lower + 1 with v
            for k in range(s):
                pos[S[k]] = -1
            continue
        w = (s + 63) >> 6
        work += bitset_rows(S, s, pos, optr, oidx, adj)
        for k in range(s):
            pos[S[k]] = -1
        # peel S to the vertices with >= lower - 1 neighbours left (a clique of lower + 1 needs them)
        left = bitset_peel(adj, s, lower - 1, A, deg, queue)
        work += s * w
        if left < lower:
            bound[v] = lower  # larger cliques would lie in what is left
            continue
        if colour_bound:
            # smallest-last order of what is left, then first-fit colours in reverse of it
            for x in range(w):
                cand[x] = A[x]
            for t in range(left):
                m = -1
                for x in range(w):
                    bits = cand[x]
                    while bits != 0:
                        p = x * 64 + trailing_zeros(bits)
                        bits &= bits - one
                        if m < 0 or deg[p] < deg[m]:
                            m = p
                stack[t] = m
                cand[m >> 6] &= ~(one << np.uint64(m & 63))
                for x in range(w):
                    bits = adj[m, x] & cand[x]
                    while bits != 0:
                        p = x * 64 + trailing_zeros(bits)
                        bits &= bits - one
                        deg[p] -= 1
            colours = 0
            for t in range(left - 1, -1, -1):
                m = stack[t]
                for x in range(w):
                    bits = adj[m, x] & cand[x]
                    while bits != 0:
                        p = x * 64 + trailing_zeros(bits)
                        bits &= bits - one
                        used[colour[p]] = m + 1
                c = 0
                while used[c] == m + 1:
                    c += 1
                colour[m] = c
                colours = max(colours, c + 1)
                cand[m >> 6] |= one << np.uint64(m & 63)
            for c in range(colours + 1):
                used[c] = 0
            work += left * left
            bound[v] = max(colours + 1, lower)
            if colours + 1 <= lower:
                continue
        # greedy clique in what is left: always the candidate with most candidate neighbours
        for x in range(w):
            cand[x] = A[x]
        size = 0
        while True:
            m = -1
            md = -1
            for x in range(w):
                bits = cand[x]
                while bits != 0:
                    p = x * 64 + trailing_zeros(bits)
                    bits &= bits - one
                    d = 0
                    for y in range(w):
                        d += popcount(adj[p, y] & cand[y])
                    if d > md:
                        md, m = d, p
            if m < 0:
                break
            pick[size] = S[m]
            size += 1
            for x in range(w):
                cand[x] &= adj[m, x]
            work += left * w
        if size + 1 > lower:
            best = np.empty(size + 1, np.int32)
            best[0] = v
            best[1:] = pick[:size]
    return best, True


@njit(nogil=True)
def greedy_colours(indptr, indices, order):
    """Colours used by greedy colouring in reverse ``order`` (each vertex the least free colour)."""
    n = len(order)
    colour = np.full(n, -1, np.int64)
    used = np.full(n + 1, -1, np.int64)
    most = 0
    for i in range(n - 1, -1, -1):
        v = order[i]
        for j in range(indptr[v], indptr[v + 1]):
            c = colour[indices[j]]
            if c >= 0:
                used[c] = v
        c = 0
        while used[c] == v:
            c += 1
        colour[v] = c
        most = max(most, c + 1)
    return most
