"""mce-gpu on the GPU: launcher for ``cuda/mcegpu.cu``.

    prep = prepare(G)                                    # degeneracy order, seeds (CPU, untimed)
    res = prep.run(subtree="L1", induced="auto", worker_list=True)
    res.answer, res.gpu_ms, res.donations, res.sm_load()
    prep.run(subtree="L2", seeds=idx)                   # only those seeds (indices into seed_arrays)

One thread block per independent sub-tree (``subtree="L1"``: a vertex,
``"L2"``: an edge), a binary-encoded induced sub-graph over P (``induced="IP"``)
or over P and X (``"IPX"``; ``"auto"`` picks IP iff Δ/d > 200, the paper's
heuristic), and a worker list through which idle blocks receive branches
(``worker_list``). ``lane_words`` sets the sub-warp partition of the pivot
scoring: a group of lanes per candidate row, each lane taking 1 word of it (the
k-clique work's groups of W lanes) or up to 4 (groups of W/4 lanes, so four times
as many candidates per round). ``ip_search`` says where IP looks an X vertex x
up against the branch vertex v: in N(v), one list for the whole warp
(``"branch"``), in N(x) (``"excluded"``, the first version) or in the shorter of
the two (``"shorter"``). Every switch is a kernel argument: the module is
compiled once. ``run(profile=True)`` uses a separate build (``-DMCEGPU_PROFILE=1``)
that splits each block's cycles into build / pivot / set operations / worker list.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..graph import Graph
from ..prepared import ordered_on_device
from . import require_gpu
from .launch import (
    device_attributes,
    free_bytes,
    params_dtype,
    pick_tasks,
    plan_key,
    plan_passes,
    set_params,
    sm_count,
    to_host_once,
    with_kept_plan,
)
from .loader import build_name, load_module
from .seeds import degeneracy_csr, later_counts, seed_sets
from .timer import CudaTimer
from .watch import Watch, released

FLAG_IPX, FLAG_WL, FLAG_LIST, FLAG_EDGE, FLAG_LANE4, FLAG_IP_XLIST, FLAG_IP_SHORTER = 1, 2, 4, 8, 16, 32, 64
IP_SEARCH = {"branch": 0, "excluded": FLAG_IP_XLIST, "shorter": FLAG_IP_SHORTER}
ERR_CAPACITY = 1
STOP_AT = 32  # ctrl[STOP_AT]: the Ctrl-C stop word (watch.py), on a 128-byte line of its own
QPOS_WORDS = 48  # worker-list head, tail, avail: one 128-byte line each (Q_HEAD/Q_TAIL/Q_AVAIL in mcegpu.cu)
MAX_WARPS = 8
AUTO_RATIO = 200  # induced="auto": IP iff max degree / degeneracy > 200 (the paper's Table 3 heuristic)
_DEFINES: dict = {}  # compile-time settings (kept empty in normal use; benchmarks may probe)
DEFAULTS = dict(subtree="L1", induced="auto", worker_list=True, donate_min_p=10, warps_per_block=1,
                blocks_per_sm=0, lane_words=4, ip_search="branch")
PHASES = ("build", "pivot", "set_ops", "worker_list")

# The kernel's launch parameters, ``struct Params`` in mcegpu.cu (same fields, same order).
PARAMS = params_dtype(
    pointers=("indptr", "indices", "seed_u", "seed_v", "buf", "task_info", "flag", "queue", "qpos", "ctrl",
              "next", "block_count", "block_nodes", "block_cycles", "block_seeds", "block_donated",
              "block_received", "block_sm", "block_phase", "list", "list_pos", "list_overflow", "stop"),
    i8=("buf_cap", "list_cap"),
    i4=("n_seeds", "flags", "n_workers", "donate_min_p"))


def buffer_words(p, x, ipx: bool):
    """Words of a block's buffer for a sub-tree with |P| <= p, |X| <= x (matches mcegpu.cu)."""
    p, x = np.asarray(p, dtype=np.int64), np.asarray(x, dtype=np.int64)
    W = (p + 31) // 32
    return (p + x) + (p + (x if ipx else 0)) * W + 2 * x + (p + 2) * 3 * W + 3 * (p + 2) + p + 4


@dataclass
class MCEGPUResult:
    answer: int
    params: dict
    gpu_ms: float
    prep_s: float
    device_bytes: int
    block_nodes: np.ndarray
    block_cycles: np.ndarray
    block_seeds: np.ndarray
    block_donated: np.ndarray
    block_received: np.ndarray
    block_sm: np.ndarray
    phase_cycles: dict | None = None  # profile build only: phase -> total cycles
    passes: int = 1
    cliques: list | None = None

    @property
    def count(self) -> int:
        return self.answer

    @property
    def nodes(self) -> int:
        return int(self.block_nodes.sum())

    @property
    def donations(self) -> int:
        return int(self.block_donated.sum())

    def sm_load(self) -> dict:
        """Load across SMs (the paper's Fig 3): max/mean of per-SM busy cycles and of the
        largest per-block node count on each SM."""
        out = {}
        for key, vals, how in (("cycles", self.block_cycles, np.add),
                               ("nodes", self.block_nodes, np.maximum)):
            per_sm = np.zeros(int(self.block_sm.max()) + 1 if len(self.block_sm) else 1)
            how.at(per_sm, self.block_sm, vals.astype(float))
            used = per_sm[np.unique(self.block_sm)] if len(self.block_sm) else per_sm
            out[f"sm_{key}_max_over_mean"] = float(used.max() / used.mean()) if used.mean() else 1.0
        return out

    def row(self) -> dict:
        """Flat extra columns for a results table."""
        r = {"nodes": self.nodes, "donations": self.donations, "device_bytes": self.device_bytes,
             "passes": self.passes, **{k: round(v, 4) for k, v in self.sm_load().items()}}
        if self.phase_cycles:
            total = sum(self.phase_cycles.values()) or 1
            r.update({f"frac_{k}": round(v / total, 4) for k, v in self.phase_cycles.items()})
        return r


@dataclass
class Prepared:
    """A graph in degeneracy order with its seeds (all on the host)."""

    G: Graph
    order: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    isolated: np.ndarray
    delta: int
    d: int
    seeds: dict = field(default_factory=dict)  # subtree -> (u, v, p, x)
    prep_s: float = 0.0
    memo: dict = field(default_factory=dict)   # passes kept for warm runs (``_run``)

    def seed_arrays(self, subtree: str):
        if subtree not in ("L1", "L2"):
            raise ValueError(f"subtree must be 'L1' or 'L2', got {subtree!r}")
        if subtree not in self.seeds:
            kind = "vertex" if subtree == "L1" else "edge"
            self.seeds[subtree] = seed_sets(self.indptr, self.indices, kind)
            from ..prepared import refresh

            refresh(self.G, ("mcegpu",))  # a kept Prepared grew: count its seeds in the budget
        return self.seeds[subtree]

    def induced_mode(self, induced: str) -> str:
        """'IP' or 'IPX' for ``induced`` ('auto': IP iff Δ/d > 200)."""
        if induced == "auto":
            return "IP" if self.delta > AUTO_RATIO * max(self.d, 1) else "IPX"
        if induced not in ("IP", "IPX"):
            raise ValueError(f"induced must be 'auto', 'IP' or 'IPX', got {induced!r}")
        return induced

    def run(self, *, listing=False, max_buffer_bytes=None, profile=False, seeds=None, progress=None,
            timed=True, **params) -> MCEGPUResult:
        """One timed launch (``timed=False``: no events, ``gpu_ms`` None). ``seeds`` (indices into
        ``seed_arrays(subtree)``) runs only those sub-trees and leaves out the isolated vertices:
        disjoint seed sets add up to the whole. ``progress``: a bar over the seeds (``watch.Watch``);
        Ctrl-C stops the kernel and raises ``watch.Stopped`` naming the seeds finished and the
        cliques they hold."""
        return released(_run, self, listing=listing, max_buffer_bytes=max_buffer_bytes, profile=profile,
                        seeds=seeds, progress=progress, timed=timed, **params)


def prepare(G: Graph) -> Prepared:
    """Order ``G`` by degeneracy and build its CSR for the kernel (not part of the timed phase)."""
    t0 = time.perf_counter()
    order, indptr, indices, isolated = degeneracy_csr(G)
    deg = np.diff(indptr)
    later = later_counts(indptr, indices)
    return Prepared(G, order, indptr, indices, isolated, int(deg.max(initial=0)), int(later.max(initial=0)),
                    prep_s=time.perf_counter() - t0)


def plan(prep: Prepared, subtree: str, ipx: bool, n_workers: int, budget: int, seeds=None):
    """[(seed indices, buffer words per block, blocks)]: passes whose buffers fit ``budget`` bytes
    (of the seeds ``seeds``, indices into ``seed_arrays(subtree)``; None: all of them)."""
    u, v, p, x = prep.seed_arrays(subtree)
    pick = np.arange(len(u)) if seeds is None else np.asarray(seeds, dtype=np.int64)

    def describe(i):
        a = prep.order[u[i]]
        return f"seed vertex {a}" if v[i] < 0 else f"seed edge ({a}, {prep.order[v[i]]})"

    passes = plan_passes({"buffer": buffer_words(p[pick], x[pick], ipx)}, n_workers, budget, "mce-gpu",
                         lambda i: describe(pick[i]))
    return [(pick[idx], caps["buffer"], workers) for idx, caps, workers in passes]


def blocks_per_sm(kernel, threads: int, device) -> int:
    """How many blocks of ``threads`` fit on one SM at once (registers, threads, blocks, shared memory)."""
    a = device_attributes(device.id)
    regs = -(-max(kernel.num_regs, 1) // 8) * 8
    fit = [a["MaxBlocksPerMultiprocessor"], a["MaxThreadsPerMultiProcessor"] // threads,
           a["MaxRegistersPerMultiprocessor"] // (regs * threads)]
    if kernel.shared_size_bytes:
        fit.append(a["MaxSharedMemoryPerMultiprocessor"] // (kernel.shared_size_bytes + 1024))
    return max(1, min(fit))


def _check(params: dict) -> dict:
    unknown = set(params) - set(DEFAULTS)
    if unknown:
        raise TypeError(f"unknown mce-gpu parameter(s): {', '.join(sorted(unknown))}")
    p = {**DEFAULTS, **params}
    if p["subtree"] not in ("L1", "L2"):
        raise ValueError(f"subtree must be 'L1' or 'L2', got {p['subtree']!r}")
    if int(p["warps_per_block"]) not in (1, 2, 4, 8):
        raise ValueError(f"warps_per_block must be 1, 2, 4 or 8, got {p['warps_per_block']!r}")
    if p["ip_search"] not in IP_SEARCH:
        raise ValueError(f"ip_search must be one of {', '.join(IP_SEARCH)}, got {p['ip_search']!r}")
    if int(p["lane_words"]) not in (1, 4):
        raise ValueError(f"lane_words must be 1 or 4, got {p['lane_words']!r}")
    if int(p["donate_min_p"]) < 1:
        raise ValueError(f"donate_min_p must be >= 1, got {p['donate_min_p']!r}")
    return p


def _sum_u64(a: np.ndarray) -> int:
    """Exact sum of 64-bit counters (two 32-bit halves, so no wrap-around)."""
    a = a.astype(np.uint64)
    return (int((a >> np.uint64(32)).sum()) << 32) + int((a & np.uint64(0xFFFFFFFF)).sum())


def _run(prep: Prepared, *, listing, max_buffer_bytes, profile, seeds=None, progress=None, timed=True,
         **params) -> MCEGPUResult:
    p = _check(params)
    seeds = pick_tasks(seeds, len(prep.seed_arrays(p["subtree"])[0]), "mce-gpu")
    require_gpu()
    import cupy

    mode = prep.induced_mode(p["induced"])
    ipx = mode == "IPX"
    flags = (FLAG_IPX * ipx | FLAG_WL * bool(p["worker_list"]) | FLAG_LIST * bool(listing)
             | FLAG_EDGE * (p["subtree"] == "L2") | FLAG_LANE4 * (int(p["lane_words"]) == 4)
             | IP_SEARCH[p["ip_search"]] * (not ipx))
    defines = {**_DEFINES, **({"MCEGPU_PROFILE": 1} if profile else {})}
    module = load_module("mcegpu.cu", defines=defines)
    kernel = module.get_function("mcegpu_kernel")
    dev = cupy.cuda.Device()
    sms = sm_count()
    threads = 32 * int(p["warps_per_block"])
    per_sm = blocks_per_sm(kernel, threads, dev)
    if p["blocks_per_sm"]:
        per_sm = min(per_sm, int(p["blocks_per_sm"]))
    n_workers = sms * per_sm
    u, v, _, _ = prep.seed_arrays(p["subtree"])
    n_run = len(u) if seeds is None else len(seeds)

    def make_passes():
        budget = int(max_buffer_bytes or 0.4 * free_bytes())
        return plan(prep, p["subtree"], ipx, n_workers, budget, seeds)

    def launch(passes):
        timer = CudaTimer(timed).start()
        # the degeneracy CSR's device copies, RDMCE's too (``prepared.ordered_on_device``), uploaded once
        on_device = ordered_on_device(prep.G)
        indptr, indices = on_device.array("indptr", prep.indptr), on_device.array("indices", prep.indices)
        # per block: count, nodes, busy cycles (64-bit), seeds, donated, received, SM
        stats = [cupy.zeros(n_workers, dtype=dt) for dt in ("u8", "u8", "u8", "i4", "i4", "i4", "i4")]
        phase = cupy.zeros(4 * n_workers, dtype=cupy.uint64)
        list_cap = max(1024, 8 * n_run) if listing else 1
        device_bytes = indptr.nbytes + indices.nbytes
        counts, records = [], []
        singles = len(prep.isolated) if seeds is None else 0
        # a bar over the seeds of every pass; on Ctrl-C the seeds taken all finish (block_seeds; ``out``:
        # the counters of the launch stopped)
        watch = Watch(n_run, progress=progress, what="mce-gpu", unit="seed", found_what="maximal cliques",
                      finished=lambda: int(stats[3].sum() + out[3].sum()),
                      found=lambda: sum(_sum_u64(c) for c in counts) + _sum_u64(out[0].get()) + singles)
        for idx, cap, workers in passes:
            base = watch.base
            if seeds is None and len(idx) == len(u):   # one pass over every seed: their copies kept too
                su = on_device.array(("mce-gpu seed u", p["subtree"]), u)
                sv = on_device.array(("mce-gpu seed v", p["subtree"]), v)
            else:
                su, sv = cupy.asarray(u[idx]), cupy.asarray(v[idx])
            buf = cupy.empty(workers * cap, dtype=cupy.uint32)
            task_info = cupy.zeros(8 * workers, dtype=cupy.int32)
            device_bytes = max(device_bytes, indptr.nbytes + indices.nbytes + su.nbytes * 2 + buf.nbytes
                               + task_info.nbytes + sum(s.nbytes for s in stats) + phase.nbytes
                               + 16 * workers)
            while True:
                out = [cupy.zeros(workers, dtype=s.dtype) for s in stats]
                ph = cupy.zeros(4 * workers, dtype=cupy.uint64)
                flag = cupy.zeros(workers, dtype=cupy.int32)
                queue = cupy.full(workers, -1, dtype=cupy.int32)
                qpos = cupy.zeros(QPOS_WORDS, dtype=cupy.uint64)
                ctrl = cupy.zeros(STOP_AT + 1, dtype=cupy.int32)
                lst = cupy.empty(list_cap, dtype=cupy.int32)
                pos = cupy.zeros(1, dtype=cupy.uint64)
                overflow = cupy.zeros(1, dtype=cupy.int32)
                set_params(module, PARAMS, indptr=indptr, indices=indices, seed_u=su, seed_v=sv, buf=buf,
                           task_info=task_info, flag=flag, queue=queue, qpos=qpos, ctrl=ctrl,
                           block_count=out[0], block_nodes=out[1], block_cycles=out[2], block_seeds=out[3],
                           block_donated=out[4], block_received=out[5], block_sm=out[6], block_phase=ph,
                           list=lst, list_pos=pos, list_overflow=overflow, stop=ctrl[STOP_AT:], buf_cap=cap,
                           list_cap=list_cap, n_seeds=len(idx), flags=flags, n_workers=workers,
                           donate_min_p=int(p["donate_min_p"]))
                kernel((workers,), (threads,), ())
                # ctrl[:2]: seeds taken, blocks with work; a relaunch shows the same seeds again (base)
                watch.wait(ctrl[:2], len(idx), ctrl[STOP_AT:], base=base)
                if not listing or int(overflow[0]) == 0:
                    break
                list_cap = int(pos[0]) + 1  # the kernel counted what it needed
            if int(ctrl[2]) & ERR_CAPACITY:
                raise RuntimeError("mce-gpu: a seed exceeded its buffer bound (internal error; "
                                   "please report)")
            counts.append(out[0].get())
            for s, o in zip(stats[1:-1], out[1:-1], strict=True):
                s[:workers] += o
            if len(counts) == 1:
                stats[-1][:workers] = out[-1]  # SM of each block, from the first pass
            phase[: 4 * workers] += ph
            if listing:
                records.append(lst[: int(pos[0])].get())
            del buf
        watch.close()
        answer = sum(_sum_u64(c) for c in counts) + singles
        gpu_ms = timer.stop()

        cliques = None
        if listing:
            cliques = [prep.order[np.array([i])] for i in prep.isolated] if seeds is None else []
            for rec in records:
                i = 0
                while i < len(rec):
                    r = rec[i]
                    cliques.append(prep.order[rec[i + 1 : i + 1 + r]])
                    i += r + 1
        host = to_host_once(stats[1:])
        phase_cycles = None
        if profile:
            ph = phase.get().reshape(-1, 4).sum(axis=0)
            phase_cycles = {k: int(c) for k, c in zip(PHASES, ph, strict=True)}
        return MCEGPUResult(
            answer=answer,
            params={**p, "induced_mode": mode, "sms": sms, "workers": n_workers, "blocks_per_sm_used": per_sm,
                    "listing": listing, "regs": kernel.num_regs, "spill_bytes": kernel.local_size_bytes,
                    "build": build_name(defines)},
            gpu_ms=gpu_ms, prep_s=prep.prep_s, device_bytes=int(device_bytes),
            block_nodes=host[0], block_cycles=host[1], block_seeds=host[2], block_donated=host[3],
            block_received=host[4], block_sm=host[5], phase_cycles=phase_cycles, passes=len(passes),
            cliques=cliques,
        )

    # a run over every seed in one pass keeps its passes: a warm run neither asks the driver for free
    # memory nor sizes every seed's buffer again
    key = plan_key("passes", mode, n_workers, max_buffer_bytes, p["subtree"]) if seeds is None else None
    return with_kept_plan(prep.memo, key, make_passes, lambda passes: len(passes) == 1, launch)


def prepared(G: Graph) -> Prepared:
    """``prepare(G)`` kept with ``G`` (``mce_kit.prepared``): later calls reuse its order and seeds."""
    from ..prepared import kept

    return kept(G, ("mcegpu",), lambda: prepare(G))


def count_maximal_cliques(G: Graph, **params) -> int:
    """Number of maximal cliques of ``G`` (isolated vertices count as cliques of size 1)."""
    return prepared(G).run(timed=False, **params).answer


def maximal_cliques(G: Graph, **params) -> list[np.ndarray]:
    """Every maximal clique of ``G`` as an array of vertex ids (listing mode; small graphs)."""
    return prepared(G).run(listing=True, timed=False, **params).cliques
