"""Figures of notebook 90 (several GPUs through Dask), from ``mce_kit.experiments.multigpu``'s tables."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from .colours import PAPER_COLOR, colour, stamp_device


def plot_chunks(chunks: pd.DataFrame, title: str):
    """One bar per chunk on its worker's row, from the run's start: late binding at work."""
    fig, ax = plt.subplots(figsize=(6, 2.8))
    t0 = chunks["started"].min()
    for w, part in chunks.groupby("worker"):
        ax.barh([f"worker {w}"] * len(part), part["seconds"], left=part["started"] - t0, edgecolor="white")
    ax.set_xlabel("seconds since the first chunk started")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def plot_scaling(scaling: pd.DataFrame):
    """Speed-up over one GPU without Dask against the GPU count, one panel per kernel, the paper's
    multi-GPU number (where it gives one) as a star in the paper's colour."""
    algos = list(dict.fromkeys(scaling["algo"]))
    fig, axes = plt.subplots(1, len(algos), figsize=(3.6 * len(algos), 3.4), squeeze=False)
    for ax, algo in zip(axes[0], algos, strict=True):
        part = scaling[scaling["algo"] == algo]
        for i, ((g, prm), sub) in enumerate(part.groupby(["graph", "params"])):
            label = g if prm in ("{}", "") else f"{g} {prm}"
            ax.plot(sub["gpus"], sub["speedup_vs_single_kernel"], "o-", label=label, color=colour(label, i))
        p_gpus, p_speed = part["paper_gpus"].iloc[0], part["paper_speedup"].iloc[0]
        top = int(max(part["gpus"].max(), p_gpus))
        ax.plot([1, top], [1, top], ":", color="grey", label="linear")
        item = part["paper_item"].iloc[0]
        if pd.notna(p_speed):
            ax.plot([p_gpus], [p_speed], "*", ms=12, color=PAPER_COLOR, label=f"paper {item}: {p_speed}x")
            ax.set_title(algo, fontsize=9)
        else:
            ax.set_title(f"{algo}\n(paper {item}: no number)", fontsize=9)
        ticks = [2 ** i for i in range(top.bit_length()) if 2 ** i <= top]
        ax.set_xscale("log", base=2)
        ax.set_xticks(ticks, [str(t) for t in ticks])
        ax.set_xlabel("GPUs (Dask workers)")
        ax.legend(fontsize=6, frameon=False)
    axes[0][0].set_ylabel("speed-up over one GPU without Dask")
    fig.suptitle("Strong scaling of every kernel", fontsize=10)
    stamp_device(fig, scaling)
    fig.tight_layout()
    return fig


def plot_busy(busy: pd.DataFrame):
    """Busy seconds of each worker in the last timed run at the largest GPU count (numbers: chunks)."""
    top = busy[busy["gpus"] == busy["gpus"].max()]
    groups = list(top.groupby(["algo", "graph", "params"], sort=False))
    labels = [f"{a}: {g}" + ("" if prm == "{}" else f" {prm}") for (a, g, prm), _ in groups]
    fig, ax = plt.subplots(figsize=(max(7.0, 0.6 * len(groups)), 4.2))
    width = 0.8 / max(1, int(top.groupby(["algo", "graph", "params"]).size().max()))
    for i, (_, sub) in enumerate(groups):
        for j, r in enumerate(sub.itertuples()):
            x = i + width * (j - (len(sub) - 1) / 2)
            ax.bar(x, r.busy_s, width=width * 0.95, color=colour("", j),
                   label=f"worker {j}" if i == 0 else None)
            ax.text(x, r.busy_s, f"{r.chunks}", ha="center", va="bottom", fontsize=6)
    ax.set_xticks(range(len(labels)), labels, fontsize=6, rotation=45, ha="right")
    ax.set_ylabel("busy seconds (numbers: chunks)")
    ax.legend(fontsize=7, frameon=False)
    stamp_device(fig, busy)
    fig.tight_layout()
    return fig
