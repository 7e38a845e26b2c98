"""Several GPUs (or several CPU processes) through Dask.

    from dask.distributed import Client
    mk.count_maximal_cliques(G, device="gpu", client=Client("tcp://scheduler:8786"))
    mk.count_maximal_cliques(G, device="gpu", gpus=2)     # a LocalCUDACluster for this call only
    res = mk.distributed.run(G, "rdmce", client)          # the answer and one row per chunk
    md.count_k_cliques(G, 7, gpus=2); md.count_maximal_bicliques(B, client=client)
    md.count_maximal_cliques(G, algorithm="mce-gpu", subtree="L2", client=client)

Kernels and their tasks: rdmce (edge seeds), mce-gpu (vertex or edge sub-trees,
``subtree=``), kcminer (oriented edges, ``k=``), cliquecount (oriented edges, every k at
once: ``clique_counts``), gmbe (roots: vertices of the smaller side V); each has a CPU
twin (``CPU_TWIN``: the oracle on the same tasks) that CI runs on a CPU ``LocalCluster``.
Geil's maximum cliques are not split: its windows share one lower bound that every later
window prunes with (see ``KERNELS``' comment).

The host prepares the graph once (degeneracy order, seeds, a cost estimate
per seed) and scatters it to every worker once. The tasks are dealt by
estimated cost into chunks (one per worker by default, each worker's first
chunk sent to it); with more chunks per worker the costliest go first and a
worker that finishes early takes the next. A Job run again with one chunk per
worker moves tasks from the chunks that ran long to those that ran short
(``rebalanced``): the estimate misses single tasks, the busy times do not.
``queue="shared"`` instead lets
every GPU take tasks from one counter they all reach (see ``run``). Dask
re-runs the chunks of a worker that dies; a chunk that raises stops the run
with the seeds it held, never a partial answer. Counts are Python ints, so
the sum is exact at any size.

A kernel joins by an entry in ``KERNELS``: how to prepare the graph, the
cost of each task, how to run a set of tasks, and what no task covers.

On a GPU host without dask-cuda, ``gpus=N`` starts ``pinned_cluster``: plain
``distributed`` workers, one per GPU. Install: ``pip install 'mce_kit[dist]'``; on a
machine without network, carry the wheels (dask, distributed, partd, locket, tblib,
tornado, zict) and ``pip install --no-index --no-deps --target /tmp/site .whl/*.whl``
(``scripts/multigpu_device.sh`` does it).
"""

from __future__ import annotations

import itertools
import operator
import os
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import reduce

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Kernel:
    name: str
    prepare: Callable[..., object]  # (graph, **params) -> prepared: host work, once; scattered to the workers
    costs: Callable[..., np.ndarray]  # (prepared, **params) -> estimated cost of each task
    run_tasks: Callable[..., int]  # (prepared, task indices, **params) -> answer of those tasks
    rest: Callable[..., int]  # (prepared, **params) -> the part of the answer no task covers (on the host)
    task_params: tuple = ()  # parameters that change the task list (fixed when the Job is prepared)
    single_gpu_below: float = 0.0  # gpus=N answers on one GPU below this total cost (0: not measured)
    problem: str = "mce"  # the reference table (mce_kit.references) the answer is checked against
    finish: Callable[..., object] = None  # (prepared, sum of the answers, **params) -> the answer

    def answer(self, prep, parts, **params):
        """The chunks' answers (ints, or Counters of {k: count}) and ``rest`` added up, then ``finish``."""
        total = reduce(operator.add, parts, self.rest(prep, **params))
        return total if self.finish is None else self.finish(prep, total, **params)


def _mce_cost(indptr, indices, u, v) -> np.ndarray:
    """Estimated time of each edge seed: 2**(|P| / 6). Over the bundled graphs this tracks RDMCE's
    measured kernel time within a factor of about 7 (about 5e4 units a millisecond on an H100),
    where the buffer bound (rows + stack words) misses ego-Facebook's cost by 100x."""
    p = common_later_neighbours(indptr, indices, u, v)
    return np.exp2(np.minimum(p, 300) / 6.0)


def _rdmce_prepare(G, **params):
    from .gpu import rdmce

    prep = rdmce.prepare(G)
    prep.seed_arrays("edge")  # computed once here, scattered with the graph
    return prep


def common_later_neighbours(indptr, indices, u, v, block: int = 1 << 20) -> np.ndarray:
    """|N+(u) ∩ N+(v)| for each edge seed (N+ = neighbours later in the order): the seed's |P|."""
    import scipy.sparse as sp

    n = len(indptr) - 1
    A = sp.csr_matrix((np.ones(len(indices), dtype=np.float32), indices, indptr), shape=(n, n))
    upper = sp.triu(A, 1).tocsr()
    out = np.empty(len(u), dtype=np.int64)
    for s in range(0, len(u), block):
        e = slice(s, s + block)
        out[e] = np.asarray(upper[u[e]].multiply(upper[v[e]]).sum(axis=1)).ravel()
    return out


def _rdmce_costs(prep, **params) -> np.ndarray:
    u, v, _, _ = prep.seed_arrays("edge")
    return _mce_cost(prep.indptr, prep.indices, u, v)


def _rdmce_run(prep, idx, **params) -> int:
    return prep.run(seeds=idx, seeding="edge", **params).count


def _oracle_run(prep, idx, **params) -> int:
    from .cpu.mce import count_from_seeds

    u, v, _, _ = prep.seed_arrays("edge")
    return count_from_seeds(prep.indptr, prep.indices, u[idx], v[idx])


def _isolated(prep, **params) -> int:
    return len(prep.isolated)


# ---- mce-gpu: a sub-tree per vertex (L1) or per edge (L2) ----


def _mcegpu_prepare(G, **params):
    from .gpu import mcegpu

    prep = mcegpu.prepare(G)
    prep.seed_arrays("L2")  # the costs of both kinds come from the edge seeds
    prep.seed_arrays(mcegpu._check(params)["subtree"])
    return prep


def _mcegpu_costs(prep, subtree: str = "L1", **params) -> np.ndarray:
    """L2: the edge seed's cost as for RDMCE; L1: the sum over the vertex's edge seeds (its sub-tree
    holds theirs), plus one."""
    u, v, _, _ = prep.seed_arrays("L2")
    edge = _mce_cost(prep.indptr, prep.indices, u, v)
    if subtree == "L2":
        return edge
    vu = prep.seed_arrays("L1")[0]
    return 1.0 + np.bincount(u, weights=edge, minlength=len(prep.indptr) - 1)[vu]


def _mcegpu_run(prep, idx, **params) -> int:
    return prep.run(seeds=idx, **params).answer


def _mcegpu_oracle(prep, idx, **params) -> int:
    from .cpu.mce import count_from_seeds
    from .gpu import mcegpu

    p = mcegpu._check(params)  # the same parameters as the kernel (typos raise TypeError)
    u, v, _, _ = prep.seed_arrays(p["subtree"])
    return count_from_seeds(prep.indptr, prep.indices, u[idx], v[idx])


# ---- KCMiner: a task per oriented edge ----


def _kc_params(params) -> dict:
    from .gpu import kclique

    p = kclique.check_params(params, kclique.DEFAULTS, "KCMiner")
    if int(p["k"]) < 3:
        raise ValueError(f"k must be >= 3 to split into edge tasks (k = 1, 2 are n and m), got {p['k']}")
    return p


def _kc_prepare(G, **params):
    from .gpu import kclique

    return kclique.prepare(G, _kc_params(params)["order"])


def _kc_costs(prep, **params) -> np.ndarray:
    """|S| = common later neighbours of the edge: ``kclique.listing_cost`` (what KCMiner's split sizes
    its pieces by); tasks with |S| < k - 2 cost one."""
    from .gpu.kclique import listing_cost

    p = _kc_params(params)
    ori = prep.orient(p["order"])
    s = common_later_neighbours(ori.indptr, ori.indices, ori.u, ori.v)
    k = int(p["k"])
    return np.where(s >= k - 2, listing_cost(s, k), 1.0)


def _kc_run(prep, idx, **params) -> int:
    return prep.run(tasks=idx, **params).answer


def _kc_oracle(prep, idx, **params) -> int:
    from .cpu.kclique import count_from_edge_tasks

    p = _kc_params(params)
    ori = prep.orient(p["order"])
    return count_from_edge_tasks(ori.out_ptr, ori.out_idx, ori.u[idx], ori.v[idx], int(p["k"]))


# ---- GMBE+: a root per vertex of the smaller side V ----


def _gmbe_prepare(B, **params):
    from .gpu import gmbe

    return gmbe.prepare(B)


def _gmbe_costs(prep, **params) -> np.ndarray:
    """2-paths from the root (what the launcher orders the roots by) plus its 2-hop size."""
    return 1.0 + prep.p2.astype(np.float64) + prep.nw


def _gmbe_run(prep, idx, **params) -> int:
    return prep.run(seeds=idx, **params).answer


def _gmbe_oracle(prep, idx, **params) -> int:
    from .cpu.mbe import count_maximal_bicliques
    from .gpu import gmbe

    p = gmbe._check(params)
    if int(p["min_left"]) > 1 or int(p["min_right"]) > 1:
        raise NotImplementedError("gmbe-cpu: the CPU oracle counts every maximal biclique (min_left/"
                                  "min_right = 1)")
    return count_maximal_bicliques(prep.B, roots=prep.order[prep.seeds[np.asarray(idx)]])


def _none(prep, **params) -> int:
    return 0


# ---- clique counts for every k (pivoting): a task per oriented edge ----


def _cc_params(params) -> dict:
    from .gpu import cliquecount, kclique

    p = kclique.check_params(params, cliquecount.DEFAULTS, "clique counts")
    if p["k_max"] is not None and int(p["k_max"]) < 1:
        raise ValueError(f"k_max must be >= 1, got {p['k_max']}")
    return p


def _cc_prepare(G, **params):
    from .gpu import cliquecount

    return cliquecount.prepare(G, _cc_params(params)["order"])


def _cc_costs(prep, **params) -> np.ndarray:
    """As for a maximal-clique seed: a pivot tree grows like the maximal cliques below the edge."""
    ori = prep.orient(_cc_params(params)["order"])
    return _mce_cost(ori.indptr, ori.indices, ori.u, ori.v)


def _cc_run(prep, idx, **params) -> Counter:
    return Counter(prep.run(tasks=idx, **params).answer)


def _cc_oracle(prep, idx, **params) -> Counter:
    from .cpu.pivot import counts_from_edge_tasks

    p = _cc_params(params)
    ori = prep.orient(p["order"])
    k_max = p["k_max"] if p["k_max"] is not None else int(ori.bound.max(initial=0)) + 2
    return Counter(counts_from_edge_tasks(ori.indptr, ori.indices, ori.out_ptr, ori.out_idx, ori.u[idx],
                                          ori.v[idx], k_max))


def _cc_rest(prep, **params) -> Counter:
    return Counter({1: prep.G.n, 2: prep.G.m})


def _cc_finish(prep, total: Counter, **params) -> dict[int, int]:
    """{k: count} for k = 1..k_max, as ``mk.clique_counts`` gives it (None: up to the clique number)."""
    k_max = _cc_params(params)["k_max"]
    top = max((k for k, c in total.items() if c), default=0)
    K = top if k_max is None else int(k_max)
    return {k: int(total.get(k, 0)) for k in range(1, K + 1)}


# Geil (maximum cliques) is left out on purpose: a chunk of sources alone would return its own
# (omega, count), merged by max, which is exact, but each chunk would then lose the bound the
# other sources found (the launcher's windows raise one shared lower bound w and prune every
# later window with it), so chunks would do far more work than one GPU; it needs the bound
# broadcast between workers (a Dask Variable) first.
KERNELS = {
    # single_gpu_below: under this total estimated cost one GPU answered sooner than two through Dask
    # on the 2-GPU hosts (data/results/multigpu_scaling.csv, experiments.multigpu.threshold; a run on
    # the cluster costs about 25-60 ms). KCMiner and the pivot counter scale once heavy edges are
    # split into pieces, and the pivot counter's pieces are taken by their measured tree nodes (2
    # H200s, 36f007b: KCMiner at k = 8 on ego-Facebook 1.92x, the pivot counter 1.86x for every k and
    # 1.90x up to k = 10); KCMiner at k = 7 on ego-Facebook (51 ms on one GPU) gained 1.13-1.17x on
    # two in the last two runs; R-MAT stays on one GPU.
    "rdmce": Kernel("rdmce", _rdmce_prepare, _rdmce_costs, _rdmce_run, _isolated, single_gpu_below=3e6),
    "mce-gpu": Kernel("mce-gpu", _mcegpu_prepare, _mcegpu_costs, _mcegpu_run, _isolated, ("subtree",),
                      single_gpu_below=3e6),
    "kcminer": Kernel("kcminer", _kc_prepare, _kc_costs, _kc_run, _none, ("k", "order"), problem="kclique",
                      single_gpu_below=1e13),
    "gmbe": Kernel("gmbe", _gmbe_prepare, _gmbe_costs, _gmbe_run, _none, problem="mbe",
                   single_gpu_below=1.5e7),
    "cliquecount": Kernel("cliquecount", _cc_prepare, _cc_costs, _cc_run, _cc_rest, ("order",),
                          problem="clique_counts", finish=_cc_finish, single_gpu_below=7e7),
    # The CPU twins: the oracles on the very same tasks, so partitioning, retries and the exact sum
    # are checked without a GPU.
    "mce-cpu": Kernel("mce-cpu", _rdmce_prepare, _rdmce_costs, _oracle_run, _isolated),
    "mce-gpu-cpu": Kernel("mce-gpu-cpu", _mcegpu_prepare, _mcegpu_costs, _mcegpu_oracle, _isolated,
                          ("subtree",)),
    "kcminer-cpu": Kernel("kcminer-cpu", _kc_prepare, _kc_costs, _kc_oracle, _none, ("k", "order"),
                          problem="kclique"),
    "gmbe-cpu": Kernel("gmbe-cpu", _gmbe_prepare, _gmbe_costs, _gmbe_oracle, _none, problem="mbe"),
    "cliquecount-cpu": Kernel("cliquecount-cpu", _cc_prepare, _cc_costs, _cc_oracle, _cc_rest, ("order",),
                              problem="clique_counts", finish=_cc_finish),
}
CPU_TWIN = {"rdmce": "mce-cpu", "mce-gpu": "mce-gpu-cpu", "kcminer": "kcminer-cpu", "gmbe": "gmbe-cpu",
            "cliquecount": "cliquecount-cpu"}


def _on_gpu(kernel: Kernel) -> bool:
    """A GPU kernel, not one of the CPU twins."""
    return kernel.name not in CPU_TWIN.values()

SINGLE_GPU_BELOW = KERNELS["rdmce"].single_gpu_below


def chunk_tasks(costs: np.ndarray, n_chunks: int) -> list[np.ndarray]:
    """Deal tasks 0..len-1 into at most ``n_chunks`` chunks of about equal total cost, costliest
    chunk first; each chunk's indices ascending. Every task lands in exactly one chunk.

    The tasks are dealt by estimated cost, costliest first, in snake order (0..C-1, C-1..0, ...),
    so every chunk holds a few heavy tasks and many light ones: a GPU launch needs many tasks to
    fill its warps, and cutting a cost-sorted list into runs gave one chunk all the heavy tasks (a
    2-GPU run of KCMiner on ego-Facebook took 4x the one-launch time)."""
    costs = np.asarray(costs, dtype=np.float64)
    if len(costs) == 0:
        return []
    n_chunks = max(1, min(int(n_chunks), len(costs)))
    rank = np.empty(len(costs), dtype=np.int64)
    rank[np.argsort(-costs, kind="stable")] = np.arange(len(costs))
    lap, seat = np.divmod(rank, n_chunks)
    chunk = np.where(lap % 2 == 0, seat, n_chunks - 1 - seat)
    parts = [p for p in (np.flatnonzero(chunk == j) for j in range(n_chunks)) if len(p)]
    return sorted(parts, key=lambda p: -costs[p].sum())


REBALANCE_FROM = 0.02  # a run whose busiest chunk took this much over the mean moves tasks for the next
REBALANCE_DAMPING = 0.7  # the share of the measured excess moved (busy times are noisy)


def rebalanced(chunks: list[np.ndarray], costs: np.ndarray, seconds: list[float],
               by_cost: np.ndarray | None = None) -> list[np.ndarray] | None:
    """The chunks after one measured run (``seconds[j]``: chunk j's busy time), with tasks moved
    from those that ran long to those that ran short; None when they are within REBALANCE_FROM.

    A slow chunk gives up an even sample of its tasks in cost order (every s-th, from the s/2-th
    on), so the sample's share of its measured time is about its share of the tasks, whatever the
    estimate gets wrong: s is set by the seconds to move, not by estimated costs. The fast chunks
    take them in turn, each task's seconds split from the sample's by its estimate. Sampling the
    light tasks only (the heaviest 1% kept, the share set by estimates) stalled where the estimate
    misses the heavy tasks most: RDMCE on R-MAT scale 16 on 2 H200s was 16% apart after two runs
    (one chunk 116,000 heavy tasks, the other 793,000; 1.85x one GPU), 11% with this rule (1.88x);
    a model of it in tests converges in 2-3 runs. ``by_cost``: every task, costliest first, ties by
    index (``Job.by_cost``; computed when not given). No sort: a chunk's tasks by cost are read off it."""
    seconds = np.asarray(seconds, dtype=np.float64)
    mean = seconds.mean()
    if len(chunks) < 2 or not mean > 0 or seconds.max() <= mean * (1 + REBALANCE_FROM):
        return None
    costs = np.asarray(costs, dtype=np.float64)
    if by_cost is None:
        by_cost = np.argsort(-costs, kind="stable")
    owner = np.full(len(costs), -1, dtype=np.int64)
    for i, c in enumerate(chunks):
        owner[c] = i
    owner_by_cost = owner[by_cost]
    moved, moved_s = [], []
    for j in np.flatnonzero(seconds > mean):
        stride = int(round(seconds[j] / (REBALANCE_DAMPING * (seconds[j] - mean))))
        mine = by_cost[owner_by_cost == j]
        if stride < 2 or len(mine) < 2 * stride:  # no even sample that small, or the chunk too short
            continue
        give = mine[stride // 2::stride]
        weight = np.maximum(costs[give], 1e-300)
        moved.append(give)
        moved_s.append(weight / weight.sum() * seconds[j] * len(give) / len(mine))
    if not moved:
        return None
    give, give_s = np.concatenate(moved), np.concatenate(moved_s)
    room = REBALANCE_DAMPING * np.maximum(mean - seconds, 0.0)
    first = np.argsort(-give_s, kind="stable")  # the costliest first, each to the chunk with most room
    owner[give[first]] = _fill_by_room(room, give_s[first])
    return [np.flatnonzero(owner == i) for i in range(len(chunks))]


def _fill_by_room(room: np.ndarray, seconds: np.ndarray) -> np.ndarray:
    """The chunk each task goes to, in order: the one with the most room left (the first of equals),
    its room then less the task's ``seconds``. A chunk keeps the most room over a run of tasks, so
    each run is found at once on the running sum, not one task at a time."""
    room = np.array(room, dtype=np.float64)
    total = np.concatenate([[0.0], np.cumsum(seconds)])
    taker = np.empty(len(seconds), dtype=np.int64)
    at = 0
    while at < len(seconds):
        i = int(np.argmax(room))
        rest = np.delete(room, i)
        # i stays strictly ahead of every other chunk while its room, less the run so far, exceeds theirs
        end = len(seconds) if not len(rest) else int(np.searchsorted(total, room[i] - rest.max() + total[at]))
        end = min(max(end, at + 1), len(seconds))
        taker[at:end] = i
        room[i] -= total[end] - total[at]
        at = end
    return taker


# ---- one task queue shared by the workers ----
# With one chunk per worker, every worker gets the whole task list, costliest first, and takes
# its next task from one counter that all of them share, so a worker that runs ahead takes more
# (as the GPU kernels' warps share a launch's counter). GPUs share an int32 counter in the
# driver's GPU memory, mapped into each worker by CUDA IPC and taken with system-scope atomics
# over NVLink (gpu/launch.shared_task_queue); the CPU twins share a counter in a file under a
# lock. Each run takes fresh zeroed counters (QUEUE_SLOTS per run: one per launch of the run).

QUEUE_SLOTS = 16  # counters per run: task-taking launches a run may make (passes, phases)
QUEUE_RUNS = 256  # runs per allocation of counters


class _GpuQueues:
    """Shared-queue counters in this process's GPU memory, exported by CUDA IPC."""

    kind = "gpu"

    def __init__(self):
        import cupy

        from .gpu.launch import QUEUE_SLOT_BYTES

        self.stride = QUEUE_SLOTS * QUEUE_SLOT_BYTES
        self.ptr = cupy.cuda.runtime.malloc(QUEUE_RUNS * self.stride)  # a whole allocation: IPC maps it
        cupy.cuda.runtime.memset(self.ptr, 0, QUEUE_RUNS * self.stride)
        self.where = bytes(cupy.cuda.runtime.ipcGetMemHandle(self.ptr))
        self.used = 0

    def counters(self, offset: int) -> np.ndarray:
        import cupy

        from .gpu.launch import QUEUE_SLOT_BYTES

        host = np.empty(self.stride // 4, np.int32)
        cupy.cuda.runtime.memcpy(host.ctypes.data, self.ptr + offset, host.nbytes,
                                 cupy.cuda.runtime.memcpyDeviceToHost)
        return host[:: QUEUE_SLOT_BYTES // 4]


class _FileQueues:
    """Shared-queue counters in a file (the CPU twins' queue: same protocol, no GPU)."""

    kind = "cpu"

    def __init__(self):
        import tempfile

        self.stride = QUEUE_SLOTS * 8
        fd, self.where = tempfile.mkstemp(prefix="mce_kit-queue-")
        os.write(fd, bytes(QUEUE_RUNS * self.stride))
        os.close(fd)
        self.used = 0

    def counters(self, offset: int) -> np.ndarray:
        return np.fromfile(self.where, np.int64, QUEUE_SLOTS, offset=offset)


_QUEUES: dict = {}  # (client id, kind) -> its counters (kept: workers hold mappings of them)


def _queue_ticket(client, on_gpu: bool) -> tuple[dict, object]:
    """(what a worker needs to reach this run's fresh counters, their owner)."""
    key = (client.id, "gpu" if on_gpu else "cpu")
    q = _QUEUES.get(key)
    if q is None or q.used == QUEUE_RUNS:
        q = _QUEUES[key] = _GpuQueues() if on_gpu else _FileQueues()
    offset, q.used = q.used * q.stride, q.used + 1
    return {"kind": q.kind, "where": q.where, "offset": offset, "slots": QUEUE_SLOTS}, q


_SHARED_OK: dict = {}  # (client id, on a GPU) -> None (a shared queue works) or why not


def _shared_queue_blocker(client, on_gpu: bool) -> str | None:
    """Why the workers of ``client`` cannot share one queue with this process, or None."""
    key = (client.id, on_gpu)
    if key not in _SHARED_OK:
        import socket

        why = None
        hosts = set(client.run(socket.gethostname).values())
        if hosts != {socket.gethostname()}:
            why = "workers on other hosts"
        elif on_gpu:
            why = _peer_atomics_blocker()
        _SHARED_OK[key] = why
    return _SHARED_OK[key]


def _peer_atomics_blocker() -> str | None:
    """None when every pair of this host's GPUs has native atomics over its peer link (the CUDA
    driver's P2P attribute 3, CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED), else why not."""
    import ctypes

    try:
        import cupy

        n = cupy.cuda.runtime.getDeviceCount()
        cuda = ctypes.CDLL("libcuda.so.1")
    except Exception as e:  # no GPU or no driver in this process
        return f"no GPU here ({type(e).__name__})"
    value = ctypes.c_int()
    for a in range(n):
        for b in range(n):
            if a != b and (cuda.cuDeviceGetP2PAttribute(ctypes.byref(value), 3, a, b) or not value.value):
                return f"GPUs {a} and {b} have no native peer atomics"
    return None


_WORKER_PIDS: dict = {}  # client id -> {worker address: its process id} (a part must run where it was sent)
_OPENED: dict = {}  # on a worker: IPC handle -> its address in this process


def _take_from_file(path: str, offset: int, batch: int) -> int:
    """Add ``batch`` to the counter at ``offset`` of ``path`` under a lock; its value before."""
    import fcntl

    with open(path, "r+b") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        f.seek(offset)
        at = int.from_bytes(f.read(8), "little", signed=True)
        f.seek(offset)
        f.write((at + batch).to_bytes(8, "little", signed=True))
        return at


def _run_from_queue(prep, kernel: Kernel, idx: np.ndarray, params: dict, ticket: dict) -> tuple:
    """(answer, task count of each launch) of ``idx`` taken from the shared queue of ``ticket``."""
    if ticket["kind"] == "gpu":
        import cupy

        from .gpu.launch import shared_task_queue

        base = _OPENED.get(ticket["where"])
        if base is None:
            base = _OPENED[ticket["where"]] = cupy.cuda.runtime.ipcOpenMemHandle(
                ticket["where"], cupy.cuda.runtime.cudaIpcMemLazyEnablePeerAccess)
        with shared_task_queue(base + ticket["offset"], ticket["slots"]) as queue:
            answer = kernel.run_tasks(prep, idx, **params)
        return answer, queue["launches"]
    batch = max(1, len(idx) // 256)  # CPU twin: take tasks in small batches
    answer = Counter() if kernel.problem == "clique_counts" else 0
    while (at := _take_from_file(ticket["where"], ticket["offset"], batch)) < len(idx):
        answer = answer + kernel.run_tasks(prep, idx[at: at + batch], **params)
    return answer, [len(idx)]


def _run_chunk(prep, kernel: Kernel, chunk_id: int, idx: np.ndarray, params: dict,
               ticket: dict | None = None) -> dict:
    """One chunk on a Dask worker (``ticket``: all the tasks, taken from a shared queue); returns its
    answer and where and how long it ran."""
    t0 = time.perf_counter()
    launches = None
    try:
        if ticket is None:
            answer = kernel.run_tasks(prep, idx, **params)
        else:
            answer, launches = _run_from_queue(prep, kernel, idx, params, ticket)
    except Exception as e:
        raise RuntimeError(f"{kernel.name}: chunk {chunk_id} (tasks {int(idx[0])}..{int(idx[-1])}, "
                           f"{len(idx)} seeds) failed: {type(e).__name__}: {e}") from e
    try:
        from distributed import get_worker

        worker = get_worker().name
    except (ImportError, ValueError):
        worker = "local"
    answer = answer if isinstance(answer, Counter) else int(answer)
    return {"chunk": chunk_id, "answer": answer, "tasks": len(idx), "first": int(idx[0]),
            "seconds": time.perf_counter() - t0, "worker": str(worker), "pid": os.getpid(),
            "started": t0, "launches": launches}


@dataclass
class Job:
    """A graph prepared on the host for one kernel: what is scattered, and each task's cost."""

    kernel: Kernel
    prep: object
    costs: np.ndarray
    seconds: float
    params: dict = field(default_factory=dict)  # the parameters it was prepared with
    scattered: dict = field(default_factory=dict, repr=False)  # client id -> the prep on its workers
    dealt: dict = field(default_factory=dict, repr=False)  # chunk count -> the chunks (chunk_tasks)
    held: list = field(default_factory=list, repr=False)  # the last run's finished futures (_run_dealt)

    def by_cost(self) -> np.ndarray:
        """Every task, costliest first (what each worker gets from a shared queue)."""
        if "by_cost" not in self.dealt:
            self.dealt["by_cost"] = np.argsort(-self.costs, kind="stable")
        return self.dealt["by_cost"]

    def chunks(self, n_chunks: int) -> list[np.ndarray]:
        """``chunk_tasks`` of the Job's costs, kept per chunk count (a later run deals the same, as
        ``learn`` moved them)."""
        if n_chunks not in self.dealt:
            self.dealt[n_chunks] = chunk_tasks(self.costs, n_chunks)
        return self.dealt[n_chunks]

    def learn(self, n_chunks: int, rows: list[dict]) -> None:
        """After a run of one chunk per worker, each chunk's busy time moves tasks between the
        chunks for the next run (``rebalanced``)."""
        chunks = self.dealt.get(n_chunks)
        seconds = {r["chunk"]: r["seconds"] for r in rows}
        if chunks is None or sorted(seconds) != list(range(len(chunks))):
            return
        better = rebalanced(chunks, self.costs, [seconds[j] for j in range(len(chunks))], self.by_cost())
        if better is not None:
            self.dealt[n_chunks] = better

    def remote(self, client, *, lost: bool = False):
        """The prepared graph on ``client``'s workers: scattered to all of them on first use, then
        kept with the Job, so a later run skips the copy and finds the workers' kept state (the
        exact sizes of split tasks, compiled kernels) warm. ``lost=True`` scatters it again (Dask's
        memory manager may keep one replica only, and a killed worker can take that one along)."""
        future = self.scattered.get(client.id)
        if lost or future is None or future.status != "finished":
            # hash=False: a fresh key, never shared with another Job's (or an earlier scatter's) data
            future = self.scattered[client.id] = client.scatter(self.prep, broadcast=True, hash=False)
        return future

    def merged(self, params: dict) -> dict:
        """The Job's parameters updated by ``params``, which may not change the task list."""
        changed = [k for k in self.kernel.task_params
                   if k in params and (k not in self.params or params[k] != self.params[k])]
        if changed:
            had = ", ".join(f"{k}={self.params.get(k, 'default')!r}" for k in changed)
            raise ValueError(f"{self.kernel.name}: {', '.join(changed)} fix the task list; prepare a new Job "
                             f"with them (this one has {had})")
        return {**self.params, **params}


def _kernel(kernel: str | Kernel) -> Kernel:
    if isinstance(kernel, Kernel):
        return kernel
    if kernel not in KERNELS:
        raise ValueError(f"unknown kernel {kernel!r}; one of {', '.join(KERNELS)}")
    return KERNELS[kernel]


def prepare(G, kernel: str | Kernel, **params) -> Job:
    """Host work for ``kernel`` on ``G`` (a BipartiteGraph for gmbe): order, tasks, their costs.
    ``params`` that shape the task list (mce-gpu's subtree, KCMiner's k and order) go here."""
    kernel = _kernel(kernel)
    t0 = time.perf_counter()
    prep = kernel.prepare(G, **params)
    return Job(kernel, prep, np.asarray(kernel.costs(prep, **params), dtype=np.float64),
               time.perf_counter() - t0, dict(params))


MAX_RESUBMITS = 3  # times a chunk cancelled by lost data is submitted again before the run fails
CHUNK_COLUMNS = ["chunk", "answer", "tasks", "first", "seconds", "worker", "pid", "started", "launches"]


@dataclass
class DistributedResult:
    answer: int
    seconds: float  # graph on the host -> answer back (the scatter included on a Job's first run)
    prep_s: float
    workers: int
    chunks: pd.DataFrame = field(repr=False)  # one row per chunk
    queue: str = "dealt"  # "shared" (one task queue for all workers) or "dealt" (and why not shared)

    def busy(self) -> pd.DataFrame:
        """Per worker: chunks taken and seconds spent in them."""
        return self.chunks.groupby("worker").agg(chunks=("chunk", "size"), busy_s=("seconds", "sum"),
                                                 tasks=("tasks", "sum")).reset_index()


def run(G, kernel: str | Kernel | Job, client, *, chunks_per_worker: int = 1, in_flight: int = 2,
        on_result: Callable[[dict], None] | None = None, queue: str = "dealt", **params) -> DistributedResult:
    """Answer ``kernel``'s question on ``G`` with the workers of the Dask ``client``.

    Pass a ``Job`` from ``prepare`` as ``kernel`` to skip the host preparation and, after its first
    run on ``client``, the copy of the graph to the workers (``Job.remote``; ``G`` is then unused);
    ``on_result`` is called with each chunk's row as it arrives (progress bars, tests that kill a
    worker). ``queue``: "dealt" (the default) deals the tasks out in chunks by estimated cost;
    "shared" gives every worker all the tasks from one shared queue (one chunk per worker, workers
    on this host; GPUs need native peer atomics). A shared run that loses a worker, or whose
    workers launched differently, is run again dealt (``DistributedResult.queue`` says so).

    Measured on 2 H200s (multigpu_scaling.csv): the shared queue balances KCMiner, whose tasks
    are whole units of work, but RDMCE, mce-gpu and GMBE+ claim seeds far faster than they finish
    them (exposed branches, donations), so the GPU whose kernel starts first claims the whole
    costly head of the list within microseconds and the other finds little left; dealt chunks
    split that head evenly, so they stay the default.
    """
    job = kernel if isinstance(kernel, Job) else prepare(G, kernel, **params)
    params = job.merged(params)
    if queue not in ("shared", "dealt"):
        raise ValueError(f"queue must be 'shared' or 'dealt', got {queue!r}")
    t1 = time.perf_counter()
    workers = list(client.scheduler_info()["workers"])
    how = "dealt"
    if queue == "shared":
        why = ("several chunks per worker" if chunks_per_worker != 1 else "one worker" if len(workers) < 2
               else _shared_queue_blocker(client, _on_gpu(job.kernel)))
        if why is not None:
            raise ValueError(f"queue='shared' is not possible here: {why}")
        rows, why = _run_shared(job, client, workers, params)
        if rows is not None:
            if on_result:
                for row in rows:
                    on_result(row)
            return _result(job, rows, t1, len(workers), params, "shared")
        how = f"dealt ({why})"
    rows = _run_dealt(job, client, workers, chunks_per_worker, in_flight, on_result, params)
    if chunks_per_worker == 1 and len(rows) == len(workers):
        job.learn(len(workers), rows)  # a Job run again deals its tasks by the busy times measured
    return _result(job, rows, t1, max(1, len(workers)), params, how)


def _result(job, rows, t1, n_workers, params, queue) -> DistributedResult:
    answer = job.kernel.answer(job.prep, [r["answer"] for r in rows], **params)
    table = pd.DataFrame(rows, columns=CHUNK_COLUMNS).sort_values("chunk").reset_index(drop=True)
    return DistributedResult(answer, time.perf_counter() - t1, job.seconds, n_workers, table, queue)


def _run_shared(job, client, workers: list, params: dict) -> tuple[list | None, str]:
    """Every worker runs all the tasks, costliest first, taking them from one shared queue: (the
    rows, "shared"), or (None, why the run cannot be trusted) after checking that each worker
    answered once, all launched the same task lists, and every task was taken."""
    pids = _WORKER_PIDS.get(client.id)
    if pids is None or set(pids) != set(workers):
        pids = _WORKER_PIDS[client.id] = client.run(os.getpid)
    ticket, owner = _queue_ticket(client, _on_gpu(job.kernel))
    idx = job.by_cost()
    remote = job.remote(client)
    stamp = f"{os.getpid()}-{time.monotonic_ns()}"
    futures = [client.submit(_run_chunk, remote, job.kernel, i, idx, params, ticket, workers=[w],
                             allow_other_workers=True, pure=False,
                             key=f"{job.kernel.name}-shared-{i}-{stamp}")
               for i, w in enumerate(workers)]
    try:
        rows = client.gather(futures)
    except Exception as e:
        client.cancel(futures)  # a part still running ends in its own time; its answer is dropped
        return None, f"a shared run failed ({type(e).__name__}: {str(e).splitlines()[0][:200]})"
    except BaseException:
        client.cancel(futures)
        raise
    launches = [tuple(r["launches"]) for r in rows]
    taken = owner.counters(ticket["offset"])
    if [r["pid"] for r in rows] != [pids[w] for w in workers]:
        # a part ran in another process than the one it was given to: the process that took its
        # first tasks died with them (Dask ran the part again elsewhere)
        _WORKER_PIDS.pop(client.id, None)
        return None, "a shared run lost a worker (another process ran its part)"
    if len(set(launches)) != 1:
        return None, f"the workers launched different task lists: {sorted(set(launches))}"
    if any(taken[i] < n for i, n in enumerate(launches[0])):
        return None, "a shared run left tasks untaken"
    return rows, "shared"


def _run_dealt(job, client, workers: list, chunks_per_worker: int, in_flight: int, on_result,
               params) -> list:
    """The tasks dealt into chunks by estimated cost, a few in flight per worker, the first chunk
    of each worker sent to it (Dask alone sometimes queued two chunks on one GPU while the other
    idled); a chunk lost with its worker is run again (with the graph scattered again if its last
    copy went too)."""
    import dask
    from distributed import as_completed
    from distributed.client import FutureCancelledError

    n_workers = max(1, len(workers))
    kernel = job.kernel
    chunks = job.chunks(chunks_per_worker * n_workers)
    todo = iter(enumerate(chunks))
    window = as_completed(with_results=True, raise_errors=False)  # results fetched as chunks finish
    chunk_of: dict[str, tuple] = {}  # future key -> (chunk, its tasks, resubmits, the graph's key it read)

    def submit(*items: tuple) -> None:
        """Chunks (i, its tasks, resubmits, graph lost) in one message to the scheduler: one
        ``client.submit`` each leaves the client in batches 10 ms apart (Dask's client stream), so
        a second GPU started 10 ms after the first."""
        calls = []
        for i, idx, tries, lost in items:
            key = f"{kernel.name}-chunk-{i}-{os.getpid()}-{time.monotonic_ns()}"
            remote = job.remote(client, lost=lost)
            chunk_of[key] = (i, idx, tries, remote.key)
            # a worker's first chunk goes to it; the rest, and re-runs, wherever Dask puts them
            pin = i < len(workers) and not tries
            with dask.annotate(**({"workers": [workers[i]], "allow_other_workers": True} if pin else {})):
                calls.append(dask.delayed(_run_chunk, pure=False)(remote, kernel, i, idx, params,
                                                                  dask_key_name=key))
        for future in client.compute(calls) if calls else []:
            window.add(future)

    def take(n: int) -> list:
        return [(i, idx, 0, False) for i, idx in itertools.islice(todo, n)]

    submit(*take(in_flight * n_workers))
    # The last run's futures are let go only now: their release is a message too, and one sent
    # just before this run's would have held it back up to 10 ms (back-to-back calls).
    job.held = finished = []
    rows = []
    try:
        for future, row in window:
            finished.append(future)
            i, idx, tries, read = chunk_of.pop(future.key)
            try:
                if future.status != "finished":
                    future.result()  # raises the chunk's error: no partial answer
            except FutureCancelledError:
                # the graph's last copy went down with a worker: scatter it again (once), re-run the chunk
                if tries >= MAX_RESUBMITS:
                    raise
                submit((i, idx, tries + 1, read == job.scattered[client.id].key))
                continue
            rows.append(row)
            if on_result:
                on_result(row)
            submit(*take(1))
    except BaseException:
        client.cancel(list(window.futures))
        raise
    if sum(r["tasks"] for r in rows) != sum(len(c) for c in chunks):
        raise RuntimeError(f"{kernel.name}: chunks lost (internal error)")
    return rows


def killer(client) -> tuple[Callable[[dict], None], list[int]]:
    """(``on_result`` for ``run``, the pids it killed): after the first chunk comes back, SIGKILL
    one worker other than the one that ran it (a fault test: its chunks must be re-run)."""
    import signal

    killed: list[int] = []

    def kill_one(row: dict) -> None:
        if not killed:
            workers = client.scheduler_info()["workers"].items()
            victim = next(a for a, w in workers if str(w["name"]) != row["worker"])
            pid = client.run(os.getpid, workers=[victim])[victim]
            killed.append(pid)
            os.kill(pid, signal.SIGKILL)

    return kill_one, killed


def local_cuda_cluster(gpus: int):
    """One Dask worker per GPU on this host (the first ``gpus`` visible devices): a
    ``dask_cuda.LocalCUDACluster`` when dask-cuda is installed, else ``pinned_cluster``."""
    try:
        from dask_cuda import LocalCUDACluster
    except ImportError:
        return pinned_cluster(gpus)
    return LocalCUDACluster(CUDA_VISIBLE_DEVICES=",".join(_visible_devices(gpus)), threads_per_worker=1)


def _visible_devices(gpus: int) -> list[str]:
    seen = [d for d in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if d.strip()]
    devices = seen[:gpus] if seen else [str(i) for i in range(gpus)]
    if len(devices) < gpus:
        raise ValueError(f"gpus={gpus}, but CUDA_VISIBLE_DEVICES names only {len(devices)}")
    return devices


def pinned_cluster(gpus: int, per_gpu: int = 1, **scheduler_options):
    """Dask's ``SpecCluster`` with one single-threaded worker process per GPU, each with its own
    device first (``CUDA_VISIBLE_DEVICES``), named gpu0, gpu1, ... (what LocalCUDACluster does,
    with plain ``distributed``: no dask-cuda needed). ``per_gpu`` > 1 shares each GPU between
    that many workers (gpu0.0, gpu0.1, ...: tests of the whole path on one GPU)."""
    from distributed import Nanny, Scheduler, SpecCluster

    if int(gpus) < 1 or int(per_gpu) < 1:
        raise ValueError(f"gpus and per_gpu must be >= 1, got {gpus} and {per_gpu}")
    devices = _visible_devices(int(gpus))
    # worker i sees its GPU first and the others after it (as dask-cuda does): CuPy's device 0 is
    # its own, and CUDA IPC can still map memory of the others (the shared task queue)
    workers = {f"gpu{i}" + (f".{j}" if per_gpu > 1 else ""):
               {"cls": Nanny, "options": {"nthreads": 1, "env": {
                   "CUDA_VISIBLE_DEVICES": ",".join(devices[i:] + devices[:i])}}}
               for i in range(len(devices)) for j in range(int(per_gpu))}
    scheduler = {"cls": Scheduler, "options": {"dashboard_address": None, **scheduler_options}}
    return SpecCluster(workers=workers, scheduler=scheduler, silence_logs=30)


def run_alone(job: Job, **params):
    """The Job's answer from all its tasks in this process (one launch, no Dask)."""
    params = job.merged(params)
    everything = np.arange(len(job.costs))
    return job.kernel.answer(job.prep, [job.kernel.run_tasks(job.prep, everything, **params)], **params)


def count(G, kernel: str, *, client=None, gpus: int | None = None, device: str = "gpu",
          single_gpu_below: float | None = None, **params) -> int:
    """``kernel``'s answer on ``G`` on a Dask cluster (``client``) or on ``gpus`` local GPUs.

    With ``gpus`` and little estimated work the answer comes from one GPU without a cluster.
    ``device="cpu"`` runs the kernel's CPU twin on the workers instead (no GPU needed).
    """
    if client is None and (not gpus or gpus < 1):
        raise ValueError("pass a dask.distributed client= or gpus=N (N >= 1)")
    if device not in ("gpu", "cpu"):
        raise ValueError(f"device must be 'gpu' or 'cpu', got {device!r}")
    name = CPU_TWIN.get(kernel, kernel) if device == "cpu" else kernel
    job = prepare(G, name, **params)
    if client is not None:
        return run(G, job, client).answer
    below = job.kernel.single_gpu_below if single_gpu_below is None else single_gpu_below
    if gpus == 1 or job.costs.sum() < below:
        return run_alone(job, **params)
    from distributed import Client

    with local_cuda_cluster(gpus) as cluster, Client(cluster) as c:
        return run(G, job, c).answer


def count_maximal_cliques(G, *, client=None, gpus: int | None = None, device: str = "gpu",
                          algorithm: str = "rdmce", single_gpu_below: float | None = None, **params) -> int:
    """Maximal cliques of ``G`` with RDMCE (or ``algorithm="mce-gpu"``) on several GPUs (``count``)."""
    if algorithm not in ("rdmce", "mce-gpu"):
        raise ValueError(f"algorithm must be 'rdmce' or 'mce-gpu', got {algorithm!r}")
    return count(G, algorithm, client=client, gpus=gpus, device=device, single_gpu_below=single_gpu_below,
                 **params)


def count_k_cliques(G, k: int, *, client=None, gpus: int | None = None, device: str = "gpu",
                    single_gpu_below: float | None = None, **params) -> int:
    """k-cliques of ``G`` (k >= 3) with KCMiner's edge tasks on several GPUs (``count``)."""
    return count(G, "kcminer", client=client, gpus=gpus, device=device, single_gpu_below=single_gpu_below,
                 k=k, **params)


def count_maximal_bicliques(B, *, client=None, gpus: int | None = None, device: str = "gpu",
                            single_gpu_below: float | None = None, **params) -> int:
    """Maximal bicliques of ``B`` with GMBE+'s roots on several GPUs (``count``)."""
    return count(B, "gmbe", client=client, gpus=gpus, device=device, single_gpu_below=single_gpu_below,
                 **params)


def clique_counts(G, k_max: int | None = None, *, client=None, gpus: int | None = None, device: str = "gpu",
                  single_gpu_below: float | None = None, **params) -> dict[int, int]:
    """{k: count} for k = 1..k_max with the pivot counter's edge tasks on several GPUs (``count``)."""
    return count(G, "cliquecount", client=client, gpus=gpus, device=device,
                 single_gpu_below=single_gpu_below, k_max=k_max, **params)
