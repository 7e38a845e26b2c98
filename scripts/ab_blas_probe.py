"""Whole ``mce-kit count ... --device cpu`` processes with and without ``cli._NoBlasProbe`` (Numba's BLAS
probe kept from importing scipy.linalg): 5 alternating rounds after an untimed first each, medians.

    PYTHONPATH=. python3 scripts/ab_blas_probe.py     # log: data/results/logs/ab_blas_probe_*
"""
import statistics
import subprocess
import sys
import time

CASES = [["data/snap/CA-GrQc.txt.gz", "--problem", "maxclique"],
         ["data/snap/CA-GrQc.txt.gz", "--problem", "mce"],
         ["data/snap/wiki-Vote.txt.gz", "--problem", "kclique", "--k", "8"],
         ["dbpedia-writer", "--problem", "mbe"]]
RUN = ("import sys, mce_kit.cli as cli\n"
       "if sys.argv[1] == 'on': sys.meta_path.insert(0, cli._NoBlasProbe())\n"
       "sys.exit(cli.main(sys.argv[2:]))")

for case in CASES:
    argv = ["count", *case, "--device", "cpu"]
    times = {"off": [], "on": []}
    for side in times:   # untimed: Numba's cache and the graph cache filled
        subprocess.run([sys.executable, "-W", "ignore", "-c", RUN, side, *argv], capture_output=True)
    for _ in range(5):
        for side in times:
            t = time.perf_counter()
            r = subprocess.run([sys.executable, "-W", "ignore", "-c", RUN, side, *argv], capture_output=True,
                               text=True)
            times[side].append(time.perf_counter() - t)
    medians = {side: round(statistics.median(ts), 3) for side, ts in times.items()}
    print(" ".join(case), medians, r.stdout.strip(), flush=True)
