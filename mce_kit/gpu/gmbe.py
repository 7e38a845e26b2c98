"""GMBE+ on the GPU: launcher for ``cuda/gmbe.cu`` (maximal bicliques).

    prep = prepare(B)                        # V in degree order, 2-hop sizes, node_buf bounds (CPU)
    res = prep.run(tau=32, warps_per_sm=16)  # H2D graph, kernel, count back (timed phase)
    res.answer, res.gpu_ms, res.row()
    prep.run(seeds=idx)                      # only those roots (indices into prep.seeds, V by rank)

Every option is a run-time argument (the module is compiled once): ``level`` "block" (one block
per seed; the default, the fastest on an H200), "gmbe+" (warp workers with load-aware task splitting
on the two-level queue) or "warp" (one warp per seed); ``prune`` and ``bitmap`` switch the paper's
techniques off for its ablations; ``union`` builds each seed's 2-hop set by "scatter" (a per-worker
bitmap over V, read back in order; the default), "merge" (the paper's warp-wide merge-path union,
list by list) or "serial" (one thread merges: the w/o-UNION ablation; True and False mean "scatter"
and "serial"); ``tau`` is the bitmap threshold, ``bound_height``/``bound_size`` the split
thresholds, ``min_left``/``min_right`` count only bicliques with at least that many vertices in
U / V; ``donate`` "idle" (the default: while workers are idle and the global queue is empty, a busy
worker hands the remaining children of the shallowest node of its path to them as snapshot
sub-tasks; levels gmbe+ and block), "always" (at every look: tests) or "off" (the paper's design).
Unknown names raise TypeError.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field

import numpy as np

from ..graph import BipartiteGraph, check_csr32
from ..prepared import OnDevice
from . import require_gpu
from .launch import (
    free_bytes,
    params_dtype,
    pick_tasks,
    plan_key,
    plan_passes,
    set_params,
    sm_count,
    with_kept_plan,
)
from .loader import build_name, load_module
from .timer import CudaTimer

F_PRUNE, F_BITMAP, F_SPLIT, F_UNION, F_LIST, F_SCATTER, F_DONATE, F_DONATE_ALL = 1, 2, 4, 8, 16, 32, 64, 128
ERR_QUEUE = 1
WARPS_PER_BLOCK = 4
LEVELS = ("gmbe+", "warp", "block")
UNIONS = ("scatter", "merge", "serial")
DONATE = ("idle", "always", "off")
DONATE_LEVELS = ("gmbe+", "block")  # the levels whose workers give children away ("warp": one warp per seed)
DONATE_QUEUE = 1 << 21  # global-queue entries kept for donated children (a full queue: no more donations)
SNAP_SLOTS = 1 << 15      # snapshots of donated nodes the pool holds (each as large as the largest seed's)
SNAP_HDR = 4
STATS = ("count", "nodes", "failed", "pruned", "seeds", "subtasks", "splits", "cycles", "t0", "t1", "sm",
         "bitmaps", "setup", "donations")
NSTAT = len(STATS)
_DEFINES: dict = {}  # compile-time settings (kept empty in normal use; benchmarks may probe)
DEFAULTS = dict(level="block", tau=32, bound_height=20, bound_size=1500, warps_per_sm=16, prune=True,
                bitmap=True, union="scatter", donate="idle", min_left=1, min_right=1)

# The kernel's launch parameters, ``struct Params`` in gmbe.cu (same fields, same order).
PARAMS = params_dtype(
    pointers=("u_indptr", "u_indices", "v_indptr", "v_indices", "seeds", "seed_nw", "seed_p2", "buf", "arena",
              "arena_off", "vmap", "gq", "ctrl", "next", "stats", "list", "list_pos", "list_overflow",
              "snap"),
    i8=("buf_cap", "gq_cap", "list_cap", "bound_size", "vmap_words", "snap_cap"),
    i4=("n_seeds", "tau", "tw", "flags", "n_workers", "bound_height", "min_left", "min_right"))


def node_buf_words(nL, nW, p2, tw):
    """Words of one task's node_buf for a seed with |L*| = nL, |N2 ∪ {s}| = nW, 2-paths p2 (as gmbe.cu)."""
    nL, nW, p2 = (np.asarray(x, dtype=np.int64) for x in (nL, nW, p2))
    lcap = np.minimum(nL, nW) + 2
    return 4 * nL + 7 * nW + 2 + nW * tw + p2 + lcap * (4 + tw)


def snap_units(nL, nW):
    """32-word units of a donated node's snapshot for a seed with |L*| = nL, |N2 ∪ {s}| = nW (gmbe.cu)."""
    return -(-(SNAP_HDR + np.asarray(nW, dtype=np.int64) + np.asarray(nL, dtype=np.int64)) // 32)


def arena_words(nW, p2):
    """Words of a splittable seed's arena slot: |W|, |R*|, W, off, adj and the root's states, rounded up
    to 128-byte lines (no two slots share a cache line: no SM keeps a stale copy of a slot written later)."""
    w = 3 + 3 * np.asarray(nW, dtype=np.int64) + np.asarray(p2, dtype=np.int64)
    return -(-w // 32) * 32


def no_reuse_words(nL, nW, depth):
    """Words held by a search that allocates every node on its path: depth x (|L*| + |W|) (Sec III-A)."""
    return (np.asarray(depth, dtype=np.int64) + 1) * (np.asarray(nL, dtype=np.int64) + np.asarray(nW))


@dataclass
class GMBEResult:
    answer: int
    params: dict
    gpu_ms: float
    prep_s: float
    device_bytes: int
    stats: np.ndarray  # workers x NSTAT (u64)
    passes: int = 1
    queue_full: bool = False
    bicliques: list | None = None

    @property
    def count(self) -> int:
        return self.answer

    def totals(self) -> dict:
        s = self.stats.astype(np.float64)
        sums = {k: int(self.stats[:, i].sum()) for i, k in enumerate(STATS) if k not in ("t0", "t1", "sm")}
        busy = s[:, 7]
        return sums | {"max_over_mean_cycles": float(busy.max() / busy.mean()) if busy.mean() else 1.0}

    def sm_activity(self) -> tuple[np.ndarray, np.ndarray]:
        """(SM id, [first start, last end] in ns from the kernel's first start) of each SM's workers."""
        t0, t1, sm = self.stats[:, 8], self.stats[:, 9], self.stats[:, 10].astype(np.int64)
        used = t1 > 0
        base = t0[used].min() if used.any() else 0
        ids = np.unique(sm[used])
        span = np.array([[t0[used & (sm == i)].min() - base, t1[used & (sm == i)].max() - base]
                         for i in ids], dtype=np.int64).reshape(-1, 2)
        return ids, span

    def row(self) -> dict:
        t = self.totals()
        keys = ("nodes", "failed", "pruned", "seeds", "subtasks", "splits", "donations", "bitmaps", "cycles",
                "setup")
        return {**{k: t[k] for k in keys},
                "max_over_mean_cycles": round(t["max_over_mean_cycles"], 3),
                "device_bytes": self.device_bytes,
                "passes": self.passes, "queue_full": self.queue_full}


@dataclass
class Prepared:
    """A bipartite graph with V in ascending degree order and the per-seed node_buf bounds (host)."""

    B: BipartiteGraph
    order: np.ndarray  # order[rank] = original V index
    u_indptr: np.ndarray
    u_indices: np.ndarray
    v_indptr: np.ndarray
    v_indices: np.ndarray
    seeds: np.ndarray  # V ranks with degree > 0
    nw: np.ndarray     # |N2(s) ∪ {s}| per seed
    p2: np.ndarray     # 2-paths from s per seed
    prep_s: float = 0.0
    memo: dict = field(default_factory=dict)   # launch plans kept for warm calls (``_run``)
    device: OnDevice = field(default_factory=OnDevice)  # the CSRs on the GPU, each uploaded once

    @functools.cached_property
    def seed_deg(self) -> np.ndarray:
        """|N(s)| of each seed (int64)."""
        return np.diff(self.v_indptr)[self.seeds].astype(np.int64)

    def need_words(self, tau: int) -> np.ndarray:
        return node_buf_words(self.seed_deg, self.nw, self.p2, _tw(tau))

    def run(self, *, listing=False, max_buffer_bytes=None, queue_cap=None, seeds=None, timed=True,
            **params) -> GMBEResult:
        """One timed launch (``timed=False``: no events, ``gpu_ms`` None). ``max_buffer_bytes`` caps
        the node_bufs (more passes / fewer workers); ``queue_cap`` caps the global task queue (a seed
        that finds it full runs its sub-tasks in place); ``seeds`` (indices into ``self.seeds``) runs
        only those roots: every maximal biclique is found from one root (its earliest vertex of V), so
        the counts of disjoint root sets add up."""
        return _run(self, listing=listing, max_buffer_bytes=max_buffer_bytes, queue_cap=queue_cap,
                    seeds=seeds, timed=timed, **params)


def _tw(tau: int) -> int:
    return max(1, -(-int(tau) // 32))


def prepare(B: BipartiteGraph, device: str = "auto") -> Prepared:
    """Number V by (degree, id), build both CSRs and each seed's 2-hop size (not part of the timed
    phase). Where a GPU answers (``device="auto"``) all of it runs there, the 2-hop sizes by
    ``two_hop_sizes``; "cpu": the same steps in NumPy, the 2-hop sizes compiled or by SciPy (the
    oracle). The arrays are equal either way."""
    from ..accel import to_host, use_compiled, use_gpu

    if not isinstance(B, BipartiteGraph):
        raise TypeError(f"gmbe.prepare needs a BipartiteGraph, got {type(B).__name__}")
    check_csr32(B.m, "GMBE+")
    t0 = time.perf_counter()
    on_gpu = OnDevice(B, ("gmbe",))   # the key prepared() keeps it under
    if use_gpu(B.m, device, least=0):
        import cupy

        order, u_ptr, u_idx, v_ptr, v_idx, deg_r, p2_all = _csrs(B, cupy)
        nw_all = two_hop_sizes(v_ptr, v_idx, u_ptr, u_idx)
        seeds = cupy.flatnonzero(deg_r).astype(cupy.int32)
        for name, a in (("u_indptr", u_ptr), ("u_indices", u_idx), ("v_indptr", v_ptr), ("v_indices", v_idx)):
            on_gpu.keep(name, a)   # the launch's CSRs, already there
        order, u_ptr, u_idx, v_ptr, v_idx, seeds, nw, p2 = to_host(
            order, u_ptr, u_idx, v_ptr, v_idx, seeds, nw_all[seeds], p2_all[seeds])
    else:
        order, u_ptr, u_idx, v_ptr, v_idx, deg_r, p2_all = _csrs(B, np)
        if use_compiled(int(p2_all.sum())):   # the rows of A^T A, counted without forming it
            from ..compiled import two_hop_sizes as compiled_two_hop_sizes

            nw_all = compiled_two_hop_sizes(v_ptr, v_idx, u_ptr, u_idx)
        else:
            import scipy.sparse as sp

            A = sp.csr_matrix((np.ones(B.m, dtype=np.int32), u_idx, u_ptr), shape=(B.n_u, B.n_v))
            nw_all = np.diff((A.T @ A).tocsr().indptr)
        seeds = np.flatnonzero(deg_r > 0).astype(np.int32)
        nw, p2 = nw_all[seeds], p2_all[seeds]
    return Prepared(B, order, u_ptr, u_idx, v_ptr, v_idx, seeds, nw.astype(np.int32), p2.astype(np.int64),
                    prep_s=time.perf_counter() - t0, device=on_gpu)


def _csrs(B: BipartiteGraph, xp):
    """(order of V, U -> V CSR with V as ranks, V (by rank) -> U CSR, V's degrees by rank, 2-paths
    from each V rank) of ``B``, int32 CSRs with sorted rows, on NumPy or CuPy (``xp``)."""
    from ..graph import neighbours_of, rows_of
    from .sort import argsort, pair_bits, sort

    u_ptr, u_idx = xp.asarray(B.u_indptr, dtype=xp.int64), xp.asarray(B.u_indices, dtype=xp.int64)
    v_ptr, v_idx = xp.asarray(B.v_indptr, dtype=xp.int64), xp.asarray(B.v_indices, dtype=xp.int64)
    deg_v = xp.diff(v_ptr)
    wide = pair_bits(max(B.n_u, B.n_v))   # degrees of V and rows of U, over ranks of V
    order = argsort(xp.left_shift(deg_v, 32) | xp.arange(B.n_v, dtype=xp.int64), wide)   # by (degree, id)
    rank = xp.empty(B.n_v, dtype=xp.int64)
    rank[order] = xp.arange(B.n_v, dtype=xp.int64)
    key = sort(xp.left_shift(rows_of(u_ptr, xp), 32) | rank[u_idx], wide)   # rows kept, columns renamed
    u_idx = xp.bitwise_and(key, 0xFFFFFFFF).astype(xp.int32)
    deg_r = deg_v[order]
    v_ptr_r = xp.concatenate([xp.zeros(1, dtype=xp.int64), xp.cumsum(deg_r)])
    v_idx = neighbours_of(v_ptr, v_idx, order, xp).astype(xp.int32)
    walk = xp.concatenate([xp.zeros(1, dtype=xp.int64), xp.cumsum(xp.diff(u_ptr)[v_idx])])
    p2 = walk[v_ptr_r[1:]] - walk[v_ptr_r[:-1]]   # each V rank's 2-paths: a sum over its row
    return order, u_ptr.astype(xp.int32), u_idx, v_ptr_r.astype(xp.int32), v_idx, deg_r, p2


TWO_HOP_MARK_BYTES = 64 << 20   # the bitmaps of two_hop_sizes' warps, at most


def two_hop_sizes(a_ptr, a_idx, b_ptr, b_idx):
    """``compiled.two_hop_sizes`` on the GPU (``cuda/gmbe.cu``): for each vertex v of side A, how many
    vertices of A share a neighbour with it, v included (0 without neighbours). A CuPy array (int64)."""
    import cupy

    n_a = len(a_ptr) - 1
    words = max(1, -(-n_a // 32))
    warps = -(-int(max(1, min(n_a, 8192, TWO_HOP_MARK_BYTES // (4 * words)))) // 4) * 4   # 4 per block
    d = [cupy.asarray(x, dtype=cupy.int32) for x in (a_ptr, a_idx, b_ptr, b_idx)]
    marks = cupy.zeros(warps * words, dtype=cupy.uint32)
    out = cupy.zeros(max(n_a, 1), dtype=cupy.int64)
    kernel = load_module("gmbe.cu", defines=_DEFINES).get_function("two_hop_sizes")
    kernel((warps // 4,), (128,), (*d, np.int32(n_a), np.int32(warps), marks, np.int64(words), out))
    return out[:n_a]


def _check(params: dict) -> dict:
    unknown = set(params) - set(DEFAULTS)
    if unknown:
        raise TypeError(f"unknown GMBE+ parameter(s): {', '.join(sorted(unknown))}")
    p = {**DEFAULTS, **params}
    if p["union"] is True or p["union"] is False:
        p["union"] = "scatter" if p["union"] else "serial"
    if p["union"] not in UNIONS:
        raise ValueError(f"union must be one of {', '.join(UNIONS)} (or True / False), got {p['union']!r}")
    if p["level"] not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, got {p['level']!r}")
    if p["donate"] not in DONATE:
        raise ValueError(f"donate must be one of {', '.join(DONATE)}, got {p['donate']!r}")
    for k in ("tau", "bound_height", "bound_size", "min_left", "min_right"):
        if int(p[k]) < 0:
            raise ValueError(f"{k} must be >= 0, got {p[k]}")
    if not 1 <= int(p["tau"]) <= 1024 and p["bitmap"]:
        raise ValueError(f"tau must be in 1..1024, got {p['tau']}")
    if not 1 <= int(p["warps_per_sm"]) <= 64:
        raise ValueError(f"warps_per_sm must be in 1..64, got {p['warps_per_sm']}")
    return p


def plan(prep: Prepared, p: dict, n_workers: int, budget: int, seeds=None):
    """[(seed indices, words per worker, workers)]: passes whose node_bufs fit ``budget`` bytes
    (of the roots ``seeds``, indices into ``prep.seeds``; None: all of them)."""
    pick = np.arange(len(prep.seeds)) if seeds is None else np.asarray(seeds, dtype=np.int64)
    need = prep.need_words(p["tau"])[pick]

    def describe(j):
        i = pick[j]
        return (f"seed v={int(prep.order[prep.seeds[i]])} (|N(v)|="
                f"{int(prep.seed_deg[i])}, |N2|={int(prep.nw[i])})")

    passes = plan_passes({"buf": need}, n_workers, budget, "GMBE+", describe)
    return [(pick[idx], caps["buf"], workers) for idx, caps, workers in passes]


def donates(p: dict) -> bool:
    """Whether the workers of this setting give the rest of a node's children to idle workers."""
    return p["level"] in DONATE_LEVELS and p["donate"] != "off"


def may_split(prep: Prepared, idx: np.ndarray, p: dict) -> np.ndarray:
    """Which of the seeds ``idx`` may split into root sub-tasks (level gmbe+; the kernel's test with
    |C| <= |N2| - 1)."""
    if p["level"] != "gmbe+" or not len(idx):
        return np.zeros(len(idx), dtype=bool)
    deg = prep.seed_deg[idx]
    c = prep.nw[idx].astype(np.int64) - 1
    h = np.minimum(deg, c)
    return (h > p["bound_height"]) & (h * c > p["bound_size"])


def gets_slot(prep: Prepared, idx: np.ndarray, p: dict, may: np.ndarray | None = None) -> np.ndarray:
    """Which of the seeds ``idx`` want an arena slot (2-hop set, local neighbourhoods, root states, read by
    sub-tasks): those that may split (``may``, if known), and where workers donate every seed with >= 2
    candidates and |N(v)| >= 2 (a tree below the root)."""
    may = may_split(prep, idx, p) if may is None else may.copy()
    if donates(p) and len(idx):
        may |= (prep.seed_deg[idx] >= 2) & (prep.nw[idx].astype(np.int64) - 1 >= 2)
    return may


def queue_bound(prep: Prepared, idx: np.ndarray, p: dict, may: np.ndarray | None = None) -> int:
    """Global-queue entries for the seeds ``idx``: every root sub-task of level gmbe+ (|C| <= |N2| - 1
    for each seed that may split; ``may``, if known), plus DONATE_QUEUE for donated children where
    workers donate."""
    may = may_split(prep, idx, p) if may is None else may
    return int((prep.nw[idx].astype(np.int64) - 1)[may].sum()) + 1 + DONATE_QUEUE * donates(p)


def snap_plan(prep: Prepared, idx: np.ndarray, p: dict, budget: int, slot: np.ndarray | None = None) -> int:
    """Snapshot pool size in 32-word units: SNAP_SLOTS of the largest splittable seed of ``idx``,
    within ``budget`` bytes (0: no donations; a full pool only stops further donations). ``slot``:
    ``gets_slot``'s answer, if known."""
    may = gets_slot(prep, idx, p) if slot is None else slot
    if not donates(p) or not may.any():
        return 0
    unit = int(snap_units(prep.seed_deg[idx[may]], prep.nw[idx[may]]).max())
    return int(min(SNAP_SLOTS * unit, budget // 128, 0x7FFFFFFE))


def arena_plan(prep: Prepared, idx: np.ndarray, p: dict, budget: int,
               slot: np.ndarray | None = None) -> tuple[np.ndarray, int]:
    """(word offset of each seed's arena slot or -1, total words): the splittable seeds of ``idx``,
    heaviest first, while their slots fit ``budget`` bytes; the others run un-split (no work is lost).
    ``slot``: ``gets_slot``'s answer, if known."""
    off = np.full(len(idx), -1, dtype=np.int64)
    may = np.flatnonzero(gets_slot(prep, idx, p) if slot is None else slot)
    if not len(may):
        return off, 1
    heavy = prep.p2[idx[may]]
    if (np.diff(heavy) > 0).any():   # (``_plan``'s seeds come heaviest first already)
        may = may[np.argsort(-heavy, kind="stable")]
    words = arena_words(prep.nw[idx[may]], prep.p2[idx[may]])
    ends = np.cumsum(words)
    keep = ends * 4 <= budget
    off[may[keep]] = ends[keep] - words[keep]
    return off, max(1, int(ends[keep][-1]) if keep.any() else 1)


def decode_records(records, order: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """The bicliques of the listing buffers: records ``[|L|, |R|, L ids, R positions]``, as (L, R)
    with sorted ids (R mapped through ``order``)."""
    bicliques = []
    for rec in records:
        i = 0
        while i < len(rec):
            nl, nr = int(rec[i]), int(rec[i + 1])
            L = np.sort(rec[i + 2 : i + 2 + nl])
            R = np.sort(order[rec[i + 2 + nl : i + 2 + nl + nr]])
            bicliques.append((L, R))
            i += 2 + nl + nr
    return bicliques


@dataclass
class LaunchPlan:
    """Everything a run decides before its timed launch; a run over every seed in one pass keeps it
    with the prepared graph (``_run``), so a warm call neither sorts nor sizes the seeds again."""

    passes: list      # per pass: (its seeds, heaviest first; words per worker; workers; queue entries;
                      # arena offset of each seed or -1; arena words; snapshot units)
    flags: int
    scatter: bool
    vmap_words: int
    n_workers: int
    sms: int
    block: bool


def _run(prep: Prepared, *, listing, max_buffer_bytes, queue_cap=None, seeds=None, timed=True,
         **params) -> GMBEResult:
    p = _check(params)
    subset = pick_tasks(seeds, len(prep.seeds), "GMBE+")
    require_gpu()
    # sorting and sizing dbpedia-writer's 46k seeds again took most of its warm call: 6.1 ms, 1.3 with
    # the plan kept (frontdoor.csv at 2d1414e and 8b9fd97, one H200)
    key = plan_key("launch", bool(listing), max_buffer_bytes, queue_cap, *sorted(_DEFINES.items()),
                   *p.values()) if subset is None else None
    return with_kept_plan(prep.memo, key,
                          lambda: _plan(prep, p, subset, listing, max_buffer_bytes, queue_cap),
                          lambda plan: len(plan.passes) == 1,
                          lambda plan: _launch(prep, plan, p, listing,
                                               key if prep.memo.get(key) is plan else None, timed))


def _plan(prep: Prepared, p: dict, subset, listing, max_buffer_bytes, queue_cap) -> LaunchPlan:
    block = p["level"] == "block"
    free = free_bytes()
    n_v = len(prep.v_indptr) - 1
    vmap_words = 2 * (-(-n_v // 32))
    scatter = p["union"] == "scatter"
    flags = (F_PRUNE * bool(p["prune"]) | F_BITMAP * bool(p["bitmap"]) | F_SPLIT * (p["level"] == "gmbe+")
             | F_UNION * (p["union"] != "serial") | F_LIST * bool(listing)
             | F_DONATE * donates(p) | F_DONATE_ALL * (donates(p) and p["donate"] == "always"))
    sms = sm_count()
    n_blocks = max(1, sms * int(p["warps_per_sm"]) // WARPS_PER_BLOCK)
    n_workers = n_blocks if block else n_blocks * WARPS_PER_BLOCK
    budget = int(max_buffer_bytes or 0.4 * free)
    if scatter and n_workers * vmap_words * 4 > 0.05 * free:
        scatter = False  # the bitmaps over V would not fit: merge-path unions instead (same answer)
    flags |= F_SCATTER * scatter
    passes = []
    for idx, cap, workers in plan(prep, p, n_workers, budget, subset):
        order = idx[np.argsort(-prep.p2[idx], kind="stable")]  # heaviest seeds first
        may = may_split(prep, order, p)   # (once: the three plans below read it)
        slot = gets_slot(prep, order, p, may)
        gq_cap = queue_bound(prep, order, p, may)
        if gq_cap * 8 > budget // 4:
            gq_cap = max(1, budget // 32)  # a full queue makes the kernel run sub-tasks in place
        if queue_cap is not None:
            gq_cap = max(1, min(gq_cap, int(queue_cap)))
        a_off, a_words = arena_plan(prep, order, p, int(0.1 * free), slot)
        snap_cap = snap_plan(prep, order, p, int(0.05 * free), slot)
        passes.append((order, cap, workers, gq_cap, a_off, a_words, snap_cap))
    return LaunchPlan(passes, flags, scatter, vmap_words if scatter else 0, n_workers, sms, block)


def _launch(prep: Prepared, plan: LaunchPlan, p: dict, listing, key, timed: bool) -> GMBEResult:
    """The timed launches of ``plan``; ``key``: the plan is kept under it, and so are its seeds'
    device copies (a warm call uploads nothing)."""
    import cupy

    module = load_module("gmbe.cu", defines=_DEFINES)
    kernel = module.get_function("gmbe_block_kernel" if plan.block else "gmbe_warp_kernel")
    n_workers, vmap_words = plan.n_workers, plan.vmap_words

    def on_device(i, name, host, pick=None):   # host[pick] for pass i: uploaded now, or once if kept
        def value():
            return host if pick is None else host[pick]

        return cupy.asarray(value()) if key is None else prep.device.array((key, i, name), value)

    timer = CudaTimer(timed).start()
    g = {k: prep.device.array(k, getattr(prep, k)) for k in ("u_indptr", "u_indices", "v_indptr",
                                                            "v_indices")}
    graph_bytes = sum(a.nbytes for a in g.values())
    stats = np.zeros((n_workers, NSTAT), dtype=np.uint64)
    n_seeds = sum(len(order) for order, *_ in plan.passes)
    list_cap = max(4096, 16 * n_seeds) if listing else 1
    device_bytes, records, queue_full = graph_bytes, [], False
    vmap = cupy.zeros(max(1, n_workers * vmap_words), dtype=cupy.uint32)  # zero; each seed clears what it set
    for i, (order, cap, workers, gq_cap, a_off, a_words, snap_cap) in enumerate(plan.passes):
        d_seeds, nw, p2 = (on_device(i, name, getattr(prep, name), order) for name in ("seeds", "nw", "p2"))
        arena_off = on_device(i, "arena_off", a_off)
        buf = cupy.empty(workers * cap, dtype=cupy.uint32)
        gq = cupy.empty(gq_cap, dtype=cupy.uint64)
        arena = cupy.empty(a_words, dtype=cupy.uint32)
        snap = cupy.empty(max(1, 32 * snap_cap), dtype=cupy.uint32)
        blocks = workers if plan.block else -(-workers // WARPS_PER_BLOCK)
        while True:
            gq.fill(np.uint64(0xFFFFFFFFFFFFFFFF))
            ctrl = cupy.zeros(8, dtype=cupy.int32)
            st = cupy.zeros(workers * NSTAT, dtype=cupy.uint64)
            lst = cupy.empty(list_cap, dtype=cupy.int32)
            pos = cupy.zeros(1, dtype=cupy.uint64)
            overflow = cupy.zeros(1, dtype=cupy.int32)
            set_params(module, PARAMS, **g, seeds=d_seeds, seed_nw=nw, seed_p2=p2, buf=buf, arena=arena,
                       arena_off=arena_off, vmap=vmap, vmap_words=vmap_words, gq=gq, ctrl=ctrl,
                       stats=st, list=lst, list_pos=pos, list_overflow=overflow, buf_cap=cap, gq_cap=gq_cap,
                       list_cap=list_cap, bound_size=p["bound_size"], n_seeds=len(order), tau=p["tau"],
                       tw=_tw(p["tau"]), snap=snap, snap_cap=snap_cap,
                       flags=plan.flags, n_workers=workers, bound_height=p["bound_height"],
                       min_left=p["min_left"], min_right=p["min_right"])
            kernel((blocks,), (32 * WARPS_PER_BLOCK,), ())
            if not listing or int(overflow[0]) == 0:
                break
            list_cap = int(pos[0]) + 1  # the kernel counted what it needed
        device_bytes = max(device_bytes, graph_bytes + buf.nbytes + gq.nbytes + st.nbytes + d_seeds.nbytes * 4
                           + lst.nbytes + arena.nbytes + arena_off.nbytes + vmap.nbytes + snap.nbytes)
        host = st.get().reshape(workers, NSTAT)
        if len(plan.passes) == 1:
            stats[:workers] = host
        else:  # sums of the counters; times and SMs of the last pass
            summed = [i for i, k in enumerate(STATS) if k not in ("t0", "t1", "sm")]
            stats[:workers, summed] += host[:, summed]
            stats[:workers, 8:11] = host[:, 8:11]
        queue_full |= bool(int(ctrl[4]) & ERR_QUEUE)
        if listing:
            records.append(lst[: int(pos[0])].get())
        del buf, gq, arena, snap
    answer = int(stats[:, 0].sum())
    gpu_ms = timer.stop()

    bicliques = decode_records(records, prep.order) if listing else None
    return GMBEResult(
        answer=answer,
        params={**p, "union_used": "scatter" if plan.scatter else p["union"].replace("scatter", "merge"),
                "sms": plan.sms, "workers": n_workers, "listing": listing, "regs": kernel.num_regs,
                "spill_bytes": kernel.local_size_bytes,
                "build": build_name(_DEFINES)},
        gpu_ms=gpu_ms, prep_s=prep.prep_s, device_bytes=int(device_bytes), stats=stats,
        passes=len(plan.passes), queue_full=queue_full, bicliques=bicliques,
    )


def prepared(B: BipartiteGraph) -> Prepared:
    """``prepare(B)`` kept with ``B`` (``mce_kit.prepared``): later calls reuse its order and 2-hop sizes."""
    from ..prepared import kept

    return kept(B, ("gmbe",), lambda: prepare(B))


def count_maximal_bicliques(B: BipartiteGraph, **params) -> int:
    """Number of maximal bicliques with both sides non-empty."""
    return prepared(B).run(timed=False, **params).answer


def maximal_bicliques(B: BipartiteGraph, **params) -> list[tuple[np.ndarray, np.ndarray]]:
    """Every maximal biclique as (U ids, V ids), both sorted (listing mode)."""
    return prepared(B).run(listing=True, timed=False, **params).bicliques
