"""Warm max_cliques on dense graphs: Geil breadth first (strategy="bfs"), the default rule, and depth first
from level d (strategy="dfs", dfs_depth=d); random G(n, p) and bundled DIMACS graphs, every variant's answer
compared (python scripts/geil_dfs_depth.py on a GPU host; log data/results/logs/geil_dfs_depth_*.log)."""
import statistics
import time

import networkx as nx

import mce_kit as mk
from mce_kit import datasets
from mce_kit.gpu import geil

RANDOM = [(120, 0.95, 1), (150, 0.9, 2), (150, 0.8, 3), (200, 0.9, 4), (200, 0.85, 5), (200, 0.8, 6),
          (200, 0.75, 7), (200, 0.7, 8), (300, 0.7, 9), (300, 0.6, 10), (250, 0.8, 11), (400, 0.5, 12)]
BUNDLED = ["C125.9", "gen200_p0.9_44", "san200_0.7_1", "johnson8-4-4", "brock200_4", "keller4", "hamming8-4"]
VARIANTS = [("bfs", {"strategy": "bfs"}), ("auto", {})] + [(f"dfs@{d}", {"strategy": "dfs", "dfs_depth": d})
                                                           for d in (3, 4, 5)]
LIMIT_S = 3


def timed(G, params) -> tuple[str, tuple | None]:
    """(median ms of 3 after one untimed call, or why not; the answer)."""
    try:
        ms = []
        for _ in range(4):
            t = time.perf_counter()
            omega, cliques = mk.max_cliques(G, device="gpu", time_limit_s=LIMIT_S, **params)
            ms.append((time.perf_counter() - t) * 1e3)
        return f"{statistics.median(ms[1:]):8.2f}", (omega, sorted(map(tuple, cliques)))
    except TimeoutError:
        return f">{LIMIT_S * 1000}", None
    except Exception as e:   # breadth first alone may not fit: MemoryError, OutOfMemoryError
        return f"ERR {type(e).__name__}", None


graphs = [(f"G({n},{p})", mk.load_graph(nx.gnp_random_graph(n, p, seed=seed))) for n, p, seed in RANDOM]
graphs += [(name, datasets.load(name)) for name in BUNDLED]
for name, G in graphs:
    ref, cells = None, []
    for tag, params in VARIANTS:
        text, answer = timed(G, params)
        wrong = answer is not None and ref is not None and answer != ref
        ref = ref or answer
        cells.append(f"{tag} {text}{' WRONG' if wrong else ''}")
    core = geil._prepared(G, "gpu")[1]
    print(f"{name:15s} n {G.n:4d} dens {2 * G.m / (G.n * (G.n - 1)):.2f} core-dens {core.density:.2f} omega "
          f"{ref[0] if ref else '?'} n_max {len(ref[1]) if ref else '?'} | " + " | ".join(cells), flush=True)
