"""Warm public calls of two trees in one process: the base tree (``git archive REV mce_kit | tar -x -C
DIR``) is imported as ``mce_kit_base`` beside the working tree's ``mce_kit``; each case's calls alternate
(base, new, base, ...), 21 each after 3 warm-up calls, and the medians are printed with their ratio. The
base tree compiles its kernels into files of its own (one file would give both trees one launch record).
Hosts of one GPU kind differ by more than most changes between machine starts, and processes of one
tree by more than a millisecond: one process sees both trees on the same host at the same time.
Every answer of max_cliques is checked against data/results/maxclique_reference.csv where it has the
graph; the others are checked base against new. From the checkout's root on a GPU host:

    python3 scripts/ab_trees.py DIR [--call max_cliques|count_maximal_cliques|k4|k6|k8] [--algorithm A]
                                [GRAPH ...]
"""
import argparse
import importlib
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ap = argparse.ArgumentParser()
ap.add_argument("base", help="a folder holding the base tree's mce_kit/")
ap.add_argument("graphs", nargs="*", default=["email-Eu-core", "wiki-Vote", "socfb-MIT", "brock200_4",
                                                "keller4", "hamming8-4", "p_hat300-1", "C125.9"])
ap.add_argument("--call", default="max_cliques")
ap.add_argument("--device", default="gpu")
ap.add_argument("--calls", type=int, default=21)
ap.add_argument("--algorithm", help="passed to the call (count_maximal_cliques: rdmce or mce-gpu)")
args = ap.parse_intermixed_args()

side = tempfile.mkdtemp()
shutil.copytree(os.path.join(args.base, "mce_kit"), os.path.join(side, "mce_kit_base"))
sys.path.insert(0, side)
os.environ.setdefault("MCE_KIT_DATA", os.path.abspath("data"))
import mce_kit_base as base  # noqa: E402
import pandas as pd  # noqa: E402

# the base tree's kernels from files of its own: CuPy loads a cubin once per process, so one file
# would give both trees one __constant__ launch record, each tree's kept copy of it then stale
importlib.import_module("mce_kit_base.gpu.loader").cache_dir = lambda: Path(side) / "kernels"

import mce_kit as new  # noqa: E402

if args.device == "gpu":
    import cupy

    sync = cupy.cuda.Device().synchronize
else:
    def sync():
        pass


def call(mk, G):
    if args.call.startswith("k") and args.call[1:].isdigit():
        return int(mk.count_k_cliques(G, int(args.call[1:]), device=args.device))
    how = {"algorithm": args.algorithm} if args.algorithm else {}
    r = getattr(mk, args.call)(G, device=args.device, **how)
    return (r[0], sorted(map(sorted, r[1]))) if args.call == "max_cliques" else int(r)


ref = pd.read_csv("data/results/maxclique_reference.csv")
print(f"# {args.call} on {args.device}: base = {args.base}, new = the working tree; medians of {args.calls}",
      flush=True)
for name in args.graphs:
    graphs = {tag: mk.datasets.load(name) for tag, mk in (("base", base), ("new", new))}
    answers = {}
    for tag, mk in (("base", base), ("new", new)):
        for _ in range(3):
            answers[tag] = call(mk, graphs[tag])
    sync()
    row = ref[ref.graph == name]
    if args.call == "max_cliques" and len(row):
        want = (int(row.omega.iloc[0]), int(row.n_maximum.iloc[0]))
        ok = all((a[0], len(a[1])) == want for a in answers.values())
    else:
        ok = answers["base"] == answers["new"]
    ts = {"base": [], "new": []}
    for _ in range(args.calls):
        for tag, mk in (("base", base), ("new", new)):
            t0 = time.perf_counter()
            got = call(mk, graphs[tag])
            sync()
            ts[tag].append((time.perf_counter() - t0) * 1e3)
            ok &= got == answers[tag]   # every timed call's answer too
    b, n = statistics.median(ts["base"]), statistics.median(ts["new"])
    print(f"{name:17s} base {b:8.3f} ms  new {n:8.3f} ms  new/base {n / b:5.2f}  answers ok={ok}", flush=True)
