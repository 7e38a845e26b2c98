"""Maximal bicliques in Numba: one sub-problem per vertex of V, on bit rows over its neighbourhood.

The same search as ``mce_kit.cpu.mbe`` (MBEA with Zhang et al.'s cut): V is relabelled by
(degree, id), and root v owns the maximal bicliques whose earliest V-vertex is v. Its
neighbourhood L0 = N(v) in U is the bit space: every V-vertex w sharing a neighbour with v
gets the row N(w) ∩ L0, built once per root in one pass over the 2-hop (AdaMBE's local
neighbour cache). A node keeps L as bits and its candidates P and tried vertices Q as short
lists of those rows, so a child costs one AND + popcount per row, over the words where L is
still non-zero only (L shrinks fast, so deep nodes touch a word or two). Candidates go
smallest first (by |L ∩ row|, as iMBEA orders them). Lists live in one growing stack.

Sparse graphs are mostly tiny roots, so their fixed cost counts: a thread's roots share one
workspace (no allocation per root), and a root with one neighbour u is answered without a
search (({u}, N(u)), v's when v is N(u)'s earliest). Which side is V is the caller's choice
(``cpu_engine.rooted``).
"""

from __future__ import annotations

import numpy as np

from ..jit import njit
from ._bits import ONE, ZERO, bit, lowest, popcount

DOMINANT_CAP = 512  # rows of Q checked for inclusion at a root (beyond: kept as they are)


@njit(inline="always")
def _meet(L, vm, y, aw, naw) -> int:
    """|L & vm[y]| over the active words aw[:naw] of L."""
    c = ZERO
    for t in range(naw):
        i = aw[t]
        c += popcount(L[i] & vm[y, i])
    return int(c)


@njit(inline="always")
def _keep_touching(cand, first, count, L1, vm, aw, naw, c1, at, kept) -> int:
    """Copy to ``cand[at + kept ...]`` the vertices ``cand[first .. first + count)`` that meet L1;
    returns the new ``kept``, or -1 - q when a vertex q covers all of L1 (the branch is not
    maximal)."""
    for t in range(count):
        q = cand[first + t]
        c = _meet(L1, vm, q, aw, naw)
        if c == c1:
            return -1 - q
        if c > 0:
            cand[at + kept] = q
            kept += 1
    return kept


@njit()
def _grow(a, need):
    """a (int64), or a copy with room for ``need`` entries (doubling). Plain loops: NumPy's slice
    assignment and dtype-generic zeros cost seconds of compile time each."""
    if need <= len(a):
        return a
    b = np.zeros(max(need, 2 * len(a)), np.int64)
    for i in range(len(a)):
        b[i] = a[i]
    return b


@njit()
def _emit(L, aw, naw, L0, R, r_len, wlist, out_l, out_loff, out_r, out_roff, cur) -> bool:
    """Write biclique (bits of L as U ids, R[:r_len] as V ids); False when the buffers are full."""
    k, nl, nr = cur[0], cur[1], cur[2]
    size_l = 0
    for t in range(naw):
        size_l += int(popcount(L[aw[t]]))
    if k + 1 >= len(out_loff) or nl + size_l > len(out_l) or nr + r_len > len(out_r):
        return False
    for t in range(naw):
        i = aw[t]
        word = L[i]
        while word != ZERO:
            out_l[nl] = L0[(i << 6) + int(lowest(word))]
            nl += 1
            word &= word - ONE
    for j in range(r_len):
        out_r[nr] = wlist[R[j]]
        nr += 1
    out_loff[k + 1], out_roff[k + 1] = nl, nr
    cur[0], cur[1], cur[2] = k + 1, nl, nr
    return True


# fields of the per-level table (one column a search level)
NAW, P0, PN, QN, NXT, R0, RL, BLOCKER = range(8)


@njit(inline="always")  # a call with this many arrays costs more than a small root
def _root(u_indptr, u_indices, v_indices, L0, v, pos, wlist, rows, lbits, lwords, level, L1, cand, R, dup,
          hits, meet, tmp, cnt, out_l, out_loff, out_r, out_roff, cur):
    """Maximal bicliques whose earliest V-vertex is v, N(v) = L0 (two or more vertices): (their
    number, or -1 when listing and the buffers are full, and the caller retries v; cand; R).
    rows, lbits, lwords, level and L1 are the thread's workspace, sized by the caller for v;
    cand and R (R only when listing) come back grown when the search needed more."""
    listing = len(out_loff) > 0
    a = len(L0)
    Wl = (a + 63) >> 6
    vm = rows[:(len(rows) // Wl) * Wl].reshape((len(rows) // Wl, Wl))
    nw = 0  # one pass over the 2-hop: rows numbered as first met, hits[j] = |row j|
    for i in range(a):
        u = L0[i]
        word, b = i >> 6, bit(i)
        for e in range(u_indptr[u], u_indptr[u + 1]):
            w = u_indices[e]
            j = pos[w]
            if j < 0:
                j = pos[w] = nw
                wlist[j] = w
                hits[j] = 0
                for t in range(Wl):
                    vm[j, t] = ZERO
                nw += 1
            vm[j, word] |= b
            hits[j] += 1
    for j in range(nw):
        pos[wlist[j]] = -1
        if listing:
            dup[j] = -1
    Ls = lbits[:a * Wl].reshape((a, Wl))  # level d's L (|L| drops at each level: depth < a)
    AW = lwords[:a * Wl].reshape((a, Wl))  # level d's non-zero words of L
    for i in range(Wl):
        Ls[0, i] = ~ZERO if (i + 1) * 64 <= a else (ONE << np.uint64(a - i * 64)) - ONE
        AW[0, i] = i
    # root node: R = rows covering all of L0 (v among them); an earlier one means v is not the
    # root; P = the later rows (at cand[0:]), Q = the earlier (at cand[nw:] first)
    if len(cand) < 2 * nw + 16:
        cand = np.zeros(2 * nw + 16, np.int64)
    if listing:
        R = _grow(R, nw + 1)
    r_len = n_p = n_q = 0
    for j in range(nw):
        if hits[j] == a:
            if wlist[j] < v:
                return 0, cand, R
            if listing:
                R[r_len] = j
            r_len += 1
        elif wlist[j] > v:
            cand[n_p] = j
            n_p += 1
        else:
            cand[nw + n_q] = j
            n_q += 1
    if n_p > 16:
        n_p = _dedupe(vm, cand[:n_p], dup)
    for t in range(n_p):  # smallest rows first: children with small L, whose branches end soon
        meet[t] = hits[cand[t]]
    _by_meet(cand, 0, n_p, meet, a, tmp, cnt)
    if n_q > 16:
        n_q = _dominant(vm, cand[nw:nw + n_q])
    for t in range(n_q):
        cand[n_p + t] = cand[nw + t]
    level[NAW, 0], level[P0, 0], level[PN, 0], level[QN, 0] = Wl, 0, n_p, n_q
    level[NXT, 0], level[R0, 0], level[RL, 0], level[BLOCKER, 0] = 0, 0, r_len, -1
    found = 1
    if listing and not _emit(Ls[0], AW[0], Wl, L0, R, r_len, wlist, out_l, out_loff, out_r, out_roff, cur):
        return -1, cand, R
    top = n_p + n_q  # first free slot of cand
    Rtop = r_len if listing else 0  # first free slot of R (a stack of the levels' R when listing)
    d = 0
    while d >= 0:
        if level[NXT, d] >= level[PN, d]:
            top, Rtop = level[P0, d], level[R0, d]  # this level's lists are freed
            d -= 1
            continue
        i = level[NXT, d]
        level[NXT, d] = i + 1
        base, pn, qn = level[P0, d], level[PN, d], level[QN, d]
        x = cand[base + i]
        L, aw, naw = Ls[d], AW[d], level[NAW, d]
        c1 = 0
        for t in range(naw):
            L1[aw[t]] = L[aw[t]] & vm[x, aw[t]]
            c1 += int(popcount(L1[aw[t]]))
        # child's lists at cand[top:]: P' first, then Q' (tried vertices that still touch L1)
        need = top + 2 * pn + qn + 1  # P' <= pn, then Q' <= qn + i
        if need > len(cand):
            cand = _grow(cand, need)
        qbuf = top + pn  # Q' written after room for P'
        # a tried vertex that blocked a sibling often blocks this child too: it goes first
        blocker = level[BLOCKER, d]
        if blocker >= 0 and _meet(L1, vm, blocker, aw, naw) == c1:
            continue
        nq2 = _keep_touching(cand, base + pn, qn, L1, vm, aw, naw, c1, qbuf, 0)
        if nq2 >= 0:  # then the P vertices tried before x
            nq2 = _keep_touching(cand, base, i, L1, vm, aw, naw, c1, qbuf, nq2)
        if nq2 < 0:
            level[BLOCKER, d] = -1 - nq2
            continue
        r2 = 0
        if listing:
            R = _grow(R, Rtop + level[RL, d] + nw + 1)
            for t in range(level[RL, d]):
                R[Rtop + t] = R[level[R0, d] + t]
            r2 = _push(R, Rtop + level[RL, d], x, dup) - Rtop
        np2 = 0
        for t in range(i + 1, pn):
            y = cand[base + t]
            c = _meet(L1, vm, y, aw, naw)
            if c == c1:
                if listing:
                    r2 = _push(R, Rtop + r2, y, dup) - Rtop
            elif c > 0:
                cand[top + np2] = y
                meet[np2] = c
                np2 += 1
        if np2 > 1:
            _by_meet(cand, top, np2, meet, c1, tmp, cnt)
        found += 1
        naw2 = 0
        for t in range(naw):
            if L1[aw[t]] != ZERO:
                AW[d + 1, naw2] = aw[t]
                naw2 += 1
            Ls[d + 1, aw[t]] = L1[aw[t]]
        if listing and not _emit(Ls[d + 1], AW[d + 1], naw2, L0, R[Rtop:], r2, wlist,
                                 out_l, out_loff, out_r, out_roff, cur):
            return -1, cand, R
        if np2 == 0:
            continue
        # move Q' down to follow P' directly
        for t in range(nq2):
            cand[top + np2 + t] = cand[qbuf + t]
        d += 1
        level[P0, d], level[PN, d], level[QN, d], level[NXT, d], level[NAW, d] = top, np2, nq2, 0, naw2
        level[R0, d], level[RL, d], level[BLOCKER, d] = Rtop, r2, -1
        top += np2 + nq2
        if listing:
            Rtop += r2
    return found, cand, R


@njit(inline="always")
def _by_meet(cand, at, n, meet, most, tmp, cnt):
    """Sort cand[at:at + n] by meet[:n] (values <= most), smallest first, stably: by insertion
    when short, else by counting (tmp and cnt: scratch)."""
    if n <= 32:
        for t in range(1, n):
            x, c = cand[at + t], meet[t]
            s = t
            while s > 0 and meet[s - 1] > c:
                cand[at + s], meet[s] = cand[at + s - 1], meet[s - 1]
                s -= 1
            cand[at + s], meet[s] = x, c
        return
    for t in range(most + 2):
        cnt[t] = 0
    for t in range(n):
        cnt[meet[t] + 1] += 1
    for t in range(most):
        cnt[t + 1] += cnt[t]
    for t in range(n):
        tmp[cnt[meet[t]]] = cand[at + t]
        cnt[meet[t]] += 1
    for t in range(n):
        cand[at + t] = tmp[t]


@njit()
def _push(R, top, x, dup) -> int:
    """Put x (and, when listing, the P vertices with x's row) on R at ``top``; the new top."""
    R[top] = x
    top += 1
    if len(dup):
        y = dup[x]
        while y >= 0:
            R[top] = y
            top += 1
            y = dup[y]
    return top


@njit()
def _dedupe(vm, P, dup) -> int:
    """Keep in P (order kept) one vertex per distinct row and return how many. A vertex whose row
    equals an earlier one's enters every R with it and is blocked by it as a branch, so the
    search needs only the first; ``dup`` (when listing) chains the others behind it.
    Rows are grouped with an open-addressing hash table (no sort to compile)."""
    n = len(P)
    if n <= 16:
        return n
    Wl = vm.shape[1]
    size = 1
    while size < 2 * n:
        size *= 2
    mask = np.int64(size - 1)
    table = np.full(size, -1, np.int64)  # slot -> index into P of a kept row
    tail = np.zeros(n, np.int64)  # kept index -> last vertex chained behind it
    kept = 0
    for t in range(n):
        x = P[t]
        h = np.uint64(0x9E3779B97F4A7C15)
        for i in range(Wl):
            h = (h ^ vm[x, i]) * np.uint64(0xBF58476D1CE4E5B9)
            h ^= h >> np.uint64(31)
        slot = np.int64(h >> np.uint64(40)) & mask
        while True:
            k = table[slot]
            if k < 0:
                table[slot] = kept
                P[kept] = x
                tail[kept] = x
                kept += 1
                break
            same = True
            y = P[k]
            for i in range(Wl):
                if vm[x, i] != vm[y, i]:
                    same = False
                    break
            if same:
                if len(dup):
                    dup[tail[k]] = x
                    tail[k] = x
                break
            slot = (slot + 1) & mask
    return kept


@njit()
def _dominant(vm, Q) -> int:
    """Keep in Q the vertices whose rows are not inside another's (largest first; equal rows
    once) and return how many. A vertex whose row lies inside another's can only block a
    biclique the other blocks too, so Q needs only these. Past ``DOMINANT_CAP`` kept rows the
    rest are kept unchecked (the test is quadratic)."""
    Wl = vm.shape[1]
    _by_size(vm, Q, True)
    kept = 0
    for t in range(len(Q)):
        q = Q[t]
        inside = False
        if kept < DOMINANT_CAP:
            for s in range(kept):
                k = Q[s]
                inside = True
                for i in range(Wl):
                    if vm[q, i] & ~vm[k, i] != ZERO:
                        inside = False
                        break
                if inside:
                    break
        if not inside:
            Q[kept] = q
            kept += 1
    return kept


@njit()
def _by_size(vm, P, largest_first):
    """Sort P by the sizes of its rows (a stable counting sort)."""
    n = len(P)
    size = np.zeros(n, np.int64)
    top = 0
    for t in range(n):
        size[t] = _covers(vm[P[t]])
        top = max(top, size[t])
    start = np.zeros(top + 2, np.int64)
    for t in range(n):
        size[t] = top - size[t] if largest_first else size[t]
        start[size[t] + 1] += 1
    for s in range(1, top + 2):
        start[s] += start[s - 1]
    idx = np.zeros(n, np.int64)
    for t in range(n):
        idx[start[size[t]]] = P[t]
        start[size[t]] += 1
    for t in range(n):
        P[t] = idx[t]


@njit()
def _covers(row) -> int:
    c = ZERO
    for i in range(len(row)):
        c += popcount(row[i])
    return int(c)


@njit(nogil=True)
def run_range(u_indptr, u_indices, v_indptr, v_indices, first, last, step, out_l, out_loff, out_r, out_roff):
    """Maximal bicliques of roots first, first + step, ... < last: (next root to run, how many),
    and, when out_loff is not empty, listed into the buffers until full (a root that does not fit
    is neither written nor counted). One entry point for counting and listing (compile time).
    The roots share one workspace, grown to the largest (no allocation per root)."""
    n_v = len(v_indptr) - 1
    listing = len(out_loff) > 0
    pos = np.full(n_v, -1, np.int64)  # a vertex's row at the current root (-1: none)
    cur = np.zeros(3, np.int64)
    # the workspace, grown to the largest root met (a root's rows: nw <= min(2-hop, n_v))
    wlist = np.zeros(0, np.int64)  # row -> vertex
    hits = np.zeros(0, np.int64)  # the root's row sizes
    meet = np.zeros(0, np.int64)  # |L1 & row| of a child's candidates, to sort them
    tmp = np.zeros(0, np.int64)
    dup = np.zeros(0, np.int64)  # listing: rows equal to a kept one, chained behind it
    rows = np.zeros(0, np.uint64)  # the bit rows, nw x Wl
    lbits = np.zeros(0, np.uint64)  # the levels' L, a x Wl
    lwords = np.zeros(0, np.int64)  # the levels' non-zero words, a x Wl
    level = np.zeros((BLOCKER + 1, 0), np.int64)
    L1 = np.zeros(0, np.uint64)
    cnt = np.zeros(0, np.int64)  # sizes of L up to a, for counting sorts
    cand = np.zeros(64, np.int64)
    R = np.zeros(64 if listing else 0, np.int64)
    if listing:
        out_loff[0] = out_roff[0] = 0
    total = 0
    for v in range(first, last, step):
        L0 = v_indices[v_indptr[v]:v_indptr[v + 1]]
        a = len(L0)
        if a == 0:
            continue
        k, nl, nr = cur[0], cur[1], cur[2]
        if a == 1:  # the one biclique ({u}, N(u)), v's when v is N(u)'s earliest
            found = _single(u_indptr, u_indices, L0[0], v, out_l, out_loff, out_r, out_roff, cur)
        else:
            Wl = (a + 63) >> 6
            reach = 0
            for i in range(a):
                reach += u_indptr[L0[i] + 1] - u_indptr[L0[i]]
            nw = min(reach, n_v)
            if len(wlist) < nw:
                size = max(nw, 2 * len(wlist))
                wlist, hits = np.zeros(size, np.int64), np.zeros(size, np.int64)
                meet, tmp = np.zeros(size, np.int64), np.zeros(size, np.int64)
                dup = np.zeros(size if listing else 0, np.int64)
            if len(rows) < nw * Wl:
                rows = np.zeros(max(nw * Wl, 2 * len(rows)), np.uint64)
            if len(lbits) < a * Wl:
                lbits = np.zeros(max(a * Wl, 2 * len(lbits)), np.uint64)
                lwords = np.zeros(len(lbits), np.int64)
            if level.shape[1] < a:
                level = np.zeros((BLOCKER + 1, max(a, 2 * level.shape[1])), np.int64)
                cnt = np.zeros(level.shape[1] + 2, np.int64)
            if len(L1) < Wl:
                L1 = np.zeros(Wl, np.uint64)
            found, cand, R = _root(u_indptr, u_indices, v_indices, L0, v, pos, wlist, rows, lbits, lwords,
                                   level, L1, cand, R, dup, hits, meet, tmp, cnt,
                                   out_l, out_loff, out_r, out_roff, cur)
        if found < 0:
            cur[0], cur[1], cur[2] = k, nl, nr
            return v, total
        total += found
    return last, total


@njit(inline="always")
def _single(u_indptr, u_indices, u, v, out_l, out_loff, out_r, out_roff, cur) -> int:
    """A root with one neighbour u: 1 when v is the earliest of N(u) (rows sorted by rank), and
    then ({u}, N(u)) listed when listing; 0; or -1 when the buffers are full."""
    lo, hi = u_indptr[u], u_indptr[u + 1]
    if u_indices[lo] != v:
        return 0
    if len(out_loff) == 0:
        return 1
    k, nl, nr = cur[0], cur[1], cur[2]
    if k + 1 >= len(out_loff) or nl + 1 > len(out_l) or nr + hi - lo > len(out_r):
        return -1
    out_l[nl] = u
    for e in range(lo, hi):
        out_r[nr + e - lo] = u_indices[e]
    out_loff[k + 1], out_roff[k + 1] = nl + 1, nr + hi - lo
    cur[0], cur[1], cur[2] = k + 1, nl + 1, nr + hi - lo
    return 1
