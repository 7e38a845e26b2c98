"""Bron–Kerbosch, recorded node by node.

The three textbook variants of mce-gpu's Figure 1 (no pivot, Tomita pivot,
pivot + degeneracy order) and the two ways to cut the search into
independent sub-trees: one seed per vertex (L1) or per edge (L2).

Cost of a node (``work``): one pass over the rows of P ∪ X, each row as wide
as the seed's P in 32-bit words. It stands for the pivot scan and the
intersections of a bitmap implementation.
"""

from __future__ import annotations

from ._common import Positions, adjacency, bits, labels, resolve_order, words
from .tree import SearchTree


class _BK:
    def __init__(self, G, pivot, order, seeds, aggressive, store_sets, record_skipped):
        self.order = resolve_order(G, order)
        self.N = adjacency(G, self.order)
        self.pos = Positions(self.order)
        self.pivot, self.aggressive, self.record_skipped = pivot, aggressive, record_skipped
        self.names = labels(G)
        name = "bk" + ("-pivot" if pivot else "") + ("-aggressive" if aggressive else "")
        self.tree = SearchTree(
            name,
            {"pivot": pivot, "order": order if isinstance(order, str) else "custom", "seeds": seeds,
             "aggressive": aggressive},
            names={"V": self.names},
            store_sets=store_sets,
        )
        self.tree.meta["order"] = self.order.tolist()

    def sets(self, R, P, X):
        ids = self.pos.ids
        return {"R": ids(R), "P": ids(P), "X": ids(X)}

    def expand(self, parent, R, P, X, kind, width):
        t, N = self.tree, self.N
        moved = 0
        if self.aggressive and P:
            # Lemma 2 of RDMCE: v adjacent to all the rest of P is in every clique below
            s = P.bit_count()
            for v in bits(P):
                if (N[v] & P).bit_count() == s - 1:
                    moved |= 1 << v
            if moved:
                R |= moved
                P &= ~moved
                for v in bits(moved):
                    X &= N[v]
        W = words(width)
        note = None
        if moved:
            note = "moved to R at once: " + ",".join(self.names[v] for v in self.pos.ids(moved))
        i = t.add(parent, kind=kind, sets=self.sets(R, P, X), work=1 + (P | X).bit_count() * W, note=note,
                  depth=0 if parent < 0 else None)
        if moved and t.store_sets:
            t.set(i, extra={"moved": self.pos.ids(moved)})
        if not P:
            if not X and R:  # (the empty graph has no cliques)
                t.set(i, check=True)
                t.emit(i, self.pos.ids(R))
            else:
                t.set(i, status="dead", check=False, reason="P empty, X not: R is not maximal")
            return
        branch = P
        if self.pivot:
            best, u = -1, -1
            for w in bits(P | X):
                c = (N[w] & P).bit_count()
                if c > best:
                    best, u = c, w
            branch = P & ~N[u]
            t.set(i, pivot=self.pos.id(u))
        skipped = P & ~branch
        for v in bits(branch):
            self.expand(i, R | (1 << v), P & N[v], X & N[v], "node", width)
            P &= ~(1 << v)
            X |= 1 << v
        if not branch:
            t.set(i, status="pruned", reason="every vertex of P is a neighbour of the pivot")
        if self.record_skipped:
            pv = self.names[self.pos.id(u)] if self.pivot else ""
            for v in bits(skipped):
                t.skip(i, f"neighbour of pivot {pv}", note=self.names[self.pos.id(v)])

    def run(self, seeds):
        t, N, n = self.tree, self.N, len(self.N)
        if seeds == "root":
            self.expand(-1, 0, (1 << n) - 1, 0, "root", n)
            return t
        top = t.add(-1, kind="forest", depth=0)
        for i in range(n):
            later = N[i] >> (i + 1) << (i + 1)
            earlier = N[i] & ((1 << i) - 1)
            if seeds == "vertex" or not N[i]:  # edge seeds still need isolated vertices
                self.expand(top, 1 << i, later, earlier, "seed", later.bit_count())
                continue
            if seeds != "edge":
                raise ValueError(f"seeds must be 'root', 'vertex' or 'edge', not {seeds!r}")
            for j in bits(later):
                common = N[i] & N[j]
                P = common >> (j + 1) << (j + 1)
                self.expand(top, (1 << i) | (1 << j), P, common & ~P, "seed", P.bit_count())
        return t


def bron_kerbosch(G, *, pivot: bool = True, order="natural", seeds: str = "root", aggressive: bool = False,
                  store_sets: bool = True, record_skipped: bool = True) -> SearchTree:
    """Record the Bron–Kerbosch search tree of ``G``.

    pivot:      Tomita's rule (u in P ∪ X with most neighbours in P; branch on P \\ N(u)).
    order:      "natural", "degeneracy", "degree" or an array (order[i] = i-th vertex).
    seeds:      "root" (one tree from (∅, V, ∅)), "vertex" (L1) or "edge" (L2).
    aggressive: RDMCE's aggressive node generation (vertices of P adjacent to the
                rest of P join R at once).
    Outputs (``tree.outputs``) are the maximal cliques as sorted tuples.
    """
    m = _BK(G, pivot, order, seeds, aggressive, store_sets, record_skipped)
    return m.run(seeds)
