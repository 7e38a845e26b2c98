"""Cold public calls of one tree, for an A/B of two trees in alternating processes: each case's call
once (kernels and host code compiled), then 7 cold calls (``prepared.release()``, a fresh copy of the
graph), the median printed; every answer must equal the reference. The process starts without Numba,
as a user's does. From the checkout on a GPU host (the other tree, from ``git archive REV mce_kit |
tar -x -C base``, needs ``measure.cold_calls(..., expect)``; for an older one, run this file's loop
copied into a scratch script):

    PYTHONPATH=base MCE_KIT_DATA=$PWD/data python3 scripts/cold_ab.py base
    PYTHONPATH=$PWD python3 scripts/cold_ab.py new
"""
import statistics
import sys

import cupy

from mce_kit import api, datasets, references
from mce_kit.measure import cold_calls

CASES = [("mce", "CA-GrQc"), ("mce", "email-Eu-core"), ("mce", "wiki-Vote"), ("k4", "CA-GrQc"),
         ("k4", "wiki-Vote"), ("k4", "Email-Enron"), ("k6", "CA-HepTh"), ("k4", "soc-Slashdot0902")]
CALL = {"mce": lambda G: api.count_maximal_cliques(G, device="gpu"),
        "k4": lambda G: api.count_k_cliques(G, 4, device="gpu"),
        "k6": lambda G: api.count_k_cliques(G, 6, device="gpu")}

for tag, name in CASES:
    call = CALL[tag]
    call(datasets.load(name))
    k = {} if tag == "mce" else {"k": int(tag[1:])}
    want = references.expected("mce" if tag == "mce" else "kclique", name, **k)
    ms = cold_calls(call, lambda name=name: datasets.load(name), 7, cupy.cuda.Device().synchronize, want)[1]
    print(f"{sys.argv[1]:4s} {tag:4s} {name:18s} cold {statistics.median(ms):7.2f} ms", flush=True)
print(sys.argv[1], "numba loaded:", "numba" in sys.modules)
