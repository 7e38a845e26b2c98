"""Figures and tables of the RDMCE notebook, drawn from the tidy tables of
``mce_kit.experiments.rdmce`` (measured, never simulated).

Every figure marks the paper's value (``mark_paper``) and shows the spread
of the timed runs (min-max bars from ``times_ms``); every table has the
paper's number beside ours (``paper_vs_ours``).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import matplotlib.ticker as mticker
import numpy as np
import pandas as pd

from .colours import stamp_device
from .paper import PAPER_COLOR, errorbars, inside_spread, mark_paper, paper_vs_ours, run_times, spread

ABLATIONS = {  # column -> (variant, what the ratio means, the paper's value, its item)
    "exposure": ("RDMCE-NB", "time without exposure / with", (1.03, 69.61), "Fig 8"),
    "aggressive": ("RDMCE-NP", "time without aggressive generation / with", 1.018, "Table 2"),
    "edge seeds": ("vertex seeds", "time with vertex seeds / edge seeds", 2.52, "Fig 10"),
}


def where_measured(df: pd.DataFrame) -> str:
    """'NVIDIA H100 80GB HBM3, 132 SMs, 2026-11-21..2026-11-23' from a result table's provenance columns."""
    row = df.iloc[0]
    dates = sorted({str(d)[:10] for d in df["date"]})
    when = dates[0] if len(dates) == 1 else f"{dates[0]}..{dates[-1]}"
    return f"{row['gpu']}, {row['sms']} SMs, {when}"


def _order(df):
    return list(dict.fromkeys(df["graph"]))


def _runs(df, graph, variant):
    return df[(df["graph"] == graph) & (df["variant"] == variant)].iloc[0]


def variant_table(df: pd.DataFrame) -> pd.DataFrame:
    """One row per graph: RDMCE's median time and spread, then each ablation's ratio of medians,
    its range (``lo``: fastest run of the ablation over slowest of RDMCE, ``hi`` the reverse) and
    whether the two configurations' runs overlap (``noise``: the ratio is inside the spread)."""
    rows = []
    for g in _order(df):
        full = _runs(df, g, "RDMCE")
        tf = run_times(full["times_ms"])
        row = {"graph": g, "RDMCE ms": full["median_ms"], "min ms": tf.min(), "max ms": tf.max(),
               "runs": len(tf)}
        for col, (variant, _, _, _) in ABLATIONS.items():
            other = _runs(df, g, variant)
            to = run_times(other["times_ms"])
            row[col] = other["median_ms"] / full["median_ms"]
            row[f"{col} lo"], row[f"{col} hi"] = to.min() / tf.max(), to.max() / tf.min()
            row[f"{col} noise"] = inside_spread(full["times_ms"], other["times_ms"])
        row["device MiB"] = full["device_bytes"] / 2**20
        rows.append(row)
    return pd.DataFrame(rows).set_index("graph")


def plot_variants(df: pd.DataFrame):
    """Fig 8, Table 2 and Fig 10: each ablation's time over RDMCE's, per graph, with the range
    the runs allow (bar: ratio of medians; whisker: slowest/fastest combinations), the paper's
    value marked, and ratios inside the noise drawn hollow."""
    t = variant_table(df)
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.2), layout="constrained")
    x = np.arange(len(t))
    for ax, (col, (variant, what, paper, item)) in zip(axes, ABLATIONS.items(), strict=True):
        lo_hi = t[[f"{col} lo", f"{col} hi"]].to_numpy()
        noise = t[f"{col} noise"].to_numpy()
        ax.bar(x[~noise], t[col][~noise], color="#4c78a8", width=0.6, label="ratio of medians")
        ax.bar(x[noise], t[col][noise], facecolor="none", edgecolor="#4c78a8", hatch="///", width=0.6,
               label="inside the noise (runs overlap)")
        ax.errorbar(x, t[col], yerr=np.vstack([t[col] - lo_hi[:, 0], lo_hi[:, 1] - t[col]]), fmt="none",
                    ecolor="k", capsize=2, lw=0.8)
        ax.axhline(1, color="k", lw=0.8)
        mark_paper(ax, paper, f"paper, {item}", axis="y", text=False)
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(mticker.FormatStrFormatter("%g"))
        ax.yaxis.set_minor_formatter(mticker.NullFormatter())
        ax.set_xticks(x, t.index, rotation=35, ha="right", fontsize=8)
        ax.set_ylabel(what, fontsize=8)
        ax.set_title(f"{item}: {col} ({variant} / RDMCE)", fontsize=9)
        ax.legend(fontsize=7, loc="upper left")
        ax.set_ylim(top=max(np.nanmax(lo_hi), np.max(paper)) * 2.2)
    fig.suptitle(f"RDMCE ablations, measured on {where_measured(df)}; paper: RTX 4090, other graphs",
                 fontsize=9)
    return fig


def sweep_table(df: pd.DataFrame, param: str, paper_best) -> pd.DataFrame:
    """Per graph: our best value, its time, the time at the paper's best, their ratio, and
    whether the paper's value is inside the spread of our best (a tie, within noise)."""
    rows = []
    for g in _order(df):
        d = df[df["graph"] == g].set_index(param).sort_index()
        best = d["median_ms"].idxmin()
        row = {"graph": g, f"our best {param}": best, "best ms": d.loc[best, "median_ms"],
               "values measured": len(d)}
        if paper_best in d.index:
            row[f"ms at {paper_best}"] = d.loc[paper_best, "median_ms"]
            row[f"at {paper_best} / best"] = d.loc[paper_best, "median_ms"] / d.loc[best, "median_ms"]
            row["tie (runs overlap)"] = inside_spread(d.loc[best, "times_ms"], d.loc[paper_best, "times_ms"])
        rows.append(row)
    return pd.DataFrame(rows).set_index("graph")


def plot_sweep(df: pd.DataFrame, param: str, paper_best: int | None = None):
    """Fig 11 (warps_per_sm) or Fig 12 (tau): time relative to each graph's best median, with
    min-max bars of the runs; the paper's best value marked."""
    fig, ax = plt.subplots(figsize=(8.5, 4.2), layout="constrained")
    for i, (graph, g) in enumerate(df.groupby("graph", sort=False)):
        g = g.sort_values(param)
        s = spread(g)
        best = g["median_ms"].min()
        jitter = (i - 3.5) * 0.15 * (1 if param == "warps_per_sm" else 0.6)
        errorbars(ax, g[param] + jitter, s, scale=best, label=graph, lw=1, elinewidth=0.8)
    if paper_best is not None:
        mark_paper(ax, paper_best, "paper's best", axis="x")
    ax.set_xlabel(param)
    ax.set_xticks(sorted(df[param].unique()))
    ax.set_ylabel("time / best median (bars: min-max of the runs)")
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(mticker.LogLocator(subs=(1.0, 1.5, 2.0, 3.0, 5.0)))
    ax.yaxis.set_major_formatter(mticker.FormatStrFormatter("%g"))
    ax.yaxis.set_minor_formatter(mticker.NullFormatter())
    ax.set_title(f"{param} sweep, measured on {where_measured(df)}", fontsize=9)
    fig.legend(fontsize=7, loc="outside right upper")
    return fig


def plot_load(df: pd.DataFrame):
    """Busy cycles of every warp, sorted, with and without root-down exposure.
    The paper gives no per-warp load; its Fig 8 credits exposure's speed-up to balance."""
    fig, ax = plt.subplots(figsize=(7, 3.8), layout="constrained")
    for variant, g in df.groupby("variant", sort=False):
        c = np.sort(g["busy_cycles"].to_numpy())[::-1]
        ax.plot(np.arange(len(c)), c / c.mean(), label=f"{variant}: max/mean = {c.max() / c.mean():.2f}")
    ax.set_xlabel("warps, busiest first")
    ax.set_ylabel("busy cycles / mean")
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(mticker.FormatStrFormatter("%g"))
    ax.set_title(f"Per-warp load on {df['graph'].iloc[0]}\n{where_measured(df)} (no paper figure to compare)",
                 fontsize=9)
    ax.legend(fontsize=8, loc="upper right")
    return fig


def plot_facebook(variants: pd.DataFrame, paper: dict):
    """Table 2 on the one graph both studies ran: ego-Facebook's time with and without aggressive
    node generation, ours (min-max bars) beside the paper's RTX 4090 seconds."""
    fb = variants[variants["graph"] == "ego-Facebook"].set_index("variant")
    fig, ax = plt.subplots(figsize=(5.5, 3.4), layout="constrained")
    names = ["RDMCE", "RDMCE-NP"]
    theirs = [paper["facebook_seconds"], paper["facebook_seconds_np"]]
    x = np.arange(2)
    ax.bar(x - 0.2, theirs, width=0.4, color=PAPER_COLOR, alpha=0.6, label="paper (RTX 4090)")
    s = spread(fb.loc[names])
    ax.bar(x + 0.2, s["median"] / 1e3, width=0.4, color="#4c78a8", label=f"ours ({fb['gpu'].iloc[0]})")
    errorbars(ax, x + 0.2, s, scale=1e3, fmt="none", ecolor="k")
    for xi, (a, b) in enumerate(zip(theirs, s["median"] / 1e3, strict=True)):
        ax.annotate(f"{b / a:.2f}x", (xi + 0.2, b), xytext=(0, 3), textcoords="offset points", ha="center",
                    fontsize=8)
    ax.set_xticks(x, names)
    ax.set_ylabel("seconds")
    ax.set_title("Table 2 on ego-Facebook: paper vs ours", fontsize=9)
    ax.set_ylim(0, max(theirs) * 1.4)
    ax.legend(fontsize=8, loc="upper right")
    stamp_device(fig, fb.reset_index())
    return fig


def comparison(table1: pd.DataFrame, variants: pd.DataFrame, warps: pd.DataFrame, tau: pd.DataFrame,
               paper: dict) -> pd.DataFrame:
    """The paper / ours / ratio table of every RDMCE number we can set beside the paper's."""
    t1 = table1.set_index("graph").loc["ego-Facebook"]
    v = variant_table(variants)
    fb = v.loc["ego-Facebook"]
    fbv = variants[variants["graph"] == "ego-Facebook"].set_index("variant")["median_ms"] / 1e3
    solid = {c: v[~v[f"{c} noise"]] for c in ABLATIONS}
    rows = [
        {"item": "Table 1", "what": f"ego-Facebook {k}", "paper": paper[f"facebook_{p}"], "ours": int(t1[k])}
        for k, p in (("n", "n"), ("m", "m"), ("delta", "delta"), ("d", "degeneracy"), ("count", "count"))
    ] + [
        {"item": "Table 2", "what": "ego-Facebook RDMCE, s", "paper": paper["facebook_seconds"],
         "ours": round(fbv["RDMCE"], 3), "note": "ours H100, paper RTX 4090; both warm, same timed span"},
        {"item": "Table 2", "what": "ego-Facebook RDMCE-NP, s", "paper": paper["facebook_seconds_np"],
         "ours": round(fbv["RDMCE-NP"], 3)},
        {"item": "Table 2", "what": "ego-Facebook NP / RDMCE",
         "paper": round(paper["facebook_seconds_np"] / paper["facebook_seconds"], 3),
         "ours": round(fb["aggressive"], 3)},
        {"item": "Table 2", "what": "NP / RDMCE, mean over graphs", "paper": paper["aggressive_mean_speedup"],
         "ours": round(v["aggressive"].mean(), 3),
         "note": f"{len(solid['aggressive'])} of {len(v)} of our ratios lie outside the noise"},
        {"item": "Fig 8", "what": "NB / RDMCE (exposure speed-up), range",
         "paper": paper["exposure_speedup_range"],
         "ours": (round(v["exposure"].min(), 2), round(v["exposure"].max(), 2)),
         "note": f"above 1 beyond noise on {int((solid['exposure']['exposure'] > 1).sum())} of {len(v)}"
                 f" graphs; ego-Facebook {fb['exposure']:.1f}x"},
        {"item": "Fig 9", "what": "RDMCE memory / mce-gpu-PX", "paper": paper["memory_vs_mcegpu_px"],
         "ours": f"{v['device MiB'].max():.0f} MiB peak (no mce-gpu)", "note": "needs the mce-gpu kernel"},
        {"item": "Fig 10", "what": "vertex / edge seeding time, mean",
         "paper": paper["edge_over_vertex_mean"],
         "ours": round(v["edge seeds"].mean(), 2),
         "note": f"edge seeds faster beyond noise on {int((solid['edge seeds']['edge seeds'] > 1).sum())}"
                 f" of {len(v)} graphs"},
    ]
    for item, df, param, key in (("Fig 11", warps, "warps_per_sm", "best_warps_per_sm"),
                                 ("Fig 12", tau, "tau", "best_tau")):
        st = sweep_table(df, param, paper[key])
        best = st[f"our best {param}"]
        tie = st["tie (runs overlap)"].fillna(False).astype(bool) if "tie (runs overlap)" in st else best * 0
        wins = int((best == paper[key]).sum())
        rows.append({"item": item, "what": f"best {param} (most graphs)", "paper": paper[key],
                     "ours": int(best.mode().iloc[0]),
                     "note": f"{paper[key]} is best on {wins} of {len(st)} graphs, within the noise of the "
                             f"best on {int(tie.sum())} of {len(st)}; ego-Facebook best "
                             f"{int(best.get('ego-Facebook', -1))}"})
    return paper_vs_ours(rows)


def same_config(variants: pd.DataFrame, warps: pd.DataFrame, tau: pd.DataFrame) -> pd.DataFrame:
    """The default configuration (tau = 24, 32 warps per SM, edge seeds) appears in three tables,
    measured in separate jobs: its median and min-max in each, and the largest over the smallest
    median (``between jobs``), to set beside the spread within one job (``within``)."""
    rows = []
    for g in _order(variants):
        found = {"variants": variants[(variants["graph"] == g) & (variants["variant"] == "RDMCE")],
                 "warps": warps[(warps["graph"] == g) & (warps["warps_per_sm"] == 32)],
                 "tau": tau[(tau["graph"] == g) & (tau["tau"] == 24)]}
        row, medians, within = {"graph": g}, [], []
        for name, df in found.items():
            if len(df):
                t = run_times(df["times_ms"].iloc[0])
                medians.append(df["median_ms"].iloc[0])
                within.append(t.max() / t.min())
                row[f"{name} ms"] = f"{medians[-1]:.3g} ({t.min():.3g}-{t.max():.3g})"
        row["between jobs"] = max(medians) / min(medians)
        row["within (max/min of one job)"] = max(within)
        rows.append(row)
    return pd.DataFrame(rows).set_index("graph")


def plot_scale(df: pd.DataFrame, oracle: dict | None = None, target_prepare_s: float | None = None):
    """R-MAT scale series, one line per edge factor: host stages (edge factor 16), GPU count time,
    device memory (measured, and the planner's for the scales not counted) and count per scale, the
    CPU oracle's counts as x marks (``oracle``: {graph: (count, seconds)}), the issue's
    ``target_prepare_s`` at the largest scale marked. Log scales."""
    df = df.sort_values(["edge_factor", "scale"])
    fig, axes = plt.subplots(1, 4, figsize=(15, 3.6))
    big = df[df["edge_factor"] == df["edge_factor"].max()]
    for col, label, mk in (("gen_s", "R-MAT draws", "v"), ("from_edges_s", "edge list to CSR", "^"),
                           ("prepare_s", "prepare (degeneracy order)", "o"), ("seeds_s", "seeds", "s")):
        axes[0].plot(big["scale"], big[col], marker=mk, ms=4, label=label)
    if target_prepare_s is not None:
        top = big["scale"].max()
        axes[0].plot([top], [target_prepare_s], marker="*", ms=14, color=PAPER_COLOR, ls="none",
                     label=f"target: prepare <= {target_prepare_s:g} s")
    axes[0].set_ylabel("seconds (host stages)")
    axes[0].set_title(f"edge factor {big['edge_factor'].max()}: host", fontsize=9)
    for ef, d in df.groupby("edge_factor", sort=False):
        ran = d.dropna(subset=["median_ms"])
        kw = dict(marker="o", ms=4)
        c = axes[1].plot(ran["scale"], ran["median_ms"] / 1e3, label=f"edge factor {ef}", **kw)[0].get_color()
        axes[2].plot(ran["scale"], ran["device_bytes"] / 2**30, color=c, label=f"ef {ef} measured", **kw)
        plan = d[d["median_ms"].isna()]
        axes[2].plot(plan["scale"], plan["planned_device_bytes"] / 2**30, mfc="none", ls=":", color=c,
                     label=f"ef {ef} planned", **kw)
        for _, r in d[d["planned_passes"] > 1].iterrows():
            axes[2].annotate(f"{int(r['planned_passes'])} passes",
                             (r["scale"], r["planned_device_bytes"] / 2**30), fontsize=7, xytext=(-30, 6),
                             textcoords="offset points")
        axes[3].plot(ran["scale"], ran["count"].astype(float), color=c, label=f"edge factor {ef}", **kw)
        if oracle:
            hit = d[d["graph"].isin(oracle)]
            axes[3].plot(hit["scale"], [oracle[g][0] for g in hit["graph"]], "kx", ms=7)
    if oracle:
        axes[3].plot([], [], "kx", label="CPU oracle")
    axes[1].set_ylabel("GPU count (s, median)")
    axes[2].set_ylabel("device GiB")
    axes[3].set_ylabel("maximal cliques")
    for ax in axes:
        ax.set_yscale("log")
        ax.set_xlabel("R-MAT scale (2^scale vertices)")
        ax.legend(fontsize=6.5)
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


def local_table(local: pd.DataFrame, paper_s: float, target_s: float) -> pd.DataFrame:
    """ego-Facebook with and without the register sub-trees (``rdmce_local.csv``): our median seconds
    beside the paper's RTX 4090 time and the issue's target."""
    s = spread(local)
    ours = s["median"].to_numpy() / 1e3
    return pd.DataFrame({
        "change": local["change"].to_numpy(), "ours (s)": ours.round(3),
        "min-max (s)": [f"{a / 1e3:.3f}-{b / 1e3:.3f}" for a, b in zip(s["min"], s["max"], strict=True)],
        "paper, RTX 4090 (s)": paper_s, "ours / paper": (ours / paper_s).round(3),
        "target (s)": target_s, "met": ours <= target_s, "nodes": local["nodes"].to_numpy(),
        "device": local["gpu"].to_numpy()})


def plot_local(local: pd.DataFrame, paper_s: float, target_s: float):
    """ego-Facebook count time per configuration (min-max bars), the issue's target and the paper's time."""
    s = spread(local)
    fig, ax = plt.subplots(figsize=(6.5, 3.2), layout="constrained")
    y = np.arange(len(local))
    ax.barh(y, s["median"] / 1e3, color="#4c78a8", label=f"ours ({local['gpu'].iloc[0]})")
    ax.errorbar(s["median"] / 1e3, y, xerr=[(s["median"] - s["min"]) / 1e3, (s["max"] - s["median"]) / 1e3],
                fmt="none", ecolor="k", capsize=2)
    mark_paper(ax, paper_s, "paper, RTX 4090", axis="x")
    ax.axvline(target_s, color="gray", ls=":", lw=1.2)
    ax.annotate(f"target {target_s} s", xy=(target_s, 0.02), xycoords=("data", "axes fraction"), fontsize=7,
                color="gray")
    ax.set_yticks(y, local["change"])
    ax.set_xlabel("seconds (CUDA events, median of the timed runs)")
    ax.set_title("ego-Facebook: sub-trees in registers", fontsize=9)
    stamp_device(fig, local)
    return fig
