"""Numba's ``njit`` with its on-disk cache, guarded against processes that compile at once.

Numba keeps a function's compiled overloads on disk as an index and one data file per overload,
written one after the other and with no lock (numba issues #4807 and #10128, open in 2026-11): two
processes compiling the same function together (Dask workers, notebooks side by side) can leave an
index entry that names another signature's machine code, and from then on every process that loads
it crashes. ``njit`` here holds a file lock in the cache folder while Numba reads (shared) or writes
(exclusive) a cached overload, so a process sees an index and its data files as one. Every compiled
function of mce_kit is made with it.

No compiled function of mce_kit calls Numba's own sorts (``np.sort``, ``np.argsort``,
``ndarray.sort``, ``sorted``...): each is a closure made per use whose machine-code symbol is its
shared qualified name, a version number counted in the compiling process, and the argument types.
Two cached functions compiled in different processes can carry different sorts under one symbol, and
a process that loads both binds the second's calls to the first's code (seen on an H200, 2026-11-28:
``maxclique_engine.search``'s argsort ran ``compiled._peel``'s in-place sort and the search crashed).
``sort_ints`` below is a module-level function: one symbol, one body. ``tests/test_jit.py`` reads
the sources for such calls and checks the compiled code: no Numba closure with two bodies.

    from .jit import njit

    @njit(nogil=True)
    def kernel(...): ...
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager

import numba

try:
    import fcntl
except ImportError:   # (Windows: no lock, Numba's own behaviour)
    fcntl = None

LOCK_NAME = "mce_kit-numba.lock"
_HELD = threading.local()   # this thread holds the lock: a nested load or save takes it no more


def njit(**options):
    """``numba.njit(cache=True, **options)`` whose cache is read and written under ``LOCK_NAME``."""
    def wrap(fn):
        return guard(numba.njit(cache=True, **options)(fn))

    return wrap


def guard(dispatcher):
    """``dispatcher`` with its cache's load and save taken under the cache folder's lock."""
    cache = getattr(dispatcher, "_cache", None)
    folder = getattr(cache, "_cache_path", None)
    if fcntl is None or folder is None or getattr(cache, "locked_by_mce_kit", False):
        return dispatcher
    path = os.path.join(folder, LOCK_NAME)
    load, save = cache.load_overload, cache.save_overload

    def load_overload(*args, **kwargs):
        with _locked(path, fcntl.LOCK_SH):
            return load(*args, **kwargs)

    def save_overload(*args, **kwargs):
        with _locked(path, fcntl.LOCK_EX):
            return save(*args, **kwargs)

    cache.load_overload, cache.save_overload = load_overload, save_overload
    cache.locked_by_mce_kit = True
    return dispatcher


@contextmanager
def _locked(path: str, how: int):
    """``flock(how)`` on ``path`` while the block runs; no lock where the file cannot be opened or
    locked (a read-only cache folder, where Numba does not write either; a file system without
    locks) or where this thread holds it."""
    if getattr(_HELD, "on", False):
        yield
        return
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:
        yield
        return
    try:
        try:
            fcntl.flock(fd, how)
            _HELD.on = True
        except OSError:
            pass
        yield
    finally:
        _HELD.on = False
        os.close(fd)   # (closing releases the lock)


@njit(nogil=True)
def sort_ints(a, n):
    """Sort ``a[:n]`` ascending in place: insertion sort for short runs, else heapsort."""
    if n <= 16:
        for i in range(1, n):
            x = a[i]
            j = i - 1
            while j >= 0 and a[j] > x:
                a[j + 1] = a[j]
                j -= 1
            a[j + 1] = x
        return
    for top in range(n // 2 - 1, -1, -1):
        _sift(a, top, n)
    for end in range(n - 1, 0, -1):
        a[0], a[end] = a[end], a[0]
        _sift(a, 0, end)


@njit(nogil=True, inline="always")
def _sift(a, i, n):
    """Move ``a[i]`` down the max-heap ``a[:n]`` to its place."""
    x = a[i]
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and a[c + 1] > a[c]:
            c += 1
        if a[c] <= x:
            break
        a[i] = a[c]
        i = c
    a[i] = x
