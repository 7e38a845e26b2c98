"""The pivot counter's halves on one GPU (what each of 2 GPUs runs) against the whole, by split
sizing, for ego-Facebook up to k_max: python3 scripts/pivot_halves.py OUT_DIR [K_MAX]."""
import itertools
import sys
from pathlib import Path

import pandas as pd

from mce_kit import datasets
from mce_kit import distributed as md
from mce_kit.experiments.kcminer import _OneK, measure
from mce_kit.gpu import cliquecount
from mce_kit.measure import provenance

out, k = Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 10
G = datasets.load("ego-Facebook")
prep = _OneK(cliquecount.prepare(G), k)
halves = md.chunk_tasks(md.prepare(G, "cliquecount", k_max=k).costs, 2)
rows = []
for (share, most), (tasks, idx) in itertools.product(
        [(16, 64), (32, 64), (64, 64), (32, 256), (64, 256)],
        [("all", None), ("half", halves[0]), ("other half", halves[1])]):
    m = measure(prep, None, 3, tasks=idx, k_max=k, split_share=share, max_pieces=most)
    rows.append({"graph": "ego-Facebook", "k": k, "split_share": share, "max_pieces": most, "tasks": tasks,
                 "gpu_ms": m["gpu_ms"], "answer": m["answer"], "pieces": m["pieces"], **provenance()})
    print(rows[-1]["split_share"], most, tasks, round(m["gpu_ms"], 1), m["pieces"], flush=True)
pd.DataFrame(rows).to_csv(out / "pivot_halves.csv", index=False)
