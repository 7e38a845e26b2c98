"""Figures and widgets: static matplotlib renderings and the interactive explorer.

    from mce_kit import viz
    viz.plot_tree(tree)                  # matplotlib, for figures/ and no-JS readers
    viz.explore("mce-gpu Figure 1")      # anywidget + ipywidgets explorer (JupyterLab)
    viz.lanes(sim_result)                # simulated workers as lanes over time
    viz.paper_vs_ours(rows)              # paper / ours / ratio table (every reproduction notebook)
    viz.mark_paper(ax, 24, "paper's best tau", axis="x")   # the paper's value on a plot
    viz.step_table(G, "mce-gpu")         # the explorer's steps as a table (no widget needed)

The widget modules import anywidget and ipywidgets only when first used.
"""

from importlib import import_module

_EXPORTS = {
    "plot_tree": "static", "plot_trees": "static", "plot_graph": "static", "plot_bitgrid": "static",
    "plot_lanes": "static",
    "tree_view": "layout", "graph_layout": "layout", "step_table": "steps",
    "Explorer": "explorer", "explore": "explorer", "lanes": "explorer", "TreeView": "explorer",
    "LanesView": "explorer", "panel_state": "explorer", "worker_colour": "static",
    "paper_vs_ours": "paper", "mark_paper": "paper", "spread": "paper", "inside_spread": "paper",
    "errorbars": "paper", "run_times": "paper",
    "colour": "colours", "colours": "colours", "stamp_device": "colours",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module 'mce_kit.viz' has no attribute {name!r}")
