"""Matplotlib renderings of trees, graphs, bit grids and worker lanes (for figures/ and no-JS readers)."""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator

from .layout import STATUS_COLOURS, graph_layout, tree_view

HOW_COLOURS = {"seed": "#4c78a8", "pull": "#f58518", "donated": "#e45756", "task": "#54a24b"}
ROLE_COLOURS = {"R": "#2e9d4f", "P": "#4c78a8", "X": "#d1495b", "L": "#2e9d4f", "C": "#4c78a8", "": "#dddddd"}


def _ax(ax, size=(8, 4)):
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=size)
    return ax


def plot_tree(tree, ax=None, *, focus: int = 0, max_nodes: int = 400, owner=None, labels: bool | None = None,
              title: str | None = None, show_skipped: bool = True, pulls=(), handoff: str = "pulled"):
    """Draw (part of) a search tree: colour = status, ring = output, "+N" = collapsed sub-tree.

    ``owner``: an array (e.g. ``SimResult.owner``) to colour nodes by worker instead; the
    legend then names the workers. ``pulls``: hand-offs to mark, as ``SimResult.arrows``
    ((time, from worker, to worker, node)); each taken node gets a star, and "w1→w3" when
    at most 12 are drawn; ``handoff`` names them in the legend ("pulled", "donated").
    Legends sit outside the axes, so they never cover a node.
    """
    ax = _ax(ax)
    v = tree_view(tree, focus, max_nodes, show_skipped=show_skipped)
    x, y = np.array(v["x"]), np.array(v["y"], dtype=float)
    for j, p in enumerate(v["parent"]):
        if p >= 0:
            dashed = v["status"][j] == "skipped"
            ax.plot([x[p], x[j]], [y[p], y[j]], color="#bbbbbb", lw=0.8, ls=":" if dashed else "-", zorder=1)
    if owner is not None:
        col = [worker_colour(owner[i]) for i in v["id"]]
    else:
        col = [STATUS_COLOURS[s] for s in v["status"]]
    size = 60 if len(x) <= 80 else max(6, 3000 / len(x))
    ax.scatter(x, y, s=size, c=col, zorder=2, edgecolors=["k" if o else "none" for o in v["output"]],
               linewidths=1.5)
    labels = len(x) <= 80 if labels is None else labels
    stubs = sum(1 for h in v["hidden"] if h)
    for j in range(len(x)):
        if labels and v["status"][j] != "forest":
            ax.annotate(v["label"][j], (x[j], y[j]), xytext=(0, 6), textcoords="offset points", ha="center",
                        fontsize=7)
        if v["hidden"][j] and (stubs <= 40 or v["hidden"][j] >= 20):
            ax.annotate(f"+{v['hidden'][j]}", (x[j], y[j]), xytext=(0, -10), textcoords="offset points",
                        ha="center", fontsize=6, color="#555555")
    at = {node: j for j, node in enumerate(v["id"])}
    shown = [a for a in pulls if a[3] in at]
    for _, src, dst, node in shown:
        if node in at:
            j = at[node]
            ax.scatter(x[j], y[j], s=size * 3.5, marker="*", facecolors="none", edgecolors="k",
                       linewidths=0.8, zorder=3)
            if len(shown) <= 12:  # more labels would overlap: the star alone marks the pull
                ax.annotate(f"w{src}→w{dst}", (x[j], y[j]), xytext=(0, -12), textcoords="offset points",
                            ha="center", fontsize=6, color="#333333")
    ax.invert_yaxis()
    ax.set_xticks([])
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("depth")
    s = tree.summary()
    ax.set_title(title or f"{tree.algorithm}: {s['nodes']} nodes, {s['outputs']} outputs", fontsize=9)
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    from matplotlib.lines import Line2D

    if owner is None:
        present = [st for st in STATUS_COLOURS if st in v["status"] and st != "forest"]
        handles = [Line2D([], [], marker="o", ls="", color=STATUS_COLOURS[st], label=st) for st in present]
    else:
        workers = sorted({int(owner[i]) for i in v["id"] if owner[i] >= 0})
        handles = [Line2D([], [], marker="o", ls="", color=worker_colour(w), label=f"worker {w}")
                   for w in workers[:20]]
        if len(workers) > 20:
            handles.append(Line2D([], [], ls="", label=f"(+{len(workers) - 20} more, colours repeat)"))
        if pulls:
            handles.append(Line2D([], [], marker="*", ls="", mfc="none", mec="k", ms=9,
                                  label=f"{handoff} branch"))
    ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False,
              ncol=2 if len(handles) > 12 else 1)
    return ax


def plot_trees(trees: dict, *, title: str = "", width: float = 5.5, height: float = 3.2, **kw):
    """Several trees side by side, one axis each, titled by their keys (e.g. a switch off and on).

    Each title adds the tree's node count, outputs and (where any failed) maximality checks that
    failed; ``title`` goes
    above them all, ``kw`` to :func:`plot_tree`. Returns the figure.
    """
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(trees), figsize=(width * len(trees), height), layout="constrained",
                             squeeze=False)
    if title:
        fig.suptitle(title, fontsize=10)
    summaries = {name: tree.summary() for name, tree in trees.items()}
    checks = any(s["failed_checks"] for s in summaries.values())
    for ax, (name, tree) in zip(axes[0], trees.items(), strict=True):
        s = summaries[name]
        plot_tree(tree, ax=ax, title=f"{name}: {s['nodes']} nodes, {s['outputs']} outputs"
                  + (f", {s['failed_checks']} failed checks" if checks else ""), **kw)
    return fig


def worker_colour(w):
    """The colour of worker ``w`` in every per-worker plot (tab20, repeating after 20)."""
    import matplotlib.pyplot as plt

    return plt.get_cmap("tab20")(int(w) % 20) if w >= 0 else "#dddddd"


def plot_graph(G, ax=None, *, roles: dict | None = None, cliques=(), title: str | None = None, seed: int = 1):
    """Draw a small graph; ``roles`` maps vertex -> "R"/"P"/"X"/"L"/"C", ``cliques`` get thick edges."""
    ax = _ax(ax, (4, 4))
    lay = graph_layout(G, seed)
    pos = {d["key"]: (d["x"], d["y"]) for d in lay["nodes"]}
    thick = set()
    for c in cliques:
        c = [f"V:{v}" for v in c]
        for a in range(len(c)):
            for b in range(a + 1, len(c)):
                thick.add(frozenset((c[a], c[b])))
    for a, b in lay["edges"]:
        hot = frozenset((a, b)) in thick
        ax.plot(*zip(pos[a], pos[b], strict=True), color="#2e9d4f" if hot else "#cccccc", lw=3 if hot else 1,
                zorder=1)
    roles = roles or {}
    for d in lay["nodes"]:
        r = roles.get(d["key"], roles.get(d["label"], ""))
        ax.scatter(*pos[d["key"]], s=380, color=ROLE_COLOURS.get(r, "#dddddd"), zorder=2, edgecolors="k",
                   linewidths=0.5)
        ax.text(*pos[d["key"]], d["label"], ha="center", va="center", fontsize=8, zorder=3)
    ax.set_axis_off()
    ax.set_title(title or getattr(G, "name", ""), fontsize=9)
    return ax


def plot_bitgrid(tree, i: int, ax=None, *, mask: str | None = None):
    """The bitmap grid node ``i`` reads; columns of ``mask`` (e.g. "P_b") shaded."""
    ax = _ax(ax, (4, 3))
    node = tree.node(i)
    if node.grid < 0:
        ax.text(0.5, 0.5, "no bitmap at this node", ha="center")
        ax.set_axis_off()
        return ax
    g = tree.grids[node.grid]
    M = np.array(g.bit_rows(), dtype=float).reshape(len(g.rows), len(g.col_labels))
    ax.imshow(M, cmap="Greys", vmin=0, vmax=1.6, aspect="auto")
    if mask and node.bits and mask in node.bits:
        for j in range(len(g.col_labels)):
            if node.bits[mask] >> j & 1:
                ax.axvspan(j - 0.5, j + 0.5, color="#4c78a8", alpha=0.25)
    ax.set_xticks(range(len(g.col_labels)), [tree.label(v, g.col_side) for v in g.col_labels], fontsize=7)
    ax.set_yticks(range(len(g.rows)), [tree.label(v, g.row_side) for v in g.row_labels], fontsize=7)
    ax.set_title(g.title, fontsize=8)
    return ax


def plot_lanes(result, ax=None, *, max_lanes: int = 64, arrows: bool = True, title: str | None = None):
    """Simulated workers as lanes over time; hand-offs drawn as arrows (first ``max_lanes`` workers)."""
    ax = _ax(ax, (8, 3.5))
    lanes = min(result.p, max_lanes)
    for w, s, e, _, how in result.segments:
        if w < lanes:
            ax.broken_barh([(s, e - s)], (w - 0.4, 0.8), facecolor=HOW_COLOURS.get(how, "#999999"),
                           edgecolor="white", lw=0.5)
    if arrows:
        for t, src, dst, _ in result.arrows:
            if src < lanes and dst < lanes:
                ax.annotate("", (t, dst), (t, src), arrowprops={"arrowstyle": "->", "color": "#333333",
                                                                "lw": 0.6})
    ax.set_ylim(lanes - 0.5, -0.5)
    ax.set_xlim(0, result.makespan * 1.01 if result.makespan else 1)
    ax.set_xlabel("simulated time (work units)")
    ax.set_ylabel("worker")
    from matplotlib.patches import Patch

    hows = sorted({s[4] for s in result.segments})
    ax.legend(handles=[Patch(color=HOW_COLOURS.get(h, "#999999"), label=h) for h in hows], fontsize=7,
              loc="upper right", frameon=False)
    ax.set_title(title or f"simulation: {result.scheme}, p={result.p}, makespan {result.makespan:.0f}",
                 fontsize=9)
    return ax
