"""Maximal clique enumeration: Bron–Kerbosch with Tomita pivoting over a
degeneracy order (Eppstein, Löffler and Strash 2010).

Each vertex v is a root: R = {v}, P = neighbours later in the order, X =
neighbours earlier. Every maximal clique is found from exactly one root, its
earliest vertex. Inside a root the search runs on Python-int bitsets over
N(v) and an explicit stack, so there is no recursion limit.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..graph import positions
from ..order import degeneracy_order
from ._bits import Progress, local_masks


def _roots(G, progress: Progress = None):
    """Yield (v, S, adj, P, X): S = N(v) as local ids, later neighbours first."""
    order = degeneracy_order(G)
    rank = positions(order)
    pos = np.full(G.n, -1, dtype=np.int64)
    for v in order if progress is None else progress(order):
        N = G.neighbors(v)
        later = rank[N] > rank[v]
        S = np.concatenate([N[later], N[~later]])
        P = (1 << int(later.sum())) - 1
        X = ((1 << len(S)) - 1) ^ P
        yield int(v), S, local_masks(G, S, pos), P, X


def _branches(adj: list[int], P: int, X: int) -> int:
    """Tomita's rule: P minus N(u) for the u in P ∪ X with most neighbours in P."""
    size = P.bit_count()
    best, pivot = -1, 0
    Q = P | X
    while Q:
        low = Q & -Q
        Q ^= low
        Nu = adj[low.bit_length() - 1]
        c = (P & Nu).bit_count()
        if c > best:
            best, pivot = c, Nu
            if c >= size - 1:  # at most one branch left: good enough
                break
    return P & ~pivot


def _histogram_at(adj: list[int], P: int, X: int, lo: int, hi: int, hist: list[int]) -> None:
    """Add to hist[s] the maximal cliques of size s (lo <= s <= hi) below root (P, X)."""
    stack = [(P, X, 1)]
    while stack:
        P, X, r = stack.pop()
        if not P:
            if not X and r >= lo:
                hist[r] += 1
            continue
        if r >= hi or r + P.bit_count() < lo:
            continue
        C = _branches(adj, P, X)
        while C:
            low = C & -C
            C ^= low
            Nw = adj[low.bit_length() - 1]
            stack.append((P & Nw, X & Nw, r + 1))
            P ^= low
            X |= low


def _cliques_at(adj: list[int], P: int, X: int, lo: int, hi: int) -> Iterator[tuple[int, ...]]:
    """Local ids of the maximal cliques below root (P, X), without the root."""
    stack = [(P, X, ())]
    while stack:
        P, X, R = stack.pop()
        r = len(R) + 1
        if not P:
            if not X and r >= lo:
                yield R
            continue
        if r >= hi or r + P.bit_count() < lo:
            continue
        C = _branches(adj, P, X)
        while C:
            low = C & -C
            C ^= low
            w = low.bit_length() - 1
            stack.append((P & adj[w], X & adj[w], (*R, w)))
            P ^= low
            X |= low


def _bounds(min_size: int | None, max_size: int | None) -> tuple[int, int]:
    lo = 1 if min_size is None else max(int(min_size), 1)
    hi = 2**62 if max_size is None else int(max_size)
    return lo, hi


def maximal_cliques(
    G, *, min_size: int | None = None, max_size: int | None = None, progress: Progress = None
) -> Iterator[list[int]]:
    """Yield every maximal clique of G (as a list of vertex ids) whose size lies
    in [min_size, max_size]. ``progress`` may wrap the iterable of roots (e.g. tqdm)."""
    lo, hi = _bounds(min_size, max_size)
    for v, S, adj, P, X in _roots(G, progress):
        ids = S.tolist()
        for R in _cliques_at(adj, P, X, lo, hi):
            yield [v, *(ids[i] for i in R)]


def clique_size_histogram(
    G, *, min_size: int | None = None, max_size: int | None = None, progress: Progress = None
) -> dict[int, int]:
    """{size: number of maximal cliques of that size}, sizes ascending, zeros left out."""
    lo, hi = _bounds(min_size, max_size)
    hist = [0] * (int(G.degrees().max(initial=0)) + 2)
    for _, _, adj, P, X in _roots(G, progress):
        _histogram_at(adj, P, X, lo, hi, hist)
    return {s: c for s, c in enumerate(hist) if c}


def count_maximal_cliques(
    G, *, min_size: int | None = None, max_size: int | None = None, progress: Progress = None
) -> int:
    """Number of maximal cliques with size in [min_size, max_size]; lists nothing."""
    hist = clique_size_histogram(G, min_size=min_size, max_size=max_size, progress=progress)
    return sum(hist.values())


def count_from_seeds(indptr: np.ndarray, indices: np.ndarray, u, v) -> int:
    """Maximal cliques found from the seeds (u[i], v[i]) of a graph whose vertex ids are its
    degeneracy ranks. An edge seed u < v: R = {u, v}, P = common neighbours after v, X = those
    before. A vertex seed (v[i] = -1): R = {u}, P = its later neighbours, X = its earlier ones.

    Every maximal clique of two or more vertices comes from exactly one edge seed (its two
    earliest vertices) and from exactly one vertex seed (its earliest vertex), so the counts of
    disjoint seed sets add up (how RDMCE, mce-gpu and ``mce_kit.distributed`` split the work).
    """
    from ..graph import Graph

    H = Graph(indptr, indices)
    pos = np.full(H.n, -1, dtype=np.int64)
    total = 0
    for a, b in zip(np.asarray(u).tolist(), np.asarray(v).tolist(), strict=True):
        if b < 0:
            S, b = H.neighbors(a), a
        else:
            S = np.intersect1d(H.neighbors(a), H.neighbors(b), assume_unique=True)
        later = S > b
        S = np.concatenate([S[later], S[~later]])
        P = (1 << int(later.sum())) - 1
        X = ((1 << len(S)) - 1) ^ P
        hist = [0] * (len(S) + 3)
        _histogram_at(local_masks(H, S, pos), P, X, 1, 2**62, hist)
        total += sum(hist)
    return total


def count_from_edge_seeds(indptr: np.ndarray, indices: np.ndarray, u, v) -> int:
    """Maximal cliques found from the edge seeds (u[i], v[i]), u < v (see ``count_from_seeds``)."""
    if len(v) and np.min(v) < 0:
        raise ValueError("count_from_edge_seeds: v holds -1 (vertex seeds); use count_from_seeds")
    return count_from_seeds(indptr, indices, u, v)
