"""Cold-call profiles on the GPU: wall time (median of 3) and a cProfile of one cold call, or with
``--synced`` the preparation steps' own times: the device synchronised around each (``STEPS``), the
medians of 5 cold calls (a cProfile sees only where the host waits).

    python scripts/cold_profile.py [--synced] [TAG ...]   # tags: mce k4 k6 k8 maxclique mbe (default: all)
"""
import cProfile
import io
import pstats
import statistics
import sys
import time

from mce_kit import api, datasets, prepared
from mce_kit.measure import cold_calls

CASES = [
    ("mce", "soc-Slashdot0902", lambda G: api.count_maximal_cliques(G, device="gpu")),
    ("mce", "socfb-MIT", lambda G: api.count_maximal_cliques(G, device="gpu")),
    ("mce", "Email-Enron", lambda G: api.count_maximal_cliques(G, device="gpu")),
    ("k6", "soc-Slashdot0902", lambda G: api.count_k_cliques(G, 6, device="gpu")),
    ("k8", "soc-Slashdot0902", lambda G: api.count_k_cliques(G, 8, device="gpu")),
    ("k4", "socfb-MIT", lambda G: api.count_k_cliques(G, 4, device="gpu")),
    ("maxclique", "socfb-MIT", lambda G: int(api.clique_number(G, device="gpu"))),
    ("maxclique", "wiki-Vote", lambda G: int(api.clique_number(G, device="gpu"))),
    ("mbe", "dbpedia-writer", lambda G: api.count_maximal_bicliques(G, device="gpu")),
]


# (module, function) of the preparation steps ``--synced`` times, inclusive of what they call
STEPS = [("mce_kit.gpu.prep", "peel"), ("mce_kit.order", "relabel_arrays"),
         ("mce_kit.order", "orient_arrays"), ("mce_kit.gpu.prep", "_done"), ("mce_kit.gpu.seeds", "per_seed"),
         ("mce_kit.gpu.rdmce", "_make_seeds"), ("mce_kit.gpu.prep", "_oriented"),
         ("mce_kit.gpu.prep", "edge_seeds"), ("mce_kit.gpu.kclique", "split_every_task"),
         ("mce_kit.gpu.kclique", "_orient"), ("mce_kit.gpu.kclique", "_plan")]


def synced(only: list[str]) -> None:
    import functools
    import importlib
    from collections import defaultdict

    import cupy

    spent = defaultdict(list)

    def timed(label, f):
        @functools.wraps(f)
        def step(*a, **k):
            cupy.cuda.Device().synchronize()
            t = time.perf_counter()
            try:
                return f(*a, **k)
            finally:
                cupy.cuda.Device().synchronize()
                spent[label].append((time.perf_counter() - t) * 1e3)
        return step

    for module, name in STEPS:
        mod = importlib.import_module(module)
        setattr(mod, name, timed(f"{module.rsplit('.', 1)[-1]}.{name}", getattr(mod, name)))
    for tag, name, call in CASES:
        if only and tag not in only:
            continue
        call(datasets.load(name))   # kernels compiled or loaded
        spent.clear()
        colds = cold_calls(call, lambda name=name: datasets.load(name), 5, cupy.cuda.Device().synchronize)[1]
        print(f"===== {tag} {name}: cold (synced) {statistics.median(colds):.2f} ms")
        for label, ms in sorted(spent.items(), key=lambda kv: -sum(kv[1])):
            print(f"   {label:28s} calls a cold call {len(ms) / 5:4.1f}  "
                  f"median {statistics.median(ms):7.3f} ms")


def main(only: list[str]) -> None:
    if "--synced" in only:
        return synced([t for t in only if t != "--synced"])
    for tag, name, call in CASES:
        if only and tag not in only:
            continue
        call(datasets.load(name))   # kernels compiled or loaded
        _, colds, G = cold_calls(call, lambda name=name: datasets.load(name), 3)
        t0 = time.perf_counter()
        call(G)
        warm = (time.perf_counter() - t0) * 1e3
        prepared.release()
        G = datasets.load(name)
        pr = cProfile.Profile()
        pr.enable()
        call(G)
        pr.disable()
        s = io.StringIO()
        st = pstats.Stats(pr, stream=s)
        st.sort_stats("cumulative").print_stats(30)
        st.sort_stats("tottime").print_stats(15)
        print(f"===== {tag} {name}: cold {statistics.median(colds):.2f} ms {[f'{c:.1f}' for c in colds]}, "
              f"warm {warm:.2f} ms")
        print("\n".join(line for line in s.getvalue().splitlines()
                        if line.strip() and "{built-in method builtins" not in line)[:9000])


if __name__ == "__main__":
    main(sys.argv[1:])
