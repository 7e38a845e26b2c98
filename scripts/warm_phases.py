"""Where a warm public k-clique call's time goes on a GPU: host stamps at the call's entry, its start
event, the watch's event (recorded after the launch), its stop event and its return (medians of 300
calls), beside the kernel time frontdoor reports (a fresh launcher's events) and the events of the
state the call keeps. Only the stretches before the start event and after the stop event are outside
the kernel time. From the checkout's root on a GPU host:

    python3 scripts/warm_phases.py
"""
import statistics
import time

import cupy

from mce_kit import api, datasets
from mce_kit.gpu import cliquecount, kclique
from mce_kit.prepared import kept

RealEvent, real_elapsed = cupy.cuda.Event, cupy.cuda.get_elapsed_time
marks = []


class StampedEvent:
    """A CUDA event that notes the host time of each record."""

    def __init__(self, *args, **kwargs):
        self.event = RealEvent(*args, **kwargs)

    def record(self, stream=None):
        marks.append(time.perf_counter())
        self.event.record(stream)

    def synchronize(self):
        self.event.synchronize()

    @property
    def done(self):
        return self.event.done


cupy.cuda.Event = StampedEvent
cupy.cuda.get_elapsed_time = lambda a, b: real_elapsed(a.event, b.event)
CASES = [("CA-GrQc", 8), ("CA-HepTh", 10), ("CA-GrQc", 4), ("CA-HepTh", 6), ("email-Eu-core", 4)]
for name, k in CASES:
    G = datasets.load(name)
    how = api.k_clique_algorithm(k)
    if how == "pivot":
        def fresh(G=G, k=k):
            return cliquecount.prepare(G).run(k_max=k)

        def own(G=G, k=k):
            return kept(G, ("cliquecount",), lambda: cliquecount.Prepared(G)).run(k_max=k)
    else:
        def fresh(G=G, k=k):
            return kclique.prepare(G).run(k=k)

        def own(G=G, k=k):
            return kclique.prepared(G).run(k=k)
    for _ in range(30):
        api.count_k_cliques(G, k, device="gpu")
        fresh()
    rows = []
    for _ in range(300):
        marks.clear()
        t0 = time.perf_counter()
        api.count_k_cliques(G, k, device="gpu")
        t1 = time.perf_counter()
        rows.append((t1 - t0, marks[0] - t0, marks[1] - marks[0], marks[-1] - marks[1], t1 - marks[-1]))
    kernel = statistics.median(fresh().gpu_ms for _ in range(100)) * 1e3
    on_kept = statistics.median(own().gpu_ms for _ in range(100)) * 1e3
    call, before, launch, wait, after = (statistics.median(c) * 1e6 for c in zip(*rows, strict=True))
    print(f"{name} k={k} ({how}): call {call:.0f} us | entry->start {before:.0f} | start->after launch "
          f"{launch:.0f} | after launch->stop {wait:.0f} | stop->return {after:.0f} | kernel run "
          f"{kernel:.0f} us, on the kept state {on_kept:.0f} us", flush=True)
