import time

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mce_kit.graph import Graph
from mce_kit.io import load_graph
from mce_kit.order import core_numbers, degeneracy, degeneracy_order, degree_order


def later_neighbours(G: Graph, order: np.ndarray) -> np.ndarray:
    """For each vertex, how many of its neighbours come after it in ``order``."""
    pos = np.empty(G.n, np.int64)
    pos[order] = np.arange(G.n)
    e = G.edges()
    first = np.where(pos[e[:, 0]] < pos[e[:, 1]], e[:, 0], e[:, 1])
    return np.bincount(first, minlength=G.n)


def random_graph(n, p, seed):
    return load_graph(nx.gnp_random_graph(n, p, seed=seed))


CASES = [(1, 0.0), (30, 0.0), (40, 0.1), (60, 0.3), (80, 0.05), (50, 0.9), (200, 0.02)]


@pytest.mark.parametrize("n, p", CASES)
@pytest.mark.parametrize("seed", [0, 1])
def test_core_numbers_match_networkx(n, p, seed):
    H = nx.gnp_random_graph(n, p, seed=seed)
    core = core_numbers(load_graph(H))
    assert core.dtype == np.int32
    assert core.tolist() == [nx.core_number(H)[v] for v in range(n)]


@pytest.mark.parametrize("n, p", CASES)
def test_degeneracy_order_property(n, p):
    G = random_graph(n, p, seed=3)
    order = degeneracy_order(G)
    d = degeneracy(G)
    assert order.dtype == np.int32
    assert sorted(order.tolist()) == list(range(G.n))
    later = later_neighbours(G, order)
    assert later.max(initial=0) <= d
    assert np.all(later <= core_numbers(G))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 25), st.integers(0, 25)), max_size=120))
def test_peeling_on_arbitrary_graphs(edges):
    H = nx.empty_graph(26)
    H.add_edges_from((a, b) for a, b in edges if a != b)
    G = load_graph(H)
    assert core_numbers(G).tolist() == [nx.core_number(H)[v] for v in range(26)]
    assert later_neighbours(G, degeneracy_order(G)).max() <= degeneracy(G)


def test_known_degeneracies():
    assert degeneracy(load_graph(nx.complete_graph(7))) == 6
    assert degeneracy(load_graph(nx.path_graph(1000))) == 1
    assert degeneracy(load_graph(nx.balanced_tree(3, 5))) == 1
    assert degeneracy(load_graph(nx.cycle_graph(9))) == 2
    assert degeneracy(load_graph(nx.empty_graph(4))) == 0
    assert degeneracy(load_graph(nx.empty_graph(0))) == 0
    assert degeneracy_order(load_graph(nx.empty_graph(0))).tolist() == []


def test_core_numbers_of_a_clique_with_a_tail():
    H = nx.complete_graph(5)
    nx.add_path(H, [4, 5, 6, 7])
    assert core_numbers(load_graph(H)).tolist() == [4, 4, 4, 4, 4, 1, 1, 1]


def test_degree_order():
    G = load_graph(nx.star_graph(4))  # centre 0 has degree 4, leaves 1
    assert degree_order(G).tolist() == [1, 2, 3, 4, 0]
    H = load_graph(nx.gnp_random_graph(100, 0.1, seed=5))
    order = degree_order(H)
    key = list(zip(H.degrees()[order].tolist(), order.tolist(), strict=True))
    assert key == sorted(key)


def test_million_edges_ordered_fast():
    rng = np.random.default_rng(7)
    n = 200_000
    u, v = rng.integers(0, n, (2, 1_000_000))
    G = Graph.from_edges(n, u, v)
    assert G.m > 990_000
    t = time.perf_counter()
    order = degeneracy_order(G)
    elapsed = time.perf_counter() - t
    assert elapsed < 2.0, f"degeneracy order of 10^6 edges took {elapsed:.2f} s"
    assert later_neighbours(G, order).max() <= degeneracy(G)


def test_the_compiled_peel_takes_the_same_batches():
    """compiled.peel gives peel_arrays' order and core numbers, array for array."""
    from graph_families import from_networkx, random_nx_graphs

    from mce_kit import datasets
    from mce_kit.compiled import peel
    from mce_kit.order import peel_arrays

    graphs = [from_networkx(H) for H in random_nx_graphs(80, seed=4)] + [datasets.load("CA-GrQc")]
    for G in graphs:
        a, b = peel_arrays(G.indptr, G.indices), peel(G.indptr, G.indices)
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]), G.name
