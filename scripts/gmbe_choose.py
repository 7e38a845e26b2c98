"""Device-run helper (not part of the library): time GMBE_XFIRST 0/1 x levels on the bundled graphs,
write probe.csv, print "XFIRST LEVEL" of the fastest (geometric mean of the medians) on the last line."""
import os
import sys
import time

import numpy as np
import pandas as pd

from mce_kit import datasets
from mce_kit.gpu import gmbe
from mce_kit.measure import measure, provenance
from mce_kit.references import expected

out = sys.argv[1]
rows, prov = [], provenance()
preps = {g: gmbe.prepare(datasets.load(g)) for g in ["MovieLens", "marvel", "dbpedia-writer"]}
for xf in (0, 1):
    gmbe._DEFINES.clear()
    gmbe._DEFINES["GMBE_XFIRST"] = xf
    for level in ("gmbe+", "block"):
        for name, prep in preps.items():
            t0 = time.perf_counter()
            r = measure(prep, "mbe", repeats=3, expect=expected("mbe", name), level=level)
            res = prep.run(level=level)
            t = res.totals()
            rows.append({"graph": name, "xfirst": xf, **r, "setup_sum": t["setup"], "cycles_sum": t["cycles"],
                         "cycles_max": int(res.stats[:, 7].max()), **prov})
            print(f"x{xf} {level:6s} {name:15s} {r['median_ms']:8.2f} ms nodes {r['nodes']:8d} failed "
                  f"{r['failed']:8d} sub {r['subtasks']:7d} max/mean {r['max_over_mean_cycles']:.1f} "
                  f"busiest {t['cycles'] and res.stats[:, 7].max() / 1.755e6:.1f} ms "
                  f"({time.perf_counter() - t0:.1f}s)", file=sys.stderr, flush=True)
            pd.DataFrame(rows).to_csv(os.path.join(out, "probe.csv"), index=False)
df = pd.DataFrame(rows)
gm = df.groupby(["xfirst", "level"])["median_ms"].apply(lambda x: float(np.exp(np.log(x).mean())))
print(gm.round(2).to_string(), file=sys.stderr)
xf, level = gm.idxmin()
print(xf, level)
