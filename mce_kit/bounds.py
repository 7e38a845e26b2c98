"""Bounds on the clique number, computed before any search (shared by the CPU engine and Geil).

    b = clique_bounds(G)
    b.lower, b.clique    # a real clique (vertex ids of G) and its size: omega >= lower
    b.upper              # min(core number + 1, colours of a greedy colouring): omega <= upper
    b.exact              # lower == upper: omega is known without a search

Lower bound: peel the graph in degeneracy order (Batagelj-Zaversnik buckets); when what is left
is a clique (its minimum degree is its size - 1) that clique is kept. Then, from the vertices of
highest core number down, a clique is grown greedily inside each vertex's later neighbours
(always the latest candidate in the order, the deepest in the core), and the best one is improved
by (1,2)-swaps: drop one member x, add two adjacent vertices that see every member but x.

Upper bounds: a clique of size t lies in the (t-1)-core, so omega <= max core + 1; and a clique
uses each colour of a proper colouring once, so omega <= the colours of a greedy colouring in
reverse degeneracy order (never more than max core + 1, often fewer on dense graphs).

``vertex_bound`` is per vertex: core[v] + 1 bounds every clique through v, so a search for cliques
of size t keeps only the vertices with core >= t - 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from .graph import Graph

SWAP_ROUNDS = 16  # (1,2)-swap rounds tried on the best greedy clique
GREEDY_WORK = 2   # the greedy cliques may touch at most this many times 2m + n adjacency entries


@dataclass(frozen=True)
class CliqueBounds:
    lower: int               # size of ``clique``
    clique: np.ndarray       # a clique of G (sorted vertex ids)
    upper: int               # min(upper_core, upper_colour)
    upper_core: int          # max core number + 1
    upper_colour: int        # colours used by a greedy colouring
    order: np.ndarray        # a degeneracy order (int32)
    core: np.ndarray         # core numbers (int32)

    @property
    def exact(self) -> bool:
        return self.lower == self.upper

    def as_dict(self) -> dict:
        return {"lower": self.lower, "upper": self.upper, "upper_core": self.upper_core,
                "upper_colour": self.upper_colour}


@numba.njit(cache=True, nogil=True)
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


@numba.njit(cache=True, nogil=True)
def _greedy(indptr, indices, order, core, tail, work_cap):
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


@numba.njit(cache=True, nogil=True)
def _swap_once(indptr, indices, C):
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


@numba.njit(cache=True, nogil=True)
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


def clique_bounds(G: Graph, swap_rounds: int = SWAP_ROUNDS) -> CliqueBounds:
    """Lower and upper bounds on omega (and the clique behind the lower one); see the module doc.
    Kept with G (``mce_kit.prepared``: graphs are immutable) until it is collected or released."""
    if swap_rounds != SWAP_ROUNDS:
        return _clique_bounds(G, swap_rounds)
    from .prepared import kept

    return kept(G, ("clique_bounds",), lambda: _clique_bounds(G, swap_rounds))


def _clique_bounds(G: Graph, swap_rounds: int) -> CliqueBounds:
    indptr, indices = G.indptr, G.indices
    if G.n == 0:
        z = np.zeros(0, np.int32)
        return CliqueBounds(0, z, 0, 0, 0, z, z)
    order, core, tail = peel(indptr, indices)
    upper_core = int(core.max()) + 1
    C = _greedy(indptr, indices, order, core, tail, GREEDY_WORK * (len(indices) + G.n))
    if len(C) == 0:
        C = order[-1:].copy()
    for _ in range(swap_rounds):
        if len(C) >= upper_core:
            break
        D = _swap_once(indptr, indices, C)
        if len(D) == len(C):
            break
        C = D
    upper_colour = upper_core if len(C) >= upper_core else int(greedy_colours(indptr, indices, order))
    C = np.sort(C).astype(np.int32)
    return CliqueBounds(len(C), C, min(upper_core, upper_colour), upper_core, upper_colour, order, core)


def core_subgraph(G: Graph, core: np.ndarray, min_core: int) -> tuple[Graph, np.ndarray]:
    """(the subgraph induced by the vertices with core >= min_core, their ids in G); G itself (and
    every id) when that is all of G. Every clique of size min_core + 1 or more lies in it."""
    ids = np.flatnonzero(core >= min_core).astype(np.int64)
    if len(ids) == G.n:
        return G, ids
    rank = np.full(G.n, -1, dtype=np.int64)
    rank[ids] = np.arange(len(ids))
    e = G.edges()
    e = e[(rank[e[:, 0]] >= 0) & (rank[e[:, 1]] >= 0)]
    H = Graph.from_edges(len(ids), rank[e[:, 0]], rank[e[:, 1]], device="cpu", name=G.name)
    return H, ids


def is_clique(G: Graph, vertices) -> bool:
    """True when ``vertices`` are distinct and pairwise adjacent in G."""
    vs = np.unique(np.asarray(vertices, dtype=np.int64))
    if len(vs) != len(np.asarray(vertices)):
        return False
    return all(np.isin(np.delete(vs, i), G.neighbors(int(v))).all() for i, v in enumerate(vs))
