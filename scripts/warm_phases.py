"""Where a warm public k-clique call's time goes on a GPU, layer by layer (medians of 300 calls): the
public call (``api.count_k_cliques``), the module's answer-only count (no events), the kept launcher's
untimed run, and a fresh launcher's timed run with its kernel time (``gpu_ms``, what frontdoor
reports as the kernel). The differences are the public layer, the kept-state lookup, and the
launcher's own host work around its launches. From the checkout's root on a GPU host:

    python3 scripts/warm_phases.py
"""
import statistics
import time

from mce_kit import api, datasets
from mce_kit.gpu import cliquecount, kclique
from mce_kit.prepared import kept

CASES = [("CA-GrQc", 8), ("CA-GrQc", 10), ("CA-HepTh", 10), ("CA-GrQc", 4), ("CA-HepTh", 6),
         ("email-Eu-core", 4)]


def median_ms(call, n: int = 300) -> tuple[float, float]:
    """(median wall ms, median gpu_ms or 0) of ``n`` calls after 30 unmeasured ones."""
    for _ in range(30):
        call()
    walls, kernels = [], []
    for _ in range(n):
        t = time.perf_counter()
        result = call()
        walls.append(time.perf_counter() - t)
        kernels.append(getattr(result, "gpu_ms", None) or 0.0)
    return statistics.median(walls) * 1e3, statistics.median(kernels)


for name, k in CASES:
    G = datasets.load(name)
    how = api.k_clique_algorithm(k)
    if how == "pivot":
        own = kept(G, ("cliquecount",), lambda G=G: cliquecount.Prepared(G))
        module = lambda G=G, k=k: cliquecount.clique_counts(G, k)[k]  # noqa: E731
        untimed = lambda own=own, k=k: own.run(k_max=k, timed=False)  # noqa: E731
        fresh = lambda G=G, k=k: cliquecount.prepare(G).run(k_max=k)  # noqa: E731
    else:
        own = kclique.prepared(G)
        module = lambda G=G, k=k: kclique.count_k_cliques(G, k)  # noqa: E731
        untimed = lambda own=own, k=k: own.run(k=k, timed=False)  # noqa: E731
        fresh = lambda G=G, k=k: kclique.prepare(G).run(k=k)  # noqa: E731
    rows = {"public": median_ms(lambda G=G, k=k: api.count_k_cliques(G, k, device="gpu")),
            "module": median_ms(module), "kept untimed": median_ms(untimed), "fresh": median_ms(fresh)}
    kernel = rows["fresh"][1]
    print(f"{name} k={k} ({how}): " + " | ".join(f"{what} {wall:.3f} ms" for what, (wall, _) in rows.items())
          + f" | kernel {kernel:.3f} ms, public/kernel {rows['public'][0] / kernel:.2f}", flush=True)
