"""A/B of cold and warm public calls (k = 4, 6, 8 cliques and maximal cliques on four bundled graphs).

    PYTHONPATH=<a checkout of one commit> python3 scripts/ab_calls.py TAG   # one line per case

Run two trees alternately on one GPU host (old, new, old, new), so host drift hits both: the logs
are data/results/logs/ab_*. Cold: median of 7 calls, each on a freshly loaded graph with nothing
kept (the GPU preparation bought, kernels loaded); warm: median of 30 calls; ms.
"""
import statistics
import sys
import time

from mce_kit import api, datasets, prepared

CASES = [("k4", lambda G: api.count_k_cliques(G, 4, device="gpu")),
         ("k6", lambda G: api.count_k_cliques(G, 6, device="gpu")),
         ("k8", lambda G: api.count_k_cliques(G, 8, device="gpu")),
         ("mce", lambda G: api.count_maximal_cliques(G, device="gpu"))]
GRAPHS = ["CA-GrQc", "wiki-Vote", "soc-Slashdot0902", "socfb-MIT"]


def ms_of(call, G) -> tuple[float, int]:
    t0 = time.perf_counter()
    answer = int(call(G))
    return (time.perf_counter() - t0) * 1e3, answer


def main(tag: str) -> None:
    for name in GRAPHS:
        for what, call in CASES:
            call(datasets.load(name))   # kernels loaded
            colds = []
            for _ in range(7):
                prepared.release()
                colds.append(ms_of(call, datasets.load(name)))
            G = datasets.load(name)
            warms = [ms_of(call, G) for _ in range(31)][1:]
            answers = {a for _, a in colds + warms}
            assert len(answers) == 1, answers
            print(f"{tag:4s} {what:4s} {name:18s} cold {statistics.median(t for t, _ in colds):8.3f} "
                  f"warm {statistics.median(t for t, _ in warms):7.3f} answer {answers.pop()}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
