"""Static step tables: what the explorer steps through, as a pandas DataFrame.

A widget needs a live kernel; a table shows on GitHub, nbviewer and in a
notebook run headless. Every explorer cell of the notebooks has one beside it:

    viz.explore(G, "mce-gpu", seeds="vertex")       # the widget
    viz.step_table(G, "mce-gpu", seeds="vertex")    # the same tree, node by node
"""

from __future__ import annotations

import pandas as pd

from ..sim.tree import SearchTree
from ..sim.workers import SimResult

_INF = float("inf")


def step_table(what, algorithm: str | None = None, *, tree: SearchTree | None = None,
               **options) -> pd.DataFrame:
    """One row per step, in the order the explorer reveals them.

    ``what`` is a :class:`~mce_kit.sim.tree.SearchTree`; a graph (a name from the
    explorer's list, a ``Graph`` or a ``BipartiteGraph``) with ``algorithm`` and the
    explorer's options, giving the very tree ``viz.explore(what, algorithm, **options)``
    shows; or a :class:`~mce_kit.sim.workers.SimResult` (the event log; ``tree`` names
    the nodes' sets).

    A tree's row: the node id (its visiting step), parent, depth, kind, status, its sets
    (R, P, X or L, R, C, by vertex label), pivot, maximality check, output, work, the
    reason it was pruned or skipped, and the model's extras (e.g. density, node_buf
    depths, X_X with its level pointers).
    """
    if isinstance(what, SimResult):
        return what.steps(tree)
    if not isinstance(what, SearchTree):
        from .catalog import GRAPHS, build_tree

        G = GRAPHS[what]() if isinstance(what, str) else what
        what = build_tree(G, algorithm or "Bron–Kerbosch", **options)
    return _tree_rows(what)


def _fmt_set(tree, name, verts) -> str:
    return "{" + ",".join(tree.label_set(name, verts)) + "}"


def _fmt_extra(tree, key, v) -> str:
    if key in ("X_X", "moved") and isinstance(v, tuple):
        return ",".join(tree.label(x) for x in v)
    if isinstance(v, dict):
        return " ".join(f"{a}:{'∞' if b == _INF else b}" for a, b in v.items())
    if isinstance(v, list | tuple):
        return ",".join(str(x) for x in v)
    return str(v)


def _tree_rows(tree: SearchTree) -> pd.DataFrame:
    names = []
    for i in range(len(tree)):
        for k in tree.sets(i):
            if k not in names:
                names.append(k)
    rows = []
    for i in range(len(tree)):
        node = tree.node(i)
        if node.kind == "forest":
            continue
        row = {"step": i, "parent": node.parent, "depth": node.depth, "kind": node.kind,
               "status": node.status}
        for k in names:
            row[k] = _fmt_set(tree, k, node.sets[k]) if k in node.sets else ""
        row["pivot"] = tree.label(node.pivot) if node.pivot is not None else ""
        row["check"] = {None: "", True: "maximal", False: "not maximal"}[node.check]
        o = node.output
        if o is None:
            row["output"] = ""
        elif isinstance(o[0], tuple):  # a biclique (L, R)
            row["output"] = f"({_fmt_set(tree, 'L', o[0])}, {_fmt_set(tree, 'R', o[1])})"
        else:
            row["output"] = _fmt_set(tree, "R", o)
        row["work"] = node.work
        why = node.reason or ""
        if node.status == "skipped":
            why = f"{node.note or ''}: {why}"
        elif node.note:
            why = f"{why}; {node.note}" if why else node.note
        row["why"] = why
        row["extras"] = "; ".join(f"{k}={_fmt_extra(tree, k, v)}" for k, v in (node.extra or {}).items())
        rows.append(row)
    return pd.DataFrame(rows).set_index("step")
