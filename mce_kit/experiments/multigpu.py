"""Several GPUs through Dask: strong scaling (RDMCE Fig 14 and its twins) and per-GPU busy time.

    python -m mce_kit.experiments.multigpu --out data/results --gpus 1 2

For each GPU count a ``dask_cuda.LocalCUDACluster`` (one worker per GPU) is
started once and warmed up (each worker compiles the kernel once); then each
graph is timed end to end from the prepared graph on the host (scatter,
chunks, reduction) as the median of ``--repeats`` runs, every answer checked
against the reference. Writes ``multigpu_scaling.csv`` (one row per graph x
GPU count, with the one-GPU kernel time without Dask beside it) and
``multigpu_busy.csv`` (one row per worker of the last run).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import pandas as pd

from .. import datasets, references
from ..measure import load_results, provenance, write_rows
from ..references import RESULTS

GRAPHS = ["ego-Facebook", "soc-Slashdot0902", "socfb-MIT", "wiki-Vote"]


def _scaling(graphs, gpu_counts, repeats, busy_rows):
    from distributed import Client

    from .. import distributed as md

    jobs = {name: md.prepare(datasets.load(name), "rdmce") for name in graphs}
    single = {}
    for name, job in jobs.items():  # one GPU, no Dask: the baseline the speed-up is taken against
        job.prep.run()
        single[name] = statistics.median(job.prep.run().gpu_ms for _ in range(repeats)) / 1e3
    for gpus in gpu_counts:
        t0 = time.perf_counter()
        with md.local_cuda_cluster(gpus) as cluster, Client(cluster) as client:
            start_s = time.perf_counter() - t0
            for name, job in jobs.items():
                expect = references.expected("mce", name)
                md.run(None, job, client)  # warm-up: compile on every worker
                runs = [md.run(None, job, client) for _ in range(repeats)]
                answers = {r.answer for r in runs}
                if answers != {expect}:
                    raise AssertionError(f"{name} on {gpus} GPUs: answers {answers}, expected {expect}")
                times = [r.seconds for r in runs]
                busy = runs[-1].busy()
                busy_rows.append(busy.assign(graph=name, gpus=gpus))
                yield pd.DataFrame([{
                    "graph": name, "gpus": gpus, "count": expect, "median_s": statistics.median(times),
                    "min_s": min(times), "max_s": max(times), "single_gpu_kernel_s": single[name],
                    "speedup_vs_single_kernel": single[name] / statistics.median(times),
                    "chunks": len(runs[-1].chunks), "est_cost": float(job.costs.sum()),
                    "busy_max_over_mean": busy["busy_s"].max() / busy["busy_s"].mean(),
                    "cluster_start_s": start_s, "repeats": repeats}])


def run_all(out_dir: Path, gpu_counts=(1, 2), graphs=GRAPHS, repeats: int = 5) -> dict:
    prov = provenance()
    out_dir.mkdir(parents=True, exist_ok=True)
    busy = []
    frames = {"scaling": write_rows(_scaling(graphs, gpu_counts, repeats, busy),
                                    out_dir / "multigpu_scaling.csv", prov)}
    frames["busy"] = write_rows(busy, out_dir / "multigpu_busy.csv", prov)
    return frames


def load(name: str, results: Path = RESULTS) -> pd.DataFrame:
    """A committed table: scaling or busy."""
    return load_results("multigpu", name, results)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mce_kit.experiments.multigpu",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--gpus", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--graphs", nargs="+", default=GRAPHS)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args(argv)
    for name, df in run_all(a.out, a.gpus, a.graphs, a.repeats).items():
        print(f"multigpu_{name}.csv: {len(df)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
