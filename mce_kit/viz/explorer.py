"""The interactive search-tree explorer: an anywidget view plus ipywidgets controls.

    from mce_kit.viz import explorer
    ex = explorer.Explorer("mce-gpu Figure 1", "Bron–Kerbosch", pivot=False)
    ex            # in JupyterLab: controls, tree, graph, node panel
    ex.step()     # or press step / play, or click a node

The JavaScript (``tree_widget.js``, ``lanes_widget.js``) is plain ES modules
with SVG, read from the package; nothing is fetched from a network. The
panel content is computed here in Python (``panel_state``), so the widget's
state can be tested without a browser.
"""

from __future__ import annotations

from importlib.resources import files

import anywidget
import ipywidgets as W
import traitlets as T

from ..graph import BipartiteGraph
from .catalog import ALGORITHMS, DEFAULTS, GRAPHS, build_tree
from .layout import graph_layout, tree_view

__all__ = ["Explorer", "explore", "lanes", "TreeView", "LanesView", "panel_state", "ALGORITHMS", "DEFAULTS",
           "GRAPHS", "build_tree"]

MAX_GRID = 40  # larger grids are cut in the panel


def _asset(name: str) -> str:
    return files("mce_kit.viz").joinpath(name).read_text(encoding="utf-8")


# --------------------------------------------------------------- the widgets


class TreeView(anywidget.AnyWidget):
    """SVG tree (left), graph drawing and node panel (right). Click a node to select it."""

    _esm = _asset("tree_widget.js")
    _css = _asset("widgets.css")
    view = T.Dict().tag(sync=True)  # layout.tree_view(...)
    graph = T.Dict().tag(sync=True)  # layout.graph_layout(...)
    selected = T.Int(0).tag(sync=True)
    revealed = T.Int(-1).tag(sync=True)  # nodes with id <= revealed are drawn as visited (-1: all)
    panel = T.Dict().tag(sync=True)
    focus_request = T.Int(-1).tag(sync=True)  # set by the page when a collapsed stub is clicked
    title = T.Unicode("").tag(sync=True)


class LanesView(anywidget.AnyWidget):
    """Simulated workers as lanes over time, hand-offs as arrows."""

    _esm = _asset("lanes_widget.js")
    _css = _asset("widgets.css")
    data = T.Dict().tag(sync=True)


def lanes(result, max_lanes: int = 64) -> LanesView:
    """A LanesView of a :class:`~mce_kit.sim.workers.SimResult` (first ``max_lanes`` workers)."""
    k = min(result.p, max_lanes)
    seg = [[int(w), float(s), float(e), how, int(x)] for w, s, e, x, how in result.segments if w < k]
    arr = [[float(t), int(a), int(b), int(x)] for t, a, b, x in result.arrows if a < k and b < k]
    title = f"simulation · {result.scheme} · p = {result.p} · makespan {result.makespan:.0f}"
    if result.p > k:
        title += f" (first {k} workers drawn)"
    return LanesView(data={"segments": seg, "arrows": arr, "p": k, "makespan": float(result.makespan),
                           "title": title})


# ------------------------------------------------------------ panel contents


def _key(tree, name, v):
    return f"{tree.sides.get(name, 'V')}:{v}"


def panel_state(tree, i: int) -> dict:
    """Everything the panel shows for node ``i``: sets, pivot, bitmap rows, reasons, outputs so far."""
    node = tree.node(i)
    sets = [{"name": k, "labels": tree.label_set(k, v), "keys": [_key(tree, k, x) for x in v]}
            for k, v in node.sets.items()]
    out = {
        "id": i, "kind": node.kind, "status": node.status, "depth": node.depth, "reason": node.reason or "",
        "note": node.note or "", "sets": sets, "check": node.check, "work": node.work,
        "pivot": tree.label(node.pivot) if node.pivot is not None else "",
        "pivot_key": f"V:{node.pivot}" if node.pivot is not None else "",
        "output": "", "grid": None, "extra": [],
        "path": [tree.describe(a).split(" ", 1)[-1] for a in tree.path(i)[-4:-1] if tree.kind[a] != "forest"],
    }
    if node.output is not None:
        o = node.output
        if isinstance(o[0], tuple):  # a biclique (L, R)
            out["output"] = "({" + ",".join(tree.label_set("L", o[0])) + "}, {" + ",".join(
                tree.label_set("R", o[1])) + "})"
        else:
            out["output"] = "{" + ",".join(tree.label_set("R", o)) + "}"
    found = []
    for j, nid in enumerate(tree.output_node):
        if nid > i or len(found) >= 60:
            break
        o = tree.outputs[j]
        found.append([_key(tree, "L", x) for x in o[0]] + [_key(tree, "R", x) for x in o[1]]
                     if isinstance(o[0], tuple) else [_key(tree, "R", x) for x in o])
    out["found"] = found
    if node.grid >= 0:
        g = tree.grids[node.grid]
        rows = g.bit_rows()[:MAX_GRID]
        marks = {}
        for name, m in (node.bits or {}).items():
            marks[name] = [j for j in range(min(len(g.col_labels), MAX_GRID)) if m >> j & 1]
        out["grid"] = {
            "title": g.title,
            "rows": [r[:MAX_GRID] for r in rows],
            "row_labels": [tree.label(v, g.row_side) for v in g.row_labels[:MAX_GRID]],
            "col_labels": [tree.label(v, g.col_side) for v in g.col_labels[:MAX_GRID]],
            "marks": marks,
            "cut": len(g.rows) > MAX_GRID or len(g.col_labels) > MAX_GRID,
        }
    for k, v in (node.extra or {}).items():
        if k == "X_X" and isinstance(v, tuple):
            v = ",".join(tree.label(x) for x in v)
        elif k in ("moved",):
            v = ",".join(tree.label(x) for x in v)
        elif isinstance(v, dict):
            v = " ".join(f"{a}:{'∞' if b == float('inf') else b}" for a, b in v.items())
        elif isinstance(v, list | tuple):
            v = ",".join(str(x) for x in v)
        out["extra"].append([k, str(v)])
    return out


# -------------------------------------------------------------- the explorer


class Explorer(W.VBox):
    """Controls + TreeView for one graph and one algorithm (see module doc)."""

    def __init__(self, graph="mce-gpu Figure 1", algorithm: str | None = None, *, max_nodes: int = 1200,
                 **options):
        self._G = None
        self.max_nodes = max_nodes
        self.tree = None
        opts = {**DEFAULTS, **options}
        names = list(GRAPHS)
        if not isinstance(graph, str):  # a Graph / BipartiteGraph given directly
            self._G = graph
            names = [graph.name or "your graph", *names]
            graph = names[0]
        self.w_graph = W.Dropdown(options=names, value=graph, description="graph")
        self.w_alg = W.Dropdown(options=list(ALGORITHMS), value=algorithm or "Bron–Kerbosch",
                                description="algorithm")
        self.w = {
            "pivot": W.Checkbox(value=opts["pivot"], description="pivot (Tomita)", indent=False),
            "order": W.Dropdown(options=["natural", "degeneracy", "degree"], value=opts["order"],
                                description="order"),
            "seeds": W.Dropdown(options=[("one root", "root"), ("vertex (L1)", "vertex"),
                                         ("edge (L2)", "edge")], value=opts["seeds"], description="seeds"),
            "aggressive": W.Checkbox(value=opts["aggressive"], description="aggressive generation",
                                     indent=False),
            "induced": W.ToggleButtons(options=["IP", "IPX"], value=opts["induced"], description="induced"),
            "k": W.BoundedIntText(value=opts["k"], min=1, max=12, description="k"),
            "lam": W.FloatSlider(value=opts["lam"], min=0, max=1, step=0.05, description="λ (density)"),
            "window": W.BoundedIntText(value=opts["window"], min=0, max=10_000, description="window"),
            "bound": W.Checkbox(value=opts["bound"], description="prune by the greedy bound", indent=False),
            "prune": W.Checkbox(value=opts["prune"], description="prune by |N_L|", indent=False),
            "tau": W.BoundedIntText(value=opts["tau"], min=0, max=1024, description="τ (bitmap)"),
            "gseeds": W.Dropdown(options=[("one root", "root"), ("vertex", "vertex")], value=opts["gseeds"],
                                 description="seeds"),
        }
        self.view = TreeView()
        self.play = W.Play(value=0, min=0, max=1, step=1, interval=500, description="play")
        self.slider = W.IntSlider(value=0, min=0, max=1, description="step", continuous_update=True)
        W.jslink((self.play, "value"), (self.slider, "value"))
        self.b_prev = W.Button(description="◀ step", layout=W.Layout(width="80px"))
        self.b_next = W.Button(description="step ▶", layout=W.Layout(width="80px"))
        self.b_all = W.Button(description="show all", layout=W.Layout(width="90px"))
        self.b_top = W.Button(description="top", tooltip="re-focus on the top of the tree",
                              layout=W.Layout(width="60px"))
        self.summary = W.HTML()
        self.b_prev.on_click(lambda _: self.step(-1))
        self.b_next.on_click(lambda _: self.step(1))
        self.b_all.on_click(lambda _: self.reveal_all())
        self.b_top.on_click(lambda _: self.refocus(0))
        self.slider.observe(lambda ch: self._reveal(ch["new"]), "value")
        self.view.observe(self._on_select, "selected")
        self.view.observe(lambda ch: self.refocus(ch["new"]) if ch["new"] >= 0 else None, "focus_request")
        for c in (self.w_graph, self.w_alg, *self.w.values()):
            c.observe(lambda _: self.rebuild(), "value")
        self.options_box = W.HBox(layout=W.Layout(flex_flow="row wrap"))
        super().__init__([
            W.HBox([self.w_graph, self.w_alg]),
            self.options_box,
            W.HBox([self.play, self.b_prev, self.b_next, self.slider, self.b_all, self.b_top]),
            self.summary,
            self.view,
        ])
        self.rebuild()

    # -- state ----------------------------------------------------------
    @property
    def G(self):
        name = self.w_graph.value
        if self._G is not None and name == self.w_graph.options[0]:
            return self._G
        return GRAPHS[name]()

    def options(self) -> dict:
        return {k: self.w[k].value for k in ALGORITHMS[self.w_alg.value]}

    def rebuild(self):
        G = self.G
        bip = isinstance(G, BipartiteGraph)
        alg = self.w_alg.value
        if bip != (alg == "GMBE+ bicliques"):  # bicliques need a bipartite graph and back
            self.w_alg.value = "GMBE+ bicliques" if bip else "Bron–Kerbosch"
            return  # the change above calls rebuild again
        self.options_box.children = [self.w[k] for k in ALGORITHMS[alg]]
        self.tree = build_tree(G, alg, **self.options())
        self.view.graph = graph_layout(G)
        n = len(self.tree)
        self.view.title = f"{alg} on {G.name or 'graph'}"
        self.play.max = self.slider.max = max(n - 1, 1)
        s = self.tree.summary()
        skipped = sum(s["skipped"].values())
        self.summary.value = (
            f"<b>{s['nodes']}</b> search nodes, <b>{s['outputs']}</b> outputs, "
            f"{s['failed_checks']} failed checks, {sum(s['pruned'].values())} pruned, "
            f"{skipped} branches skipped, depth {s['max_depth']}, work {s['work']:.0f}")
        self.view.focus_request = -1
        self.refocus(0)
        self.slider.value = 0
        self._reveal(0)

    def refocus(self, focus: int):
        self.view.view = tree_view(self.tree, focus, self.max_nodes)
        self.view.focus_request = -1

    def _reveal(self, k: int):
        k = max(0, min(k, len(self.tree) - 1))
        self.view.revealed = k
        self.select(k)

    def _on_select(self, change):
        i = change["new"]
        if 0 <= i < len(self.tree):
            if i not in self.view.view.get("id", []):
                d = self.tree.depth[i]
                anc = self.tree.path(i)[max(0, d - 3)] if d > 3 else 0
                self.refocus(anc)
            self.view.panel = panel_state(self.tree, i)

    # -- actions --------------------------------------------------------
    def select(self, i: int):
        """Select node i (as a click does)."""
        if self.view.selected == i:
            self.view.panel = panel_state(self.tree, i)
        self.view.selected = i

    def step(self, k: int = 1):
        """Reveal the next (or previous) node in visiting order and select it."""
        self.slider.value = max(0, min(self.slider.value + k, self.slider.max))

    def reveal_all(self):
        self.view.revealed = -1

    def figure(self, **kw):
        """The same tree as a static matplotlib figure."""
        from .static import plot_tree

        return plot_tree(self.tree, **kw).figure


def explore(graph="mce-gpu Figure 1", algorithm: str | None = None, **options) -> Explorer:
    """Build an :class:`Explorer` (display it as the last expression of a cell)."""
    return Explorer(graph, algorithm, **options)
