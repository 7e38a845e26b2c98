"""KCMiner on the GPU: k-clique counting and listing, launcher for ``cuda/kclique.cu``.

    prep = prepare(G)                          # orientation, oriented CSR, edge tasks (CPU, untimed)
    res = prep.run(k=7, scheduling=True)       # graph to the GPU, kernel, 128-bit count back (timed)
    res.answer, res.gpu_ms, res.row()
    prep.run(k=7, tasks=idx)                   # only those edge tasks (indices into orient(order).u)

The paper orients by degree (ties by id); ``order="degeneracy"`` is the
other option. Every switch of the paper's ablation (lane scheduling, dynamic
bitmap level, size specialisation) and the density threshold are run-time
parameters: one compiled module serves the whole sweep.

Size specialisation (``size=True``) covers both ends: one-word bitmaps (<= 32
candidates) in shared memory, and the tasks with more than ``block_min``
(default 1024) candidates - judged by the bound min(out-degree(u), out-degree(v)),
known before the launch - run one per block of four warps in a launch of their
own (``kclique_block_kernel``); ``block_min=-1`` keeps every task on one warp.
``rows`` picks how the bitmap rows are built: ``"flat"`` (32 rows' lists walked
as one) or ``"by_row"`` (one row after the other). ``split`` (k >= 5): the edges
estimated to outlast the rest of the launch run as several pieces, each taking
every n-th first-level vertex (``split_tasks``; False: never, an int n: every edge
with 16+ candidates in n pieces); ``split_share`` and ``max_pieces`` size them
(``launch.split_heavy``; ``split_share=None``: ``split_share_for`` the launch's estimated work).
``split_of``: what a subset's (``tasks=``) pieces are sized against: ``"tasks"`` (default)
the subset alone, so a heavy edge is cut finer in a chunk of less work; ``"all"`` the whole
task list, so the chunks of several GPUs run exactly one GPU's pieces (they took longer:
``experiments.kcminer --only split_of``).

Timed (``gpu_ms``): one host-to-device copy of the oriented CSR and the task
list, the launch(es), one copy of the counters back and their 128-bit sum.
Orienting, sorting the tasks by size and planning are host work done once per
orientation (``order_s``, ``prep_s``), not per run.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

import numpy as np

from ..accel import array_module
from ..graph import Graph, check_csr32
from ..order import oriented_csr
from ..prepared import OnDevice, kept
from . import require_gpu
from .launch import (
    SPLIT_MIN_SIZE,
    SPLIT_SHARE,
    check_warps_per_sm,
    expand_cut,
    free_bytes,
    in_shared_queue,
    params_dtype,
    pick_tasks,
    plan_key,
    plan_passes,
    set_params,
    sm_count,
    split_heavy,
    with_kept_plan,
)
from .loader import build_name, load_module
from .timer import CudaTimer
from .watch import Watch, released

FLAG_SCHED, FLAG_DYNAMIC, FLAG_SIZE, FLAG_LIST, FLAG_STATS, FLAG_BYROW, FLAG_BLOCK = 1, 2, 4, 8, 16, 32, 64
ERR_CAPACITY = 1
WARPS_PER_BLOCK = 4
KMAX = 32
NBINS = 20
MAX_PIECES = 64  # most pieces one edge task is split into (launch.split_heavy)
LIST_CAP = 1 << 20  # first guess of the listing buffer (ints); a pass that needs more runs again
ORDERS = ("degree", "degeneracy")
_DEFINES: dict = {}  # compile-time settings (KC_ACTIVE_LANES=1 for the instrumented build)
DEFAULTS = dict(k=4, order="degree", scheduling=True, dynamic=True, size=True, lam=None,
                warps_per_sm=32, stats=False, rows="flat", block_min=1024, split=True,
                split_share=None, max_pieces=MAX_PIECES, split_of="tasks")
SPLIT_OF = ("all", "tasks")  # what a subset's pieces are sized against (module docstring)
# Long launches take finer pieces: on one H200, ego-Facebook's k = 8 (about 1 s) took 8% less time at
# 32 pieces per worker's share than at 4, and its halves (2 GPUs) 12% less; every launch under 0.1 s
# (the other graphs, k = 7) lost up to 41% or gained at most 2% (kcminer_split_sizing.csv). Their
# estimated work per worker (task_costs of listing_cost) is at most 1.2e10 and ego-Facebook's k = 8 3.7e11.
FINE_SPLIT_SHARE = 32
FINE_SPLIT_WORK = 1e11


def split_share_for(work_per_worker: float) -> int:
    """Pieces per worker's share (``split_share=None``) for a launch of this estimated work."""
    return FINE_SPLIT_SHARE if work_per_worker > FINE_SPLIT_WORK else SPLIT_SHARE


ROWS = ("flat", "by_row")  # how the bitmap rows are built (build_rows in cuda/subgraph.cuh)

PARAMS = params_dtype(
    pointers=("indptr", "indices", "tasks", "split", "stop", "work", "ctrl", "next", "acc", "total",
              "worker_tasks", "worker_cycles", "bins", "active", "list", "list_pos"),
    i8=("work_cap", "list_cap"),
    i4=("n_tasks", "k", "flags", "lam_milli", "n_workers"))


def default_lam(k: int) -> float:
    """lambda(k): build the bitmap one level deeper when gamma <= lambda (paper Fig 9: level 3 pays
    for K = 6 only below gamma = 25%, and always for K = 7; K <= 5 stays at level 2)."""
    return -1.0 if k <= 5 else 0.25 if k == 6 else 1.0


def work_words(s, k, parts=1):
    """Workspace words of one task with <= s common neighbours on ``parts`` warps (matches kclique.cu):
    the list C and the rows, then per warp a sub-bitmap, an index list and 32 lane stacks."""
    s = np.asarray(s, dtype=np.int64)
    W = (s + 31) // 32
    r4 = (s + 3) // 4 * 4
    return r4 + s * W + parts * (s * W + r4 + 32 * max(1, k - 4) * W)


def orientation(G: Graph, order: str) -> np.ndarray:
    """The vertex order that orients the edges: by (degree, id) or degeneracy."""
    from ..order import degeneracy_order, degree_order

    check_order(order)
    return np.asarray(degree_order(G) if order == "degree" else degeneracy_order(G))


def check_order(order: str) -> None:
    if order not in ORDERS:
        raise ValueError(f"order must be 'degree' or 'degeneracy', got {order!r}")


SUBSETS_KEPT = 8  # launch entries of task subsets (a multi-GPU run's chunks) kept per orientation,
                  # with the pivot counter's measured order of them (cliquecount.by_measured_nodes)


class SubsetKey(bytes):
    """A digest of a task subset, in a ``remember`` key: its entries are kept while recent."""


def subset_key(tasks: np.ndarray | None):
    """None for every task; else a ``SubsetKey`` of the (sorted) subset, so a later run over the
    same subset (the same chunk on the same GPU) reuses its launch entries and device arrays."""
    if tasks is None:
        return None
    import hashlib

    data = np.ascontiguousarray(tasks, dtype=np.int64).tobytes()
    return SubsetKey(hashlib.blake2b(data, digest_size=16).digest())


@dataclass(eq=False)
class Oriented:
    """G renumbered by an order: the full CSR, the later-neighbour CSR, the oriented edges.

    The edges are sorted by ``bound``, largest first (ties by (u, v)): the kernels take the big
    tasks first, and the tasks that can hold a k-clique (bound >= k - 2) are a prefix. ``out_blob``
    and ``all_blob`` are what one host-to-device copy sends: [out_ptr | out_idx | u0 v0 u1 v1 ...]
    and [indptr | indices | u0 v0 ...] (int32; a prefix of the tasks is a prefix of the blob).

    The CSR arrays and the edges (``indptr``, ``indices``, ``out_ptr``, ``out_idx``, ``u``, ``v``) are
    views of the blobs. Blobs built on the GPU stay there (``device``) until the host asks for them
    (``blob``): a GPU run reads only ``order`` and ``bound`` on the host, and copying the blobs back
    took 3 ms of a cold k-clique call on soc-Slashdot0902 (H200, 2026-11-27)."""

    order: np.ndarray
    bound: np.ndarray           # min(out-degree(u), out-degree(v)) >= |common later neighbours|
    seconds: float
    blobs: dict = field(default_factory=dict)  # host copies: "out_blob", "all_blob"
    memo: dict = field(default_factory=dict)  # per-call host arrays that depend only on (k, ...)
    device: OnDevice = field(default_factory=OnDevice)  # the blobs on the GPU, each uploaded once

    def blob(self, which: str) -> np.ndarray:
        """The host's ``which`` blob, copied from a GPU holding it on first use."""
        if which not in self.blobs:
            on_gpu = self.device.find(which)
            if on_gpu is None:
                raise RuntimeError(f"{which} is neither on the host nor on a GPU (internal error)")
            self.blobs[which] = on_gpu.get()
        return self.blobs[which]

    def __getstate__(self) -> dict:   # a pickled copy (a Dask worker's) has no device arrays: send the host's
        for which in ("out_blob", "all_blob"):
            self.blob(which)
        # nor the kept launch plans: they name this process's compiled kernels
        memo = {k: v for k, v in self.memo.items() if not isinstance(v, LaunchPlan)}
        return {**self.__dict__, "memo": memo}

    out_blob = property(lambda self: self.blob("out_blob"))
    all_blob = property(lambda self: self.blob("all_blob"))
    n1 = property(lambda self: len(self.order) + 1)
    indptr = property(lambda self: self.all_blob[: self.n1], doc="all neighbours (sorted)")
    indices = property(lambda self: self.all_blob[self.n1: self.n1 + 2 * len(self.bound)])
    out_ptr = property(lambda self: self.out_blob[: self.n1], doc="later neighbours only (sorted)")
    out_idx = property(lambda self: self.out_blob[self.n1: self.n1 + len(self.bound)])
    u = property(lambda self: self._edge_end(0), doc="oriented edges u < v, by bound descending")
    v = property(lambda self: self._edge_end(1))

    def _edge_end(self, end: int) -> np.ndarray:
        name = "uv"[end]
        if name not in self.blobs:   # a contiguous copy, as the host's kernels take it
            self.blobs[name] = self.out_blob[self.n1 + len(self.bound) + end::2].copy()
        return self.blobs[name]

    def remember(self, key, compute):
        """``compute()`` once per ``key``: a warm call skips the host work its kernel time excludes.
        A key holding a ``subset_key`` is one of the latest SUBSETS_KEPT such keys: older ones are
        dropped with their device arrays (``pass_tasks``'s), so a run over many subsets stays bounded."""
        if key not in self.memo:
            if isinstance(key, tuple) and any(isinstance(x, SubsetKey) for x in key):
                order = self.memo.setdefault("subset keys", [])
                order.append(key)
                while len(order) > SUBSETS_KEPT:
                    old = order.pop(0)
                    self.memo.pop(old, None)
                    for at in [at for at in self.device if isinstance(at[0], tuple) and at[0][0] == old]:
                        del self.device[at]
            self.memo[key] = compute()
        return self.memo[key]

    def common(self, n: int) -> np.ndarray:
        """|N+(u) ∩ N+(v)|, the exact candidates, of the first ``n`` tasks (a split is sized by them;
        ``bound`` can be far above): ``common_on_device`` brought to the host once, then kept."""
        have = self.memo.get("common", np.empty(0, np.int64))
        if len(have) < n:
            have = self.memo["common"] = self.common_on_device(n).get().astype(np.int64)
        return have[:n]

    def common_on_device(self, n: int):
        """``common(n)`` as an int32 CuPy array: counted on the GPU once (``common_sizes``), then kept."""
        import cupy

        have = self.device.get(("common", cupy.cuda.Device().id))
        if have is None or len(have) < n:
            _, ptr, idx, pairs = upload(self, "out_blob", n)
            have = cupy.empty(max(n, 1), dtype=cupy.int32)
            fn = load_module("kclique.cu", defines=_DEFINES).get_function("common_sizes")
            fn((-(-n // 128),), (128,), (ptr, idx, pairs, np.int32(n), have))
            self.device.keep("common", have)
        return have[:n]

    def n_tasks(self, least: int) -> int:
        """How many tasks (a prefix) have bound >= least."""
        return int(np.searchsorted(self.remember("-bound", lambda: -self.bound), -least, side="right"))


def orient(G: Graph, order: str) -> Oriented:
    """``G`` oriented by ``order``, kept with ``G`` (``mce_kit.prepared``): KCMiner and the pivot
    counter share it."""
    return kept(G, ("oriented", order), lambda: _orient(G, order))


def _orient(G: Graph, order: str) -> Oriented:
    from . import prep

    t0 = time.perf_counter()
    check_order(order)
    check_csr32(len(G.indices), "the oriented CSR")
    device = OnDevice(G, ("oriented", order))
    blobs = {}
    if prep.use_gpu_for_prep(len(G.indices)):
        o, bound, on_gpu = prep.oriented_blobs(G.indptr, G.indices, order)
        for name, blob in zip(("out_blob", "all_blob"), on_gpu, strict=True):
            device.keep(name, blob)
    else:
        o = orientation(G, order)
        indptr, indices, out_ptr, out_idx, u, v, bound = oriented_csr(G, o)
        uv = np.stack([u, v], axis=1).ravel()
        blobs["out_blob"] = np.concatenate([out_ptr, out_idx, uv]).astype(np.int32, copy=False)
        blobs["all_blob"] = np.concatenate([indptr, indices, uv]).astype(np.int32, copy=False)
    return Oriented(o, bound, time.perf_counter() - t0, blobs=blobs, device=device)


def upload(ori: Oriented, which: str, n_tasks: int):
    """``ori``'s ``which`` blob ("out_blob": the later-neighbour CSR, "all_blob": the full CSR) on the
    GPU, copied there once and kept with ``ori``: (its first ``n_tasks`` task pairs with the CSR,
    device indptr, device indices, device tasks)."""
    a = ori.n1
    b = a + len(ori.bound) * (1 if which == "out_blob" else 2)
    d = ori.device.array(which, lambda: ori.blob(which))[: b + 2 * n_tasks]
    return d, d[:a], d[a:b], d[b:]


def tasks_of(d_tasks, idx: np.ndarray, ascending: bool = False):
    """The device task pairs of ``idx``: a slice of the uploaded prefix when idx is a run i, i+1, ...
    (``ascending``: idx strictly ascends, as a pass's entries with no split do, so its ends tell)."""
    import cupy

    run = is_run(idx) if ascending else len(idx) > 0 and bool(np.all(np.diff(idx) == 1))
    if run:
        return d_tasks[2 * int(idx[0]): 2 * (int(idx[-1]) + 1)]
    # gathered on the device: half the bytes of the pairs to copy, and no host gather
    return d_tasks.reshape(-1, 2)[cupy.asarray(np.asarray(idx, dtype=np.int32))].ravel()


def pass_tasks(d_tasks, ori: Oriented, part: np.ndarray, code: np.ndarray | None, idx: np.ndarray,
               keep=None, tail: int = 0):
    """(device task pairs, device split codes or 0) of one pass's entries ``part[idx]`` (``idx``
    ascends, as ``plan_passes`` gives it: all of them when it is as long as ``part``). ``keep``: the
    key ``part`` and ``code`` are remembered under; a pass over all of them keeps its split entries'
    device arrays with ``ori`` under it, so a warm launch copies nothing. ``tail``: the last entries
    are a run of whole tasks (``split_entries``): their pairs are sliced on the device, not copied."""
    import cupy

    every = len(idx) == len(part)
    if keep is not None and every and code is not None:
        head = len(part) - tail

        def pairs():
            rest = d_tasks[2 * int(part[head]): 2 * (int(part[head]) + tail)] if tail else d_tasks[:0]
            return cupy.concatenate([tasks_of(d_tasks, part[:head]), rest]) if head else rest

        def codes():
            return cupy.concatenate([cupy.asarray(code[:head]), cupy.full(tail, WHOLE, dtype=cupy.int32)])

        return ori.device.array((keep, "pairs"), pairs), ori.device.array((keep, "split"), codes)
    pairs = tasks_of(d_tasks, part if every else part[idx], ascending=code is None)
    return pairs, 0 if code is None else cupy.asarray(code if every else code[idx])


def is_run(idx: np.ndarray) -> bool:
    """Whether strictly ascending ``idx`` is a run i, i+1, ... (its ends tell)."""
    return bool(len(idx)) and int(idx[-1]) - int(idx[0]) + 1 == len(idx)


def sum128(lo: np.ndarray, hi: np.ndarray) -> int:
    """Exact sum of 128-bit numbers given as u64 (lo, hi) word arrays (fewer than 2^32 of them)."""
    lo = lo.astype(np.uint64, copy=False)
    if len(lo) and not hi.any() and int(lo.max()) <= (2**64 - 1) // len(lo):   # one u64 sum cannot wrap
        return int(lo.sum(dtype=np.uint64))
    low = int((lo & np.uint64(0xFFFFFFFF)).sum()) + (int((lo >> np.uint64(32)).sum()) << 32)
    high = int((hi.astype(np.uint64, copy=False) & np.uint64(0xFFFFFFFF)).sum())
    high += int((hi.astype(np.uint64, copy=False) >> np.uint64(32)).sum()) << 32
    return low + (high << 64)


@dataclass
class Result:
    answer: int
    gpu_ms: float
    params: dict
    prep_s: float
    order_s: float
    device_bytes: int
    passes: int
    tasks: int
    block_tasks: int
    pieces: int             # launch entries: tasks, with the split ones counted once per piece
    worker_tasks: np.ndarray | None    # None in an answer-only (untimed) run
    worker_cycles: np.ndarray | None
    bins: np.ndarray | None = None          # FLAG_STATS: [level 2/3, bin, (tasks, cycles)]
    active: tuple[int, int] | None = None   # KC_ACTIVE_LANES: (sum of active lanes, samples)
    cliques: np.ndarray | None = None

    @property
    def count(self) -> int:
        return self.answer

    def row(self) -> dict:
        r = {"tasks": self.tasks, "block_tasks": self.block_tasks, "pieces": self.pieces,
             "passes": self.passes, "device_bytes": self.device_bytes,
             "order_s": round(self.order_s, 4)}
        if self.active is not None and self.active[1]:
            r["active_lanes"] = self.active[0] / self.active[1]
        return r


@dataclass
class OrientedGraph:
    """G with its orientations (computed on first use and kept with G, ``orient``; untimed host
    work). The k-clique and the all-k counting launchers each add their ``run``."""

    G: Graph
    prep_s: float = 0.0

    def orient(self, order: str) -> Oriented:
        return orient(self.G, order)

    @classmethod
    def build(cls, G: Graph, order: str):
        """Orient ``G`` by ``order`` now (others on demand), timing it as ``prep_s``."""
        t0 = time.perf_counter()
        prep = cls(G)
        prep.orient(order)
        prep.prep_s = time.perf_counter() - t0
        return prep


class Prepared(OrientedGraph):
    def run(self, *, listing=False, max_buffer_bytes=None, tasks=None, progress=None, timed=True,
            **params) -> Result:
        """One timed launch (``timed=False``: no events, ``gpu_ms`` None). ``tasks`` (indices into
        ``orient(order).u``/``.v``, the oriented edges) runs only those edge tasks: the counts of
        disjoint task sets add up to the whole. ``progress``: a bar over the tasks (``watch.Watch``);
        Ctrl-C stops the launch cleanly."""
        return released(_run, self, listing=listing, max_buffer_bytes=max_buffer_bytes, tasks=tasks,
                        progress=progress, timed=timed, **params)


def prepare(G: Graph, order: str = "degree") -> Prepared:
    """Orient ``G`` (by ``order``; others on demand) on the host."""
    return Prepared.build(G, order)


def check_params(params: dict, defaults: dict, what: str) -> dict:
    unknown = set(params) - set(defaults)
    if unknown:
        raise TypeError(f"unknown {what} parameter(s): {', '.join(sorted(unknown))}")
    p = {**defaults, **params}
    if "warps_per_sm" in p:
        check_warps_per_sm(p["warps_per_sm"])
    if p.get("split_of", "tasks") not in SPLIT_OF:
        raise ValueError(f"split_of must be 'all' or 'tasks', got {p['split_of']!r}")
    return p


def split_sizes(ori: Oriented, tasks: np.ndarray, min_size: int) -> np.ndarray:
    """Candidates of each task (``tasks`` ascending) for sizing a split: exact where the task may be
    split (bound >= ``min_size``, a prefix of the tasks), its bound elsewhere."""
    n = ori.n_tasks(min_size)
    size = take_ascending(ori.bound, tasks).copy()
    j = int(np.searchsorted(tasks, n))   # tasks[:j] may be split: their exact sizes
    if j:
        size[:j] = take_ascending(ori.common(n), tasks[:j])
    return size


def take_ascending(a: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``a[idx]`` for strictly ascending ``idx``; a view when idx is a run i, i+1, ... (the whole list's
    tasks, the usual case: no gather over them)."""
    return a[int(idx[0]): int(idx[-1]) + 1] if is_run(idx) else a[idx]


def listing_cost(c, k: int):
    """KCMiner's estimate of a task's work from its c candidates: listing grows like c ** (k - 2)
    (the exponent capped at 6; by repeated products, a third of the time of a float power). NumPy or
    CuPy, as ``c`` is."""
    xp = array_module(c)
    x = xp.add(xp.asarray(c, dtype=xp.float64), 1.0)
    out, e = xp.ones_like(x), min(k - 2, 6)
    while e:
        if e & 1:
            out = xp.multiply(out, x)
        e >>= 1
        if e:
            x = xp.multiply(x, x)
    return out


def split_total(ori: Oriented, p: dict, tasks, key, whole_cost) -> float | None:
    """The cost a subset's pieces are sized against: the whole list's (``whole_cost()``, kept under
    ``key``) when ``split_of="all"``, else None (the subset's own)."""
    if tasks is None or p["split_of"] != "all":
        return None
    return ori.remember(key, lambda: float(whole_cost()))


def split_tasks(cost: np.ndarray, bound: np.ndarray, n_workers: int, split, tasks: np.ndarray,
                min_size: int | None = None, split_share: float = SPLIT_SHARE,
                max_pieces: int = MAX_PIECES, total: float | None = None,
                cap_by_bound: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """The launch entries of ``tasks`` (edge indices) and their split codes (None: nothing split).

    ``split``: True sizes the pieces by ``launch.split_heavy`` from ``cost`` (an estimate per edge;
    ``total``: the cost of the list ``tasks`` were taken from, default theirs);
    an int n cuts every edge into n pieces (tests). Edges with fewer than ``min_size`` candidates
    (``bound``; default SPLIT_MIN_SIZE) are never split. ``cap_by_bound``: no edge has more pieces
    than candidates (KCMiner's pieces share out the first level; the pivot counter's share out
    the children of a tree's top, which can be far more)."""
    bound = np.asarray(bound, dtype=np.int64)
    may = np.flatnonzero(bound >= (SPLIT_MIN_SIZE if min_size is None else min_size))  # only these
    most = np.minimum(max_pieces, bound[may]) if cap_by_bound else np.full(len(may), max_pieces)
    if split is True:
        cost = np.asarray(cost, dtype=np.float64)
        whole = float(cost.sum()) if total is None else total
        pieces = split_heavy(cost[may], n_workers, most, split_share, whole)
    else:
        pieces = np.clip(int(split), 1, np.maximum(1, most))
    cut = pieces > 1
    if not cut.any():
        return tasks, None
    at, code = expand_cut(len(tasks), may[cut], pieces[cut])
    return tasks[at], code


WHOLE = 1 << 16   # the split code of a task run whole: piece 0 of 1 (``launch.expand_cut``)


def split_entries(ori: Oriented, tasks: np.ndarray, min_size: int, cost_of_size, n_workers: int, split,
                  sizing, total: float | None = None, cap_by_bound: bool = True):
    """(launch entries, split codes or None, tail) of ``tasks`` (ascending): ``split_tasks`` where
    only the tasks that may be split are costed one by one. Tasks ascend, so their bounds descend:
    those with at least ``min_size`` candidates are a prefix, costed by ``cost_of_size`` of their
    exact candidates (``split_sizes``); the rest, costed by their bound, add to the total per bound
    value (a count of each, not a pass). ``sizing(total)``: (pieces per worker's share, most pieces
    of one edge) for a list of this cost; ``total``: the list's cost the pieces are sized against
    (default the tasks'). ``tail``: how many last entries are a run of tasks run whole (their device
    pairs are a slice, ``pass_tasks``), 0 when nothing is split."""
    if split is True and _on_gpu(ori) and len(tasks) and int(tasks[0]) == 0 and is_run(tasks):
        n_may = min(len(tasks), ori.n_tasks(min_size))   # the tasks that may be split, a prefix
        candidates = ori.common_on_device(n_may) if n_may else np.empty(0, np.int64)
        part, code = split_every_task(ori, len(tasks), n_may, candidates, cost_of_size, n_workers, sizing,
                                      total, cap_by_bound)
        rest = tasks[n_may:]
    else:
        n_may, cost, own = task_costs(ori, tasks, min_size, cost_of_size)
        head, rest = tasks[:n_may], tasks[n_may:]
        total = own if total is None else total
        share, most = sizing(total)
        part, code = split_tasks(cost, take_ascending(ori.bound, head) if n_may else np.empty(0, np.int64),
                                 n_workers, split, head, min_size, share, most, total=total,
                                 cap_by_bound=cap_by_bound)
    if code is None:
        return tasks, None, 0
    code = np.concatenate([code, np.full(len(rest), WHOLE, dtype=np.int32)])
    return np.concatenate([part, rest]), code, len(rest) if is_run(rest) else 0


def _on_gpu(ori: Oriented) -> bool:
    """Whether a split is planned on the GPU: the host has no exact candidates yet (``common``), so
    the device's are used where they are (a CPU test fills ``memo["common"]`` for the host path).
    Not for a queue shared by GPUs: each must launch the very same entries, and a device's float
    sum of the costs may differ from another model's in its last bits; the host's cannot."""
    if "common" in ori.memo or "cupy" not in sys.modules or in_shared_queue():
        return False
    from . import has_gpu

    return has_gpu()


def split_every_task(ori: Oriented, n: int, n_may: int, candidates, cost_of_size, n_workers: int, sizing,
                     total: float | None = None, cap_by_bound: bool = True) -> tuple:
    """``split_entries`` of every task 0..n-1 with the arithmetic on the array module of ``candidates``
    (the exact candidates of the first ``n_may`` tasks, those that may be split): (entries of those
    tasks, their split codes or None). On the GPU only the cut tasks and their pieces come back
    (soc-Slashdot0902's k = 6 plan took 8 ms on the host, most of it this arithmetic over 212,000
    tasks). ``split_tasks``' steps (``launch.split_heavy`` on either module), so NumPy gives its arrays."""
    xp = array_module(candidates)
    cost = cost_of_size(candidates)
    own = float(cost.sum()) + _bound_cost(ori, np.arange(n_may, n), cost_of_size)
    total = own if total is None else total
    split_share, max_pieces = sizing(total)
    bound = xp.asarray(ori.bound[:n_may])
    most = xp.minimum(max_pieces, bound) if cap_by_bound else xp.full(n_may, max_pieces, dtype=xp.int64)
    pieces = split_heavy(cost, n_workers, most, split_share, total)
    cut = xp.flatnonzero(xp.greater(pieces, 1))
    if not len(cut):
        return np.arange(n_may), None
    cut, count = (np.asarray(a.get() if xp is not np else a) for a in (cut, pieces[cut]))
    return expand_cut(n_may, cut, count)   # (the task of each entry, its code): tasks are 0..n_may-1


def task_costs(ori: Oriented, tasks: np.ndarray, min_size: int, cost_of_size) -> tuple:
    """(how many of ascending ``tasks`` may be split, their costs, the total cost of ``tasks``):
    ``split_entries``' estimate."""
    n_may = int(np.searchsorted(tasks, ori.n_tasks(min_size)))   # tasks below it have bound >= min_size
    cost = cost_of_size(split_sizes(ori, tasks[:n_may], min_size)) if n_may else np.empty(0)
    return n_may, cost, float(cost.sum()) + _bound_cost(ori, tasks[n_may:], cost_of_size)


def _bound_cost(ori: Oriented, tasks: np.ndarray, cost_of_size) -> float:
    """Sum of ``cost_of_size(bound)`` over ascending ``tasks``; a run's by how many hold each bound."""
    if not len(tasks):
        return 0.0
    if not is_run(tasks):
        return float(cost_of_size(ori.bound[tasks]).sum())
    lo, hi = int(tasks[0]), int(tasks[-1]) + 1
    neg = ori.remember("-bound", lambda: -ori.bound)
    values = np.arange(int(ori.bound[hi - 1]), int(ori.bound[lo]) + 1)
    count = (np.clip(np.searchsorted(neg, -values, side="right"), lo, hi)
             - np.clip(np.searchsorted(neg, -values, side="left"), lo, hi))
    return float((count * cost_of_size(values)).sum())


# the per-pass state, one zeroed u64 buffer: ctrl (next task, error flags), list_pos, active[2],
# bins[2 * NBINS * 2], the stop word (int32), then per worker: acc (lo, hi), cycles, tasks (int32)
_S_CTRL, _S_POS, _S_ACTIVE, _S_BINS = 0, 1, 2, 4
_S_TOTAL = _S_BINS + 2 * NBINS * 2   # the launch's count (lo, hi)
_S_STOP = _S_TOTAL + 2
_S_FIXED = _S_STOP + 1


def words32(state, at: int):
    """The first int32 of u64 slot ``at`` of a device state buffer (a task counter, a stop word)."""
    import cupy

    return state[at: at + 1].view(cupy.int32)[:1]


@dataclass
class LaunchPlan:
    """Everything a run decides before its timed launch: kept with the orientation for a warm call
    of the same parameters over every task (``_run``), so that call does no host planning."""

    phases: list      # per launch: (task of each entry, split codes or None, flags, warps per worker,
                      # passes, the entries' remembered key, how many last entries are whole tasks)
    lam: float
    sms: int
    n_workers: int
    n_keep: int
    n_big: int
    n_up: int         # the task pairs uploaded: up to the last one chosen
    module: object
    kernel: object
    block_kernel: object
    regs: int
    spill_bytes: int
    build: str        # the compile-time defines, as Result.params names them


def _run(prep: Prepared, *, listing, max_buffer_bytes, tasks=None, progress=None, timed=True,
         **params) -> Result:
    p = check_params(params, DEFAULTS, "KCMiner")
    k = int(p["k"])
    if not 3 <= k <= KMAX:
        raise ValueError(f"k must be in 3..{KMAX} on the GPU (k = 1, 2 are n and m), got {k}")
    if p["rows"] not in ROWS:
        raise ValueError(f"rows must be 'flat' or 'by_row', got {p['rows']!r}")
    require_gpu()
    ori = prep.orient(p["order"])
    tasks = pick_tasks(tasks, len(ori.bound), "KCMiner", "tasks")
    # a run over every task keeps its plan when it is one pass a launch: a warm call of 0.2-0.3 ms
    # spent about 0.1 ms planning again (one H200, 2026-11-27)
    return with_kept_plan(ori.memo, _plan_key(p, listing, max_buffer_bytes) if tasks is None else None,
                          lambda: _plan(ori, p, k, listing, tasks, max_buffer_bytes),
                          lambda plan: all(len(phase[4]) == 1 for phase in plan.phases),
                          lambda plan: _launch(prep, ori, plan, p, k, listing, progress, timed))


def _plan_key(p: dict, listing, max_buffer_bytes) -> tuple | None:
    # p is {**DEFAULTS, **given}, no other names: its values in DEFAULTS' order name it
    return plan_key("launch", bool(listing), max_buffer_bytes, *sorted(_DEFINES.items()), *p.values())


def _plan(ori: Oriented, p: dict, k: int, listing, tasks, max_buffer_bytes) -> LaunchPlan:
    lam = default_lam(k) if p["lam"] is None else float(p["lam"])
    flags = (FLAG_SCHED * bool(p["scheduling"]) | FLAG_DYNAMIC * bool(p["dynamic"])
             | FLAG_SIZE * bool(p["size"]) | FLAG_LIST * bool(listing) | FLAG_STATS * bool(p["stats"])
             | FLAG_BYROW * (p["rows"] == "by_row"))
    # fewer common neighbours cannot hold a k-clique: the tasks kept are a prefix (by bound), or of a subset
    if tasks is None:
        chosen = ori.remember(("tasks", k), lambda: np.arange(ori.n_tasks(k - 2)))
    else:
        chosen = np.sort(tasks[ori.bound[tasks] >= k - 2])
    n_keep = len(chosen)
    # size specialisation: the tasks with over block_min candidates (again a prefix) on a block each
    n_big = n_big_all = 0
    n_keep_all = ori.n_tasks(k - 2)   # the whole list's (a subset's pieces may be sized against it)
    if p["size"] and p["block_min"] >= 0:
        big = int(p["block_min"]) + 1
        n_big_all = min(ori.n_tasks(big), n_keep_all)
        n_big = n_big_all if tasks is None else int(np.count_nonzero(ori.bound[chosen] >= big))
    sms = sm_count()
    n_workers = sms * int(p["warps_per_sm"])
    sizing = (p["split_share"], p["max_pieces"])
    budget = int(max_buffer_bytes or 0.4 * free_bytes())
    phases = []   # (task of each launch entry, its split code or None, flags, warps per worker, plan,
                  # the entries' remembered key, how many last entries are a run of whole tasks)
    for lo, hi, parts, whole in ((0, n_big, WARPS_PER_BLOCK, (0, n_big_all)),
                                 (n_big, n_keep, 1, (n_big_all, n_keep_all))):
        workers = max(1, n_workers // parts)   # a block phase has at least one block, on a GPU of few warps
        if hi > lo:
            def entries(part=chosen[lo:hi], parts=parts, whole=whole, workers=workers):
                code, tail = None, 0
                if p["split"] is not False and k >= 5 and not p["stats"]:
                    def cost(c):
                        return listing_cost(c, k)

                    def sizing_of(total):
                        share = p["split_share"] or split_share_for(total / workers)
                        return share, p["max_pieces"]

                    total = split_total(ori, p, tasks, ("split total", k, *whole),
                                        lambda: task_costs(ori, np.arange(*whole), SPLIT_MIN_SIZE, cost)[2])
                    part, code, tail = split_entries(ori, part, SPLIT_MIN_SIZE, cost, workers, p["split"],
                                                     sizing_of, total)
                return part, code, int(work_words(ori.bound[part[0]], k, parts)), tail  # the largest (sorted)

            key = ("entries", k, parts, lo, hi, n_workers, p["split"], p["stats"], *sizing, p["split_of"],
                   subset_key(None if tasks is None else chosen))
            part, code, most, tail = ori.remember(key, entries)
            plan = plan_passes(lambda part=part, parts=parts: {"work": work_words(ori.bound[part], k, parts)},
                               workers, budget, "KCMiner",
                               lambda i, part=part: f"edge ({ori.order[ori.u[part[i]]]}, "
                                                    f"{ori.order[ori.v[part[i]]]})",
                               largest={"work": most}, n=len(part))
            phases.append((part, code, flags | FLAG_BLOCK * (parts > 1), parts, plan, key, tail))
    module = load_module("kclique.cu", defines=_DEFINES)
    kernel = module.get_function("kclique_kernel")
    return LaunchPlan(phases, lam, sms, n_workers, n_keep, n_big, int(chosen[-1]) + 1 if n_keep else 0,
                      module, kernel, module.get_function("kclique_block_kernel"), kernel.num_regs,
                      kernel.local_size_bytes,
                      build_name(_DEFINES))


def _launch(prep: Prepared, ori: Oriented, plan: LaunchPlan, p: dict, k: int, listing, progress,
            timed: bool) -> Result:
    import cupy

    phases, lam, module, n_workers = plan.phases, plan.lam, plan.module, plan.n_workers
    # timed: the graph and tasks to the GPU (one copy), the kernel(s), the counts back
    timer = CudaTimer(timed).start()
    blob, indptr, indices, d_tasks = upload(ori, "out_blob", plan.n_up)
    total = 0
    most = max((workers * parts for _, _, _, parts, passes, _, _ in phases for _, _, workers in passes),
               default=n_workers)   # a block phase on a GPU of fewer warps than a block has more
    # a timed run reports each worker's tasks and cycles; an answer-only one reads back the fixed
    # words alone (the launch's total): 0.7 kB where the warps' words are 135 kB on 132 SMs
    wt = np.zeros(max(n_workers, most), np.int64) if timed else None
    wc = np.zeros(max(n_workers, most), np.uint64) if timed else None
    bins = np.zeros(2 * NBINS * 2, np.uint64)
    active = np.zeros(2, np.uint64)
    device_bytes = blob.nbytes
    list_cap = LIST_CAP if listing else 1
    lists = []
    now = {}   # the pass running: its state and warps, and the count before it (what a Ctrl-C reports)

    def found() -> int:
        per, w = now["state"].get()[_S_FIXED:], now["warps"]
        return now["before"] + sum128(per[0: 2 * w: 2], per[1: 2 * w: 2])

    watch = Watch(sum(len(ph[0]) for ph in phases), progress=progress, what="KCMiner", unit="edge task",
                  found=None if listing else found, found_what=f"{k}-cliques")
    for part, code, launch_flags, parts, passes, key, tail in phases:
        for idx, caps, workers in passes:
            pairs, split = pass_tasks(d_tasks, ori, part, code, idx, key, tail)   # largest first
            work = cupy.empty(workers * caps["work"], dtype=cupy.uint32)
            device_bytes = max(device_bytes, blob.nbytes + work.nbytes)
            warps = workers * parts
            base = watch.base
            while True:
                state = cupy.zeros(_S_FIXED + 4 * warps, dtype=cupy.uint64)
                at = state.data.ptr
                acc = at + 8 * _S_FIXED
                cyc, ntk = acc + 16 * warps, acc + 24 * warps
                lst = cupy.empty(list_cap if listing else 1, dtype=cupy.int32)
                set_params(module, PARAMS, indptr=indptr, indices=indices, tasks=pairs, split=split,
                           stop=at + 8 * _S_STOP, work=work, ctrl=at + 8 * _S_CTRL, acc=acc,
                           total=at + 8 * _S_TOTAL, worker_tasks=ntk, worker_cycles=cyc,
                           bins=at + 8 * _S_BINS, active=at + 8 * _S_ACTIVE, list=lst,
                           list_pos=at + 8 * _S_POS, work_cap=caps["work"], list_cap=list_cap,
                           n_tasks=len(idx), k=k, flags=launch_flags, lam_milli=int(round(lam * 1000)),
                           n_workers=workers)
                fn = plan.block_kernel if parts > 1 else plan.kernel
                fn((-(-warps // WARPS_PER_BLOCK),), (32 * WARPS_PER_BLOCK,), ())
                now.update(state=state, warps=warps, before=total)
                watch.wait(words32(state, _S_CTRL), len(idx), words32(state, _S_STOP), base=base)
                host = state.get() if timed else state[:_S_FIXED].get()
                if not listing or int(host[_S_POS]) <= list_cap:
                    break
                list_cap = int(host[_S_POS])  # the kernel counted what it needed: run the pass again
            if int(host[_S_CTRL]) >> 32 & ERR_CAPACITY:
                raise RuntimeError("KCMiner: a task exceeded its workspace bound (internal error)")
            launch_total = int(host[_S_TOTAL]) + (int(host[_S_TOTAL + 1]) << 64)
            if timed:
                per = host[_S_FIXED:]
                if sum128(per[0: 2 * warps: 2], per[1: 2 * warps: 2]) != launch_total:
                    raise RuntimeError("KCMiner: the launch's total differs from its warps' counts "
                                       "(internal error)")
                wc[:warps] += per[2 * warps: 3 * warps]
                wt[:warps] += per[3 * warps:].view(np.int32)[:warps]
            total += launch_total
            bins += host[_S_BINS:_S_TOTAL]
            active += host[_S_ACTIVE:_S_BINS]
            if listing:
                lists.append(lst[: int(host[_S_POS])].get())
            del work
    watch.close()
    gpu_ms = timer.stop()
    cliques = None
    if listing:
        flat = np.concatenate(lists) if lists else np.empty(0, np.int32)
        cliques = ori.order[flat.reshape(-1, k)] if len(flat) else np.empty((0, k), np.int64)
    return Result(
        answer=total, gpu_ms=gpu_ms,
        params={**p, "lam": lam, "sms": plan.sms, "workers": n_workers, "listing": listing,
                "regs": plan.regs, "spill_bytes": plan.spill_bytes,
                "build": plan.build},
        prep_s=prep.prep_s, order_s=ori.seconds, device_bytes=int(device_bytes),
        passes=sum(len(ph[4]) for ph in phases), tasks=plan.n_keep, block_tasks=plan.n_big,
        pieces=sum(len(ph[0]) for ph in phases),
        worker_tasks=wt, worker_cycles=wc,
        bins=bins.reshape(2, NBINS, 2) if p["stats"] else None,
        active=(int(active[0]), int(active[1])) if "KC_ACTIVE_LANES" in _DEFINES else None, cliques=cliques)


def prepared(G: Graph) -> Prepared:
    """``prepare(G)`` kept with ``G`` (its orientations are kept on their own, per order)."""
    return kept(G, ("kclique",), lambda: Prepared(G))


def count_k_cliques(G: Graph, k: int, **params) -> int:
    """Number of k-cliques of ``G`` (k = 1: n, k = 2: m; else on the GPU)."""
    k = int(k)
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if k <= 2:
        return G.n if k == 1 else G.m
    return prepared(G).run(k=k, timed=False, **params).answer


def k_cliques(G: Graph, k: int, **params) -> np.ndarray:
    """Every k-clique as a row of vertex ids (listing; small outputs)."""
    k = int(k)
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if k == 1:
        return np.arange(G.n).reshape(-1, 1)
    if k == 2:
        return G.edges()
    return prepared(G).run(k=k, listing=True, timed=False, **params).cliques
