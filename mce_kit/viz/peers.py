"""Ours beside the authors' GPU code and the best CPU code, from ``data/results/peers.csv``.

    from mce_kit.viz import peers
    print(peers.summary("mce"))      # which hosts measured it ("not measured on a GPU host yet")
    peers.styled("mce")              # the table, device named, wrong answers flagged
    peers.figure("mce")              # bars per graph, the device in the title

Problems: ``mce``, ``kclique``, ``mbe``, ``maxclique``. The host shown is the
latest GPU host that measured the problem, else the latest CPU one
(``mce_kit.experiments.peers.pick_host``). Ratios are peer / ours for the warm
call (> 1: ours is faster) and are left empty where either answer is wrong.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ..experiments import peers as exp
from .paper import run_times

TITLES = {"mce": "maximal cliques", "kclique": "k-cliques", "mbe": "maximal bicliques",
          "maxclique": "maximum cliques"}
NOT_ON_GPU = "not measured on a GPU host yet"
COLUMNS = ["graph", "ours, warm call", "ours, cold call", "ours, kernel", "authors' GPU code",
           "best CPU code", "GPU code / ours", "CPU code / ours", "whole process, ours",
           "whole process, GPU code / ours", "whole process, CPU code / ours", "wrong answers", "no answer"]
BARS = [("ours-warm", "ours, warm call", "#1f77b4"), ("ours-kernel", "ours, kernel", "#aec7e8"),
        ("gpu", "authors' GPU code", "#d62728"), ("cpu", "best CPU code", "#7f7f7f")]


def seconds(x) -> str:
    """A time in seconds as a short cell: '0.53 ms', '12.3 ms', '2.71 s'; '-' when missing."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x * 1e3:.3g} ms" if x < 1 else f"{x:.3g} s"


def _ratio(x) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3g}x"


def _frame(df):
    return exp.load() if df is None else df


def _host_rows(df: pd.DataFrame, problem: str, host: str | None):
    host = host or exp.pick_host(df, problem)
    return host, df[(df["host"] == host) & (df["problem"] == problem)]


def _device(rows: pd.DataFrame) -> str:
    gpu = rows["gpu"].iloc[0]
    return gpu if exp._has_gpu(gpu) else f"{rows['cpu'].iloc[0]} ({rows['cores'].iloc[0]} cores, CPU only)"


def summary(problem: str, df: pd.DataFrame | None = None) -> str:
    """One line: the hosts that measured ``problem``, and whether a GPU host is among them."""
    df = _frame(df)
    rows = df[df["problem"] == problem]
    if rows.empty:
        return f"{TITLES[problem]}: no rows in peers.csv yet (python -m mce_kit.experiments.peers)"
    hosts = [f"{h} on {str(g['date'].max())[:10]} (commit {g['commit'].iloc[0]})"
             for h, g in rows.groupby("host")]
    gpu = exp.pick_host(df, problem, gpu=True)
    return (f"{TITLES[problem]}: measured on " + "; ".join(hosts) + "."
            + ("" if gpu else f" Authors' GPU codes and our GPU path: {NOT_ON_GPU}."))


def _peer_cell(r, col: str, gpu_host: bool) -> str:
    if col == "gpu_code" and not gpu_host:
        return NOT_ON_GPU
    name = r[col]
    if not name:
        return "-"
    threads = str(r[col + "_threads"])
    if col == "gpu_code" or threads in ("", "nan"):  # a GPU code's host threads are not its parallelism
        return f"{name}: {seconds(r[col + '_s'])}"
    n = int(float(threads))
    return f"{name} ({n} thread{'s' if n > 1 else ''}): {seconds(r[col + '_s'])}"


def table(problem: str, df: pd.DataFrame | None = None, host: str | None = None) -> pd.DataFrame:
    """One row per graph: ours (warm, cold, kernel, whole process), the fastest authors' GPU code and
    CPU code with ratios, and every wrong answer; ``.attrs["caption"]`` names the host and device."""
    df = _frame(df)
    host, rows = _host_rows(df, problem, host)
    if host is None:
        out = pd.DataFrame(columns=COLUMNS)
        out.attrs["caption"] = summary(problem, df)
        return out
    t = exp.comparison(df, problem, host)
    rows = exp.latest_runs(rows)   # the rows the table shows
    gpu_host = exp._has_gpu(rows["gpu"].iloc[0])
    out = pd.DataFrame(dict(zip(COLUMNS, [
        [g + (f" ({p})" if p else "") for g, p in zip(t["graph"], t["params"], strict=True)],
        t["ours_warm_s"].map(seconds), t["ours_cold_s"].map(seconds), t["ours_kernel_s"].map(seconds),
        [_peer_cell(r, "gpu_code", gpu_host) for _, r in t.iterrows()],
        [_peer_cell(r, "cpu_code", gpu_host) for _, r in t.iterrows()],
        t["gpu_code_vs_ours"].map(_ratio), t["cpu_code_vs_ours"].map(_ratio),
        t["ours_process_s"].map(seconds), t["gpu_code_process_vs_ours"].map(_ratio),
        t["cpu_code_process_vs_ours"].map(_ratio), t["wrong"], t["not_answered"],
    ], strict=True)))
    runs = rows.loc[rows["who"] == "ours-warm", "runs"]
    out.attrs["caption"] = (f"{TITLES[problem]} on {host}, {str(rows['date'].max())[:10]}: ours beside the "
                            "authors' GPU code and the best CPU code on that host; "
                            f"medians of up to {int(runs.max()) if len(runs) else 0} runs; "
                            f"peer / ours > 1: ours faster{_separate_runs(rows)}")
    return out


def _separate_runs(rows: pd.DataFrame) -> str:
    """A clause for the caption when, on some graph, ours and the peers were measured in different
    runs (each run stamps its rows with one date), or nothing."""
    apart = []   # (our date, commit, the peers' date) of each graph measured apart
    for _, g in rows.groupby(["graph", "params"], sort=False, dropna=False):
        ours = g["role"] == exp.ROLES["ours"]
        mine, theirs = set(g.loc[ours, "date"]), set(g.loc[~ours, "date"])
        if mine and theirs and not mine & theirs:
            apart.append((max(mine), g.loc[g["date"] == max(mine), "commit"].iloc[0], max(theirs)))
    if not apart:
        return ""
    mine, commit, theirs = max(apart)
    graphs = len(rows[["graph", "params"]].drop_duplicates())
    share = "" if len(apart) == graphs else f" on {len(apart)} of {graphs} graphs"
    return (f"; ours (commit {commit}, {mine[:16]}) measured in another run than the peers "
            f"({theirs[:16]}){share}, on a host of the same description")


def styled(problem: str, df: pd.DataFrame | None = None, host: str | None = None):
    """``table`` as a pandas Styler: the caption names the device, wrong answers are red."""
    t = table(problem, df, host)
    st = t.style.hide(axis="index").set_caption(t.attrs.get("caption", f"{TITLES[problem]}: no rows yet"))
    if "wrong answers" in t:
        st = st.map(lambda v: "color: #d62728; font-weight: bold" if v else "", subset=["wrong answers"])
    return st


def figure(problem: str, df: pd.DataFrame | None = None, host: str | None = None):
    """Bars per graph (log scale, min-max whiskers): ours warm and kernel, the fastest authors' GPU code,
    the fastest CPU code; a wrong answer is hatched and labelled. The device is in the title."""
    df = _frame(df)
    host, rows = _host_rows(df, problem, host)
    fig, ax = plt.subplots(figsize=(9, 3.6), layout="constrained")
    if host is None:
        ax.text(0.5, 0.5, f"{TITLES[problem]}: no rows in peers.csv yet", ha="center", va="center")
        ax.set_axis_off()
        return fig
    t = exp.comparison(df, problem, host)
    width = 0.8 / len(BARS)
    x = np.arange(len(t))
    for i, (key, label, colour) in enumerate(BARS):
        for j, r in t.iterrows():
            who = key if key.startswith("ours") else r[f"{key}_code"]
            cell = rows[(rows["graph"] == r["graph"]) & (rows["params"] == r["params"]) & (rows["who"] == who)
                        & rows["clock"].isin(["call", "kernel", "printed"])]
            if not who or cell.empty:
                continue
            if math.isnan(cell["median_s"].iloc[0]):  # timed out or failed: say so where the bar would be
                ax.annotate("no answer", (x[j] + (i - 1.5) * width, 0.02), xycoords=("data", "axes fraction"),
                            rotation=90, fontsize=7, ha="center", va="bottom", color="#555555")
                continue
            c = cell.iloc[0]
            times = run_times(c["times_s"])
            wrong = bool(c["answer_ok"] == False)  # noqa: E712 (NaN: no answer)
            err = ([[max(0.0, c["median_s"] - times.min())], [max(0.0, times.max() - c["median_s"])]]
                   if len(times) else None)  # times_s is rounded to the microsecond
            ax.bar(x[j] + (i - 1.5) * width, c["median_s"], width, color=colour, label=label, yerr=err,
                   hatch="//" if wrong else None, edgecolor="black" if wrong else colour, capsize=2)
            if not key.startswith("ours"):
                top = times.max() if len(times) else c["median_s"]
                ax.annotate(who + (" WRONG" if wrong else ""), (x[j] + (i - 1.5) * width, top),
                            rotation=90, fontsize=7, ha="center", va="bottom", xytext=(0, 3),
                            textcoords="offset points", color="#d62728" if wrong else "black")
    handles, labels = ax.get_legend_handles_labels()
    seen = dict(zip(labels, handles, strict=True))
    fig.legend(seen.values(), seen.keys(), loc="outside right upper", fontsize=8)
    ax.set_yscale("log")
    ax.set_ylim(top=ax.get_ylim()[1] * 4)  # room for the peers' names above their bars
    ax.set_ylabel("seconds (median, min-max)")
    ax.set_xticks(x, [g + (f"\n{p}" if p else "") for g, p in zip(t["graph"], t["params"], strict=True)],
                  fontsize=8)
    gpu_note = "" if exp._has_gpu(rows["gpu"].iloc[0]) else f" (GPU codes {NOT_ON_GPU})"
    ax.set_title(f"{TITLES[problem]} on {_device(rows)}{gpu_note}", fontsize=10)
    return fig
