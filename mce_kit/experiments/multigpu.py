"""Several GPUs through Dask: strong scaling of every kernel (RDMCE Fig 14, mce-gpu Fig 4, KCMiner
Fig 10, GMBE+ Fig 18) and per-GPU busy time.

    python -m mce_kit.experiments.multigpu --out data/results --gpus 1 2 --algo rdmce mce-gpu kcminer gmbe

Each kernel's graphs are prepared on the host once (``mce_kit.distributed.prepare``). The
baseline is the plain launcher on one GPU without Dask (``measure``: CUDA events, a warm-up,
median of ``--repeats``, every answer checked). Then for each GPU count one cluster (one
worker per GPU: ``local_cuda_cluster``) is started and, per kernel and graph, warmed up once
(each worker compiles the kernel; the run copies the prepared graph to the workers, where the Job
keeps it: ``first_s``) and timed end to end from the prepared graph on the host (chunks,
reduction) as the median of ``--repeats`` runs, every answer checked against
the reference (or, where there is none, against the one-GPU answer). Writes
``multigpu_scaling.csv`` (one row per kernel x graph x GPU count, the one-GPU kernel time and
the paper's multi-GPU number beside ours) and ``multigpu_busy.csv`` (per worker of the last
run: chunks taken, busy seconds).
"""

from __future__ import annotations

import argparse
import itertools
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

# (graph, parameters) per kernel: long workloads (about a second or more on one GPU) that can
# show scaling, and small ones that show what Dask costs (the single-GPU threshold).
RMAT = "rmat-15-16"  # R-MAT scale 15, edge factor 16, seed 0 (mce_kit.generators.rmat)
RMAT_BIG = "rmat-16-16"  # scale 16
CHUNG_LU = "chung-lu-60000x20000-m101250-seed1"  # as in gmbe_large.csv (experiments.gmbe)
CHUNG_LU_BIG = "chung-lu-60000x20000-m151875-seed1"  # the next size of that series
# beyond the CPU oracles: checked against the one-GPU answer
NO_REFERENCE = (RMAT, RMAT_BIG, CHUNG_LU, CHUNG_LU_BIG, "C125.9")
WORKLOADS = {
    "rdmce": [("C125.9", {}), (RMAT, {}), ("ego-Facebook", {}), ("soc-Slashdot0902", {}),
              ("socfb-MIT", {}), ("wiki-Vote", {})],
    "mce-gpu": [("ego-Facebook", {"subtree": "L2", "induced": "IPX"}), ("socfb-MIT", {"subtree": "L2"})],
    "kcminer": [("ego-Facebook", {"k": 8}), ("ego-Facebook", {"k": 7}), (RMAT, {"k": 5}),
                ("wiki-Vote", {"k": 8})],
    "cliquecount": [("ego-Facebook", {"k_max": None}), ("ego-Facebook", {"k_max": 10}),
                    ("ego-Facebook", {"k_max": 8}), (RMAT, {"k_max": 6}), ("wiki-Vote", {"k_max": 8})],
    "gmbe": [(CHUNG_LU_BIG, {}), (CHUNG_LU, {}), ("MovieLens", {}), ("marvel", {})],
}
ALGOS = tuple(WORKLOADS)
# run only when named (--only GRAPH): RDMCE on R-MAT scale 16 took about half a minute a run on one
# H200 (ff9d2ac: its one-GPU baseline had not finished after 370 s), too long for 5 repeats in the
# default sweep; --repeats 1 fits a device command
NAMED_ONLY = {"rdmce": [(RMAT_BIG, {})]}
QUICK = {"rdmce": [("wiki-Vote", {})], "mce-gpu": [("socfb-MIT", {"subtree": "L2"})],
         "kcminer": [("wiki-Vote", {"k": 8})], "cliquecount": [("wiki-Vote", {"k_max": 6})],
         "gmbe": [("marvel", {})]}

# The papers' multi-GPU figures (FIGURES.md): (paper module, item, GPUs, speed-up, what/where).
PAPER = {
    "rdmce": ("rdmce", "Fig 14", 8, 4.83, "Dogster, 8 RTX 4090, shared edge counter"),
    "mce-gpu": ("mcegpu", "Fig 4", 4, None, "1-4 V100: the worker-list build scales, no-WL does not"),
    "kcminer": ("kcminer", "Fig 10", 8, 7.53, "K=5 on 8 V100 (7.36x K=6, 5.25x K=7)"),
    "gmbe": ("gmbe", "Fig 18", 8, 8.0, "linear on Github and BookCrossing, 8 A30"),
    "cliquecount": ("kcminer", "Fig 10", 8, 7.53, "KCMiner K=5 on 8 V100 (our pivot counter beside it)"),
}


def graph(name: str):
    """A bundled graph, or one of the seeded synthetic workloads (RMAT, CHUNG_LU)."""
    from .. import generators

    if name in (RMAT, RMAT_BIG):
        return generators.rmat(int(name.split("-")[1]), 16, seed=0)
    if name in (CHUNG_LU, CHUNG_LU_BIG):
        from .gmbe import _large_graph

        return _large_graph(int(name.split("-m")[1].split("-")[0]), seed=1)
    return datasets.load(name)


def _canon(answer):
    """An answer in a hashable form ({k: count} becomes sorted pairs)."""
    return tuple(sorted(answer.items())) if isinstance(answer, dict) else answer


def _expect(job, name: str, params: dict):
    problem = job.kernel.problem
    if problem == "clique_counts":  # every k from the k-clique references, else None
        G, k_max = job.prep.G, params.get("k_max")
        if k_max is None:
            return None
        want = {1: G.n, 2: G.m, **{k: references.expected("kclique", name, k=k) for k in range(3, k_max + 1)}}
        return None if None in want.values() else {k: int(c) for k, c in want.items()}
    keys = {"k": params["k"]} if problem == "kclique" else {}
    return references.expected(problem, name, **keys)


def _one_call(job, params: dict, repeats: int, want) -> float:
    """Seconds of the plain call on all the tasks in this process, host work included (on a GPU,
    what a call without ``gpus=`` costs on a prepared graph; on a CPU, the twin's baseline): median
    of ``repeats`` after a warm-up."""
    from .. import distributed as md

    md.run_alone(job, **params)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        got = md.run_alone(job, **params)
        times.append(time.perf_counter() - t0)
        if _canon(got) != _canon(want):
            raise AssertionError(f"{job.kernel.name}: {got} != {want}")
    return statistics.median(times)


def _baseline(job, params: dict, repeats: int, want, cpu: bool) -> float:
    """Seconds of the plain kernel on one GPU, no Dask (CPU mode: the twin on every task)."""
    if not cpu and job.kernel.problem != "clique_counts":
        m = measure(job.prep, job.kernel.problem, repeats=repeats, warmup=1, expect=want, **params)
        return m["median_ms"] / 1e3
    if not cpu:  # CUDA events of the launcher, as measure() takes them
        job.prep.run(**params)
        runs = [job.prep.run(**params) for _ in range(repeats)]
        if any(r.answer != want for r in runs):
            raise AssertionError(f"{job.kernel.name}: {[r.answer for r in runs]} != {want}")
        return statistics.median(r.gpu_ms for r in runs) / 1e3
    return _one_call(job, params, repeats, want)


def _cluster(gpus: int, cpu: bool):
    from distributed import LocalCluster

    from .. import distributed as md

    if cpu:
        return LocalCluster(n_workers=gpus, threads_per_worker=1, processes=True, dashboard_address=None)
    return md.local_cuda_cluster(gpus)


QUEUES = {"shared": "one task queue shared by the GPUs", "dealt": "dealt by cost, 1 per worker"}


def _scaling(plan, gpu_counts, repeats, busy_rows, cpu: bool = False, queues=("dealt",)):
    """``plan``: (algo, graph name, parameters[, graph]) per workload; ``cpu``: the kernels' CPU twins
    on a CPU LocalCluster (a dry run of this very code for the tests)."""
    from distributed import Client

    from .. import distributed as md

    graphs, jobs, single, call, expect = {}, {}, {}, {}, {}
    for algo, name, params, *given in plan:  # host work and the one-GPU baseline without Dask
        key = (algo, name, json.dumps(params, sort_keys=True))
        if name not in graphs:
            graphs[name] = given[0] if given else graph(name)
        job = jobs[key] = md.prepare(graphs[name], md.CPU_TWIN[algo] if cpu else algo, **params)
        want, checked = _expect(job, name, params), "reference"
        if want is None:  # no reference: every run must agree with the plain kernel's answer
            if cpu:
                want = md.run_alone(job, **params)
            else:
                want = job.prep.run(**params).answer
            checked = "one-GPU answer"
        single[key] = _baseline(job, params, repeats, want, cpu)
        call[key] = single[key] if cpu else _one_call(job, params, repeats, want)
        expect[key] = (want, checked)
        print(f"{algo} {name} {params}: one GPU {single[key]:.3f} s (call {call[key]:.3f} s)", flush=True)
    for gpus in gpu_counts:
        t0 = time.perf_counter()
        with _cluster(gpus, cpu) as cluster, Client(cluster) as client:
            client.wait_for_workers(gpus)
            start_s = time.perf_counter() - t0
            for (key, job), queue in itertools.product(jobs.items(), queues if gpus > 1 else ("dealt",)):
                algo, name, ptext = key
                want, checked = expect[key]
                first = md.run(None, job, client, queue=queue)  # warm-up: copies the graph, compiles
                runs = [md.run(None, job, client, queue=queue) for _ in range(repeats)]
                answers = {_canon(r.answer) for r in runs}
                if answers != {_canon(want)}:
                    raise AssertionError(f"{algo} on {name} ({ptext}), {gpus} GPUs: answers {answers}, "
                                         f"expected {want}")
                modes = {r.queue.split(" (")[0] for r in runs}
                times = [r.seconds for r in runs]
                busy = runs[-1].busy()
                busy_rows.append(busy.assign(algo=algo, graph=name, params=ptext, gpus=gpus))
                paper_mod, item, p_gpus, p_speedup, note = PAPER[algo]
                median = statistics.median(times)
                speedup = single[key] / median
                print(f"{algo} {name} {ptext} on {gpus} GPUs ({runs[-1].queue}): {median:.3f} s "
                      f"({speedup:.2f}x the one-GPU kernel, {call[key] / median:.2f}x its call)", flush=True)
                yield pd.DataFrame([{
                    "algo": algo, "chunking": QUEUES[modes.pop()] if len(modes) == 1 else "mixed",
                    "chunks_per_worker": 1, "graph": name, "params": ptext, "gpus": gpus, "answer": str(want),
                    "checked": checked, "median_s": median, "min_s": min(times),
                    "max_s": max(times), "first_s": first.seconds, "single_gpu_kernel_s": single[key],
                    "speedup_vs_single_kernel": speedup, "efficiency": speedup / gpus,
                    "single_gpu_call_s": call[key], "speedup_vs_single_call": call[key] / median,
                    "queue": runs[-1].queue,
                    "chunks": len(runs[-1].chunks), "est_cost": float(job.costs.sum()),
                    "busy_max_over_mean": busy["busy_s"].max() / busy["busy_s"].mean(),
                    "cluster_start_s": start_s, "repeats": repeats, "paper_item": f"{paper_mod} {item}",
                    "paper_gpus": p_gpus, "paper_speedup": p_speedup,
                    "paper_efficiency": p_speedup / p_gpus if p_speedup else None, "paper_note": note}])


def _failing(run_tasks, prep, idx, **params):
    """``run_tasks`` that raises on the chunk holding task 0 (an injected fault)."""
    if 0 in set(np.asarray(idx).tolist()):
        raise ValueError("injected fault")
    return run_tasks(prep, idx, **params)


_NAPPED: list = []


def _napping(run_tasks, prep, idx, **params):
    """``run_tasks``, then, the first time in a process, a 2 s nap before the answer goes back (a
    worker killed in the nap has taken and run tasks, and loses them)."""
    answer = run_tasks(prep, idx, **params)
    if not _NAPPED:
        _NAPPED.append(True)
        time.sleep(2.0)
    return answer


def faults(job, want, gpus: int, cpu: bool = False):
    """On ``gpus`` workers: SIGKILL a worker other than the one that answered first (its chunks
    are re-run, the answer must be exact), then a chunk that raises (the call must fail, naming it),
    then a worker killed during a shared-queue run (the run must be redone dealt, exact). Yields
    one row per case."""
    import dataclasses
    import functools
    import os
    import signal
    import threading

    from distributed import Client

    from .. import distributed as md

    with _cluster(gpus, cpu) as cluster, Client(cluster) as client:
        client.wait_for_workers(gpus)
        md.run(None, job, client)  # compile on every worker first
        kill_one, killed = md.killer(client)
        t0 = time.perf_counter()
        res = md.run(None, job, client, chunks_per_worker=12, on_result=kill_one)
        yield pd.DataFrame([{"case": "worker killed after the first chunk", "algo": job.kernel.name,
                             "gpus": gpus, "killed_pid": killed[0] if killed else None,
                             "answer": str(res.answer), "exact": _canon(res.answer) == _canon(want),
                             "error": "", "seconds": time.perf_counter() - t0,
                             "workers_seen": res.chunks["worker"].nunique()}])
        bad = dataclasses.replace(job, kernel=dataclasses.replace(
            job.kernel, run_tasks=functools.partial(_failing, job.kernel.run_tasks)))
        t0 = time.perf_counter()
        try:
            md.run(None, bad, client)
            error, exact = "no error raised", False
        except RuntimeError as e:
            error, exact = str(e).splitlines()[0], "injected fault" in str(e) and "chunk" in str(e)
        yield pd.DataFrame([{"case": "a chunk raises", "algo": job.kernel.name, "gpus": gpus,
                             "killed_pid": None, "answer": "", "exact": exact, "error": error,
                             "seconds": time.perf_counter() - t0, "workers_seen": gpus}])
        # a worker killed after its part of a shared-queue run took and ran its tasks: the run
        # must notice the loss and be redone dealt
        napping = dataclasses.replace(job, kernel=dataclasses.replace(
            job.kernel, run_tasks=functools.partial(_napping, job.kernel.run_tasks)))
        client.wait_for_workers(gpus)  # the worker killed above is back
        md.run(None, job, client)  # and has the graph
        victim = next(iter(client.run(os.getpid).values()))
        threading.Timer(1.0, os.kill, (victim, signal.SIGKILL)).start()
        t0 = time.perf_counter()
        res = md.run(None, napping, client, queue="shared")
        yield pd.DataFrame([{"case": "worker killed during a shared-queue run", "algo": job.kernel.name,
                             "gpus": gpus, "killed_pid": victim, "answer": str(res.answer),
                             "exact": _canon(res.answer) == _canon(want), "error": res.queue,
                             "seconds": time.perf_counter() - t0,
                             "workers_seen": res.chunks["worker"].nunique()}])


def plan_for(algos=ALGOS, quick: bool = False, only=None) -> list:
    """(algo, graph, parameters) of each workload; ``only``: just those graph names (which may name
    the NAMED_ONLY ones too)."""
    table = QUICK if quick else WORKLOADS
    return [(algo, name, params) for algo in algos
            for name, params in table[algo] + (NAMED_ONLY.get(algo, []) if only else [])
            if not only or name in only]


def run_all(out_dir: Path, gpu_counts=(1, 2), algos=ALGOS, repeats: int = 5, quick: bool = False,
            plan=None, cpu: bool = False, fault_graph: str | None = None, only=None,
            queues=("dealt",)) -> dict:
    prov = provenance() if not cpu else {"gpu": "none (CPU twins on a LocalCluster)", "date": ""}
    out_dir.mkdir(parents=True, exist_ok=True)
    busy = []
    rows = _scaling(plan or plan_for(algos, quick, only), gpu_counts, repeats, busy, cpu, queues)
    frames = {"scaling": write_rows(rows, out_dir / "multigpu_scaling.csv", prov)}
    frames["busy"] = write_rows(busy, out_dir / "multigpu_busy.csv", prov)
    if fault_graph:
        from .. import distributed as md

        job = md.prepare(graph(fault_graph), "mce-cpu" if cpu else "rdmce")
        want = references.expected("mce", fault_graph)
        want = md.run_alone(job) if want is None else want  # or the plain kernel's
        rows = faults(job, want, max(gpu_counts), cpu)
        frames["faults"] = write_rows(rows, out_dir / "multigpu_faults.csv", prov)
    return frames


def load(name: str, results: Path = RESULTS) -> pd.DataFrame:
    """A committed table: scaling or busy (rows of the older RDMCE-only runs get algo="rdmce")."""
    df = load_results("multigpu", name, results)
    if "algo" not in df.columns:
        df.insert(0, "algo", "rdmce")
    return df


def threshold(df: pd.DataFrame, algo: str) -> tuple[float, float]:
    """(lo, hi] of the total estimated cost where 2 GPUs start to beat one: lo is the costliest
    workload below hi on which 2 GPUs did not win, hi the cheapest on which they won by over 10%
    (beyond the runs' spread; inf when none did); the default chunking's latest rows."""
    rows = default_chunking(df[(df["algo"] == algo) & (df["gpus"] == 2)])
    won = rows["speedup_vs_single_kernel"] > 1.1
    hi = float(rows[won]["est_cost"].min()) if won.any() else float("inf")
    loses = rows[~won & (rows["est_cost"] < hi)]["est_cost"]
    return (float(loses.max()) if len(loses) else 0.0), hi


def load_or_none(name: str, results: Path = RESULTS) -> pd.DataFrame | None:
    """Like ``load``, but None when the table is not committed yet."""
    try:
        return load(name, results)
    except FileNotFoundError:
        return None


def default_chunking(df: pd.DataFrame) -> pd.DataFrame:
    """Each kernel's rows with the fewest chunks per worker (the default), of the latest run of each
    workload (a later run of the same chunking supersedes, e.g. after KCMiner split heavy edges),
    the dealt chunks' where a shared queue was measured too; all rows of a table with one chunking."""
    if "chunks_per_worker" not in df.columns:
        return df
    df = df[df["chunks_per_worker"] == df.groupby("algo")["chunks_per_worker"].transform("min")]
    key = ["algo", "graph", "params", "gpus"]
    if "date" in df.columns and df["date"].notna().any():
        df = df[df["date"] == df.groupby(key)["date"].transform("max")]
    if "chunking" not in df.columns:
        return df
    # measured both ways in one run: dealt chunks are what distributed.run uses by default
    return df.sort_values("chunking", key=lambda c: c == QUEUES["shared"], kind="stable").drop_duplicates(key)


def scaling_table(scaling: pd.DataFrame) -> pd.DataFrame:
    """The measured rows beside the paper's multi-GPU number: speed-up, efficiency (speed-up / GPUs),
    and ours over the paper's efficiency (every chunking measured, where there are several)."""
    table = scaling.assign(ratio_efficiency=scaling["efficiency"] / scaling["paper_efficiency"])
    cols = ["algo", "chunking", "graph", "params", "gpus", "single_gpu_kernel_s", "median_s",
            "speedup_vs_single_kernel", "single_gpu_call_s", "speedup_vs_single_call",
            "efficiency", "paper_item", "paper_gpus", "paper_speedup", "paper_efficiency", "ratio_efficiency",
            "busy_max_over_mean", "est_cost", "gpu", "date"]
    return table[[c for c in cols if c in table.columns]]


def chunking_table(scaling: pd.DataFrame) -> pd.DataFrame:
    """Speed-up per kernel's long workload (its costliest one-GPU time) and chunking, on the GPU
    count where the most chunkings were measured: how cutting the tasks changed what several GPUs gain."""
    if "chunking" not in scaling.columns:
        return pd.DataFrame()
    several = scaling[scaling["gpus"] > 1]
    top = several[several["gpus"] == several.groupby("gpus")["chunking"].nunique().idxmax()]
    longest = top.loc[top.groupby("algo")["single_gpu_kernel_s"].idxmax(), ["algo", "graph", "params"]]
    rows = top.merge(longest, on=["algo", "graph", "params"])
    table = rows.pivot_table(index=["algo", "graph", "params"], columns="chunking",
                             values="speedup_vs_single_kernel", aggfunc="median")
    table.insert(0, "one GPU, s", rows.groupby(["algo", "graph", "params"])["single_gpu_kernel_s"].median())
    return table.round(2)


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
    from ..reproduction import Status, judge

    try:
        df = load("scaling", results)
    except FileNotFoundError:
        return {}
    df = default_chunking(df)
    out = {}
    for algo, part in df.groupby("algo"):
        if algo == "cliquecount":  # shown beside KCMiner's Fig 10 in notebook 90, not a paper item
            continue
        paper_mod, item, p_gpus, p_speedup, note = PAPER[algo]
        top = part[part["gpus"] == part["gpus"].max()]
        heavy = top.loc[top["single_gpu_kernel_s"].idxmax()]
        g = int(heavy["gpus"])
        ours = (f"{heavy['speedup_vs_single_kernel']:.2f}x on {g} GPUs ({heavy['graph']}, efficiency "
                f"{heavy['efficiency']:.2f}; Dask overhead included)")
        theirs = f"{p_speedup:.2f}x on {p_gpus}" if p_speedup else note
        out[(paper_mod, item)] = Status(ours, float(heavy["speedup_vs_single_kernel"]), complete=g >= p_gpus,
                                        reason=f"{g} GPUs here, the paper {p_gpus}: {theirs}",
                                        device=str(heavy.get("gpu", "")),
                                        date=str(heavy.get("date", ""))[:10])
    return judge(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mce_kit.experiments.multigpu",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--gpus", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--algo", nargs="+", default=list(ALGOS), choices=ALGOS)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="one small graph per kernel")
    ap.add_argument("--faults", metavar="GRAPH", help="also kill a worker / fail a chunk of RDMCE on GRAPH "
                                                      "(multigpu_faults.csv)")
    ap.add_argument("--only", nargs="+", metavar="GRAPH", help="only the workloads on these graphs (and "
                    f"those run only when named: {', '.join(n for w in NAMED_ONLY.values() for n, _ in w)})")
    ap.add_argument("--queue", nargs="+", default=["dealt"], choices=["shared", "dealt"],
                    help="how several GPUs share the tasks (distributed.run's queue=); each is measured")
    a = ap.parse_args(argv)
    for name, df in run_all(a.out, a.gpus, a.algo, a.repeats, a.quick, fault_graph=a.faults,
                            only=a.only, queues=a.queue).items():
        print(f"multigpu_{name}.csv: {len(df)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
