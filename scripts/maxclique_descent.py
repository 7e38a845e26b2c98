"""Every maximum clique by listing k-cliques, k from the upper bound down (KCMiner on the reduced core;
the first k with any clique is omega and its cliques are the answer), against Geil's search (the public
call today), on one GPU; and the pivot counter's counts up to the upper bound (omega = the last k
counted, in one launch). One line a graph: the bounds, the reduced core's size and density, warm medians
(of 7, after 2) and the first call of each route on a fresh copy of the graph, answers checked against
each other and the reference table. From the checkout on a GPU host:
    python3 scripts/maxclique_descent.py OUT.csv [GRAPH ...]"""
import statistics
import sys
import time

import numpy as np
import pandas as pd

from mce_kit import datasets, references
from mce_kit.gpu import cliquecount, geil, kclique
from mce_kit.measure import provenance


def timed(fn, reps=9, skip=2):
    out, times = None, []
    for i in range(reps):
        t0 = time.perf_counter()
        out = fn()
        if i >= skip:
            times.append((time.perf_counter() - t0) * 1e3)
    return out, statistics.median(times)


def descent(G):
    """(omega, rows of G's ids, launches) by KCMiner listing from the upper bound down."""
    b, H, ids, _ = geil._bounds(G, "gpu")
    for k in range(min(b.upper, kclique.KMAX), max(b.lower, 3) - 1, -1):
        rows = kclique.prepared(H).run(k=k, listing=True).cliques
        if len(rows):
            rows = np.sort(ids[rows], axis=1)
            return k, rows[np.lexsort(rows.T[::-1])], min(b.upper, kclique.KMAX) - k + 1
    return None, None, None


def pivot(G):
    b, H, _, _ = geil._bounds(G, "gpu")
    counts = cliquecount.clique_counts(H, b.upper)
    omega = max(k for k, c in counts.items() if c)
    return omega, counts[omega]


def measure(name: str) -> dict:
    row = {"graph": name}
    want = references.expected("maxclique", name)
    G = datasets.load(name)
    t0 = time.perf_counter()
    omega_g, rows_g = geil.max_clique_rows(G)
    row["geil_first_ms"] = (time.perf_counter() - t0) * 1e3
    b, H, ids, _ = geil._bounds(G, "gpu")
    row.update(lower=b.lower, upper=b.upper, core_n=H.n, core_m=H.m,
               core_density=2 * H.m / max(1, H.n * (H.n - 1)), omega=omega_g, n_maximum=len(rows_g),
               ok=want is None or (omega_g, len(rows_g)) == tuple(want))
    _, row["geil_ms"] = timed(lambda: geil.max_clique_rows(G))
    if b.upper > kclique.KMAX or (b.exact and H.n == b.lower):
        return row
    G2 = datasets.load(name)   # a fresh copy: nothing kept
    t0 = time.perf_counter()
    descent(G2)
    row["descent_first_ms"] = (time.perf_counter() - t0) * 1e3
    (omega_d, rows_d, launches), row["descent_ms"] = timed(lambda: descent(G2))
    row.update(descent_launches=launches, descent_same=omega_d == omega_g and np.array_equal(rows_d, rows_g))
    G3 = datasets.load(name)
    t0 = time.perf_counter()
    pivot(G3)
    row["pivot_first_ms"] = (time.perf_counter() - t0) * 1e3
    got, row["pivot_ms"] = timed(lambda: pivot(G3))
    row["pivot_same"] = got == (omega_g, len(rows_g))
    return row


rows = []
for name in sys.argv[2:] or [n for n in datasets.names() if references.expected("maxclique", n) is not None]:
    try:
        row = measure(name)
    except Exception as e:   # (a failing route is a row, not a stop)
        row = {"graph": name, "error": f"{type(e).__name__}: {e}"[:300]}
    rows.append(row)
    print({k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()}, flush=True)
pd.DataFrame(rows).assign(**provenance()).to_csv(sys.argv[1], index=False)
