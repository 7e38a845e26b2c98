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
from dataclasses import dataclass, field

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


# --- lane scheduling: the 64-entry (i, j) queue of one warp ---------------------------------------


@dataclass
class LaneQueue:
    """A replay of KCMiner's lane scheduling (``kclique.cu``, ``count_cliques`` with FLAG_SCHED).

    ``rounds``: one row per round of the scan (per edge task): the entries
    pushed (lanes that found a bit: ``__popc`` of the ``__ballot_sync``), the
    queue length after the push and after a fire. ``fires``: one row per fire, with
    its (i, j) pairs and the k-cliques they complete; ``end`` marks the flush
    of a task's last, partial group. ``count``: the k-cliques of all fires.
    """

    k: int
    lanes: int
    rounds: list = field(default_factory=list)
    fires: list = field(default_factory=list)
    tasks: list = field(default_factory=list)
    count: int = 0

    def table(self, what: str = "rounds", task=None):
        """``rounds``, ``fires`` or ``tasks`` as a DataFrame (``task``: one edge task's rows)."""
        import pandas as pd

        rows = getattr(self, what)
        if task is not None:
            rows = [r for r in rows if r["task"] == task]
        return pd.DataFrame(rows)


def lane_queue(G, k: int, *, lanes: int = 32, order="degree") -> LaneQueue:
    """Replay the (i, j) queue of KCMiner's lane scheduling over every edge task of ``G``.

    An edge task (u, v) has candidates C = the common later neighbours and
    oriented rows (row i: the later neighbours of C[i] inside C). For k >= 5
    the kernel's lanes take C[0..lanes-1] (then the next ``lanes``) and scan
    their rows in step, each taking its lowest set bit per round (32-bit words
    in turn): lane i with bit j pushes the pair (i, j) into a queue of
    ``2 * lanes`` entries, placed by a ballot and a popcount. When ``lanes``
    pairs wait, every lane takes one and counts the k-cliques {u, v, C[i],
    C[j], ...} below it; the last, partial group goes when the scan ends. For
    k <= 4 the kernel counts without the queue (no rows here).
    """
    k = int(k)
    order = resolve_order(G, order)
    N = adjacency(G, order)
    n = len(N)
    out = [N[i] >> (i + 1) << (i + 1) for i in range(n)]
    names = labels(G)
    pos = Positions(order)
    res = LaneQueue(k=k, lanes=lanes)
    if k < 5:
        return res
    name = [str(names[pos.id(i)]) for i in range(n)]
    sep = "" if all(len(x) == 1 for x in name) else "-"  # "AB" on letters; "1-12" never reads as "11-2"
    for u in range(n):
        for v in bits(out[u]):
            C = list(bits(out[u] & out[v]))
            s = len(C)
            if s < k - 2:
                continue
            col = {x: j for j, x in enumerate(C)}
            rows = [sum(1 << col[y] for y in bits(out[x] & (out[u] & out[v]))) for x in C]
            _replay(res, f"{name[u]}{sep}{name[v]}", [name[x] for x in C], rows, k - 2)
    return res


def _replay(res: LaneQueue, task: str, cname: list, rows: list, t: int) -> None:
    """One task's scan, queue and fires (the kernel's loop over base, word q and rounds)."""
    lanes, s = res.lanes, len(rows)
    queue: list = []
    W = max(1, -(-s // 32))
    r = fires = pairs = found = 0

    def fire(group, end):
        nonlocal fires, found
        c = sum(_cliques(rows, rows[i] & rows[j], t - 2) for i, j in group)
        res.fires.append({"task": task, "round": r, "size": len(group), "end": end, "cliques": c,
                          "pairs": " ".join(f"{cname[i]}{cname[j]}" for i, j in group)})
        fires += 1
        found += c

    for base in range(0, s, lanes):
        lane_rows = [rows[i] if i < s else 0 for i in range(base, base + lanes)]
        for q in range(base >> 5, W):
            b = [(x >> (32 * q)) & 0xFFFFFFFF for x in lane_rows]
            while any(b):
                r += 1
                has = [x != 0 for x in b]
                for lane in range(lanes):
                    if has[lane]:
                        low = b[lane] & -b[lane]
                        queue.append((base + lane, 32 * q + low.bit_length() - 1))
                        b[lane] ^= low
                pushed = sum(has)  # __popc of the ballot
                pairs += pushed
                row = {"task": task, "round": r, "pushed": pushed, "queued": len(queue), "fired": 0,
                       "left": len(queue)}
                if len(queue) >= lanes:
                    fire(queue[:lanes], False)
                    del queue[:lanes]
                    row["fired"], row["left"] = lanes, len(queue)
                res.rounds.append(row)
    if queue:
        fire(queue, True)
    res.tasks.append({"task": task, "candidates": s, "pairs": pairs, "rounds": r, "fires": fires,
                      "full fires": fires - (1 if queue else 0), "flushed": len(queue), "cliques": found,
                      "longest row": max((x.bit_count() for x in rows), default=0)})
    res.count += found


def _cliques(rows: list, P: int, t: int) -> int:
    """t-cliques of the oriented row graph inside P (t = 0: the empty clique)."""
    if t == 0:
        return 1
    if t == 1:
        return P.bit_count()
    return sum(_cliques(rows, P & rows[x], t - 1) for x in bits(P))
