"""Several GPUs (or several CPU processes) through Dask.

    from dask.distributed import Client
    mk.count_maximal_cliques(G, device="gpu", client=Client("tcp://scheduler:8786"))
    mk.count_maximal_cliques(G, device="gpu", gpus=2)     # a LocalCUDACluster for this call only
    res = mk.distributed.run(G, "rdmce", client)          # the answer and one row per chunk

The host prepares the graph once (degeneracy order, seeds, a cost estimate
per seed) and scatters it to every worker once. The seed range is cut into
many chunks of about equal estimated cost; the costliest chunks are
submitted first and only a few per worker are in flight, so a worker that
finishes early takes the next chunk (the host-level twin of the kernel's
atomic seed counter). Dask re-runs the chunks of a worker that dies; a chunk
that raises stops the run with the seeds it held, never a partial answer.
Counts are Python ints, so the sum is exact at any size.

A kernel joins by an entry in ``KERNELS``: how to prepare the graph, the
cost of each task, how to run a set of tasks, and what no task covers.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .graph import Graph


@dataclass(frozen=True)
class Kernel:
    name: str
    prepare: Callable[[Graph], object]  # host work, once; the result is scattered to the workers
    costs: Callable[[object], np.ndarray]  # estimated cost of each task (len = number of tasks)
    run_tasks: Callable[..., int]  # (prepared, task indices, **params) -> answer of those tasks
    rest: Callable[[object], int]  # the part of the answer no task covers (on the host)


def _rdmce_prepare(G):
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


def _rdmce_costs(prep) -> np.ndarray:
    """Estimated time of each edge seed: 2**(|P| / 6). Over the bundled graphs this tracks the
    measured kernel time within a factor of about 7 (about 5e4 units a millisecond on an H100),
    where the buffer bound (rows + stack words) misses ego-Facebook's cost by 100x."""
    u, v, _, _ = prep.seed_arrays("edge")
    p = common_later_neighbours(prep.indptr, prep.indices, u, v)
    return np.exp2(np.minimum(p, 300) / 6.0)


def _rdmce_run(prep, idx, **params) -> int:
    return prep.run(seeds=idx, seeding="edge", **params).count


def _oracle_run(prep, idx, **params) -> int:
    from .cpu.mce import count_from_edge_seeds

    u, v, _, _ = prep.seed_arrays("edge")
    return count_from_edge_seeds(prep.indptr, prep.indices, u[idx], v[idx])


KERNELS = {
    "rdmce": Kernel("rdmce", _rdmce_prepare, _rdmce_costs, _rdmce_run, lambda p: len(p.isolated)),
    # The CPU oracle on the very same edge seeds: checks partitioning, retries and the sum without a GPU.
    "mce-cpu": Kernel("mce-cpu", _rdmce_prepare, _rdmce_costs, _oracle_run, lambda p: len(p.isolated)),
}

# Below this estimated cost (about 0.5 s of one H100's time) one GPU answers sooner than a
# cluster hands out chunks; multigpu_scaling.csv has the measured overheads (notebook 90).
SINGLE_GPU_BELOW = 2.5e7


def chunk_tasks(costs: np.ndarray, n_chunks: int) -> list[np.ndarray]:
    """Cut tasks 0..len-1 into at most ``n_chunks`` runs of consecutive tasks with about equal
    total cost, costliest chunk first. Every task lands in exactly one chunk."""
    costs = np.asarray(costs, dtype=np.float64)
    if len(costs) == 0:
        return []
    n_chunks = max(1, min(int(n_chunks), len(costs)))
    cum = np.cumsum(np.maximum(costs, 1.0))
    cuts = np.searchsorted(cum, cum[-1] * np.arange(1, n_chunks) / n_chunks, side="right")
    parts = [p for p in np.split(np.arange(len(costs)), np.unique(cuts)) if len(p)]
    return sorted(parts, key=lambda p: -costs[p].sum())


def _run_chunk(prep, kernel: Kernel, chunk_id: int, idx: np.ndarray, params: dict) -> dict:
    """One chunk on a Dask worker; returns its answer and where and how long it ran."""
    t0 = time.perf_counter()
    try:
        answer = kernel.run_tasks(prep, idx, **params)
    except Exception as e:
        raise RuntimeError(f"{kernel.name}: chunk {chunk_id} (tasks {int(idx[0])}..{int(idx[-1])}, "
                           f"{len(idx)} seeds) failed: {type(e).__name__}: {e}") from e
    try:
        from distributed import get_worker

        worker = get_worker().name
    except (ImportError, ValueError):
        worker = "local"
    return {"chunk": chunk_id, "answer": int(answer), "tasks": len(idx), "first": int(idx[0]),
            "seconds": time.perf_counter() - t0, "worker": str(worker), "pid": os.getpid(),
            "started": t0}


@dataclass
class Job:
    """A graph prepared on the host for one kernel: what is scattered, and each task's cost."""

    kernel: Kernel
    prep: object
    costs: np.ndarray
    seconds: float


def prepare(G, kernel: str | Kernel) -> Job:
    kernel = KERNELS[kernel] if isinstance(kernel, str) else kernel
    t0 = time.perf_counter()
    prep = kernel.prepare(G)
    return Job(kernel, prep, kernel.costs(prep), time.perf_counter() - t0)


@dataclass
class DistributedResult:
    answer: int
    seconds: float  # graph on the host -> answer back, the scatter included
    prep_s: float
    workers: int
    chunks: pd.DataFrame = field(repr=False)  # one row per chunk

    def busy(self) -> pd.DataFrame:
        """Per worker: chunks taken and seconds spent in them."""
        return self.chunks.groupby("worker").agg(chunks=("chunk", "size"), busy_s=("seconds", "sum"),
                                                 tasks=("tasks", "sum")).reset_index()


def run(G, kernel: str | Kernel | Job, client, *, chunks_per_worker: int = 8, in_flight: int = 2,
        on_result: Callable[[dict], None] | None = None, **params) -> DistributedResult:
    """Answer ``kernel``'s question on ``G`` with the workers of the Dask ``client``.

    Pass a ``Job`` from ``prepare`` as ``kernel`` to skip the host preparation (when timing
    several runs; ``G`` is then unused); ``on_result`` is called with each chunk's row as it
    arrives (progress bars, tests that kill a worker).
    """
    from distributed import as_completed

    job = kernel if isinstance(kernel, Job) else prepare(G, kernel)
    kernel, prep = job.kernel, job.prep
    t1 = time.perf_counter()
    n_workers = max(1, len(client.scheduler_info()["workers"]))
    chunks = chunk_tasks(job.costs, chunks_per_worker * n_workers)
    remote = client.scatter(prep, broadcast=True)
    todo = iter(enumerate(chunks))
    window = as_completed()

    def submit_next() -> bool:
        item = next(todo, None)
        if item is None:
            return False
        i, idx = item
        window.add(client.submit(_run_chunk, remote, kernel, i, idx, params, pure=False,
                                 key=f"{kernel.name}-chunk-{i}-{os.getpid()}-{time.monotonic_ns()}"))
        return True

    for _ in range(in_flight * n_workers):
        if not submit_next():
            break
    rows = []
    try:
        for future in window:
            row = future.result()  # raises the chunk's error: no partial answer
            rows.append(row)
            if on_result:
                on_result(row)
            submit_next()
    except BaseException:
        client.cancel(list(window.futures))
        raise
    answer = sum(r["answer"] for r in rows) + kernel.rest(prep)
    if sum(r["tasks"] for r in rows) != sum(len(c) for c in chunks):
        raise RuntimeError(f"{kernel.name}: chunks lost (internal error)")
    return DistributedResult(answer, time.perf_counter() - t1, job.seconds, n_workers,
                             pd.DataFrame(rows).sort_values("chunk").reset_index(drop=True))


def local_cuda_cluster(gpus: int):
    """A ``dask_cuda.LocalCUDACluster`` with one worker per GPU (the first ``gpus`` devices)."""
    try:
        from dask_cuda import LocalCUDACluster
    except ImportError:
        raise ImportError("gpus=N needs dask-cuda: pip install 'mce_kit[dist]'") from None
    return LocalCUDACluster(CUDA_VISIBLE_DEVICES=",".join(map(str, range(gpus))), threads_per_worker=1)


def count_maximal_cliques(G, *, client=None, gpus: int | None = None, device: str = "gpu",
                          single_gpu_below: float = SINGLE_GPU_BELOW, **params) -> int:
    """Maximal cliques of ``G`` on a Dask cluster (``client``) or on ``gpus`` local GPUs.

    With ``gpus`` and little estimated work the answer comes from one GPU without a cluster.
    ``device="cpu"`` runs the CPU oracle on the workers instead (no GPU needed).
    """
    if client is None and (not gpus or gpus < 1):
        raise ValueError("pass a dask.distributed client= or gpus=N (N >= 1)")
    job = prepare(G, "rdmce" if device == "gpu" else "mce-cpu")
    if client is not None:
        return run(G, job, client, **params).answer
    if gpus == 1 or job.costs.sum() < single_gpu_below:
        everything = np.arange(len(job.costs))
        return job.kernel.run_tasks(job.prep, everything, **params) + job.kernel.rest(job.prep)
    from distributed import Client

    with local_cuda_cluster(gpus) as cluster, Client(cluster) as c:
        return run(G, job, c, **params).answer
