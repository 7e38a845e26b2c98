"""The CPU engine beside the best CPU codes (``data/results/cpu_engine.csv``, issue 27)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

OURS = "mce_kit engine"
PEERS = ("HBBMC", "PivotScale", "AdaMBE", "ParAdaMBE")  # the best CPU codes (issue 27)
PROBLEMS = {"mce": "maximal cliques", "kclique": "k-cliques (k=8)", "mbe": "maximal bicliques"}
TARGET = 2.0  # issue 27: within 2x of the best CPU code


def _with_machine(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with a ``machine`` column (its CPU and cores): rows of different machines never mix."""
    return df.assign(machine=df["cpu"] + ", " + df["cores"].astype(str) + " cores")


def versus(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (machine, problem, graph, threads): our median, the best peer's median at that
    thread count on that machine, the ratio ours / peer and whether it meets the 2x target. Both on
    the peer's clock (CPU time for HBBMC, which prints getrusage time; wall time for the others)."""
    df = df[df["problem"].isin(list(PROBLEMS))]
    df = _with_machine(df)
    key = ["machine", "problem", "graph", "threads"]
    ours = df[df["code"] == OURS]
    peers = df[df["code"].isin(PEERS)].sort_values("median_ms")
    peers = peers.drop_duplicates(key)
    t = ours.merge(peers, on=key, suffixes=("", "_peer"))
    mine = t["median_ms"].where(t["clock_peer"] == "wall", t["cpu_median_ms"])  # the peer's clock
    out = pd.DataFrame({
        "machine": t["machine"], "problem": t["problem"].map(PROBLEMS), "graph": t["graph"],
        "threads": t["threads"],
        "clock": t["clock_peer"], "ours ms": mine.round(2), "peer": t["code_peer"],
        "peer ms": t["median_ms_peer"].round(2), "ours / peer": (mine / t["median_ms_peer"]).round(2)})
    below_tick = t["median_ms_peer"].to_numpy() <= 0  # the peer printed 0: under its clock's tick
    out.loc[below_tick, "ours / peer"] = np.nan
    out["within 2x"] = (out["ours / peer"] <= TARGET).astype(object).where(~below_tick, None)
    return out.reset_index(drop=True)


def plot_versus(df: pd.DataFrame):
    """Bars of ours / best peer per graph (log scale), one panel per problem, each machine's 1
    thread and all cores side by side; the dashed line is the 2x target. Rows use the peer's clock
    (``versus``)."""
    v = versus(df)
    problems = [p for p in PROBLEMS.values() if p in set(v["problem"])]
    fig, axes = plt.subplots(1, len(problems), figsize=(3.6 * len(problems), 3.4), squeeze=False,
                             sharey=True, layout="constrained")
    series = list(v[["machine", "threads"]].drop_duplicates().sort_values(["machine", "threads"]).itertuples(
        index=False))
    width = 0.8 / len(series)
    for ax, problem in zip(axes[0], problems, strict=True):
        p = v[v["problem"] == problem]
        graphs = list(dict.fromkeys(p["graph"]))
        x = np.arange(len(graphs))
        for i, (machine, T) in enumerate(series):
            q = p[(p["machine"] == machine) & (p["threads"] == T)].set_index("graph").reindex(graphs)
            ax.bar(x + (i - (len(series) - 1) / 2) * width, q["ours / peer"], width,
                   label=f"{machine}: {T} thread{'s' * int(T > 1)}", color=f"C{i}")
        ax.axhline(1, color="k", lw=0.8)
        ax.axhline(TARGET, color="C3", ls="--", lw=1, label="target: 2x")
        ax.set_yscale("log")
        ticks = [0.1, 0.2, 0.5, 1, 2, 5]
        ax.set_yticks(ticks, [f"{t:g}x" for t in ticks])
        ax.set_yticks([], minor=True)
        ax.set_xticks(x, graphs, rotation=30, ha="right", fontsize=8)
        ax.set_title(problem, fontsize=10)
    axes[0][0].set_ylabel("our time / best CPU code's time")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside right upper", fontsize=8)
    return fig


def rule_view(df: pd.DataFrame) -> pd.DataFrame:
    """Listing against pivoting per machine, graph and k (all cores): the measurements behind
    ``count_k_cliques``'s automatic choice."""
    r = _with_machine(df[df["problem"] == "kclique-rule"])
    t = r.pivot_table(index=["machine", "graph", "k"], columns="code", values="median_ms", sort=False)
    t.columns = [c.replace("mce_kit ", "") + " ms" for c in t.columns]
    t["faster"] = np.where(t["listing ms"].isna() | (t["pivot ms"] < t["listing ms"]), "pivot", "listing")
    return t.reset_index()


def igraph_view(df: pd.DataFrame) -> pd.DataFrame:
    """Maximal cliques: the engine on one thread against igraph's C routine (the CPU path before
    it), both as CPU time of the call, per machine."""
    m = _with_machine(df[(df["problem"] == "mce") & (df["threads"] == 1)])
    t = m.pivot_table(index=["machine", "graph"], columns="code", values="cpu_median_ms", sort=False)
    if "igraph" not in t.columns:
        return pd.DataFrame()
    out = t[[OURS, "igraph"]].round(1).rename(columns={OURS: "ours CPU ms", "igraph": "igraph CPU ms"})
    out["igraph / ours"] = (out["igraph CPU ms"] / out["ours CPU ms"]).round(1)
    return out.reset_index()
