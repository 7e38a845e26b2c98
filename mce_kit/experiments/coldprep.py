"""What a cold GPU call does on the host before its kernel, NumPy against the compiled twins, and
what Numba costs a fresh process (the numbers behind ``accel.use_compiled``).

    python -m mce_kit.experiments.coldprep --out data/results [--repeats 5] [--only NAME ...]
        [--threads N ...]

Rows ``step``, per graph and path ("numpy" or "compiled"), median milliseconds of ``--repeats``
runs, each on a fresh copy of the graph (nothing kept; ``load_avg``: the machine's load then;
``threads``: the most host threads a step used, the compiled twins' by ``compiled.prep_threads``'
rule, or each count of ``--threads``, 0 the rule):
- ``mce``: the degeneracy-ordered CSR and the edge seeds with their buffer words (RDMCE's first call);
- ``kclique``: the graph relabelled by degree and oriented (``order.oriented_csr``, KCMiner's);
- ``mbe``: ``gmbe.prepare`` (GMBE+'s order, both CSRs and the 2-hop sizes);
- ``mce: peel``, ``mce: relabel``, ``mce: seeds``, ``mce: buffer words``: the parts of ``mce`` alone.
On a GPU host ``mce`` also runs on the GPU (path "cupy", ``gpu.prep``, copies included). Every path
must give NumPy's arrays (checked on every row). Rows ``numba`` (graph empty): in
``--repeats`` fresh processes, the import, the first compiled twin (Numba's CPU target starts), each
further twin's first call, and the bounds' first ``clique_bounds`` (``mce_kit.bounds``). The
rows carry the machine's provenance (its GPU where there is one).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from .. import accel, datasets
from ..graph import BipartiteGraph, Graph
from ..measure import write_rows
from ..references import RESULTS

GRAPHS = ("CA-GrQc", "email-Eu-core", "wiki-Vote", "Email-Enron", "soc-Slashdot0902", "socfb-MIT",
          "ego-Facebook", "MANN_a27", "MovieLens", "marvel", "dbpedia-writer")

_FRESH = """
import json, time
t = [time.perf_counter()]
import numba  # noqa: F401
import numpy as np
t.append(time.perf_counter())
from mce_kit import compiled
ptr, idx = np.array([0, 1, 2], np.int32), np.array([1, 0], np.int32)
compiled.peel(ptr, idx)
t.append(time.perf_counter())
compiled.relabel(ptr, idx, np.array([1, 0], np.int32))
compiled.seed_bounds(ptr, idx, "edge")
compiled.orient(ptr, idx)
t.append(time.perf_counter())
from mce_kit import bounds
from mce_kit.graph import Graph
bounds.clique_bounds(Graph(ptr, idx))
t.append(time.perf_counter())
print(json.dumps([1e3 * (b - a) for a, b in zip(t, t[1:])]))
"""
NUMBA_STEPS = ("import", "first twin (CPU target)", "each further twin", "first clique_bounds")


def numba_costs(repeats: int) -> pd.DataFrame:
    """Median ms of each NUMBA_STEPS in fresh processes (cached functions, no compilation)."""
    runs = []
    for _ in range(repeats + 1):  # the first one may compile what is not cached yet
        out = subprocess.run([sys.executable, "-c", _FRESH], capture_output=True, text=True, check=True,
                             cwd=Path(__file__).parents[2]).stdout
        runs.append(json.loads(out.strip().splitlines()[-1]))
    runs = np.array(runs[1:])
    runs[:, 2] /= 3  # three further twins
    return pd.DataFrame({"step": "numba", "graph": "", "path": "fresh process", "entries": 0, "threads": 1,
                         "median_ms": np.median(runs, axis=0), "min_ms": runs.min(axis=0),
                         "repeats": repeats, "detail": NUMBA_STEPS, "load_avg": os.getloadavg()[0]})


def _mce(G: Graph):
    from ..gpu import rdmce

    prep = rdmce.prepare(Graph(G.indptr, G.indices))
    return (prep.order, prep.indptr, prep.indices, *prep.seed_arrays("edge"))


def _kclique(G: Graph):
    from ..order import degree_order, oriented_csr

    return oriented_csr(G, degree_order(G))


def _mbe(B: BipartiteGraph):
    from ..gpu import gmbe

    p = gmbe.prepare(B)
    return tuple(v for v in vars(p).values() if isinstance(v, np.ndarray))


def _mce_parts(G: Graph) -> list:
    """(name, G -> arrays) of each part of ``_mce`` alone, its inputs computed beforehand."""
    from ..gpu import rdmce
    from ..gpu.seeds import per_seed, seed_sets
    from ..order import peel_arrays, peel_host, relabel_arrays, relabel_host

    order = peel_arrays(G.indptr, G.indices)[0]
    ptr, idx = relabel_arrays(G.indptr, G.indices, order)
    ptr = ptr.astype(np.int32)
    _, _, p, x = seed_sets(ptr, idx, "edge", "cpu")
    return [("mce: peel", lambda G: peel_host(G.indptr, G.indices)),
            ("mce: relabel", lambda G: relabel_host(G.indptr, G.indices, order)),
            ("mce: seeds", lambda G: seed_sets(ptr, idx, "edge", "cpu")),
            ("mce: buffer words", lambda G: per_seed(p, x, rdmce.rows_words, rdmce.stack_words))]


def _timed(fn, G, repeats: int):
    fn(G)  # loads what the path needs (Numba's functions) outside the timing
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn(G)
        times.append((time.perf_counter() - t0) * 1e3)
    return out, times


def _mce_cupy(G: Graph):
    """``_mce``'s arrays computed on the GPU (``gpu.prep``: what ``GPU_MIN_ENTRIES`` sends there)."""
    from ..gpu import prep, rdmce

    order, _, ptr, idx = prep.degeneracy_csr(G.indptr, G.indices)
    ptr = np.ascontiguousarray(ptr, dtype=np.int32)
    return (order, ptr, idx, *prep.seed_needs(ptr, idx, "edge", rdmce.rows_words, rdmce.stack_words))


def _counting_threads(rule, forced: int, used: list):
    """``compiled.prep_threads`` forced to ``forced`` threads (0: its rule), each count kept in ``used``."""
    def pick(entries, threads=None, **kw):
        used.append(rule(entries, threads or forced or None, **kw))
        return used[-1]
    return pick


def host_steps(names, repeats: int, thread_counts=(0,)):
    from .. import compiled
    from ..gpu import has_gpu

    real, rule, least = accel.use_compiled, compiled.prep_threads, accel.PREP_GPU_MIN_ENTRIES
    accel.PREP_GPU_MIN_ENTRIES = 1 << 62  # the host paths stay on the host ("cupy" is the GPU's)
    try:
        for name in names:
            G = datasets.load(name)
            bipartite = isinstance(G, BipartiteGraph)
            steps = [("mbe", _mbe, None)] if bipartite else [("mce", _mce, _mce_cupy),
                                                             ("kclique", _kclique, None)]
            steps += [] if bipartite else [(part, fn, None) for part, fn in _mce_parts(G)]
            entries = G.m if bipartite else len(G.indices)
            for step, fn, on_gpu in steps:
                paths = [("numpy", fn, 0)] + [("compiled", fn, T) for T in thread_counts]
                paths += [("cupy", on_gpu, 0)] if on_gpu and has_gpu() else []
                want = None
                for path, run, forced in paths:
                    accel.use_compiled = lambda _entries, c=path == "compiled": c
                    used = []
                    compiled.prep_threads = _counting_threads(rule, forced, used)
                    got, times = _timed(run, G, repeats)
                    want = got if want is None else want
                    yield {"step": step, "graph": name, "path": path, "entries": entries,
                           "threads": max(used, default=1), "median_ms": statistics.median(times),
                           "min_ms": min(times), "repeats": repeats, "detail": "",
                           "load_avg": os.getloadavg()[0]}
                    if not all(np.array_equal(a, b) for a, b in zip(want, got, strict=True)):
                        raise AssertionError(f"{step} {name}: the {path} arrays differ from NumPy's")
    finally:
        accel.use_compiled, compiled.prep_threads, accel.PREP_GPU_MIN_ENTRIES = real, rule, least


def provenance() -> dict:
    import numba

    from ..gpu import has_gpu
    from ..measure import provenance as gpu_provenance
    from .nxbackend import cpu_provenance

    return {**(gpu_provenance() if has_gpu() else cpu_provenance()), "numba": numba.__version__}


def measure_all(names, repeats: int, thread_counts=(0,)):
    yield numba_costs(repeats)
    for row in host_steps(names, repeats, thread_counts):
        print(row, flush=True)
        yield pd.DataFrame([row])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mce_kit.experiments.coldprep",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--only", nargs="*", help="graph names")
    ap.add_argument("--threads", nargs="*", type=int, default=[0],
                    help="the compiled path on these thread counts (0: compiled.prep_threads' rule)")
    a = ap.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    rows = measure_all(a.only or GRAPHS, a.repeats, a.threads)
    df = write_rows(rows, a.out / "cold_prep.csv", provenance())
    print(df.pivot_table(index=["step", "graph"], columns=["path", "threads"], values="median_ms")
          .round(2).to_string())
    return 0


if __name__ == "__main__":
    sys.exit(main())
