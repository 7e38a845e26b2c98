"""A warm call with and without ``launch.set_params``' kept records, in one process on one GPU: blocks
of calls alternate the switch (``launch._KEEP_RECORDS``), so drift between processes and hosts does not
enter (python scripts/ab_records.py on a GPU host; log data/results/logs/ab_records_*.log). Per case,
medians over the blocks' calls: the call (host clock) and the launcher's gpu_ms."""
import statistics
import time

from mce_kit import api, datasets
from mce_kit.gpu import launch

CASES = [("CA-GrQc", "k=4", lambda G: api.count_k_cliques(G, 4, device="gpu")),
         ("CA-HepTh", "k=8 (pivot)", lambda G: api.count_k_cliques(G, 8, device="gpu")),
         ("email-Eu-core", "k=6", lambda G: api.count_k_cliques(G, 6, device="gpu")),
         ("CA-GrQc", "maximal cliques", lambda G: api.count_maximal_cliques(G, device="gpu")),
         ("wiki-Vote", "maximal cliques", lambda G: api.count_maximal_cliques(G, device="gpu")),
         ("dbpedia-writer", "maximal bicliques", lambda G: api.count_maximal_bicliques(G, device="gpu"))]
BLOCKS, CALLS = 6, 40

for name, what, call in CASES:
    G = datasets.load(name)
    for _ in range(5):
        call(G)
    times = {True: [], False: []}
    for b in range(BLOCKS):
        keep = b % 2 == 0
        launch._KEEP_RECORDS = keep
        call(G)   # (the first call of a block writes its record)
        for _ in range(CALLS):
            t0 = time.perf_counter()
            call(G)
            times[keep].append(time.perf_counter() - t0)
    launch._KEEP_RECORDS = True
    on, off = (statistics.median(times[k]) * 1e3 for k in (True, False))
    print(f"{name:15s} {what:18s} kept records {on:.3f} ms  copied each call {off:.3f} ms  "
          f"saved {1e3 * (off - on):.1f} us", flush=True)
