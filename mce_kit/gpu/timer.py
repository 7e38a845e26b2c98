"""CUDA-event timing: warm-up, then the median of repeated runs."""

from __future__ import annotations

import statistics
from collections.abc import Callable


class CudaTimer:
    """Context manager measuring GPU time between two CUDA events (milliseconds)."""

    def __enter__(self):
        import cupy

        self._start, self._stop = cupy.cuda.Event(), cupy.cuda.Event()
        self._start.record()
        return self

    def __exit__(self, *exc):
        import cupy

        self._stop.record()
        self._stop.synchronize()
        self.ms = cupy.cuda.get_elapsed_time(self._start, self._stop)
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
