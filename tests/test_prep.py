"""Fast host preparation of large graphs (R-MAT draws, edge lists to CSR, peeling, relabelling, seeds):
the vectorised steps give the same arrays as the reference ones, on the CuPy path's code too.

The GPU path runs the same functions with CuPy as the array module; here it is exercised on the host
through ``NotNumpy`` (NumPy behind another name, so every ``xp is np`` shortcut is skipped and the
branches written for CuPy run). The CuPy runs themselves are in tests/test_gpu_prep.py.
"""

import networkx as nx
import numpy as np
import pytest
from graph_families import random_nx_graphs

import mce_kit.generators as generators
from mce_kit import accel
from mce_kit.gpu import has_gpu, prep
from mce_kit.gpu.seeds import ordered_csr, seed_bounds, seed_sets
from mce_kit.graph import Graph, csr_arrays, rows_of
from mce_kit.io import load_graph
from mce_kit.order import peel_arrays, relabel_arrays


class NotNumpy:
    """NumPy under another name: runs the code paths meant for CuPy."""

    def __getattr__(self, name):
        return getattr(np, name)


XP = [np, NotNumpy()]
GRAPHS = [load_graph(H) for H in random_nx_graphs(120, seed=11)]


def rmat_edges_sequential(scale, edge_factor=16, abc=generators.GRAPH500, seed=0, chunk=1 << 24):
    """The generator's stream drawn in one pass (the definition rmat_edges must match)."""
    a, b, c = abc
    rng = np.random.default_rng(seed)
    m = edge_factor << scale
    u, v = np.zeros(m, dtype=np.int64), np.zeros(m, dtype=np.int64)
    for s in range(0, m, chunk):
        e = slice(s, min(m, s + chunk))
        for bit in range(scale):
            r = rng.random(e.stop - e.start)
            u[e] |= (r >= a + b).astype(np.int64) << bit
            v[e] |= ((r >= a) & (r < a + b) | (r >= a + b + c)).astype(np.int64) << bit
    perm = rng.permutation(1 << scale)
    return perm[u], perm[v]


@pytest.mark.parametrize("scale, ef, seed, chunk", [(1, 3, 0, 1 << 24), (3, 1, 0, 1 << 24), (5, 16, 2, 100),
                                                    (8, 4, 1, 1000), (10, 16, 1, 1 << 24), (12, 8, 3, 7777)])
@pytest.mark.parametrize("threads", [1, 3])
def test_rmat_edges_match_the_sequential_stream(monkeypatch, scale, ef, seed, chunk, threads):
    monkeypatch.setattr(generators, "PIECE", 333)  # many pieces and blocks, ragged ends
    monkeypatch.setattr(generators, "BLOCK", 50)
    want = rmat_edges_sequential(scale, ef, seed=seed, chunk=chunk)
    got = generators.rmat_edges(scale, ef, seed=seed, chunk=chunk, threads=threads)
    assert all(np.array_equal(x, y) and y.dtype == np.int64 for x, y in zip(want, got, strict=True))


def test_rmat_edges_other_probabilities():
    for abc in [(0.25, 0.25, 0.25), (0.5, 0.0, 0.5), (1.0, 0.0, 0.0), (0.1, 0.3, 0.0)]:
        want = rmat_edges_sequential(6, 4, abc, seed=5)
        got = generators.rmat_edges(6, 4, abc, seed=5)
        assert all(np.array_equal(x, y) for x, y in zip(want, got, strict=True)), abc


@pytest.mark.parametrize("xp", XP)
def test_rows_of(xp):
    indptr = np.array([0, 0, 2, 2, 5, 6])
    assert rows_of(indptr, xp).tolist() == [1, 1, 3, 3, 3, 4]
    assert rows_of(np.array([0]), xp).tolist() == []


@pytest.mark.parametrize("xp", XP)
def test_csr_arrays_equal_from_edges(xp):
    rng = np.random.default_rng(3)
    for n, m in [(1, 0), (1, 4), (2, 10), (7, 3), (300, 20000), (1000, 50), (5000, 30000)]:
        u, v = rng.integers(0, n, m), rng.integers(0, n, m)
        G = Graph.from_edges(n, u, v)
        indptr, indices = csr_arrays(n, u, v, xp)
        assert np.array_equal(G.indptr, indptr) and np.array_equal(G.indices, indices), (n, m)
        assert indices.dtype == np.int32


def later_neighbours(indptr, indices, order):
    """For each vertex, its neighbours later in ``order``."""
    pos = np.empty(len(indptr) - 1, np.int64)
    pos[order] = np.arange(len(order))
    src = rows_of(indptr)
    return np.bincount(src[pos[indices] > pos[src]], minlength=len(indptr) - 1)


@pytest.mark.parametrize("xp", XP)
def test_peeling_is_a_degeneracy_order_with_networkx_cores(xp):
    for G in GRAPHS:
        order, core = peel_arrays(G.indptr, G.indices, xp)
        assert order.dtype == np.int32 and core.dtype == np.int32
        assert sorted(order.tolist()) == list(range(G.n))
        H = G.to_networkx()
        want = nx.core_number(H)
        assert core.tolist() == [want[G.label(v)] for v in range(G.n)]
        later = later_neighbours(G.indptr, G.indices, order)
        assert (later <= core).all()  # each vertex's later neighbours <= its core number
        assert later.max(initial=0) == core.max(initial=0)  # max forward degree = degeneracy


def test_all_paths_peel_alike():
    """NumPy's path (bincount rounds where many neighbours lose) and the CuPy-path code agree."""
    for G in [*GRAPHS[:40], generators.rmat(12, 16, seed=2), load_graph(nx.star_graph(40))]:
        want = peel_arrays(G.indptr, G.indices)
        got = peel_arrays(G.indptr, G.indices, NotNumpy())
        assert all(np.array_equal(a, b) for a, b in zip(want, got, strict=True))


@pytest.mark.parametrize("xp", XP)
def test_relabel_arrays_equal_graph_relabel(xp):
    rng = np.random.default_rng(8)
    # 2^16 vertices (NumPy's two 16-bit passes at their limit) and 2^17 (NumPy's key sort)
    for G in [*GRAPHS[:60], generators.rmat(11, 8, seed=1), generators.rmat(16, 2, seed=3),
              generators.rmat(17, 2, seed=3)]:
        order = rng.permutation(G.n).astype(np.int32)
        H = G.relabel(order)
        indptr, indices = relabel_arrays(G.indptr, G.indices, order, xp)
        assert np.array_equal(H.indptr, indptr) and np.array_equal(H.indices, indices)


def _old_seed_sets(indptr, indices, seeding):
    n = len(indptr) - 1
    deg = np.diff(indptr).astype(np.int64)
    src = np.repeat(np.arange(n, dtype=np.int64), deg)
    later = np.bincount(src[indices > src], minlength=n)
    earlier = deg - later
    if seeding == "edge":
        keep = src < indices
        u, v = src[keep], indices[keep].astype(np.int64)
        p, x = np.minimum(later[u], later[v]), np.minimum(earlier[v], deg[u])
    else:
        u = np.flatnonzero(deg > 0)
        v = np.full(len(u), -1, dtype=np.int64)
        p, x = later[u], earlier[u]
    return u.astype(np.int32), v.astype(np.int32), p.astype(np.int64), x.astype(np.int64)


@pytest.mark.parametrize("xp", XP)
@pytest.mark.parametrize("seeding", ["edge", "vertex"])
def test_seed_bounds_equal_the_reference(xp, seeding):
    for G in [*GRAPHS[:60], generators.rmat(11, 16, seed=1)]:
        _, _, indptr, indices, _ = ordered_csr(G, "cpu")
        want = _old_seed_sets(indptr, indices, seeding)
        got = seed_bounds(indptr, indices, seeding, xp)
        assert all(np.array_equal(a, b) and a.dtype == b.dtype for a, b in zip(want, got, strict=True))
        got = seed_sets(indptr, indices, seeding, "cpu")
        assert all(np.array_equal(a, b) for a, b in zip(want, got, strict=True))


def test_ordered_csr_is_the_relabelled_graph():
    for G in [*GRAPHS[:60], generators.rmat(12, 16, seed=1)]:
        order, core, indptr, indices, isolated = ordered_csr(G, "cpu")
        H = G.relabel(order)
        assert np.array_equal(H.indptr, indptr) and np.array_equal(H.indices, indices)
        assert indptr.dtype == np.int32 and indices.dtype == np.int32
        assert isolated.tolist() == np.flatnonzero(np.diff(indptr) == 0).tolist()
        assert core.max(initial=0) == later_neighbours(indptr, indices, np.arange(G.n)).max(initial=0)


def test_device_argument():
    with pytest.raises(ValueError, match="device must be one of"):
        prep.use_gpu(10, "tpu")
    assert not prep.use_gpu(1 << 30, "cpu")
    assert not prep.use_gpu(10, "auto")  # short graphs stay on the host
    assert not prep.use_gpu_for_prep(10, "auto") and not prep.use_gpu_for_prep(1 << 30, "cpu")
    assert not prep.use_gpu(accel.PREP_GPU_MIN_ENTRIES)  # a maximal-clique call's preparation goes earlier
    if not has_gpu():
        with pytest.raises(RuntimeError, match="no usable CUDA GPU"):
            prep.use_gpu(10, "gpu")
        assert not prep.use_gpu(1 << 30, "auto")
    with pytest.raises(ValueError, match="seeding"):
        seed_sets(np.array([0]), np.array([], np.int32), "random")


def test_gpu_preparation_from_its_threshold(monkeypatch):
    import mce_kit.gpu as gpu

    monkeypatch.setattr(gpu, "has_gpu", lambda: True)
    small = accel.PREP_GPU_MIN_ENTRIES
    assert not prep.use_gpu_for_prep(small - 1)  # short graphs: the host
    assert prep.use_gpu_for_prep(small)          # from it: the GPU, a fresh process's first call too
    assert not prep.use_gpu_for_prep(small, "cpu")
    quarter = small // accel.ORDER_GPU_FACTOR   # a maximal-clique call's order: earlier
    assert not prep.use_gpu_for_prep(quarter - 1, order=True) and prep.use_gpu_for_prep(quarter, order=True)
    assert not prep.use_gpu_for_prep(quarter)


@pytest.mark.parametrize("xp", XP)
def test_unique_sorted(xp):
    from mce_kit.graph import unique_sorted

    rng = np.random.default_rng(5)
    for n in (0, 1, 2, 50, 10_000):
        x = rng.integers(0, max(1, n // 3), n)
        assert np.array_equal(unique_sorted(x, xp), np.unique(x))


def _old_one_way(n, u, v, mode):
    """The arcs without their reverse, by looking each one up (the definition)."""
    loop = u == v
    u, v = u[~loop], v[~loop]
    arcs = np.unique(u * n + v)
    reverse = (arcs % n) * n + arcs // n
    pos = np.minimum(np.searchsorted(arcs, reverse), len(arcs) - 1)
    has = arcs[pos] == reverse if len(arcs) else np.zeros(0, bool)
    one_way = int((~has).sum())
    return 0 if mode == "auto" and not has.any() else one_way


@pytest.mark.parametrize("mode", ["auto", "directed"])
def test_cleaning_report_counts_one_way_arcs_by_pairs(mode):
    from mce_kit.io import _report

    rng = np.random.default_rng(9)
    for n, m in [(1, 0), (2, 1), (3, 4), (30, 200), (500, 3000), (50, 2000)]:
        u, v = rng.integers(0, n, m), rng.integers(0, n, m)
        for uu, vv in ((u, v), (np.minimum(u, v), np.maximum(u, v))):  # with and without reciprocal pairs
            r = _report(n, uu, vv, mode)
            assert r.symmetrized == _old_one_way(n, uu, vv, mode), (n, m, mode)
            assert r.self_loops == int((uu == vv).sum())
