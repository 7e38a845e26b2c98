"""Numba's ``njit`` with its on-disk cache, guarded against processes that compile at once.

Numba keeps a function's compiled overloads on disk as an index and one data file per overload,
written one after the other and with no lock (numba issues #4807 and #10128, open in 2026-11): two
processes compiling the same function together (Dask workers, notebooks side by side) can leave an
index entry that names another signature's machine code, and from then on every process that loads
it crashes. ``njit`` here holds a file lock in the cache folder while Numba reads (shared) or writes
(exclusive) a cached overload, so a process sees an index and its data files as one. Every compiled
function of mce_kit is made with it.

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
