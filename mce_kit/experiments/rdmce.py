"""RDMCE experiments: every figure and table of the paper as a tidy DataFrame.

On a GPU, ``run_all(out_dir)`` measures and writes ``rdmce_*.csv`` (one row
per graph x configuration, with provenance columns); without one,
``load(name)`` reads the committed CSVs from ``data/results/`` so the
notebook can still plot them.

    python -m mce_kit.experiments.rdmce --out data/results [--quick]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import pandas as pd

from .. import datasets, references
from ..measure import load_results, measure, provenance, write_rows
from ..references import RESULTS

# The paper's own numbers (FIGURES.md; RTX 4090 unless stated), for side-by-side tables.
PAPER = {
    "facebook_count": 869_325_383,
    "facebook_delta": 1_045,
    "facebook_degeneracy": 115,
    "facebook_seconds": 2.164,  # Table 2, RDMCE
    "facebook_seconds_np": 2.243,  # Table 2, RDMCE-NP (no aggressive node generation)
    "exposure_speedup_range": (1.03, 69.61),  # Fig 8
    "aggressive_mean_speedup": 1.018,  # Table 2
    "edge_over_vertex_mean": 2.52,  # Fig 10
    "best_warps_per_sm": 20,  # Fig 11
    "best_tau": 24,  # Fig 12
    "memory_vs_mcegpu_px": (0.568, 0.973),  # Fig 9
}

GRAPHS = ["CA-GrQc", "CA-HepTh", "email-Eu-core", "wiki-Vote", "Email-Enron", "soc-Slashdot0902",
          "socfb-MIT", "ego-Facebook"]
QUICK_GRAPHS = ["CA-GrQc", "email-Eu-core"]
WARPS_PER_SM = [4, 8, 12, 16, 20, 24, 28, 32]
TAUS = [16, 24, 32, 48, 64, 96]
# The paper's variants: full RDMCE and its ablations (Fig 8, Table 2, Fig 10).
VARIANTS = {
    "RDMCE": {},
    "RDMCE-NB": {"exposure": False},
    "RDMCE-NP": {"aggressive": False},
    "vertex seeds": {"seeding": "vertex"},
}


def reference_counts() -> dict[str, int]:
    """Maximal-clique counts from the CPU oracles or the paper, by graph name."""
    df = references.table("mce")
    return dict(zip(df["graph"], df["count"], strict=True))


def _prepared(graphs):
    from ..gpu import rdmce

    for name in graphs:
        t0 = time.perf_counter()
        G = datasets.load(name)
        load_s = time.perf_counter() - t0
        yield name, G, load_s, rdmce.prepare(G)


def _measure(prep, repeats, expect, **params) -> dict:
    """Median of ``repeats`` CUDA-event timings; every run must give ``expect``."""
    return measure(prep, "mce", repeats=repeats, warmup=0, expect=expect, **params)


# Each experiment yields its rows in small DataFrames, one per measurement,
# so run_all can write them to the CSV as they come (a cut-off run keeps them).

def table1(graphs, expect):
    """Table 1: |V|, |E|, Δ, d and the maximal-clique count of each graph."""
    from ..graph_stats import stats

    for name, G, load_s, prep in _prepared(graphs):
        s = stats(G)
        res = prep.run()
        yield pd.DataFrame([{"graph": name, "n": s["n"], "m": s["m"], "delta": s["max_degree"],
                             "d": s["degeneracy"], "count": res.count, "reference": expect.get(name),
                             "load_s": load_s, "order_s": prep.prep_s}])


def exactness(graphs, expect, runs=10):
    """The count of each graph on ``runs`` consecutive runs with the default settings."""
    for name, _, _, prep in _prepared(graphs):
        counts = [prep.run().count for _ in range(runs)]
        yield pd.DataFrame({"graph": name, "run": range(runs), "count": counts, "reference": expect[name],
                            "exact": [c == expect[name] for c in counts]})


def variants(graphs, expect, repeats=5):
    """Fig 8 (exposure), Table 2 (aggressive), Fig 9 (memory), Fig 10 (seeding)."""
    for name, _, _, prep in _prepared(graphs):
        for variant, params in VARIANTS.items():
            yield pd.DataFrame([{"graph": name, "variant": variant,
                                 **_measure(prep, repeats, expect[name], **params)}])


def sweep(graphs, expect, param, values, repeats=5):
    """Fig 11 (``warps_per_sm``) or Fig 12 (``tau``): time for each value."""
    for name, _, _, prep in _prepared(graphs):
        for v in values:
            yield pd.DataFrame([{"graph": name, **_measure(prep, repeats, expect[name], **{param: v})}])


def load_distribution(graph, expect):
    """Busy cycles of every warp, with and without root-down exposure."""
    (name, _, _, prep), = _prepared([graph])
    for variant in ("RDMCE", "RDMCE-NB"):
        res = prep.run(**VARIANTS[variant])
        assert res.count == expect[name], (name, variant, res.count)
        yield pd.DataFrame({
            "graph": name, "variant": variant, "worker": range(len(res.worker_cycles)),
            "busy_cycles": res.worker_cycles, "nodes": res.worker_nodes,
            "seeds": res.worker_seeds, "steals": res.worker_steals,
        })


def run_all(out_dir: Path, quick: bool = False, repeats: int = 5, heavy: str = "ego-Facebook",
            only: list[str] | None = None, graphs: list[str] | None = None) -> dict:
    """Measure every RDMCE figure on this GPU and write the CSVs. Returns the DataFrames.

    Sweeps run on every graph; on ``heavy`` (seconds per run) they use a
    coarser grid so the whole job fits a short GPU lease.
    """
    prov = provenance()
    expect = reference_counts()
    graphs = graphs or (QUICK_GRAPHS if quick else GRAPHS)
    light = [g for g in graphs if g != heavy]
    big = [] if quick or heavy not in graphs else [heavy]
    jobs = {
        "table1": lambda: table1(graphs, expect),
        "exactness": lambda: exactness(graphs, expect, runs=3 if quick else 10),
        "variants": lambda: variants(graphs, expect, repeats),
        "warps": lambda: itertools.chain(sweep(light, expect, "warps_per_sm", WARPS_PER_SM, repeats),
                                         sweep(big, expect, "warps_per_sm", [16, 24, 32], repeats)),
        "tau": lambda: itertools.chain(sweep(light, expect, "tau", TAUS, repeats),
                                       sweep(big, expect, "tau", [16, 24, 48, 96], repeats)),
        # Without exposure ego-Facebook takes about 45 s a run: show the load on Slashdot.
        "load": lambda: load_distribution("soc-Slashdot0902" if not quick else graphs[-1], expect),
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    frames = {}
    for key, job in jobs.items():
        if only and key not in only:
            continue
        t0 = time.perf_counter()
        frames[key] = write_rows(job(), out_dir / f"rdmce_{key}.csv", prov)
        print(f"rdmce_{key}.csv: {len(frames[key])} rows, {time.perf_counter() - t0:.1f} s", flush=True)
    bad = frames["exactness"][~frames["exactness"]["exact"]] if "exactness" in frames else []
    if len(bad):
        raise AssertionError(f"RDMCE counts differ from the reference:\n{bad}")
    return frames


def load(name: str, results: Path = RESULTS) -> pd.DataFrame:
    """A committed result table: table1, exactness, variants, warps, tau or load."""
    return load_results("rdmce", name, results)


def _when(df: pd.DataFrame) -> dict:
    return {"device": str(df["gpu"].iloc[0]), "date": str(df["date"].iloc[0])[:10]}


def _ratio(df: pd.DataFrame, variant: str) -> pd.Series:
    """Per graph: median time of ``variant`` over full RDMCE's."""
    t = df.pivot_table(index="graph", columns="variant", values="median_ms")
    return (t[variant] / t["RDMCE"]).dropna()


def status() -> dict:
    """Each RDMCE item of FIGURES.md as reproduced / partial / missing, from the committed CSVs."""
    from ..reproduction import Status

    out = {}
    needs_mcegpu = "needs the mce-gpu kernel (issue 9)"
    out["Fig 7"] = Status("missing", reason=needs_mcegpu)
    out["Fig 13"] = Status("missing", reason="needs the same runs on two GPU models")
    out["Fig 14"] = Status("missing", reason="needs several GPUs (issue 13)")
    try:
        t1, var = load("table1"), load("variants")
    except FileNotFoundError:
        return out
    exact = (t1["count"] == t1["reference"]).all()
    fb = t1[t1["graph"] == "ego-Facebook"]
    ours = f"{len(t1)} graphs, counts {'all' if exact else 'NOT all'} equal the reference"
    if len(fb):
        ours += f"; ego-Facebook {int(fb['count'].iloc[0]):,}"
    out["Table 1"] = Status("reproduced" if exact else "partial", ours,
                            "the paper's larger graphs are not bundled", **_when(t1))
    nb = _ratio(var, "RDMCE-NB")
    out["Fig 8"] = Status("reproduced", f"{nb.min():.2f}-{nb.max():.2f}x", **_when(var))
    mem = var[var["variant"] == "RDMCE"]
    out["Fig 9"] = Status("partial", f"our peak {mem['device_bytes'].max() / 2**20:.0f} MiB", needs_mcegpu,
                          **_when(var))
    npg = _ratio(var, "RDMCE-NP")
    fb_np = var[(var["graph"] == "ego-Facebook") & (var["variant"] == "RDMCE-NP")]
    fb_full = var[(var["graph"] == "ego-Facebook") & (var["variant"] == "RDMCE")]
    ours = f"mean {npg.mean():.3f}x"
    if len(fb_np) and len(fb_full):
        full_s, np_s = fb_full["median_ms"].iloc[0] / 1e3, fb_np["median_ms"].iloc[0] / 1e3
        ours += f"; ego-Facebook {full_s:.3f} s vs {np_s:.3f} s"
    out["Table 2"] = Status("reproduced", ours, **_when(var))
    vs = _ratio(var, "vertex seeds")
    out["Fig 10"] = Status("reproduced", f"vertex/edge time {vs.mean():.2f}x on average",
                           "vertex seeds are not slower here", **_when(var))
    for item, name, param, grid in (("Fig 11", "warps", "warps_per_sm", WARPS_PER_SM),
                                    ("Fig 12", "tau", "tau", TAUS)):
        try:
            df = load(name)
        except FileNotFoundError:
            continue
        best = df.loc[df.groupby("graph")["median_ms"].idxmin(), ["graph", param]]
        full = df.groupby("graph")[param].nunique() == len(grid)
        state = "reproduced" if full.all() else "partial"
        gaps = ", ".join(g for g, ok in full.items() if not ok)
        top = best[param].mode().iloc[0]
        wins = int((best[param] == top).sum())
        out[item] = Status(state, f"best {param} = {top} on {wins} of {len(best)} graphs",
                           f"coarser grid on {gaps}" if gaps else "", **_when(df))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mce_kit.experiments.rdmce",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--quick", action="store_true", help="two small graphs, for a smoke run")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--only", nargs="+", help="some of: table1 exactness variants warps tau load")
    ap.add_argument("--graphs", nargs="+", help=f"bundled graphs (default: {' '.join(GRAPHS)})")
    a = ap.parse_args(argv)
    run_all(a.out, a.quick, a.repeats, only=a.only, graphs=a.graphs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
