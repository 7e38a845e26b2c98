"""Dask partitioning on CPU: workers run the CPU oracle on RDMCE's edge seeds (no GPU needed)."""

import os

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
def _module_client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cl, \
            Client(cl) as c:
        yield c


@pytest.fixture
def client(_module_client):
    """The module's 2-worker client, once both workers are up: a worker that died in an earlier test
    is restarted by its nanny, and a test must not start before it has joined again."""
    _module_client.wait_for_workers(2, timeout=120)
    return _module_client


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
    heaviest = np.argsort(-costs)[:40]
    assert len({next(i for i, c in enumerate(chunks) if t in c) for t in heaviest}) == 40  # spread out
    assert all(np.all(np.diff(c) > 0) for c in chunks)
    assert md.chunk_tasks([], 8) == [] and len(md.chunk_tasks([5.0], 8)) == 1


def test_rebalanced_moves_a_sample_of_the_slow_chunks_tasks_to_the_fast_ones():
    rng = np.random.default_rng(2)
    costs = rng.pareto(1.5, size=20000) + 0.01
    chunks = md.chunk_tasks(costs, 3)
    # the tasks of chunk 0 take 30% longer than estimated: it ran 30% over the others
    true = costs * np.where(np.isin(np.arange(len(costs)), chunks[0]), 1.3, 1.0)
    seconds = [true[c].sum() for c in chunks]
    better = md.rebalanced(chunks, costs, seconds)
    assert np.array_equal(np.sort(np.concatenate(better)), np.arange(len(costs)))  # each task once
    assert all(np.all(np.diff(c) > 0) for c in better)
    assert len(better[0]) < len(chunks[0])
    assert all(len(b) > len(c) for b, c in zip(better[1:], chunks[1:], strict=True))
    after = [true[c].sum() for c in better]
    gap = max(seconds) / np.mean(seconds) - 1
    assert max(after) / np.mean(after) - 1 < 0.5 * gap  # half the gap or less
    assert md.chunk_tasks(costs, 3)[0][0] == chunks[0][0]  # the dealing itself is unchanged
    assert md.rebalanced(chunks, costs, [1.0, 1.01, 0.99]) is None  # within REBALANCE_FROM: kept
    assert md.rebalanced(chunks[:1], costs, [5.0]) is None


def test_rebalancing_converges_where_the_estimate_misses_the_heavy_tasks():
    # a model of RDMCE on R-MAT: a heavy task's true time grows faster than its estimate, so a
    # sample of light tasks moved by estimate barely helps (the old rule: 6.6% apart, 5.6% after 3 runs)
    rng = np.random.default_rng(0)
    costs = rng.pareto(1.2, size=200_000) + 0.01
    true = costs ** 1.6 * rng.lognormal(0, 0.5, len(costs))
    chunks, by_cost = md.chunk_tasks(costs, 2), np.argsort(-costs, kind="stable")
    spread = []
    for _ in range(4):
        seconds = [true[c].sum() for c in chunks]
        spread.append(max(seconds) / np.mean(seconds))
        chunks = md.rebalanced(chunks, costs, seconds, by_cost) or chunks
    assert spread[0] > 1.05 and spread[-1] < 1.03, spread


def test_tasks_fill_the_chunk_with_most_room_one_run_at_a_time():
    # _fill_by_room equals giving each task in turn to the chunk with the most room (the first of
    # equals); integer seconds, so the runs it sums are exact
    def one_by_one(room, seconds):
        room, out = np.array(room, dtype=np.float64), []
        for x in seconds:
            out.append(int(np.argmax(room)))
            room[out[-1]] -= x
        return out

    rng = np.random.default_rng(5)
    for _ in range(500):
        k, n = int(rng.integers(1, 6)), int(rng.integers(0, 80))
        room = rng.integers(0, 30, k) * (rng.random(k) > 0.3)
        seconds = np.sort(rng.integers(0, 10, n))[::-1].astype(np.float64)
        assert md._fill_by_room(room, seconds).tolist() == one_by_one(room, seconds)


def test_a_job_run_again_deals_by_the_measured_busy_times(client):
    G = datasets.load("CA-GrQc")
    job = md.prepare(G, "mce-cpu")
    first = [c.copy() for c in job.chunks(2)]
    rows = [{"chunk": 0, "seconds": 2.0}, {"chunk": 1, "seconds": 1.0}]
    job.learn(2, rows)
    assert len(job.chunks(2)[0]) < len(first[0])  # the slow chunk gave tasks away
    assert md.run(None, job, client).answer == references.expected("mce", "CA-GrQc")  # still exact


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
    assert mk.count_maximal_cliques(G, device="cpu", client=client, algorithm="mce-gpu") == 3906
    want = references.expected("kclique", "CA-GrQc", k=4)
    assert mk.count_k_cliques(G, 4, device="cpu", client=client) == want
    assert mk.count_k_cliques(G, 2, device="cpu", client=client) == G.m  # k <= 2: no tasks to split
    from graph_families import random_bipartite

    B = random_bipartite(20, 12, 0.4, seed=3)
    whole = mk.count_maximal_bicliques(B, device="cpu")
    assert mk.count_maximal_bicliques(B, device="cpu", client=client) == whole
    with pytest.raises(NotImplementedError, match="min_left/min_right"):
        mk.count_maximal_bicliques(B, min_left=2, device="cpu", client=client)
    with pytest.raises(ValueError, match="client= or gpus="):
        md.count_maximal_cliques(G, device="cpu")


# ---- every kernel: its CPU twin on the same tasks, split over a CPU LocalCluster ----

def _families():
    """Several graph families, with isolated vertices and empty / complete corner cases."""
    from graph_families import (
        complete,
        disjoint_union,
        empty,
        erdos_renyi,
        planted_cliques,
        powerlaw_cluster,
        star,
    )

    yield erdos_renyi(60, 0.08, seed=1)
    yield erdos_renyi(40, 0.5, seed=2)
    yield powerlaw_cluster(80, 3, 0.6, seed=3)
    yield planted_cliques(70, 0.05, [9, 7], seed=4)
    yield disjoint_union(complete(8), star(6), empty(3), erdos_renyi(25, 0.3, seed=5))
    yield complete(12)
    yield empty(4)


@pytest.mark.parametrize("subtree", ["L1", "L2"])
def test_mcegpu_seeds_partition_on_a_cluster(client, subtree):
    for G in _families():
        res = md.run(G, "mce-gpu-cpu", client, chunks_per_worker=5, subtree=subtree)
        assert res.answer == _nx_count(G), (G.name, subtree)
        assert res.chunks["tasks"].sum() == (G.m if subtree == "L2" else int((G.degrees() > 0).sum()))


def test_mcegpu_on_a_bundled_graph(client):
    G = datasets.load("email-Eu-core")
    want = references.expected("mce", "email-Eu-core")
    assert md.run(G, "mce-gpu-cpu", client, subtree="L1").answer == want


@pytest.mark.parametrize("k", [3, 4, 5, 6])
def test_kcminer_edge_tasks_partition_on_a_cluster(client, k):
    from mce_kit import cpu

    for G in _families():
        for order in ("degree", "degeneracy"):
            res = md.run(G, "kcminer-cpu", client, chunks_per_worker=5, k=k, order=order)
            assert res.answer == cpu.count_k_cliques(G, k), (G.name, k, order)
            assert res.chunks["tasks"].sum() == G.m


def test_kcminer_on_a_bundled_graph(client):
    G = datasets.load("CA-GrQc")
    want = references.expected("kclique", "CA-GrQc", k=5)
    assert md.count_k_cliques(G, 5, client=client, device="cpu") == want


def test_the_sum_over_chunks_does_not_wrap_at_64_bits(client):
    """Chunk answers travel as Python ints: 2**64 - 1 per task, summed over 5,000 tasks."""
    huge = md.Kernel("huge", md.KERNELS["mce-cpu"].prepare, md.KERNELS["mce-cpu"].costs,
                     lambda prep, idx, **p: (2**64 - 1) * len(idx), lambda p, **q: 2**70)
    G = datasets.load("CA-GrQc")
    assert md.run(G, huge, client, chunks_per_worker=7).answer == (2**64 - 1) * G.m + 2**70


def _bipartites():
    from graph_families import complete_bipartite, crown, random_bipartite

    from mce_kit.generators import bipartite_chung_lu

    yield random_bipartite(30, 20, 0.2, seed=1)
    yield random_bipartite(25, 25, 0.5, seed=2)
    yield complete_bipartite(6, 5)
    yield crown(7)
    yield bipartite_chung_lu(300, 150, 900, seed=3)


def test_gmbe_roots_partition_on_a_cluster(client):
    from mce_kit import cpu

    for B in _bipartites():
        res = md.run(B, "gmbe-cpu", client, chunks_per_worker=5)
        assert res.answer == cpu.count_maximal_bicliques(B), B.name
        assert res.chunks["tasks"].sum() == int((np.diff(B.v_indptr) > 0).sum())


@pytest.mark.parametrize("kernel,params", [("mce-cpu", {}), ("mce-gpu-cpu", {"subtree": "L2"}),
                                           ("kcminer-cpu", {"k": 4}), ("gmbe-cpu", {})])
def test_every_kernel_survives_a_killed_worker(kernel, params):
    """SIGKILL a worker (not the one that answered) after the first chunk: the answer is unchanged."""
    if kernel == "gmbe-cpu":
        from mce_kit.generators import bipartite_chung_lu

        G = bipartite_chung_lu(400, 200, 1500, seed=9)
        from mce_kit import cpu

        want = cpu.count_maximal_bicliques(G)
    else:
        G = datasets.load("johnson8-4-4")
        mce = kernel in ("mce-cpu", "mce-gpu-cpu")
        want = 114_690 if mce else references.expected("kclique", "johnson8-4-4", k=4)
        if want is None:
            from mce_kit import cpu

            want = cpu.count_k_cliques(G, 4)
    with LocalCluster(n_workers=3, threads_per_worker=1, processes=True, dashboard_address=None) as cl, \
            Client(cl) as c:
        kill_one, killed = md.killer(c)
        res = md.run(G, kernel, c, chunks_per_worker=12, on_result=kill_one, **params)
    assert killed and res.answer == want


def test_a_run_survives_losing_every_copy_of_the_graph():
    """SIGKILL every worker holding the scattered graph after the first chunk (Dask's memory manager
    may keep a single replica): the graph is scattered again, cancelled chunks re-run, the answer holds."""
    import signal

    G = datasets.load("johnson8-4-4")
    job = md.prepare(G, "kcminer-cpu", k=4)
    from mce_kit import cpu

    want = cpu.count_k_cliques(G, 4)
    with LocalCluster(n_workers=3, threads_per_worker=1, processes=True, dashboard_address=None) as cl, \
            Client(cl) as c:
        first = job.remote(c)
        killed = []

        def kill_holders(row):
            if not killed:
                holders = list(c.who_has([first])[first.key])
                pids = c.run(os.getpid, workers=holders)
                killed.extend(pids.values())
                for pid in killed:
                    os.kill(pid, signal.SIGKILL)

        res = md.run(G, job, c, chunks_per_worker=12, on_result=kill_holders)
        assert killed and res.answer == want
        assert job.remote(c).key != first.key  # scattered again
        assert md.run(G, job, c).answer == want  # and kept for the next run


def test_a_job_keeps_its_task_list():
    G = datasets.load("johnson8-4-4")
    job = md.prepare(G, "kcminer-cpu", k=4)
    assert job.merged({"scheduling": False}) == {"k": 4, "scheduling": False}
    with pytest.raises(ValueError, match="k fix the task list"):
        job.merged({"k": 5})
    with pytest.raises(ValueError, match="unknown kernel 'geil'"):
        md.prepare(G, "geil")
    with pytest.raises(TypeError, match="unknown KCMiner parameter"):
        md.prepare(G, "kcminer-cpu", kk=4)
    with pytest.raises(ValueError, match="k must be >= 3"):
        md.prepare(G, "kcminer-cpu", k=2)


def test_public_calls_for_every_kernel_on_a_cpu_cluster(client):
    from graph_families import random_bipartite

    from mce_kit import cpu

    G = datasets.load("johnson8-4-4")
    got = md.count_maximal_cliques(G, algorithm="mce-gpu", device="cpu", client=client, subtree="L1")
    assert got == 114_690
    assert md.count_k_cliques(G, 3, device="cpu", client=client) == cpu.count_k_cliques(G, 3)
    B = random_bipartite(30, 20, 0.3, seed=4)
    assert md.count_maximal_bicliques(B, device="cpu", client=client) == cpu.count_maximal_bicliques(B)
    import mce_kit as mk

    assert mk.clique_counts(G, 5, device="cpu", client=client) == cpu.clique_counts(G, 5)
    with pytest.raises(ValueError, match="algorithm must be"):
        md.count_maximal_cliques(G, algorithm="geil", client=client)


def test_pinned_cluster_gives_each_worker_its_own_device(monkeypatch):
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    with md.pinned_cluster(2) as cl, Client(cl) as c:
        seen = c.run(lambda: os.environ.get("CUDA_VISIBLE_DEVICES"))
        names = sorted(str(w["name"]) for w in c.scheduler_info()["workers"].values())
        G = datasets.load("johnson8-4-4")
        assert md.run(G, "mce-cpu", c).answer == 114_690
    assert sorted(seen.values()) == ["0,1", "1,0"] and names == ["gpu0", "gpu1"]  # own GPU first
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3")
    with pytest.raises(ValueError, match="names only 1"):
        md.pinned_cluster(2)


@pytest.mark.parametrize("kernel,params", [("mce-cpu", {}), ("mce-gpu-cpu", {"subtree": "L1"}),
                                           ("kcminer-cpu", {"k": 4}), ("cliquecount-cpu", {"k_max": 6}),
                                           ("gmbe-cpu", {})])
def test_a_shared_queue_gives_every_task_to_one_worker(client, kernel, params):
    """One chunk per worker: every worker gets all the tasks and takes them from one shared
    counter; the answer equals the dealt run's and the oracle's on random graphs."""
    from mce_kit import cpu
    from mce_kit.generators import bipartite_chung_lu

    for seed in range(3):
        if kernel == "gmbe-cpu":
            G = bipartite_chung_lu(200, 120, 700, seed=seed)
            want = cpu.count_maximal_bicliques(G)
        else:
            e = np.array(nx.gnp_random_graph(70, 0.25, seed=seed).edges(), dtype=np.int64).reshape(-1, 2)
            G = Graph.from_edges(70, e[:, 0], e[:, 1])
            want = {"mce-cpu": _nx_count, "mce-gpu-cpu": _nx_count,
                    "kcminer-cpu": lambda G: cpu.count_k_cliques(G, 4),
                    "cliquecount-cpu": lambda G: cpu.clique_counts(G, 6)}[kernel](G)
        job = md.prepare(G, kernel, **params)
        client.wait_for_workers(2, timeout=120)  # (a loaded host may drop a worker for a while)
        shared = md.run(G, job, client, queue="shared")
        assert shared.queue == "shared" and shared.answer == want
        assert len(shared.chunks) == 2 and shared.chunks["launches"].map(tuple).nunique() == 1
        dealt = md.run(G, job, client, queue="dealt")
        assert dealt.queue.startswith("dealt") and dealt.answer == want


def test_a_shared_run_that_loses_a_worker_is_run_again_dealt(tmp_path):
    """SIGKILL a worker once it holds tasks of a shared run: they are lost with it, so the run is
    redone dealt, and the answer is exact."""
    import dataclasses
    import functools
    import signal
    import threading
    import time

    G = datasets.load("johnson8-4-4")
    job = md.prepare(G, "mce-cpu")
    slow = dataclasses.replace(job, kernel=dataclasses.replace(
        job.kernel, run_tasks=functools.partial(_slowly, str(tmp_path), job.kernel.run_tasks)))
    with LocalCluster(n_workers=3, threads_per_worker=1, processes=True, dashboard_address=None) as cl, \
            Client(cl) as c:
        assert md.run(G, job, c, queue="shared").queue == "shared"  # the graph is on the workers now
        pid = next(iter(c.run(os.getpid).values()))

        def kill_once_it_holds_tasks():
            while not (tmp_path / str(pid)).exists():
                time.sleep(0.01)
            os.kill(pid, signal.SIGKILL)

        threading.Thread(target=kill_once_it_holds_tasks, daemon=True).start()
        res = md.run(G, slow, c, queue="shared")
    assert res.answer == 114_690
    assert res.queue.startswith("dealt (a shared run lost a worker"), res.queue


def _slowly(marks: str, run_tasks, prep, idx, **params):
    """``run_tasks`` that leaves a mark named by its process id (it holds tasks now) and naps."""
    import time

    open(os.path.join(marks, str(os.getpid())), "w").close()
    time.sleep(0.05)
    return run_tasks(prep, idx, **params)


def test_queue_choice_is_checked(client):
    G = datasets.load("johnson8-4-4")
    with pytest.raises(ValueError, match="queue must be"):
        md.run(G, "mce-cpu", client, queue="first")
    with pytest.raises(ValueError, match="several chunks per worker"):
        md.run(G, "mce-cpu", client, queue="shared", chunks_per_worker=3)
    res = md.run(G, "mce-cpu", client)
    assert res.queue == "dealt" and res.answer == 114_690
    assert res.chunks["worker"].nunique() == 2  # each worker's first chunk went to it

