"""Running a serial Numba kernel on several threads: the CPU engine's roots and the compiled host
preparation's rows (``mce_kit.compiled``). A leaf module (nothing of mce_kit imported), so both
layers can use it.

``strided``: T calls of an ``@njit(nogil=True)`` kernel on Python threads; each call releases the
GIL, so T calls run on T cores. Each thread must take the GIL to start its call, one after
another: a hand-off of 0.38 ms for 16 threads on the GPU host (one root each, 2026-11-27).

``on_threads``: the same T strides through a kernel's ``@njit(parallel=True)`` twin, a ``prange``
over the strides that calls the serial kernel (``parallel=True`` on the kernels themselves took
minutes to compile, 2026-11-25; a twin takes about 10 s once, then loads from the cache). Numba's
threads start without the GIL: a hand-off of 0.07 ms for 16, and ``count_k_cliques(CA-GrQc, 8)``
on 16 cores took 0.50 ms against 1.63 ms through ``strided`` (2026-11-27). Used only where Numba's
threading layer is safe to call from several Python threads at once (TBB or OpenMP, not its
workqueue), otherwise ``strided``; and not in a process forked from one that ran them (GNU OpenMP
ends such a child: "fork() called from a process already using GNU OpenMP").
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

_POOL: list = []  # [ThreadPoolExecutor, its process id]: grown when a call needs more threads, new in a fork
_THREADSAFE: list = []  # [bool] once known: whether Numba's threading layer is thread-safe
_NUMBA_PID: list = []  # the process that first ran a parallel twin (a fork of it may not)


def strided(kernel: Callable, T: int, head: tuple, first: int, last: int, *tail, own=None) -> list:
    """[kernel(*head, first + t, last, T, *tail, *own[t]) for t < T with a root], each call on its
    own thread (the kernels release the GIL; t = 0 on the caller's): thread t runs roots first + t,
    first + t + T, ... < last; ``own[t]``: arrays only thread t writes (e.g. its histogram)."""
    own = own or [()] * T
    if T == 1:
        return [kernel(*head, first, last, 1, *tail, *own[0])]
    if not _POOL or _POOL[0]._max_workers < T - 1 or _POOL[1] != os.getpid():   # (a fork has no workers)
        _POOL[:] = [ThreadPoolExecutor(max_workers=T - 1, thread_name_prefix="mce_kit-threads"), os.getpid()]
    futures = [_POOL[0].submit(kernel, *head, first + t, last, T, *tail, *own[t])
               for t in range(1, min(T, last - first))]
    mine = kernel(*head, first, last, T, *tail, *own[0])
    return [mine] + [f.result() for f in futures]


def threadsafe_layer() -> bool:
    """Whether Numba's parallel functions run on a layer that concurrent callers may share: TBB or
    OpenMP, which its default order takes before the workqueue when either loads
    (``NUMBA_THREADING_LAYER`` naming the workqueue: False)."""
    if not _THREADSAFE:
        from numba import config

        layer = str(config.THREADING_LAYER).lower()
        ok = layer in ("default", "safe", "threadsafe", "tbb", "omp")
        if ok and layer in ("default", "threadsafe"):
            ok = any(_loads(f"numba.np.ufunc.{m}pool") for m in ("tbb", "omp"))
        elif ok:
            ok = _loads("numba.np.ufunc." + ("tbbpool" if layer in ("safe", "tbb") else "omppool"))
        _THREADSAFE.append(ok and os.environ.get("MCE_KIT_PYTHON_THREADS", "0") != "1")
    return _THREADSAFE[0]


def _loads(module: str) -> bool:
    try:
        importlib.import_module(module)
        return True
    except Exception:  # an ImportError, or a library that fails to load
        return False


def on_threads(parallel: Callable, kernel: Callable, T: int, head: tuple, first: int, last: int,
               *tail) -> list:
    """``strided(kernel, T, head, first, last, *tail)``'s results, through ``parallel`` (the kernel's
    twin: ``parallel(*head, first, last, T, *tail)`` returns the T results as one array) on Numba's
    threads where ``threadsafe_layer``; T above the cores: several strides a thread."""
    forked = bool(_NUMBA_PID) and _NUMBA_PID[0] != os.getpid()
    if T == 1 or last - first <= 1 or forked or not threadsafe_layer():
        return strided(kernel, T, head, first, last, *tail)
    from numba import config, get_num_threads, set_num_threads

    _NUMBA_PID[:] = [os.getpid()]

    before = get_num_threads()   # the setting is the calling thread's own
    set_num_threads(min(T, config.NUMBA_NUM_THREADS))
    try:
        return list(parallel(*head, first, last, T, *tail))
    finally:
        set_num_threads(before)
