"""Figures of notebook 40 (GMBE+) from the ``gmbe_*.csv`` tables; the paper's values marked."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ..experiments.gmbe import LEVEL_VARIANTS
from ..measure import where_measured  # noqa: F401  (notebook 40 calls fig.where_measured)
from .colours import colour, colours, stamp_device
from .paper import mark_paper


def speed_table(table1: pd.DataFrame) -> pd.DataFrame:
    """Ours beside the authors' GMBE on an H200 and the 1.25x target, per graph."""
    t = table1.set_index("graph")
    return pd.DataFrame({
        "maximal bicliques": t["count"], "GMBE (authors, H200) ms": t["gmbe_h200_ms"],
        "target ms": t["target_ms"], "ours ms": t["median_ms"].round(2),
        "speed-up vs GMBE": (t["gmbe_h200_ms"] / t["median_ms"]).round(2),
        "target met": t["median_ms"] <= t["target_ms"],
    })


def ablation_table(ab: pd.DataFrame) -> pd.DataFrame:
    """Time of each variant relative to GMBE+ (>1: the variant is slower), per graph."""
    piv = ab.pivot(index="graph", columns="variant", values="median_ms")
    cols = [c for c in ["GMBE+", "w/o PRUNE", "w/o BITMAP", "w/o UNION", "WARP", "BLOCK"] if c in piv]
    return piv[cols].div(piv["GMBE+"], axis=0)


def plot_ablations(ab: pd.DataFrame, paper: dict):
    rel = ablation_table(ab)
    fig, ax = plt.subplots(figsize=(8, 3.6))
    rel.plot.bar(ax=ax, logy=True, rot=0, color=colours(rel.columns))
    ax.axhline(1, color="k", lw=0.8)
    # each paper line in its variant's colour (red would read as a variant)
    mark_paper(ax, paper["over_warp"], "paper: WARP", color=colour("WARP"), text=False)
    mark_paper(ax, paper["over_block"], "paper: BLOCK", color=colour("BLOCK"), text=False)
    ax.set_ylabel("time / GMBE+ time")
    ax.set_title("Fig 10: ablations (bars: ours; dashed: the paper's mean slow-downs)", fontsize=10)
    stamp_device(fig, ab)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return fig


def table2(ab: pd.DataFrame, paper: dict) -> pd.DataFrame:
    """Non-maximal / maximal nodes with and without pruning (Table II), ours and the paper's (Mti)."""
    piv = ab.pivot(index="graph", columns="variant", values="nonmax_per_max")
    out = pd.DataFrame({"GMBE+ (ours)": piv["GMBE+"], "w/o PRUNE (ours)": piv["w/o PRUNE"]})
    out["avoided %"] = (100 * (1 - out["GMBE+ (ours)"] / out["w/o PRUNE (ours)"])).round(1)
    mti = [g == "MovieLens" for g in out.index]
    out["GMBE+ (paper)"] = [paper["table2_movielens"][0] if m else np.nan for m in mti]
    out["w/o PRUNE (paper)"] = [paper["table2_movielens"][1] if m else np.nan for m in mti]
    return out


def plot_memory(mem: pd.DataFrame, paper: dict):
    fig, ax = plt.subplots(figsize=(6, 3.4))
    x = np.arange(len(mem))
    ax.bar(x - 0.2, mem["reuse_bytes_per_worker"] / 2**10, 0.4, label="node reuse (ours)")
    ax.bar(x + 0.2, mem["no_reuse_bytes_per_worker"] / 2**10, 0.4, label="no reuse (from tree bounds)")
    ax.set_xticks(x, mem["graph"])
    ax.set_yscale("log")
    ax.set_ylabel("KiB per worker (largest seed)")
    lo, hi = paper["reuse_saving"]
    ax.set_title(f"Fig 12: memory per worker (paper: {lo}-{hi:,}x less with reuse)", fontsize=10)
    ax.legend(fontsize=8)
    stamp_device(fig, mem)
    fig.tight_layout()
    return fig


def active_sms(act: pd.DataFrame, points: int = 200) -> pd.DataFrame:
    """Number of SMs still busy at each time (fraction of the longest run), per variant."""
    out = {}
    for variant, d in act.groupby("variant", sort=False):
        t = np.linspace(0, d["end_ns"].max(), points)
        out[variant] = pd.Series([(d["end_ns"] >= x).sum() for x in t], index=t / 1e6)
    return pd.DataFrame(out)


def plot_sm_activity(act: pd.DataFrame):
    """Active SMs over time, one panel per graph, one line per variant."""
    graphs = list(dict.fromkeys(act["graph"]))
    fig, axes = plt.subplots(1, len(graphs), figsize=(6 * len(graphs), 3.4), squeeze=False)
    for ax, g in zip(axes[0], graphs, strict=True):
        for variant, d in act[act["graph"] == g].groupby("variant", sort=False):
            t = np.sort(d["end_ns"].to_numpy()) / 1e6
            ax.step(np.concatenate([[0], t]), np.concatenate([[len(t)], len(t) - np.arange(1, len(t) + 1)]),
                    where="post", label=variant, color=colour(variant))
        ax.set_xlabel("ms since the kernel's first worker started")
        ax.set_ylabel("active SMs")
        ax.set_title(f"Fig 13: active SMs over time ({g})")
        ax.legend(fontsize=8)
    stamp_device(fig, act)
    fig.tight_layout()
    return fig


def plot_sweep(df: pd.DataFrame, param: str, paper_best=None, logx: bool = False):
    fig, ax = plt.subplots(figsize=(6, 3.4))
    col = param + "_value" if param + "_value" in df else param
    levels = list(dict.fromkeys(df["level"])) if "level" in df else [None]
    for level, style in zip(levels, ["o-", "s--", "^:"], strict=False):
        part = df if level is None else df[df["level"] == level]
        for g, d in part.groupby("graph", sort=False):
            ax.plot(d[col], d["median_ms"], style, label=g if len(levels) == 1 else f"{g} ({level})")
    if paper_best is not None:
        mark_paper(ax, paper_best, "paper's best", axis="x", text=False)
    if logx:
        ax.set_xscale("log", base=2)
    ax.set_xlabel(param)
    ax.set_ylabel("median ms")
    ax.set_yscale("log")
    ax.legend(fontsize=8)
    stamp_device(fig, df, prefix=f"{param} sweep, measured on")
    fig.tight_layout()
    return fig


def plot_bounds(df: pd.DataFrame, paper_best):
    graphs = list(dict.fromkeys(df["graph"]))
    fig, axes = plt.subplots(1, len(graphs), figsize=(4 * len(graphs), 3.4), squeeze=False)
    for ax, g in zip(axes[0], graphs, strict=True):
        piv = df[df["graph"] == g].pivot(index="bound_height", columns="bound_size", values="median_ms")
        im = ax.imshow(piv.to_numpy(), cmap="viridis", origin="lower")
        ax.set_xticks(range(len(piv.columns)), piv.columns, fontsize=7)
        ax.set_yticks(range(len(piv.index)), piv.index, fontsize=7)
        ax.set_xlabel("bound_size")
        ax.set_ylabel("bound_height")
        if paper_best[0] in piv.index and paper_best[1] in piv.columns:
            ax.plot(list(piv.columns).index(paper_best[1]), list(piv.index).index(paper_best[0]), "r*", ms=12)
        ax.set_title(f"{g} (ms; red star: paper's best)", fontsize=9)
        fig.colorbar(im, ax=ax, shrink=0.8)
    stamp_device(fig, df, prefix="Fig 15: bounds, measured on")
    fig.tight_layout()
    return fig


def levels_table(ab: pd.DataFrame, gmbe_ms: dict, target_ms: dict) -> pd.DataFrame:
    """Median ms of each level (the level variants of ``gmbe_ablations.csv``) beside the authors' GMBE
    (H200) and the target."""
    piv = ab.pivot(index="graph", columns="variant", values="median_ms")
    cols = [c for c in LEVEL_VARIANTS if c in piv]
    out = piv[cols].round(2).add_suffix(" ms")
    out["GMBE (H200) ms"] = pd.Series(gmbe_ms)
    out["target ms"] = pd.Series(target_ms)
    best = piv[cols].min(axis=1)
    out["best / target"] = (best / out["target ms"]).round(2)
    out["target met"] = best <= out["target ms"]
    return out


def fig9_table(ours_ms: pd.Series, gmbe_ms: dict, pmbe_s: dict, cpu: pd.DataFrame | None) -> pd.DataFrame:
    """Fig 9 as far as it can be run here: ours, the authors' GMBE (H200, timed by us), PMBE (one
    CPU thread, timed by us) and our CPU oracle (one thread, where it was timed)."""
    out = pd.DataFrame({"ours ms": ours_ms.round(2), "GMBE (H200) ms": pd.Series(gmbe_ms)})
    out["ours vs GMBE"] = (out["GMBE (H200) ms"] / out["ours ms"]).round(2)
    out["PMBE (1 CPU thread) s"] = pd.Series(pmbe_s)
    out["ours vs PMBE"] = (1000 * out["PMBE (1 CPU thread) s"] / out["ours ms"]).round(0)
    if cpu is not None:
        c = cpu[cpu["finished"]].set_index("graph")["cpu_oracle_s"]
        out["our CPU oracle s"] = c.reindex(out.index).round(2)
        out["ours vs CPU oracle"] = (1000 * out["our CPU oracle s"] / out["ours ms"]).round(0)
    return out


def plot_fig9(table: pd.DataFrame):
    """Seconds per graph (log scale) of each code in ``fig9_table``."""
    cols = [("ours ms", 1e-3, "ours (GPU, fastest level)"),
            ("GMBE (H200) ms", 1e-3, "GMBE (authors' code), H200"),
            ("PMBE (1 CPU thread) s", 1.0, "PMBE, 1 CPU thread"),
            ("our CPU oracle s", 1.0, "our CPU oracle, 1 thread")]
    cols = [c for c in cols if c[0] in table]
    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    x = np.arange(len(table))
    width = 0.8 / len(cols)
    for k, (col, scale, label) in enumerate(cols):
        ax.bar(x + (k - (len(cols) - 1) / 2) * width, table[col] * scale, width, label=label)
    ax.set_xticks(x, table.index)
    ax.set_yscale("log")
    ax.set_ylabel("seconds")
    ax.set_title("Fig 9: ours (GPU) beside the authors' GMBE and the CPU codes", fontsize=10)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
