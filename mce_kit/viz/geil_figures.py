"""Figures for Geil et al.'s maximum cliques, from the ``geil_*.csv`` tables (paper beside ours)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from ..measure import where_measured  # noqa: F401  (notebook 50 calls fig.where_measured)
from .colours import PAPER_COLOR, colour, colours, stamp_device


def plot_targets(targets: pd.DataFrame):
    """Our median time per target graph (default settings) beside Geil's H200 time and the 0.8x target."""
    d = targets[targets["variant"] == "default"]
    fig, ax = plt.subplots(figsize=(8, 3.5))
    x = range(len(d))
    ax.bar([i - 0.2 for i in x], d["paper_ms"], width=0.4, label="Geil et al., H200 (their code)",
           color=colour("authors"))
    ax.bar([i + 0.2 for i in x], d["ms"], width=0.4, label="mce_kit (ours)", color=colour("ours"))
    ax.scatter(list(x), d["target_ms"], marker="_", s=400, color="k", label="target 0.8x", zorder=3)
    ax.set_xticks(list(x), d["graph"], rotation=20)
    ax.set_ylabel("time (ms)")
    ax.legend(fontsize=8)
    stamp_device(fig, targets)
    fig.tight_layout()
    return fig


def plot_throughput(rows: pd.DataFrame):
    """Fig 2 and Fig 3: edges per second against average degree and against |E|, BFS and windowed."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for mode, marker in (("bfs", "o"), ("windowed", "s")):
        d = rows[rows["mode"] == mode]
        c = colour(mode, 0 if mode == "bfs" else 1)
        axes[0].scatter(d["avg_degree"], d["edges_per_s"], marker=marker, label=mode, alpha=0.7, color=c)
        axes[1].scatter(d["m"], d["edges_per_s"], marker=marker, label=mode, alpha=0.7, color=c)
    for ax, xl in zip(axes, ("average degree (Fig 2)", "|E| (Fig 3)"), strict=True):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(xl)
        ax.set_ylabel("edges / s")
        ax.legend(fontsize=8)
    stamp_device(fig, rows)
    fig.tight_layout()
    return fig


def window_table(windows: pd.DataFrame) -> pd.DataFrame:
    """Fig 6: peak memory and time of each window size relative to full breadth first, per graph."""
    full = windows[windows["window"] == 0].set_index("graph")
    w = windows[windows["window"] > 0].copy()
    w["memory_vs_full"] = w["peak_bytes"] / w["graph"].map(full["peak_bytes"])
    w["time_vs_full"] = w["ms"] / w["graph"].map(full["ms"])
    return w[["graph", "window", "windows", "peak_bytes", "memory_vs_full", "ms", "time_vs_full"]]


def plot_windows(windows: pd.DataFrame, paper: dict):
    """Fig 6: memory and time of windowed runs relative to full BFS, the paper's range marked."""
    t = window_table(windows)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for i, (g, d) in enumerate(t.groupby("graph", sort=False)):
        axes[0].plot(d["window"], d["memory_vs_full"], marker="o", label=g, color=colour(g, i))
        axes[1].plot(d["window"], d["time_vs_full"], marker="o", label=g, color=colour(g, i))
    lo, hi = paper["memory_saving"]
    axes[0].axhspan(1 - hi, 1 - lo, color=PAPER_COLOR, alpha=0.15,
                    label=f"paper: {1 - hi:.0%}-{1 - lo:.0%} of full")
    axes[1].scatter([1024, 32768], [paper["runtime_1024"], paper["runtime_32768"]], color=PAPER_COLOR,
                    marker="*", s=120, zorder=3, label="paper")
    for ax, yl in zip(axes, ("peak memory / full BFS", "time / full BFS"), strict=True):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("window (level-2 entries)")
        ax.set_ylabel(yl)
    axes[0].legend(fontsize=7)
    axes[1].legend(fontsize=7)
    stamp_device(fig, windows)
    fig.tight_layout()
    return fig


def plot_heuristics(h: pd.DataFrame):
    """Fig 5: heuristic time and how much it prunes (clique-list entries), per graph and heuristic."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    piv_t = h.pivot_table(index="graph", columns="heuristic", values="heuristic_ms", sort=False)
    piv_e = h.pivot_table(index="graph", columns="heuristic", values="entries", sort=False)
    piv_t.plot.bar(ax=axes[0], rot=20, color=colours(piv_t.columns))
    piv_e.plot.bar(ax=axes[1], rot=20, logy=True, color=colours(piv_e.columns))
    axes[0].set_ylabel("heuristic time (ms)")
    axes[1].set_ylabel("clique-list entries (less = more pruning)")
    for ax in axes:
        ax.legend(fontsize=7)
    stamp_device(fig, h)
    fig.tight_layout()
    return fig
