"""k-clique counts for every k at once, without listing: pivoting (Pivoter's succinct clique tree).

Vertices are ordered (degeneracy); each clique is counted from its earliest
vertex v, inside the sub-graph of v's later neighbours (undirected adjacency
within it, as bitsets). A tree node (P, h, p) stands for the cliques
"h held vertices + any subset of p pivot vertices + a clique of P". Choose a
pivot u in P with the most neighbours in P; the children are u itself (as a
pivot: p + 1, candidates P & N(u)) and every w in P \\ N(u), w != u (held:
h + 1, candidates P & N(w) minus the branches already taken). Every clique
lies under exactly one leaf (P empty), and a leaf (h, p) holds C(p, j)
cliques of size h + j. So a run only counts leaves per (h, p); the binomial
weighting happens once, in exact Python ints (``combine_leaves``).

With ``k_max``, a branch whose held vertices reach k_max stops at once:
it holds exactly one clique of size <= k_max (the held set itself).
"""

from __future__ import annotations

import functools
from collections import Counter
from math import comb

import numpy as np

from ..graph import positions
from ..order import degeneracy_order
from ._bits import Progress, bits, local_masks, masks_within


def combine_leaves(leaves: dict[tuple[int, int], int], n: int, m: int, k_max: int | None) -> dict[int, int]:
    """{k: count} from leaf counts {(h, p): leaves}; k = 1, 2 are n and m."""
    def add(counts: dict, K: int) -> None:
        for (h, p), c in leaves.items():
            for k in range(max(3, h), min(K, h + p) + 1):
                counts[k] += int(c) * comb(p, k - h)

    return _counts(max((h + p for h, p in leaves), default=2), n, m, k_max, add)


def _counts(top: int, n: int, m: int, k_max: int | None, add) -> dict[int, int]:
    """{k: count} for k = 1..K (K: k_max, else ``top``, the deepest leaf's h + p): n and m, then
    ``add(counts, K)`` adds the leaves' cliques of 3 or more; with no k_max, the zeros past the
    clique number are dropped."""
    K = top if k_max is None else int(k_max)
    counts = {k: 0 for k in range(1, K + 1)}
    if K >= 1:
        counts[1] = n
    if K >= 2:
        counts[2] = m
    add(counts, K)
    if k_max is None:
        while len(counts) > 2 and counts[max(counts)] == 0:
            del counts[max(counts)]
    return counts


def combine_leaf_table(leaves: np.ndarray, n: int, m: int, k_max: int | None) -> dict[int, int]:
    """``combine_leaves`` of a dense table ``leaves[h, p]`` (non-negative; what the GPU kernel and the
    CPU engine count into), in far fewer steps: count k is the sum over cells of
    leaves[h, p] * C(p, k - h). Where every such sum stays below 2^62 (the bound: the sum of
    leaves[h, p] * 2^p) it is one int64 product of the table with a kept table of C(p, k - h)
    (``_diagonal_binomials``; about ten NumPy steps, since a warm GPU call waits on them); otherwise
    Horner's rule in (1 + x) on exact Python ints, the coefficients of the polynomial sum over p of
    B_p(x) (1 + x)^p with B_p(x) = sum over h of leaves[h, p] x^h (ego-Facebook's 72 x 70 cells:
    ~1 ms, where the cell-by-cell sum took ~35 ms)."""
    leaves = np.asarray(leaves)
    top = 2   # the deepest leaf's h + p, needed only without k_max
    if k_max is None:
        h_idx, p_idx = np.nonzero(leaves)
        top = int((h_idx + p_idx).max()) if len(h_idx) else 2

    def add(counts: dict, K: int) -> None:
        table = leaves[: min(leaves.shape[0], K + 1)]
        if K < 3 or not table.size:
            return
        P = min(table.shape[1], _INT64_P)
        head = table[:, :P]
        if not table[:, P:].any() and float(head.sum(axis=0, dtype=np.float64) @ _powers(P)) < 2.0**62:
            held = np.flatnonzero(head.any(axis=1))
            H = int(held[-1]) + 1 if len(held) else 1
            J = min(K, H + P - 2)   # no leaf holds a clique past h + p
            poly = (head[:H].reshape(-1) @ _diagonal_binomials(H, P, J)).tolist()
            poly += [0] * (K + 1 - len(poly))
        else:
            poly = [0] * (K + 1)
            for column in reversed(table.T.tolist()):   # exact Python ints
                for k in range(K, 0, -1):          # times (1 + x), kept to degree K
                    poly[k] += poly[k - 1]
                for h, c in enumerate(column):
                    if c:
                        poly[h] += c
        for k in range(3, K + 1):
            counts[k] = poly[k]

    return _counts(top, n, m, k_max, add)


_INT64_P = 63   # C(p, j) < 2^63 for p < 63


@functools.cache
def _powers(P: int) -> np.ndarray:
    return np.ldexp(1.0, np.arange(P))   # 2^p, the most C(p, j) can be


@functools.lru_cache(maxsize=8)   # (H x P x (H + P - 1) words: 0.1 MB for 11 x 44, 13 MB for 130 x 63)
def _diagonal_binomials(H: int, P: int, K: int) -> np.ndarray:
    """T[h * P + p, k] = C(p, k - h) (0 for k < h), k <= K, p < P <= 63: a table of H rows times T
    is the count of each k (int64, read-only)."""
    B = _binomials(P, K)
    T = np.zeros((H, P, K + 1), np.int64)
    for h in range(min(H, K + 1)):
        T[h, :, h:] = B[:, : K + 1 - h]
    T = T.reshape(H * P, K + 1)
    T.flags.writeable = False
    return T


@functools.cache
def _binomials(P: int, J: int) -> np.ndarray:
    """C(p, j) for p < P, j <= J as int64 (P <= 63: C(62, 31) < 2^63)."""
    return np.array([[comb(p, j) for j in range(J + 1)] for p in range(P)], dtype=np.int64)


def _sct(adj: list[int], P: int, h: int, k_max: int, leaves: Counter) -> None:
    """Count the leaves of the succinct clique tree below (P, h, p=0) into ``leaves``."""
    stack = [(P, h, 0)]
    while stack:
        P, h, p = stack.pop()
        if not P:
            leaves[h, p] += 1
            continue
        best, u = -1, -1
        for x in bits(P):
            c = (P & adj[x]).bit_count()
            if c > best:
                best, u = c, x
        rest = P
        for w in bits(P & ~adj[u]):
            child = rest & adj[w]
            rest &= ~(1 << w)
            if w == u:
                stack.append((child, h, p + 1))
            elif h + 1 >= k_max:
                leaves[h + 1, 0] += 1  # the held set alone; any larger clique exceeds k_max
            else:
                stack.append((child, h + 1, p))


def clique_counts(G, k_max: int | None = None, *, progress: Progress = None) -> dict[int, int]:
    """{k: number of k-cliques} for k = 1..k_max (None: up to the clique number)."""
    if k_max is not None and int(k_max) < 1:
        raise ValueError(f"k_max must be >= 1, got {k_max}")
    K = 1 << 30 if k_max is None else int(k_max)
    leaves: Counter = Counter()
    if K >= 3:
        order = degeneracy_order(G)
        rank = positions(order)
        pos = np.full(G.n, -1, dtype=np.int64)
        for v in order if progress is None else progress(order):
            N = G.neighbors(v)
            S = N[rank[N] > rank[v]]
            if len(S) == 0:
                continue
            adj = local_masks(G, S, pos)
            _sct(adj, (1 << len(S)) - 1, 1, K, leaves)
    leaves.pop((1, 0), None)  # the root alone (isolated in its later neighbourhood)
    return combine_leaves(dict(leaves), G.n, G.m, k_max)


def counts_from_edge_tasks(indptr, indices, out_ptr, out_idx, u, v, k_max: int) -> dict[int, int]:
    """{k: count} for 3 <= k <= k_max of the cliques whose two earliest vertices are the oriented
    edge (u[i], v[i]) (ids follow the order; ``indptr``/``indices`` all neighbours, ``out_*`` the
    later ones). Disjoint edge sets add up: the GPU counter's edge tasks, split over workers."""
    K = int(k_max)
    leaves: Counter = Counter()
    pos = np.full(len(indptr) - 1, -1, dtype=np.int64)
    for a, b in zip(np.asarray(u).tolist(), np.asarray(v).tolist(), strict=True):
        S = np.intersect1d(out_idx[out_ptr[a]:out_ptr[a + 1]], out_idx[out_ptr[b]:out_ptr[b + 1]],
                           assume_unique=True)
        if len(S) == 0 or K <= 2:
            leaves[2, 0] += 1
            continue
        _sct(masks_within(indptr, indices, S, pos), (1 << len(S)) - 1, 2, K, leaves)
    return {k: c for k, c in combine_leaves(dict(leaves), 0, 0, K).items() if k >= 3}
