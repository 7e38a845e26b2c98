"""Geil et al.'s breadth-first maximum cliques on the GPU: launcher for ``cuda/geil.cu``.

    prep = prepare(G)                                  # (degree, id) order, out-lists, scores (CPU)
    res = prep.run(heuristic="multi-degree", window=0) # the timed phase
    res.answer        # (omega, number of maximum cliques); None when stopped at the time budget
    res.cliques       # with listing=True: every maximum clique (ids of G), sorted
    res.method        # "bfs", "windowed", "bfs+dfs", "windowed+dfs" or "dfs"

The search, step by step:

1. A greedy lower bound ``w`` (the size of a real clique): one warp per seed adds the
   candidate of highest degree (or core number) until none is left; ``single-*`` starts
   from the best vertex, ``multi-*`` from the ``seeds`` best ones (0: every vertex);
   ``none`` starts with ``w = 1``.
2. Vertices whose score + 1 < w cannot be in a clique of size w and are dropped; edges
   point from lower to higher (degree, id); a source whose out-list + 1 < w is dropped.
3. Level 2 is the 2-clique list: (vertexID, sublistID) per oriented edge. Level k -> k+1:
   one thread per entry counts the later entries of its sublist adjacent to it, the
   count is zeroed when k + count < w (only *strictly* smaller: every clique of size w
   survives, so ties are all found), a scan sizes the next level exactly, and a second
   pass writes it. The host enqueues a batch of levels and syncs once a batch
   (``_extend_levels``). The last non-empty level holds every largest clique once.
4. Windows: the sources are cut into windows of about ``window`` level-2 entries; each
   window runs step 3 alone and raises ``w`` for the next.
5. Never wrong, never out of memory: when the next level would pass ``level_bytes``
   (or the graph is denser than ``dense``: then from level ``dfs_depth``; or omega is known and only
   its ties are listed on a graph of density ``TIES_DENSITY`` or more: from level 2), the remaining work
   moves to a depth-first branch and bound on the GPU: one warp per sub-problem (a sublist of the last level
   held, or a source of a later window) with a greedy-colouring bound on bitsets, first
   raising the bound, then listing the ties.
6. ``time_limit_s``: past it the search stops cleanly; the result then says
   ``status == "bound only"`` with the best clique found (``answer`` is None).

The public calls ``max_cliques(G)`` and ``clique_number(G)`` first take the bounds of
``mce_kit.bounds`` (greedy cliques, core, colouring and per-root bounds): ``clique_number`` launches
nothing when they meet, when the graph is dense enough for the complement's vertex cover
(``mce_kit.vertex_cover``), or when at most ``HOST_ROOTS`` roots stay open (the CPU engine searches
them); its route says which. ``max_cliques`` with the bounds met on a sparse core (``TIES_DENSITY``)
lists the omega-cliques with KCMiner (``mce_kit.gpu.kclique``), one launch. Otherwise the search runs
on the (lower - 1)-core with the bounds' clique as its starting ``w`` (``run(lower_clique=, upper=)``);
what the search derives before its levels grow is kept with that prepared core (``run(keep=True)``: the
greedy heuristic's clique, the pruned out-lists, a single window's first two levels), so a warm call starts
at level 3.
``run(progress=True)`` ticks a bar per window (the level and its entries beside it); Ctrl-C between
steps frees the device buffers and raises KeyboardInterrupt naming the best clique found and the
bounds; a list of maximum cliques that would not fit in memory is refused with MemoryError.

``prepare(G, device="cpu")`` runs the same steps with NumPy twins of the kernels (tests
and machines without a GPU).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..bounds import clique_bounds, core_subgraph
from ..cpu.maxclique import colour_order
from ..graph import Graph, check_csr32, positions, sorted_ptr
from ..prepared import OnDevice
from .launch import free_bytes, memory_text, params_dtype, plan_passes, set_params, sm_count
from .timer import CudaTimer

HEURISTICS = ("none", "single-degree", "single-core", "multi-degree", "multi-core")
STRATEGIES = ("auto", "bfs", "dfs")
# dfs_depth: on a graph ``dense`` sends depth first, sub-problems from the 4th level. Against the 3rd,
# warm max_cliques were faster on all 7 such graphs measured (5 G(n, p), p = 0.8-0.95, C125.9 and
# gen200_p0.9_44): 1.1-3.3x where both finished (C125.9 43 against 65 ms, gen200_p0.9_44 166 against
# 411 ms), and the 4th finished G(200, 0.85) and G(200, 0.9) in 1.3 and 2.9 s where the 3rd passed
# 3 s (one H200, 2026-11-27, data/results/logs/geil_dfs_depth_h200_d888736.log); the 5th took
# 0.98-1.19x the 4th's time.
DEFAULTS = dict(heuristic="multi-degree", seeds=0, window=0, level_bytes=4 << 30, dense=0.8,
                strategy="auto", time_limit_s=0.0, warps_per_sm=16, bitmap_max_n=32768, dfs_depth=4,
                max_tasks=1 << 21)
WARPS_PER_BLOCK = 4
THREADS = 256
# Breadth-first levels grow on the device a batch at a time: a count and a write launch a level, then
# one sync reads the batch's level sizes. The first batch has LEVEL_BATCH levels, each next one twice as
# many. A level a sync spent 1.55 of a warm email-Eu-core call's 3.7 ms waiting (17 levels; one H200,
# data/results/logs/geil_levels_h200_9f0b231.log). Batched, warm max_cliques took 0.80-0.93x the time on
# the sparse graphs (email-Eu-core 2.82 against 3.33 ms, socfb-MIT 4.42 against 5.53) and 1.05-1.14x on
# the DIMACS graphs with wide levels (hamming8-4 18.8 against 16.5 ms): one H200, both trees in one
# process (data/results/logs/geil_batched_levels_h200.log). Those levels moved through two or three
# arenas; a kept run's first arena now holds the entries the last run took (``_extend_levels``), and
# warm calls there took 0.71-0.86x 470119a's time (data/results/logs/geil_keep_h200_2d1414e.log).
LEVEL_BATCH = 8
LEVEL_BLOCKS_PER_SM = 8   # the level kernels' grid; each block takes the next tile of a level left
ARENA_MIN_ENTRIES = 1 << 18  # a run's arena holds at least this many entries (8 bytes each)
LEVEL_MAX_ENTRIES = 2**31 - 2  # entries index their parents with int32
HOST_ROOTS = 16  # clique_number: at most this many roots left open by the bounds are searched on the CPU
# max_cliques when the bounds meet (omega known) on a graph at least this dense but below ``dense``:
# only the ties are left, and breadth first's count of later neighbours hardly prunes them. On one H200
# (maxclique_strategy.csv, 2026-11-28) san200_0.7_1 (density 0.70, bounds 30 = 30) took 67 ms breadth
# first (365 million level entries) and 5.7 ms depth first from level 2. Breadth first stays where omega
# is not known (brock200_4, keller4, hamming8-4: 5-9x faster than depth first from level 2) and on
# sparse graphs. There, with omega known (and at most kclique.KMAX), the ties are the omega-cliques,
# which KCMiner lists in one launch (``max_clique_rows``). Warm public calls on one H200 (2026-11-28,
# maxclique_strategy.csv, "auto" against "search"): Email-Enron 3.95 against 8.40 ms, c-fat200-1
# 0.65 against 4.10 ms; on another H200 host the same day the two routes alone took 0.74 against
# 2.76 ms and 0.26 against 2.15 ms (maxclique_descent.csv).
TIES_DENSITY = 0.5
MAX_DFS_CANDIDATES = 32767  # colours and local ids share one 32-bit word in the kernel

# The kernels' launch parameters (same fields, same order as the structs in geil.cu).
PARAMS = params_dtype(
    pointers=("indptr", "indices", "outptr", "adj", "R", "cand", "cand_ptr", "tasks", "scratch", "best",
              "next_task", "flags", "out", "out_pos", "slots", "nodes", "clock0"),
    i8=("scratch_cap", "out_cap", "budget_ns"),
    i4=("n_tasks", "r_len", "mode", "n_workers", "nw", "slot_words"))
HPARAMS = params_dtype(pointers=("indptr", "indices", "score", "seeds", "scratch", "sizes", "record"),
                       i8=("cap",), i4=("n_seeds", "n_workers"))


def scratch_words(p) -> np.ndarray:
    """Scratch words one warp needs for a sub-problem with p candidates (matches bnb_kernel)."""
    p = np.asarray(p, dtype=np.int64)
    W = (p + 31) // 32
    return p * W + (p + 1) * W + 2 * W + 4 * (p + 1) + p * (p + 1) // 2 + 4


@dataclass
class GeilResult:
    answer: tuple | None          # (omega, number of maximum cliques); None unless exact
    omega: int                    # omega when exact, else the best lower bound found
    count: int | None
    cliques: list | None          # listing: every maximum clique, ids of G, each sorted
    best_clique: list             # one largest clique found (ids of G)
    status: str                   # "exact" or "bound only"
    method: str
    levels: list                  # clique-list entries per level, summed over windows
    windows: int
    peak_bytes: int
    omega_hat: int                # the heuristic's bound
    gpu_ms: float
    prep_s: float
    params: dict
    timings: dict = field(default_factory=dict)
    counters: dict = field(default_factory=dict)

    @property
    def exact(self) -> bool:
        return self.status == "exact"

    def row(self) -> dict:
        """Flat columns for a results table."""
        return {"omega": self.omega, "count": self.count, "status": self.status, "method": self.method,
                "levels": len(self.levels), "windows": self.windows, "peak_bytes": self.peak_bytes,
                "omega_hat": self.omega_hat, "entries": int(sum(self.levels)),
                **{f"{k}_ms": v for k, v in self.timings.items()}, **self.counters}


@dataclass
class Prepared:
    """A graph relabelled by (degree, id) with its out-lists and vertex scores (host arrays)."""

    G: Graph
    device: str
    order: np.ndarray       # order[new id] = vertex of G
    indptr: np.ndarray
    indices: np.ndarray
    outptr: np.ndarray      # first later neighbour of each vertex
    o_src: np.ndarray       # oriented edges (sorted by source, then target)
    o_dst: np.ndarray
    degree: np.ndarray
    core: np.ndarray
    by_score: dict          # "degree"/"core" -> vertices by descending score (ties: lower id)
    upper: int              # max core number + 1 >= omega
    density: float
    prep_s: float = 0.0
    names: np.ndarray | None = None  # vertex ids in the caller's graph when G is its reduced core
    on_device: OnDevice = field(default_factory=OnDevice)  # its device copies, uploaded once
    derived: dict = field(default_factory=dict)  # what runs that keep derive, on the host (``_CpuOps``)
    grown: dict = field(default_factory=dict)  # a window -> entries its levels took, where runs keep

    def run(self, *, listing=False, omega_only=False, lower_clique=None, upper=None, progress=None,
            keep=False, **params) -> GeilResult:
        """The search. ``lower_clique`` (ids of G): a clique known already, the starting bound;
        ``upper``: a known upper bound on omega; ``progress``: True or a wrapper of an iterable
        (a bar ticking per window, the level and entries as its postfix); ``keep``: what the search
        derives from the prepared graph and its start before the levels grow (the heuristic's
        clique, the pruned out-lists, a single window's first two levels) is kept with it, and
        later runs that keep take it from there (the public calls: warm max_cliques(email-Eu-core)
        went from 2.39 to 1.19 ms, one H200, ``data/results/logs/geil_keep_h200_2d1414e.log``;
        experiments derive them every run, so their times hold them)."""
        return _run(self, listing=listing, omega_only=omega_only, lower_clique=lower_clique, upper=upper,
                    progress=progress, keep=keep, **params)


def prepare(G: Graph, device: str = "gpu", core=None) -> Prepared:
    """Relabel ``G`` by (degree, id) and build what the search needs (not part of the timed phase).
    ``core``: G's core numbers when known (the bounds' peeling), else they are computed."""
    from ..order import core_numbers

    if device not in ("gpu", "cpu"):
        raise ValueError(f"device must be 'gpu' or 'cpu', got {device!r}")
    if device == "gpu":
        from . import require_gpu

        require_gpu()
    check_csr32(len(G.indices), "Geil")
    t0 = time.perf_counter()
    deg0 = G.degrees().astype(np.int64)
    order = np.lexsort((np.arange(G.n), deg0)).astype(np.int32)
    H = G.relabel(order)
    indptr = np.ascontiguousarray(H.indptr, dtype=np.int32)
    indices = np.ascontiguousarray(H.indices, dtype=np.int32)
    deg = np.diff(indptr).astype(np.int32)
    src = np.repeat(np.arange(H.n, dtype=np.int32), deg)
    later = indices > src
    outptr = (indptr[:-1] + np.bincount(src[~later], minlength=H.n)).astype(np.int32)
    if core is None:
        core = np.asarray(core_numbers(H), dtype=np.int32) if H.n else np.zeros(0, np.int32)
    else:
        core = np.asarray(core, dtype=np.int32)[order]
    ids = np.arange(H.n)
    by_score = {"degree": np.lexsort((ids, -deg.astype(np.int64))).astype(np.int32),
                "core": np.lexsort((ids, -core.astype(np.int64))).astype(np.int32)}
    n = H.n
    return Prepared(G, device, order, indptr, indices, outptr, src[later].copy(), indices[later].copy(),
                    deg, core, by_score, int(core.max()) + 1 if n else 0,
                    2 * G.m / (n * (n - 1)) if n > 1 else 0.0, time.perf_counter() - t0)


# ---- the two back ends: CUDA kernels and their NumPy twins ----


def _read_only(value: tuple) -> tuple:
    """``value`` with its host arrays made read-only: a kept value is shared by every later run."""
    for a in value:
        if isinstance(a, np.ndarray):
            a.flags.writeable = False
    return value


class _GpuOps:
    def __init__(self, prep: Prepared, p: dict):
        import cupy

        from .loader import load_module

        self.xp = cupy
        self.module = load_module("geil.cu")
        self.k = {name: self.module.get_function(name) for name in
                  ("stamp_clock", "build_adj", "greedy_kernel", "level_count", "level_write",
                   "parent_cliques", "bnb_kernel")}
        self.sms = sm_count()
        self.prep = prep
        self.indptr, self.indices, self.outptr = (self.kept(k, getattr(prep, k))
                                                  for k in ("indptr", "indices", "outptr"))
        n = len(prep.degree)
        self.nw = (n + 31) // 32 if 0 < n <= int(p["bitmap_max_n"]) else 0
        self.adj = self.kept(("adj", self.nw), self._adjacency)
        self.base_bytes = self.indptr.nbytes * 2 + self.indices.nbytes + self.adj.nbytes

    def _adjacency(self):
        """The bitmap adjacency rows (nw words a vertex), or one zero word without them."""
        n = len(self.prep.degree)
        adj = self.xp.zeros(max(1, n * self.nw), dtype=self.xp.uint32)
        if self.nw:
            self.k["build_adj"](((n + 127) // 128,), (128,),
                                (self.indptr, self.indices, np.int32(n), np.int32(self.nw), adj))
        return adj

    def kept(self, name, host):
        """A prepared host array's device copy, uploaded (or built) once per prepared graph."""
        return self.prep.on_device.array(name, host)

    def derived(self, name, compute):
        """``compute()`` (a tuple of arrays and numbers), kept with the prepared graph under ``name``
        on this GPU, its bytes counted with the graph's kept state."""
        at = (name, self.xp.cuda.Device().id)
        if at not in self.prep.on_device:
            self.prep.on_device.keep(name, _read_only(compute()))
        return self.prep.on_device[at]

    def asarray(self, a):
        return self.xp.asarray(a)

    def get(self, a):
        return a.get()

    def greedy(self, score, seeds, record=False):
        cp = self.xp
        cap = int(self.prep.degree.max()) + 1
        workers = min(len(seeds), self.sms * 32)
        scratch = cp.empty(workers * 2 * cap, dtype=cp.int32)
        sizes = cp.zeros(len(seeds), dtype=cp.int32)
        rec = cp.zeros(cap + 1, dtype=cp.int32) if record else None
        set_params(self.module, HPARAMS, "H", indptr=self.indptr, indices=self.indices, score=score,
                   seeds=seeds, scratch=scratch, sizes=sizes, record=rec if record else 0, cap=cap,
                   n_seeds=len(seeds), n_workers=workers)
        self.k["greedy_kernel"]((-(-workers // WARPS_PER_BLOCK),), (32 * WARPS_PER_BLOCK,), ())
        if record:
            size = int(sizes[0])
            return size, rec[:size].get()
        return sizes

    def launch(self, name, grid, args):
        self.k[name]((grid,), (THREADS,), args)

    def extend(self, vid, sid, k, w, max_new, room, entries=0):
        """Levels k + 1, k + 2, ... (at most ``max_new``) grown from (vid, sid), the level of k-cliques,
        in arenas of at most ``room`` bytes in all: see ``_extend_levels``."""
        return _extend_levels(self, vid, sid, k, w, max_new, room, entries)

    def cliques(self, levels, parents):
        """The cliques of the last level's entries ``parents`` (int32), a row each: one thread per
        entry walks up its parents (``_parent_cliques`` took two gathers a level)."""
        cp = self.xp
        n, depth = len(parents), len(levels)
        out = cp.empty((n, depth), dtype=cp.int32)
        if n and depth:
            at = cp.asarray(np.array([[v.data.ptr for v, _ in levels],
                                      [0 if s is None else s.data.ptr for _, s in levels]], dtype=np.uint64))
            self.k["parent_cliques"](((n + THREADS - 1) // THREADS,), (THREADS,),
                                     (at[0], at[1], np.int32(depth), parents.astype(cp.int32, copy=False),
                                      np.int64(n), out))
        return out

    def bnb(self, R, r_len, cand, cand_ptr, best, mode, budget_ns, out_cap, warps_per_sm, budget_bytes):
        """One group of sub-problems -> (best clique or None, records, n_records, stopped, bytes, nodes)."""
        cp = self.xp
        ptr = cand_ptr.get() if not isinstance(cand_ptr, np.ndarray) else cand_ptr
        sizes = np.diff(ptr)
        n_sub = len(sizes)
        if n_sub == 0:
            return None, None, 0, False, 0, 0
        if sizes.max() > MAX_DFS_CANDIDATES:
            raise ValueError(f"Geil DFS: a sub-problem has {int(sizes.max())} candidates "
                             f"(at most {MAX_DFS_CANDIDATES})")
        live = np.flatnonzero(sizes + r_len >= int(best[0]) + (1 if mode == 0 else 0))
        if len(live) == 0:
            return None, None, 0, False, 0, 0
        need = scratch_words(sizes[live])
        workers = self.sms * int(warps_per_sm)
        passes = plan_passes({"scratch": need}, workers, budget_bytes, "Geil DFS",
                             lambda i: f"sub-problem with {int(sizes[live[i]])} candidates")
        slot_words = r_len + int(sizes.max()) + 2
        flags = cp.zeros(2, dtype=cp.int32)
        out_pos = cp.zeros(1, dtype=cp.uint64)
        nodes = cp.zeros(1, dtype=cp.uint64)
        clock0 = cp.zeros(1, dtype=cp.uint64)
        size_rec = int(best[0]) if mode == 1 else 1
        out = cp.empty(max(1, out_cap * size_rec), dtype=cp.int32)
        best_slot, peak = None, 0
        for idx, caps, nwork in passes:
            tasks = live[idx]
            tasks = cp.asarray(tasks[np.argsort(-sizes[tasks], kind="stable")].astype(np.int32))
            scratch = cp.empty(nwork * caps["scratch"], dtype=cp.uint32)
            slots = cp.zeros(nwork * slot_words, dtype=cp.int32)
            next_task = cp.zeros(1, dtype=cp.int32)
            self.k["stamp_clock"]((1,), (1,), (clock0,))
            set_params(self.module, PARAMS, indptr=self.indptr, indices=self.indices, outptr=self.outptr,
                       adj=self.adj, R=R, cand=cand, cand_ptr=cp.asarray(ptr), tasks=tasks,
                       scratch=scratch, best=best, next_task=next_task, flags=flags, out=out,
                       out_pos=out_pos, slots=slots, nodes=nodes, clock0=clock0,
                       scratch_cap=caps["scratch"], out_cap=out_cap, budget_ns=budget_ns, n_tasks=len(tasks),
                       r_len=r_len, mode=mode, n_workers=nwork, nw=self.nw, slot_words=slot_words)
            self.k["bnb_kernel"]((-(-nwork // WARPS_PER_BLOCK),), (32 * WARPS_PER_BLOCK,), ())
            peak = max(peak, scratch.nbytes + slots.nbytes + out.nbytes)
            if mode == 0:
                s = slots.reshape(nwork, slot_words)
                i = int(s[:, 0].argmax())
                size = int(s[i, 0])
                if size and (best_slot is None or size > len(best_slot)):
                    best_slot = s[i, 1:1 + size].get()
            if int(flags[0]):
                break
            del scratch, slots
        fl = flags.get()
        if fl[1]:
            raise RuntimeError("Geil DFS: a tie pass found a clique above omega (internal error)")
        n_rec = int(out_pos[0])
        rec = out[: min(n_rec, out_cap) * size_rec].reshape(-1, size_rec).get() if mode == 1 else None
        return best_slot, rec, n_rec, bool(fl[0]), peak, int(nodes[0])


class _CpuOps:
    """NumPy twins of the kernels: the same inputs, outputs and pruning, one entry at a time."""

    xp = np

    def __init__(self, prep: Prepared, p: dict):
        self.prep = prep
        self.sms = 1
        ptr = prep.indptr
        self.nbr = [set(prep.indices[ptr[v]:ptr[v + 1]].tolist()) for v in range(len(prep.degree))]
        self.base_bytes = prep.indptr.nbytes * 2 + prep.indices.nbytes
        self.nw = 0

    def asarray(self, a):
        return np.asarray(a)

    def kept(self, name, host):
        return host

    def derived(self, name, compute):
        if name not in self.prep.derived:
            self.prep.derived[name] = _read_only(compute())
        return self.prep.derived[name]

    def get(self, a):
        return np.asarray(a)

    def cliques(self, levels, parents):
        return _parent_cliques(levels, parents, np)

    def greedy(self, score, seeds, record=False):
        sizes = []
        for s in seeds.tolist():
            clique, cand = [s], sorted(self.nbr[s])
            while cand:
                v = max(cand, key=lambda u: (int(score[u]), -u))
                clique.append(v)
                cand = [u for u in cand if u != v and u in self.nbr[v]]
            sizes.append(len(clique))
            if record:
                return len(clique), np.array(clique, dtype=np.int32)
        return np.array(sizes, dtype=np.int32)

    def _siblings(self, vid, sid, j):
        x = j + 1
        while x < len(sid) and sid[x] == sid[j]:
            yield x
            x += 1

    def count(self, vid, sid, k, w):
        out = np.zeros(len(vid), dtype=np.int32)
        for j in range(len(vid)):
            c = sum(1 for x in self._siblings(vid, sid, j) if vid[x] in self.nbr[vid[j]])
            out[j] = 0 if k + c < w else c
        offsets = np.cumsum(out, dtype=np.int64)
        return out, offsets, int(offsets[-1]) if len(out) else 0

    def write(self, vid, sid, counts, offsets, total):
        nv, ns = np.empty(total, np.int32), np.empty(total, np.int32)
        for j in range(len(vid)):
            if counts[j]:
                pos = offsets[j] - counts[j]
                for x in self._siblings(vid, sid, j):
                    if vid[x] in self.nbr[vid[j]]:
                        nv[pos], ns[pos] = vid[x], j
                        pos += 1
        return nv, ns

    def extend(self, vid, sid, k, w, max_new, room, entries=0):
        """As _GpuOps.extend, a level a step (no arenas: ``entries`` is not needed)."""
        used = 0
        for _ in range(max_new):
            counts, offsets, total = self.count(vid, sid, k, w)
            if total == 0:
                yield [], 0, True
                return
            if 8 * (used + total) > room or total > LEVEL_MAX_ENTRIES:
                yield [], total, False
                return
            vid, sid = self.write(vid, sid, counts, offsets, total)
            used, k = used + total, k + 1
            yield [(vid, sid)], 0, False

    def bnb(self, R, r_len, cand, cand_ptr, best, mode, budget_ns, out_cap, warps_per_sm, budget_bytes):
        slack = 1 if mode == 0 else 0
        best_slot, records, n_rec, nodes = None, [], 0, 0
        ptr = np.asarray(cand_ptr)
        for sub in np.argsort(-np.diff(ptr), kind="stable"):
            C = cand[ptr[sub]:ptr[sub + 1]].tolist()[::-1]  # highest degree first, as in bnb_kernel
            Rs = R[sub * r_len:(sub + 1) * r_len].tolist()
            p = len(C)
            if r_len + p < best[0] + slack:
                continue
            adj = [sum(1 << b for b in range(p) if b != a and C[b] in self.nbr[C[a]]) for a in range(p)]
            stack = [((), (1 << p) - 1)]
            while stack:  # (chosen local ids, candidates); colouring bound as in bnb_kernel
                chosen, P = stack.pop()
                r = r_len + len(chosen)
                nodes += 1
                if not P:
                    if mode == 0 and r > best[0]:
                        best[0] = r
                        best_slot = np.array(Rs + [C[i] for i in chosen], dtype=np.int32)
                    elif mode == 1 and r >= best[0]:
                        if r > best[0]:
                            raise RuntimeError("Geil DFS: a tie pass found a clique above omega")
                        records.append(Rs + [C[i] for i in chosen])
                        n_rec += 1
                    continue
                before = 0
                for v, col in colour_order(adj, P):  # ascending colours; the last pushed pops first
                    if r + col >= best[0] + slack:
                        stack.append(((*chosen, v), before & adj[v]))
                    before |= 1 << v
        rec = np.array(records[:out_cap], dtype=np.int32).reshape(-1, int(best[0])) if mode == 1 else None
        return best_slot, rec, n_rec, False, 0, nodes


def _extend_levels(ops, vid, sid, k, w, max_new, room, entries=0):
    """Grow levels k + 1, ... from (vid, sid) with geil.cu's level kernels (``ops.launch``): yields
    (new levels, need, done) once a batch, after its one sync. ``done``: a level came out empty (not
    yielded). ``need`` > 0 ends the growth: the next level has ``need`` entries, more than ``room`` bytes
    (8 an entry, all levels of this call) allow. Without either, the generator ends after ``max_new``.
    A level passing its arena's capacity is not written; a larger arena takes it, from its counts.
    ``entries``: what these levels took in all when a run grew them before; the first arena holds that
    many (room allowing), so a warm call's levels need no second arena."""
    xp = ops.xp
    graph = (ops.adj, np.int32(ops.nw), ops.indptr, ops.indices, ops.outptr)
    grid, used, cap, counted = ops.sms * LEVEL_BLOCKS_PER_SM, 0, 0, None
    while max_new > 0:   # one run: one arena, one table
        n0, rows = len(vid), min(max_new, 4096)
        cap = min(max(ARENA_MIN_ENTRIES, 4 * n0, 2 * cap, entries), room // 8 - used, LEVEL_MAX_ENTRIES)
        arena_v, arena_s = xp.empty(max(cap, 1), xp.int32), xp.empty(max(cap, 1), xp.int32)
        widest = max(cap, n0, 1)   # a level this run counts: the first, or one in the arena
        scratch = (xp.empty(widest, xp.int32), xp.empty(widest, xp.int64),
                   xp.empty(-(-widest // THREADS), xp.int64))   # counts, local sums, tile sums
        table = np.zeros(2 * (rows + 1) + 5, np.uint64)   # (start, size) a level; (row, need); counters
        table[1] = n0
        if counted is not None:   # row 1: the level that passed the last arena, counted there
            table[3] = counted[1]
        table = ops.asarray(table)
        last, lev, batch = (vid, sid), 0, LEVEL_BATCH
        while True:
            end = min(rows, lev + batch)
            for r in range(lev, end):
                src = (vid, sid) if r == 0 else (arena_v, arena_s)
                at = (table, np.int32(r), np.int32(rows))
                if r == 0 and counted is not None:
                    ops.launch("level_write", grid, (*src, *at, *counted[0], *graph, arena_v, arena_s))
                    continue
                ops.launch("level_count", grid, (*src, *at, np.int32(k + r), np.int32(w), np.int64(cap),
                                                 *graph, *scratch))
                ops.launch("level_write", grid, (*src, *at, *scratch, *graph, arena_v, arena_s))
            t = ops.get(table)   # the batch's one sync
            new = []
            for r in range(lev + 1, end + 1):
                if t[2 * r + 1] == 0:
                    break
                a, b = int(t[2 * r]), int(t[2 * r] + t[2 * r + 1])
                new.append((arena_v[a:b], arena_s[a:b]))
            used += sum(len(v) for v, _ in new)
            last = new[-1] if new else last
            over, need = int(t[2 * rows + 2]), int(t[2 * rows + 3])
            if over:   # row ``over`` did not fit this arena
                if need > LEVEL_MAX_ENTRIES or 8 * (used + need) > room:
                    yield new, need, False
                    return
                yield new, 0, False
                vid, sid = last
                k, max_new, cap = k + over - 1, max_new - (over - 1), max(cap, 4 * need)
                counted = (scratch, need)   # the later rows were empty: the scratch holds its counts
                break
            done = len(new) < end - lev
            yield new, 0, done
            if done or end == rows:
                return
            lev, batch = end, 2 * batch


# ---- the search ----


def _check(params: dict) -> dict:
    unknown = set(params) - set(DEFAULTS)
    if unknown:
        raise TypeError(f"unknown Geil parameter(s): {', '.join(sorted(unknown))}")
    p = {**DEFAULTS, **params}
    if p["heuristic"] not in HEURISTICS:
        raise ValueError(f"heuristic must be one of {HEURISTICS}, got {p['heuristic']!r}")
    if p["strategy"] not in STRATEGIES:
        raise ValueError(f"strategy must be one of {STRATEGIES}, got {p['strategy']!r}")
    for name in ("seeds", "window", "level_bytes", "warps_per_sm", "bitmap_max_n", "dfs_depth", "max_tasks"):
        if int(p[name]) < 0:
            raise ValueError(f"{name} must be >= 0, got {p[name]}")
    if int(p["warps_per_sm"]) == 0:
        raise ValueError("warps_per_sm must be >= 1")
    if int(p["dfs_depth"]) < 2:
        raise ValueError("dfs_depth must be >= 2")
    return p


def windows(olen: np.ndarray, ok: np.ndarray, window: int) -> list[tuple[int, int]]:
    """Source ranges [a, b) holding about ``window`` level-2 entries each (whole sublists)."""
    n = len(olen)
    if not window:
        return [(0, n)] if n else []
    size = np.where(ok, olen, 0)
    cuts, acc, a = [], 0, 0
    for v in np.flatnonzero(size):
        acc += int(size[v])
        if acc >= window:
            cuts.append((a, int(v) + 1))
            a, acc = int(v) + 1, 0
    if a < n:
        cuts.append((a, n))
    return cuts


def _parent_cliques(levels, parents, xp):
    """Vertices of the cliques of ``parents`` (indices into the last level of ``levels``)."""
    cols = []
    p = parents
    for vid, sid in reversed(levels):
        cols.append(vid[p])
        if sid is not None:
            p = sid[p]
    return xp.stack(cols[::-1], axis=1) if cols else xp.empty((len(parents), 0), dtype=xp.int32)


def _run(prep: Prepared, *, listing, omega_only, lower_clique=None, upper=None, progress=None,
         keep=False, **params) -> GeilResult:
    """``_search`` with Ctrl-C handled between steps of the host loop: the device buffers are freed
    and KeyboardInterrupt names the best clique found and the bounds."""
    state = {"best": np.asarray(lower_clique if lower_clique is not None else [], dtype=np.int64),
             "upper": prep.upper if upper is None else min(prep.upper, int(upper)), "bar": None}
    try:
        return _search(prep, state, listing=listing, omega_only=omega_only, lower_clique=lower_clique,
                       progress=progress, keep=keep, **params)
    except KeyboardInterrupt as stop:
        stop.__traceback__ = None  # drop the search's frames, and with them its device arrays
        del stop
        if prep.device == "gpu":
            import cupy

            cupy.get_default_memory_pool().free_all_blocks()
        best = state["best"] if prep.names is None else prep.names[state["best"]]
        best = sorted(best.tolist())
        raise KeyboardInterrupt(f"Geil stopped: omega >= {len(best)} (clique {best}), "
                                f"omega <= {state['upper']}") from None
    finally:
        if state["bar"] is not None:
            state["bar"].close()


def _search(prep: Prepared, state: dict, *, listing, omega_only, lower_clique, progress, keep,
            **params) -> GeilResult:
    p = _check(params)
    G, n = prep.G, len(prep.degree)
    if prep.device == "gpu":   # the kernels' first compile in a process is not search time (time_limit_s)
        from .loader import load_module

        load_module("geil.cu")
    t_start = time.perf_counter()
    limit = float(p["time_limit_s"] or 0)
    base = {**p, "listing": listing, "omega_only": omega_only, "device": prep.device}
    if n == 0 or prep.o_src.size == 0:  # no edges: every vertex is a maximum clique
        omega = 1 if n else 0
        cl = [[int(v)] for v in range(n)] if listing else None
        return GeilResult((omega, n), omega, n, cl, [0] if n else [], "exact", "trivial", [n] if n else [],
                          0, 0, omega, 0.0, prep.prep_s, base)
    gpu = prep.device == "gpu"
    timer = CudaTimer(gpu).start()
    ops = (_GpuOps if gpu else _CpuOps)(prep, p)
    xp = ops.xp
    timings, counters = {}, {}

    def elapsed():
        return time.perf_counter() - t_start

    # 1. greedy lower bound
    h = p["heuristic"]
    by = "core" if h.endswith("core") else "degree"
    score_h = prep.core if by == "core" else prep.degree
    score = ops.kept(("score", by), score_h)
    known = lower_clique is not None and len(lower_clique) >= state["upper"]
    if h == "none" or known:  # no heuristic needed where the clique given meets the upper bound
        w, best_clique = 1, np.array([int(prep.o_src[0])], dtype=np.int32)
    else:
        h_seeds = 1 if h.startswith("single") else (int(p["seeds"]) or n)

        def greedy():
            seeds = ops.asarray(prep.by_score[by][:h_seeds])
            sizes = ops.greedy(score, seeds)
            i = int(xp.argmax(sizes))
            return ops.greedy(score, seeds[i:i + 1], record=True)

        w, best_clique = ops.derived(("start", h, h_seeds), greedy) if keep else greedy()
    if lower_clique is not None and len(lower_clique) > w:  # a clique known before (mce_kit.bounds)
        w, best_clique = len(lower_clique), positions(prep.order)[np.asarray(lower_clique)].astype(np.int32)
    omega_hat = int(w)
    timings["heuristic"] = elapsed() * 1e3
    lower = omega_hat  # size of the best clique known

    def note(clique):  # the best clique so far, for a Ctrl-C message (ids of G)
        if len(clique) > len(state["best"]):
            state["best"] = prep.order[np.asarray(clique, dtype=np.int64)]

    note(best_clique)
    # omega alone and the bound meets the upper bound: done
    if omega_only and lower >= state["upper"]:
        return _finish(prep, ops, p, base, gpu, locals(), lower, None, None, best_clique, "heuristic", [], 0,
                       ops.base_bytes, omega_hat, True, timings, counters)

    # 2. vertex and source pruning, oriented out-lists
    def pruned():
        alive = xp.greater_equal(score, w - 1)
        o_src, o_dst = ops.kept("o_src", prep.o_src), ops.kept("o_dst", prep.o_dst)
        both = alive[o_src] & alive[o_dst]
        es, ed = o_src[both], o_dst[both]
        eptr = ops.get(sorted_ptr(es, n, xp))   # es ascends: o_src is sorted by source
        return es, ed, eptr, n - int(alive.sum())

    es, ed, eptr, counters["vertices_pruned"] = ops.derived(("pruned", by, w), pruned) if keep else pruned()
    olen_h = np.diff(eptr)
    ok_h = olen_h + 1 >= w
    ok_h &= olen_h > 0
    counters["edges_kept"] = int(len(es))

    dense = p["strategy"] == "dfs" or (p["strategy"] == "auto" and p["dense"] and prep.density >= p["dense"])
    # omega known on a graph breadth first would take (half dense, not ``dense``): listing only the ties
    # goes depth first from level 2, where each root's colouring bound prunes (``TIES_DENSITY``)
    ties = (p["strategy"] == "auto" and listing and known and not dense and prep.density >= TIES_DENSITY)
    dense = dense or ties
    dfs_depth = 2 if ties else int(p["dfs_depth"])
    wins = windows(olen_h, ok_h, int(p["window"]))
    level_sizes: list[int] = []
    best_bfs, count_bfs, found = 0, 0, []   # largest size from finished windows, its count, its cliques
    groups = []                              # DFS sub-problem groups (R, r_len, cand, cand_ptr)
    peak = ops.base_bytes + es.nbytes * 2
    stopped = False
    method = "windowed" if len(wins) > 1 else "bfs"
    wi = 0
    if progress:
        from ..maxclique_engine import RootBar

        state["bar"] = RootBar(progress, len(wins), "Geil windows")
    bar = state["bar"]
    budget_levels = int(p["level_bytes"])
    if gpu:
        budget_levels = min(budget_levels, int(0.45 * free_bytes()))
    while wi < len(wins):
        a, b = wins[wi]
        if limit and elapsed() > limit:
            stopped = True
            break
        w_cur = max(w, best_bfs)

        def first_levels(a=a, b=b, w_cur=w_cur):   # the window's sources and their out-edges
            src_ok = ops.asarray(ok_h[a:b] & (olen_h[a:b] + 1 >= w_cur))
            e_s, e_d = es[eptr[a]:eptr[b]], ed[eptr[a]:eptr[b]]
            keep_e = src_ok[xp.subtract(e_s, a)]
            pos1 = xp.subtract(xp.cumsum(src_ok.astype(xp.int32)), 1)
            vid1 = xp.add(xp.flatnonzero(src_ok), a).astype(xp.int32)
            return vid1, e_d[keep_e].astype(xp.int32), pos1[xp.subtract(e_s[keep_e], a)].astype(xp.int32)

        # one window: a warm call keeps its first two levels (more windows would keep their sum)
        window_key = ("levels", by, w, a, b, w_cur)
        vid1, vid, sid = (ops.derived(window_key, first_levels) if keep and len(wins) == 1
                          else first_levels())
        levels = [(vid1, None), (vid, sid)]
        held, widest = vid1.nbytes + vid.nbytes * 2, len(vid)
        k, fallback, done = 2, False, len(vid) == 0
        while not (done or fallback or stopped):
            if dense and k >= dfs_depth:
                fallback = True  # dense: breadth first only splits the work into sub-problems
                break
            if k >= state["upper"]:
                break            # no clique is larger: the next level is empty
            top = dfs_depth if dense else state["upper"]
            room = budget_levels - held
            if p["strategy"] == "bfs":   # no fallback: as far as memory goes
                room = max(room, int(0.9 * free_bytes())) if gpu else 1 << 62
            entries = prep.grown.get(window_key, 0) if keep else 0
            for step in ops.extend(*levels[-1], k, w_cur, top - k, room, entries):
                new, need, done = step
                levels += new
                k += len(new)
                held += sum(8 * len(v) for v, _ in new)
                widest = max([widest] + [len(v) for v, _ in new])
                peak = max(peak, ops.base_bytes + es.nbytes * 2 + held + 12 * widest)
                if need and p["strategy"] == "bfs":
                    raise MemoryError(f"Geil BFS: level {k + 1} needs {memory_text(8 * need)} "
                                      f"(strategy='bfs' does not fall back)")
                fallback = bool(need)
                if bar is not None:
                    bar.postfix(window=wi + 1, level=k, entries=len(levels[-1][0]))
                if limit and elapsed() > limit:
                    stopped = True
                    break
        if stopped:
            break
        while len(level_sizes) < len(levels):
            level_sizes.append(0)
        for i, (v_, _) in enumerate(levels):
            level_sizes[i] += int(len(v_))
        if fallback:
            # the sublists of the deepest level j with at most max_tasks of them become
            # sub-problems: R = the parent's clique (j - 1 vertices), C = the sublist
            j = max([2] + [i for i in range(3, k + 1) if len(levels[i - 2][0]) <= int(p["max_tasks"])])
            vj, sj = levels[j - 1]
            starts = xp.flatnonzero(xp.concatenate([xp.ones(1, dtype=bool), sj[1:] != sj[:-1]]))
            parents = sj[starts]
            R = ops.cliques(levels[:j - 1], parents).astype(xp.int32).ravel()
            ptr = np.concatenate([ops.get(starts), [len(vj)]]).astype(np.int64)
            groups.append((R, j - 1, vj, ptr))
            counters["dfs_level"] = j
            wi += 1
            if bar is not None:
                bar.update(1)
            if dense:
                continue
            method = ("windowed" if len(wins) > 1 else "bfs") + "+dfs"
            break
        L = len(levels) if len(levels[-1][0]) else len(levels) - 1
        if L >= max(2, w_cur):
            if L > best_bfs:
                best_bfs, count_bfs, found = L, 0, []
            last = levels[L - 1][0]
            count_bfs += int(len(last))
            if listing or not found:
                M = ops.cliques(levels[:L], xp.arange(len(last), dtype=xp.int32))
                found.append(ops.get(M) if listing else ops.get(M[:1]))
                note(found[0][0])
        wi += 1
        if bar is not None:
            bar.update(1)
        if keep:   # the next run's first arena (_extend_levels)
            prep.grown[window_key] = sum(len(v) for v, _ in levels[2:])
        del levels
    if stopped:
        return _finish(prep, ops, p, base, gpu, locals(), max(lower, best_bfs), None, None,
                       _best(best_clique, found, best_bfs), method, level_sizes, len(wins), peak, omega_hat,
                       False, timings, counters)
    if dense:
        method = "dfs"
    if wi < len(wins) and groups:
        # the sources of the windows not run breadth first: R = [s], C = its out-list
        a = wins[wi][0] if wins else 0
        cand = ed[eptr[a]:]
        ptr = (eptr[a:] - eptr[a]).astype(np.int64)
        groups.append((xp.arange(a, n, dtype=xp.int32), 1, cand.astype(xp.int32), ptr))
    timings["bfs"] = elapsed() * 1e3 - timings["heuristic"]
    omega, count, cliques = best_bfs, count_bfs, found
    best_known = max(lower, best_bfs)
    if groups:
        bnb_budget = int(0.4 * free_bytes()) if gpu else 1 << 40
        best = xp.array([best_known], dtype=xp.int32)
        nodes = 0
        for R, r_len, cand, ptr in groups:
            remaining = limit - elapsed() if limit else 0
            if limit and remaining <= 0:
                stopped = True
                break
            slot, _, _, stop_, pk, nd = ops.bnb(R, r_len, cand, ptr, best, 0, int(remaining * 1e9), 0,
                                                p["warps_per_sm"], bnb_budget)
            nodes += nd
            peak = max(peak, ops.base_bytes + pk)
            if slot is not None and len(slot) > len(best_clique):
                best_clique = slot
                note(slot)
            if bar is not None:
                bar.postfix(dfs="bound", best=int(best[0]))
            if stop_:
                stopped = True
                break
        omega_dfs = int(best[0])
        counters["dfs_nodes"] = nodes
        if stopped:
            return _finish(prep, ops, p, base, gpu, locals(), omega_dfs, None, None,
                           _best(best_clique, found, best_bfs), method, level_sizes, len(wins), peak,
                           omega_hat, False, timings, counters)
        omega = max(omega_dfs, best_bfs)
        if omega > best_bfs:
            count, cliques = 0, []
        if omega_only:
            count = None
        else:
            cap = 1 << 16 if listing else 0
            for R, r_len, cand, ptr in groups:
                while True:
                    remaining = limit - elapsed() if limit else 0
                    if limit and remaining <= 0:
                        stopped = True
                        break
                    best[0] = omega
                    _, rec, n_rec, stop_, pk, nd = ops.bnb(R, r_len, cand, ptr, best, 1, int(remaining * 1e9),
                                                           cap, p["warps_per_sm"], bnb_budget)
                    counters["dfs_nodes"] += nd
                    peak = max(peak, ops.base_bytes + pk)
                    if stop_:
                        stopped = True
                        break
                    if listing and n_rec > cap:
                        _room(count + n_rec, omega, gpu)
                        cap = n_rec  # the kernel counted what it needed: run the group again
                        continue
                    break
                if stopped:
                    break
                if bar is not None:
                    bar.postfix(dfs="ties", found=count + n_rec)
                count += n_rec
                if listing and n_rec:
                    cliques.append(rec)
            if stopped:
                return _finish(prep, ops, p, base, gpu, locals(), omega, None, None,
                               _best(best_clique, found, best_bfs), method, level_sizes, len(wins), peak,
                               omega_hat, False, timings, counters)
        timings["dfs"] = elapsed() * 1e3 - timings["heuristic"] - timings["bfs"]
    if omega < lower:
        raise RuntimeError(f"Geil: search found omega {omega} below the heuristic's clique {lower} "
                           "(internal error; please report)")
    clique_list = None
    if listing and not omega_only:
        _room(count, omega, False)
        rows = [c for c in cliques if len(c)]
        M = np.concatenate(rows) if rows else np.empty((0, omega), np.int32)
        M = np.sort(prep.order[M], axis=1)
        clique_list = sorted(M.tolist())
    return _finish(prep, ops, p, base, gpu, locals(), omega, count, clique_list,
                   _best(best_clique, found, omega), method, level_sizes, len(wins), peak, omega_hat, True,
                   timings, counters)


def _room(n_cliques: int, omega: int, device: bool) -> None:
    """MemoryError, before any shortage, where ``n_cliques`` maximum cliques would not fit as the
    Python list returned (and, with ``device``, as the kernel's records in free device memory)."""
    from ..bounds import MEMORY_SHARE, bytes_per_clique
    from ..config import available_bytes

    need, have = n_cliques * bytes_per_clique(omega), MEMORY_SHARE * available_bytes()
    if need > have:
        raise MemoryError(f"Geil max_cliques: {n_cliques:,} maximum cliques of size {omega} need "
                          f"{need / 2**30:.2f} GiB as lists; {have / 2**30:.2f} GiB allowed "
                          f"({MEMORY_SHARE:.0%} of what is available). clique_number(G) gives omega alone")
    if device and 4 * n_cliques * omega > 0.8 * free_bytes():
        raise MemoryError(f"Geil max_cliques: {n_cliques:,} maximum cliques of size {omega} need "
                          f"{4 * n_cliques * omega / 2**30:.2f} GiB of device memory; "
                          f"{free_bytes() / 2**30:.2f} GiB free")


def _best(best_clique, found, size):
    """The largest clique known: the heuristic's or DFS's, or the first of the BFS's of ``size``."""
    if found and size > len(best_clique):
        return np.asarray(found[0][0])
    return np.asarray(best_clique)


def _finish(prep, ops, p, base, gpu, scope, omega, count, cliques, best_clique, method, levels, n_windows,
            peak, omega_hat, exact, timings, counters):
    best_ids = sorted(prep.order[np.asarray(best_clique, dtype=np.int64)].tolist())
    gpu_ms = (time.perf_counter() - scope["t_start"]) * 1e3
    params = dict(base)
    if gpu:
        gpu_ms = scope["timer"].stop()
        k = ops.k["bnb_kernel"]
        params.update(sms=ops.sms, workers=ops.sms * int(p["warps_per_sm"]), regs=k.num_regs,
                      spill_bytes=k.local_size_bytes, build="default")
    else:
        params.update(sms=0, workers=1, regs=0, spill_bytes=0, build="numpy")
    exact_count = count if exact else None
    return GeilResult(
        answer=(int(omega), exact_count) if exact else None, omega=int(omega), count=exact_count,
        cliques=cliques, best_clique=best_ids, status="exact" if exact else "bound only", method=method,
        levels=list(levels), windows=n_windows, peak_bytes=int(peak), omega_hat=int(omega_hat), gpu_ms=gpu_ms,
        prep_s=prep.prep_s, params=params, timings=timings, counters=counters)


def _bounded(G: Graph, device: str):
    """(bounds of G, the subgraph holding every maximum clique, its vertices' ids in G, the bounds'
    clique in the subgraph's ids): the (lower - 1)-core of G (mce_kit.bounds; on the GPU,
    gpu.bounds, so that the process needs no Numba)."""
    if device == "gpu":
        from .bounds import clique_bounds as on_gpu

        b = on_gpu(G)
    else:
        b = clique_bounds(G)
    H, ids = core_subgraph(G, b.core, b.lower - 1)
    rank = np.full(G.n, -1, dtype=np.int64)
    rank[ids] = np.arange(len(ids))
    return b, H, ids, rank[b.clique]


def _bounds(G: Graph, device: str):
    """``_bounded(G, device)``, kept with ``G`` (``mce_kit.prepared``)."""
    from ..prepared import kept

    return kept(G, ("geil-bounds", device), lambda: _bounded(G, device))


def _prepared(G: Graph, device: str):
    """(bounds, the prepared reduced core, its ids in G, the start clique), kept with ``G``
    (``mce_kit.prepared``): a warm call goes straight to the search."""
    from ..prepared import kept

    b, H, ids, start = _bounds(G, device)

    def build():   # a vertex's core number in the (lower - 1)-core H is its core number in G
        prep = prepare(H, device, core=b.core[ids])
        prep.names = ids
        prep.on_device = OnDevice(G, ("geil", device))   # its uploads count in G's kept bytes
        return prep

    return b, kept(G, ("geil", device), build), ids, start


def _stopped(res: GeilResult, b, params) -> TimeoutError:
    return TimeoutError(f"Geil: bound only: omega >= {res.omega} (clique {res.best_clique}), "
                        f"omega <= {b.upper}; stopped at the time budget of {params.get('time_limit_s')} s")


def max_cliques(G: Graph, device: str = "gpu", progress=None, **params) -> tuple[int, list[list[int]]]:
    """(omega, every maximum clique as sorted vertex ids of ``G``); TimeoutError when stopped early.
    The search runs on the (lower - 1)-core of the bounds, starting from their clique."""
    omega, rows = max_clique_rows(G, device, progress, **params)
    return omega, rows.tolist()


def max_clique_rows(G: Graph, device: str = "gpu", progress=None, **params) -> tuple[int, np.ndarray]:
    """``max_cliques`` as an int64 array: a row of ascending vertex ids per maximum clique, the rows
    in ascending order (a caller relabels them in one gather: thousands of cliques as Python lists
    cost about a millisecond each way)."""
    if G.n == 0:
        return 0, np.empty((0, 0), np.int64)
    b, H, ids, start = _bounds(G, device)
    if b.exact and len(ids) == b.lower:  # the reduced core is the bounds' clique itself: the only one
        return b.lower, np.sort(ids).astype(np.int64)[None, :]
    if b.exact and not params and device == "gpu" and _ties_by_kcminer(H, b.lower):
        from . import kclique

        M = kclique.prepared(H).run(k=b.lower, listing=True, progress=progress).cliques
        return b.lower, _sorted_rows(ids, M)
    prep = _prepared(G, device)[1]
    res = prep.run(listing=True, lower_clique=start, upper=b.upper, progress=progress, keep=True,
                   **params)
    if not res.exact:
        res.best_clique = sorted(ids[res.best_clique].tolist())
        raise _stopped(res, b, params)
    if res.omega == 1:  # no edges: every vertex of G is a maximum clique
        return 1, np.arange(G.n, dtype=np.int64)[:, None]
    M = np.asarray(res.cliques, dtype=np.int64).reshape(len(res.cliques), res.omega)
    return res.omega, _sorted_rows(ids, M)


def _ties_by_kcminer(H: Graph, omega: int) -> bool:
    """Whether the maximum cliques of the reduced core ``H``, omega known, are listed as its
    omega-cliques by KCMiner (one launch; ``TIES_DENSITY`` says where and why)."""
    from .kclique import KMAX

    return 3 <= omega <= KMAX and 2 * H.m < TIES_DENSITY * H.n * (H.n - 1)


def _sorted_rows(ids: np.ndarray, M: np.ndarray) -> np.ndarray:
    """Rows of ``M`` (ids of the reduced core) as ascending ids of G, the rows in ascending order."""
    rows = np.sort(np.asarray(ids, dtype=np.int64)[M], axis=1)
    return rows[np.lexsort(rows.T[::-1])]


def clique_number(G: Graph, device: str = "gpu", progress=None, with_route: bool = False, **params):
    """omega alone: the bounds when they meet, or on a dense graph the complement's vertex cover
    (``mce_kit.vertex_cover``; neither launches a kernel), else the search on the reduced core.
    When the bounds' ego pass leaves at most ``HOST_ROOTS`` roots open, the CPU engine searches those
    (no kernel either). ``with_route``: (omega, "bounds" | "complement" | "roots" | "search")."""
    omega, route = _clique_number(G, device, progress, params)
    return (omega, route) if with_route else omega


def _clique_number(G: Graph, device: str, progress, params: dict):
    b, _, ids, start = _bounds(G, device)
    if b.exact:
        return b.lower, "bounds"
    from ..vertex_cover import omega_above_bounds

    found = omega_above_bounds(G, b)
    if found is not None:
        return found[0], "complement"
    if b.open_roots is not None and b.open_roots <= HOST_ROOTS:  # a few roots: the CPU engine's search
        from ..maxclique_engine import omega_and_clique

        return omega_and_clique(G, bounds=b)[0], "roots"
    prep = _prepared(G, device)[1]
    res = prep.run(omega_only=True, lower_clique=start, upper=b.upper, progress=progress, keep=True,
                   **params)
    if not res.exact:
        res.best_clique = sorted(ids[res.best_clique].tolist())
        raise _stopped(res, b, params)
    return res.omega, "search"
