"""The bounds on the GPU (gpu.bounds) against the host's (Numba, warm) on one GPU: median of 5 cold
computations each, [lower, upper] and the roots left open. Logs: data/results/logs/gpu_bounds_*.

    PYTHONPATH=. python3 scripts/bounds_time.py [GRAPH ...]
"""
import statistics
import sys
import time

import cupy

from mce_kit import datasets
from mce_kit.bounds import SWAP_ROUNDS
from mce_kit.bounds import _clique_bounds as on_host
from mce_kit.gpu.bounds import _clique_bounds as on_gpu

GRAPHS = ["CA-GrQc", "email-Eu-core", "wiki-Vote", "Email-Enron", "soc-Slashdot0902", "socfb-MIT",
          "ego-Facebook", "brock200_4", "keller4", "hamming8-4", "C125.9", "gen200_p0.9_44", "MANN_a27",
          "san200_0.7_1"]


def timed(f, G):
    t = time.perf_counter()
    out = f(G)
    cupy.cuda.runtime.deviceSynchronize()
    return out, time.perf_counter() - t


for name in sys.argv[1:] or GRAPHS:
    G = datasets.load(name)
    on_host(G, SWAP_ROUNDS)
    on_gpu(G)   # kernels loaded
    host = [timed(lambda H: on_host(H, SWAP_ROUNDS), G) for _ in range(5)]
    gpu = [timed(on_gpu, G) for _ in range(5)]
    line = [f"{name:18s}"]
    for side, runs in (("host", host), ("gpu", gpu)):
        b = runs[-1][0]
        ms = 1e3 * statistics.median(t for _, t in runs)
        line.append(f"{side} {ms:8.2f} ms [{b.lower},{b.upper}] open {b.open_roots}")
    print("  ".join(line), flush=True)
