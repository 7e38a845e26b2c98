"""Several GPUs through Dask: strong scaling of every kernel (RDMCE Fig 14, mce-gpu Fig 4, KCMiner
Fig 10, GMBE+ Fig 18) and per-GPU busy time.

    python -m mce_kit.experiments.multigpu --out data/results --gpus 1 2 --algo rdmce mce-gpu kcminer gmbe

Each kernel's graphs are prepared on the host once (``mce_kit.distributed.prepare``). The
baseline is the plain launcher on one GPU without Dask (``measure``: CUDA events, a warm-up,
median of ``--repeats``, every answer checked). Then for each GPU count one cluster (one
worker per GPU: ``local_cuda_cluster``) is started and, per kernel and graph, warmed up once
(each worker compiles the kernel) and timed end to end from the prepared graph on the host
(scatter, chunks, reduction) as the median of ``--repeats`` runs, every answer checked against
the reference (or, where there is none, against the one-GPU answer). Writes
``multigpu_scaling.csv`` (one row per kernel x graph x GPU count, the one-GPU kernel time and
the paper's multi-GPU number beside ours) and ``multigpu_busy.csv`` (per worker of the last
run: chunks taken, busy seconds).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from .. import datasets, references
from ..measure import load_results, measure, provenance, write_rows
from ..references import RESULTS

# (graph, parameters) per kernel: the heaviest graph of each sized for seconds on one GPU, and
# small ones that show the Dask overhead.
WORKLOADS = {
    "rdmce": [("ego-Facebook", {}), ("soc-Slashdot0902", {}), ("socfb-MIT", {}), ("wiki-Vote", {})],
    "mce-gpu": [("ego-Facebook", {"subtree": "L2", "induced": "IPX"}), ("socfb-MIT", {"subtree": "L2"})],
    "kcminer": [("ego-Facebook", {"k": 8}), ("ego-Facebook", {"k": 7}), ("wiki-Vote", {"k": 8})],
    "gmbe": [("MovieLens", {}), ("marvel", {})],
}
ALGOS = tuple(WORKLOADS)
QUICK = {"rdmce": [("wiki-Vote", {})], "mce-gpu": [("socfb-MIT", {"subtree": "L2"})],
         "kcminer": [("wiki-Vote", {"k": 8})], "gmbe": [("marvel", {})]}

# The papers' multi-GPU figures (FIGURES.md): (paper module, item, GPUs, speed-up, what/where).
PAPER = {
    "rdmce": ("rdmce", "Fig 14", 8, 4.83, "Dogster, 8 RTX 4090, shared edge counter"),
    "mce-gpu": ("mcegpu", "Fig 4", 4, None, "1-4 V100: the worker-list build scales, no-WL does not"),
    "kcminer": ("kcminer", "Fig 10", 8, 7.53, "K=5 on 8 V100 (7.36x K=6, 5.25x K=7)"),
    "gmbe": ("gmbe", "Fig 18", 8, 8.0, "linear on Github and BookCrossing, 8 A30"),
}


def _expect(job, name: str, params: dict):
    problem = job.kernel.problem
    keys = {"k": params["k"]} if problem == "kclique" else {}
    return references.expected(problem, name, **keys)


def _everything(job, params: dict) -> int:
    """The kernel on all its tasks in this process (CPU mode's baseline)."""
    everything = np.arange(len(job.costs))
    return job.kernel.run_tasks(job.prep, everything, **params) + job.kernel.rest(job.prep, **params)


def _baseline(job, params: dict, repeats: int, want, cpu: bool) -> float:
    """Seconds of the plain kernel on one GPU, no Dask (CPU mode: the twin on every task)."""
    if not cpu:
        m = measure(job.prep, job.kernel.problem, repeats=repeats, warmup=1, expect=want, **params)
        return m["median_ms"] / 1e3
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        got = _everything(job, params)
        times.append(time.perf_counter() - t0)
        if got != want:
            raise AssertionError(f"{job.kernel.name}: {got} != {want}")
    return statistics.median(times)


def _cluster(gpus: int, cpu: bool):
    from distributed import LocalCluster

    from .. import distributed as md

    if cpu:
        return LocalCluster(n_workers=gpus, threads_per_worker=1, processes=True, dashboard_address=None)
    return md.local_cuda_cluster(gpus)


def _scaling(plan, gpu_counts, repeats, busy_rows, cpu: bool = False):
    """``plan``: (algo, graph name, parameters[, graph]) per workload; ``cpu``: the kernels' CPU twins
    on a CPU LocalCluster (a dry run of this very code for the tests)."""
    from distributed import Client

    from .. import distributed as md

    graphs, jobs, single, expect = {}, {}, {}, {}
    for algo, name, params, *given in plan:  # host work and the one-GPU baseline without Dask
        key = (algo, name, json.dumps(params, sort_keys=True))
        if name not in graphs:
            graphs[name] = given[0] if given else datasets.load(name)
        job = jobs[key] = md.prepare(graphs[name], md.CPU_TWIN[algo] if cpu else algo, **params)
        want, checked = _expect(job, name, params), "reference"
        if want is None:  # no reference: every run must agree with the plain kernel's answer
            if cpu:
                want = _everything(job, params)
            else:
                want = job.prep.run(**params).answer
            checked = "one-GPU answer"
        single[key] = _baseline(job, params, repeats, want, cpu)
        expect[key] = (want, checked)
        print(f"{algo} {name} {params}: one GPU {single[key]:.3f} s", flush=True)
    for gpus in gpu_counts:
        t0 = time.perf_counter()
        with _cluster(gpus, cpu) as cluster, Client(cluster) as client:
            client.wait_for_workers(gpus)
            start_s = time.perf_counter() - t0
            for key, job in jobs.items():
                algo, name, ptext = key
                want, checked = expect[key]
                md.run(None, job, client)  # warm-up: compile on every worker
                runs = [md.run(None, job, client) for _ in range(repeats)]
                answers = {r.answer for r in runs}
                if answers != {want}:
                    raise AssertionError(f"{algo} on {name} ({ptext}), {gpus} GPUs: answers {answers}, "
                                         f"expected {want}")
                times = [r.seconds for r in runs]
                busy = runs[-1].busy()
                busy_rows.append(busy.assign(algo=algo, graph=name, params=ptext, gpus=gpus))
                paper_mod, item, p_gpus, p_speedup, note = PAPER[algo]
                speedup = single[key] / statistics.median(times)
                print(f"{algo} {name} {ptext} on {gpus} GPUs: {statistics.median(times):.3f} s "
                      f"({speedup:.2f}x the one-GPU kernel)", flush=True)
                yield pd.DataFrame([{
                    "algo": algo, "graph": name, "params": ptext, "gpus": gpus, "answer": str(want),
                    "checked": checked, "median_s": statistics.median(times), "min_s": min(times),
                    "max_s": max(times), "single_gpu_kernel_s": single[key],
                    "speedup_vs_single_kernel": speedup, "efficiency": speedup / gpus,
                    "chunks": len(runs[-1].chunks), "est_cost": float(job.costs.sum()),
                    "busy_max_over_mean": busy["busy_s"].max() / busy["busy_s"].mean(),
                    "cluster_start_s": start_s, "repeats": repeats, "paper_item": f"{paper_mod} {item}",
                    "paper_gpus": p_gpus, "paper_speedup": p_speedup,
                    "paper_efficiency": p_speedup / p_gpus if p_speedup else None, "paper_note": note}])


def plan_for(algos=ALGOS, quick: bool = False) -> list:
    return [(algo, name, params) for algo in algos for name, params in (QUICK if quick else WORKLOADS)[algo]]


def run_all(out_dir: Path, gpu_counts=(1, 2), algos=ALGOS, repeats: int = 5, quick: bool = False,
            plan=None, cpu: bool = False) -> dict:
    prov = provenance() if not cpu else {"gpu": "none (CPU twins on a LocalCluster)", "date": ""}
    out_dir.mkdir(parents=True, exist_ok=True)
    busy = []
    rows = _scaling(plan or plan_for(algos, quick), gpu_counts, repeats, busy, cpu)
    frames = {"scaling": write_rows(rows, out_dir / "multigpu_scaling.csv", prov)}
    frames["busy"] = write_rows(busy, out_dir / "multigpu_busy.csv", prov)
    return frames


def load(name: str, results: Path = RESULTS) -> pd.DataFrame:
    """A committed table: scaling or busy (rows of the older RDMCE-only runs get algo="rdmce")."""
    df = load_results("multigpu", name, results)
    if "algo" not in df.columns:
        df.insert(0, "algo", "rdmce")
    return df


def load_or_none(name: str, results: Path = RESULTS) -> pd.DataFrame | None:
    """Like ``load``, but None when the table is not committed yet."""
    try:
        return load(name, results)
    except FileNotFoundError:
        return None


def default_chunking(df: pd.DataFrame) -> pd.DataFrame:
    """Each kernel's rows with the fewest chunks per worker (the default); all rows of a table that
    has only one chunking."""
    if "chunks_per_worker" not in df.columns:
        return df
    return df[df["chunks_per_worker"] == df.groupby("algo")["chunks_per_worker"].transform("min")]


def scaling_table(scaling: pd.DataFrame) -> pd.DataFrame:
    """The measured rows beside the paper's multi-GPU number: speed-up, efficiency (speed-up / GPUs),
    and ours over the paper's efficiency (every chunking measured, where there are several)."""
    table = scaling.assign(ratio_efficiency=scaling["efficiency"] / scaling["paper_efficiency"])
    cols = ["algo", "chunking", "graph", "params", "gpus", "single_gpu_kernel_s", "median_s",
            "speedup_vs_single_kernel",
            "efficiency", "paper_item", "paper_gpus", "paper_speedup", "paper_efficiency", "ratio_efficiency",
            "busy_max_over_mean", "est_cost", "gpu", "date"]
    return table[[c for c in cols if c in table.columns]]


def measured_note(results: Path = RESULTS) -> str:
    """What the committed tables measure and what they do not, in a sentence or two (Markdown)."""
    scaling = load_or_none("scaling", results)
    if scaling is None:
        return ("**Not measured yet:** no `multigpu_scaling.csv` is committed, so no kernel has been timed "
                "on more than one GPU here; none of the papers' multi-GPU figures (" +
                ", ".join(f"{m} {item}" for m, item, *_ in PAPER.values()) + ") has a number of ours.")
    from ..measure import device_of

    done = scaling.groupby("algo")["gpus"].agg(lambda g: sorted(set(g)))
    said = "; ".join(f"{a} on {', '.join(map(str, g))} GPUs" for a, g in done.items())
    missing = [a for a in PAPER if a not in done.index]
    top = max(p_gpus for _, _, p_gpus, *_ in PAPER.values())
    lines = [f"Measured on {device_of(scaling)}: {said}."]
    if missing:
        lines.append(f"Not measured yet: {', '.join(missing)}.")
    if int(scaling["gpus"].max()) < top:
        most = int(scaling["gpus"].max())
        lines.append(f"Not measured: more than {most} GPUs (the papers go up to {top}).")
    return " ".join(lines)


def status(results: Path = RESULTS) -> dict:
    """{(paper module, item): reproduction.Status} for each paper's multi-GPU figure we measured."""
    from ..reproduction import Status

    try:
        df = load("scaling", results)
    except FileNotFoundError:
        return {}
    out = {}
    for algo, part in df.groupby("algo"):
        paper_mod, item, p_gpus, p_speedup, note = PAPER[algo]
        top = part[part["gpus"] == part["gpus"].max()]
        heavy = top.loc[top["single_gpu_kernel_s"].idxmax()]
        g = int(heavy["gpus"])
        ours = (f"{heavy['speedup_vs_single_kernel']:.2f}x on {g} GPUs ({heavy['graph']}, efficiency "
                f"{heavy['efficiency']:.2f}; Dask overhead included)")
        theirs = f"{p_speedup:.2f}x on {p_gpus}" if p_speedup else note
        out[(paper_mod, item)] = Status("partial", ours, f"{g} GPUs here, the paper {p_gpus}: {theirs}",
                                        str(heavy.get("gpu", "")), str(heavy.get("date", ""))[:10])
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mce_kit.experiments.multigpu",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--gpus", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--algo", nargs="+", default=list(ALGOS), choices=ALGOS)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="one small graph per kernel")
    a = ap.parse_args(argv)
    for name, df in run_all(a.out, a.gpus, a.algo, a.repeats, a.quick).items():
        print(f"multigpu_{name}.csv: {len(df)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
