"""Maximal biclique enumeration over the smaller side V (MBEA-style).

A node is (L, R, P, Q): R ⊆ V, L = Γ(R) ⊆ U its common neighbours, P the
candidates that may still join R, Q the vertices of V already tried. Taking
x from P gives L' = L ∩ N(x) and R' = Γ(L'), every vertex adjacent to all of
L'. The node (L', R') is a maximal biclique unless R' meets Q — and then no
node below it is maximal either, so the branch is cut (Zhang et al. 2014).
Candidates and tried vertices that do not touch L' are dropped.

Roots: each v in V (by degree, then id) starts with L = N(v); vertices that
share a neighbour with v and come later are P, earlier ones Q, so each
maximal biclique is found once, from its earliest vertex of V. L is a bitset
over N(v) and R, P, Q are bitsets over the 2-hop neighbourhood of v, so
Γ(L') costs |L'| big-int ANDs. Only bicliques with both sides non-empty
count (as in GMBE+).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..graph import positions
from ._bits import Progress, bits, gather, mask_of, row_masks


def _roots(B, progress: Progress = None, roots=None):
    """Yield (v, L0, W, vmask, umask, root node) for each v in V (or in ``roots``, V ids) that
    starts a search.

    Local ids: U-bits over L0 = N(v), V-bits over W = vertices sharing a
    neighbour with v (v included). vmask[w] = N(w) ∩ L0, umask[u] = N(u) ∩ W."""
    deg = np.diff(B.v_indptr)
    order = np.lexsort((np.arange(B.n_v), deg))
    rank = positions(order)
    todo = order if roots is None else _check_roots(B, roots)
    for v in todo if progress is None else progress(todo):
        L0 = B.v_neighbors(v)
        if len(L0) == 0:
            continue
        rows, W = gather(B.u_indptr, B.u_indices, L0)  # rows index L0
        W, cols = np.unique(W, return_inverse=True)
        vmask = row_masks(cols, rows, len(W), len(L0))
        umask = row_masks(rows, cols, len(L0), len(W))
        later = mask_of(np.flatnonzero(rank[W] > rank[v]))
        earlier = mask_of(np.flatnonzero(rank[W] < rank[v]))
        L = (1 << len(L0)) - 1
        R, _ = _common(umask, L)
        if R & earlier:
            continue  # an earlier vertex covers N(v): found from there
        yield int(v), L0, W, vmask, umask, (L, R, later & ~R, earlier)


def _check_roots(B, roots) -> np.ndarray:
    r = np.asarray(roots, dtype=np.int64).ravel()
    if len(r) and (r.min() < 0 or r.max() >= B.n_v):
        raise ValueError(f"roots must be vertices of V (0..{B.n_v - 1}), got {r.min()}..{r.max()}")
    return r


def _common(umask: list[int], L: int) -> tuple[int, int]:
    """(V-vertices adjacent to all of L, V-vertices adjacent to some of L)."""
    common, touch = -1, 0
    for u in bits(L):
        common &= umask[u]
        touch |= umask[u]
    return common, touch


def _search(vmask: list[int], umask: list[int], root):
    """Yield (L, R) as bitsets for the root node and every maximal biclique below it."""
    stack = [root]
    while stack:
        L, R, P, Q = stack.pop()
        yield L, R
        while P:
            low = P & -P
            P ^= low
            L1 = L & vmask[low.bit_length() - 1]
            R1, touch = _common(umask, L1)
            if not R1 & Q:  # maximal: no vertex tried before covers L1
                stack.append((L1, R1, touch & P & ~R1, touch & Q))
            Q |= low


def maximal_bicliques(B, *, progress: Progress = None) -> Iterator[tuple[list[int], list[int]]]:
    """Yield every maximal biclique (L in U, R in V) with both sides non-empty, ids ascending."""
    for _, L0, W, vmask, umask, root in _roots(B, progress):
        u_ids, v_ids = L0.tolist(), W.tolist()
        for L, R in _search(vmask, umask, root):
            yield [u_ids[i] for i in bits(L)], [v_ids[i] for i in bits(R)]


def count_maximal_bicliques(B, *, progress: Progress = None, roots=None) -> int:
    """Number of maximal bicliques with both sides non-empty (with ``roots``, V ids: only those
    whose earliest vertex of V, by (degree, id), is one of them; disjoint root sets add up)."""
    count = 0
    for _, _, _, vmask, umask, root in _roots(B, progress, roots):
        count += sum(1 for _ in _search(vmask, umask, root))
    return count
