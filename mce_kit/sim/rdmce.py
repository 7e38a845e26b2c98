"""RDMCE's bitmap form of Bron–Kerbosch (its Algorithm 2), recorded.

For each seed (R*, P*, X*) the worker builds ``G_sub``: one row per vertex
of P* ∪ X* (P* first), each row a |P*|-bit mask of that vertex's neighbours
inside P*. Every node below the seed is then a triple of |P*|-bit masks:

* ``R_b``  the vertices added to R below the seed,
* ``P_b``  the candidates,
* ``VP_b`` the branches still to take: P_b minus the pivot's row.

X is never stored: the rows that contain all of R_b are exactly P ∪ X, so
the pivot is picked among them and a leaf (P_b empty) is maximal iff no row
outside R_b contains R_b. Branch i of a node takes the i-th bit of VP_b and
drops the earlier ones from its P_b, which is also what an idle worker
computes when it pulls branch i through root-down exposure.

Aggressive node generation (Lemma 2): at every node, each v of P_b whose row
covers the rest of P_b moves into R_b at once.

Cost of a node: one scan of the rows (|P* ∪ X*| rows of |P*|-bit words);
building the grid costs the same once more on the seed.
"""

from __future__ import annotations

from ._common import Positions, adjacency, bits, labels, resolve_order, words
from .tree import Grid, SearchTree


def _seeds(N, seeds):
    """Yield (R, P, X) bitsets over positions: one per vertex, or per edge plus isolated vertices."""
    n = len(N)
    for i in range(n):
        later = N[i] >> (i + 1) << (i + 1)
        earlier = N[i] & ((1 << i) - 1)
        if seeds == "vertex" or not N[i]:
            yield 1 << i, later, earlier
        elif seeds == "edge":
            for j in bits(later):
                common = N[i] & N[j]
                P = common >> (j + 1) << (j + 1)
                yield (1 << i) | (1 << j), P, common & ~P
        else:
            raise ValueError(f"seeds must be 'vertex' or 'edge', not {seeds!r}")


def rdmce_bitmap(G, *, seeds: str = "edge", aggressive: bool = True, order="degeneracy",
                 store_sets: bool = True, record_skipped: bool = True) -> SearchTree:
    """Record RDMCE's bitmap search forest of ``G`` (outputs = maximal cliques)."""
    order = resolve_order(G, order)
    N = adjacency(G, order)
    tree = SearchTree(
        "rdmce" + ("-aggressive" if aggressive else ""),
        {"seeds": seeds, "aggressive": aggressive, "order": order if isinstance(order, str) else "custom"},
        names={"V": labels(G)}, store_sets=store_sets,
    )
    tree.meta["order"] = order.tolist()
    top = tree.add(-1, kind="forest", depth=0)
    pos = Positions(order)
    for R0, P0, X0 in _seeds(N, seeds):
        _Seed(tree, N, pos, aggressive, record_skipped, R0, P0, X0).run(top)
    return tree


class _Seed:
    """One worker's job: build G_sub for (R*, P*, X*), then walk the (R_b, P_b, VP_b) stack."""

    def __init__(self, tree, N, pos, aggressive, record_skipped, R0, P0, X0):
        self.t, self.pos, self.aggressive, self.record_skipped = tree, pos, aggressive, record_skipped
        self.names = tree.names["V"]
        self.cols = list(bits(P0))
        self.rows_v = self.cols + list(bits(X0))
        col_of = {v: j for j, v in enumerate(self.cols)}
        self.rows = [sum(1 << col_of[u] for u in bits(N[v] & P0)) for v in self.rows_v]
        self.w, self.W, self.nrows = len(self.cols), words(len(self.cols)), len(self.rows_v)
        self.g = -1
        if tree.store_sets:
            ids = tuple(pos.id(v) for v in self.rows_v)
            self.g = tree.add_grid(Grid(ids, ids[: self.w], self.rows, title="G_sub: rows P*∪X*, columns P*"))
        self.R_ids = pos.ids(R0)

    def col_ids(self, mask):
        return tuple(sorted(self.pos.id(self.cols[j]) for j in bits(mask)))

    def run(self, top):
        seed = self.node(top, 0, (1 << self.w) - 1, "seed", build=self.nrows * self.W)
        if seed[3]:
            self.expand(*seed)

    def node(self, parent, R_b, P_b, kind, build=0):
        """Record the node for (R_b, P_b); return (id, R_b, P_b, VP_b) after any aggressive move."""
        t, rows, w, names, pos = self.t, self.rows, self.w, self.names, self.pos
        moved = 0
        if self.aggressive and P_b:
            s = P_b.bit_count()
            for j in bits(P_b):
                if (rows[j] & P_b).bit_count() == s - 1:
                    moved |= 1 << j
            R_b |= moved
            P_b &= ~moved
        # rows holding all of R_b, outside R_b: these are P ∪ X
        C = [r for r in range(self.nrows) if (rows[r] & R_b) == R_b and not (r < w and (R_b >> r) & 1)]
        X_rows = [r for r in C if not (r < w and (P_b >> r) & 1)]
        R = tuple(sorted(self.R_ids + self.col_ids(R_b)))
        sets = None
        if t.store_sets:
            X = tuple(sorted(pos.id(self.rows_v[r]) for r in X_rows))
            sets = {"R": R, "P": self.col_ids(P_b), "X": X}
        i = t.add(parent, kind=kind, sets=sets, work=self.nrows * self.W + build, grid=self.g,
                  cand=P_b.bit_count())
        if moved:
            t.set(i, note="moved to R at once: " + ",".join(names[v] for v in self.col_ids(moved)),
                  extra={"moved": self.col_ids(moved)})
        if not P_b:
            t.set(i, bits={"R_b": R_b, "P_b": 0, "VP_b": 0})
            if not X_rows:
                t.set(i, check=True)
                t.emit(i, R)
            else:
                who = names[pos.id(self.rows_v[X_rows[0]])]
                t.set(i, status="dead", check=False, reason=f"row of {who} covers R_b: not maximal")
            return i, R_b, P_b, 0
        best, u = -1, 0
        for r in C:
            c = (rows[r] & P_b).bit_count()
            if c > best:
                best, u = c, r
        VP_b = P_b & ~rows[u]
        t.set(i, pivot=pos.id(self.rows_v[u]), bits={"R_b": R_b, "P_b": P_b, "VP_b": VP_b})
        if not VP_b:
            t.set(i, status="pruned", reason="every vertex of P is a neighbour of the pivot")
        return i, R_b, P_b, VP_b

    def expand(self, i, R_b, P_b, VP_b):
        done = 0
        for j in bits(VP_b):
            c = self.node(i, R_b | (1 << j), P_b & self.rows[j] & ~done, "node")
            if c[3]:
                self.expand(*c)
            done |= 1 << j
        if self.record_skipped:
            pv = self.names[self.t.pivot[i]] if self.t.pivot[i] is not None else ""
            for j in bits(P_b & ~VP_b):
                self.t.skip(i, f"neighbour of pivot {pv}", note=self.names[self.pos.id(self.cols[j])])
