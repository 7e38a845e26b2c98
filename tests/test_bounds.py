"""The bounds on omega computed before any search (mce_kit.bounds): a real clique below, the core
number and a greedy colouring above, on random graphs of every family and on the bundled graphs."""

import itertools

import networkx as nx
import numpy as np
import pytest
from graph_families import (
    complete,
    disjoint_union,
    empty,
    erdos_renyi,
    from_networkx,
    graphs,
    moon_moser,
    random_nx_graphs,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from mce_kit import bounds, cpu, datasets
from mce_kit.bound_steps import peel, swap_once
from mce_kit.bounds import clique_bounds, core_subgraph, is_clique
from mce_kit.graph import Graph, induced_csr
from mce_kit.io import load_graph
from mce_kit.order import core_numbers


@settings(max_examples=150, deadline=None)
@given(graphs(max_n=20), st.sampled_from([1, 3]))
def test_lower_is_a_clique_and_bounds_hold(G, threads):
    with pytest.MonkeyPatch.context() as mp:   # the colour pass on one thread or on three
        mp.setattr(bounds, "ego_threads", lambda entries: threads)
        b = bounds._clique_bounds(G, bounds.SWAP_ROUNDS)
    omega = cpu.clique_number(G)
    assert b.lower <= omega <= b.upper
    assert len(b.clique) == b.lower and is_clique(G, b.clique)
    assert b.upper == min(b.upper_core, b.upper_colour, b.upper_ego)
    assert b.exact == (b.lower == b.upper)
    if b.root_bound is not None:  # the ego pass: no clique beats its earliest vertex's bound
        assert b.root_bound.max() == b.upper_ego
        _, cliques = cpu.max_cliques(G)
        rank = np.empty(G.n, np.int64)
        rank[b.order] = np.arange(G.n)
        for c in cliques:
            assert b.root_bound[min(c, key=lambda v: rank[v])] >= omega


@settings(max_examples=60, deadline=None)
@given(graphs(max_n=20))
def test_peeling_gives_the_core_numbers_and_a_degeneracy_order(G):
    order, core, tail = peel(G.indptr, G.indices)
    assert sorted(order.tolist()) == list(range(G.n))
    assert core.tolist() == core_numbers(G).tolist()
    rank = np.empty(G.n, np.int64)
    rank[order] = np.arange(G.n)
    for v in range(G.n):  # at most core[v] neighbours later in the order
        assert (rank[G.neighbors(v)] > rank[v]).sum() <= core[v]
    if tail:  # the last ``tail`` vertices form a clique
        assert is_clique(G, order[G.n - tail:])


def test_core_subgraph_keeps_every_maximum_clique():
    for seed in range(20):
        G = erdos_renyi(40, 0.3, seed=seed)
        omega, cliques = cpu.max_cliques(G)
        H, ids = core_subgraph(G, core_numbers(G), omega - 1)
        om2, cl2 = cpu.max_cliques(H)
        assert om2 == omega
        assert sorted(sorted(ids[c].tolist()) for c in cl2) == cliques


@pytest.mark.parametrize("G, omega", [(empty(0), 0), (empty(3), 1), (complete(7), 7), (moon_moser(9), 3),
                                      (disjoint_union(complete(6), erdos_renyi(20, 0.2, seed=1)), 6)],
                         ids=lambda x: getattr(x, "name", str(x)))
def test_easy_graphs_are_exact(G, omega):
    b = clique_bounds(G)
    assert b.exact and b.lower == omega


def test_colouring_beats_the_core_bound_on_dense_graphs():
    G = from_networkx(nx.complete_multipartite_graph(*[2] * 10))  # omega 10, every core number 18
    b = clique_bounds(G)
    assert b.upper_core == 19 and b.upper_colour == 10 and b.exact and b.lower == 10


def test_a_1_2_swap_grows_the_clique():
    # triangle {0, 1, 2}; 3 and 4 see 0, 1 and each other but not 2: drop 2, add 3 and 4
    G = from_networkx(nx.Graph([(0, 1), (0, 2), (1, 2), (0, 3), (1, 3), (0, 4), (1, 4), (3, 4), (2, 5)]))
    grown = swap_once(G.indptr, G.indices, np.array([0, 1, 2], np.int32))
    assert sorted(grown.tolist()) == [0, 1, 3, 4]
    assert sorted(swap_once(G.indptr, G.indices, grown).tolist()) == [0, 1, 3, 4]  # no swap left
    assert clique_bounds(G).lower == 4


@pytest.mark.parametrize("name", ["CA-GrQc", "email-Eu-core", "brock200_2", "keller4", "hamming6-2",
                                  "c-fat200-1", "johnson8-4-4"])
def test_bundled_graphs(name):
    G = datasets.load(name)
    b = clique_bounds(G)
    from mce_kit.experiments.geil import reference

    omega = reference()[name][0]
    assert b.lower <= omega <= b.upper and is_clique(G, b.clique)
    if name == "CA-GrQc":  # the greedy clique meets the core bound: no search at all
        assert b.exact and b.lower == 44


def test_is_clique():
    G = complete(4)
    assert is_clique(G, [0, 1, 2]) and not is_clique(G, [0, 0])
    assert not is_clique(from_networkx(nx.path_graph(3)), [0, 1, 2])
    assert all(is_clique(G, c) for c in itertools.combinations(range(4), 2))


def test_an_induced_subgraph_from_its_rows_equals_the_one_from_its_edges():
    """``graph.induced_csr`` (the rows of the kept vertices, renamed by rank) against the subgraph
    built from the filtered edge list, for ascending ids (no sort) and shuffled ones (one sort)."""
    rng = np.random.default_rng(4)
    for H in random_nx_graphs(60, seed=11):
        G = load_graph(H)
        for ids in (np.flatnonzero(rng.random(G.n) < 0.6), rng.permutation(G.n)[: G.n // 2], np.arange(G.n)):
            rank = np.full(G.n, -1)
            rank[ids] = np.arange(len(ids))
            e = G.edges()
            e = e[(rank[e[:, 0]] >= 0) & (rank[e[:, 1]] >= 0)]
            want = Graph.from_edges(len(ids), rank[e[:, 0]], rank[e[:, 1]], device="cpu")
            got = Graph(*induced_csr(G.indptr, G.indices, ids))
            assert np.array_equal(got.indptr, want.indptr) and np.array_equal(got.indices, want.indices), G
