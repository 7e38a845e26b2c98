"""The compiled host preparation on several threads (mce_kit.compiled): every thread count gives the
NumPy path's arrays, values, dtypes and order, on graphs of several families, bundled graphs and the
corner cases (no vertex, isolated vertices, a star); and the rule that picks the count."""

import graph_families as gf
import numpy as np
import pytest
import scipy.sparse as sp

from mce_kit import compiled, datasets
from mce_kit.gpu.seeds import seed_bounds
from mce_kit.graph import Graph
from mce_kit.order import orient_arrays, peel_arrays, relabel_arrays

THREADS = (1, 2, 3, 4, 7)
GRAPHS = [Graph(np.zeros(1, np.int32), np.zeros(0, np.int32)),  # no vertex
          gf.empty(5), gf.star(1), gf.star(300), gf.disjoint_union(gf.empty(40), gf.star(50), gf.complete(12),
                                                                   gf.empty(3)),
          gf.erdos_renyi(2000, 0.004, seed=1), gf.erdos_renyi(300, 0.3, seed=2),
          gf.powerlaw_cluster(3000, 4, seed=3), gf.planted_cliques(600, 0.03, [25, 14], seed=4),
          *[gf.from_networkx(H) for H in gf.random_nx_graphs(8, seed=5)],
          datasets.load("CA-GrQc"), datasets.load("email-Eu-core")]


def same(want, got) -> bool:
    return all(np.array_equal(a, b) and a.dtype == b.dtype for a, b in zip(want, got, strict=True))


def orders(G: Graph) -> list:
    """A degeneracy order (what the launchers relabel by) and a random one."""
    return [peel_arrays(G.indptr, G.indices)[0], np.random.default_rng(G.n).permutation(G.n)]


@pytest.mark.parametrize("G", GRAPHS, ids=lambda G: f"{G.name or 'graph'}-{G.n}")
def test_every_thread_count_gives_the_numpy_arrays(G):
    for order in orders(G):
        want = relabel_arrays(G.indptr, G.indices, order)
        for T in THREADS:
            assert same(want, compiled.relabel(G.indptr, G.indices, order, threads=T)), T
    ptr, idx = relabel_arrays(G.indptr, G.indices, orders(G)[0])
    ptr = ptr.astype(np.int32)
    src = np.repeat(np.arange(G.n), np.diff(ptr))
    later = np.bincount(src[idx > src], minlength=G.n).astype(np.int64)
    for T in THREADS:
        for seeding in ("edge", "vertex"):
            assert same(seed_bounds(ptr, idx, seeding), compiled.seed_bounds(ptr, idx, seeding, threads=T))
        assert same(orient_arrays(ptr, idx), compiled.orient(ptr, idx, threads=T)), T
        assert same([later], [compiled.later(ptr, idx, threads=T)]), T


def two_hop_reference(a_ptr, a_idx, n_b) -> np.ndarray:
    """|N2(v) and v| of each vertex of side A: the row sizes of A A^T (SciPy)."""
    A = sp.csr_matrix((np.ones(len(a_idx)), a_idx, a_ptr), shape=(len(a_ptr) - 1, n_b))
    return np.diff((A @ A.T).tocsr().indptr).astype(np.int64)


@pytest.mark.parametrize("T", THREADS)
def test_two_hop_sizes_on_threads_are_the_rows_of_the_sparse_product(T):
    sizes = [(1, 1, 1.0), (30, 1, 0.5), (400, 300, 0.02), (2000, 60, 0.05), (60, 900, 0.1), (5, 7, 0.0)]
    graphs = [gf.random_bipartite(n_u, n_v, p, seed=s) for s, (n_u, n_v, p) in enumerate(sizes)]
    for B in [*graphs, datasets.load("marvel")]:
        for a_ptr, a_idx, b_ptr, b_idx, n_b in [(B.u_indptr, B.u_indices, B.v_indptr, B.v_indices, B.n_v),
                                                (B.v_indptr, B.v_indices, B.u_indptr, B.u_indices, B.n_u)]:
            got = compiled.two_hop_sizes(a_ptr, a_idx, b_ptr, b_idx, threads=T)
            assert same([two_hop_reference(a_ptr, a_idx, n_b)], [got]), B.name


def test_the_thread_rule_keeps_small_graphs_on_one(monkeypatch):
    monkeypatch.setattr("mce_kit.config.usable_cores", lambda: 16)
    per = compiled.ENTRIES_PER_THREAD
    assert compiled.prep_threads(per - 1) == 1 and compiled.prep_threads(0) == 1
    assert compiled.prep_threads(3 * per) == 3
    assert compiled.prep_threads(100 * per) == 16  # capped at the usable cores
    assert compiled.prep_threads(100 * per, rows=10 * per) == 10  # at most entries / rows
    assert compiled.prep_threads(100 * per, rows=40 * per, least=3) == 1  # 2 threads: not worth it
    assert compiled.prep_threads(3 * per, least=4) == 1 and compiled.prep_threads(4 * per, least=4) == 4
    assert compiled.prep_threads(100 * per, threads=3) == 3  # forced
    assert compiled.prep_threads(10, threads=0) == 1


def test_coldprep_rows_name_the_threads_each_path_used():
    """The cold-preparation experiment forces the compiled twins' thread count and records it (its
    rows check every path's arrays against NumPy's)."""
    from mce_kit.experiments import coldprep

    rule = compiled.prep_threads
    rows = list(coldprep.host_steps(["CA-GrQc"], 1, (0, 3)))
    threads = {(r["step"], r["path"]): set() for r in rows}
    for r in rows:
        threads[r["step"], r["path"]].add(r["threads"])
    assert threads["mce: seeds", "numpy"] == {1}
    assert threads["mce: seeds", "compiled"] == {1, 3}  # the rule keeps a small graph on one
    assert threads["kclique", "compiled"] == {1, 3}
    assert compiled.prep_threads is rule  # put back
