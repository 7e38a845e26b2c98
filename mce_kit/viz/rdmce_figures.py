"""Figures of the RDMCE notebook, drawn from the tidy tables of
``mce_kit.experiments.rdmce`` (measured, never simulated)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import matplotlib.ticker as mticker
import numpy as np
import pandas as pd


def where_measured(df: pd.DataFrame) -> str:
    """'NVIDIA H100 80GB HBM3, 132 SMs, 2026-11-21' from a result table's provenance columns."""
    row = df.iloc[0]
    return f"{row['gpu']}, {row['sms']} SMs, {str(row['date'])[:10]}"


def variant_table(df: pd.DataFrame) -> pd.DataFrame:
    """One row per graph: the time of each variant and the ratios the paper reports."""
    t = df.pivot(index="graph", columns="variant", values="median_ms")
    mem = df.pivot(index="graph", columns="variant", values="device_bytes")
    out = pd.DataFrame({
        "RDMCE ms": t["RDMCE"],
        "exposure speed-up (NB / RDMCE)": t["RDMCE-NB"] / t["RDMCE"],
        "aggressive speed-up (NP / RDMCE)": t["RDMCE-NP"] / t["RDMCE"],
        "edge over vertex seeds": t["vertex seeds"] / t["RDMCE"],
        "device MiB": mem["RDMCE"] / 2**20,
    })
    order = df.drop_duplicates("graph")["graph"]
    return out.loc[order]


def plot_variants(df: pd.DataFrame):
    """Fig 8, Table 2 and Fig 10 side by side: time of each variant relative to RDMCE."""
    t = variant_table(df)
    cols = ["exposure speed-up (NB / RDMCE)", "aggressive speed-up (NP / RDMCE)", "edge over vertex seeds"]
    fig, ax = plt.subplots(figsize=(9, 3.6))
    x = np.arange(len(t))
    for i, c in enumerate(cols):
        ax.bar(x + (i - 1) * 0.27, t[c], width=0.27, label=c)
    ax.axhline(1, color="k", lw=0.8)
    ax.set_yscale("log")
    ax.set_xticks(x, t.index, rotation=30, ha="right")
    ax.set_ylabel("time of variant / time of RDMCE")
    ax.set_title(f"RDMCE ablations (measured on {where_measured(df)})", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_sweep(df: pd.DataFrame, param: str, paper_best: int | None = None):
    """Fig 11 (warps_per_sm) or Fig 12 (tau): time relative to each graph's best value."""
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    for graph, g in df.groupby("graph", sort=False):
        g = g.sort_values(param)
        ax.plot(g[param], g["median_ms"] / g["median_ms"].min(), marker="o", label=graph)
    if paper_best is not None:
        ax.axvline(paper_best, color="gray", ls="--", lw=1, label=f"paper's best ({paper_best})")
    ax.set_xlabel(param)
    ax.set_ylabel("time / best time")
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(mticker.LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(mticker.FormatStrFormatter("%g"))
    ax.yaxis.set_minor_formatter(mticker.NullFormatter())
    ax.set_title(f"{param} sweep (measured on {where_measured(df)})", fontsize=10)
    ax.legend(fontsize=7, ncol=2, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    return fig


def plot_load(df: pd.DataFrame):
    """Busy cycles of every warp, sorted, with and without root-down exposure."""
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for variant, g in df.groupby("variant", sort=False):
        c = np.sort(g["busy_cycles"].to_numpy())[::-1]
        ax.plot(np.arange(len(c)), c / c.mean(), label=f"{variant}: max/mean = {c.max() / c.mean():.2f}")
    ax.set_xlabel("warps, busiest first")
    ax.set_ylabel("busy cycles / mean")
    ax.set_title(f"Per-warp load on {df['graph'].iloc[0]} ({where_measured(df)})", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_scale(df: pd.DataFrame):
    """R-MAT scale series: kernel time, device memory and count per scale (log scales)."""
    df = df.sort_values("scale")
    ran = df.dropna(subset=["median_ms"])  # scales past the kernel's limit have host timings only
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.4))
    axes[0].plot(ran["scale"], ran["median_ms"] / 1e3, marker="o", label="RDMCE (GPU)")
    if "prepare_s" in df:
        axes[0].plot(df["scale"], df["prepare_s"], marker="s", ls="--", label="prepare (CPU)")
    axes[0].set_ylabel("seconds")
    axes[0].legend(fontsize=7)
    axes[1].plot(ran["scale"], ran["device_bytes"] / 2**20, marker="o", label="planned buffers")
    axes[1].plot(ran["scale"], ran["pool_peak_bytes"] / 2**20, marker="s", ls="--", label="CuPy pool peak")
    axes[1].set_ylabel("device MiB")
    axes[1].legend(fontsize=7)
    axes[2].plot(ran["scale"], ran["count"], marker="o", label="maximal cliques (GPU)")
    checked = df.dropna(subset=["oracle"])
    axes[2].plot(checked["scale"], checked["oracle"], "kx", ms=9, label="CPU oracle")
    axes[2].set_ylabel("maximal cliques")
    axes[2].legend(fontsize=7)
    for ax in axes:
        ax.set_yscale("log")
        ax.set_xlabel("R-MAT scale (2^scale vertices)")
    fig.suptitle(f"RDMCE on R-MAT graphs (measured on {where_measured(df)})", fontsize=10)
    fig.tight_layout()
    return fig


def plot_streaming(df: pd.DataFrame, target: dict | None = None):
    """Time of each task over the plain count, per graph, with the issue's targets marked."""
    t = df.pivot(index="graph", columns="task", values="over_count")
    t = t[[c for c in df["task"].drop_duplicates() if c != "count"]]
    fig, ax = plt.subplots(figsize=(7.5, 3.4))
    x = np.arange(len(t))
    w = 0.8 / max(1, len(t.columns))
    for i, c in enumerate(t.columns):
        ax.bar(x + (i - (len(t.columns) - 1) / 2) * w, t[c], width=w, label=c)
    for name, value in (target or {}).items():
        ax.axhline(value, color="gray", ls="--", lw=1)
        ax.text(len(t) - 0.5, value, f" target {name}: {value}x", va="bottom", ha="right", fontsize=7)
    ax.axhline(1, color="k", lw=0.8)
    ax.set_xticks(x, t.index)
    ax.set_ylabel("time / time of the plain count")
    ax.set_title(f"Sizes and streaming at counting speed ({where_measured(df)})", fontsize=10)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
