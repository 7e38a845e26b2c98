"""Running a serial Numba kernel on several Python threads: the CPU engine's roots and the compiled
host preparation's rows (``mce_kit.compiled``). A leaf module (nothing of mce_kit imported), so both
layers can use one pool.

The kernels are ``@njit(nogil=True)``: each call releases the GIL, so T calls run on T cores. Python
threads instead of Numba's ``parallel=True``, whose compile took minutes for the engine's kernels
against seconds (measured 2026-11-25).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

_POOL: list = []  # one ThreadPoolExecutor, grown when a call needs more threads


def strided(kernel: Callable, T: int, head: tuple, first: int, last: int, *tail, own=None) -> list:
    """[kernel(*head, first + t, last, T, *tail, *own[t]) for t < T with a root], each call on its
    own thread (the kernels release the GIL; t = 0 on the caller's): thread t runs roots first + t,
    first + t + T, ... < last; ``own[t]``: arrays only thread t writes (e.g. its histogram)."""
    own = own or [()] * T
    if T == 1:
        return [kernel(*head, first, last, 1, *tail, *own[0])]
    if not _POOL or _POOL[0]._max_workers < T - 1:
        _POOL[:] = [ThreadPoolExecutor(max_workers=T - 1, thread_name_prefix="mce_kit-threads")]
    futures = [_POOL[0].submit(kernel, *head, first + t, last, T, *tail, *own[t])
               for t in range(1, min(T, last - first))]
    mine = kernel(*head, first, last, T, *tail, *own[0])
    return [mine] + [f.result() for f in futures]
