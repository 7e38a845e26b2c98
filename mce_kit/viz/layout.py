"""Tree and graph layouts shared by the widget (JSON) and matplotlib (static).

``tree_view`` lays out the part of a search tree below a focus node that
fits a node budget: it takes nodes breadth first from the focus, and a
node whose children did not all fit is drawn as a collapsed stub that
carries how many nodes it hides. So a tree of 10^5 nodes is never drawn
whole; the reader zooms by re-focusing on a stub.
"""

from __future__ import annotations

from collections import deque

import numpy as np

STATUS_COLOURS = {
    "inner": "#7a8ea8",
    "leaf": "#2e9d4f",
    "dead": "#d1495b",
    "pruned": "#ee9b00",
    "skipped": "#c9c9c9",
    "forest": "#444444",
}


def node_label(tree, i: int) -> str:
    """Short text for a node: the vertices it adds to R (or the skipped vertex)."""
    if tree.kind[i] == "forest":
        return "seeds"
    if tree.status[i] == "skipped":
        return tree.node(i).note or "×"
    sets = tree.sets(i)
    if "R" not in sets:
        return str(i)
    R = sets["R"]
    p = tree.parent[i]
    before = set(tree.sets(p).get("R", ())) if p >= 0 and tree.kind[p] != "forest" else set()
    new = [v for v in R if v not in before] or list(R)
    return ",".join(tree.label_set("R", new)) if new else "∅"


def tree_view(tree, focus: int = 0, max_nodes: int = 1500, show_skipped: bool = True) -> dict:
    """Layout of the sub-tree under ``focus``, at most ``max_nodes`` nodes.

    Returns columns: ``id`` (tree ids), ``parent`` (index into these columns,
    -1 at the top), ``x`` (leaf slots), ``y`` (depth below focus), ``status``,
    ``kind``, ``label``, ``output`` (0/1), ``hidden`` (nodes not drawn below
    a collapsed stub), and ``width``/``height`` of the layout.
    """
    n = len(tree)
    if n == 0:
        return {"id": [], "parent": [], "x": [], "y": [], "status": [], "kind": [], "label": [],
                "output": [], "hidden": [], "width": 0, "height": 0, "focus": 0, "total": 0}
    kids = tree.children
    if not show_skipped:
        kids = [[c for c in ch if tree.status[c] != "skipped"] for ch in kids]
    size = tree.subtree_sizes(skipped=show_skipped)
    shown, index = [focus], {focus: 0}
    q = deque([focus])
    while q and len(shown) < max_nodes:
        i = q.popleft()
        if len(shown) + len(kids[i]) > max_nodes:
            continue  # keep this node collapsed: all its children or none
        for c in kids[i]:
            index[c] = len(shown)
            shown.append(c)
            q.append(c)
    # tidy layout: leaves of the drawn tree take consecutive slots
    drawn_kids = {i: [c for c in kids[i] if c in index] for i in shown}
    x = {}
    slot = 0
    stack = [(focus, False)]
    while stack:
        i, done = stack.pop()
        ch = drawn_kids[i]
        if not ch:
            x[i] = float(slot)
            slot += 1
        elif done:
            x[i] = (x[ch[0]] + x[ch[-1]]) / 2
        else:
            stack.append((i, True))
            stack.extend((c, False) for c in reversed(ch))
    base = tree.depth[focus]
    out = {
        "id": shown,
        "parent": [index.get(tree.parent[i], -1) if i != focus else -1 for i in shown],
        "x": [x[i] for i in shown],
        "y": [tree.depth[i] - base for i in shown],
        "status": ["forest" if tree.kind[i] == "forest" else tree.status[i] for i in shown],
        "kind": [tree.kind[i] for i in shown],
        "label": [node_label(tree, i) for i in shown],
        "output": [int(tree.out[i] >= 0) for i in shown],
        "hidden": [0 if drawn_kids[i] else int(size[i] - 1) for i in shown],  # a node shows all kids or none
        "width": max(slot, 1),
        "height": max(tree.depth[i] - base for i in shown) + 1,
        "focus": focus,
        "total": n,
    }
    return out


def graph_layout(G, seed: int = 1) -> dict:
    """Vertex positions in [0, 1]^2 and edges, keyed "V:i" (or "U:i"/"V:i" for bipartite graphs)."""
    from ..graph import BipartiteGraph

    if isinstance(G, BipartiteGraph):
        from ..sim._common import bip_labels

        names = bip_labels(G)
        nodes = []
        for side, count in (("U", G.n_u), ("V", G.n_v)):
            xs = 0.15 if side == "U" else 0.85
            for i in range(count):
                y = (i + 0.5) / count
                nodes.append({"key": f"{side}:{i}", "label": names[side][i], "x": xs, "y": y, "side": side})
        edges = [[f"U:{u}", f"V:{int(v)}"] for u in range(G.n_u) for v in G.u_neighbors(u)]
        return {"nodes": nodes, "edges": edges, "bipartite": True}
    import networkx as nx

    H = nx.Graph()
    H.add_nodes_from(range(G.n))
    H.add_edges_from(G.edges().tolist())
    if G.n <= 8:
        pos = nx.circular_layout(H)
    else:
        pos = nx.spring_layout(H, seed=seed, iterations=200)
    xy = np.array([pos[v] for v in range(G.n)]) if G.n else np.zeros((0, 2))
    if G.n:
        lo, hi = xy.min(0), xy.max(0)
        xy = 0.08 + 0.84 * (xy - lo) / np.where(hi > lo, hi - lo, 1)
    nodes = [{"key": f"V:{v}", "label": str(G.label(v)), "x": float(xy[v, 0]), "y": float(xy[v, 1]),
              "side": "V"} for v in range(G.n)]
    edges = [[f"V:{a}", f"V:{b}"] for a, b in G.edges().tolist()]
    return {"nodes": nodes, "edges": edges, "bipartite": False}
