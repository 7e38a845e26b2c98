"""Maximal biclique oracle vs brute force, formulas, a clique reduction and GMBE+'s count."""

import itertools

import networkx as nx
import numpy as np
import pytest
from graph_families import (
    bipartite_graphs,
    brute_force_bicliques,
    complete_bipartite,
    crown,
    random_bipartite,
)
from hypothesis import given, settings

from mce_kit import datasets
from mce_kit.cpu import count_maximal_bicliques, maximal_bicliques
from mce_kit.graph import BipartiteGraph


def as_sets(B):
    pairs = [(frozenset(L), frozenset(R)) for L, R in maximal_bicliques(B)]
    assert len(pairs) == len(set(pairs))  # each biclique once
    return set(pairs)


@settings(max_examples=150, deadline=None)
@given(bipartite_graphs(max_side=7))
def test_brute_force(B):
    expected = brute_force_bicliques(B)
    assert as_sets(B) == expected
    assert count_maximal_bicliques(B) == len(expected)


def test_sides_are_sorted_and_non_empty():
    B = random_bipartite(9, 7, 0.5, seed=4)
    for L, R in maximal_bicliques(B):
        assert L and R and L == sorted(L) and R == sorted(R)
        assert all(v in B.u_neighbors(u) for u in L for v in R)


@pytest.mark.parametrize("a,b", [(1, 1), (1, 5), (4, 3), (7, 7)])
def test_complete_bipartite_has_one(a, b):
    B = complete_bipartite(a, b)
    assert [(sorted(L), sorted(R)) for L, R in maximal_bicliques(B)] == [
        (list(range(B.n_u)), list(range(B.n_v)))
    ]


@pytest.mark.parametrize("n", range(1, 12))
def test_crown_graph(n):
    assert count_maximal_bicliques(crown(n)) == 2**n - 2


def test_no_edges():
    B = BipartiteGraph.from_edges(3, 2, [], [])
    assert list(maximal_bicliques(B)) == [] and count_maximal_bicliques(B) == 0


@pytest.mark.parametrize("seed", range(6))
def test_clique_reduction(seed):
    """Make both sides cliques: the maximal cliques meeting both sides are the maximal bicliques."""
    B = random_bipartite(25, 18, [0.1, 0.3, 0.6][seed % 3], seed=seed)
    H = nx.Graph()
    H.add_nodes_from(range(B.n_u + B.n_v))
    H.add_edges_from((u, B.n_u + v) for u in range(B.n_u) for v in B.u_neighbors(u).tolist())
    for side in (range(B.n_u), range(B.n_u, B.n_u + B.n_v)):
        H.add_edges_from(itertools.combinations(side, 2))
    expected = {
        (frozenset(x for x in c if x < B.n_u), frozenset(x - B.n_u for x in c if x >= B.n_u))
        for c in nx.find_cliques(H)
        if 0 < sum(x < B.n_u for x in c) < len(c)
    }
    assert as_sets(B) == expected


def test_smaller_side_is_v():
    u, v = np.nonzero(np.random.default_rng(0).random((4, 9)) < 0.5)
    B = BipartiteGraph.from_edges(4, 9, u, v)
    assert B.swapped and B.n_v == 4
    assert as_sets(B) == brute_force_bicliques(B)


@pytest.mark.slow
def test_movielens_gmbe_plus_count():
    """GMBE+ Table I: MovieLens has 140,266 maximal bicliques (about 12 s here)."""
    assert count_maximal_bicliques(datasets.load("MovieLens")) == 140_266
