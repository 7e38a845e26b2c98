"""GMBE+'s iterative biclique enumeration, recorded (its Algorithms 2 and 3).

The tree is built over V (the smaller side). A node (L, R, C) holds the
biclique (L, R) with L = Γ(R) ⊆ U and the candidates C ⊆ V. A child takes
the smallest candidate v', sets L' = L ∩ N(v'), moves every candidate whose
neighbourhood covers L' into R', keeps those that meet L' as C', and then
checks R' = Γ(L'): the biclique is maximal iff nothing outside R' is adjacent
to all of L' (a traversed vertex may be, since it left C).

Seeds (Algorithm 3): for each v_s, L = N(v_s), R = Γ(L), C = the later 2-hop
neighbours not in R; the seed runs only if v_s is the smallest vertex of R.

``node_buf`` (node reuse): one buffer per seed keeps L* ∪ R* ∪ C* with a
depth per vertex. A node at depth D is L = {u in L*: depth = D} and
R = {v: depth <= D}; push and pop only rewrite depths. Each node records the
buffer's depths in ``extra["depth"]`` and its traversed vertices.

Pruning by local neighbourhood size: after child q (made by v_q) returns,
a remaining candidate v_x with |L ∩ N(v_x)| = |L_q ∩ N(v_x)| has L ∩ N(v_x)
inside N(v_q), so every node below v_x would have v_q (already traversed)
in Γ(L) and fail the check: v_x is dropped from C.

Bitmap switch: at the first node on a path with |L| <= tau, the candidates'
local neighbourhoods become |L|-bit rows (a grid); below it an intersection
costs ceil(|L|/32) words instead of a list merge.

Outputs are (L, R) pairs of sorted tuples: L of U ids, R of V ids.
"""

from __future__ import annotations

from ._common import bip_labels, bits, words
from .tree import Grid, SearchTree

INF = float("inf")
NOT_MAXIMAL = "Γ(L) has a vertex outside R: not maximal"


class NodeBuf:
    """GMBE+'s reused node: depth per vertex of the seed, traversed vertices."""

    def __init__(self, L: int, R: int, C: int):
        self.Lstar, self.Cstar = L, C
        self.depth = {("U", u): 0 for u in bits(L)}
        self.depth.update({("V", v): 0 for v in bits(R)})
        self.depth.update({("V", v): INF for v in bits(C)})
        self.traversed: list[int] = []

    def push(self, L: int, R: int, D: int, v: int) -> None:
        for u in bits(L):
            self.depth[("U", u)] = D
        for c in bits(self.Cstar & R):
            if self.depth[("V", c)] == INF:
                self.depth[("V", c)] = D
        self.traversed.append(v)

    def pop(self, L: int, D: int) -> None:
        self.traversed.pop()
        for u in bits(L):
            self.depth[("U", u)] = D - 1
        for c in bits(self.Cstar):
            if self.depth[("V", c)] == D:
                self.depth[("V", c)] = INF

    def L_at(self, D: int) -> int:
        return sum(1 << u for (s, u), d in self.depth.items() if s == "U" and d == D)

    def R_at(self, D: int) -> int:
        return sum(1 << v for (s, v), d in self.depth.items() if s == "V" and d <= D)


class _NoBuf:
    """Stands in for NodeBuf when sets are not recorded (big runs)."""

    def push(self, *a):
        pass

    def pop(self, *a):
        pass


def gmbe_plus(B, *, prune: bool = True, tau: int = 32, order: str = "degree", seeds: str = "vertex",
         store_sets: bool = True, record_skipped: bool = True) -> SearchTree:
    """Record GMBE+'s enumeration forest of bipartite graph ``B``.

    prune: pruning by local neighbourhood size. tau: bitmap switch (|L| <= tau).
    order: "degree" (V by ascending degree, the paper's default) or "natural".
    seeds: "vertex" (one task per v_s, Algorithm 3) or "root" (one tree from
    (U, ∅, V), Algorithm 1, as in the paper's Figures 2 and 6).
    ``tree.summary()["failed_checks"] / outputs`` is Table II's delta/alpha.
    """
    nV = B.n_v
    deg = [len(B.v_neighbors(v)) for v in range(nV)]
    vorder = sorted(range(nV), key=lambda v: (deg[v], v)) if order == "degree" else list(range(nV))
    vpos = {v: p for p, v in enumerate(vorder)}
    NV = [sum(1 << int(u) for u in B.v_neighbors(v)) for v in vorder]  # by position
    NU = [sum(1 << vpos[int(v)] for v in B.u_neighbors(u)) for u in range(B.n_u)]
    names = bip_labels(B)
    tree = SearchTree(
        "gmbe+" + ("" if prune else "-noprune"),
        {"prune": prune, "tau": tau, "order": order, "seeds": seeds},
        names=names, sides={"L": "U", "R": "V", "C": "V"}, store_sets=store_sets,
    )
    tree.meta["order"] = vorder
    top = tree.add(-1, kind="forest", depth=0)
    if seeds == "root":
        tree.kind[top] = "root"
        search = _Search(tree, NV, NU, vorder, names, prune, tau, record_skipped)
        search.scope(list(range(B.n_u)), list(range(nV))).root(top)
        return tree
    if seeds != "vertex":
        raise ValueError("seeds must be 'vertex' or 'root'")
    for s in range(nV):
        L = NV[s]
        if not L:
            continue
        N2 = 0
        for u in bits(L):
            N2 |= NU[u]
        # work inside N(v_s) x (N2(v_s) + v_s) only: short bitsets
        search = _Search(tree, NV, NU, vorder, names, prune, tau, record_skipped)
        search.scope(list(bits(L)), list(bits(N2))).seed(top, s)
    return tree


class _Search:
    """One task's search, on bitsets re-indexed to its own vertices (Ul: U ids, Vl: V positions)."""

    def __init__(self, tree, NV, NU, vorder, names, prune, tau, record_skipped):
        self.t, self.vorder, self.names, self.prune, self.tau = tree, vorder, names, prune, tau
        self.record_skipped = record_skipped and tree.store_sets
        self.NV0, self.NU0 = NV, NU

    def scope(self, Ul, Vl):
        """Re-index to the task's own vertices: U ids Ul, V positions Vl (in order)."""
        self.Ul, self.Vl = Ul, Vl
        ui = {u: i for i, u in enumerate(Ul)}
        vi = {v: j for j, v in enumerate(Vl)}
        self.NV = [sum(1 << ui[u] for u in bits(self.NV0[v]) if u in ui) for v in Vl]
        self.NU = [sum(1 << vi[v] for v in bits(self.NU0[u]) if v in vi) for u in Ul]
        self.vi = vi
        return self

    def U_ids(self, mask):
        return tuple(self.Ul[i] for i in bits(mask))

    def V_ids(self, mask):
        return tuple(sorted(self.vorder[self.Vl[j]] for j in bits(mask)))

    def gamma(self, L):
        g = -1
        for u in bits(L):
            g &= self.NU[u]
        return g

    def root(self, top):
        L, C = (1 << len(self.Ul)) - 1, (1 << len(self.Vl)) - 1
        self.buf = NodeBuf(L, 0, C) if self.t.store_sets else _NoBuf()
        self.t.set(top, sets={"L": self.U_ids(L), "R": (), "C": self.V_ids(C)})
        self.expand(top, L, 0, C, 0, self.switch(L, C, None))

    def seed(self, top, s):
        """Algorithm 3 for v_s (position s): L = N(v_s), R = Γ(L), C = later 2-hop neighbours."""
        NV, sl = self.NV, self.vi[s]
        L = NV[sl]
        R, C = 1 << sl, 0
        for c in range(len(self.Vl)):
            x = L & NV[c]
            if x == L:
                R |= 1 << c
            elif x and c > sl:
                C |= 1 << c
        self.buf = NodeBuf(L, R, C) if self.t.store_sets else _NoBuf()
        bm = self.switch(L, C, None)
        work = 1 + sum(m.bit_count() for m in NV)
        i = self.record(top, L, R, C, "seed", work, 0, bm)
        if (R & -R) != (1 << sl):  # local bits keep the order of positions
            self.t.set(i, status="pruned", reason="v_s is not the smallest vertex of R (found from another)")
            return
        ok = self.gamma(L) == R
        self.t.set(i, check=ok)
        if ok:
            self.t.emit(i, (self.U_ids(L), self.V_ids(R)))
        else:
            self.t.set(i, reason=NOT_MAXIMAL)
        self.expand(i, L, R, C, 0, bm)
        if not ok and self.t.status[i] == "leaf":
            self.t.set(i, status="dead")

    def record(self, parent, L, R, C, kind, work, D, bm):
        t, names = self.t, self.names
        sets = {"L": self.U_ids(L), "R": self.V_ids(R), "C": self.V_ids(C)} if t.store_sets else None
        i = t.add(parent, kind=kind, sets=sets, work=work, grid=bm[0] if bm else -1,
                  cand=C.bit_count(), left=L.bit_count())
        if t.store_sets:
            vname = [names["V"][self.vorder[v]] for v in self.Vl]
            depth = {(names["U"][self.Ul[x]] if s == "U" else vname[x]): d
                     for (s, x), d in self.buf.depth.items()}
            extra = {"depth": depth, "traversed": [vname[v] for v in self.buf.traversed],
                     "mode": "bitmap" if bm else "list"}
            b = None
            if bm:
                col = {u: j for j, u in enumerate(bm[1])}
                b = {"L": sum(1 << col[u] for u in bits(L))}
            t.set(i, extra=extra, bits=b)
        return i

    def switch(self, L, C, bm):
        """Start bitmap mode here if |L| <= tau: a grid of C rows over the columns L."""
        if bm is not None or L.bit_count() > self.tau:
            return bm
        cols = list(bits(L))
        g = -1
        if self.t.store_sets:
            rows_v = list(bits(C))
            rows = [sum(1 << j for j, u in enumerate(cols) if (self.NV[c] >> u) & 1) for c in rows_v]
            g = self.t.add_grid(Grid(tuple(self.vorder[self.Vl[c]] for c in rows_v),
                                     tuple(self.Ul[u] for u in cols), rows, row_side="V", col_side="U",
                                     title="local neighbourhoods N(v) ∩ L as |L|-bit rows"))
        return (g, cols)

    def expand(self, i, L, R, C, D, bm):
        t, NV, buf = self.t, self.NV, self.buf
        sizes = {c: (L & NV[c]).bit_count() for c in bits(C)}
        while C:
            v = (C & -C).bit_length() - 1  # smallest candidate
            C &= ~(1 << v)
            L2 = L & NV[v]
            R2, C2, sizes2 = R | (1 << v), 0, {}
            for c in bits(C):
                x = L2 & NV[c]
                sizes2[c] = x.bit_count()
                if x == L2:
                    R2 |= 1 << c
                elif x:
                    C2 |= 1 << c
            step = words(len(bm[1])) if bm else max(1, L2.bit_count())
            work = 1 + (C.bit_count() + 1) * step + L2.bit_count()  # intersections + the Γ check
            buf.push(L2, R2, D + 1, v)
            bm2 = self.switch(L2, C2, bm)
            child = self.record(i, L2, R2, C2, "node", work, D + 1, bm2)
            ok = self.gamma(L2) == R2
            t.set(child, check=ok)
            if ok:
                t.emit(child, (self.U_ids(L2), self.V_ids(R2)))
            else:
                t.set(child, reason=NOT_MAXIMAL)
            if bm2 is not bm and t.store_sets:
                t.set(child, note="bitmap mode starts here (|L| <= tau)")
            self.expand(child, L2, R2, C2, D + 1, bm2)
            if not ok and t.status[child] == "leaf":  # a leaf that failed the check: a dead end
                t.set(child, status="dead")
            buf.pop(L2, D + 1)
            if self.prune:
                for c in bits(C):
                    if sizes2[c] == sizes[c]:
                        C &= ~(1 << c)
                        if self.record_skipped:
                            vn = self.names["V"]
                            t.skip(i, f"|N_L| unchanged after {vn[self.vorder[self.Vl[v]]]}",
                                   note=vn[self.vorder[self.Vl[c]]])


def pruned_branches(on: SearchTree, off: SearchTree) -> list[dict]:
    """Each branch pruning cut in ``on`` beside the node ``off`` (the same graph, pruning off) made there.

    One row per skipped candidate: its parent (L, R, C), the candidate dropped and the sibling whose
    child left |L ∩ N(v)| unchanged, and the node made by that candidate without pruning, with its
    maximality check and the maximal bicliques below it (a cut is safe when there are none).
    """
    where = {tuple(sorted(off.sets(i).items())): i for i in range(len(off)) if off.kind[i] != "forest"}
    rows = []
    for i in range(len(on)):
        if on.status[i] != "skipped":
            continue
        p, dropped = on.parent[i], on.node(i).note
        q = where[tuple(sorted(on.sets(p).items()))]
        made = [c for c in off.children[q]
                if (off.node(c).extra or {}).get("traversed", [None])[-1] == dropped]
        row = {"parent (L, R, C)": on.describe(p).split(" ", 1)[1], "dropped": dropped,
               "because": on.reason[i]}
        if made:
            c = made[0]
            below = [j for j in range(c + 1, len(off)) if c in off.path(j)]
            row.update({"without pruning: node made": off.describe(c).split(" ", 1)[1],
                        "maximal": off.check[c], "nodes below it": len(below),
                        "maximal below it": sum(off.check[j] is True for j in below)})
        else:  # without pruning the parent was cut by another check: no node, nothing maximal below
            row.update({"without pruning: node made": f"none (parent {off.status[q]})", "maximal": False,
                        "nodes below it": 0, "maximal below it": 0})
        rows.append(row)
    return rows
