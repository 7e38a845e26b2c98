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

``worker_list`` runs simulated thread blocks over that forest (mce-gpu
Section 3.3): blocks take sub-trees from a shared counter; once they are
gone, a block that runs dry joins the worker list, and a busy block about to
enter a branch with |P| >= ``min_donate`` that still has other branches at
this level and at an earlier one donates that branch to the first block in
the list. ``SimResult.steps(tree)`` lists who took, joined and donated what,
when.
"""

from __future__ import annotations

import math

from ._common import Positions, adjacency, bits, labels, resolve_order, words
from .rdmce import _seeds
from .tree import Grid, SearchTree
from .workers import Costs, SimResult, simulate


def mce_gpu(G, *, seeds: str = "vertex", induced: str = "IPX", order="degeneracy", store_sets: bool = True,
            record_skipped: bool = True) -> SearchTree:
    """Record mce-gpu's search forest of ``G`` (outputs = maximal cliques)."""
    if induced not in ("IP", "IPX"):
        raise ValueError("induced must be 'IP' or 'IPX'")
    order = resolve_order(G, order)
    N = adjacency(G, order)
    tree = SearchTree(
        f"mce-gpu-{'L1' if seeds == 'vertex' else 'L2'}-{induced}",
        {"seeds": seeds, "induced": induced, "order": order if isinstance(order, str) else "custom"},
        names={"V": labels(G)}, store_sets=store_sets,
    )
    tree.meta["order"] = order.tolist()
    tree.meta["x_words_compact"] = tree.meta["x_words_naive"] = tree.meta["subgraph_words"] = 0
    top = tree.add(-1, kind="forest", depth=0)
    pos = Positions(order)
    for R0, P0, X0 in _seeds(N, seeds):
        _Seed(tree, N, pos, induced, record_skipped, R0, P0, X0).run(top)
    return tree


PAPER_MIN_DONATE = 10  # mce-gpu Section 3.3: a branch is donated only if its |P| >= 10


def worker_list(G, p: int = 8, *, min_donate: int = PAPER_MIN_DONATE, enabled: bool = True,
                costs: Costs | None = None, **tree_options) -> tuple[SearchTree, SimResult]:
    """mce-gpu's search forest of ``G`` and ``p`` simulated blocks sharing it, with the worker list
    (``enabled``) or without (each block keeps every sub-tree it takes). ``min_donate``: the smallest
    |P| donated (the paper's rule: 10). ``tree_options`` go to :func:`mce_gpu`.
    """
    tree = mce_gpu(G, **tree_options)
    return tree, simulate(tree, "worklist" if enabled else "static", p, min_donate=min_donate, costs=costs)


class _Seed:
    """One block's sub-tree: the induced sub-graph, X_P per level and the shared X_X array."""

    def __init__(self, tree, N, pos, induced, record_skipped, R0, P0, X0):
        self.t, self.N, self.pos, self.record_skipped = tree, N, pos, record_skipped
        self.names = tree.names["V"]
        self.cols = cols = list(bits(P0))
        self.W = words(len(cols))
        col_of = {v: j for j, v in enumerate(cols)}

        def row(v):
            return sum(1 << col_of[u] for u in bits(N[v] & P0))

        self.rowP = [row(v) for v in cols]
        self.xx = list(bits(X0))  # the single X_X array
        self.rowX = {x: row(x) for x in self.xx} if induced == "IPX" else None
        self.lp = [len(self.xx)]  # level pointers lpX
        self.sub_rows = len(cols) + (len(self.xx) if self.rowX is not None else 0)
        self.g = -1
        if tree.store_sets:
            rows = self.rowP + ([self.rowX[x] for x in self.xx] if self.rowX is not None else [])
            labels_rows = tuple(pos.id(v) for v in cols)
            if self.rowX is not None:
                labels_rows += tuple(pos.id(x) for x in self.xx)
            self.g = tree.add_grid(Grid(labels_rows, tuple(pos.id(v) for v in cols), rows,
                                        title=f"{induced} induced sub-graph"))
        self.R_ids = pos.ids(R0)
        self.deg = [N[v].bit_count() for v in cols]
        self.maxdepth = 0

    def col_ids(self, mask):
        return tuple(sorted(self.pos.id(self.cols[j]) for j in bits(mask)))

    def adjacent(self, x, j):
        """Is X* vertex x adjacent to column j? A bit test (IPX) or a CSR search (IP)."""
        return (self.rowX[x] >> j) & 1 if self.rowX is not None else (self.N[x] >> self.cols[j]) & 1

    def run(self, top):
        self.visit(top, 0, (1 << len(self.cols)) - 1, 0, 0, "seed", self.sub_rows * self.W)
        meta, levels = self.t.meta, self.maxdepth + 1
        meta["x_words_compact"] = max(meta["x_words_compact"], len(self.xx) + levels * self.W)
        meta["x_words_naive"] = max(meta["x_words_naive"], levels * (len(self.xx) + len(self.cols)))
        meta["subgraph_words"] = max(meta["subgraph_words"], self.sub_rows * self.W)

    def visit(self, parent, R_b, P_b, XP, level, kind, cost):
        t, xx, lp, rowP, rowX, pos = self.t, self.xx, self.lp, self.rowP, self.rowX, self.pos
        self.maxdepth = max(self.maxdepth, level)
        XX = xx[: lp[level]]
        R = tuple(sorted(self.R_ids + self.col_ids(R_b)))
        sets = bits_ = extra = None
        if t.store_sets:
            X = tuple(sorted(self.col_ids(XP) + tuple(pos.id(x) for x in XX)))
            sets = {"R": R, "P": self.col_ids(P_b), "X": X}
            bits_ = {"P": P_b, "X_P": XP, "R_b": R_b}
            extra = {"X_X": tuple(pos.id(x) for x in xx), "lpX": tuple(lp[: level + 1])}
        scan = (P_b | XP).bit_count() + (len(XX) if rowX is not None else 0)
        i = t.add(parent, kind=kind, sets=sets, work=cost + scan * self.W, grid=self.g, bits=bits_,
                  extra=extra, cand=P_b.bit_count())
        if not P_b:
            if not XP and not XX:
                t.set(i, check=True)
                t.emit(i, R)
            else:
                t.set(i, status="dead", check=False, reason="P empty, X not: R is not maximal")
            return
        # pivot: P ∪ X_P always, X_X only with the full induced sub-graph
        best, prow, pname = -1, 0, None
        for j in bits(P_b | XP):
            c = (rowP[j] & P_b).bit_count()
            if c > best:
                best, prow, pname = c, rowP[j], pos.id(self.cols[j])
        if rowX is not None:
            for x in XX:
                c = (rowX[x] & P_b).bit_count()
                if c > best:
                    best, prow, pname = c, rowX[x], pos.id(x)
        branch, skipped = P_b & ~prow, P_b & prow
        t.set(i, pivot=pname)
        if not branch:
            t.set(i, status="pruned", reason="every vertex of P is a neighbour of the pivot")
        for j in bits(branch):
            # partition this level's X_X prefix: neighbours of column j first
            cur = xx[: lp[level]]
            keep = [x for x in cur if self.adjacent(x, j)]
            xx[: lp[level]] = keep + [x for x in cur if not self.adjacent(x, j)]
            if len(lp) <= level + 1:
                lp.append(0)
            lp[level + 1] = len(keep)
            per = 1 if rowX is not None else max(1, math.ceil(math.log2(self.deg[j] + 1)))
            self.visit(i, R_b | (1 << j), P_b & rowP[j], XP & rowP[j], level + 1, "node", len(cur) * per)
            P_b &= ~(1 << j)
            XP |= 1 << j
        if self.record_skipped:
            pv = self.names[pname] if pname is not None else ""
            for j in bits(skipped):
                t.skip(i, f"neighbour of pivot {pv}", note=self.names[pos.id(self.cols[j])])
