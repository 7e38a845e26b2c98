"""Throughput of mce_kit.clique_io.write_blocks on synthetic clique blocks shaped like ego-Facebook's
listing (no GPU needed): int32 ids < 4039, sizes ~ N(54, 8), each clique sharing a long prefix with the
one before (a depth-first enumeration's order). Blocks of 2^20 cliques (~57 M ids, 226 MB as int32) are
handed out as fresh copies of a few templates, as the GPU's stream would hand them.

    python scripts/clique_io_bench.py OUT.csv --gb 2 --threads 1,2,4,8,16

One CSV row per thread count: wall and CPU seconds, MB/s of the uint16 bytes deflated, cliques/s, file
bytes, compression ratio (of the uint16 bytes), the resident memory the write added (sampled every
10 ms), the host's cores and load.
"""

from __future__ import annotations

import argparse
import csv
import os
import resource
import sys
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mce_kit.clique_io import write_blocks  # noqa: E402

N_VERTICES = 4039


def template(n_cliques: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(sizes, ids) of ``n_cliques`` cliques, each keeping all but a geometric number of the last
    clique's vertices (at most size - 1) and filling up with fresh random ids."""
    rng = np.random.default_rng(seed)
    sizes = np.clip(rng.normal(54, 8, n_cliques).round().astype(int), 2, 115)
    drops = rng.geometric(0.35, n_cliques)
    fresh = rng.integers(0, N_VERTICES, (n_cliques, 116))
    prev: list[int] = []
    ids: list[int] = []
    for i in range(n_cliques):
        keep = max(0, min(len(prev) - int(drops[i]), int(sizes[i]) - 1))
        prev = prev[:keep] + fresh[i, : sizes[i] - keep].tolist()
        ids.extend(prev)
        sizes[i] = len(prev)
    return sizes, np.array(ids, dtype=np.int32)


def block_templates(k: int, block: int = 1 << 20, base: int = 100_000) -> list[tuple[np.ndarray, np.ndarray]]:
    sizes, ids = template(base, 0)
    out = []
    for j in range(k):       # the base listing tiled, each block's ids shifted (mod n) so blocks differ
        reps = -(-block // base)
        s = np.tile(sizes, reps)[:block]
        v = (np.tile(ids, reps)[: int(s.sum())] + 977 * j) % N_VERTICES
        off = np.zeros(block + 1, dtype=np.int64)
        np.cumsum(s, out=off[1:])
        out.append((off, v.astype(np.int32)))
    return out


def rss_mib() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return 0.0


def run(templates, n_blocks: int, threads: int, path: Path) -> dict:
    def blocks():
        for i in range(n_blocks):
            off, v = templates[i % len(templates)]
            yield off.copy(), v.copy()

    base = rss_mib()
    top, stop = [base], threading.Event()

    def watch():
        while not stop.is_set():
            top[0] = max(top[0], rss_mib())
            time.sleep(0.01)

    w = threading.Thread(target=watch, daemon=True)
    w.start()
    t, c = time.perf_counter(), time.process_time()
    n = write_blocks(blocks(), path, threads=threads)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    stop.set()
    w.join()
    ids = sum(len(templates[i % len(templates)][1]) for i in range(n_blocks))
    size = path.stat().st_size
    path.unlink()
    return {"threads": threads, "blocks": n_blocks, "cliques": n, "ids": ids, "wall_s": round(wall, 3),
            "cpu_s": round(cpu, 3), "uint16_MBps": round(2 * ids / wall / 1e6, 1),
            "uint16_MBps_per_cpu_s": round(2 * ids / cpu / 1e6, 1), "kcliques_per_s": round(n / wall / 1e3),
            "file_bytes": size, "ratio_uint16": round(2 * ids / size, 2),
            "ratio_int32": round(4 * ids / size, 2),
            "rss_added_mib": round(top[0] - base), "cores": len(os.sched_getaffinity(0)),
            "load1": round(os.getloadavg()[0], 2),
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", help="CSV file")
    p.add_argument("--gb", type=float, default=1.0, help="int32 GB written per thread count")
    p.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    p.add_argument("--tmp", default="/tmp", help="folder of the .npz written (deleted after)")
    a = p.parse_args()
    templates = block_templates(3)
    n_blocks = max(1, round(a.gb * 1e9 / templates[0][1].nbytes))
    rows = []
    for threads in (int(x) for x in a.threads.split(",")):
        rows.append(run(templates, n_blocks, threads, Path(a.tmp) / f"clique_io_bench_{os.getpid()}.npz"))
        print(",".join(f"{k}={v}" for k, v in rows[-1].items()), flush=True)
        with open(a.out, "w", newline="") as f:
            wr = csv.DictWriter(f, fieldnames=list(rows[0]))
            wr.writeheader()
            wr.writerows(rows)


if __name__ == "__main__":
    main()
