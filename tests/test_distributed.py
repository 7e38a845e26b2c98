"""Dask partitioning on CPU: workers run the CPU oracle on RDMCE's edge seeds (no GPU needed)."""

import os
import signal

import networkx as nx
import numpy as np
import pytest

pytest.importorskip("distributed")

from distributed import Client, LocalCluster  # noqa: E402

from mce_kit import datasets, references  # noqa: E402
from mce_kit import distributed as md  # noqa: E402
from mce_kit.graph import Graph  # noqa: E402

# Bundled graphs on which the per-seed CPU oracle takes seconds (about 0.3 ms a seed in Python; the
# others have up to 183,831 seeds or 869 M cliques: the GPU tests cover them).
GRAPHS = ["CA-GrQc", "email-Eu-core", "c-fat200-1", "hamming6-4", "johnson8-4-4", "p_hat300-1"]


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cl, \
            Client(cl) as c:
        yield c


def _nx_count(G) -> int:
    return sum(1 for _ in nx.find_cliques(G.to_networkx()))


def test_chunks_cover_every_task_once_with_balanced_cost():
    rng = np.random.default_rng(1)
    costs = rng.pareto(1.5, size=5000) * 100
    chunks = md.chunk_tasks(costs, 40)
    got = np.sort(np.concatenate(chunks))
    assert np.array_equal(got, np.arange(5000)) and len(chunks) <= 40
    sums = [costs[c].sum() for c in chunks]
    assert sums == sorted(sums, reverse=True)  # costliest first
    assert max(sums) <= costs.sum() / 40 + costs.max()  # no chunk much over its share
    assert md.chunk_tasks([], 8) == [] and len(md.chunk_tasks([5.0], 8)) == 1


@pytest.mark.parametrize("name", GRAPHS)
def test_sum_over_chunks_is_the_whole_count(client, name):
    G = datasets.load(name)
    want = references.expected("mce", name)
    if want is None:
        want = _nx_count(G)
    res = md.run(G, "mce-cpu", client, chunks_per_worker=6)
    assert res.answer == want
    assert res.chunks["tasks"].sum() == G.m  # every edge seed ran once
    assert set(res.busy()["worker"]) <= {str(w["name"]) for w in client.scheduler_info()["workers"].values()}


def test_random_graphs_with_isolated_vertices(client):
    rng = np.random.default_rng(3)
    for _ in range(6):
        n = int(rng.integers(20, 90))
        H = nx.gnp_random_graph(n, float(rng.choice([0.05, 0.3, 0.6])), seed=int(rng.integers(1 << 30)))
        H.add_nodes_from(range(n, n + 3))
        e = np.array(H.edges(), dtype=np.int64).reshape(-1, 2)
        G = Graph.from_edges(n + 3, e[:, 0], e[:, 1])
        assert md.run(G, "mce-cpu", client, chunks_per_worker=5).answer == _nx_count(G)


def test_a_worker_killed_mid_run_changes_nothing():
    G = datasets.load("johnson8-4-4")
    killed = []

    def kill_one(row):
        """After the first chunk, SIGKILL a worker other than the one that answered."""
        if not killed:
            workers = c.scheduler_info()["workers"].items()
            victim = next(a for a, w in workers if str(w["name"]) != row["worker"])
            pid = c.run(os.getpid, workers=[victim])[victim]
            killed.append(pid)
            os.kill(pid, signal.SIGKILL)

    with LocalCluster(n_workers=3, threads_per_worker=1, processes=True, dashboard_address=None) as cl, \
            Client(cl) as c:
        res = md.run(G, "mce-cpu", c, chunks_per_worker=12, on_result=kill_one)
    assert killed and res.answer == 114_690 == _nx_count(G)


def test_a_failing_chunk_fails_the_run_naming_its_seeds(client):
    def run_tasks(prep, idx, **params):
        if 0 in idx:
            raise MemoryError("needs 3.0 GiB")
        return 0

    bad = md.Kernel("bad", md.KERNELS["mce-cpu"].prepare, md.KERNELS["mce-cpu"].costs, run_tasks,
                    lambda p: 0)
    with pytest.raises(RuntimeError, match=r"chunk \d+ \(tasks 0\.\.\d+, \d+ seeds\) failed: MemoryError"):
        md.run(datasets.load("CA-GrQc"), bad, client)


def test_public_call_on_a_cpu_cluster(client):
    import mce_kit as mk

    G = datasets.load("CA-GrQc")
    assert mk.count_maximal_cliques(G, device="cpu", client=client) == 3906
    with pytest.raises(ValueError, match="client= or gpus="):
        md.count_maximal_cliques(G, device="cpu")
