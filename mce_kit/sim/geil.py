"""Geil et al.'s breadth-first maximum-clique search, recorded level by level.

1. A greedy heuristic gives a lower bound w (the size of a real clique):
   repeatedly add the remaining candidate of highest degree (or core
   number) and keep only its neighbours. ``runs=1`` starts from the best
   vertex; ``runs=h`` starts from each of the h best vertices.
2. Edges are oriented from lower to higher (degree, id); vertices whose
   degree (or core number) + 1 < w are dropped.
3. The 2-clique list: one sublist per source vertex s, its out-neighbours
   sorted by (degree, id); a sublist is dropped when len + 1 < w.
4. Level k -> k+1: an entry i of level k (a k-clique) checks the entries
   after it in its sublist; those adjacent to it form its new sublist, which
   is dropped when k + len < w. The level's "clique list" is two arrays:
   ``vertexID`` (the entry's vertex) and ``sublistID`` (the index of its
   parent entry in the previous level; for level 2, the source vertex).
5. The last non-empty level holds every maximum clique once.

Windowing processes the sublists of level 2 a window at a time (the
boundary moved to the end of a sublist) and raises w between windows, so
only one window's levels are held at once.

``bound=False`` switches steps 1-4's pruning off (w = 0): every clique of the
graph is listed, level by level, which shows what the bound saves.

Tree: sources are seeds, each entry a node with R = its clique and P = its
new sublist; ids are assigned level by level (breadth first) per window.
``tree.meta["windows"]`` keeps each window's levels as (vertexID, sublistID).
"""

from __future__ import annotations

import numpy as np

from ._common import labels
from .tree import SearchTree


def greedy_bound(G, *, by: str = "degree", runs: int = 1) -> int:
    """Size of the best greedy clique over ``runs`` starts (Geil's heuristic)."""
    if G.n == 0:
        return 0
    score = _score(G, by)
    rank = sorted(range(G.n), key=lambda v: (-score[v], v))
    best = 0
    for s in rank[: max(1, runs)]:
        size, cand = 1, set(G.neighbors(s).tolist())
        while cand:
            v = max(cand, key=lambda u: (score[u], -u))
            size += 1
            cand &= set(G.neighbors(v).tolist())
        best = max(best, size)
    return best


def _score(G, by):
    if by == "degree":
        return G.degrees().tolist()
    if by == "core":
        from ..order import core_numbers

        return np.asarray(core_numbers(G)).tolist()
    raise ValueError("by must be 'degree' or 'core'")


def geil_bfs(G, *, by: str = "degree", runs: int = 1, window: int | None = None, bound: bool = True,
         store_sets: bool = True) -> SearchTree:
    """Record the breadth-first search for all maximum cliques of ``G``.

    Outputs are the maximum cliques (sorted tuples). ``meta``: the bound
    ``omega_hat``, the clique number ``omega``, the clique-list entries of each
    window and the peak number held at once (``peak_entries``).
    """
    n = G.n
    deg = G.degrees().tolist()
    score = _score(G, by) if n else []
    w = greedy_bound(G, by=by, runs=runs) if bound else 0
    names = labels(G)
    tree = SearchTree("geil" + ("" if bound else "-nobound"),
                      {"by": by, "runs": runs, "window": window, "bound": bound}, names={"V": names},
                      store_sets=store_sets)
    tree.meta.update(omega_hat=w, windows=[], entries=[])
    tree.meta["dropped"] = [v for v in range(n) if score[v] + 1 < w]  # too few neighbours for the bound
    top = tree.add(-1, kind="forest", depth=0)
    nbr = [set(G.neighbors(v).tolist()) for v in range(n)]
    key = [(deg[v], v) for v in range(n)]
    alive = [score[v] + 1 >= w for v in range(n)]

    # 2-clique list: sublists per source, out-neighbours sorted by (degree, id)
    sources = []
    for s in sorted(range(n), key=lambda v: key[v]):
        sub = sorted((t for t in nbr[s] if key[t] > key[s] and alive[t]), key=lambda t: key[t])
        sources.append((s, sub))
    if G.m == 0:  # no edges: every vertex is a maximum clique
        for v in range(n):
            i = tree.add(top, kind="seed", sets={"R": (v,), "P": ()})
            tree.emit(i, (v,))
        tree.meta["omega"] = 1 if n else 0
        return tree

    # windows: whole sublists, about `window` level-2 entries each
    groups, cur, size = [], [], 0
    for s, sub in sources:
        cur.append((s, sub))
        size += len(sub)
        if window and size >= window:
            groups.append(cur)
            cur, size = [], 0
    if cur:
        groups.append(cur)

    best_k, best_nodes, peak = 0, [], 0
    for wi, group in enumerate(groups):
        # level 2: entries (vertexID = t, sublistID = s) and their tree nodes
        vid, sid, node_of, clique = [], [], [], []
        for s, sub in group:
            i = tree.add(top, kind="seed", sets={"R": (s,), "P": tuple(sub)}, work=len(sub),
                         extra={"window": wi, "level": 1})
            if not alive[s]:
                tree.set(i, status="pruned", reason=f"{by} + 1 < bound {w}")
                continue
            if len(sub) + 1 < w:
                tree.set(i, status="pruned", reason=f"sublist length + 1 < bound {w}")
                continue
            for t in sub:
                vid.append(t)
                sid.append(s)
                node_of.append(i)
                clique.append((s, t))
        levels = [(vid, sid)]
        k = 2
        parents = node_of
        while True:
            # one thread per entry: count the later entries of its sublist it is adjacent to
            cand = _new_sublists(vid, sid, nbr)
            nodes_k = []
            for j in range(len(vid)):
                c = cand[j]
                i = tree.add(parents[j], sets={"R": tuple(sorted(clique[j])), "P": tuple(vid[x] for x in c)},
                             work=1 + _after(sid, j), extra={"window": wi, "level": k, "index": j})
                if c and k + len(c) < w:
                    tree.set(i, status="pruned", reason=f"k + |sublist| < bound {w}")
                    cand[j] = []
                nodes_k.append(i)
            nv, ns, nn, ncl = [], [], [], []
            for j, c in enumerate(cand):
                for x in c:
                    nv.append(vid[x])
                    ns.append(j)
                    nn.append(nodes_k[j])
                    ncl.append(clique[j] + (vid[x],))
            if not nv:
                break
            k += 1
            levels.append((nv, ns))
            vid, sid, clique, parents = nv, ns, ncl, nn
        held = sum(len(a) for a, _ in levels)
        peak = max(peak, held)
        tree.meta["windows"].append([(list(a), list(b)) for a, b in levels] if store_sets else None)
        tree.meta["entries"].append(held)
        if k > best_k:
            best_k, best_nodes = k, []
        if k == best_k and vid:
            best_nodes += list(zip(nodes_k, clique, strict=True))
        if bound:
            w = max(w, k)  # raise the bound between windows
    for i, c in best_nodes:
        tree.set(i, check=True)
        tree.emit(i, tuple(sorted(c)))
    tree.meta.update(omega=best_k, peak_entries=peak, omega_hat_final=w)
    return tree


def _after(sid, j):
    """Entries after j in its sublist: the edge look-ups entry j makes."""
    x = j + 1
    while x < len(sid) and sid[x] == sid[j]:
        x += 1
    return x - j - 1


def _new_sublists(vid, sid, nbr):
    """For each entry, indices of the later entries of its sublist adjacent to it."""
    out = []
    for j in range(len(vid)):
        c, x = [], j + 1
        while x < len(sid) and sid[x] == sid[j]:
            if vid[x] in nbr[vid[j]]:
                c.append(x)
            x += 1
        out.append(c)
    return out


def levels(tree: SearchTree) -> list[dict]:
    """The clique lists level by level: one row per entry (level 1: the source vertices) with its
    clique, its new sublist and whether the bound cut it (``status`` "pruned", ``reason``)."""
    rows = []
    for i in range(len(tree)):
        if tree.kind[i] == "forest":
            continue
        node = tree.node(i)
        rows.append({"window": node.extra["window"], "level": node.extra["level"],
                     "clique": "".join(tree.label_set("R", node.sets["R"])),
                     "sublist": "".join(tree.label_set("P", node.sets["P"])), "status": node.status,
                     "reason": node.reason or ""})
    return rows
