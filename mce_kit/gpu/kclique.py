"""KCMiner on the GPU: k-clique counting and listing, launcher for ``cuda/kclique.cu``.

    prep = prepare(G)                          # orientation, oriented CSR, edge tasks (CPU, untimed)
    res = prep.run(k=7, scheduling=True)       # graph to the GPU, kernel, 128-bit count back (timed)
    res.answer, res.gpu_ms, res.row()
    prep.run(k=7, tasks=idx)                   # only those edge tasks (indices into orient(order).u)

The paper orients by degree (ties by id); ``order="degeneracy"`` is the
other option. Every switch of the paper's ablation (lane scheduling, dynamic
bitmap level, size specialisation) and the density threshold are run-time
parameters: one compiled module serves the whole sweep.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..graph import Graph
from . import require_gpu
from .launch import free_bytes, params_dtype, pick_tasks, plan_passes, set_params
from .loader import load_module

FLAG_SCHED, FLAG_DYNAMIC, FLAG_SIZE, FLAG_LIST, FLAG_STATS = 1, 2, 4, 8, 16
ERR_CAPACITY = 1
WARPS_PER_BLOCK = 4
KMAX = 32
NBINS = 20
LIST_CAP = 1 << 20  # first guess of the listing buffer (ints); a pass that needs more runs again
ORDERS = ("degree", "degeneracy")
_DEFINES: dict = {}  # compile-time settings (KC_ACTIVE_LANES=1 for the instrumented build)
DEFAULTS = dict(k=4, order="degree", scheduling=True, dynamic=True, size=True, lam=None,
                warps_per_sm=32, stats=False)

PARAMS = params_dtype(
    pointers=("indptr", "indices", "task_u", "task_v", "work", "ctrl", "acc", "worker_tasks",
              "worker_cycles", "bins", "active", "list", "list_pos"),
    i8=("work_cap", "list_cap"),
    i4=("n_tasks", "k", "flags", "lam_milli", "n_workers"))


def default_lam(k: int) -> float:
    """lambda(k): build the bitmap one level deeper when gamma <= lambda (paper Fig 9: level 3 pays
    for K = 6 only below gamma = 25%, and always for K = 7; K <= 5 stays at level 2)."""
    return -1.0 if k <= 5 else 0.25 if k == 6 else 1.0


def work_words(s, k):
    """Workspace words of one task with <= s common neighbours (matches kclique.cu)."""
    s = np.asarray(s, dtype=np.int64)
    W = (s + 31) // 32
    r4 = (s + 3) // 4 * 4
    return 2 * r4 + 2 * s * W + 32 * max(1, k - 4) * W


def orientation(G: Graph, order: str) -> np.ndarray:
    """The vertex order that orients the edges: by (degree, id) or degeneracy."""
    from ..order import degeneracy_order, degree_order

    if order not in ORDERS:
        raise ValueError(f"order must be 'degree' or 'degeneracy', got {order!r}")
    return np.asarray(degree_order(G) if order == "degree" else degeneracy_order(G))


@dataclass
class Oriented:
    """G renumbered by an order: the full CSR, the later-neighbour CSR, the oriented edges."""

    order: np.ndarray
    indptr: np.ndarray          # all neighbours (sorted)
    indices: np.ndarray
    out_ptr: np.ndarray         # later neighbours only (sorted)
    out_idx: np.ndarray
    u: np.ndarray               # oriented edges u < v
    v: np.ndarray
    bound: np.ndarray           # min(out-degree(u), out-degree(v)) >= |common later neighbours|
    seconds: float


def orient(G: Graph, order: str) -> Oriented:
    t0 = time.perf_counter()
    o = orientation(G, order)
    H = G.relabel(o)
    indptr = np.ascontiguousarray(H.indptr, dtype=np.int32)
    indices = np.ascontiguousarray(H.indices, dtype=np.int32)
    src = np.repeat(np.arange(H.n, dtype=np.int32), np.diff(indptr))
    keep = indices > src
    out_deg = np.bincount(src[keep], minlength=H.n)
    out_ptr = np.zeros(H.n + 1, dtype=np.int32)
    np.cumsum(out_deg, out=out_ptr[1:])
    u, v = src[keep], indices[keep]
    bound = np.minimum(out_deg[u], out_deg[v])
    return Oriented(o, indptr, indices, out_ptr, np.ascontiguousarray(indices[keep]), u, v,
                    bound.astype(np.int64), time.perf_counter() - t0)


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
    worker_tasks: np.ndarray
    worker_cycles: np.ndarray
    bins: np.ndarray | None = None          # FLAG_STATS: [level 2/3, bin, (tasks, cycles)]
    active: tuple[int, int] | None = None   # KC_ACTIVE_LANES: (sum of active lanes, samples)
    cliques: np.ndarray | None = None

    @property
    def count(self) -> int:
        return self.answer

    def row(self) -> dict:
        r = {"tasks": self.tasks, "passes": self.passes, "device_bytes": self.device_bytes,
             "order_s": round(self.order_s, 4)}
        if self.active is not None and self.active[1]:
            r["active_lanes"] = self.active[0] / self.active[1]
        return r


@dataclass
class OrientedGraph:
    """G with its orientations (computed on first use, cached; untimed host work).
    The k-clique and the all-k counting launchers each add their ``run``."""

    G: Graph
    prep_s: float = 0.0
    oriented: dict = field(default_factory=dict)

    def orient(self, order: str) -> Oriented:
        if order not in self.oriented:
            self.oriented[order] = orient(self.G, order)
        return self.oriented[order]

    @classmethod
    def build(cls, G: Graph, order: str):
        """Orient ``G`` by ``order`` now (others on demand), timing it as ``prep_s``."""
        t0 = time.perf_counter()
        prep = cls(G)
        prep.orient(order)
        prep.prep_s = time.perf_counter() - t0
        return prep


class Prepared(OrientedGraph):
    def run(self, *, listing=False, max_buffer_bytes=None, tasks=None, **params) -> Result:
        """One timed launch. ``tasks`` (indices into ``orient(order).u``/``.v``, the oriented edges)
        runs only those edge tasks: the counts of disjoint task sets add up to the whole."""
        return _run(self, listing=listing, max_buffer_bytes=max_buffer_bytes, tasks=tasks, **params)


def prepare(G: Graph, order: str = "degree") -> Prepared:
    """Orient ``G`` (by ``order``; others on demand) on the host."""
    return Prepared.build(G, order)


def check_params(params: dict, defaults: dict, what: str) -> dict:
    unknown = set(params) - set(defaults)
    if unknown:
        raise TypeError(f"unknown {what} parameter(s): {', '.join(sorted(unknown))}")
    return {**defaults, **params}


def _run(prep: Prepared, *, listing, max_buffer_bytes, tasks=None, **params) -> Result:
    p = check_params(params, DEFAULTS, "KCMiner")
    k = int(p["k"])
    if not 3 <= k <= KMAX:
        raise ValueError(f"k must be in 3..{KMAX} on the GPU (k = 1, 2 are n and m), got {k}")
    require_gpu()
    import cupy

    ori = prep.orient(p["order"])
    tasks = pick_tasks(tasks, len(ori.u), "KCMiner", "tasks")
    lam = default_lam(k) if p["lam"] is None else float(p["lam"])
    flags = (FLAG_SCHED * bool(p["scheduling"]) | FLAG_DYNAMIC * bool(p["dynamic"])
             | FLAG_SIZE * bool(p["size"]) | FLAG_LIST * bool(listing) | FLAG_STATS * bool(p["stats"]))
    keep = np.flatnonzero(ori.bound >= k - 2)   # fewer common neighbours cannot hold a k-clique
    if tasks is not None:
        keep = np.sort(tasks[ori.bound[tasks] >= k - 2])
    need = work_words(ori.bound[keep], k)
    sms = cupy.cuda.Device().attributes["MultiProcessorCount"]
    n_workers = sms * int(p["warps_per_sm"])
    budget = int(max_buffer_bytes or 0.4 * free_bytes())
    plan = plan_passes({"work": need}, n_workers, budget, "KCMiner",
                       lambda i: f"edge ({ori.order[ori.u[keep[i]]]}, {ori.order[ori.v[keep[i]]]})")
    module = load_module("kclique.cu", defines=_DEFINES)
    kernel = module.get_function("kclique_kernel")

    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    start.record()
    indptr, indices = cupy.asarray(ori.out_ptr), cupy.asarray(ori.out_idx)
    total = 0
    wt = np.zeros(n_workers, np.int64)
    wc = np.zeros(n_workers, np.uint64)
    bins = cupy.zeros(2 * NBINS * 2, dtype=cupy.uint64)
    active = cupy.zeros(2, dtype=cupy.uint64)
    device_bytes = indptr.nbytes + indices.nbytes
    list_cap = LIST_CAP if listing else 1
    lists = []
    for idx, caps, workers in plan:
        sel = keep[idx[np.argsort(-ori.bound[keep[idx]], kind="stable")]]  # largest tasks first
        tu, tv = cupy.asarray(ori.u[sel]), cupy.asarray(ori.v[sel])
        work = cupy.empty(workers * caps["work"], dtype=cupy.uint32)
        device_bytes = max(device_bytes, indptr.nbytes + indices.nbytes + 2 * tu.nbytes + work.nbytes)
        while True:
            ctrl = cupy.zeros(2, dtype=cupy.int32)
            acc = cupy.zeros(2 * workers, dtype=cupy.uint64)
            tasks = cupy.zeros(workers, dtype=cupy.int32)
            cycles = cupy.zeros(workers, dtype=cupy.uint64)
            lst = cupy.empty(list_cap if listing else 1, dtype=cupy.int32)
            pos = cupy.zeros(1, dtype=cupy.uint64)
            set_params(module, PARAMS, indptr=indptr, indices=indices, task_u=tu, task_v=tv, work=work,
                       ctrl=ctrl, acc=acc, worker_tasks=tasks, worker_cycles=cycles, bins=bins,
                       active=active, list=lst, list_pos=pos, work_cap=caps["work"], list_cap=list_cap,
                       n_tasks=len(sel), k=k, flags=flags, lam_milli=int(round(lam * 1000)),
                       n_workers=workers)
            kernel((-(-workers // WARPS_PER_BLOCK),), (32 * WARPS_PER_BLOCK,), ())
            if not listing or int(pos[0]) <= list_cap:
                break
            list_cap = int(pos[0])  # the kernel counted what it needed: run the pass again
        if int(ctrl[1]) & ERR_CAPACITY:
            raise RuntimeError("KCMiner: a task exceeded its workspace bound (internal error; please report)")
        a = acc.get()
        total += int(a[0::2].astype(object).sum()) + (int(a[1::2].astype(object).sum()) << 64)
        wt[:workers] += tasks.get()
        wc[:workers] += cycles.get()
        if listing:
            lists.append(lst[: int(pos[0])].get())
        del work
    stop.record()
    stop.synchronize()
    gpu_ms = cupy.cuda.get_elapsed_time(start, stop)
    cliques = None
    if listing:
        flat = np.concatenate(lists) if lists else np.empty(0, np.int32)
        cliques = ori.order[flat.reshape(-1, k)] if len(flat) else np.empty((0, k), np.int64)
    act = active.get()
    return Result(
        answer=total, gpu_ms=gpu_ms,
        params={**p, "lam": lam, "sms": sms, "workers": n_workers, "listing": listing,
                "regs": kernel.num_regs, "spill_bytes": kernel.local_size_bytes,
                "build": " ".join(f"{a}={b}" for a, b in sorted(_DEFINES.items())) or "default"},
        prep_s=prep.prep_s, order_s=ori.seconds, device_bytes=int(device_bytes), passes=len(plan),
        tasks=len(keep), worker_tasks=wt, worker_cycles=wc,
        bins=bins.get().reshape(2, NBINS, 2) if p["stats"] else None,
        active=(int(act[0]), int(act[1])) if "KC_ACTIVE_LANES" in _DEFINES else None, cliques=cliques)


def count_k_cliques(G: Graph, k: int, **params) -> int:
    """Number of k-cliques of ``G`` (k = 1: n, k = 2: m; else on the GPU)."""
    k = int(k)
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if k <= 2:
        return G.n if k == 1 else G.m
    return prepare(G, params.get("order", "degree")).run(k=k, **params).answer


def k_cliques(G: Graph, k: int, **params) -> np.ndarray:
    """Every k-clique as a row of vertex ids (listing; small outputs)."""
    k = int(k)
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if k == 1:
        return np.arange(G.n).reshape(-1, 1)
    if k == 2:
        return G.edges()
    return prepare(G, params.get("order", "degree")).run(k=k, listing=True, **params).cliques
