"""Seeded synthetic graphs: reproducible, the requested sizes, heavy-tailed."""

import numpy as np
import pytest

from mce_kit.generators import bipartite_chung_lu, rmat, rmat_edges


def test_rmat_is_reproducible_and_simple():
    G, H = rmat(10, 8, seed=3), rmat(10, 8, seed=3)
    assert np.array_equal(G.indptr, H.indptr) and np.array_equal(G.indices, H.indices)
    assert G.n == 1024 and 0 < G.m <= 8 * 1024
    src = np.repeat(np.arange(G.n), G.degrees())
    assert not (src == G.indices).any()  # no self-loops
    assert rmat(10, 8, seed=4).m != G.m or not np.array_equal(rmat(10, 8, seed=4).indices, G.indices)


def test_rmat_quadrant_probabilities():
    u, v = rmat_edges(1, edge_factor=20000, abc=(0.5, 0.2, 0.2), seed=0)
    # scale 1: one quadrant draw, then a random relabelling of the two vertices
    same = np.mean(u == v)  # quadrants a and d put both ends on the same vertex
    assert abs(same - 0.6) < 0.02


def test_rmat_degrees_are_skewed():
    d = rmat(14, 16, seed=1).degrees()
    assert d.max() > 20 * d.mean()


def test_bipartite_chung_lu_has_heavy_tails_on_both_sides():
    B = bipartite_chung_lu(5000, 1000, 40000, seed=2)
    du, dv = np.diff(B.u_indptr), np.diff(B.v_indptr)
    assert du.max() > 10 * du.mean() and dv.max() > 10 * dv.mean()
    assert B.n_u == 5000 and B.n_v == 1000


@pytest.mark.parametrize("bad", [dict(scale=0), dict(scale=4, abc=(0.6, 0.3, 0.3))])
def test_rmat_rejects_bad_arguments(bad):
    with pytest.raises(ValueError):
        rmat(**bad)


def test_long_edge_lists_build_the_same_graph(monkeypatch):
    import numpy as np

    import mce_kit.graph as graph

    rng = np.random.default_rng(4)
    u, v = rng.integers(0, 300, 20_000), rng.integers(0, 300, 20_000)  # repeats and self-loops
    small = graph.Graph.from_edges(300, u, v)
    monkeypatch.setattr(graph, "LARGE_EDGE_LIST", 1)
    large = graph.Graph.from_edges(300, u, v)
    assert np.array_equal(small.indptr, large.indptr) and np.array_equal(small.indices, large.indices)
