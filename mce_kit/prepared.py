"""What the kernels prepare for a graph, kept with the graph: one mechanism for every call.

    prep = kept(G, ("rdmce",), lambda: rdmce.prepare(G))   # built once, then returned as is
    prep.device.array("indptr", prep.indptr)               # its device copy, uploaded once
    mk.release(G)                                          # drop G's kept state now
    mk.kept_state()                                        # what is kept, for which graph, bytes

``Graph`` and ``BipartiteGraph`` are immutable, so what a launcher prepares from one (orderings,
relabelled CSR, orientations, seeds, 2-hop sizes) stays valid as long as the graph lives. It is
kept in a dict on the graph object itself, keyed by what it depends on: the degeneracy-ordered CSR
(``("ordered_csr",)``) serves RDMCE and mce-gpu, an orientation (``("oriented", order)``) serves
KCMiner and the pivot counter, so the second problem asked of a graph reuses the first one's work.

Bounded: all kept state together stays under ``budget()`` bytes (``MCE_KIT_KEEP_BYTES``, default
2 GiB; NumPy and CuPy arrays both count); past it the least recently used entries of any graph
are dropped. A pickled graph takes its kept state along (a Dask worker's copy needs no
preparation again); the copy's entries join the budget on first use. State goes with its graph
when it is collected (the kept objects refer back to the graph, so the cycle collector frees
them, not the reference count), or at once with ``release(G)``, which also returns CuPy's
cached device blocks to the driver.
"""

from __future__ import annotations

import os
import sys
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable

DEFAULT_BUDGET = 2 << 30
_ATTR = "_kept"
_lock = threading.RLock()
_lru: OrderedDict = OrderedDict()  # (id(graph), key) -> (weakref to graph, bytes), oldest first
_dead: list[int] = []   # ids of graphs collected, whose entries the next step under _lock drops
_budget = [int(os.environ.get("MCE_KIT_KEEP_BYTES", DEFAULT_BUDGET))]


def budget() -> int:
    """Bytes all kept state may take together."""
    return _budget[0]


def set_budget(nbytes: int) -> None:
    """Change the budget (evicts at once if the kept state is over it); 0 keeps nothing."""
    if int(nbytes) < 0:
        raise ValueError(f"the budget must be >= 0 bytes, got {nbytes}")
    with _lock:
        _purge()
        _budget[0] = int(nbytes)
        _evict(keep=None)


def _store(G) -> dict:
    store = G.__dict__.get(_ATTR)
    if store is None:
        store = {}
        object.__setattr__(G, _ATTR, store)  # frozen dataclasses: bypass their __setattr__
    return store


def nbytes(obj, owner=None, depth: int = 3) -> int:
    """Bytes of the NumPy / CuPy arrays reachable from ``obj`` (attributes, dicts, lists, tuples),
    leaving out the graph ``owner`` itself (the user's; a graph built from it, such as a reduced
    core, counts)."""
    if depth < 0 or obj is owner:
        return 0
    if hasattr(obj, "nbytes") and hasattr(obj, "dtype"):
        return int(obj.nbytes)
    if isinstance(obj, dict):
        return sum(nbytes(v, owner, depth - 1) for v in obj.values())
    if isinstance(obj, list | tuple):
        return sum(nbytes(v, owner, depth - 1) for v in obj)
    if hasattr(obj, "__dict__"):
        return sum(nbytes(v, owner, depth - 1) for k, v in vars(obj).items() if k != _ATTR)
    return 0


def kept(G, key: tuple[Hashable, ...], build: Callable[[], object]):
    """``G``'s kept value for ``key``, built by ``build()`` on first use (and after eviction)."""
    store = _store(G)
    with _lock:
        _purge()
        if key in store:
            if (id(G), key) in _lru:
                _lru.move_to_end((id(G), key))
            else:  # arrived with an unpickled graph (a Dask worker's copy): account for it here
                device = getattr(store[key], "device", None)
                if isinstance(device, OnDevice):   # its uploads here count too
                    device.owner = (weakref.ref(G), key)
                _lru[(id(G), key)] = (weakref.ref(G, _forget(id(G))), nbytes(store[key], G))
                _evict(keep=(id(G), key))
            return store[key]
    value = build()  # outside the lock: building can take long and may itself ask for kept state
    with _lock:
        _purge()
        if key in store:  # another thread built it meanwhile
            return store[key]
        store[key] = value
        _lru[(id(G), key)] = (weakref.ref(G, _forget(id(G))), nbytes(value, G))
        _evict(keep=(id(G), key))
    return value


def refresh(G, key: tuple) -> None:
    """Re-count the bytes of ``G``'s entry ``key`` (after it grew, e.g. lazily built seeds)."""
    with _lock:
        _purge()
        store = G.__dict__.get(_ATTR) or {}
        if key in store and (id(G), key) in _lru:
            ref, _ = _lru[(id(G), key)]
            _lru[(id(G), key)] = (ref, nbytes(store[key], G))
            _evict(keep=(id(G), key))


def _grow(G, key: tuple, delta: int) -> None:
    """Add ``delta`` bytes to ``G``'s entry ``key`` (an upload to, or a drop from, its ``OnDevice``):
    counting the whole entry again on every upload took 0.2-0.6 ms of a cold call (one H200, 2026-11-28)."""
    with _lock:
        _purge()
        if (id(G), key) in _lru:
            ref, b = _lru[(id(G), key)]
            _lru[(id(G), key)] = (ref, max(0, b + delta))
            if delta > 0:
                _evict(keep=(id(G), key))


def _forget(gid: int):
    def drop(_ref):   # only noted: the collector can run between any two bytecodes, so inside a
        _dead.append(gid)   # loop over _lru ("OrderedDict mutated during iteration", one H200 run)
    return drop


def _purge() -> None:
    """Drop the entries of the graphs collected since the last step (``_forget``); under ``_lock``.
    An entry whose graph lives (a new graph given a dead one's id) stays."""
    while _dead:
        gid = _dead.pop()
        for k in [k for k, (ref, _) in _lru.items() if k[0] == gid and ref() is None]:
            del _lru[k]


def _evict(keep) -> None:
    total = sum(b for _, b in _lru.values())
    for k in list(_lru):
        if total <= _budget[0]:
            break
        if k == keep or k not in _lru:  # gone already: dropping a value freed a graph kept in it
            continue
        ref, b = _lru.pop(k)
        G = ref()
        if G is not None:
            G.__dict__.get(_ATTR, {}).pop(k[1], None)
        total -= b


def release(G=None) -> int:
    """Drop what is kept for ``G`` (every graph when None); returns the bytes dropped. CuPy's
    cached blocks go back to the driver."""
    dropped = 0
    with _lock:
        _purge()
        for k in [k for k in _lru if G is None or k[0] == id(G)]:
            if k not in _lru:  # gone already: dropping a value freed a graph kept in it (a swapped copy)
                continue
            ref, b = _lru.pop(k)
            g = ref()
            if g is not None:
                g.__dict__.get(_ATTR, {}).pop(k[1], None)
            dropped += b
        if G is not None:
            G.__dict__.get(_ATTR, {}).clear()
    if "cupy" in sys.modules:
        from .gpu import has_gpu

        if has_gpu():
            sys.modules["cupy"].get_default_memory_pool().free_all_blocks()
    return dropped


def kept_state(G=None) -> list[dict]:
    """One row per kept entry (of ``G``, or of every graph): graph, key, bytes; oldest first."""
    with _lock:
        _purge()
        rows = []
        for (gid, key), (ref, b) in _lru.items():
            g = ref()
            if g is not None and (G is None or g is G):
                rows.append({"graph": getattr(g, "name", "") or f"graph@{gid:x}", "key": key, "bytes": b})
        return rows


def kept_bytes() -> int:
    with _lock:
        _purge()
        return sum(b for _, b in _lru.values())


class OnDevice(dict):
    """Device copies of a prepared value's host arrays, by (name, GPU): each uploaded once, then used
    by every later launch there. ``OnDevice(G, key)`` belongs to ``G``'s kept entry ``key``, which
    is counted again in the budget after each upload. Not pickled: a copy elsewhere uploads its own."""

    def __init__(self, G=None, key: tuple | None = None):
        super().__init__()
        self.owner = None if G is None else (weakref.ref(G), key)

    def __reduce__(self):
        return (OnDevice, ())

    def array(self, name, host):
        """``host`` on the current GPU, uploaded on first use (``host`` may be a function giving the
        array, called then)."""
        import cupy

        at = (name, cupy.cuda.Device().id)
        if at not in self:
            self.keep(name, cupy.asarray(host() if callable(host) else host))
        return self[at]

    def find(self, name):
        """The device array ``name`` on any GPU holding it (the current one first), or None."""
        import cupy

        here = self.get((name, cupy.cuda.Device().id))
        return here if here is not None else next((a for (n, _), a in self.items() if n == name), None)

    def keep(self, name, device_array) -> None:
        """Keep ``device_array`` (on the current GPU, equal to the host array ``name``)."""
        import cupy

        at = (name, cupy.cuda.Device().id)
        old = self.get(at)
        self[at] = device_array
        self._counted(nbytes(device_array) - nbytes(old))

    def __delitem__(self, at) -> None:
        old = self[at]
        super().__delitem__(at)
        self._counted(-nbytes(old))

    def _counted(self, delta: int) -> None:
        G = self.owner[0]() if self.owner else None
        if G is not None and delta:
            _grow(G, self.owner[1], delta)


# ---- what several problems share ----


def ordered_csr(G, device: str = "auto"):
    """(order, core numbers, indptr, indices, isolated): ``degeneracy_csr`` with the core numbers.
    Long graphs are peeled and relabelled on the GPU when one is there (``prep.use_gpu``; the same
    arrays as the host's). With ``device="auto"`` it is kept with ``G`` (``mce_kit.prepared``):
    RDMCE, mce-gpu and the CPU engine share it; "cpu" or "gpu" computes it there afresh."""
    if device != "auto":
        return _ordered_csr(G, device)
    keep = lambda name, a: ordered_on_device(G).keep(name, a)  # noqa: E731 (the GPU's, as it builds them)
    return kept(G, ("ordered_csr",), lambda: _ordered_csr(G, device, keep))


def ordered_on_device(G) -> OnDevice:
    """Device copies of ``ordered_csr(G)``'s arrays ("indptr", "indices") and of what launchers
    derive from them on the GPU (RDMCE's seeds): kept as the GPU preparation builds them, so a
    launch neither downloads nor uploads them again."""
    return kept(G, ("ordered_csr", "device"), lambda: OnDevice(G, ("ordered_csr", "device")))


def _ordered_csr(G, device: str, keep=None):
    import numpy as np

    from .gpu import prep
    from .graph import check_csr32
    from .order import peel_host, relabel_host

    check_csr32(len(G.indices), "the degeneracy-ordered CSR")
    if prep.use_gpu_for_prep(len(G.indices), device, order=True):
        order, core, indptr, indices = prep.degeneracy_csr(G.indptr, G.indices, keep)
    else:
        order, core = peel_host(G.indptr, G.indices)
        indptr, indices = relabel_host(G.indptr, G.indices, order)
    indptr = np.ascontiguousarray(indptr, dtype=np.int32)
    indices = np.ascontiguousarray(indices, dtype=np.int32)
    isolated = np.flatnonzero(np.diff(indptr) == 0).astype(np.int32)
    return np.asarray(order), core, indptr, indices, isolated
