"""Warm max_cliques calls of one graph in one process, timed several ways: consecutive, after
``warm_clocks``, two graph objects alternating, consecutive again, with a sync after each, with the
collector off. The peers worker timed email-Eu-core 1.4 ms slower than ab_trees.py did on one host;
this tells a slower worker from a host whose calls change speed as they go. From the checkout's root
on a GPU host:

    python3 scripts/warm_modes.py [GRAPH]
"""
import gc
import statistics
import sys
import time

import cupy

import mce_kit as mk
from mce_kit import datasets
from mce_kit.measure import warm_clocks

name = sys.argv[1] if len(sys.argv) > 1 else "email-Eu-core"


def call(G):
    omega, cliques = mk.max_cliques(G, device="gpu")
    return int(omega), len(cliques)


def timed(what: str, fn, n: int = 21) -> None:
    ms = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        ms.append((time.perf_counter() - t) * 1e3)
    print(f"{name:15s} {what:32s} median {statistics.median(ms):7.3f} ms  min {min(ms):7.3f}", flush=True)


call(datasets.load(name))   # compiles
G, H = datasets.load(name), datasets.load(name)
call(G), call(H)
timed("consecutive", lambda: call(G))
warm_clocks(lambda: call(G))
timed("consecutive after warm_clocks", lambda: call(G))
timed("G, H alternating (a pair)", lambda: (call(G), call(H)))
timed("consecutive again", lambda: call(G))
timed("consecutive, a sync after each", lambda: (call(G), cupy.cuda.Device().synchronize()))
gc.disable()
timed("consecutive, collector off", lambda: call(G))
gc.enable()
