"""A line-by-line Python mirror of cuda/gmbe.cu's task logic (one worker, no parallelism).

It reads the same host arrays as the kernel (``gmbe.prepare``) and keeps the same node_buf fields
(depthL, st, pm, the per-depth vertex sets, bitmap rows, per-level L), so CPU tests can check the
kernel's algorithm, its sub-task split and its buffer bounds against the oracle without a GPU.
"""

from __future__ import annotations

import numpy as np

INF = 0x7FFFFFFF
K_R, K_X = 1, 2
OUT = 3  # a donated node's vertex that is neither candidate, R nor X there


def mk(d, k):
    return (d << 2) | k


def run(prep, *, prune=True, bitmap=True, tau=32, split=True, bound_height=20, bound_size=1500,
        min_left=1, min_right=1, trace=None, xfirst=False, donate_every=0):
    """(count, stats) of the kernel's algorithm on ``prep`` (a gmbe.Prepared); ``xfirst``: the
    GMBE_XFIRST build (a child's maximality checked before any candidate work); ``donate_every`` k > 0:
    every k-th step of a task gives the shallowest node's remaining children away as snapshot
    sub-tasks (the kernel's F_DONATE_ALL with DONATE_EVERY = k), run later from the queue."""
    vp, vi, up, ui = prep.v_indptr, prep.v_indices, prep.u_indptr, prep.u_indices
    NV = [vi[vp[v]:vp[v + 1]].tolist() for v in range(len(vp) - 1)]
    NU = [ui[up[u]:up[u + 1]].tolist() for u in range(len(up) - 1)]
    stats = dict(count=0, nodes=0, failed=0, pruned=0, subtasks=0, splits=0, max_depth=0, bitmaps=0,
                 scanned=0)
    queue = []
    stats["donations"] = 0
    for si, s in enumerate(prep.seeds.tolist()):
        _task(NV, NU, s, -1, int(prep.nw[si]), int(prep.p2[si]), stats, queue, prune, bitmap, tau,
              split, bound_height, bound_size, min_left, min_right, trace, xfirst, donate_every)
        while queue:
            s2, jc, *snap = queue.pop()
            si2 = int(np.flatnonzero(prep.seeds == s2)[0])
            _task(NV, NU, s2, jc, int(prep.nw[si2]), int(prep.p2[si2]), stats, queue, prune, bitmap, tau,
                  False, bound_height, bound_size, min_left, min_right, trace, xfirst, donate_every,
                  snap[0] if snap else None)
    return stats["count"], stats


def _task(NV, NU, s, jc, nw_cap, p2_cap, stats, queue, prune, bitmap, tau, split, bh, bs, min_left,
          min_right, trace, xfirst=False, donate_every=0, snap=None):
    """The seed s (jc = -1), or its sub-task: the root's child through candidate W[jc] alone (of the
    seed's root, or of the donated node ``snap`` = (st, L membership 0 / -1, |R|, |L|))."""
    Lids = NV[s]
    nL = len(Lids)
    if nL == 0:
        return
    W = sorted(set().union(*[NU[u] for u in Lids]))
    nW = len(W)
    assert nW <= nw_cap, (nW, nw_cap)
    adj = [[] for _ in W]
    widx = {w: j for j, w in enumerate(W)}
    for i, u in enumerate(Lids):
        for w in NU[u]:
            adj[widx[w]].append(i)
    assert sum(map(len, adj)) <= p2_cap
    st, pm = [INF] * nW, [0] * nW
    bad = False
    for j, w in enumerate(W):
        if len(adj[j]) == nL:
            st[j] = mk(0, K_R)
            bad |= w < s
        else:
            st[j] = INF if w > s else mk(0, K_X)
    nC = sum(x == INF for x in st)
    nR = sum(x != INF and x & 3 == K_R for x in st)
    nl0 = nL
    depthL = [0] * nL
    if snap is not None:  # a donated node: its states and L instead of the seed's root
        st, depthL, nR, nl0 = list(snap[0]), list(snap[1]), snap[2], snap[3]
    if jc >= 0:  # the seed's root states (the arena), candidates before jc traversed
        assert not bad and st[jc] == INF
        st = [mk(0, K_X) if x == INF and j < jc else x for j, x in enumerate(st)]
        stats["subtasks"] += 1
    else:
        stats["nodes"] += 1
        if bad:
            return
        if nL >= min_left and nR >= min_right:
            stats["count"] += 1
        if nC == 0:
            return
        h = min(nL, nC)
        if split and h > bh and h * nC > bs:
            stats["splits"] += 1
            for j in range(nW):
                if st[j] == INF:
                    queue.append((s, j))
            return
    stp = {0: jc + 1 if jc >= 0 else INF}
    trav, nRD = {0: jc - 1 if jc >= 0 else -1}, {0: nR}
    perm = [j for j in range(nW) if st[j] == INF or st[j] & 3 == K_X]
    cnt = {0: len(perm)}

    def level_set(D):
        return perm[:cnt[D]]
    bm = {"level": -1, "rows": None, "Lb": {}}

    def enter_bitmap(D):
        members = [i for i in range(nL) if depthL[i] >= D]
        pos = {i: k for k, i in enumerate(members)}
        rows = [0] * nW
        for j in level_set(D):
            if st[j] != INF and st[j] & 3 == K_R:
                continue
            rows[j] = sum(1 << pos[i] for i in adj[j] if depthL[i] >= D)
        bm.update(level=D, rows=rows, Lb={D: (1 << len(members)) - 1})
        stats["bitmaps"] += 1

    def pop_level(Dc):
        for j in level_set(Dc - 1):
            if st[j] != INF and st[j] >> 2 == Dc:
                st[j] = INF
            if Dc < 64:
                pm[j] &= ~(1 << Dc)
        if bm["level"] < 0 or bm["level"] == Dc:
            for i in range(nL):
                if depthL[i] == Dc:
                    depthL[i] = Dc - 1
        if bm["level"] == Dc:
            bm["level"] = -1

    def overlap(j, Dl):
        if bm["level"] >= 0:
            return (bm["rows"][j] & bm["Lb"][Dl]).bit_count()
        return sum(depthL[i] >= Dl for i in adj[j])

    def still_to_make(j, d):
        x = st[j]
        if x != INF and x >> 2 <= d:
            return False
        if d < 64 and pm[j] >> d & 1:
            return False
        return trav[d] < j < stp[d]

    def l_at(d):  # L of the node at depth d: depthL, or the bitmap below the bitmap depth
        if bm["level"] >= 0 and d > bm["level"]:
            members = [i for i in range(nL) if depthL[i] >= bm["level"]]
            return [i in members and bm["Lb"][d] >> members.index(i) & 1 for i in range(nL)]
        return [depthL[i] >= d for i in range(nL)]

    def give(d):  # the kernel's donate(): a snapshot of node d and its remaining children queued
        todo = [j for j in level_set(d) if still_to_make(j, d)]
        if not todo:
            stp[d] = 0
            return
        sst = [mk(0, K_R) if x != INF and x & 3 == K_R and x >> 2 <= d else OUT for x in st]
        for j in level_set(d):
            x = st[j]
            if x != INF and x >> 2 <= d:
                sst[j] = mk(0, K_X) if x & 3 == K_X else mk(0, K_R)
            elif j == trav[d] or j >= stp[d]:
                sst[j] = mk(0, K_X)
            else:
                sst[j] = OUT if d < 64 and pm[j] >> d & 1 else INF
        inl = l_at(d)
        snap_d = (sst, [0 if x else -1 for x in inl], nRD[d], sum(inl))
        pushed = [j for j in range(nW) if j > trav[d] and sst[j] == INF]
        assert sorted(pushed) == sorted(todo)
        for j in reversed(pushed):  # the queue is popped from the end: earliest first
            queue.append((s, j, snap_d))
        stats["donations"] += 1
        stp[d] = trav[d] + 1

    D = 0
    tick = 0
    if bitmap and nl0 <= tau:
        enter_bitmap(0)
    while True:
        if donate_every:
            tick += 1
            if tick == donate_every:
                tick = 0
                for d in range(D + 1):
                    if stp[d] != INF:
                        continue
                    give(d)
                    if stp[d] != 0:
                        break
        bit = 1 << D if D < 64 else 0
        q = min((j for j in level_set(D) if j > trav[D] and st[j] == INF and not pm[j] & bit), default=None)
        if q is not None and q >= stp[D]:
            q = None
        if q is None:
            if D == 0:
                break
            pop_level(D)
            D -= 1
            st[trav[D]] = mk(D, K_X)
            continue
        trav[D] = q
        st[q] = mk(D + 1, K_R)
        if bm["level"] >= 0:
            bm["Lb"][D + 1] = bm["Lb"][D] & bm["rows"][q]
            nl1 = bm["Lb"][D + 1].bit_count()
        else:
            nl1 = 0
            for i in adj[q]:
                if depthL[i] >= D:
                    depthL[i] = D + 1
                    nl1 += 1
        if xfirst and any(j != q and st[j] != INF and st[j] & 3 == K_X and overlap(j, D + 1) == nl1
                          for j in level_set(D)):
            stats["nodes"] += 1
            stats["failed"] += 1
            pop_level(D + 1)
            st[q] = mk(D, K_X)
            continue
        nr_new = nc_new = 0
        fail = False
        rel, other = [], []
        for j in level_set(D):
            stats["scanned"] += 1
            other.append(j)
            if j == q:
                continue
            sj = st[j]
            cand = sj == INF and not pm[j] & bit
            xv = sj != INF and sj & 3 == K_X
            if not cand and not xv:
                continue
            c1 = overlap(j, D + 1)
            c0 = overlap(j, D) if cand else -1
            if c1 == 0:
                continue
            if xv:
                fail |= c1 == nl1
                rel.append(other.pop())
                continue
            if c1 == nl1:
                st[j] = mk(D + 1, K_R)
                nr_new += 1
            else:
                nc_new += 1
                rel.append(other.pop())
            if prune and c1 == c0 and D < 64:
                pm[j] |= bit
                stats["pruned"] += 1
        perm[:cnt[D]] = rel + other[::-1]
        stats["nodes"] += 1
        nr1 = nRD[D] + 1 + nr_new
        if fail:
            stats["failed"] += 1
        elif nl1 >= min_left and nr1 >= min_right:
            stats["count"] += 1
            if trace is not None:
                trace.append(("found", D + 1, nl1, nr1))
        if fail or nc_new == 0:
            pop_level(D + 1)
            st[q] = mk(D, K_X)
            continue
        D += 1
        stats["max_depth"] = max(stats["max_depth"], D)
        trav[D], nRD[D], stp[D] = -1, nr1, INF
        cnt[D] = len(rel)
        if bitmap and bm["level"] < 0 and nl1 <= tau:
            enter_bitmap(D)
