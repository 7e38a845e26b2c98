"""mce-gpu's sub-tree search, recorded: induced sub-graphs and the compact X.

Seeds are vertices (L1) or edges (L2) of a degeneracy order. Each seed
builds a binary-encoded induced sub-graph over the columns P*:

* ``"IPX"`` (full): rows for P* ∪ X*, so X tests are bit tests and the
  pivot may come from all of P ∪ X;
* ``"IP"`` (partial): rows for P* only; an X* vertex is tested against the
  CSR (a binary search), and the pivot comes from P ∪ X_P only.

X is split in two (mce-gpu Section 3.5):

* ``X_P`` the part of X inside P*: a |P*|-bit mask, one copy per level;
* ``X_X`` the part inside X*: it only ever shrinks on the way down, so one
  array serves all levels. Descending partitions the current level's prefix
  (kept vertices first) and records where it ends in ``lpX[level]``; going
  back up needs nothing.

Each node records ``bits`` = {P, X_P} over the seed's columns and ``extra``
= {X_X: the whole array as it stands, lpX: the level pointers down to it}.
"""

from __future__ import annotations

import math

from ._common import Positions, adjacency, bits, labels, resolve_order, words
from .rdmce import _seeds
from .tree import Grid, SearchTree


def mce_gpu(G, *, seeds: str = "vertex", induced: str = "IPX", order="degeneracy", store_sets: bool = True,
            record_skipped: bool = True) -> SearchTree:
    """Record mce-gpu's search forest of ``G`` (outputs = maximal cliques)."""
    if induced not in ("IP", "IPX"):
        raise ValueError("induced must be 'IP' or 'IPX'")
    order = resolve_order(G, order)
    N = adjacency(G, order)
    pos = Positions(order)
    names = labels(G)
    deg = [m.bit_count() for m in N]
    tree = SearchTree(
        f"mce-gpu-{'L1' if seeds == 'vertex' else 'L2'}-{induced}",
        {"seeds": seeds, "induced": induced, "order": order if isinstance(order, str) else "custom"},
        names={"V": names}, store_sets=store_sets,
    )
    tree.meta["order"] = order.tolist()
    tree.meta["x_words_compact"] = tree.meta["x_words_naive"] = tree.meta["subgraph_words"] = 0
    top = tree.add(-1, kind="forest", depth=0)

    for R0, P0, X0 in _seeds(N, seeds):
        cols = list(bits(P0))
        w = len(cols)
        W = words(w)
        col_of = {v: j for j, v in enumerate(cols)}

        def row(v):
            m = 0
            for u in bits(N[v] & P0):
                m |= 1 << col_of[u]
            return m

        rowP = [row(v) for v in cols]
        xx = list(bits(X0))  # the single X_X array
        rowX = {x: row(x) for x in xx} if induced == "IPX" else None
        lp = [len(xx)]
        sub_rows = w + (len(xx) if induced == "IPX" else 0)
        g = -1
        if store_sets:
            labels_rows = tuple(pos.id(v) for v in cols) + (tuple(pos.id(x) for x in xx) if rowX else ())
            rows = rowP + ([rowX[x] for x in xx] if rowX else [])
            g = tree.add_grid(Grid(labels_rows, tuple(pos.id(v) for v in cols), rows,
                                   title=f"{induced} induced sub-graph"))
        R_ids = pos.ids(R0)
        maxdepth = [0]

        def col_ids(mask):
            return tuple(sorted(pos.id(cols[j]) for j in bits(mask)))

        def adjacent(x, j):
            """Is X* vertex x adjacent to column j? A bit test (IPX) or a CSR search (IP)."""
            return (rowX[x] >> j) & 1 if rowX is not None else (N[x] >> cols[j]) & 1

        def visit(parent, R_b, P_b, XP, level, kind, cost):
            maxdepth[0] = max(maxdepth[0], level)
            XX = xx[: lp[level]]
            R = tuple(sorted(R_ids + col_ids(R_b)))
            sets = bits_ = extra = None
            if store_sets:
                sets = {"R": R, "P": col_ids(P_b), "X": tuple(sorted(col_ids(XP) + tuple(pos.id(x) for x in XX)))}
                bits_ = {"P": P_b, "X_P": XP, "R_b": R_b}
                extra = {"X_X": tuple(pos.id(x) for x in xx), "lpX": tuple(lp[: level + 1])}
            scan = (P_b | XP).bit_count() + (len(XX) if rowX is not None else 0)
            i = tree.add(parent, kind=kind, sets=sets, work=cost + scan * W, grid=g, bits=bits_, extra=extra,
                         cand=P_b.bit_count())
            if not P_b:
                if not XP and not XX:
                    tree.set(i, check=True)
                    tree.emit(i, R)
                else:
                    tree.set(i, status="dead", check=False, reason="P empty, X not: R is not maximal")
                return
            # pivot: P ∪ X_P always, X_X only with the full induced sub-graph
            best, prow, pname = -1, 0, None
            for j in bits(P_b | XP):
                c = (rowP[j] & P_b).bit_count()
                if c > best:
                    best, prow, pname = c, rowP[j], pos.id(cols[j])
            if rowX is not None:
                for x in XX:
                    c = (rowX[x] & P_b).bit_count()
                    if c > best:
                        best, prow, pname = c, rowX[x], pos.id(x)
            branch, skipped = P_b & ~prow, P_b & prow
            tree.set(i, pivot=pname)
            if not branch:
                tree.set(i, status="pruned", reason="every vertex of P is a neighbour of the pivot")
            for j in bits(branch):
                # partition this level's X_X prefix: neighbours of column j first
                cur = xx[: lp[level]]
                keep = [x for x in cur if adjacent(x, j)]
                xx[: lp[level]] = keep + [x for x in cur if not adjacent(x, j)]
                if len(lp) <= level + 1:
                    lp.append(0)
                lp[level + 1] = len(keep)
                lookups = len(cur) * (1 if rowX is not None else max(1, math.ceil(math.log2(deg[cols[j]] + 1))))
                visit(i, R_b | (1 << j), P_b & rowP[j], XP & rowP[j], level + 1, "node", lookups)
                P_b &= ~(1 << j)
                XP |= 1 << j
            if record_skipped:
                pv = names[pname] if pname is not None else ""
                for j in bits(skipped):
                    tree.skip(i, f"neighbour of pivot {pv}", note=names[pos.id(cols[j])])

        visit(top, 0, (1 << w) - 1, 0, 0, "seed", sub_rows * W)
        levels = maxdepth[0] + 1
        meta = tree.meta
        meta["x_words_compact"] = max(meta["x_words_compact"], len(xx) + levels * W)
        meta["x_words_naive"] = max(meta["x_words_naive"], levels * (len(xx) + w))
        meta["subgraph_words"] = max(meta["subgraph_words"], sub_rows * W)
    return tree
