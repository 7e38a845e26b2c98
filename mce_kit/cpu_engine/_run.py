"""Running a Numba kernel over vertex ranges from Python: threads, progress bars, Ctrl-C, memory.

Numba code never sees KeyboardInterrupt, so every engine call walks its roots in chunks
(``chunks``), sized so that one takes about ``TARGET_S`` seconds; between chunks the bar
ticks and a pending Ctrl-C is raised by Python. Each chunk costs a thread hand-off per thread
(about 0.3 ms for 16 threads on 2 cores, measured 2026-11-26), so a call makes few of them: the
first chunk gives each thread ``FIRST_CHUNK`` roots and the next is sized from the measured
rate (``next_size``), so a call of a few milliseconds runs in two chunks. Inside a chunk
``mce_kit.threads.strided`` runs one serial kernel call per thread (roots first + t, first + t + T,
...; the kernels release the GIL). ``prepared`` keeps a graph's relabelled CSR.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from time import perf_counter

import numpy as np

from ..config import available_bytes, usable_cores

TARGET_S = 0.2  # seconds of work per chunk: short enough for Ctrl-C and the bar
FIRST_CHUNK = 64  # roots per thread in a call's first chunk
GROWTH = 16  # the most a chunk grows while chunks are short (the first roots are the cheapest)

def prepared(obj, key: str, build: Callable):
    """``build(obj)``, kept with the graph ``obj`` (``mce_kit.prepared``: one mechanism, one budget)."""
    from ..prepared import kept

    return kept(obj, ("cpu_engine", key), lambda: build(obj))


def clear_cache() -> None:
    """Drop every graph's kept preparation (a cold call next)."""
    from ..prepared import release

    release()


def n_threads(n: int | None) -> int:
    """Threads to use: ``n``, or every usable core for None."""
    return usable_cores() if n is None else max(1, int(n))


class _Ticker:
    """A bar to advance by n: a tqdm bar (``progress=True``), a tqdm-like object with ``update``,
    or the oracles' kind of progress, a wrapper of an iterable of roots (stepped through)."""

    def __init__(self, progress, total: int, desc: str):
        self.bar = self.steps = None
        if progress is True:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, desc=desc, unit="root", file=sys.stderr, leave=False)
            self.own = True
        elif hasattr(progress, "update"):
            self.bar, self.own = progress, False
        elif callable(progress):
            self.steps = iter(progress(range(total)))

    def update(self, n: int) -> None:
        if self.bar is not None:
            self.bar.update(n)
        elif self.steps is not None:
            for _ in zip(range(n), self.steps, strict=False):
                pass

    def close(self) -> None:
        if self.bar is not None and self.own:
            self.bar.close()
        elif self.steps is not None:
            for _ in self.steps:  # let a wrapper finish (tqdm closes its bar at the end)
                pass


def next_size(size: int, dt: float, threads: int = 1) -> int:
    """Roots for the next chunk after ``size`` roots took ``dt`` seconds: as many as take
    ``TARGET_S`` at that rate, at least one per thread. It grows at most ``GROWTH``-fold while
    chunks are short (a call of a few milliseconds ends in two chunks), at most 2-fold once a
    chunk takes TARGET_S / 4 / GROWTH or more (a root's cost drifts along the order: a long reach from
    a fast chunk may land on slow roots)."""
    want = size * TARGET_S / dt if dt > 0 else float("inf")
    grow = GROWTH if GROWTH * dt < TARGET_S / 4 else 2
    return int(max(threads, min(want, grow * size)))


def chunks(total: int, progress=None, desc: str = "roots", threads: int = 1) -> Iterator[tuple[int, int]]:
    """Yield ranges [lo, hi) covering 0..total in order, each sized to take about TARGET_S on
    ``threads`` threads (the caller runs one kernel call per thread and range); the bar advances
    after each, Ctrl-C lands between them."""
    ticker = _Ticker(progress, total, desc) if progress else None
    lo, size = 0, FIRST_CHUNK * max(1, threads)
    try:
        while lo < total:
            hi = min(total, lo + size)
            t = perf_counter()
            yield lo, hi
            dt = perf_counter() - t
            if ticker is not None:
                ticker.update(hi - lo)
            lo = hi
            size = next_size(size, dt, threads)
    finally:
        if ticker is not None:
            ticker.close()


def refuse_beyond_memory(need: int, what: str) -> None:
    """MemoryError naming the bytes ``what`` needs when they exceed 90% of the available memory."""
    have = available_bytes()
    if need > 0.9 * have:
        raise MemoryError(f"{what} needs {need / 2**30:.2f} GiB, {have / 2**30:.2f} GiB available: refused")


def grown(a: np.ndarray, what: str) -> np.ndarray:
    """A zeroed array twice as long as ``a`` (same dtype), refused when memory cannot hold it."""
    refuse_beyond_memory(2 * a.nbytes, what)
    return np.zeros(2 * len(a), dtype=a.dtype)
