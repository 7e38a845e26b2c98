"""Figures of the mce-gpu notebook, from the tables of ``mce_kit.experiments.mcegpu``."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .colours import PAPER_COLOR, stamp_device

# red is kept for the paper's values
PHASE_COLOURS = {"build": "tab:blue", "pivot": "tab:orange", "set_ops": "tab:green",
                 "worker_list": "tab:purple"}



def plot_modes(modes: pd.DataFrame):
    """Table 3 as bars: time of L1/L2 x IP/IPX per graph (log scale), the heuristic's pick hatched."""
    wide = modes.pivot_table(index="graph", columns=["subtree", "induced"], values="median_ms", sort=False)
    auto = modes.groupby("graph", sort=False)["auto_mode"].first()
    fig, ax = plt.subplots(figsize=(10, 4))
    x = np.arange(len(wide))
    width = 0.8 / max(len(wide.columns), 1)
    for k, (s, i) in enumerate(wide.columns):
        bars = ax.bar(x + k * width, wide[(s, i)], width, label=f"{s} + {i}")
        for b, g in zip(bars, wide.index, strict=True):
            if s == "L1" and auto.get(g) == i:
                b.set_hatch("//")
    ax.set_xticks(x + 0.4 - width / 2, wide.index, rotation=20, ha="right")
    ax.set_yscale("log")
    ax.set_ylabel("GPU time (ms, log)")
    ax.set_title("Table 3: the four modes (hatched: the Δ/d heuristic's pick)")
    ax.legend(fontsize=8)
    stamp_device(fig, modes)
    fig.tight_layout()
    return fig


def plot_sm_load(wl: pd.DataFrame, paper: dict):
    """Fig 3: mean over graphs of max/mean SM load per configuration, the paper's value as a marker."""
    keys = [("L1", False), ("L2", False), ("L1", True), ("L2", True)]
    col = "sm_cycles_max_over_mean"
    ours = [wl[(wl["subtree"] == s) & (wl["worker_list"] == w)][col].mean() for s, w in keys]
    labels = [f"{s} {'+ WL' if w else 'no WL'}" for s, w in keys]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.bar(labels, ours, color="tab:blue", label="ours (mean over graphs)")
    ax.scatter(labels, [paper[k] for k in keys], color=PAPER_COLOR, marker="D", zorder=3, label="paper")
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.set_ylabel("max / mean busy cycles across SMs")
    ax.set_title("Fig 3: load across SMs")
    ax.legend(fontsize=8)
    stamp_device(fig, wl)
    fig.tight_layout()
    return fig


def plot_breakdown(profile: pd.DataFrame):
    """Fig 5: share of block cycles in build / pivot / set operations / worker list."""
    cols = [f"frac_{k}" for k in PHASE_COLOURS]
    df = profile.assign(config=profile["graph"] + " " + profile["subtree"] + "+" + profile["induced_mode"])
    fig, ax = plt.subplots(figsize=(10, 0.25 * len(df) + 1.5))
    left = np.zeros(len(df))
    for c, (k, colour) in zip(cols, PHASE_COLOURS.items(), strict=True):
        ax.barh(df["config"], df[c], left=left, color=colour, label=k)
        left += df[c].to_numpy()
    ax.invert_yaxis()
    ax.set_xlabel("share of measured block cycles")
    ax.set_title("Fig 5: where the time goes (profile build)")
    ax.legend(fontsize=8, ncol=4, loc="lower right")
    stamp_device(fig, profile)
    fig.tight_layout()
    return fig


def plot_vs_rdmce(modes: pd.DataFrame, rdmce: pd.DataFrame):
    """RDMCE's Fig 7 (time) and Fig 9 (device memory): RDMCE vs mce-gpu-P / mce-gpu-PX, same GPU."""
    l1 = modes[modes["subtree"] == "L1"]
    best = {i: l1[l1["induced"] == i].set_index("graph") for i in ("IP", "IPX")}
    r = rdmce.set_index("graph")
    graphs = [g for g in r.index if g in best["IP"].index or g in best["IPX"].index]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4))
    x = np.arange(len(graphs))
    for ax, col, title in ((axes[0], "median_ms", "Fig 7: time (ms, log)"),
                           (axes[1], "device_bytes", "Fig 9: device memory (MiB)")):
        scale = 1 if col == "median_ms" else 2**20
        ax.bar(x - 0.27, r.loc[graphs, col] / scale, 0.27, label="RDMCE")
        for k, i in enumerate(("IP", "IPX")):
            vals = [best[i].loc[g, col] / scale if g in best[i].index else np.nan for g in graphs]
            ax.bar(x + k * 0.27, vals, 0.27, label=f"mce-gpu-{'P' if i == 'IP' else 'PX'} (L1)")
        ax.set_xticks(x, graphs, rotation=20, ha="right")
        ax.set_yscale("log")
        ax.set_title(title)
        ax.legend(fontsize=8)
    stamp_device(fig, modes)
    fig.tight_layout()
    return fig


def plot_donations(tree, on, off, graph: str = ""):
    """The worker list on a toy graph (a CPU simulation): the tree coloured by the block that visited
    each node, donated branches starred; below, the blocks over time with the list (arrows: donations,
    ticks: a block joining the list) and without it."""
    from .static import plot_lanes, plot_tree

    fig, axes = plt.subplots(3, 1, figsize=(11, 9), layout="constrained",
                             gridspec_kw={"height_ratios": [1.3, 1, 1]})
    plot_tree(tree, ax=axes[0], owner=on.owner, pulls=on.arrows, handoff="donated", show_skipped=False,
              title=f"simulation: {tree.algorithm}{' on ' + graph if graph else ''}, nodes coloured by block")
    for ax, r, name in ((axes[1], on, "worker list on"), (axes[2], off, "worker list off")):
        plot_lanes(r, ax=ax, title=f"simulation: {name}, {r.p} blocks, makespan {r.makespan:.0f}, "
                                   f"{r.handoffs} donations")
        handles = list(ax.get_legend().legend_handles)
        joins = [(t, w) for t, w, ev, _, _ in r.events if ev == "wait"]
        if joins:
            handles.append(ax.scatter([t for t, _ in joins], [w for _, w in joins], marker="|", s=120,
                                      color="k", zorder=4, label="joins the worker list"))
        ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    right = max(on.makespan, off.makespan) * 1.02
    for ax in axes[1:]:
        ax.set_xlim(0, right)
    return fig
