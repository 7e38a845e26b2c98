"""Running a Numba kernel over vertex ranges from Python: threads, progress bars, Ctrl-C, memory.

Numba code never sees KeyboardInterrupt, so every engine call walks its roots in chunks
(``chunks``), sized so that one takes about ``TARGET_S`` seconds; between chunks the bar
ticks and a pending Ctrl-C is raised by Python. Inside a chunk ``strided`` runs one serial
kernel call per thread (roots first + t, first + t + T, ...; the kernels release the GIL):
Python threads instead of Numba's ``parallel=True``, whose compile took minutes for these
kernels against seconds (measured 2026-11-25). ``prepared`` keeps a graph's relabelled CSR.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..config import available_bytes, usable_cores

TARGET_S = 0.2  # seconds of work per chunk: short enough for Ctrl-C and the bar
FIRST_CHUNK = 64

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


_POOL: list = []


def strided(kernel: Callable, T: int, head: tuple, first: int, last: int, *tail, own=None) -> list:
    """[kernel(*head, first + t, last, T, *tail, *own[t]) for t in range(T)], each call on its own
    thread (the kernels release the GIL): thread t runs roots first + t, first + t + T, ... < last;
    ``own[t]``: arrays only thread t writes (e.g. its histogram)."""
    own = own or [()] * T
    if T == 1:
        return [kernel(*head, first, last, 1, *tail, *own[0])]
    if not _POOL or _POOL[0]._max_workers < T:
        _POOL[:] = [ThreadPoolExecutor(max_workers=T, thread_name_prefix="mce_kit-engine")]
    futures = [_POOL[0].submit(kernel, *head, first + t, last, T, *tail, *own[t]) for t in range(T)]
    return [f.result() for f in futures]


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


def chunks(total: int, progress=None, desc: str = "roots") -> Iterator[tuple[int, int]]:
    """Yield ranges [lo, hi) covering 0..total, each sized to take about TARGET_S (the caller
    runs one kernel call per range); the bar advances after each, Ctrl-C lands between them."""
    ticker = _Ticker(progress, total, desc) if progress else None
    lo, size = 0, FIRST_CHUNK
    try:
        while lo < total:
            hi = min(total, lo + size)
            t = time.perf_counter()
            yield lo, hi
            dt = time.perf_counter() - t
            if ticker is not None:
                ticker.update(hi - lo)
            lo = hi
            if dt < TARGET_S / 2:
                size *= 2
            elif dt > TARGET_S * 2 and size > 1:
                size //= 2
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
