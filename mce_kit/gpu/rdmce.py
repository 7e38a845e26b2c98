"""RDMCE on the GPU: launcher for ``cuda/rdmce.cu``.

    prep = prepare(G)                       # degeneracy order, seeds, buffer sizes (CPU)
    res = prep.run(tau=24, warps_per_sm=20) # H2D graph, kernel, count back (timed phase)
    res.count, res.gpu_ms, res.worker_cycles
    prep.run(histogram=True).histogram      # {size: count}, counted in the kernel
    prep.run(min_size=10).count             # filtered where each clique is reported
    for offsets, vertices in prep.blocks(1 << 20): ...   # streamed CSR blocks

Every sweep parameter (tau, warps per SM, seeding, switches, size bounds) is a
kernel argument or a launch setting. The source is built twice, once per task
kind (``STREAMING=0`` for counts, histograms and filters, so the counting hot
loop carries no streaming code; ``STREAMING=1`` for listing), each once.

Counting, histograms, filters and listing search small sub-trees in registers (``local=True``: below
a node with ``|P| <= min(tau, 32)`` and ``|P| + |X| <= 32`` each vertex gets a lane and the DFS runs on
32-bit lane masks; ``solve_local`` in the kernel). While listing, such a sub-tree can be suspended
when the ring fills: its state (deepest level, the local vertices, each lane's level as masks) goes
to the warp's ``resume[]`` slot like the rest of the walk, and the next launch goes on from there.

Streaming design (a relaunch that resumes, double-buffered). The kernel
appends cliques to a device ring of chunks (``ring_layout``): each warp owns
one chunk at a time, taken with one atomic. Nearly every clique of a large
graph comes from a register sub-tree, where it is the path above the
sub-tree plus some of its (at most 32) local vertices; so a chunk holds
*groups* from its start, [r0, the r0 path vertices, the local vertex ids],
written once per sub-tree and chunk, and from its end down one two-word
descriptor per clique, (group offset, lane mask). A clique of the bitmap path
is a group of its own with an empty mask. Per chunk the kernel publishes its
cliques and their expanded vertices (r0 + popc(mask) each), and totals both
for the launch in ``ctrl``. When a warp takes a chunk past the soft mark, or
the launch's vertices reach ``vert_soft`` (``CSR_PER_RING_WORD`` per ring word,
so the CSR stays bounded), it raises a stop flag; every warp stops at its next
safe point (top of its DFS loop, of its main loop, or of a register
sub-tree's branch loop), saves its walk (level, pending child, exposed level,
a suspended sub-tree's lanes, ...) in ``resume[]`` and leaves. Everything else
the search needs (stacks, rows, exposure words, seed counter, task counts)
already lives in global memory, so the next launch with ``FLAG_RESUME``
continues exactly where the last one stopped; thieves may even pull branches
from a suspended walk. Between two safe points a warp reports at most two
cliques and a chunk holds two of the largest records (``min_chunk_words``), so
the ring never overflows. After each launch the host expands the ring into
CSR on the GPU (``rdmce_unpack``: one warp per chunk, prefix sums over chunk
sizes, a warp scan over 32 descriptors at a time, then each clique written as
one contiguous run, vertex ids mapped to ``G``'s through the degeneracy
order; ``unpack_host`` is its NumPy twin), relaunches at once into the now
free ring, and hands out the CSR in blocks of at most ``block_size`` cliques
while that launch runs (host copies go on a side stream). Memory is the ring
plus two launches' CSR on the device (``csr_bytes``) and one block on the
host, whatever the output size. Isolated vertices never reach the kernel; the
host reports them (``isolated=``). A sub-tree's clique whose group is
already in the chunk costs lane 0 one descriptor store, and the expansion
keeps a group's mapped ids in registers while its cliques follow each other.
"""

from __future__ import annotations

import functools
import os
import time
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ..graph import Graph, check_size_bounds, is_int_at_least
from ..prepared import OnDevice, kept, ordered_on_device
from . import loader, require_gpu
from .launch import (
    check_warps_per_sm,
    free_bytes,
    params_dtype,
    plan_key,
    plan_passes,
    set_params,
    sm_count,
    with_kept_plan,
)
from .loader import load_module
from .seeds import ordered_csr, per_seed, seed_sets
from .timer import CudaTimer
from .watch import Watch, released

FLAG_EXPOSE, FLAG_AGGRESSIVE, FLAG_STREAM, FLAG_SIZES, FLAG_HIST, FLAG_RESUME = 1, 2, 4, 8, 16, 32
FLAG_LOCAL = 64
ERR_CAPACITY, ERR_RING = 1, 2
WARPS_PER_BLOCK = 4
RESUME_INTS = 176     # per worker in resume[]: the walk, then a suspended register sub-tree (rdmce.cu)
CTRL_INTS = 8         # ctrl[]: next seed, active tasks, errors, stop flag, next free chunk of the ring, ...
STOP_AT = 32          # then ctrl[STOP_AT]: the Ctrl-C stop word (watch.py), on a 128-byte line of its own
CTRL_SPAN = 64        # ints of a pass's zeroed buffer that ctrl takes (padded: what follows starts a line)
MIN_CHUNK_WORDS = 1024
LOCAL_IDS = 32        # local vertices of a register sub-tree (one per lane): a group holds at most this many
CSR_PER_RING_WORD = 4  # a launch stops once its cliques hold this many vertices per ring word (vert_soft)
VERT_SOFT_MAX = 3 << 29  # and at most this many (a launch's CSR stays under 2^31 vertices)
RING_BYTES = 2 << 30  # largest default ring of a streaming run (fewer relaunches; the host gets blocks)
MIN_RING_BYTES = 16 << 20
FIRST_RING_BYTES = 64 << 20  # a streaming run starts with this ring and doubles it at each relaunch
INT32_MAX = 2**31 - 1


def env_defines(text: str | None) -> dict:
    """Compile-time settings from ``MCE_KIT_RDMCE_DEFINES`` ("NAME=INT,NAME=INT"; empty: none), so a
    device probe can build rdmce.cu with other settings (e.g. MIN_BLOCKS) for a whole test or
    experiments process."""
    out = {}
    for item in filter(None, (t.strip() for t in (text or "").split(","))):
        name, eq, value = item.partition("=")
        if not eq or not name.isidentifier() or not value.lstrip("-").isdigit():
            raise ValueError(f"MCE_KIT_RDMCE_DEFINES: expected NAME=INT items, comma-separated, got {item!r}")
        out[name] = int(value)
    return out


# compile-time settings (empty in normal use; benchmarks and device probes may set them)
_DEFINES: dict = env_defines(os.environ.get("MCE_KIT_RDMCE_DEFINES"))


def build_name() -> str:
    """The kernel's compile-time settings as a run's ``params["build"]`` names them ("default": none)."""
    return loader.build_name(_DEFINES)
# local: sub-trees of nodes with |P| <= min(tau, 32) and |P| + |X| <= 32 are searched in registers
# (solve_local in rdmce.cu); False keeps every node on the bitmap path (the ablation).
DEFAULTS = dict(tau=24, warps_per_sm=32, seeding="edge", exposure=True, aggressive=True, local=True)


# The kernel's launch parameters, ``struct Params`` in rdmce.cu (same fields, same order).
PARAMS = params_dtype(
    pointers=("indptr", "indices", "seed_u", "seed_v", "rows_buf", "stack_buf", "expo", "copying",
              "rows_users", "task_info", "ctrl", "next", "worker_count", "worker_nodes", "worker_cycles",
              "worker_seeds", "worker_steals", "hist", "ring", "chunk_len", "chunk_recs", "chunk_next",
              "resume", "stop"),
    i8=("rows_cap", "stack_cap", "vert_soft"),
    i4=("n_seeds", "tau", "flags", "n_workers", "min_size", "max_size", "hist_len", "chunk_words",
        "chunk_soft", "chunk_hard"))


def rows_words(p, x):
    """Words of the sub-graph region for a seed with |P| <= p, |X| <= x (matches rdmce.cu)."""
    Wr, Wx = ((p + 31) // 32 + 3) // 4 * 4, (x + 31) // 32
    return (p + 3) // 4 * 4 + (p + x) * Wr + p * Wx


def stack_words(p, x):
    """Words of the DFS-stack region for such a seed (matches rdmce.cu)."""
    W, Wx = (p + 31) // 32, (x + 31) // 32
    d = p + 2
    s = d * (3 * W + Wx) + 3 * d + 1
    return s + (x > s) * (x - s)  # max(s, x) on ints, NumPy or CuPy arrays


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
    histogram: dict | None = None  # {size: cliques} when run(histogram=True)

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
    """A graph in degeneracy order with its seeds and per-seed buffer bounds. Seeds built on the GPU
    stay there until the host asks (``seed_arrays``): a run of every seed in one pass reads only
    their count and largest needs, and copying them back took 1.5 ms of a cold call on
    soc-Slashdot0902 (H200, 2026-11-27)."""

    G: Graph
    order: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    seeds: dict = field(default_factory=dict)  # seeding -> (u, v, rows_need, stack_need), NumPy or CuPy
    most: dict = field(default_factory=dict)   # seeding -> the largest of rows_need and stack_need
    isolated: np.ndarray = None
    prep_s: float = 0.0
    d: int = 0  # degeneracy: no maximal clique has more than d + 1 vertices
    memo: dict = field(default_factory=dict)   # setups kept for warm counts (``_run``)

    @property
    def device(self) -> OnDevice:
        """The CSR and the seeds on the GPU, each uploaded (or kept as the GPU built it) once: the
        graph's ``prepared.ordered_on_device``, whichever device prepared the (equal) arrays."""
        return ordered_on_device(self.G)

    def seed_most(self, seeding: str) -> dict:
        """The largest rows and stack words of a seed (the plan's one-pass test), kept."""
        if seeding not in self.most:
            _, _, rows, stack = self._seeds(seeding)
            self.most[seeding] = {"rows": int(rows.max()) if len(rows) else 0,
                                  "stack": int(stack.max()) if len(stack) else 0}
        return self.most[seeding]

    def seed_count(self, seeding: str) -> int:
        return len(self._seeds(seeding)[0])

    def seed_arrays(self, seeding: str):
        """(u, v, rows words, stack words) of every seed, on the host."""
        seeds = self._seeds(seeding)
        if not isinstance(seeds[0], np.ndarray):
            from ..accel import to_host

            seeds = self.seeds[seeding] = to_host(*seeds)
        return seeds

    def _seeds(self, seeding: str) -> tuple:
        if seeding not in self.seeds:
            from ..prepared import refresh

            self.seeds[seeding] = _make_seeds(self.indptr, self.indices, seeding, self.device)
            refresh(self.G, ("rdmce",))  # a kept Prepared grew: count its seeds in the budget
        return self.seeds[seeding]

    def __getstate__(self) -> dict:   # a pickled copy (a Dask worker's) takes the host's seeds
        for seeding in self.seeds:
            self.seed_arrays(seeding)
        return {**self.__dict__, "memo": {}}   # (a kept setup names this process's kernel)

    def run(self, *, min_size=None, max_size=None, histogram=False, isolated=True, max_buffer_bytes=None,
            seeds=None, progress=None, timed=True, **params) -> RDMCEResult:
        """Count (and with ``histogram=True`` count per size) the maximal cliques with
        ``min_size <= size <= max_size``; ``isolated=False`` leaves out vertices without neighbours.
        ``seeds`` (indices into ``seed_arrays``) runs only those seeds and leaves out the isolated
        vertices (a chunk of a distributed run). ``progress``: a bar over the seeds (``watch.Watch``:
        True, "auto", a tqdm-like object or a wrapper); Ctrl-C stops the kernel and raises
        ``watch.Stopped`` naming the seeds finished and the cliques they hold. ``timed=False``: no
        events, ``gpu_ms`` None."""
        return released(_run, self, min_size, max_size, histogram, isolated and seeds is None,
                        max_buffer_bytes, params, seeds, progress, timed)

    def blocks(self, block_size: int = 1 << 20, *, min_size=None, max_size=None, isolated=True,
               as_cupy=False, ring_words=None, chunk_words=None, csr_words=None, max_buffer_bytes=None,
               stats=None, sizes_first=False, **params):
        """Stream the maximal cliques as CSR blocks ``(offsets, vertices)`` (``maximal_clique_blocks``).
        ``sizes_first``: each block's cliques reordered smallest first on the device before the copy
        (the module's ``sizes_first``; the networkx backend then cuts a block into lists one size at
        a time). ``ring_words``, ``chunk_words``: the ring's layout (``ring_layout``); ``csr_words``:
        vertices a launch lists before it stops (default ``CSR_PER_RING_WORD`` per ring word, at most
        ``VERT_SOFT_MAX``)."""
        found = _stream(self, block_size, min_size, max_size, isolated, as_cupy or sizes_first, ring_words,
                        chunk_words, csr_words, max_buffer_bytes, stats, params)
        return _sizes_first_blocks(found, as_cupy) if sizes_first else found


def prepare(G: Graph, device: str = "auto") -> Prepared:
    """Order ``G`` by degeneracy and build its CSR for the kernel (not part of the timed phase).
    ``device``: where this host work runs ("auto": the GPU for long graphs when one is there,
    ``seeds.ordered_csr``; "cpu"; "gpu"); the arrays are the same either way."""
    t0 = time.perf_counter()
    order, core, indptr, indices, isolated = ordered_csr(G, device)
    return Prepared(G, order, indptr, indices, isolated=isolated, prep_s=time.perf_counter() - t0,
                    d=int(core.max()) if len(core) else 0)


def _make_seeds(indptr, indices, seeding, device=None):
    """(u, v, rows words, stack words) of every seed; on the GPU for long graphs
    (``prep.use_gpu_for_prep``), from the CSR's copies in ``device`` (an ``OnDevice``), which then
    keeps the seeds' device arrays (("seed u", seeding), ("seed v", seeding)), and returned there
    (CuPy arrays; ``Prepared.seed_arrays`` copies them to the host when asked)."""
    from . import prep

    if prep.use_gpu_for_prep(len(indices), order=True):
        keep = None
        if device is not None:
            indptr, indices = device.array("indptr", indptr), device.array("indices", indices)
            keep = lambda name, a: device.keep((name, seeding), a)  # noqa: E731
        return prep.seed_needs(indptr, indices, seeding, rows_words, stack_words, keep, host=device is None)
    u, v, p, x = seed_sets(indptr, indices, seeding, "cpu")
    return u, v, *per_seed(p, x, rows_words, stack_words)


def _stats_views(state, n_workers: int) -> list:
    """Per-worker count, nodes, busy cycles (64-bit), seeds taken, branches pulled (32-bit): views
    of the 64-bit ``state`` buffer (a CuPy or NumPy array), in that order."""
    w = n_workers
    small = state[3 * w: 4 * w].view(np.int32)
    return [state[:w], state[w: 2 * w], state[2 * w: 3 * w], small[:w], small[w:]]


def _plan(rows_need, stack_need, n_workers, budget, describe=None, most=None, n=None):
    """[(seed indices, rows_cap, stack_cap, workers)]: passes whose buffers fit ``budget`` bytes.
    ``rows_need``, ``stack_need``: arrays, or functions giving them (called only when needed).
    ``most``: the largest needs ({"rows", "stack"}), known already with the count ``n``: no pass
    over the seeds when one pass holds them."""
    def needs():
        return {"rows": rows_need() if callable(rows_need) else rows_need,
                "stack": stack_need() if callable(stack_need) else stack_need}

    n = len(needs()["rows"]) if n is None else n
    passes = plan_passes(needs if most is not None else needs(), n_workers, budget, "RDMCE", describe,
                         largest=most, n=n)
    return [(idx, caps["rows"], caps["stack"], workers) for idx, caps, workers in passes]


def planned(prep: Prepared, budget: int, n_workers: int, seeding: str = "edge") -> dict:
    """What a counting run would allocate with ``budget`` bytes for worker buffers and ``n_workers``
    warps (host only, no launch; the run itself uses 0.4 of the free device memory and SMs x
    warps_per_sm): passes, workers of the narrowest pass, and the device bytes of the largest pass
    (graph, that pass's seeds, buffers, counters: ``RDMCEResult.device_bytes`` of a count)."""
    _, _, rows_need, stack_need = prep.seed_arrays(seeding)
    plan = _plan(rows_need, stack_need, n_workers, budget)
    fixed = prep.indptr.nbytes + prep.indices.nbytes + 32 * n_workers + 8 + 16  # graph, counters, hist, ctrl
    per_pass = [fixed + 8 * len(idx) + 4 * w * (rc + sc) + 48 * w for idx, rc, sc, w in plan]
    return {"passes": len(plan), "workers": min((w for *_, w in plan), default=n_workers),
            "device_bytes": max(per_pass, default=fixed)}


# ---- host-side logic of the size statistics and of streaming (no GPU needed) ----


def size_range(min_size=None, max_size=None) -> tuple[bool, int, int]:
    """(filter on?, lo, hi) for the kernel; None means no bound. Bad bounds raise one-line errors."""
    check_size_bounds(min_size, max_size)
    lo = 0 if min_size is None else min(int(min_size), INT32_MAX)
    hi = INT32_MAX if max_size is None else min(int(max_size), INT32_MAX)
    return (min_size is not None or max_size is not None), lo, hi


def extra_singletons(prep: Prepared, isolated: bool, lo: int, hi: int) -> np.ndarray:
    """Vertices (degeneracy positions) the host reports as size-1 cliques: the isolated ones,
    when ``isolated`` is true and size 1 passes the filter (the kernel never sees them)."""
    if not isolated or not lo <= 1 <= hi:
        return prep.isolated[:0]
    return prep.isolated


def histogram_dict(hist: np.ndarray, singletons: int) -> dict[int, int]:
    """{size: count} (ascending, zero sizes left out) from the kernel's per-size totals."""
    h = np.asarray(hist, dtype=np.uint64).copy()
    if singletons:
        h[1] += np.uint64(singletons)
    return {int(k): int(h[k]) for k in np.flatnonzero(h)}


def min_chunk_words(d: int) -> int:
    """Smallest chunk of a streaming ring for a graph of degeneracy ``d``: two of the largest records.
    A record is a descriptor (2 words) and, at worst, its own group: [r0, r0 prefix vertices, up to
    32 local vertex ids] with r0 <= d for a register sub-tree, or [r, r vertices] with r <= d + 1 for a
    clique of the bitmap path; so at most d + 35 words."""
    return 2 * (int(d) + 3 + LOCAL_IDS)


def ring_layout(d: int, workers: int, ring_words: int | None = None, chunk_words: int | None = None):
    """(chunk_words, chunk_soft, chunk_hard) of a streaming ring for a graph of degeneracy ``d``.

    A warp reports at most two cliques between two stop checks and a chunk holds two of the largest
    records (``min_chunk_words``), so each warp takes at most one chunk past the soft mark:
    ``chunk_hard - chunk_soft = workers``. Chunks have an even number of words (descriptors are 8-byte
    pairs); the ring stays under 2^31 words.
    """
    least = min_chunk_words(d)
    cw = max(least, MIN_CHUNK_WORDS) if chunk_words is None else int(chunk_words)
    if cw < least:
        raise ValueError(f"chunk_words must be >= 2 (d + 35) = {least}, got {cw}")
    cw += cw & 1
    total = (RING_BYTES // 4) if ring_words is None else int(ring_words)
    hard = max(total // cw, workers + 1)
    if hard * cw >= INT32_MAX:
        raise ValueError(f"ring of {hard} chunks of {cw} words is too large")
    return cw, hard - workers, hard


def vert_soft(ring_words: int, csr_words=None) -> int:
    """Vertices a streaming launch lists before it stops: ``csr_words`` when given, else
    ``CSR_PER_RING_WORD`` per word of its ring, at most ``VERT_SOFT_MAX``."""
    if csr_words is not None:
        return int(csr_words)
    return min(CSR_PER_RING_WORD * int(ring_words), VERT_SOFT_MAX)


def csr_bytes(ring_words: int, vert_soft: int) -> int:
    """Device bytes of one launch's CSR, about: the ``vert_soft`` vertices, a quarter more for what the
    warps still list between the stop flag and their next check, and an int64 offset for each
    descriptor the ring can hold (two words each). The CSR itself is sized from the launch's totals."""
    return 5 * int(vert_soft) + 8 * (int(ring_words) // 2 + 1)


def default_ring_bytes(free: int) -> int:
    """Ring of a streaming run: 1/32 of the free device memory, within [16 MiB, 2 GiB]. A launch's CSR
    holds up to ``CSR_PER_RING_WORD`` vertices per ring word and two CSRs may be alive at once (the one
    handed out and the next), so a run needs about 11 rings of memory. A larger ring means fewer
    relaunches (ego-Facebook lists about 190 GB of vertices)."""
    return int(min(RING_BYTES, max(MIN_RING_BYTES, free // 32)))


def ring_sizes(first_words: int, cap_words: int):
    """Ring words of each launch of a streaming run: ``first_words``, doubled at each relaunch up to
    ``cap_words`` (a small output needs no large ring; a large one reaches the cap in a few launches)."""
    w = min(int(first_words), int(cap_words))
    while True:
        yield w
        w = min(2 * w, int(cap_words))


def chunk_bases(xp, chunk_len, chunk_recs, totals=True):
    """Per chunk: first record and first vertex of its cliques in the launch's CSR; with ``totals``
    also the numbers of records and vertices (a device sync on CuPy; the streaming loop reads them
    from ``ctrl`` instead). ``chunk_len``: the vertices of each chunk's cliques, expanded."""
    recs = chunk_recs.astype(xp.int64)
    verts = chunk_len.astype(xp.int64)
    rec_end, vert_end = xp.cumsum(recs), xp.cumsum(verts)
    if not totals:
        return rec_end - recs, vert_end - verts
    n_recs = int(rec_end[-1]) if len(rec_end) else 0
    n_verts = int(vert_end[-1]) if len(vert_end) else 0
    return rec_end - recs, vert_end - verts, n_recs, n_verts


def launch_totals(ctrl_host, hard: int) -> tuple[bool, int, int, int]:
    """(stopped, chunks used, records, vertices) of a streaming launch from its ``ctrl`` words (int32;
    the vertices are the 64-bit word ctrl[6..7], low word first)."""
    c = [int(x) for x in ctrl_host]
    return c[3] != 0, min(c[4], hard), c[5], (c[6] & 0xFFFFFFFF) | (c[7] & 0xFFFFFFFF) << 32


def descriptors(ring, chunk_recs, chunk_words: int, ch: int) -> np.ndarray:
    """The descriptors of chunk ``ch`` in record order, shape (recs, 2): (group offset in the chunk,
    lane mask as int32). Descriptor i sits at words ``chunk_words - 2 - 2i`` and ``- 1 - 2i``."""
    recs = int(chunk_recs[ch])
    end = (ch + 1) * chunk_words
    return np.asarray(ring[end - 2 * recs:end]).reshape(-1, 2)[::-1]


def unpack_host(ring, chunk_len, chunk_recs, chunk_words, order):
    """NumPy twin of the ``rdmce_unpack`` kernel: the CSR (offsets, vertices) of a ring. A chunk holds
    groups ``[r0, r0 prefix vertices, local vertex ids...]`` from its start and a descriptor (group
    offset, lane mask) per clique from its end down; clique = the group's prefix, then the local
    vertex of each lane in the mask, lowest lane first. ``chunk_len``: each chunk's vertices, expanded."""
    rec_base, vert_base, n_recs, n_verts = chunk_bases(np, np.asarray(chunk_len), np.asarray(chunk_recs))
    offsets = np.empty(n_recs + 1, dtype=np.int64)
    vertices = np.empty(n_verts, dtype=np.int32)
    offsets[n_recs] = n_verts
    lanes = np.arange(32, dtype=np.uint32)
    for ch in range(len(chunk_recs)):
        c = np.asarray(ring[ch * chunk_words:(ch + 1) * chunk_words])
        picked = lambda m: np.flatnonzero((np.uint32(m & 0xFFFFFFFF) >> lanes) & 1)  # noqa: E731
        cliques = [np.concatenate([c[g + 1:g + 1 + c[g]], c[g + 1 + c[g] + picked(m)]])
                   for g, m in descriptors(ring, chunk_recs, chunk_words, ch).tolist()]
        sizes = np.array([len(q) for q in cliques], dtype=np.int64)
        if sizes.sum() != int(chunk_len[ch]):
            raise ValueError(f"chunk {ch}: its cliques hold {sizes.sum()} vertices, "
                             f"chunk_len says {chunk_len[ch]}")
        at, rec = int(vert_base[ch]), int(rec_base[ch])
        offsets[rec:rec + len(sizes)] = at + np.cumsum(sizes) - sizes
        if cliques:
            vertices[at:at + sizes.sum()] = order[np.concatenate(cliques)]
    return offsets, vertices


def block_cuts(offsets, block_size: int) -> list[int]:
    """Vertex positions where the blocks of ``block_size`` cliques start, and the end (host ints)."""
    cuts = offsets[::block_size]
    cuts = cuts.get() if hasattr(cuts, "get") else cuts
    last = offsets[-1:]
    last = last.get() if hasattr(last, "get") else last
    return [int(c) for c in cuts[: -(-(len(offsets) - 1) // block_size)]] + [int(last[0])]


def split_blocks(offsets, vertices, block_size: int, cuts=None, rebase=True):
    """Slices of at most ``block_size`` cliques: (offsets, vertices), one step per block, none per
    clique. The offsets start at 0 when ``rebase``; else they are views and the caller subtracts."""
    n = len(offsets) - 1
    if n <= 0:
        return
    cuts = block_cuts(offsets, block_size) if cuts is None else cuts
    for i, b0 in enumerate(range(0, n, block_size)):
        off = offsets[b0:min(n, b0 + block_size) + 1]
        yield (off - cuts[i] if rebase and cuts[i] else off), vertices[cuts[i]:cuts[i + 1]]


def sizes_first(xp, offsets, vertices):
    """A CSR block reordered so that its cliques come smallest first, each clique's vertices kept in
    their order: (offsets from 0, vertices). Same sizes stay in their order (a stable sort). Runs where
    the block lives (``xp``: NumPy or CuPy): one sort of the sizes and one gather, no host sync."""
    sizes = offsets[1:] - offsets[:-1]
    order = sizes.argsort(kind="stable") if xp is np else sizes.argsort()  # CuPy's sort is stable
    out = xp.zeros(len(offsets), dtype=np.int64)
    xp.cumsum(sizes[order], out=out[1:])
    at = xp.arange(len(vertices), dtype=np.int64)
    k = xp.searchsorted(out, at, side="right") - 1  # each vertex's clique in the new order
    return out, vertices[offsets[:-1][order][k] - offsets[0] + (at - out[k])]


def _sizes_first_blocks(found, as_cupy):
    """``sizes_first`` over a stream of CuPy blocks: reordered on the device, then NumPy unless ``as_cupy``.
    (The reorder runs on the stream's default CUDA stream, so while the stream relaunches, a block is
    ready once that launch ends; on a run of one launch, the usual case, nothing waits.)"""
    import cupy

    for off, ver in found:
        off, ver = sizes_first(cupy, off, ver)
        yield (off, ver) if as_cupy else (off.get(), ver.get())


def _check_block_size(block_size):
    if not is_int_at_least(block_size, 1):
        raise ValueError(f"block_size must be a positive int (cliques per block), got {block_size!r}")


# ---- the device side ----


class Setup(NamedTuple):
    """What a run decides before its launch: the passes, the workers and the compiled kernel. A count
    over every seed in one pass keeps it with the prepared graph (``_run``)."""

    plan: list          # per pass: (seed indices, rows_cap, stack_cap, workers)
    sms: int
    n_workers: int
    module: object
    kernel: object
    regs: int
    spill_bytes: int


class _Device:
    """One run's device state: graph, seeds, per-pass worker buffers, statistics. ``setup``: a kept
    ``Setup`` (else planned now from the free device memory)."""

    def __init__(self, prep: Prepared, params: dict, max_buffer_bytes, reserve_bytes=0, stream=False,
                 seeds=None, setup: Setup | None = None):
        require_gpu()
        import cupy

        unknown = set(params) - set(DEFAULTS)
        if unknown:
            raise TypeError(f"unknown RDMCE parameter(s): {', '.join(sorted(unknown))}")
        self.cupy = cupy
        self.prep = prep
        self.p = p = {**DEFAULTS, **params}
        seeding = p["seeding"]
        self.every_seed = seeds is None
        if seeds is None:   # the host's seed arrays only if one pass cannot hold them (or to name one)
            self.n_seeds, most = prep.seed_count(seeding), prep.seed_most(seeding)
            self.seed_arrays = lambda: prep.seed_arrays(seeding)
        else:
            pick = np.asarray(seeds, dtype=np.int64)
            picked = tuple(a[pick] for a in prep.seed_arrays(seeding))
            self.n_seeds, most, self.seed_arrays = len(pick), None, lambda: picked
        self.flags = (FLAG_EXPOSE * bool(p["exposure"]) | FLAG_AGGRESSIVE * bool(p["aggressive"])
                      | FLAG_LOCAL * bool(p["local"]))
        check_warps_per_sm(p["warps_per_sm"])
        self.setup = setup or self._setup(max_buffer_bytes, reserve_bytes, stream, most)
        self.plan, self.sms, self.n_workers, self.module, self.kernel = self.setup[:5]

    def _setup(self, max_buffer_bytes, reserve_bytes, stream, most) -> Setup:
        prep = self.prep
        sms = sm_count()
        n_workers = sms * self.p["warps_per_sm"]
        budget = int(max_buffer_bytes or 0.4 * max(0, free_bytes() - reserve_bytes))

        def describe(i):
            u, v = self.seed_arrays()[:2]
            return f"seed ({prep.order[u[i]]}, {prep.order[v[i]] if v[i] >= 0 else '-'})"

        plan = _plan(lambda: self.seed_arrays()[2], lambda: self.seed_arrays()[3], n_workers, budget,
                     describe, most, self.n_seeds)
        # two builds of one source: counting (no streaming code in the hot loop) and listing
        module = load_module("rdmce.cu", defines={**_DEFINES, "STREAMING": int(stream)})
        kernel = module.get_function("rdmce_kernel")
        return Setup(plan, sms, n_workers, module, kernel, kernel.num_regs, kernel.local_size_bytes)

    def start(self, hist_len=1):
        cupy = self.cupy
        prep = self.prep
        self.indptr = prep.device.array("indptr", prep.indptr)
        self.indices = prep.device.array("indices", prep.indices)
        # one zeroed buffer (one copy back): per worker count, nodes, busy cycles (64-bit), seeds
        # taken, branches pulled (32-bit), then the size histogram
        self.hist_len = max(1, hist_len)
        self.state = cupy.zeros(4 * self.n_workers + self.hist_len, dtype=cupy.uint64)
        self.stats = _stats_views(self.state, self.n_workers)
        self.hist = self.state[4 * self.n_workers:]
        self.device_bytes = self.indptr.nbytes + self.indices.nbytes + self.hist.nbytes

    def passes(self):
        """Per pass: allocate the workers' buffers and yield (seed count, workers, launch)."""
        cupy = self.cupy
        seeding, dev = self.p["seeding"], self.prep.device
        for idx, rows_cap, stack_cap, workers in self.plan:
            if len(idx) == self.n_seeds and self.every_seed:  # one pass of every seed: the kept copies
                su = dev.array(("seed u", seeding), lambda: self.seed_arrays()[0])
                sv = dev.array(("seed v", seeding), lambda: self.seed_arrays()[1])
            else:
                u, v = self.seed_arrays()[:2]
                su, sv = cupy.asarray(u[idx]), cupy.asarray(v[idx])
            # the zeroed per-pass words in one buffer: ctrl first (its stop word on a line of its
            # own), then per worker the exposure word (64-bit), copying, rows users, task info
            zeroed = cupy.zeros(CTRL_SPAN + 12 * workers, dtype=cupy.int32)
            at = np.cumsum([CTRL_SPAN, 2 * workers, workers, workers])
            bufs = dict(
                rows=cupy.empty(workers * rows_cap, dtype=cupy.uint32),
                stack=cupy.empty(workers * stack_cap, dtype=cupy.uint32),
                ctrl=zeroed[:STOP_AT + 1], expo=zeroed[at[0]: at[1]].view(cupy.uint64),
                copying=zeroed[at[1]: at[2]], rows_users=zeroed[at[2]: at[3]], task_info=zeroed[at[3]:],
            )
            self.device_bytes = max(self.device_bytes, self.indptr.nbytes + self.indices.nbytes
                                    + su.nbytes * 2 + bufs["rows"].nbytes + bufs["stack"].nbytes
                                    + zeroed.nbytes + self.state.nbytes)

            yield len(idx), workers, functools.partial(self._launch, bufs, su, sv, len(idx), workers,
                                                       rows_cap, stack_cap)
            del bufs

    def _launch(self, _b, _su, _sv, _n, _w, _rc, _sc, flags, lo=0, hi=INT32_MAX, ring=None):
        """One kernel launch on a pass; its statistics are added to the run's. Returns ctrl."""
        r = ring or {}
        none = self.hist  # any device pointer for the unused streaming fields
        set_params(self.module, PARAMS, indptr=self.indptr, indices=self.indices, seed_u=_su,
                   seed_v=_sv, rows_buf=_b["rows"], stack_buf=_b["stack"], expo=_b["expo"],
                   copying=_b["copying"], rows_users=_b["rows_users"], task_info=_b["task_info"],
                   ctrl=_b["ctrl"], worker_count=self.stats[0], worker_nodes=self.stats[1],
                   worker_cycles=self.stats[2], worker_seeds=self.stats[3], worker_steals=self.stats[4],
                   hist=self.hist,
                   ring=r.get("ring", none), chunk_len=r.get("chunk_len", none),
                   chunk_recs=r.get("chunk_recs", none), chunk_next=_b["ctrl"][4:],
                   resume=r.get("resume", none), stop=_b["ctrl"][STOP_AT:], rows_cap=_rc, stack_cap=_sc,
                   n_seeds=_n, tau=self.p["tau"], flags=flags, n_workers=_w, min_size=lo, max_size=hi,
                   hist_len=self.hist_len, chunk_words=r.get("chunk_words", 0),
                   vert_soft=r.get("vert_soft", 0),
                   chunk_soft=r.get("chunk_soft", 0), chunk_hard=r.get("chunk_hard", 0))
        self.kernel((-(-_w // WARPS_PER_BLOCK),), (32 * WARPS_PER_BLOCK,), ())   # adds to the stats
        return _b["ctrl"]

    def check(self, ctrl):
        """Raise on the kernel's error flags (``ctrl`` on the device or already on the host)."""
        err = int(ctrl[2])
        if err & ERR_CAPACITY:
            raise RuntimeError("RDMCE: a seed exceeded its buffer bound (internal error; please report)")
        if err & ERR_RING:
            raise RuntimeError("RDMCE: the streaming ring overflowed (internal error; please report)")

    def fetch(self) -> list[np.ndarray]:
        """The statistics (``stats``' five arrays) and the histogram on the host, in one copy."""
        flat = self.state.get()
        return [*_stats_views(flat, self.n_workers), flat[4 * self.n_workers:]]

    def result(self, count, gpu_ms, histogram=None, extra=None, host=None) -> RDMCEResult:
        host = self.fetch() if host is None else host
        return RDMCEResult(
            count=count,
            params={**self.p, "sms": self.sms, "workers": self.n_workers, **(extra or {}),
                    "regs": self.setup.regs, "spill_bytes": self.setup.spill_bytes, "build": build_name()},
            gpu_ms=gpu_ms, prep_s=self.prep.prep_s, device_bytes=int(self.device_bytes),
            worker_count=host[0], worker_nodes=host[1], worker_cycles=host[2],
            worker_seeds=host[3], worker_steals=host[4], passes=len(self.plan), histogram=histogram,
        )


def _run(prep: Prepared, min_size, max_size, histogram, isolated, max_buffer_bytes, params,
         seeds=None, progress=None, timed=True) -> RDMCEResult:
    # a count over every seed keeps its one-pass setup: without the free-memory query, the planning
    # and the kernel lookup a warm count of CA-GrQc took 0.50 ms, not 0.54 (one H200, same process:
    # logs/ab_warm_untimed_h200_65b6666.log)
    key = plan_key("count", max_buffer_bytes, *sorted(_DEFINES.items()), *sorted(params.items())
                   ) if seeds is None else None

    def count(setup: Setup) -> RDMCEResult:
        dev = _Device(prep, params, max_buffer_bytes, seeds=seeds, setup=setup)
        return _count(dev, min_size, max_size, histogram, isolated, progress, timed)

    return with_kept_plan(prep.memo, key, lambda: _Device(prep, params, max_buffer_bytes, seeds=seeds).setup,
                          lambda setup: len(setup.plan) == 1, count)


def _count(dev: _Device, min_size, max_size, histogram, isolated, progress, timed) -> RDMCEResult:
    prep = dev.prep
    on, lo, hi = size_range(min_size, max_size)
    flags = dev.flags | FLAG_SIZES * on | FLAG_HIST * bool(histogram)
    timer = CudaTimer(timed).start()
    dev.start(hist_len=prep.d + 3 if histogram else 1)
    singles = len(extra_singletons(prep, isolated, lo, hi))
    # a bar over the seeds of every pass; on Ctrl-C the seeds taken all finish (worker_seeds)
    with Watch(dev.n_seeds, progress=progress, what="RDMCE", unit="seed",
               finished=lambda: int(dev.stats[3].sum()), found=lambda: int(dev.stats[0].sum()) + singles,
               found_what="maximal cliques") as w:
        for n_seeds, _, launch in dev.passes():
            ctrl = launch(flags, lo, hi)
            w.wait(ctrl[:2], n_seeds, ctrl[STOP_AT:])  # seeds taken, tasks active; the stop word
            dev.check(ctrl)
    host = dev.fetch()
    count = int(host[0].sum()) + singles
    gpu_ms = timer.stop()
    extra = {"min_size": min_size, "max_size": max_size, "histogram": bool(histogram), "isolated": isolated}
    return dev.result(count, gpu_ms, histogram_dict(host[5], singles) if histogram else None, extra, host)


def _stream(prep, block_size, min_size, max_size, isolated, as_cupy, ring_words, chunk_words, csr_words,
            max_buffer_bytes, stats, params):
    """Generator behind ``Prepared.blocks``: relaunch the kernel on a ring until the search ends."""
    _check_block_size(block_size)
    on, lo, hi = size_range(min_size, max_size)
    require_gpu()
    # a given ring_words is used as is; by default the ring starts at FIRST_RING_BYTES and doubles
    ring_bytes = 4 * int(ring_words) if ring_words is not None else default_ring_bytes(free_bytes())
    first = ring_bytes if ring_words is not None else min(ring_bytes, FIRST_RING_BYTES)
    if csr_words is not None and not is_int_at_least(csr_words, 1):
        raise ValueError(f"csr_words must be a positive int (vertices per launch), got {csr_words!r}")
    # device memory besides the workers' buffers: the ring and two launches' CSR (the one handed out,
    # the next one)
    reserve = ring_bytes + 2 * csr_bytes(ring_bytes // 4, vert_soft(ring_bytes // 4, csr_words))
    dev = _Device(prep, params, max_buffer_bytes, reserve_bytes=reserve, stream=True)
    return _stream_gen(prep, dev, int(block_size), on, lo, hi, isolated, as_cupy,
                       (first // 4, ring_bytes // 4), chunk_words, csr_words, stats)


def _stream_gen(prep, dev, block_size, on, lo, hi, isolated, as_cupy, ring_words, chunk_words, csr_words,
                stats):
    """``ring_words``: (first, cap) ring words (``ring_sizes``); ``csr_words``: vertices per launch
    (None: ``CSR_PER_RING_WORD`` per word of the launch's ring)."""
    cupy = dev.cupy
    order = cupy.asarray(prep.order.astype(np.int32))
    singles = extra_singletons(prep, isolated, lo, hi)
    if len(singles):                            # isolated vertices: cliques the kernel never sees
        for off, ver in split_blocks(np.arange(len(singles) + 1, dtype=np.int64),
                                     prep.order[singles].astype(np.int32), block_size):
            yield (cupy.asarray(off), cupy.asarray(ver)) if as_cupy else (off, ver)
    dev.start()
    unpack = dev.module.get_function("rdmce_unpack")
    side = cupy.cuda.Stream(non_blocking=True)  # block boundaries and host copies, beside the next launch
    flags = dev.flags | FLAG_STREAM | FLAG_SIZES * on
    launches = 0
    spans = {"kernel": [], "unpack": []}     # CUDA events around each launch and each unpack

    def timed(what, fn, *a):
        e0, e1 = cupy.cuda.Event(), cupy.cuda.Event()
        e0.record()
        out = fn(*a)
        e1.record()
        spans[what].append((e0, e1))
        return out

    def new_ring(words, workers, resume):
        cw, soft, hard = ring_layout(prep.d, workers, words, chunk_words)
        return dict(ring=cupy.empty(hard * cw, dtype=cupy.int32), chunk_len=cupy.zeros(hard, cupy.int32),
                    chunk_recs=cupy.zeros(hard, cupy.int32), resume=resume, chunk_words=cw, chunk_soft=soft,
                    chunk_hard=hard, vert_soft=vert_soft(hard * cw, csr_words))

    base_bytes, top_ring = dev.device_bytes, 0
    for _, workers, launch in dev.passes():
        sizes = ring_sizes(*ring_words)
        ring = new_ring(next(sizes), workers, cupy.zeros(RESUME_INTS * workers, cupy.int32))
        top_ring = max(top_ring, ring["ring"].nbytes)
        ctrl = timed("kernel", launch, flags, lo, hi, ring)
        while True:
            launches += 1
            c = ctrl.get()                      # the one wait per launch: its end
            dev.check(c)
            stopped, n_chunks, n_recs, n_verts = launch_totals(c, ring["chunk_hard"])
            csr = timed("unpack", _unpack, cupy, unpack, ring, n_chunks, n_recs, n_verts, order)
            ready = cupy.cuda.Event()
            ready.record()
            if stopped:       # double buffering: relaunch now; the ring is free once unpacked
                ctrl[3:].fill(0)
                words = next(sizes)
                if words * 4 > ring["ring"].nbytes:   # a larger ring (stream order: after the unpack)
                    ring = new_ring(words, workers, ring["resume"])
                    top_ring = max(top_ring, ring["ring"].nbytes)
                ctrl = timed("kernel", launch, flags | FLAG_RESUME, lo, hi, ring)
            side.wait_event(ready)
            with side:
                cuts = block_cuts(csr[0], block_size)
            for off, ver in split_blocks(*csr, block_size, cuts, rebase=as_cupy):
                if as_cupy:
                    yield off, ver
                else:         # copied on the side stream while the next launch runs
                    off = off.get(stream=side)
                    yield off - off[0], ver.get(stream=side)
            del csr
            if not stopped:
                break
    dev.device_bytes = max(base_bytes, dev.device_bytes) + top_ring
    if stats is not None:
        stats.update(launches=launches, passes=len(dev.plan), device_bytes=int(dev.device_bytes),
                     nodes=int(dev.stats[1].sum()), count=int(dev.stats[0].sum()) + len(singles),
                     ring_bytes=int(top_ring),
                     **{f"{k}_ms": sum(cupy.cuda.get_elapsed_time(a, b) for a, b in ev)
                        for k, ev in spans.items()})


def _unpack(cupy, kernel, ring, n_chunks, n_recs, n_verts, order):
    """The CSR (offsets int64, vertices int32, graph ids) of one launch's ring, built on the GPU; the
    totals come from the launch's ``ctrl`` (no further wait)."""
    offsets = cupy.empty(n_recs + 1, dtype=cupy.int64)
    vertices = cupy.empty(n_verts, dtype=cupy.int32)
    offsets[n_recs] = n_verts
    if n_chunks:
        rec_base, vert_base = chunk_bases(cupy, ring["chunk_len"][:n_chunks], ring["chunk_recs"][:n_chunks],
                                          totals=False)
        kernel((-(-n_chunks // WARPS_PER_BLOCK),), (32 * WARPS_PER_BLOCK,),
               (ring["ring"], ring["chunk_recs"], rec_base, vert_base, order,
                np.int32(n_chunks), np.int32(ring["chunk_words"]), offsets, vertices))
    return offsets, vertices


def prepared(G: Graph) -> Prepared:
    """``prepare(G)`` kept with ``G`` (``mce_kit.prepared``): later calls reuse its order and seeds."""
    return kept(G, ("rdmce",), lambda: prepare(G))


def count_maximal_cliques(G: Graph, min_size=None, max_size=None, isolated=True, **params) -> int:
    """Number of maximal cliques of ``G`` with size in [min_size, max_size] (isolated vertices
    count as cliques of size 1 unless ``isolated=False``); nothing is listed."""
    return prepared(G).run(min_size=min_size, max_size=max_size, isolated=isolated, timed=False,
                           **params).count


def clique_size_histogram(G: Graph, isolated=True, **params) -> dict[int, int]:
    """{size: number of maximal cliques}, counted in the kernel (nothing is listed)."""
    return prepared(G).run(histogram=True, isolated=isolated, timed=False, **params).histogram


def maximal_clique_blocks(G: Graph, block_size: int = 1 << 20, *, min_size=None, max_size=None,
                          isolated=True, as_cupy=False, **params):
    """Maximal cliques of ``G`` as CSR blocks ``(offsets, vertices)`` of at most ``block_size``
    cliques: clique i of a block is ``vertices[offsets[i]:offsets[i + 1]]`` (vertex ids of ``G``)."""
    return prepared(G).blocks(block_size, min_size=min_size, max_size=max_size, isolated=isolated,
                             as_cupy=as_cupy, **params)


def maximal_cliques(G: Graph, **params) -> list[np.ndarray]:
    """Every maximal clique of ``G`` as an array of vertex ids (small graphs; see maximal_clique_blocks)."""
    out = []
    for off, ver in maximal_clique_blocks(G, **params):
        out.extend(np.split(ver, off[1:-1]))
    return out
