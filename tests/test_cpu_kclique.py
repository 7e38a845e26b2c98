"""k-clique oracle vs networkx, igraph, formulas and SNAP's triangle count."""

import itertools
import math
import time
from collections import Counter

import igraph as ig
import networkx as nx
import pytest
from graph_families import arbitrary_graphs, brute_force_cliques, complete, graphs, moon_moser
from hypothesis import given, settings
from hypothesis import strategies as st

from mce_kit import datasets
from mce_kit.cpu import clique_counts, count_k_cliques, count_k_cliques_range, k_cliques


@settings(max_examples=100, deadline=None)
@given(graphs(max_n=16))
def test_all_k_against_networkx(G):
    theirs = Counter(frozenset(c) for c in nx.enumerate_all_cliques(G.to_networkx()))
    by_size = Counter(map(len, theirs))
    K = max(by_size, default=0) + 1  # one past the clique number: zero cliques
    for k in range(1, K + 1):
        listed = Counter(frozenset(c) for c in k_cliques(G, k))
        assert listed == Counter(c for c in theirs if len(c) == k)
        assert count_k_cliques(G, k) == by_size[k]
    assert count_k_cliques_range(G, range(1, K + 1)) == {k: by_size[k] for k in range(1, K + 1)}


@settings(max_examples=50, deadline=None)
@given(graphs(max_n=20), st.integers(3, 7))
def test_counts_match_igraph(G, k):
    g = ig.Graph(n=G.n, edges=G.edges().tolist())
    assert count_k_cliques(G, k) == len(g.cliques(min=k, max=k))


@settings(max_examples=60, deadline=None)
@given(arbitrary_graphs(max_n=9))
def test_brute_force(G):
    sizes = Counter(map(len, brute_force_cliques(G)))
    assert count_k_cliques(G, 1) == G.n and count_k_cliques(G, 2) == G.m
    assert count_k_cliques_range(G, range(1, 11)) == {k: sizes[k] for k in range(1, 11)}


def test_formulas():
    for n, k in itertools.product([0, 1, 5, 12], [1, 2, 3, 4, 6]):
        assert count_k_cliques(complete(n), k) == math.comb(n, k)
    # K_{3,3,3,3}: a k-clique picks k parts and one vertex in each
    assert count_k_cliques(moon_moser(12), 3) == math.comb(4, 3) * 3**3
    assert count_k_cliques(moon_moser(12), 5) == 0
    assert sorted(map(sorted, k_cliques(complete(4), 3))) == [[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]]


@pytest.mark.parametrize("k", [0, -1])
def test_bad_k(k):
    with pytest.raises(ValueError, match="k must be"):
        count_k_cliques(complete(3), k)
    with pytest.raises(ValueError, match="k must be"):
        list(k_cliques(complete(3), k))


def test_ca_grqc_speed():
    """k = 3..6 on CA-GrQc, each counted separately; target < 60 s in total on one core."""
    G = datasets.load("CA-GrQc")
    t = time.perf_counter()
    counts = {k: count_k_cliques(G, k) for k in range(3, 7)}
    seconds = time.perf_counter() - t
    print(f"CA-GrQc k=3..6: {counts}, {seconds:.2f} s")
    assert seconds < 60
    assert counts[3] == 48_260  # SNAP's published triangle count
    assert count_k_cliques_range(G, range(3, 7)) == counts
    g = ig.Graph(n=G.n, edges=G.edges().tolist())
    assert counts[4] == len(g.cliques(min=4, max=4))


# ---- all k at once by pivoting (mce_kit.cpu.pivot) ----

@settings(max_examples=120, deadline=None)
@given(graphs(max_n=18), st.sampled_from([None, 3, 4, 5, 6, 7, 8]))
def test_pivot_counts_match_networkx(G, k_max):
    by_size = Counter(len(c) for c in nx.enumerate_all_cliques(G.to_networkx()))
    got = clique_counts(G, k_max)
    top = max(by_size, default=0)
    K = k_max if k_max is not None else max(top, 2)
    assert got == {k: by_size.get(k, 0) if k > 2 else (G.n, G.m)[k - 1] for k in range(1, K + 1)}


@pytest.mark.parametrize("seed", range(300))
def test_pivot_counts_match_the_ordered_oracle(seed):
    from kclique_cases import random_graph

    G = random_graph(seed)
    assert clique_counts(G, 8) == count_k_cliques_range(G, range(1, 9))


def test_pivot_counts_on_cliques_and_formulas():
    assert clique_counts(complete(200), 8) == {k: math.comb(200, k) for k in range(1, 9)}
    assert clique_counts(complete(12)) == {k: math.comb(12, k) for k in range(1, 13)}
    assert clique_counts(moon_moser(12), 5) == {1: 12, 2: 54, 3: 108, 4: 81, 5: 0}
    with pytest.raises(ValueError, match="k_max must be"):
        clique_counts(complete(3), 0)


def test_pivot_counts_on_bundled_graphs_match_the_oracle():
    G = datasets.load("CA-GrQc")
    assert clique_counts(G, 6) == count_k_cliques_range(G, range(1, 7))


@pytest.mark.parametrize("seed", range(40))
def test_the_leaf_table_combines_as_the_cell_by_cell_sum(seed):
    # cpu.pivot.combine_leaf_table (Horner in 1 + x) against combine_leaves (a binomial per cell):
    # random tables, counts up to 2^63, k_max below, at and above the deepest leaf, empty tables
    import numpy as np

    from mce_kit.cpu.pivot import combine_leaf_table, combine_leaves

    rng = np.random.default_rng(seed)
    H, P = int(rng.integers(1, 40)), int(rng.integers(1, 90))
    table = np.zeros((H, P), np.int64)
    cells = rng.random((H, P)) < rng.choice([0.0, 0.05, 0.5, 1.0])
    table[cells] = rng.integers(1, 1 << 63, size=int(cells.sum()), dtype=np.int64) >> int(rng.integers(0, 60))
    table[:1] = 0   # rows the counters never fill
    as_dict = {(h, p): int(c) for (h, p), c in np.ndenumerate(table) if c}
    for k_max in (None, 1, 2, 3, int(rng.integers(3, 140))):
        n, m = int(rng.integers(0, 100)), int(rng.integers(0, 1000))
        assert combine_leaf_table(table, n, m, k_max) == combine_leaves(as_dict, n, m, k_max), k_max


@pytest.mark.parametrize("p, c", [(60, 3), (61, 1), (61, 2), (62, 1), (20, (1 << 41) - 1), (20, 1 << 42)])
def test_the_leaf_table_is_exact_at_the_int64_bound(p, c):
    # around sum(leaves * 2^p) = 2^62, where combine_leaf_table leaves int64 for Python ints
    import numpy as np

    from mce_kit.cpu.pivot import combine_leaf_table, combine_leaves

    table = np.zeros((4, p + 1), np.int64)
    table[2, p] = table[3, p // 2] = c
    as_dict = {(2, p): c, (3, p // 2): c}
    for k_max in (None, 5, p // 2 + 3, p + 2):
        assert combine_leaf_table(table, 7, 9, k_max) == combine_leaves(as_dict, 7, 9, k_max)


def test_a_wide_leaf_table_with_narrow_leaves_combines_as_the_cell_by_cell_sum():
    # columns past 62 that hold nothing (a deep pivot bound, shallow leaves) and an empty table
    import numpy as np

    from mce_kit.cpu.pivot import combine_leaf_table, combine_leaves

    table = np.zeros((6, 100), np.int64)
    table[2, 5], table[3, 40], table[5, 62] = 7, 11, 1
    as_dict = {(2, 5): 7, (3, 40): 11, (5, 62): 1}
    for k_max in (None, 3, 8, 70, 120):
        assert combine_leaf_table(table, 4, 5, k_max) == combine_leaves(as_dict, 4, 5, k_max)
    assert combine_leaf_table(np.zeros((3, 0), np.int64), 4, 5, 6) == {1: 4, 2: 5, 3: 0, 4: 0, 5: 0, 6: 0}
