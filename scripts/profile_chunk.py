"""Where a Dask chunk's time goes on its worker, outside the kernel: cProfile of the launcher on
half the tasks of a long and a short workload (run on a GPU host: python3 scripts/profile_chunk.py)."""
import cProfile
import pstats
import time

from mce_kit import distributed as md
from mce_kit.experiments.multigpu import graph

for algo, name, params in (("kcminer", "rmat-15-16", {"k": 5}), ("cliquecount", "rmat-15-16", {"k_max": 6}),
                           ("kcminer", "ego-Facebook", {"k": 8})):
    job = md.prepare(graph(name), algo, **params)
    idx = md.chunk_tasks(job.costs, 2)[0]
    job.kernel.run_tasks(job.prep, idx, **params)   # warm
    t0 = time.perf_counter()
    res = job.prep.run(tasks=idx, **params)
    print(f"{algo} {name}: wall {1e3 * (time.perf_counter() - t0):.1f} ms, kernel {res.gpu_ms:.1f} ms")
    pr = cProfile.Profile()
    pr.enable()
    job.kernel.run_tasks(job.prep, idx, **params)
    pr.disable()
    pstats.Stats(pr).sort_stats("cumulative").print_stats(18)
