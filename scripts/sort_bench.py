"""Our radix sort (gpu/sort.py) against CuPy's (Thrust) in a warm process: CUDA events, one warm-up,
medians of 7 (log: data/results/logs/radix_sort_*). PYTHONPATH=. python3 scripts/sort_bench.py"""
import cupy
import numpy as np

from mce_kit.gpu import sort as gs

for n, bits in [(1 << 20, 49), (1 << 20, 34), (1 << 23, 52), (100_000, 40)]:
    k = cupy.asarray(np.random.default_rng(1).integers(0, 1 << bits, n, dtype=np.int64))
    calls = [("thrust sort", lambda k=k: cupy.sort(k)), ("radix sort", lambda k=k, b=bits: gs.sort(k, b)),
             ("thrust argsort", lambda k=k: cupy.argsort(k)),
             ("radix argsort", lambda k=k, b=bits: gs.argsort(k, b))]
    for name, f in calls:
        f()
        cupy.cuda.Device().synchronize()
        s, e = cupy.cuda.Event(), cupy.cuda.Event()
        ts = []
        for _ in range(7):
            s.record()
            f()
            e.record()
            e.synchronize()
            ts.append(cupy.cuda.get_elapsed_time(s, e))
        print(f"n={n:>9} bits={bits} {name:15s} median {np.median(ts):.3f} ms")
