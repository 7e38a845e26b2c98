"""cProfile of warm public k-clique calls on a GPU host: where the host time beside the kernel goes
(python3 scripts/prof_warm.py; log data/results/logs/prof_warm_*.log)."""
import cProfile
import pstats
import statistics
import sys
import time

from mce_kit import api, datasets

CASES = [("CA-GrQc", 8), ("CA-GrQc", 4), ("CA-HepTh", 6)]
for name, k in CASES:
    G = datasets.load(name)
    for _ in range(20):
        api.count_k_cliques(G, k, device="gpu")
    t = []
    for _ in range(200):
        t0 = time.perf_counter()
        api.count_k_cliques(G, k, device="gpu")
        t.append(time.perf_counter() - t0)
    print(f"== {name} k={k}: warm median {statistics.median(t) * 1e6:.0f} us, min {min(t) * 1e6:.0f} us",
          flush=True)
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(1000):
        api.count_k_cliques(G, k, device="gpu")
    pr.disable()
    pstats.Stats(pr, stream=sys.stdout).sort_stats("tottime").print_stats(40)
