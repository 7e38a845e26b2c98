"""Clique counts for every k at once on the GPU (pivoting, no listing): launcher for ``cuda/cliquecount.cu``.

    prep = prepare(G)                      # orientation and edge tasks (CPU, untimed)
    res = prep.run(k_max=8)                # kernel counts tree leaves by (held, pivots)
    res.answer                             # {k: count}, exact Python ints

The kernel never weights anything: it counts the leaves of each edge's
succinct clique tree by (h held, p pivots) in 64-bit counters (a leaf costs
the GPU one tree step, so they cannot wrap); ``cpu.pivot.combine_leaves``
turns them into counts with exact binomials. Same algorithm as
``mce_kit.cpu.pivot`` (the CPU reference).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..cpu.pivot import combine_leaves
from ..graph import Graph
from . import require_gpu
from .kclique import OrientedGraph, check_params
from .launch import free_bytes, params_dtype, plan_passes, set_params
from .loader import load_module

ERR_CAPACITY = 1
WARPS_PER_BLOCK = 4
DEFAULTS = dict(k_max=None, order="degeneracy", warps_per_sm=32)

PARAMS = params_dtype(
    pointers=("indptr", "indices", "task_u", "task_v", "work", "ctrl", "leaves", "worker_tasks",
              "worker_nodes"),
    i8=("work_cap",),
    i4=("n_tasks", "k_max", "pc", "n_workers"))


def work_words(s):
    """Workspace words of one task with <= s later common neighbours (matches cliquecount.cu)."""
    s = np.asarray(s, dtype=np.int64)
    W = (s + 31) // 32
    return (s + 3) // 4 * 4 + s * W + 2 * W * (s + 2) + 3 * (s + 2) + 4


@dataclass
class Result:
    answer: dict
    gpu_ms: float
    params: dict
    prep_s: float
    order_s: float
    device_bytes: int
    passes: int
    tasks: int
    nodes: int
    leaves: np.ndarray

    def row(self) -> dict:
        return {"tasks": self.tasks, "passes": self.passes, "device_bytes": self.device_bytes,
                "nodes": self.nodes, "order_s": round(self.order_s, 4)}


class Prepared(OrientedGraph):
    def run(self, *, max_buffer_bytes=None, **params) -> Result:
        return _run(self, max_buffer_bytes=max_buffer_bytes, **params)


def prepare(G: Graph, order: str = "degeneracy") -> Prepared:
    return Prepared.build(G, order)


def _run(prep: Prepared, *, max_buffer_bytes, **params) -> Result:
    p = check_params(params, DEFAULTS, "clique-count")
    k_max = p["k_max"]
    if k_max is not None and int(k_max) < 1:
        raise ValueError(f"k_max must be >= 1, got {k_max}")
    require_gpu()
    import cupy

    G = prep.G
    ori = prep.orient(p["order"])
    smax = int(ori.bound.max()) if len(ori.bound) else 0
    K = smax + 2 if k_max is None else min(int(k_max), smax + 2)  # no clique is larger than smax + 2
    pc = smax + 1
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    start.record()
    leaves_host = np.zeros((K + 1, pc), np.int64)
    device_bytes, passes, nodes, n_tasks = 0, 0, 0, 0
    if K >= 3 and len(ori.u):
        need = work_words(ori.bound)
        sms = cupy.cuda.Device().attributes["MultiProcessorCount"]
        n_workers = sms * int(p["warps_per_sm"])
        budget = int(max_buffer_bytes or 0.4 * free_bytes())
        plan = plan_passes({"work": need}, n_workers, budget, "clique counts",
                           lambda i: f"edge ({ori.order[ori.u[i]]}, {ori.order[ori.v[i]]})")
        module = load_module("cliquecount.cu")
        kernel = module.get_function("cliquecount_kernel")
        indptr, indices = cupy.asarray(ori.indptr), cupy.asarray(ori.indices)
        leaves = cupy.zeros((K + 1) * pc, dtype=cupy.uint64)
        for idx, caps, workers in plan:
            sel = idx[np.argsort(-ori.bound[idx], kind="stable")]
            tu, tv = cupy.asarray(ori.u[sel]), cupy.asarray(ori.v[sel])
            work = cupy.empty(workers * caps["work"], dtype=cupy.uint32)
            ctrl = cupy.zeros(2, dtype=cupy.int32)
            tasks = cupy.zeros(workers, dtype=cupy.int32)
            wn = cupy.zeros(workers, dtype=cupy.uint64)
            set_params(module, PARAMS, indptr=indptr, indices=indices, task_u=tu, task_v=tv, work=work,
                       ctrl=ctrl, leaves=leaves, worker_tasks=tasks, worker_nodes=wn,
                       work_cap=caps["work"], n_tasks=len(sel), k_max=K, pc=pc, n_workers=workers)
            kernel((-(-workers // WARPS_PER_BLOCK),), (32 * WARPS_PER_BLOCK,), ())
            if int(ctrl[1]) & ERR_CAPACITY:
                raise RuntimeError("clique counts: a task exceeded its workspace bound (internal error)")
            device_bytes = max(device_bytes, indptr.nbytes + indices.nbytes + work.nbytes + leaves.nbytes)
            nodes += int(wn.sum())
            n_tasks += len(sel)
            passes += 1
            del work
        leaves_host = leaves.get().astype(np.int64).reshape(K + 1, pc)
    stop.record()
    stop.synchronize()
    gpu_ms = cupy.cuda.get_elapsed_time(start, stop)
    table = {(h, q): int(c) for (h, q), c in np.ndenumerate(leaves_host) if c and h >= 2}
    counts = combine_leaves(table, G.n, G.m, k_max)
    return Result(answer=counts, gpu_ms=gpu_ms, params={**p, "k_max_used": K}, prep_s=prep.prep_s,
                  order_s=ori.seconds, device_bytes=int(device_bytes), passes=passes, tasks=n_tasks,
                  nodes=nodes, leaves=leaves_host)


def clique_counts(G: Graph, k_max: int | None = None, **params) -> dict[int, int]:
    """{k: number of k-cliques} for k = 1..k_max (None: up to the clique number)."""
    return prepare(G, params.get("order", "degeneracy")).run(k_max=k_max, **params).answer
