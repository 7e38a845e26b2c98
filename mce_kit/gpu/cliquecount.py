"""Clique counts for every k at once on the GPU (pivoting, no listing): launcher for ``cuda/cliquecount.cu``.

    prep = prepare(G)                      # orientation and edge tasks (CPU, untimed)
    res = prep.run(k_max=8)                # kernel counts tree leaves by (held, pivots)
    res.answer                             # {k: count}, exact Python ints

The kernel never weights anything: it counts the leaves of each edge's
succinct clique tree by (h held, p pivots) in 64-bit counters (a leaf costs
the GPU one tree step, so they cannot wrap); ``cpu.pivot.combine_leaf_table``
turns them into counts with exact binomials. Same algorithm as
``mce_kit.cpu.pivot`` (the CPU reference). ``split``: the edges estimated to outlast
the rest of the launch run as pieces that share out the sub-trees below the tree's
large top, which every piece walks (``kclique.split_tasks``; False: never, an int n:
every edge with SPLIT_MIN_SIZE+ candidates in n pieces; ``split_of`` as in KCMiner).
``by_nodes``: a split launch after a long one takes its entries by the tree nodes that one
measured (``by_measured_nodes``; False: always by the candidates bound).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..accel import array_module
from ..cpu.pivot import combine_leaf_table
from ..graph import Graph
from ..prepared import kept
from . import require_gpu
from .kclique import (
    MAX_PIECES,
    OrientedGraph,
    check_params,
    pass_tasks,
    split_entries,
    split_total,
    subset_key,
    task_costs,
    upload,
    words32,
)
from .launch import (
    SPLIT_SHARE,
    free_bytes,
    in_shared_queue,
    params_dtype,
    pick_tasks,
    plan_passes,
    set_params,
    sm_count,
    with_kept_plan,
)
from .loader import load_module
from .timer import CudaTimer
from .watch import Watch, released

ERR_CAPACITY = 1
WARPS_PER_BLOCK = 4
# Deep counts of heavy graphs take finer pieces than KCMiner's: 64 per worker's share and up to 256
# per edge, with the kernel's shared top reaching children of 20% of s (SPLIT_PCT). On one H100
# (kcminer_pivot_deep.csv) that took k <= 8 on ego-Facebook from 441 to 332 ms, Slashdot 20.1 to
# 10.4, socfb-MIT 20.1 to 13.0: from k = 7 on, every graph with over 2,100 of estimated work per
# worker gained 13-49%. But wiki-Vote (1,300 per worker) lost 35-67% at every k, shallow counts
# lost (ego-Facebook k <= 4: 4.8x), and graphs with less work (kernels under 2 ms) moved within
# 0.05 ms either way. The threshold sits between wiki-Vote and socfb-MIT. (Before: deep from k = 10
# on every graph, 16 per share and 45% until ego-Facebook's halves showed its four heaviest edges'
# large children left to one piece each: pivot_split_rule.csv.)
PIVOT_SPLIT_SHARE = 64
PIVOT_DEEP_PIECES = 256
PIVOT_DEEP_K = 7
PIVOT_DEEP_WORK = 1.7e3
# A chunk of a deep count (a share of a multi-GPU run, tasks given) may cut its heavy edges into more
# pieces than they have candidates (``cap_by_bound=None``: by this rule). Each piece walks the tree's
# shared top, so more pieces pay only where the trees are deep below it: ego-Facebook's slower half
# (one H200) took 774 ms uncapped against 854 capped for every k, but 470 against 449 at k <= 10;
# a whole launch lost 2-9% at every k (sized against twice the work, the cap binds less there).
# kcminer_pivot_uncap.csv holds the halves at k = 10..24; a CPU test ties this to it.
PIVOT_UNCAP_K = 11
# A launch that split its edges and ran at least this long keeps its entries' tree nodes and takes
# them most first the next time (``by_measured_nodes``; the same edges, pieces and counts). Trees
# of one candidates bound differ in size by 10x or more (``run(timeline=True)`` on ego-Facebook), so
# the bound's order left pieces of 50-100 ms to be taken last: on one H200, ego-Facebook's queue
# emptied 40-75 ms before the launch ended (every k: 1374 of 1447 ms; a half of its tasks: 719 of
# 768). A list schedule of that run's measured entries over the launch's warps, most first, ends
# within 0.3 ms of their total / warps; kcminer_pivot_order.csv has the launches since.
LEARN_FROM_MS = 20.0


def sizing_for(k: int, work_per_worker: float) -> tuple[int, int]:
    """(pieces per worker's share, most pieces of one edge) for counts up to k (``split_share=None``,
    ``max_pieces=None``) of a launch whose ``tree_cost``s come to this much per worker: finer for
    deep counts of heavy graphs."""
    deep = k >= PIVOT_DEEP_K and work_per_worker >= PIVOT_DEEP_WORK
    return (PIVOT_SPLIT_SHARE, PIVOT_DEEP_PIECES) if deep else (SPLIT_SHARE, MAX_PIECES)


DEFAULTS = dict(k_max=None, order="degeneracy", warps_per_sm=32, split=True, split_share=None,
                max_pieces=None, split_of="tasks", cap_by_bound=None, by_nodes=True)
# split only edges with this many candidates: below it a tree is short (a clique's is one chain)
# and pieces cost more than they save (CA-GrQc, email-Eu-core: kcminer_split.csv)
SPLIT_MIN_SIZE = 48
TREE_GROWTH = 2 ** (1 / 6)  # estimated tree size: TREE_GROWTH ** (candidates), as for a maximal-clique seed


def tree_cost(candidates):
    """Estimated tree size of edge tasks with these candidates: what their pieces are sized by
    (NumPy or CuPy, as ``candidates`` is)."""
    xp = array_module(candidates)
    return xp.power(TREE_GROWTH, xp.minimum(candidates, 3000).astype(xp.float64))


PARAMS = params_dtype(
    pointers=("indptr", "indices", "tasks", "split", "stop", "work", "ctrl", "next", "leaves", "worker_tasks",
              "worker_nodes", "task_log"),
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
    pieces: int             # launch entries: tasks, with the split ones counted once per piece
    nodes: int | None       # tree nodes walked; None in an answer-only (untimed) run
    leaves: np.ndarray
    timeline: dict | None = None   # run(timeline=True): one entry per launch entry (``_timeline``)

    def row(self) -> dict:
        return {"tasks": self.tasks, "pieces": self.pieces, "passes": self.passes,
                "device_bytes": self.device_bytes, "nodes": self.nodes, "order_s": round(self.order_s, 4)}


class Prepared(OrientedGraph):
    def run(self, *, max_buffer_bytes=None, tasks=None, progress=None, timeline=False, timed=True,
            **params) -> Result:
        """One timed launch (``timed=False``: ``gpu_ms`` None, unless the run learns its entries'
        order). ``tasks`` (indices into ``orient(order).u``/``.v``) counts only the cliques
        whose two earliest vertices are those edges: the answer then holds k >= 3 only, and the
        answers of disjoint task sets add up (``mce_kit.distributed``). ``progress``: a bar over the
        tasks (``watch.Watch``); Ctrl-C stops the launch cleanly. ``timeline``: also log each launch
        entry's start, end and tree nodes (``Result.timeline``: what a launch's tail is made of)."""
        return released(_run, self, max_buffer_bytes=max_buffer_bytes, tasks=tasks, progress=progress,
                        timeline=timeline, timed=timed, **params)


def prepare(G: Graph, order: str = "degeneracy") -> Prepared:
    return Prepared.build(G, order)


def _run(prep: Prepared, *, max_buffer_bytes, tasks=None, progress=None, timeline=False, timed=True,
         **params) -> Result:
    p = check_params(params, DEFAULTS, "clique-count")
    k_max = p["k_max"]
    if k_max is not None and int(k_max) < 1:
        raise ValueError(f"k_max must be >= 1, got {k_max}")
    require_gpu()
    import cupy

    G = prep.G
    ori = prep.orient(p["order"])
    tasks = pick_tasks(tasks, len(ori.bound), "clique counts", "tasks")
    chosen = None if tasks is None else np.sort(tasks)   # None: every task (a warm call builds no list)
    n_chosen = len(ori.bound) if tasks is None else len(chosen)
    smax = int(ori.bound[0]) if len(ori.bound) else 0   # (bound descends)
    K = smax + 2 if k_max is None else min(int(k_max), smax + 2)  # no clique is larger than smax + 2
    pc = smax + 1
    n_leaves = (K + 1) * pc
    run = K >= 3 and n_chosen
    learn = False
    if run:
        n_workers = sm_count() * int(p["warps_per_sm"])

        cap = (tasks is None or K < PIVOT_UNCAP_K) if p["cap_by_bound"] is None else bool(p["cap_by_bound"])

        def entries():
            every = np.arange(len(ori.bound)) if chosen is None else chosen
            part, code, tail = every, None, 0
            if p["split"] is not False:
                total = split_total(ori, p, tasks, "pivot split total", lambda: task_costs(
                    ori, np.arange(len(ori.bound)), SPLIT_MIN_SIZE, tree_cost)[2])

                def sizing_of(total):
                    share, pieces = sizing_for(K, total / n_workers)
                    return p["split_share"] or share, p["max_pieces"] or pieces

                part, code, tail = split_entries(ori, every, SPLIT_MIN_SIZE, tree_cost, n_workers, p["split"],
                                                 sizing_of, total, cap)
            return part, code, int(work_words(ori.bound[part[0]])), tail   # the largest bound (sorted)

        key = ("pivot entries", K >= PIVOT_DEEP_K, n_workers, p["split"], p["split_share"], p["max_pieces"],
               cap, p["split_of"], subset_key(chosen))
        part, code, most, tail = ori.remember(key, entries)
        by_nodes = key + (K, "by nodes")   # the entries as a measured run ordered them (by_nodes)
        # (not from a queue shared by GPUs: each took other entries, and all must keep one order)
        own = p["by_nodes"] and code is not None and not in_shared_queue()
        learn = own and by_nodes not in ori.memo
        if own and ori.memo.get(by_nodes) is not None:
            part, code = ori.memo[by_nodes]
            key = by_nodes   # (its device copies are kept under it)
        module = load_module("cliquecount.cu")
        kernel = module.get_function("cliquecount_kernel")

    def plan():
        budget = int(max_buffer_bytes or 0.4 * free_bytes())
        return plan_passes(lambda: {"work": work_words(ori.bound[part])}, n_workers, budget, "clique counts",
                           lambda i: f"edge ({ori.order[ori.u[part[i]]]}, {ori.order[ori.v[part[i]]]})",
                           largest={"work": most}, n=len(part))

    def launch(plan):
        """The timed launches: the graph and tasks to the GPU (one copy), the kernel(s), the leaf
        counts back. Returns (leaves, device bytes, passes, nodes, entries run, logs, ms)."""
        leaves = np.zeros((K + 1, pc), np.int64)
        device_bytes, passes, n_tasks, logs = 0, 0, 0, []
        per_worker = timed or learn   # (a run that learns an order needs its time)
        timer = CudaTimer(per_worker).start()
        nodes = 0 if per_worker else None
        if run:
            blob, indptr, indices, d_tasks = upload(ori, "all_blob", len(ori.bound))
            with Watch(len(part), progress=progress, what="clique counts", unit="edge task") as watch:
                for idx, caps, workers in plan:
                    pairs, split = pass_tasks(d_tasks, ori, part, code, idx, key, tail)   # largest first
                    work = cupy.empty(workers * caps["work"], dtype=cupy.uint32)
                    # one zeroed buffer: ctrl (next task, error flags), leaves, per worker: nodes, tasks
                    # (int32); last, the stop word
                    end = 1 + n_leaves + 2 * workers
                    state = cupy.zeros(end + 1, dtype=cupy.uint64)
                    log = cupy.zeros(3 * len(idx), dtype=cupy.uint64) if timeline or learn else None
                    at = state.data.ptr
                    set_params(module, PARAMS, indptr=indptr, indices=indices, tasks=pairs, split=split,
                               stop=at + 8 * end, work=work, ctrl=at, leaves=at + 8,
                               worker_nodes=at + 8 * (1 + n_leaves),
                               worker_tasks=at + 8 * (1 + n_leaves + workers),
                               task_log=0 if log is None else log, work_cap=caps["work"], n_tasks=len(idx),
                               k_max=K, pc=pc, n_workers=workers)
                    kernel((-(-workers // WARPS_PER_BLOCK),), (32 * WARPS_PER_BLOCK,), ())
                    watch.wait(words32(state, 0), len(idx), words32(state, end))
                    # an answer-only run reads back the ctrl word and the leaf table, not the workers'
                    host = state.get() if per_worker else state[: 1 + n_leaves].get()
                    if int(host[0]) >> 32 & ERR_CAPACITY:
                        raise RuntimeError("clique counts: a task exceeded its workspace bound "
                                           "(internal error)")
                    leaves += host[1: 1 + n_leaves].astype(np.int64).reshape(K + 1, pc)
                    device_bytes = max(device_bytes, blob.nbytes + work.nbytes + state.nbytes)
                    if per_worker:
                        nodes += int(host[1 + n_leaves: 1 + n_leaves + workers].sum())
                    n_tasks += len(idx)
                    passes += 1
                    if log is not None:
                        logs.append((idx, log.get().reshape(-1, 3)))
                    del work
        return leaves, device_bytes, passes, nodes, n_tasks, logs, timer.stop()

    # one pass is kept for the next run of these entries (``launch.with_kept_plan``)
    leaves_host, device_bytes, passes, nodes, n_tasks, logs, gpu_ms = (
        with_kept_plan(ori.memo, ("pivot passes", key, max_buffer_bytes), plan, lambda plan: len(plan) == 1,
                       launch) if run else launch([]))
    if run and learn:
        ori.remember(by_nodes, lambda: by_measured_nodes(part, code, tail, logs[0][1][:, 2])
                     if passes == 1 and gpu_ms >= LEARN_FROM_MS else None)
    counts = _combined(ori, leaves_host, G.n, G.m, k_max, K, every=tasks is None)
    return Result(answer=counts, gpu_ms=gpu_ms, params={**p, "k_max_used": K}, prep_s=prep.prep_s,
                  order_s=ori.seconds, device_bytes=int(device_bytes), passes=passes,
                  tasks=n_chosen if run else 0, pieces=n_tasks, nodes=nodes, leaves=leaves_host,
                  timeline=_timeline(ori, part, code, logs) if timeline and run else None)


def _combined(ori, leaves: np.ndarray, n: int, m: int, k_max, K: int, every: bool) -> dict[int, int]:
    """{k: count} from a run's leaf table (``every``: over every task; else a subset's, k >= 3 only).
    The last table and its counts are kept with ``ori``: a warm call's table is the one before (with
    this, warm k = 8 and 10 counts of 0.3-0.45 ms took 0.83-0.99x the time, one H200:
    logs/ab_pivot_counts_h200_d5bea74.log)."""
    key = ("pivot counts", k_max, every)
    last = ori.memo.get(key)
    table = (leaves.shape, leaves.tobytes())
    if last is None or last[0] != table:
        if every:   # (the kernel's leaves hold h >= 2 vertices)
            counts = combine_leaf_table(leaves, n, m, k_max)
        else:
            counts = {k: c for k, c in combine_leaf_table(leaves, 0, 0, K).items() if k >= 3}
        last = ori.memo[key] = (table, counts)
    return dict(last[1])


def by_measured_nodes(part: np.ndarray, code: np.ndarray, tail: int, nodes: np.ndarray) -> tuple:
    """(entries, codes) with the entries before the ``tail`` of whole tasks ordered by the tree
    nodes a run of them measured (``nodes``, in entry order), most first, ties in their order: a
    launch then takes its longest entries first, as ``LEARN_FROM_MS`` says why."""
    head = len(part) - tail
    first = np.argsort(-np.asarray(nodes[:head], dtype=np.int64), kind="stable")
    return (np.concatenate([part[:head][first], part[head:]]),
            np.concatenate([code[:head][first], code[head:]]))


def _timeline(ori, part, code, logs) -> dict:
    """Columns, one row per launch entry in launch order: its pass, edge (task index), piece and
    pieces, candidates bound, start and end (ms from the first pass's first start) and tree nodes."""
    rows = [(np.full(len(idx), i), idx, log) for i, (idx, log) in enumerate(logs)]
    which, idx, log = (np.concatenate(c) for c in zip(*rows, strict=True))
    code = np.full(len(part), 1 << 16) if code is None else np.asarray(code)
    t0 = int(log[:, 0].min())
    return {"pass": which, "edge": part[idx], "piece": code[idx] & 0xFFFF, "pieces": code[idx] >> 16,
            "bound": ori.bound[part[idx]], "start_ms": (log[:, 0].astype(np.int64) - t0) / 1e6,
            "end_ms": (log[:, 1].astype(np.int64) - t0) / 1e6, "nodes": log[:, 2].astype(np.int64)}


def clique_counts(G: Graph, k_max: int | None = None, **params) -> dict[int, int]:
    """{k: number of k-cliques} for k = 1..k_max (None: up to the clique number)."""
    return kept(G, ("cliquecount",), lambda: Prepared(G)).run(k_max=k_max, timed=False, **params).answer
