"""Maximal bicliques in Numba: one sub-problem per vertex of V, on bit rows over its neighbourhood.

The same search as ``mce_kit.cpu.mbe`` (MBEA with Zhang et al.'s cut): V is relabelled by
(degree, id), and root v owns the maximal bicliques whose earliest V-vertex is v. Its
neighbourhood L0 = N(v) in U is the bit space: every V-vertex w sharing a neighbour with v
gets the row N(w) ∩ L0, built once per root (AdaMBE's local neighbour cache). A node keeps
L as bits and its candidates P and tried vertices Q as short lists of those rows, so a child
costs one AND + popcount per row, over the words where L is still non-zero only (L shrinks
fast, so deep nodes touch a word or two). Lists live in one growing stack per thread.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._bits import ONE, ZERO, bit, lowest, popcount

DOMINANT_CAP = 512  # rows of Q checked for inclusion at a root (beyond: kept as they are)


@njit
def _meet(L, row, aw, naw) -> int:
    """|L & row| over the active words aw[:naw] of L."""
    c = ZERO
    for t in range(naw):
        i = aw[t]
        c += popcount(L[i] & row[i])
    return int(c)


@njit
def _keep_touching(cand, first, count, L1, vm, aw, naw, c1, at, kept) -> int:
    """Copy to ``cand[at + kept ...]`` the vertices ``cand[first .. first + count)`` that meet L1;
    returns the new ``kept``, or -1 when one of them covers all of L1 (the branch is not maximal)."""
    for t in range(count):
        q = cand[first + t]
        c = _meet(L1, vm[q], aw, naw)
        if c == c1:
            return -1
        if c > 0:
            cand[at + kept] = q
            kept += 1
    return kept


@njit(cache=True)
def _grow(a, need):
    """a (int64), or a copy with room for ``need`` entries (doubling). Plain loops: NumPy's slice
    assignment and dtype-generic zeros cost seconds of compile time each."""
    if need <= len(a):
        return a
    b = np.zeros(max(need, 2 * len(a)), np.int64)
    for i in range(len(a)):
        b[i] = a[i]
    return b


@njit(cache=True)
def _emit(L, aw, naw, L0, R, r_len, wlist, out_l, out_loff, out_r, out_roff, cur) -> bool:
    """Write biclique (bits of L as U ids, R[:r_len] as V ids); False when the buffers are full."""
    k, nl, nr = cur[0], cur[1], cur[2]
    size_l = _meet(L, L, aw, naw)
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


@njit(cache=True)
def _root(u_indptr, u_indices, v_indptr, v_indices, v, pos, wlist, out_l, out_loff, out_r, out_roff, cur):
    """Maximal bicliques whose earliest V-vertex is v: their number, or -1 when listing and the
    buffers are full (the caller retries v)."""
    listing = len(out_loff) > 0
    L0 = v_indices[v_indptr[v]:v_indptr[v + 1]]
    a = len(L0)
    if a == 0:
        return 0
    Wl = (a + 63) >> 6
    nw = 0
    for i in range(a):
        u = L0[i]
        for e in range(u_indptr[u], u_indptr[u + 1]):
            w = u_indices[e]
            if pos[w] < 0:
                pos[w] = nw
                wlist[nw] = w
                nw += 1
    vm = np.zeros((nw, Wl), np.uint64)
    for i in range(a):
        u = L0[i]
        for e in range(u_indptr[u], u_indptr[u + 1]):
            j = pos[u_indices[e]]
            vm[j, i >> 6] |= bit(i)
    for j in range(nw):
        pos[wlist[j]] = -1
    # root node: R = rows covering all of L0 (v among them); an earlier one means v is not the root
    R = np.zeros(nw, np.int64)
    cand = np.zeros(2 * nw + 16, np.int64)
    r_len = n_p = n_q = 0
    for j in range(nw):
        full = True
        for i in range(Wl):
            want = ~ZERO if (i + 1) * 64 <= a else (ONE << np.uint64(a - i * 64)) - ONE
            if vm[j, i] != want:
                full = False
        if full:
            if wlist[j] < v:
                return 0
            R[r_len] = j
            r_len += 1
    for j in range(nw):
        if wlist[j] > v and not _covers_all(vm[j], a):
            cand[n_p] = j
            n_p += 1
    dup = np.full(nw if listing else 0, -1, np.int64)
    n_p = _dedupe(vm, cand[:n_p], dup)
    n_q = _dominant(vm, wlist, v, cand[n_p:])
    D = 16
    Ls = np.zeros((D, Wl), np.uint64)
    AW = np.zeros((D, Wl), np.int64)
    naws = np.zeros(D, np.int64)
    p0 = np.zeros(D, np.int64)  # level: P = cand[p0:p0+np_], Q = cand[p0+np_:p0+np_+nq]
    pn = np.zeros(D, np.int64)
    qn = np.zeros(D, np.int64)
    nxt = np.zeros(D, np.int64)  # next index into P
    r0 = np.zeros(D, np.int64)  # level's R = R[:rl] (listing)
    rl = np.zeros(D, np.int64)
    for i in range(Wl):
        Ls[0, i] = ~ZERO if (i + 1) * 64 <= a else (ONE << np.uint64(a - i * 64)) - ONE
        AW[0, i] = i
    naws[0] = Wl
    pn[0], qn[0], rl[0] = n_p, n_q, r_len
    found = 1
    if listing and not _emit(Ls[0], AW[0], Wl, L0, R, r_len, wlist, out_l, out_loff, out_r, out_roff, cur):
        return -1
    top = n_p + n_q  # first free slot of cand
    Rtop = r_len if listing else 0  # first free slot of R (a stack of the levels' R when listing)
    d = 0
    L1 = np.zeros(Wl, np.uint64)
    while d >= 0:
        if nxt[d] >= pn[d]:
            top, Rtop = p0[d], r0[d]  # this level's lists are freed
            d -= 1
            continue
        i = nxt[d]
        nxt[d] = i + 1
        base = p0[d]
        x = cand[base + i]
        L, aw, naw = Ls[d], AW[d], naws[d]
        c1 = 0
        for t in range(naw):
            L1[aw[t]] = L[aw[t]] & vm[x, aw[t]]
            c1 += int(popcount(L1[aw[t]]))
        # child's lists at cand[top:]: P' first, then Q' (tried vertices that still touch L1)
        need = top + 2 * pn[d] + qn[d] + 1  # P' <= pn, then Q' <= qn + i
        if need > len(cand):
            cand = _grow(cand, need)
        q_start = base + pn[d]
        qbuf = top + pn[d]  # Q' written after room for P'
        nq2 = _keep_touching(cand, q_start, qn[d], L1, vm, aw, naw, c1, qbuf, 0)
        if nq2 >= 0:  # then the P vertices tried before x
            nq2 = _keep_touching(cand, base, i, L1, vm, aw, naw, c1, qbuf, nq2)
        if nq2 < 0:
            continue
        if len(R) < Rtop + rl[d] + nw + 1:
            R = _grow(R, Rtop + rl[d] + nw + 1)
        if listing:
            for t in range(rl[d]):
                R[Rtop + t] = R[r0[d] + t]
        r2 = _push(R, Rtop + rl[d], x, dup) - Rtop
        np2 = 0
        for t in range(i + 1, pn[d]):
            y = cand[base + t]
            c = _meet(L1, vm[y], aw, naw)
            if c == c1:
                r2 = _push(R, Rtop + r2, y, dup) - Rtop
            elif c > 0:
                cand[top + np2] = y
                np2 += 1
        found += 1
        naw2 = 0
        if d + 1 >= len(pn):
            Ls = _grow_rows(Ls, np.zeros((2 * D, Wl), np.uint64))
            AW = _grow_rows(AW, np.zeros((2 * D, Wl), np.int64))
            naws, p0, pn, qn = _grow(naws, 2 * D), _grow(p0, 2 * D), _grow(pn, 2 * D), _grow(qn, 2 * D)
            nxt, r0, rl = _grow(nxt, 2 * D), _grow(r0, 2 * D), _grow(rl, 2 * D)
            D = len(pn)
        for t in range(naw):
            if L1[aw[t]] != ZERO:
                AW[d + 1, naw2] = aw[t]
                naw2 += 1
            Ls[d + 1, aw[t]] = L1[aw[t]]
        if listing and not _emit(Ls[d + 1], AW[d + 1], naw2, L0, R[Rtop:], r2, wlist,
                                 out_l, out_loff, out_r, out_roff, cur):
            return -1
        if np2 == 0:
            continue
        # move Q' down to follow P' directly
        for t in range(nq2):
            cand[top + np2 + t] = cand[qbuf + t]
        d += 1
        p0[d], pn[d], qn[d], nxt[d], naws[d] = top, np2, nq2, 0, naw2
        r0[d], rl[d] = Rtop, r2
        top += np2 + nq2
        if listing:
            Rtop += r2
    return found


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def _dominant(vm, wlist, v, out) -> int:
    """Write to ``out`` the earlier V-vertices whose rows are not inside another's (largest
    first; equal rows once) and return how many. A vertex whose row lies inside another's can
    only block a biclique the other blocks too, so Q needs only these. Past ``DOMINANT_CAP``
    kept rows the rest are kept unchecked (the test is quadratic)."""
    nw = len(vm)
    n = 0
    for j in range(nw):
        if wlist[j] < v:
            out[n] = j
            n += 1
    if n <= 16:
        return n
    Wl = vm.shape[1]
    size = np.zeros(n, np.int64)
    top = 0
    for t in range(n):
        size[t] = _covers(vm[out[t]])
        top = max(top, size[t])
    start = np.zeros(top + 2, np.int64)  # counting sort by size, largest first
    for t in range(n):
        start[top - size[t] + 1] += 1
    for s in range(1, top + 2):
        start[s] += start[s - 1]
    idx = np.zeros(n, np.int64)
    for t in range(n):
        b = top - size[t]
        idx[start[b]] = out[t]
        start[b] += 1
    kept = 0
    for t in range(n):
        q = idx[t]
        inside = False
        if kept < DOMINANT_CAP:
            for s in range(kept):
                k = out[s]
                inside = True
                for i in range(Wl):
                    if vm[q, i] & ~vm[k, i] != ZERO:
                        inside = False
                        break
                if inside:
                    break
        if not inside:
            out[kept] = q
            kept += 1
    return kept


@njit(cache=True)
def _covers(row) -> int:
    c = ZERO
    for i in range(len(row)):
        c += popcount(row[i])
    return int(c)


@njit(cache=True)
def _grow_rows(a, b):
    """b (zeros, more rows) with a's rows copied in."""
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            b[i, j] = a[i, j]
    return b


@njit
def _covers_all(row, a) -> bool:
    c = ZERO
    for i in range(len(row)):
        c += popcount(row[i])
    return int(c) == a


@njit(cache=True, nogil=True)
def run_range(u_indptr, u_indices, v_indptr, v_indices, first, last, step, out_l, out_loff, out_r, out_roff):
    """Maximal bicliques of roots first, first + step, ... < last: (next root to run, how many),
    and, when out_loff is not empty, listed into the buffers until full (a root that does not fit
    is neither written nor counted). One entry point for counting and listing (compile time)."""
    n_v = len(v_indptr) - 1
    pos = np.full(n_v, -1, np.int64)
    wlist = np.zeros(n_v, np.int64)
    cur = np.zeros(3, np.int64)
    if len(out_loff):
        out_loff[0] = out_roff[0] = 0
    total = 0
    for v in range(first, last, step):
        k, nl, nr = cur[0], cur[1], cur[2]
        found = _root(u_indptr, u_indices, v_indptr, v_indices, v, pos, wlist,
                      out_l, out_loff, out_r, out_roff, cur)
        if found < 0:
            cur[0], cur[1], cur[2] = k, nl, nr
            return v, total
        total += found
    return last, total
