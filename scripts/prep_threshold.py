"""Cold public calls (``prepared.release()``: kept state and CuPy's cached blocks dropped) at several
``accel.PREP_GPU_MIN_ENTRIES``, in a process that starts without Numba (the host steps load it once
they pass ``accel.COMPILED_MIN_ENTRIES``). Medians of 7, each threshold twice (ascending, then
descending: drift cancels in the mean); every answer must equal the reference. From the checkout
on a GPU host:

    python3 scripts/prep_threshold.py > prep_threshold.log
"""
import statistics
import sys

import cupy

from mce_kit import accel, api, datasets, references
from mce_kit.measure import cold_calls

CALLS = {"mce": lambda G: api.count_maximal_cliques(G, device="gpu"),
         "k4": lambda G: api.count_k_cliques(G, 4, device="gpu"),
         "k6": lambda G: api.count_k_cliques(G, 6, device="gpu"),
         "k8": lambda G: api.count_k_cliques(G, 8, device="gpu")}
GRAPHS = ["CA-GrQc", "email-Eu-core", "CA-HepTh", "ego-Facebook", "wiki-Vote", "Email-Enron"]
THRESHOLDS = (1 << 18, 1 << 16, 1 << 14)


def cold(tag: str, name: str, n: int = 7) -> float:
    """Median cold ms of ``CALLS[tag]`` on ``name``; every answer must equal the reference."""
    k = {} if tag == "mce" else {"k": int(tag[1:])}
    want = references.expected("mce" if tag == "mce" else "kclique", name, **k)
    sync = cupy.cuda.Device().synchronize
    return statistics.median(cold_calls(CALLS[tag], lambda: datasets.load(name), n, sync, want)[1])


print("numba loaded at the start:", "numba" in sys.modules)
for tag, call in CALLS.items():
    for name in GRAPHS:
        if name == "ego-Facebook" and tag in ("k6", "k8"):
            continue
        res = []
        for least in (*THRESHOLDS, *THRESHOLDS[::-1]):
            accel.PREP_GPU_MIN_ENTRIES = least
            if len(res) < len(THRESHOLDS):
                call(datasets.load(name))   # this route's host code compiled
            res.append(cold(tag, name))
        means = [(res[i] + res[-1 - i]) / 2 for i in range(len(THRESHOLDS))]
        print(f"{tag:4s} {name:16s} entries {len(datasets.load(name).indices):8d}  cold ms at "
              + "  ".join(f"2^{t.bit_length() - 1} {m:7.2f}" for t, m in zip(THRESHOLDS, means, strict=True))
              + f"   {[round(x, 2) for x in res]}", flush=True)
print("numba loaded at the end:", "numba" in sys.modules)
