"""Warm ``max_cliques`` (every maximum clique) by search strategy on one GPU: Geil's breadth-first levels
(one host sync a level) against sub-problems handed to the depth-first kernel from level d. One line a
graph and setting: the public call's median ms (of 7, after 2), the search's levels and method, the
answer checked against the reference table. From the checkout on a GPU host:
    python3 scripts/maxclique_strategy.py OUT.csv [GRAPH ...]"""
import statistics
import sys
import time

import pandas as pd

from mce_kit import api, datasets, references
from mce_kit.gpu import geil
from mce_kit.measure import provenance

# "auto": the public call's own route; "search": Geil's search (any parameter given keeps the call from
# listing the ties with KCMiner, geil.max_clique_rows; rows before 2026-11-28 ran "auto" so)
SETTINGS = ([("auto", {}), ("search", {"time_limit_s": 5.0})]
            + [(f"dfs@{d}", {"strategy": "dfs", "dfs_depth": d, "time_limit_s": 5.0}) for d in (2, 3, 4, 6)])
graphs = sys.argv[2:] or [n for n in datasets.names() if references.expected("maxclique", n) is not None]
rows = []
for name in graphs:
    G = datasets.load(name)
    want = references.expected("maxclique", name)
    for label, params in SETTINGS:
        try:
            omega, cliques = api.max_cliques(G, device="gpu", **params)
            got = (omega, len(cliques))
            times = []
            for i in range(9):
                t0 = time.perf_counter()
                api.max_cliques(G, device="gpu", **params)
                if i >= 2:
                    times.append((time.perf_counter() - t0) * 1e3)
            b, prep, ids, start = geil._prepared(G, "gpu")
            info = {}
            H = geil._bounds(G, "gpu")[1]
            if not params and b.exact and len(ids) != b.lower and geil._ties_by_kcminer(H, b.lower):
                info = {"method": "kcminer"}   # (the call listed the omega-cliques: no search ran)
            elif prep is not None:
                res = prep.run(listing=True, lower_clique=start, upper=b.upper, **params)
                info = {"method": res.method, "levels": len(res.levels), "entries": int(sum(res.levels)),
                        "gpu_ms": res.gpu_ms, "dfs_nodes": res.counters.get("dfs_nodes")}
            row = {"graph": name, "setting": label, "ms": statistics.median(times), "min_ms": min(times),
                   "omega": got[0], "n_maximum": got[1], "ok": want is None or got == tuple(want), **info}
        except Exception as e:   # (a setting that times out or fails is a row, not a stop)
            row = {"graph": name, "setting": label, "error": f"{type(e).__name__}: {e}"[:200]}
        rows.append(row)
        print(row, flush=True)
pd.DataFrame(rows).assign(**provenance()).to_csv(sys.argv[1], index=False)
