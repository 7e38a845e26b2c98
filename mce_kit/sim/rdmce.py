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


def rdmce(G, *, seeds: str = "edge", aggressive: bool = True, order="degeneracy", store_sets: bool = True,
          record_skipped: bool = True) -> SearchTree:
    """Record RDMCE's bitmap search forest of ``G`` (outputs = maximal cliques)."""
    order = resolve_order(G, order)
    N = adjacency(G, order)
    pos = Positions(order)
    names = labels(G)
    tree = SearchTree(
        "rdmce" + ("-aggressive" if aggressive else ""),
        {"seeds": seeds, "aggressive": aggressive, "order": order if isinstance(order, str) else "custom"},
        names={"V": names}, store_sets=store_sets,
    )
    tree.meta["order"] = order.tolist()
    top = tree.add(-1, kind="forest", depth=0)

    for R0, P0, X0 in _seeds(N, seeds):
        cols = list(bits(P0))
        rows_v = cols + list(bits(X0))
        col_of = {v: j for j, v in enumerate(cols)}
        rows = []
        for v in rows_v:
            m = 0
            for u in bits(N[v] & P0):
                m |= 1 << col_of[u]
            rows.append(m)
        w, W, nrows = len(cols), words(len(cols)), len(rows_v)
        g = -1
        if store_sets:
            g = tree.add_grid(Grid(tuple(pos.id(v) for v in rows_v), tuple(pos.id(v) for v in cols), rows,
                                   title="G_sub: rows P*∪X*, columns P*"))
        R_ids = pos.ids(R0)

        def col_ids(mask):
            return tuple(sorted(pos.id(cols[j]) for j in bits(mask)))

        def node(parent, R_b, P_b, kind, build=0):
            """Record the node for (R_b, P_b); return (id, R_b, P_b, VP_b) after any aggressive move."""
            moved = 0
            if aggressive and P_b:
                s = P_b.bit_count()
                for j in bits(P_b):
                    if (rows[j] & P_b).bit_count() == s - 1:
                        moved |= 1 << j
                R_b |= moved
                P_b &= ~moved
            # rows holding all of R_b, outside R_b: these are P ∪ X
            C = [r for r in range(nrows) if (rows[r] & R_b) == R_b and not (r < w and (R_b >> r) & 1)]
            X_rows = [r for r in C if not (r < w and (P_b >> r) & 1)]
            R = tuple(sorted(R_ids + col_ids(R_b)))
            sets = None
            if store_sets:
                sets = {"R": R, "P": col_ids(P_b), "X": tuple(sorted(pos.id(rows_v[r]) for r in X_rows))}
            i = tree.add(parent, kind=kind, sets=sets, work=nrows * W + build, grid=g, cand=P_b.bit_count())
            if moved:
                tree.set(i, note="moved to R at once: " + ",".join(names[v] for v in col_ids(moved)),
                         extra={"moved": col_ids(moved)})
            if not P_b:
                tree.set(i, bits={"R_b": R_b, "P_b": 0, "VP_b": 0})
                if not X_rows:
                    tree.set(i, check=True)
                    tree.emit(i, R)
                else:
                    who = names[pos.id(rows_v[X_rows[0]])]
                    tree.set(i, status="dead", check=False, reason=f"row of {who} covers R_b: not maximal")
                return i, R_b, P_b, 0
            best, u = -1, 0
            for r in C:
                c = (rows[r] & P_b).bit_count()
                if c > best:
                    best, u = c, r
            VP_b = P_b & ~rows[u]
            tree.set(i, pivot=pos.id(rows_v[u]), bits={"R_b": R_b, "P_b": P_b, "VP_b": VP_b})
            if not VP_b:
                tree.set(i, status="pruned", reason="every vertex of P is a neighbour of the pivot")
            return i, R_b, P_b, VP_b

        def expand(i, R_b, P_b, VP_b):
            done = 0
            for j in bits(VP_b):
                c = node(i, R_b | (1 << j), P_b & rows[j] & ~done, "node")
                if c[3]:
                    expand(*c)
                done |= 1 << j
            if record_skipped:
                pv = names[tree.pivot[i]] if tree.pivot[i] is not None else ""
                for j in bits(P_b & ~VP_b):
                    tree.skip(i, f"neighbour of pivot {pv}", note=names[pos.id(cols[j])])

        seed = node(top, 0, (1 << w) - 1, "seed", build=nrows * W)
        if seed[3]:
            expand(*seed)
    return tree
