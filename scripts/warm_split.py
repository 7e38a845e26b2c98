"""Warm k-clique calls split by host timestamps at the launcher's CUDA event records: before the start
record, between the records, the stop sync, after it (medians of N calls), beside the launcher's gpu_ms,
and how many of the N calls copied their launch record (python scripts/warm_split.py TAG on a GPU host,
once per tree to compare; log
data/results/logs/warm_split_*.log)."""
import statistics
import sys
import time

import cupy

from mce_kit import api, datasets
from mce_kit.gpu import cliquecount, kclique, launch

WRITTEN = getattr(launch, "_WRITTEN", None)   # (a tree without the kept launch records: None)


def held_records():
    """The launch records held now, by identity: a record copied anew is a new tuple."""
    if WRITTEN is None:
        return {}
    if isinstance(WRITTEN, dict):   # by the struct's address: (record, module)
        return {at: id(held[0]) for at, held in WRITTEN.items()}
    return {(id(m), at): id(w) for m, d in WRITTEN.items() for at, w in d.items()}   # (by module, before)

CASES = [("CA-GrQc", 6), ("CA-HepTh", 6), ("Email-Enron", 6), ("soc-Slashdot0902", 6), ("CA-GrQc", 8),
         ("CA-HepTh", 8), ("CA-GrQc", 10), ("CA-HepTh", 10), ("email-Eu-core", 10), ("CA-GrQc", 4),
         ("wiki-Vote", 4)]
N = 60
marks = []


class MarkedEvent(cupy.cuda.Event):
    def record(self, stream=None):
        super().record(stream)
        marks.append(("record", time.perf_counter()))

    def synchronize(self):
        super().synchronize()
        marks.append(("sync", time.perf_counter()))


cupy.cuda.Event = MarkedEvent   # the launchers make their timing events through this name
tag = sys.argv[1] if len(sys.argv) > 1 else "tree"
for name, k in CASES:
    G = datasets.load(name)
    for _ in range(5):
        api.count_k_cliques(G, k, device="gpu")
    rows, copies = [], 0
    for _ in range(N):
        marks.clear()
        held = held_records()
        t0 = time.perf_counter()
        count = api.count_k_cliques(G, k, device="gpu")
        t1 = time.perf_counter()
        copies += sum(held.get(at) != w for at, w in held_records().items())
        records = [t for m, t in marks if m == "record"]
        sync = [t for m, t in marks if m == "sync"][-1]
        rows.append((records[0] - t0, records[-1] - records[0], sync - records[-1], t1 - sync, t1 - t0))
    part = [statistics.median(r[i] for r in rows) * 1e3 for i in range(5)]
    how = count.params.get("algorithm")
    if how == "pivot":
        kernel = [cliquecount.prepare(G).run(k_max=k).gpu_ms for _ in range(N)]
    else:
        kernel = [kclique.prepare(G).run(k=k).gpu_ms for _ in range(N)]
    ms = statistics.median(kernel)
    print(f"{tag:4s} {name:17s} k={k:2d} {how:7s} before {part[0]:.3f} between {part[1]:.3f} "
          f"sync {part[2]:.3f} after {part[3]:.3f} call {part[4]:.3f} | kernel {ms:.3f} "
          f"ratio {part[4] / ms:.2f} | records copied {copies if WRITTEN is not None else '-'} of {N}",
          flush=True)
