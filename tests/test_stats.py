import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from mce_kit import datasets
from mce_kit.graph_stats import expected_maximal_cliques, stats, two_hop_sizes
from mce_kit.io import load_bipartite, load_graph


def test_small_graph():
    H = nx.complete_graph(3)
    H.add_edge(2, 3)
    s = stats(load_graph(H, name="toy"))
    assert s == {"name": "toy", "n": 4, "m": 4, "max_degree": 3, "degeneracy": 2, "density": 4 / 6}


def test_graph_without_edges():
    s = stats(load_graph(nx.empty_graph(3)))
    assert (s["m"], s["max_degree"], s["degeneracy"], s["density"]) == (0, 0, 0, 0.0)


def test_ego_facebook_matches_rdmce_table_1():
    s = stats(datasets.load("ego-Facebook"))
    assert (s["n"], s["m"], s["max_degree"], s["degeneracy"]) == (4039, 88234, 1045, 115)


def test_movielens_matches_gmbe_plus_table_1():
    s = stats(datasets.load("MovieLens"))
    assert (s["n_u"], s["n_v"], s["m"]) == (16528, 7601, 71154)
    assert (s["max_degree_u"], s["max_2hop_u"]) == (640, 5817)
    assert (s["max_degree_v"], s["max_2hop_v"]) == (146, 3217)


@pytest.mark.parametrize("block_entries", [1, 50, 10**6])
def test_two_hop_sizes_brute_force(block_entries):
    rng = np.random.default_rng(4)
    A = sp.csr_array((rng.random((30, 12)) < 0.15).astype(np.float32))
    dense = A.toarray() > 0
    want = [int(((dense[:, dense[x]].any(axis=1)) & (np.arange(30) != x)).sum()) for x in range(30)]
    At = sp.csr_array(A.T)
    assert two_hop_sizes(A, At, block_entries).tolist() == want


def test_bipartite_stats_by_hand():
    # U = {a, b, c}, V = {x, y}: a-x, b-x, b-y, c-y
    H = nx.Graph([("a", "x"), ("b", "x"), ("b", "y"), ("c", "y")])
    nx.set_node_attributes(H, {"a": 0, "b": 0, "c": 0, "x": 1, "y": 1}, "bipartite")
    s = stats(load_bipartite(H, name="toy"))
    assert (s["n_u"], s["n_v"], s["m"]) == (3, 2, 4)
    assert (s["max_degree_u"], s["max_degree_v"]) == (2, 2)
    assert (s["max_2hop_u"], s["max_2hop_v"]) == (2, 1)  # b reaches a and c; x reaches y
    assert s["degeneracy"] == 1 and s["density"] == 4 / 6


def test_mk_stats_stays_callable():
    import mce_kit as mk
    import mce_kit.graph_stats  # noqa: F401  (importing the module must not break mk.stats(G))

    G = load_graph(nx.path_graph(4))
    assert mk.stats(G) == mk.stats(G) == stats(G)


def test_expected_maximal_cliques_matches_the_mean_over_random_graphs():
    n, p, trials = 14, 0.6, 300
    counts = [sum(1 for _ in nx.find_cliques(nx.gnp_random_graph(n, p, seed=s))) for s in range(trials)]
    mean = sum(counts) / trials
    assert abs(mean / expected_maximal_cliques(n, p) - 1) < 0.08
    assert expected_maximal_cliques(n, 0.0) == n and expected_maximal_cliques(n, 1.0) == 1
    with pytest.raises(ValueError, match="density"):
        expected_maximal_cliques(n, 1.5)
