"""Whole-process phases of a GPU count in one fresh interpreter: imports, CUDA context, load, first and
second call (python scripts/phases.py FILE mce|mbe|kclique|maxclique; logs under data/results/logs)."""
# ruff: noqa: E402  (the imports are what is timed)
import sys
import time

T0 = time.perf_counter()
MARKS = []


def mark(what: str) -> None:
    MARKS.append((what, time.perf_counter()))


import numpy  # noqa: F401

mark("import numpy")
import cupy

mark("import cupy")
cupy.zeros(1).sum().item()
mark("CUDA context + first launch")
import mce_kit.api as api
from mce_kit.io import load_bipartite, load_graph

mark("import mce_kit.api")
path, problem = sys.argv[1], sys.argv[2]
G = load_bipartite(path) if problem == "mbe" else load_graph(path)
mark("load graph")
call = {"mce": lambda: api.count_maximal_cliques(G, device="gpu"),
        "mbe": lambda: api.count_maximal_bicliques(G, device="gpu"),
        "kclique": lambda: api.count_k_cliques(G, 8, device="gpu"),
        "maxclique": lambda: api.max_cliques(G, device="gpu")[0]}[problem]
answer = call()
mark("first call (modules from cache)")
call()
mark("second call")
HEAVY = ("scipy", "numba", "pandas", "networkx", "matplotlib", "cupyx", "llvmlite")
print(path.split("/")[-1], problem, "answer", answer)
prev = T0
for what, t in MARKS:
    print(f"  {what:34s} {1e3 * (t - prev):8.1f} ms")
    prev = t
print(f"  total {1e3 * (prev - T0):.0f} ms; heavy modules imported: {[m for m in HEAVY if m in sys.modules]}")
