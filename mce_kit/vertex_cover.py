"""Maximum cliques of dense graphs through the sparse complement: omega = n - (minimum vertex cover
of the complement) = the largest independent set of the complement (Numba, one thread).

    size, clique = complement_clique(G, above=lower)   # a clique larger than ``above``, or (above, None)
    use_complement(G)                                   # the measured density rule (DENSITY)
    omega, clique = omega_above_bounds(G, bounds)       # both devices' entry: None where not taken

A clique of G is an independent set of its complement H, sparse where G is dense (MANN_a27: 702
edges against 70,551). Branch and reduce on H, the alive vertices a bitset and their degrees kept
up to date (removals go on a trail and are undone in reverse):

- reductions, each keeping some largest independent set: a vertex of degree 0 is taken; a
  simplicial vertex (its alive neighbours pairwise adjacent, degree 1 included) is taken and its
  neighbours removed; a neighbour u of v with N[v] within N[u] (u dominates v) is removed;
- bound: a greedy cover of the alive vertices by cliques of H (an independent set takes at most one
  vertex of each), so taken + cliques <= the best size prunes;
- branch on a vertex of largest degree: take it (its neighbours go), then remove it.

Only larger sets than ``above`` are sought, so the first bound that fails prunes a branch. A search
past ``node_cap`` branch nodes gives up (``None``): the caller then runs its usual search.
"""

from __future__ import annotations

import numpy as np

from .bounds import CliqueBounds, core_subgraph
from .graph import Graph
from .jit import njit

DENSITY = 0.98          # the route is taken from this density (maxclique_density.csv: measured rule)
MAX_N = 1 << 13         # and at most this many vertices (the complement is built as a bitset)
NODE_CAP = 1 << 17      # branch nodes before the route gives up (about a second; MANN_a27 needs 16,223)


def complement(G: Graph):
    """(indptr, indices, bit rows) of the complement of G, without self-loops."""
    n, W = G.n, max(1, (G.n + 63) >> 6)
    A = np.ones((n, n), dtype=bool)
    np.fill_diagonal(A, False)
    src = np.repeat(np.arange(n), np.diff(G.indptr))
    A[src, G.indices] = False
    deg = A.sum(axis=1)
    indptr = np.concatenate([[0], np.cumsum(deg)]).astype(np.int64)
    indices = np.nonzero(A)[1].astype(np.int32)
    padded = np.zeros((n, W * 64), dtype=bool)
    padded[:, :n] = A
    bits = np.packbits(padded.reshape(n, W, 64)[:, :, ::-1], axis=2, bitorder="big")
    rows = bits.reshape(n, W, 8).view(">u8").reshape(n, W).astype(np.uint64)
    return indptr, indices, rows


@njit(nogil=True, inline="always")
def _adjacent(bits, a, b):
    return (bits[a, b >> 6] >> np.uint64(b & 63)) & np.uint64(1)


@njit(nogil=True)
def _remove(v, alive, deg, indptr, indices, trail, tl, queue, qn, inq):
    """v leaves the graph (on the trail); its alive neighbours' degrees fall and they are queued."""
    alive[v] = False
    trail[tl] = v
    tl += 1
    for j in range(indptr[v], indptr[v + 1]):
        u = indices[j]
        if alive[u]:
            deg[u] -= 1
            if not inq[u]:
                inq[u] = True
                queue[qn] = u
                qn += 1
    return tl, qn


@njit(nogil=True)
def _take(v, alive, deg, indptr, indices, trail, tl, taken, tk, queue, qn, inq):
    taken[tk] = v
    tk += 1
    for j in range(indptr[v], indptr[v + 1]):
        u = indices[j]
        if alive[u]:
            tl, qn = _remove(u, alive, deg, indptr, indices, trail, tl, queue, qn, inq)
    tl, qn = _remove(v, alive, deg, indptr, indices, trail, tl, queue, qn, inq)
    return tl, tk, qn


@njit(nogil=True)
def _reduce(alive, deg, indptr, indices, bits, trail, tl, taken, tk, queue, qn, inq):
    """Apply the reductions to the queued vertices until none applies; (trail, taken) lengths."""
    while qn > 0:
        qn -= 1
        v = queue[qn]
        inq[v] = False
        if not alive[v]:
            continue
        simplicial = True
        for j in range(indptr[v], indptr[v + 1]):
            a = indices[j]
            if not alive[a]:
                continue
            for k in range(j + 1, indptr[v + 1]):
                b = indices[k]
                if alive[b] and not _adjacent(bits, a, b):
                    simplicial = False
                    break
            if not simplicial:
                break
        if simplicial:
            tl, tk, qn = _take(v, alive, deg, indptr, indices, trail, tl, taken, tk, queue, qn, inq)
            continue
        for j in range(indptr[v], indptr[v + 1]):  # a neighbour u whose N[u] holds N[v] goes
            u = indices[j]
            if not alive[u] or deg[u] < deg[v]:
                continue
            dominates = True
            for k in range(indptr[v], indptr[v + 1]):
                w = indices[k]
                if w != u and alive[w] and not _adjacent(bits, u, w):
                    dominates = False
                    break
            if dominates:
                tl, qn = _remove(u, alive, deg, indptr, indices, trail, tl, queue, qn, inq)
                if not inq[v]:
                    inq[v] = True
                    queue[qn] = v
                    qn += 1
                break
    return tl, tk


@njit(nogil=True)
def _undo(mark, alive, deg, indptr, indices, trail, tl):
    while tl > mark:
        tl -= 1
        v = trail[tl]
        alive[v] = True
        for j in range(indptr[v], indptr[v + 1]):
            u = indices[j]
            if alive[u] and u != v:
                deg[u] += 1
    return tl


@njit(nogil=True)
def _clique_cover(alive, indptr, indices, bits, covered, members):
    """Cliques in a greedy cover of the alive vertices (each grown from its lowest uncovered vertex)."""
    n = len(alive)
    for v in range(n):
        covered[v] = not alive[v]
    cliques = 0
    for v in range(n):
        if covered[v]:
            continue
        cliques += 1
        covered[v] = True
        members[0] = v
        size = 1
        for j in range(indptr[v], indptr[v + 1]):
            u = indices[j]
            if covered[u]:
                continue
            ok = True
            for t in range(1, size):
                if not _adjacent(bits, u, members[t]):
                    ok = False
                    break
            if ok:
                covered[u] = True
                members[size] = u
                size += 1
    return cliques


@njit(nogil=True)
def largest_independent_set(indptr, indices, bits, above, node_cap):
    """(size, set, nodes, finished): an independent set larger than ``above`` of the largest size,
    or (above, empty) when there is none; ``finished`` False when ``node_cap`` nodes ran out."""
    n = len(indptr) - 1
    alive = np.ones(n, np.bool_)
    deg = np.empty(n, np.int64)
    for v in range(n):
        deg[v] = indptr[v + 1] - indptr[v]
    trail = np.empty(n, np.int64)
    taken = np.empty(n, np.int64)
    queue = np.empty(n + 1, np.int64)
    inq = np.zeros(n, np.bool_)
    covered = np.zeros(n, np.bool_)
    members = np.empty(n + 1, np.int64)
    f_trail = np.empty(n + 1, np.int64)
    f_taken = np.empty(n + 1, np.int64)
    f_v = np.empty(n + 1, np.int64)
    f_stage = np.empty(n + 1, np.int64)
    best = above
    best_set = np.empty(0, np.int64)
    tl, tk, qn = 0, 0, 0
    for v in range(n):
        inq[v] = True
        queue[qn] = v
        qn += 1
    tl, tk = _reduce(alive, deg, indptr, indices, bits, trail, tl, taken, tk, queue, 0 + qn, inq)
    nodes = 0
    depth = 0
    f_stage[0] = 0
    while depth >= 0:
        stage = f_stage[depth]
        if stage == 0:  # a new node: leaf, bound, or pick the branching vertex
            nodes += 1
            if nodes > node_cap:
                return best, best_set, nodes, False
            v = -1
            for u in range(n):
                if alive[u] and (v < 0 or deg[u] > deg[v]):
                    v = u
            if v < 0:
                if tk > best:
                    best = tk
                    best_set = taken[:tk].copy()
                depth -= 1
                continue
            if tk + _clique_cover(alive, indptr, indices, bits, covered, members) <= best:
                depth -= 1
                continue
            f_trail[depth], f_taken[depth], f_v[depth] = tl, tk, v
            f_stage[depth] = 1
            tl, tk, qn = _take(v, alive, deg, indptr, indices, trail, tl, taken, tk, queue, 0, inq)
            tl, tk = _reduce(alive, deg, indptr, indices, bits, trail, tl, taken, tk, queue, qn, inq)
            depth += 1
            f_stage[depth] = 0
        elif stage == 1:  # back from taking v: now leave v out
            tl = _undo(f_trail[depth], alive, deg, indptr, indices, trail, tl)
            tk = f_taken[depth]
            f_stage[depth] = 2
            tl, qn = _remove(f_v[depth], alive, deg, indptr, indices, trail, tl, queue, 0, inq)
            tl, tk = _reduce(alive, deg, indptr, indices, bits, trail, tl, taken, tk, queue, qn, inq)
            depth += 1
            f_stage[depth] = 0
        else:
            tl = _undo(f_trail[depth], alive, deg, indptr, indices, trail, tl)
            tk = f_taken[depth]
            depth -= 1
    return best, best_set, nodes, True


def use_complement(G: Graph) -> bool:
    """The density rule: dense enough, and small enough for the complement's bit rows."""
    return 1 < G.n <= MAX_N and 2 * G.m >= DENSITY * G.n * (G.n - 1)


def complement_clique(G: Graph, above: int = 0, node_cap: int | None = None):
    """(size, clique as sorted ids of G) for the largest clique larger than ``above``; (above, None)
    where no clique is larger; None where the search passed ``node_cap`` (NODE_CAP) branch nodes."""
    indptr, indices, bits = complement(G)
    cap = NODE_CAP if node_cap is None else node_cap
    size, members, _, finished = largest_independent_set(indptr, indices, bits, int(above), int(cap))
    if not finished:
        return None
    if len(members) == 0:
        return int(above), None
    return int(size), np.sort(members).astype(np.int32)


def omega_above_bounds(G: Graph, b: CliqueBounds):
    """(omega, a maximum clique as sorted ids of G) through the complement of the part of G that can
    hold a clique larger than the bounds' (core >= lower), where the density rule takes it; else None
    (the bounds meet already, the part is too sparse or too large, or the search gave up)."""
    if b.exact or G.n == 0:
        return None
    k = int(np.count_nonzero(b.core >= b.lower))
    if k > MAX_N or 2 * G.m < DENSITY * k * (k - 1):  # the part cannot be dense enough: not built
        return None
    H, ids = core_subgraph(G, b.core, b.lower)
    if not use_complement(H):
        return None
    found = complement_clique(H, above=b.lower)
    if found is None:
        return None
    size, clique = found
    if clique is None:
        return b.lower, b.clique
    return size, np.sort(ids[clique]).astype(np.int32)
