"""Host preparation on the GPU (mce_kit.gpu.prep) gives the host's arrays, and RDMCE counts on it.

Run with ``pytest -m gpu``; every test here skips cleanly without a GPU.
"""

import functools

import numpy as np
import pytest
from graph_families import random_nx_graphs

import mce_kit.graph as graph
from mce_kit import accel, cpu, generators
from mce_kit.gpu import has_gpu
from mce_kit.io import load_graph

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not has_gpu(), reason="needs a CUDA GPU")]



@functools.cache
def graphs():
    return [load_graph(H) for H in random_nx_graphs(200, seed=23)]


def _same(a, b):
    return all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def test_the_one_block_peel_takes_the_host_batches():
    import cupy
    import networkx as nx

    from mce_kit.gpu.prep import peel
    from mce_kit.order import peel_arrays

    special = [nx.empty_graph(5), nx.star_graph(5000), nx.complete_graph(60), nx.path_graph(3000),
               nx.disjoint_union(nx.star_graph(3000), nx.complete_graph(40)), nx.empty_graph(0)]
    for G in [*graphs(), *(load_graph(H) for H in special),
              *(generators.rmat(s, 16, seed=2) for s in (12, 15, 17))]:
        for _ in range(2):  # the same arrays on every run (no race between the block's threads)
            got = [a.get() for a in peel(cupy.asarray(G.indptr), cupy.asarray(G.indices))]
            want = peel_arrays(G.indptr, G.indices)
            assert _same(want, got) and [a.dtype for a in got] == [np.int32, np.int32], G


def test_ordered_csr_on_the_gpu_equals_the_host():
    from mce_kit.gpu.seeds import ordered_csr

    for G in [*graphs(), *(generators.rmat(s, 16, seed=1) for s in (10, 14, 17))]:
        want, got = ordered_csr(G, "cpu"), ordered_csr(G, "gpu")
        assert _same(want, got), G


def test_the_gpu_keeps_what_it_prepared_equal_to_the_host(monkeypatch):
    """The ordered CSR and RDMCE's seeds, kept on the GPU as built there (no copy back and up again),
    equal the host's arrays, and a count on them is exact, in one pass or several."""
    from mce_kit import prepared
    from mce_kit.gpu import rdmce

    monkeypatch.setattr(accel, "PREP_GPU_MIN_ENTRIES", 0)
    for G in [*graphs()[:40], generators.rmat(14, 16, seed=5)]:
        prepared.release(G)   # nothing kept yet: the GPU prepares it here
        P = rdmce.prepared(G)
        host = rdmce.prepare(G, device="cpu")
        u, v, rows, stack = host.seed_arrays("edge")
        on_gpu = prepared.ordered_on_device(G)
        kept = {name: on_gpu.array(name, None).get() for name in
                ("indptr", "indices", ("seed u", "edge"), ("seed v", "edge"))}
        assert _same([host.indptr, host.indices, u, v], kept.values()), G
        count = P.run().count
        if G.n <= 200:   # (the CPU oracle on the R-MAT graph takes minutes)
            assert count == cpu.count_maximal_cliques(G), G
        if G.m:   # (an edgeless graph is prepared on the host)
            assert not isinstance(P.seeds["edge"][0], np.ndarray), G   # a one-pass run left them on the GPU
        assert _same(host.seed_arrays("edge"), P.seed_arrays("edge")), G   # copied when asked
        assert P.run(max_buffer_bytes=1 << 20).count == count, G   # fewer workers: planned on the host


def test_seed_needs_on_the_gpu_equal_the_hosts_words():
    """RDMCE's seeds and per-seed buffer words, computed on the device (``cuda/seeds.cu`` and the
    formulas' fused kernel, ``seeds.Formula``), equal the host's; so does a formula with negative
    values (C's division truncates, Python's floors)."""
    from mce_kit.gpu import rdmce
    from mce_kit.gpu.prep import seed_needs
    from mce_kit.gpu.seeds import per_seed, seed_sets

    words = rdmce.rows_words, rdmce.stack_words
    for G in [*graphs()[:60], generators.rmat(14, 16, seed=6)]:
        for seeding in ("edge", "vertex"):
            u, v, p, x = seed_sets(G.indptr, G.indices, seeding, "cpu")
            assert _same((u, v, *per_seed(p, x, *words)), seed_needs(G.indptr, G.indices, seeding, *words)), G
    import cupy

    rng = np.random.default_rng(9)
    p, x = rng.integers(0, 70, 5000), rng.integers(0, 900, 5000)
    f = lambda p, x: (7 - x) // (p + 1) - (x >= p) * (p <= 5) // 2 + (p < x) * (3 - x) // 4  # noqa: E731
    assert np.array_equal(per_seed(cupy.asarray(p), cupy.asarray(x), f)[0].get(), f(p, x))


@pytest.mark.parametrize("order", ["degree", "degeneracy"])
def test_oriented_csr_on_the_gpu_equals_the_host(order):
    from mce_kit.gpu import kclique
    from mce_kit.gpu.prep import oriented_csr
    from mce_kit.order import orient_arrays
    from mce_kit.order import oriented_csr as host_oriented_csr

    for G in [*graphs(), *(generators.rmat(s, 16, seed=3) for s in (10, 14, 17))]:
        vertices = kclique.orientation(G, order)
        want = (vertices, *host_oriented_csr(G, vertices))
        got = oriented_csr(G.indptr, G.indices, order)
        assert _same(want, got) and [a.dtype for a in got[:-1]] == [np.int32] * 7, G
        assert _same(orient_arrays(got[1], got[2]), got[3:]), G   # NumPy's path from the same CSR


@pytest.mark.parametrize("order", ["degree", "degeneracy"])
def test_an_orientation_built_on_the_gpu_equals_the_hosts(order, monkeypatch):
    from mce_kit.gpu import kclique

    for G in [*graphs(), generators.rmat(14, 16, seed=4)]:
        monkeypatch.setattr(accel, "PREP_GPU_MIN_ENTRIES", 1 << 40)
        monkeypatch.setattr(accel, "GPU_MIN_ENTRIES", 1 << 40)
        host = kclique._orient(G, order)
        monkeypatch.setattr(accel, "PREP_GPU_MIN_ENTRIES", 0)
        monkeypatch.setattr(accel, "GPU_MIN_ENTRIES", 0)
        gpu = kclique._orient(G, order)
        assert not gpu.blobs   # the blobs stay on the GPU until the host asks
        for name in ("order", "indptr", "indices", "out_ptr", "out_idx", "u", "v", "bound", "out_blob",
                     "all_blob"):
            assert np.array_equal(getattr(host, name), getattr(gpu, name)), (G, name)
        for name in ("out_blob", "all_blob"):   # kept on the GPU as built: no upload
            assert np.array_equal(gpu.device.array(name, None).get(), getattr(host, name)), (G, name)


@pytest.mark.parametrize("order", ["degree", "degeneracy"])
def test_a_gpu_run_leaves_the_blobs_on_the_gpu(order, monkeypatch):
    """KCMiner and the pivot counter read only the order and the bounds on the host: an orientation
    built on the GPU is not copied back by a run, and its host copy, made on demand, is right."""
    from mce_kit import cpu_engine
    from mce_kit.gpu import cliquecount, kclique

    monkeypatch.setattr(accel, "PREP_GPU_MIN_ENTRIES", 0)
    monkeypatch.setattr(accel, "GPU_MIN_ENTRIES", 0)
    G = generators.rmat(12, 16, seed=5)
    want = cpu_engine.clique_counts(G, 6)
    assert kclique.prepare(G).run(k=5, order=order).answer == want[5]
    assert cliquecount.clique_counts(G, 6, order=order)[6] == want[6]
    ori = kclique.orient(G, order)
    assert not ori.blobs
    monkeypatch.setattr(accel, "PREP_GPU_MIN_ENTRIES", 1 << 40)
    monkeypatch.setattr(accel, "GPU_MIN_ENTRIES", 1 << 40)
    host = kclique._orient(G, order)
    for name in ("indptr", "indices", "out_ptr", "out_idx", "u", "v"):
        assert np.array_equal(getattr(ori, name), getattr(host, name)), name


def test_k_cliques_with_gpu_orientation(monkeypatch):
    from mce_kit.gpu import cliquecount, kclique

    monkeypatch.setattr(accel, "PREP_GPU_MIN_ENTRIES", 0)
    monkeypatch.setattr(accel, "GPU_MIN_ENTRIES", 0)
    for H in random_nx_graphs(60, seed=29):   # fresh graphs: nothing kept from another test
        G = load_graph(H)
        want = cpu.clique_counts(G, 6)
        assert kclique.prepare(G).run(k=5).answer == want[5], G
        assert cliquecount.prepare(G).run(k_max=6).answer == want, G


@pytest.mark.parametrize("seeding", ["edge", "vertex"])
def test_seed_sets_on_the_gpu_equal_the_host(seeding):
    from mce_kit.gpu.seeds import ordered_csr, seed_sets

    for G in [*graphs()[:80], generators.rmat(15, 16, seed=1)]:
        _, _, indptr, indices, _ = ordered_csr(G, "cpu")
        got = seed_sets(indptr, indices, seeding, "gpu")
        want = seed_sets(indptr, indices, seeding, "cpu")
        assert _same(want, got) and [a.dtype for a in want] == [a.dtype for a in got]


@pytest.mark.parametrize("seeding", ["edge", "vertex"])
def test_rdmce_seed_words_on_the_gpu_equal_the_host(seeding, monkeypatch):
    from mce_kit.gpu import rdmce

    for G in [*graphs()[:40], generators.rmat(16, 16, seed=1)]:
        p = rdmce.prepare(G, device="cpu")
        monkeypatch.setattr(accel, "PREP_GPU_MIN_ENTRIES", 0)
        got = rdmce._make_seeds(p.indptr, p.indices, seeding)
        monkeypatch.setattr(accel, "PREP_GPU_MIN_ENTRIES", 1 << 62)
        want = rdmce._make_seeds(p.indptr, p.indices, seeding)
        assert _same(want, got) and [a.dtype for a in want] == [a.dtype for a in got]


def test_edge_lists_on_the_gpu_equal_the_host(monkeypatch):
    rng = np.random.default_rng(2)
    for n, m in [(1, 0), (1, 5), (300, 20000), (5000, 30000)]:
        u, v = rng.integers(0, n, m), rng.integers(0, n, m)
        G = graph.Graph.from_edges(n, u, v, device="gpu")
        assert _same(graph.csr_arrays(n, u, v), (G.indptr, G.indices))
    u, v = generators.rmat_edges(18, 16, seed=1)  # 4 M draws: from_edges takes the GPU
    G = graph.Graph.from_edges(1 << 18, u, v)
    monkeypatch.setattr(accel, "GPU_MIN_ENTRIES", 1 << 62)
    H = graph.Graph.from_edges(1 << 18, u, v)
    assert _same((G.indptr, G.indices), (H.indptr, H.indices))


def test_rdmce_counts_with_gpu_preparation():
    from mce_kit.gpu import rdmce

    for G in graphs()[:150]:
        assert rdmce.prepare(G, device="gpu").run().count == cpu.count_maximal_cliques(G), G
    G = generators.rmat(12, 16, seed=1)
    want = cpu.count_maximal_cliques(G)
    prep = rdmce.prepare(G, device="gpu")
    assert [prep.run().count for _ in range(10)] == [want] * 10


def test_unique_on_the_gpu_equals_the_host(monkeypatch):
    monkeypatch.setattr(graph, "LARGE_EDGE_LIST", 0)
    monkeypatch.setattr(accel, "GPU_MIN_ENTRIES", 0)
    rng = np.random.default_rng(3)
    for n in (0, 1, 1000, 1 << 20):
        x = rng.integers(0, 1 << 40, n)
        assert np.array_equal(graph._unique(x), np.unique(x))


def test_gpu_calls_in_a_fresh_process_import_no_scipy():
    """CuPy sends ``array op scalar`` through ``__array_ufunc__``, which imports cupyx.scipy and SciPy
    (a quarter of a second in a fresh process): the GPU paths write such operators as functions.
    A fresh process counting maximal cliques and bicliques imports no SciPy at all; the other
    problems may load Numba (host twins; clique_number's CPU routes: the complement's cover, a few
    open roots), which imports SciPy itself, so there only cupyx.scipy is checked. A failure names
    the line that imported it."""
    import json
    import subprocess
    import sys

    code = """
import json, sys, traceback
first = {}
class Watch:  # the Python stack where each module is first imported
    def find_spec(self, name, path, target=None):
        if name in ("scipy", "cupyx.scipy") and name not in first:
            first[name] = "".join(l for l in traceback.format_stack()[-12:-1] if "importlib" not in l)
sys.meta_path.insert(0, Watch())
import mce_kit as mk
from mce_kit import datasets
G = datasets.load("soc-Slashdot0902")  # past PREP_GPU_MIN_ENTRIES: order, seeds, orientation on the GPU
B = datasets.load("MovieLens")
for _ in range(2):  # cold, then warm
    mk.count_maximal_cliques(G, device="gpu")
    mk.count_maximal_bicliques(B, device="gpu")
before = dict(first)
H = datasets.load("soc-Slashdot0902")
for _ in range(2):
    mk.count_k_cliques(H, 4, device="gpu", algorithm="listing")
    mk.count_k_cliques(H, 8, device="gpu", algorithm="pivot")
    mk.count_maximal_cliques(G, algorithm="mce-gpu")
    mk.max_cliques(datasets.load("email-Eu-core"), device="gpu")
    mk.clique_number(datasets.load("brock200_4"), device="gpu")  # a search
print(json.dumps([before, first.get("cupyx.scipy")]))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    before, later = json.loads(out.stdout.strip().splitlines()[-1])
    assert before == {}, before
    assert later is None, later
