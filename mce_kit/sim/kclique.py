"""KCMiner's k-clique search tree with a density-chosen bitmap level, recorded.

The graph is oriented from lower to higher (degree, id), so every k-clique
is listed once, from its earliest vertex. A node is (R, P): a clique R and
its common out-neighbours P. At |R| = k it outputs R; it is cut when even
all of P cannot complete R to k vertices.

Dynamic bitmap construction (KCMiner Algorithm 4): until a bitmap exists on
the path, each node measures the density its sub-graph would have,
gamma = (# edges inside P, oriented) / |P|^2, and builds the |P| x |P| grid
only when gamma > lambda(level). Below that node an intersection is a
bitwise AND of ceil(|P|/32) words; above it, a sorted-list merge.

Seeds are edges (KCMiner's task unit) or vertices.
"""

from __future__ import annotations

from collections.abc import Callable

from ._common import Positions, adjacency, bits, labels, resolve_order, words
from .tree import Grid, SearchTree


def kcminer(G, k: int, *, seeds: str = "edge", lam: float | Callable[[int], float] = 0.25,
            order="degree", store_sets: bool = True) -> SearchTree:
    """Record the k-clique search forest of ``G`` (outputs = all k-cliques).

    lam: the density threshold lambda, a number or a function of the level
    (|R|); use ``lam=0`` to build at the first level, ``lam=1`` for never.
    """
    k = int(k)
    if k < 1:
        raise ValueError("k must be >= 1")
    threshold = lam if callable(lam) else (lambda level: lam)
    order = resolve_order(G, order)
    N = adjacency(G, order)
    n = len(N)
    out = [N[i] >> (i + 1) << (i + 1) for i in range(n)]  # oriented: later positions only
    pos = Positions(order)
    names = labels(G)
    params = {"k": k, "seeds": seeds, "lam": lam if not callable(lam) else "custom"}
    tree = SearchTree(f"kcminer-k{k}", params, names={"V": names}, store_sets=store_sets)
    tree.meta["order"] = order.tolist()
    tree.meta["bitmap_levels"] = {}
    top = tree.add(-1, kind="forest", depth=0)

    def visit(parent, R, P, kind, bm):
        level = R.bit_count()
        sets = {"R": pos.ids(R), "P": pos.ids(P)} if store_sets else None
        i = tree.add(parent, kind=kind, sets=sets, grid=bm[0] if bm else -1, cand=P.bit_count())
        if level == k:
            tree.emit(i, pos.ids(R))
            return
        if level + P.bit_count() < k:
            tree.set(i, status="pruned", reason=f"|R| + |P| < k = {k}")
            return
        note = None
        if bm is None:
            size = P.bit_count()
            edges = sum((out[v] & P).bit_count() for v in bits(P))
            gamma = edges / size**2 if size else 0.0
            tree.set(i, extra={"gamma": round(gamma, 4), "lambda": threshold(level)})
            if gamma > threshold(level):
                cols = list(bits(P))
                col = {v: j for j, v in enumerate(cols)}
                g = -1
                if store_sets:
                    rows = [sum(1 << col[u] for u in bits(out[v] & P)) for v in cols]
                    ids = tuple(pos.id(v) for v in cols)
                    g = tree.add_grid(Grid(ids, ids, rows, title=f"bitmap built at level {level}"))
                bm = (g, len(cols))
                tree.set(i, grid=g)
                note = f"density {gamma:.2f} > lambda: bitmap built here"
                lv = tree.meta["bitmap_levels"]
                lv[level] = lv.get(level, 0) + 1
        # one intersection per child: a list merge, or an AND of bitmap words
        cost = sum((words(bm[1]) if bm else P.bit_count() + out[v].bit_count()) for v in bits(P))
        tree.set(i, work=1 + cost, note=note, extra={"mode": "bitmap" if bm else "list"})
        for v in bits(P):
            visit(i, R | (1 << v), P & out[v], "node", bm)

    for i in range(n):
        if seeds == "vertex" or k == 1:
            visit(top, 1 << i, out[i], "seed", None)
        elif seeds == "edge":
            for j in bits(out[i]):
                visit(top, (1 << i) | (1 << j), out[i] & out[j], "seed", None)
        else:
            raise ValueError("seeds must be 'edge' or 'vertex'")
    return tree
