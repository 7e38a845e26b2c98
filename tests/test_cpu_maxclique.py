"""Maximum clique oracle vs networkx, igraph, brute force and DIMACS clique numbers."""

import time

import igraph as ig
import networkx as nx
import pytest
from graph_families import (
    arbitrary_graphs,
    brute_force_cliques,
    complete,
    disjoint_union,
    empty,
    graphs,
    moon_moser,
    planted_cliques,
)
from hypothesis import given, settings

from mce_kit import datasets
from mce_kit.cpu import clique_number, max_cliques


def as_sorted(cliques):
    return sorted(sorted(c) for c in cliques)


@settings(max_examples=100, deadline=None)
@given(graphs(max_n=20))
def test_against_networkx_and_igraph(G):
    omega, cliques = max_cliques(G)
    assert clique_number(G) == omega
    assert omega == (nx.max_weight_clique(G.to_networkx(), weight=None)[1] if G.n else 0)
    g = ig.Graph(n=G.n, edges=G.edges().tolist())
    assert as_sorted(cliques) == (as_sorted(g.largest_cliques()) if G.n else [])
    assert all(c == sorted(c) for c in cliques)


@settings(max_examples=60, deadline=None)
@given(arbitrary_graphs(max_n=9))
def test_brute_force(G):
    cliques = brute_force_cliques(G)
    omega = max(map(len, cliques), default=0)
    assert max_cliques(G) == (omega, as_sorted(c for c in cliques if len(c) == omega))


def test_structured_graphs():
    assert max_cliques(empty(0)) == (0, [])
    assert max_cliques(empty(3)) == (1, [[0], [1], [2]])
    assert max_cliques(complete(150)) == (150, [list(range(150))])
    omega, cliques = max_cliques(moon_moser(12))  # K_{3,3,3,3}: one vertex per part
    assert (omega, len(cliques)) == (4, 3**4)
    G = disjoint_union(complete(5), complete(5), complete(3))
    assert max_cliques(G) == (5, [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]])


def test_planted_clique_is_found():
    G = planted_cliques(120, 0.1, [14], seed=3)
    omega, cliques = max_cliques(G)
    assert omega == 14 and len(cliques) == 1
    assert all(w in G.neighbors(v) for v in cliques[0] for w in cliques[0] if v != w)


DIMACS = [
    "brock200_2",
    "c-fat200-1",
    "hamming6-2",
    "hamming6-4",
    "johnson8-4-4",
    "keller4",
    "p_hat300-1",
    "san200_0.7_1",
    "C125.9",
    "brock200_4",
]


@pytest.mark.parametrize("name", DIMACS)
def test_dimacs_known_omega(name):
    G = datasets.load(name)
    t = time.perf_counter()
    omega, cliques = max_cliques(G)
    assert time.perf_counter() - t < 10
    assert omega == datasets.info(name)["known_omega"]
    assert len(set(map(tuple, cliques))) == len(cliques)
    S = [set(G.neighbors(v).tolist()) for v in range(G.n)]
    assert all(len(c) == omega and all(w in S[v] for v in c for w in c if w != v) for c in cliques)


@pytest.mark.parametrize("name", ["brock200_2", "c-fat200-1", "hamming6-4", "johnson8-4-4", "p_hat300-1"])
def test_dimacs_all_maximum_cliques_match_igraph(name):
    G = datasets.load(name)
    g = ig.Graph(n=G.n, edges=G.edges().tolist())
    assert as_sorted(max_cliques(G)[1]) == as_sorted(g.largest_cliques())
