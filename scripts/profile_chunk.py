"""Where a Dask chunk's time goes on its worker, outside the kernel: the kernel on all the tasks and
on half of them (as one of 2 GPUs gets), and cProfile of the launcher on that half (run on a GPU
host: python3 scripts/profile_chunk.py)."""
import cProfile
import pstats
import time

from mce_kit import distributed as md
from mce_kit.experiments.multigpu import graph

WORKLOADS = (("kcminer", "rmat-15-16", {"k": 5}), ("cliquecount", "rmat-15-16", {"k_max": 6}),
             ("kcminer", "ego-Facebook", {"k": 8}), ("cliquecount", "ego-Facebook", {"k_max": 10}))
for algo, name, params in WORKLOADS:
    job = md.prepare(graph(name), algo, **params)
    every, half = md.chunk_tasks(job.costs, 1)[0], md.chunk_tasks(job.costs, 2)[0]
    for idx in (every, half):
        job.kernel.run_tasks(job.prep, idx, **params)  # warm
    whole = min(job.prep.run(tasks=every, **params).gpu_ms for _ in range(3))
    t0 = time.perf_counter()
    res = job.prep.run(tasks=half, **params)
    print(f"{algo} {name}: half the tasks: wall {1e3 * (time.perf_counter() - t0):.1f} ms, kernel "
          f"{res.gpu_ms:.1f} ms; all the tasks: kernel {whole:.1f} ms")
    pr = cProfile.Profile()
    pr.enable()
    job.kernel.run_tasks(job.prep, half, **params)
    pr.disable()
    pstats.Stats(pr).sort_stats("cumulative").print_stats(12)
