"""The CPU path (mce_kit.engine: the compiled engine, igraph for maximum cliques) against the
Python oracles, on many random graphs. tests/test_cpu_engine.py covers k-cliques and bicliques."""

import itertools

import pytest
from graph_families import (
    complete,
    disjoint_union,
    empty,
    erdos_renyi,
    graphs,
    moon_moser,
    planted_cliques,
    powerlaw_cluster,
    star,
)
from hypothesis import given, settings

from mce_kit import cpu, engine


def family():
    """Forty-odd graphs: ER at four densities, power-law, planted cliques, complete, empty, star,
    Moon-Moser, disjoint unions (isolated vertices included)."""
    grid = itertools.product((12, 40), (0.05, 0.2, 0.5, 0.8), (1, 2))
    out = [erdos_renyi(n, p, seed=s) for n, p, s in grid]
    out += [powerlaw_cluster(n, 3, 0.6, seed=s) for n in (30, 120) for s in (1, 2)]
    out += [planted_cliques(60, 0.08, (7, 5, 5), seed=s) for s in (1, 2, 3)]
    out += [complete(1), complete(2), complete(9), empty(0), empty(1), empty(5), star(6), moon_moser(9)]
    out += [disjoint_union(complete(4), empty(3), star(3), erdos_renyi(20, 0.4, seed=9))]
    return out


def _same(a, b):
    return sorted(map(sorted, a)) == sorted(map(sorted, b))


@pytest.mark.parametrize("G", family(), ids=lambda G: f"n{G.n}m{G.m}")
def test_engine_matches_the_oracle(G):
    assert _same(engine.maximal_cliques(G), cpu.maximal_cliques(G))
    assert engine.count_maximal_cliques(G) == cpu.count_maximal_cliques(G)
    assert engine.clique_size_histogram(G) == cpu.clique_size_histogram(G)
    assert engine.max_cliques(G) == cpu.max_cliques(G)
    assert engine.clique_number(G) == cpu.clique_number(G)
    for lo, hi in [(1, 1), (2, None), (None, 3), (3, 5), (5, 2), (4, 4)]:
        want = list(cpu.maximal_cliques(G, min_size=lo, max_size=hi))
        assert _same(engine.maximal_cliques(G, lo, hi), want), (lo, hi)
        hist = cpu.clique_size_histogram(G, min_size=lo, max_size=hi)
        assert engine.clique_size_histogram(G, lo, hi) == hist


@settings(max_examples=150, deadline=None)
@given(graphs(max_n=14))
def test_engine_matches_the_oracle_on_arbitrary_graphs(G):
    assert _same(engine.maximal_cliques(G), cpu.maximal_cliques(G))
    assert engine.max_cliques(G) == cpu.max_cliques(G)


def test_blocks_hold_at_most_block_size_cliques():
    G = moon_moser(12)  # 81 maximal cliques, all from few roots
    blocks = list(engine.maximal_clique_blocks(G, block_size=10))
    assert all(len(off) - 1 <= 10 and off[0] == 0 and off[-1] == len(v) for off, v in blocks)
    got = [v[off[i]:off[i + 1]].tolist() for off, v in blocks for i in range(len(off) - 1)]
    assert _same(got, cpu.maximal_cliques(G))
    with pytest.raises(ValueError, match="block_size"):
        next(engine.maximal_clique_blocks(G, block_size=0))


def test_without_igraph_the_oracle_answers_max_cliques(monkeypatch):
    monkeypatch.setattr(engine, "available", lambda: False)
    G = planted_cliques(40, 0.1, (6,), seed=4)
    assert engine.count_maximal_cliques(G) == cpu.count_maximal_cliques(G)
    assert engine.max_cliques(G) == cpu.max_cliques(G)
    assert engine.clique_number(G) == 6


@pytest.mark.parametrize("G", family()[::3], ids=lambda G: f"n{G.n}m{G.m}")
def test_cliques_in_label_space_match_the_oracle(G):
    import numpy as np

    from mce_kit.api import find_cliques
    from mce_kit.graph import Graph

    rng = np.random.default_rng(G.n)
    for labels in (np.sort(rng.choice(2 * G.n + 5, G.n, replace=False)), rng.permutation(G.n) + 3):
        L = Graph(G.indptr, G.indices, labels=labels.astype(np.int64))
        for lo, hi in [(None, None), (1, 1), (2, None), (None, 3), (3, 5)]:
            want = [[int(labels[v]) for v in c] for c in cpu.maximal_cliques(G, min_size=lo, max_size=hi)]
            assert _same(find_cliques(L, min_size=lo, max_size=hi, device="cpu"), want)
    far = Graph(G.indptr, G.indices, labels=np.arange(G.n, dtype=np.int64) * 10**6)
    want = [[10**6 * v for v in c] for c in cpu.maximal_cliques(G)]
    assert _same(find_cliques(far, device="cpu"), want)
