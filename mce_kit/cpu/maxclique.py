"""All maximum cliques: branch and bound with a greedy colouring bound.

Roots follow a degeneracy order: the cliques whose earliest vertex is v lie
in {v} ∪ later neighbours of v. Inside a root the search is Tomita's MCQ on
bitsets: colour the candidates greedily (a clique uses each colour at most
once), then branch on the highest colours first and drop every branch whose
bound |R| + colour cannot beat the best size so far.

To find *every* maximum clique (as Geil et al. do), a second pass keeps the
branches that can tie omega. Keeping ties from the start would record every
clique of each interim best size, which can be millions. Some instances
have millions of maximum cliques (MANN_a27): the list is then large.
"""

from __future__ import annotations

import numpy as np

from ..graph import positions
from ..order import degeneracy_order
from ._bits import Progress, local_masks


def colour_order(adj: list[int], P: int) -> list[tuple[int, int]]:
    """Greedy colouring of P: (vertex, colour) pairs with colours ascending."""
    out = []
    uncoloured, colour = P, 0
    while uncoloured:
        colour += 1
        Q = uncoloured
        while Q:  # one colour class: an independent set taken greedily
            low = Q & -Q
            i = low.bit_length() - 1
            uncoloured ^= low
            Q &= ~adj[i] & ~low
            out.append((i, colour))
    return out


def _greedy_clique(G, order: np.ndarray) -> int:
    """Size of a clique grown greedily from the last vertex of the order."""
    rank = positions(order)
    v = int(order[-1])
    clique, cand = [v], set(G.neighbors(v).tolist())
    while cand:
        w = max(cand, key=lambda u: rank[u])
        clique.append(w)
        cand &= set(G.neighbors(w).tolist())
    return len(clique)


def _branch_and_bound(G, order, best: int, ties: bool, progress: Progress):
    """Search for cliques larger than ``best`` (with ``ties``: at least as large).

    Returns (largest size seen or ``best``, the cliques of that size found)."""
    rank = positions(order)
    pos = np.full(G.n, -1, dtype=np.int64)
    slack = 0 if ties else 1  # a branch must reach best + slack to be worth it
    found: list[list[int]] = []
    roots = order[::-1]  # dense cores first: a good bound early
    for v in roots if progress is None else progress(roots):
        N = G.neighbors(v)
        S = N[rank[N] > rank[v]]
        if len(S) + 1 < best + slack:
            continue
        # colour high-degree vertices first (as MCQ does): tighter bounds
        deg = [m.bit_count() for m in local_masks(G, S, pos)]
        S = S[np.argsort(deg, kind="stable")[::-1]]
        adj = local_masks(G, S, pos)
        ids = S.tolist()
        stack = [((), (1 << len(S)) - 1, len(S) + 1)]  # (R without v, candidates, bound)
        while stack:
            R, P, bound = stack.pop()
            r = len(R) + 1
            if bound < best + slack:
                continue
            if not P:
                if r > best:
                    best, found = r, []
                found.append(sorted([int(v), *(ids[i] for i in R)]))
                continue
            # child i may use the vertices coloured before it, so its cliques
            # have at most r + colour(i) vertices; the highest colour pops first
            before = 0
            for i, colour in colour_order(adj, P):
                if r + colour >= best + slack:
                    stack.append(((*R, i), before & adj[i], r + colour))
                before |= 1 << i
    return best, found


def max_cliques(G, *, progress: Progress = None) -> tuple[int, list[list[int]]]:
    """(omega, every clique of size omega): cliques sorted, each ascending.

    Two passes: strict pruning finds omega, then a search that keeps ties
    lists the cliques of size omega (and nothing smaller)."""
    if G.n == 0:
        return 0, []
    order = degeneracy_order(G)
    omega, _ = _branch_and_bound(G, order, _greedy_clique(G, order), False, progress)
    _, cliques = _branch_and_bound(G, order, omega, True, progress)
    return omega, sorted(cliques)


def clique_number(G, *, progress: Progress = None) -> int:
    """Size of a maximum clique (0 for the empty graph)."""
    if G.n == 0:
        return 0
    order = degeneracy_order(G)
    return _branch_and_bound(G, order, _greedy_clique(G, order), False, progress)[0]
