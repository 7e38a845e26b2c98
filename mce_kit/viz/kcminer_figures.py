"""Figures of the KCMiner notebook, drawn from the tables of ``mce_kit.experiments.kcminer`` (measured)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .colours import PAPER_COLOR, colour, stamp_device
from .paper import mark_paper
from .rdmce_figures import where_measured

__all__ = ["where_measured", "table2_view", "plot_table2", "ablation_view", "plot_ablation", "plot_lanes",
           "switches_view", "plot_switches",
           "bitmap_view", "plot_bitmap"]


def table2_view(df: pd.DataFrame) -> pd.DataFrame:
    """Graph x K times (ms), with KCGPU's H200 times and the targets where the issue gives them."""
    t = df.pivot_table(index="graph", columns="k", values="gpu_ms", sort=False)
    t.columns = [f"K={k} ms" for k in t.columns]
    extra = df.dropna(subset=["kcgpu_h200_ms"]).assign(
        cell=lambda d: "K=" + d["k"].astype(str) + ": ours " + d["gpu_ms"].round(1).astype(str)
        + " / KCGPU " + d["kcgpu_h200_ms"].astype(str) + " ms (ratio "
        + (d["kcgpu_h200_ms"] / d["gpu_ms"]).round(2).astype(str) + "x)")
    t["vs KCGPU (H200)"] = extra.groupby("graph")["cell"].agg("; ".join)
    t["exact"] = df.groupby("graph", sort=False)["exact"].all()
    return t


def plot_table2(df: pd.DataFrame):
    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    for graph, g in df.groupby("graph", sort=False):
        ax.plot(g["k"], g["gpu_ms"], marker="o", label=graph)
    kc = df.dropna(subset=["kcgpu_h200_ms"])
    ax.scatter(kc["k"], kc["kcgpu_h200_ms"], marker="x", color="k", zorder=5,
               label="KCGPU (authors' code, H200)")
    ax.set_yscale("log")
    ax.set_xlabel("K")
    ax.set_ylabel("ms (graph on host -> count back)")
    ax.set_title(f"Table 2: KCMiner time by K (measured on {where_measured(df)})", fontsize=10)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return fig


def ablation_view(df: pd.DataFrame) -> pd.DataFrame:
    """Fig 7: time of each switch set, and its reduction against thread-parallel alone."""
    t = df.pivot_table(index="graph", columns="variant", values="gpu_ms", sort=False)
    cols = [c for c in df.drop_duplicates("variant")["variant"] if c in t.columns]
    t = t[cols]
    red = 1 - t.div(t["thread-parallel"], axis=0)
    red.columns = [f"{c} reduction" for c in cols]
    return pd.concat([t.round(2), red.round(3)], axis=1)


def plot_ablation(df: pd.DataFrame, paper: dict):
    t = df.pivot_table(index="graph", columns="variant", values="gpu_ms", sort=False)
    cols = [c for c in df.drop_duplicates("variant")["variant"] if c in t.columns]
    red = 1 - t[cols].div(t["thread-parallel"], axis=0)
    fig, ax = plt.subplots(figsize=(8.5, 3.8))
    x = np.arange(len(cols))
    w = 0.8 / max(1, len(red))
    for i, (graph, row) in enumerate(red.iterrows()):
        ax.bar(x + (i - len(red) / 2) * w, row.values * 100, width=w, label=graph, color=colour(graph, i))
    for j, c in enumerate(cols):
        if c in paper:
            ax.scatter([j], [paper[c] * 100], marker="*", s=120, color=PAPER_COLOR, zorder=5,
                       label="paper (V100)" if j == 1 else None)
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xticks(x, cols, rotation=20, ha="right")
    ax.set_ylabel("time saved vs thread-parallel (%)")
    ax.set_title(f"Fig 7: ablation at K = 7 (measured on {where_measured(df)})", fontsize=10)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_lanes(df: pd.DataFrame, paper_ratio: float):
    fig, ax = plt.subplots(figsize=(7, 3.6))
    graphs = list(dict.fromkeys(df["graph"]))
    for (graph, sched), g in df.groupby(["graph", "scheduling"], sort=False):
        ax.plot(g["k"], g["active_lanes"], marker="o" if sched else "s", ls="-" if sched else "--",
                label=f"{graph}, {'with' if sched else 'without'} scheduling",
                color=colour(graph, graphs.index(graph)))
    ax.axhline(32, color="gray", lw=0.8)
    ax.set_xlabel("K")
    ax.set_ylabel("mean active lanes per warp")
    ax.set_title(f"Fig 8: active lanes (paper: {paper_ratio}x more with scheduling at K = 7)", fontsize=10)
    ax.set_xticks(sorted(df["k"].unique()))
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))  # outside the data
    stamp_device(fig, df)
    fig.tight_layout()
    return fig


def bitmap_view(df: pd.DataFrame) -> pd.DataFrame:
    """Fig 9: mean cycles per task by density bin, bitmap at level 2 vs level 3."""
    d = df[df["tasks"] > 0].assign(cycles_per_task=lambda x: x["cycles"] / x["tasks"])
    t = d.pivot_table(index=["graph", "k", "gamma_lo"], columns="level", values="cycles_per_task")
    t.columns = [f"level {c} cycles/task" for c in t.columns]
    if {"level 2 cycles/task", "level 3 cycles/task"} <= set(t.columns):
        t["level 3 / level 2"] = t["level 3 cycles/task"] / t["level 2 cycles/task"]
    return t


def plot_bitmap(df: pd.DataFrame):
    t = bitmap_view(df).reset_index()
    ks = sorted(t["k"].unique())
    fig, axes = plt.subplots(1, len(ks), figsize=(4.2 * len(ks), 3.4), squeeze=False)
    for ax, k in zip(axes[0], ks, strict=True):
        for i, (graph, g) in enumerate(t[t["k"] == k].groupby("graph", sort=False)):
            if "level 3 / level 2" in g:
                ax.plot(g["gamma_lo"] * 100, g["level 3 / level 2"], marker="o", label=graph,
                        color=colour(graph, i))
        ax.axhline(1, color="k", lw=0.8)
        if k == 6:
            mark_paper(ax, 25, "paper: level 3 wins below", axis="x", text=False)
        ax.set_yscale("log")
        ax.set_xlabel("density gamma of the edge's bitmap (%)")
        ax.set_ylabel("time at level 3 / level 2")
        ax.set_title(f"Fig 9, K = {k}", fontsize=10)
        ax.legend(fontsize=7)
    stamp_device(fig, df)
    fig.tight_layout()
    return fig


def switches_view(df: pd.DataFrame) -> pd.DataFrame:
    """Time (ms) of the full kernel and of each variant with one switch off, by graph, order and K."""
    t = df.pivot_table(index=["graph", "order", "k"], columns="variant", values="gpu_ms", sort=False)
    cols = ["default", "nosched", "nosize", "level2", "level3", "ws16", "ws64"]
    return t[[c for c in cols if c in t.columns]]


def plot_switches(df: pd.DataFrame, k: int = 8):
    """Leave-one-out at one K: time with a switch off over the full kernel's time."""
    t = switches_view(df).xs(k, level="k")
    r = t.div(t["default"], axis=0).drop(columns="default")
    fig, ax = plt.subplots(figsize=(8, 3.6))
    x = np.arange(len(r.columns))
    w = 0.8 / max(1, len(r))
    for i, (key, row) in enumerate(r.iterrows()):
        ax.bar(x + (i - len(r) / 2) * w, row.values, width=w, label=" / ".join(map(str, key)))
    ax.axhline(1, color="k", lw=0.8)
    labels = {"nosched": "no lane scheduling", "nosize": "no size specialisation",
              "level2": "bitmap at level 2", "level3": "bitmap at level 3", "ws16": "16 warps/SM",
              "ws64": "64 warps/SM"}
    ax.set_xticks(x, [labels.get(c, c) for c in r.columns], rotation=20, ha="right")
    ax.set_ylabel("time / full kernel's time")
    ax.set_title(f"One switch off at a time, K = {k} (no such number in the paper; {where_measured(df)})",
                 fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_lane_queue(rounds: pd.DataFrame, lanes: int = 32, title: str = "",
                    fires: pd.DataFrame | None = None):
    """One edge task's lane queue, round by round (a replay of the kernel's scan, not a GPU run):
    entries waiting after each push, the fire threshold (``lanes``) and the buffer's size (2 x lanes);
    with ``fires``, the partial group run when the scan ends."""
    fig, ax = plt.subplots(figsize=(7.5, 3.4), layout="constrained")
    r = rounds["round"].to_numpy()
    before = rounds["queued"] - rounds["pushed"]
    ax.bar(r, before, color="#bbbbbb", label="waiting from earlier rounds")
    ax.bar(r, rounds["pushed"], bottom=before, color="#4c78a8",
           label="pushed this round (popc of the ballot)")
    fired = rounds[rounds["fired"] > 0]
    ax.scatter(fired["round"], fired["queued"] + 1.5, marker="v", s=70, color="#e45756", zorder=4,
               label=f"fire: every lane takes one pair ({lanes})")
    if fires is not None:
        for _, f in fires[fires["end"]].iterrows():
            ax.scatter([f["round"] + 0.45], [f["size"] + 1.5], marker="v", s=70, facecolors="none",
                       edgecolors="#e45756", zorder=4, label=f"scan over: the last {f['size']} pairs run")
    ax.axhline(lanes, color="#e45756", ls="--", lw=1, label=f"fire threshold ({lanes} lanes)")
    ax.axhline(2 * lanes, color="k", lw=1, label=f"buffer size ({2 * lanes} entries)")
    ax.set_xticks(r)
    ax.set_xlabel("scan round (each lane takes its next set bit)")
    ax.set_ylabel("pairs (i, j) in the queue")
    ax.set_ylim(0, 2 * lanes + 6)
    ax.set_title(title or "simulation: the lane queue of one edge task", fontsize=9)
    fig.legend(loc="outside right upper", fontsize=7, frameon=False)
    return fig
