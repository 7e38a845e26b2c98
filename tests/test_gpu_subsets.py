"""Run-time task subsets (mce-gpu ``seeds=``, KCMiner ``tasks=``, GMBE+ ``seeds=``): the answers of a
random partition of the tasks add up to the whole, and each part equals the CPU twin on that part.
This is what ``mce_kit.distributed`` relies on to split a graph over several GPUs.

The GPU tests are marked ``gpu`` and skip cleanly without one; the argument checks run on CPU.
"""

import shutil
import subprocess

import numpy as np
import pytest
from graph_families import from_networkx, random_bipartite, random_nx_graphs
from test_mcegpu_emulated import binary  # noqa: F401 (mce-gpu's kernel compiled for CPU threads, a fixture)

from mce_kit import cpu, datasets, references
from mce_kit.cpu.kclique import count_from_edge_tasks
from mce_kit.cpu.mce import count_from_seeds
from mce_kit.gpu import has_gpu
from mce_kit.gpu.launch import pick_tasks


def gpu_test(f):
    return pytest.mark.gpu(pytest.mark.skipif(not has_gpu(), reason="needs a CUDA GPU")(f))


def _partition(rng, n: int) -> list[np.ndarray]:
    """A random partition of 0..n-1 into 1 to 4 parts (some may be empty)."""
    parts = int(rng.integers(1, 5))
    label = rng.integers(0, parts, size=n)
    return [np.flatnonzero(label == j) for j in range(parts)]


@pytest.fixture(scope="module")
def graphs():
    return [G for G in (from_networkx(H) for H in random_nx_graphs(120, seed=23)) if G.m <= 600]


def test_pick_tasks_rejects_bad_subsets():
    assert pick_tasks(None, 5, "x") is None
    assert pick_tasks([3, 0], 5, "x").tolist() == [3, 0]
    assert len(pick_tasks(np.array([], dtype=np.int64), 5, "x")) == 0
    with pytest.raises(ValueError, match=r"x: seeds= indices must lie in 0\.\.4"):
        pick_tasks([5], 5, "x")
    with pytest.raises(ValueError, match="repeated"):
        pick_tasks([1, 1], 5, "x")
    with pytest.raises(ValueError, match="1-D array"):
        pick_tasks([[1]], 5, "x")
    with pytest.raises(ValueError, match="1-D array"):
        pick_tasks([0.5], 5, "x", "tasks")


def test_launchers_check_subsets_before_the_gpu():
    from mce_kit.gpu import gmbe, mcegpu

    G = datasets.load("johnson8-4-4")
    with pytest.raises(ValueError, match="mce-gpu: seeds= indices"):
        mcegpu.prepare(G).run(seeds=[10**9])
    with pytest.raises(ValueError, match="GMBE\\+: seeds= holds repeated"):
        gmbe.prepare(random_bipartite(8, 6, 0.5, seed=1)).run(seeds=[0, 0])


@pytest.mark.parametrize("subtree", ["L1", "L2"])
@gpu_test
def test_mcegpu_seed_subsets_add_up(graphs, subtree):
    from mce_kit.gpu import mcegpu

    rng = np.random.default_rng(1)
    for i, G in enumerate(graphs):
        prep = mcegpu.prepare(G)
        whole = prep.run(subtree=subtree).answer
        u, v, _, _ = prep.seed_arrays(subtree)
        got = 0
        for part in _partition(rng, len(u)):
            a = prep.run(subtree=subtree, seeds=part, donate_min_p=2).answer
            assert a == count_from_seeds(prep.indptr, prep.indices, u[part], v[part]), (i, subtree)
            got += a
        assert got + len(prep.isolated) == whole, f"graph {i}: {got} + {len(prep.isolated)} != {whole}"


@pytest.mark.parametrize("k", [3, 4, 5, 7])
@gpu_test
def test_kcminer_task_subsets_add_up(graphs, k):
    from mce_kit.gpu import kclique

    rng = np.random.default_rng(k)
    for i, G in enumerate(graphs):
        prep = kclique.prepare(G)
        whole = prep.run(k=k).answer
        assert whole == cpu.count_k_cliques(G, k)
        ori = prep.orient("degree")
        got = 0
        for part in _partition(rng, len(ori.u)):
            a = prep.run(k=k, tasks=part).answer
            assert a == count_from_edge_tasks(ori.out_ptr, ori.out_idx, ori.u[part], ori.v[part], k), (i, k)
            got += a
        assert got == whole, f"graph {i}, k={k}: {got} != {whole}"


@pytest.mark.parametrize("k_max", [3, 6, None])
@gpu_test
def test_clique_count_task_subsets_add_up(graphs, k_max):
    from collections import Counter

    from mce_kit.cpu.pivot import counts_from_edge_tasks
    from mce_kit.gpu import cliquecount

    rng = np.random.default_rng(7)
    for i, G in enumerate(graphs):
        prep = cliquecount.prepare(G)
        whole = prep.run(k_max=k_max).answer
        assert whole == cpu.clique_counts(G, k_max)
        ori = prep.orient("degeneracy")
        K = max(whole)
        got = Counter({1: G.n, 2: G.m})
        for part in _partition(rng, len(ori.u)):
            a = prep.run(k_max=k_max, tasks=part).answer
            twin = counts_from_edge_tasks(ori.indptr, ori.indices, ori.out_ptr, ori.out_idx, ori.u[part],
                                          ori.v[part], K)
            assert {k: c for k, c in a.items() if c} == {k: c for k, c in twin.items() if c}, (i, k_max)
            got.update(a)
        assert {k: got.get(k, 0) for k in whole} == whole, f"graph {i}, k_max={k_max}"


@pytest.mark.parametrize("level", ["gmbe+", "warp", "block"])
@gpu_test
def test_gmbe_root_subsets_add_up(level):
    from mce_kit.gpu import gmbe

    rng = np.random.default_rng(5)
    for i in range(60):
        nu, nv = int(rng.integers(3, 40)), int(rng.integers(3, 30))
        B = random_bipartite(nu, nv, float(rng.choice([0.1, 0.3, 0.6])), seed=i)
        prep = gmbe.prepare(B)
        whole = prep.run(level=level, bound_height=2, bound_size=4).answer
        assert whole == cpu.count_maximal_bicliques(B)
        got = 0
        for part in _partition(rng, len(prep.seeds)):
            a = prep.run(level=level, bound_height=2, bound_size=4, seeds=part).answer
            assert a == cpu.count_maximal_bicliques(B, roots=prep.order[prep.seeds[part]]), (i, level)
            got += a
        assert got == whole, f"graph {i}: {got} != {whole}"


def _bundled(algo, name):
    """(run a subset -> answer, number of tasks, what no task covers, the reference answer)."""
    from mce_kit.gpu import gmbe, kclique, mcegpu

    G = datasets.load(name)
    if algo == "mce-gpu":
        prep = mcegpu.prepare(G)
        return (lambda idx: prep.run(seeds=idx).answer, len(prep.seed_arrays("L1")[0]), len(prep.isolated),
                references.expected("mce", name))
    if algo == "kcminer":
        prep = kclique.prepare(G)
        return (lambda idx: prep.run(k=6, tasks=idx).answer, len(prep.orient("degree").u), 0,
                references.expected("kclique", name, k=6))
    prep = gmbe.prepare(G)
    return lambda idx: prep.run(seeds=idx).answer, len(prep.seeds), 0, references.expected("mbe", name)


@pytest.mark.parametrize("algo,name", [("mce-gpu", "email-Eu-core"), ("kcminer", "CA-GrQc"),
                                       ("gmbe", "MovieLens")])
@gpu_test
def test_bundled_graphs_split_in_four_are_exact_ten_times(algo, name):
    run, n, rest, want = _bundled(algo, name)
    rng = np.random.default_rng(0)
    for r in range(10):
        got = sum(run(p) for p in np.array_split(rng.permutation(n), 4)) + rest
        assert got == want, f"{algo} on {name}, run {r}: {got} != {want}"


@pytest.mark.parametrize("algo,params", [("rdmce", {}), ("mce-gpu", {"subtree": "L2"}),
                                         ("kcminer", {"k": 5}), ("cliquecount", {"k_max": 6}), ("gmbe", {})])
@gpu_test
def test_dask_workers_on_one_gpu(algo, params):
    """The whole distributed path with GPU kernels: two Dask worker processes sharing this GPU,
    with tasks dealt in chunks and from one shared queue (CUDA IPC within one GPU), each five times."""
    pytest.importorskip("distributed")
    from distributed import Client

    from mce_kit import distributed as md

    name = "MovieLens" if algo == "gmbe" else "email-Eu-core"
    G = datasets.load(name)
    job = md.prepare(G, algo, **params)
    want = md.run_alone(job)  # one launch, no Dask
    problem = md.KERNELS[algo].problem
    if problem != "clique_counts":
        assert want == references.expected(problem, name, **({"k": params["k"]} if "k" in params else {}))
    with md.pinned_cluster(1, per_gpu=2) as cl, Client(cl) as c:
        for _ in range(5):
            dealt = md.run(G, job, c, chunks_per_worker=3)
            shared = md.run(G, job, c, queue="shared")
            assert dealt.answer == want and len(dealt.chunks) > 2
            assert shared.answer == want and shared.queue == "shared", shared.queue


# ---- mce-gpu's real kernel source on CPU threads (tests/cuda_emu), through the launcher's planning ----

@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ (C++20)")
@pytest.mark.parametrize("subtree", ["L1", "L2"])
def test_emulated_mcegpu_seed_subsets_add_up(binary, subtree):  # noqa: F811 (the fixture)
    from mce_kit.gpu import mcegpu

    rng = np.random.default_rng(3)
    graphs = [from_networkx(H) for H in random_nx_graphs(40, seed=9) if H.number_of_edges() <= 500][:15]
    for i, G in enumerate(graphs):
        prep = mcegpu.prepare(G)
        u, v, _, _ = prep.seed_arrays(subtree)
        total = 0
        for part in _partition(rng, len(u)):
            got = _emulated_count(binary, prep, subtree, part)
            assert got == count_from_seeds(prep.indptr, prep.indices, u[part], v[part]), (i, subtree)
            total += got
        assert total + len(prep.isolated) == cpu.count_maximal_cliques(G), f"graph {i}"


def _emulated_count(exe, prep, subtree, seeds) -> int:
    """The emulated kernel on the seeds ``seeds`` only, planned by ``mcegpu.plan(..., seeds)``."""
    from mce_kit.gpu import mcegpu

    u, v, _, _ = prep.seed_arrays(subtree)
    total = 0
    for idx, cap, workers in mcegpu.plan(prep, subtree, True, 4, 1 << 40, seeds):
        assert set(idx.tolist()) <= set(np.asarray(seeds).tolist())
        flags = mcegpu.FLAG_IPX | mcegpu.FLAG_WL | mcegpu.FLAG_EDGE * (subtree == "L2")
        text = "\n".join([_vec(prep.indptr), _vec(prep.indices), _vec(u[idx]), _vec(v[idx]),
                          f"{cap} 1 {flags} {workers} 32 2"])
        out = subprocess.run([str(exe)], input=text, capture_output=True, text=True, timeout=120, check=True)
        f = out.stdout.splitlines()[0].split()
        assert int(f[7]) == 0
        total += int(f[1])
    return total


def _vec(a) -> str:
    return f"{len(a)} " + " ".join(map(str, np.asarray(a).tolist()))
