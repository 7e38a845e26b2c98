"""CUDA-event timing: warm-up, then the median of repeated runs."""

from __future__ import annotations

import statistics
from collections.abc import Callable


class CudaTimer:
    """GPU time between two CUDA events (milliseconds, ``ms``), as a context manager or by ``start()``
    and ``stop()``. ``timed=False`` records no events and leaves ``ms`` None: an answer-only call
    (a module's ``count_*``) skips two event creations, two records and a wait."""

    def __init__(self, timed: bool = True):
        self.timed, self.ms = timed, None

    def start(self) -> CudaTimer:
        if self.timed:
            import cupy

            self._start, self._stop = cupy.cuda.Event(), cupy.cuda.Event()
            self._start.record()
        return self

    def stop(self) -> float | None:
        """Milliseconds since ``start()`` (None untimed), once the work queued before has run."""
        if self.timed:
            import cupy

            self._stop.record()
            self._stop.synchronize()
            self.ms = cupy.cuda.get_elapsed_time(self._start, self._stop)
        return self.ms

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False


def time_gpu(fn: Callable[[], object], repeats: int = 5, warmup: int = 1) -> dict:
    """Run ``fn`` ``warmup`` times untimed, then ``repeats`` times under CUDA events."""
    for _ in range(warmup):
        fn()
    times, results = [], []
    for _ in range(repeats):
        with CudaTimer() as t:
            results.append(fn())
        times.append(t.ms)
    return {"median_ms": statistics.median(times), "times_ms": times, "results": results}
