"""RDMCE on the GPU: launcher for ``cuda/rdmce.cu``.

    prep = prepare(G)                       # degeneracy order, seeds, buffer sizes (CPU)
    res = prep.run(tau=24, warps_per_sm=20) # H2D graph, kernel, count back (timed phase)
    res.count, res.gpu_ms, res.worker_cycles

Every sweep parameter (tau, warps per SM, seeding, switches) is a kernel
argument or a launch setting; the module is compiled once.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..graph import Graph
from . import require_gpu
from .launch import free_bytes, params_dtype, plan_passes, set_params
from .loader import load_module
from .seeds import degeneracy_csr, seed_sets

FLAG_EXPOSE, FLAG_AGGRESSIVE, FLAG_LIST = 1, 2, 4
ERR_CAPACITY = 1
WARPS_PER_BLOCK = 4
_DEFINES: dict = {}  # compile-time settings (kept empty in normal use; benchmarks may probe)
DEFAULTS = dict(tau=24, warps_per_sm=32, seeding="edge", exposure=True, aggressive=True)


# The kernel's launch parameters, ``struct Params`` in rdmce.cu (same fields, same order).
PARAMS = params_dtype(
    pointers=("indptr", "indices", "seed_u", "seed_v", "rows_buf", "stack_buf", "expo", "copying",
              "rows_users", "task_info", "ctrl", "worker_count", "worker_nodes", "worker_cycles",
              "worker_seeds", "worker_steals", "list", "list_pos", "list_overflow"),
    i8=("rows_cap", "stack_cap", "list_cap"),
    i4=("n_seeds", "tau", "flags", "n_workers"))


def rows_words(p, x):
    """Words of the sub-graph region for a seed with |P| <= p, |X| <= x (matches rdmce.cu)."""
    Wr, Wx = ((p + 31) // 32 + 3) // 4 * 4, (x + 31) // 32
    return (p + 3) // 4 * 4 + (p + x) * Wr + p * Wx


def stack_words(p, x):
    """Words of the DFS-stack region for such a seed (matches rdmce.cu)."""
    W, Wx = (p + 31) // 32, (x + 31) // 32
    d = p + 2
    return np.maximum(d * (3 * W + Wx) + 3 * d + 1, x)


@dataclass
class RDMCEResult:
    count: int
    params: dict
    gpu_ms: float
    prep_s: float
    device_bytes: int
    worker_count: np.ndarray
    worker_nodes: np.ndarray
    worker_cycles: np.ndarray
    worker_seeds: np.ndarray
    worker_steals: np.ndarray
    passes: int = 1
    cliques: list | None = None

    @property
    def nodes(self) -> int:
        return int(self.worker_nodes.sum())

    @property
    def answer(self) -> int:
        return self.count

    def row(self) -> dict:
        """Flat counters for a benchmark row (mce_kit.measure)."""
        return {"device_bytes": self.device_bytes, "nodes": self.nodes,
                "steals": int(self.worker_steals.sum()), "passes": self.passes,
                **{f"load_{k}": round(v, 4) for k, v in self.load_balance().items()}}

    def load_balance(self) -> dict:
        """Busy cycles across workers: max/mean and coefficient of variation."""
        c = self.worker_cycles.astype(float)
        if not c.mean():
            return {"max_over_mean": 1.0, "cv": 0.0}
        return {"max_over_mean": c.max() / c.mean(), "cv": c.std() / c.mean()}


@dataclass
class Prepared:
    """A graph in degeneracy order with its seeds and per-seed buffer bounds (all on the host)."""

    G: Graph
    order: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    seeds: dict = field(default_factory=dict)  # seeding -> (u, v, rows_need, stack_need)
    isolated: np.ndarray = None
    prep_s: float = 0.0

    def seed_arrays(self, seeding: str):
        if seeding not in self.seeds:
            self.seeds[seeding] = _make_seeds(self.indptr, self.indices, seeding)
        return self.seeds[seeding]

    def run(self, *, listing=False, max_buffer_bytes=None, seeds=None, **params) -> RDMCEResult:
        """Run the kernel; ``seeds`` (indices into ``seed_arrays``) runs only those seeds and
        leaves out the isolated vertices (a chunk of a distributed run)."""
        return _run(self, listing=listing, max_buffer_bytes=max_buffer_bytes, seeds=seeds, **params)


def prepare(G: Graph) -> Prepared:
    """Order ``G`` by degeneracy and build its CSR for the kernel (not part of the timed phase)."""
    t0 = time.perf_counter()
    order, indptr, indices, isolated = degeneracy_csr(G)
    return Prepared(G, order, indptr, indices, isolated=isolated, prep_s=time.perf_counter() - t0)


def _make_seeds(indptr, indices, seeding):
    u, v, p, x = seed_sets(indptr, indices, seeding)
    return u, v, rows_words(p, x).astype(np.int64), stack_words(p, x).astype(np.int64)


def _plan(rows_need, stack_need, n_workers, budget, describe=None):
    """[(seed indices, rows_cap, stack_cap, workers)]: passes whose buffers fit ``budget`` bytes."""
    passes = plan_passes({"rows": rows_need, "stack": stack_need}, n_workers, budget, "RDMCE", describe)
    return [(idx, caps["rows"], caps["stack"], workers) for idx, caps, workers in passes]


def _run(prep: Prepared, *, listing, max_buffer_bytes, seeds=None, **params) -> RDMCEResult:
    require_gpu()
    import cupy

    unknown = set(params) - set(DEFAULTS)
    if unknown:
        raise TypeError(f"unknown RDMCE parameter(s): {', '.join(sorted(unknown))}")
    p = {**DEFAULTS, **params}
    u, v, rows_need, stack_need = prep.seed_arrays(p["seeding"])
    isolated = prep.isolated
    if seeds is not None:
        pick = np.asarray(seeds, dtype=np.int64)
        u, v, rows_need, stack_need = (a[pick] for a in (u, v, rows_need, stack_need))
        isolated = isolated[:0]
    flags = (FLAG_EXPOSE * bool(p["exposure"]) | FLAG_AGGRESSIVE * bool(p["aggressive"])
             | FLAG_LIST * bool(listing))
    sms = cupy.cuda.Device().attributes["MultiProcessorCount"]
    n_workers = sms * int(p["warps_per_sm"])
    budget = int(max_buffer_bytes or 0.4 * free_bytes())
    plan = _plan(rows_need, stack_need, n_workers, budget,
                 lambda i: f"seed ({prep.order[u[i]]}, {prep.order[v[i]] if v[i] >= 0 else '-'})")
    module = load_module("rdmce.cu", defines=_DEFINES)
    kernel = module.get_function("rdmce_kernel")

    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    start.record()
    indptr = cupy.asarray(prep.indptr)
    indices = cupy.asarray(prep.indices)
    # per-worker count, nodes, busy cycles (64-bit), seeds taken, branches pulled
    stats = [cupy.zeros(n_workers, dtype=dt) for dt in ("u8", "u8", "u8", "i4", "i4")]
    total = cupy.zeros(1, dtype=cupy.uint64)
    list_cap = max(1024, 8 * len(u)) if listing else 1
    device_bytes = indptr.nbytes + indices.nbytes
    records = []
    for idx, rows_cap, stack_cap, workers in plan:
        su, sv = cupy.asarray(u[idx]), cupy.asarray(v[idx])
        bufs = dict(
            rows=cupy.empty(workers * rows_cap, dtype=cupy.uint32),
            stack=cupy.empty(workers * stack_cap, dtype=cupy.uint32),
            expo=cupy.zeros(workers, dtype=cupy.uint64),
            copying=cupy.zeros(workers, dtype=cupy.int32),
            rows_users=cupy.zeros(workers, dtype=cupy.int32),
            task_info=cupy.zeros(8 * workers, dtype=cupy.int32),
            ctrl=cupy.zeros(4, dtype=cupy.int32),
        )
        device_bytes = max(device_bytes, indptr.nbytes + indices.nbytes + su.nbytes * 2
                           + sum(b.nbytes for b in bufs.values()) + sum(s.nbytes for s in stats))
        while True:
            out = [cupy.zeros(workers, dtype=s.dtype) for s in stats]
            lst = cupy.empty(list_cap, dtype=cupy.int32)
            pos = cupy.zeros(1, dtype=cupy.uint64)
            overflow = cupy.zeros(1, dtype=cupy.int32)
            for b in ("expo", "copying", "rows_users", "ctrl"):
                bufs[b].fill(0)
            set_params(module, PARAMS, indptr=indptr, indices=indices, seed_u=su, seed_v=sv,
                       rows_buf=bufs["rows"], stack_buf=bufs["stack"], expo=bufs["expo"],
                       copying=bufs["copying"], rows_users=bufs["rows_users"], task_info=bufs["task_info"],
                       ctrl=bufs["ctrl"], worker_count=out[0], worker_nodes=out[1], worker_cycles=out[2],
                       worker_seeds=out[3], worker_steals=out[4], list=lst, list_pos=pos,
                       list_overflow=overflow, rows_cap=rows_cap, stack_cap=stack_cap, list_cap=list_cap,
                       n_seeds=len(idx), tau=p["tau"], flags=flags, n_workers=workers)
            kernel((-(-workers // WARPS_PER_BLOCK),), (32 * WARPS_PER_BLOCK,), ())
            if not listing or int(overflow[0]) == 0:
                break
            list_cap = int(pos[0]) + 1  # the kernel counted what it needed
        if int(bufs["ctrl"][2]) & ERR_CAPACITY:
            raise RuntimeError("RDMCE: a seed exceeded its buffer bound (internal error; please report)")
        for s, o in zip(stats, out, strict=True):
            s[:workers] += o
        total += out[0].sum()
        if listing:
            records.append(lst[: int(pos[0])].get())
        del bufs
    count = int(total[0]) + len(isolated)
    stop.record()
    stop.synchronize()
    gpu_ms = cupy.cuda.get_elapsed_time(start, stop)

    cliques = None
    if listing:
        cliques = [prep.order[np.array([i])] for i in isolated]
        for rec in records:
            i = 0
            while i < len(rec):
                r = rec[i]
                cliques.append(prep.order[rec[i + 1 : i + 1 + r]])
                i += r + 1
    host = [s.get() for s in stats]
    return RDMCEResult(
        count=count,
        params={**p, "sms": sms, "workers": n_workers, "listing": listing,
                "regs": kernel.num_regs, "spill_bytes": kernel.local_size_bytes,
                "build": " ".join(f"{k}={v}" for k, v in sorted(_DEFINES.items())) or "default"},
        gpu_ms=gpu_ms, prep_s=prep.prep_s, device_bytes=int(device_bytes),
        worker_count=host[0], worker_nodes=host[1], worker_cycles=host[2],
        worker_seeds=host[3], worker_steals=host[4], passes=len(plan), cliques=cliques,
    )


def count_maximal_cliques(G: Graph, **params) -> int:
    """Number of maximal cliques of ``G`` (isolated vertices count as cliques of size 1)."""
    return prepare(G).run(**params).count


def maximal_cliques(G: Graph, **params) -> list[np.ndarray]:
    """Every maximal clique of ``G`` as an array of vertex ids (listing mode; small graphs)."""
    return prepare(G).run(listing=True, **params).cliques
