"""Benchmarks on a GPU: ``python -m mce_kit.bench rdmce GRAPH [options]``.

Times with CUDA events the phase the RDMCE paper times (graph on the host ->
count back; ordering and loading excluded but reported), after warm-up, as
the median of ``--repeats`` runs, and checks the count of every run against
``--expect`` (default: the reference count of a bundled graph, else the
first run). Prints one JSON record per configuration.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path


def provenance() -> dict:
    """GPU, SMs, driver, commit and date, attached to every result row."""
    from .gpu import device_info

    commit = os.environ.get("MCE_KIT_COMMIT", "")  # set it where the checkout has no .git
    try:
        commit = commit or subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                          text=True, cwd=Path(__file__).parent, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    date = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    return {**device_info(), "commit": commit or "unknown", "date": date}


def load(name_or_path: str):
    from . import datasets
    from .io import load_graph

    t0 = time.perf_counter()
    G = datasets.load(name_or_path) if name_or_path in datasets.names() else load_graph(name_or_path)
    return G, time.perf_counter() - t0


def bench_rdmce(prep, repeats=5, warmup=1, expect=None, **params) -> dict:
    """Median of ``repeats`` timed runs after ``warmup``; every count must agree."""
    for _ in range(warmup):
        prep.run(**params)
    runs = [prep.run(**params) for _ in range(repeats)]
    counts = [r.count for r in runs]
    expect = counts[0] if expect is None else expect
    if any(c != expect for c in counts):
        raise AssertionError(f"RDMCE counts moved between runs: {counts} (expected {expect})")
    sample = runs[len(runs) // 2]  # one run's counters (nodes are the same in every run; steals vary)
    times = [r.gpu_ms for r in runs]
    return {
        **sample.params,
        "count": expect,
        "median_ms": statistics.median(times),
        "times_ms": [round(t, 3) for t in times],
        "prep_s": round(prep.prep_s, 4),
        "device_bytes": sample.device_bytes,
        "nodes": sample.nodes,
        "steals": int(sample.worker_steals.sum()),
        "passes": sample.passes,
        **{f"load_{k}": round(v, 4) for k, v in sample.load_balance().items()},
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mce_kit.bench", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="algo", required=True)
    r = sub.add_parser("rdmce", help="maximal cliques, RDMCE kernel")
    r.add_argument("graph", nargs="+", help="bundled dataset names or graph files")
    r.add_argument("--tau", type=int, nargs="+", default=[24])
    r.add_argument("--warps-per-sm", type=int, nargs="+", default=[32])
    r.add_argument("--seeding", choices=["edge", "vertex"], nargs="+", default=["edge"])
    r.add_argument("--no-exposure", action="store_true")
    r.add_argument("--no-aggressive", action="store_true")
    r.add_argument("--repeats", type=int, default=5)
    r.add_argument("--warmup", type=int, default=1)
    r.add_argument("--expect", type=int, default=None,
                   help="the count every run must give (default: a bundled graph's reference count)")
    r.add_argument("--out", type=Path, help="append JSON lines here")
    r.add_argument("--define", nargs="+", default=[], metavar="NAME=VALUE",
                   help="compile-time kernel settings to probe (e.g. MIN_BLOCKS=7)")
    a = ap.parse_args(argv)

    from .gpu import rdmce

    rdmce._DEFINES.update(d.split("=", 1) for d in a.define)

    from .experiments.rdmce import reference_counts

    prov = provenance()
    known = reference_counts()
    for name in a.graph:
        G, load_s = load(name)
        expect = a.expect if a.expect is not None else known.get(name)
        prep = rdmce.prepare(G)
        for tau in a.tau:
            for wps in a.warps_per_sm:
                for seeding in a.seeding:
                    row = bench_rdmce(prep, a.repeats, a.warmup, expect, tau=tau, warps_per_sm=wps,
                                      seeding=seeding, exposure=not a.no_exposure,
                                      aggressive=not a.no_aggressive)
                    row = {"graph": name, "n": G.n, "m": G.m, "load_s": round(load_s, 3), **row, **prov}
                    line = json.dumps(row, default=str)
                    print(line, flush=True)
                    if a.out:
                        with a.out.open("a") as f:
                            f.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
