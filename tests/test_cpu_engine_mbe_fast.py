"""The biclique engine's shortcuts against the oracle: roots with one neighbour (answered without
a search), the workspace shared by a thread's roots, and the roots on U when U's side builds fewer
bit rows (``roots_in_u``). Sparse families (matchings, paths, stars, caterpillars, very sparse
random graphs) are mostly such roots; graphs with hubs in U take the other side."""

import numpy as np
import pytest
from graph_families import complete_bipartite, crown, random_bipartite
from hypothesis import given, settings
from hypothesis import strategies as st

from mce_kit import cpu, cpu_engine, datasets, references
from mce_kit.graph import BipartiteGraph


def _bipartite(n_u, n_v, pairs, name):
    e = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    return BipartiteGraph.from_edges(n_u, n_v, e[:, 0], e[:, 1], name=name)


def matching(n, spare=0):
    """n disjoint edges, and ``spare`` isolated vertices on each side."""
    return _bipartite(n + spare, n + spare, [(i, i) for i in range(n)], f"matching({n},{spare})")


def _spine(n):
    """The edges of the path u0 v0 u1 v1 ... on n vertices."""
    return [(k, k) for k in range(n // 2)] + [(k + 1, k) for k in range((n - 1) // 2)]


def path(n):
    return _bipartite((n + 1) // 2, n // 2, _spine(n), f"path({n})")


def star(n):
    return complete_bipartite(1, n)


def caterpillar(spine, legs, seed):
    """A path of ``spine`` vertices, each with 0..legs leaves hanging off."""
    rng = np.random.default_rng(seed)
    pairs, n_u, n_v = _spine(spine), (spine + 1) // 2, spine // 2
    for s in range(spine):
        for _ in range(rng.integers(0, legs + 1)):
            if s % 2 == 0:  # a U spine vertex: the leaf is in V
                pairs.append((s // 2, n_v))
                n_v += 1
            else:
                pairs.append((n_u, s // 2))
                n_u += 1
    return _bipartite(n_u, n_v, pairs, f"caterpillar({spine},{legs},{seed})")


def hubbed(n_u, n_v, hubs, p, seed):
    """Sparse random edges plus ``hubs`` vertices of U adjacent to most of V: U's side builds
    fewer rows, so the roots are U's."""
    rng = np.random.default_rng(seed)
    adj = rng.random((n_u, n_v)) < p
    adj[:hubs] |= rng.random((hubs, n_v)) < 0.9
    u, v = np.nonzero(adj)
    return BipartiteGraph.from_edges(n_u, n_v, u, v, name=f"hubbed({n_u},{n_v},{hubs},{p},{seed})")


def union(*parts):
    pairs, n_u, n_v = [], 0, 0
    for B in parts:
        for u in range(B.n_u):
            pairs += [(n_u + u, n_v + int(v)) for v in B.u_neighbors(u)]
        n_u, n_v = n_u + B.n_u, n_v + B.n_v
    return _bipartite(n_u, n_v, pairs, "+".join(B.name for B in parts))


SPARSE = [matching(1), matching(7, spare=3), path(2), path(3), path(8), path(9), star(1), star(12),
          caterpillar(9, 3, seed=1), caterpillar(20, 2, seed=2),
          *(random_bipartite(60, 45, p, seed=s) for p in (0.01, 0.03, 0.06) for s in (1, 2)),
          *(hubbed(50, 30, h, 0.04, seed=h) for h in (1, 3)),
          union(star(5), path(7), complete_bipartite(3, 4), matching(4), crown(4), hubbed(20, 12, 2, 0.1, 5))]


def _pairs(found):
    return sorted((tuple(sorted(L)), tuple(sorted(R))) for L, R in found)


def _blocks(B, block_size):
    out = []
    for loff, lv, roff, rv in cpu_engine.maximal_biclique_blocks(B, block_size=block_size):
        out += [(lv[loff[i]:loff[i + 1]].tolist(), rv[roff[i]:roff[i + 1]].tolist())
                for i in range(len(loff) - 1)]
    return out


def test_the_sparse_families_take_both_sides_and_the_shortcut():
    flipped = [cpu_engine.roots_in_u(B) for B in SPARSE]
    assert any(flipped) and not all(flipped)
    one_neighbour = [(np.diff(cpu_engine.by_degree(B)[2]) == 1).mean() for B in SPARSE]
    assert sum(f > 0 for f in one_neighbour) >= 3 * len(SPARSE) // 4 and max(one_neighbour) == 1


@pytest.mark.parametrize("B", SPARSE, ids=lambda B: B.name)
def test_sparse_families_match_the_oracle(B):
    want = _pairs(cpu.maximal_bicliques(B))
    assert _pairs(cpu_engine.maximal_bicliques(B)) == want
    assert _pairs(_blocks(B, 1)) == want  # one biclique a block: every root's listing refused once
    for threads in (1, 3):
        assert cpu_engine.count_maximal_bicliques(B, threads=threads) == len(want)


def test_listed_sides_are_u_then_v_with_roots_on_u():
    B = hubbed(50, 30, 2, 0.05, seed=9)
    assert cpu_engine.roots_in_u(B)
    found = list(cpu_engine.maximal_bicliques(B))
    assert found and all(set(R) <= set(B.u_neighbors(u).tolist()) for L, R in found for u in L)
    assert all(L == sorted(L) and R == sorted(R) for L, R in found)


def test_a_root_owns_its_one_neighbours_biclique_only_when_earliest():
    # v0 and v1 see only u0 (one neighbour each): ({u0}, {v0, v1, v2}) once; v2 sees u0, u1, u2
    B = _bipartite(3, 3, [(0, 0), (0, 1), (0, 2), (1, 2), (2, 2)], "fan")
    assert not cpu_engine.roots_in_u(B)
    assert _pairs(cpu_engine.maximal_bicliques(B)) == [((0,), (0, 1, 2)), ((0, 1, 2), (2,))]
    assert cpu_engine.count_maximal_bicliques(B) == 2


def test_a_big_root_between_small_ones_reuses_the_workspace():
    # a root with a 130-neighbour row (3 words) after and before roots of 1-2 neighbours
    B = union(star(3), complete_bipartite(130, 2), path(6), crown(5), matching(3))
    want = _pairs(cpu.maximal_bicliques(B))
    assert _pairs(cpu_engine.maximal_bicliques(B)) == want
    assert cpu_engine.count_maximal_bicliques(B, threads=1) == len(want)


@st.composite
def sparse_bipartite(draw):
    n_u, n_v = draw(st.integers(1, 30)), draw(st.integers(1, 30))
    m = draw(st.integers(0, 2 * max(n_u, n_v)))
    us = draw(st.lists(st.integers(0, n_u - 1), min_size=m, max_size=m))
    vs = draw(st.lists(st.integers(0, n_v - 1), min_size=m, max_size=m))
    return BipartiteGraph.from_edges(n_u, n_v, us, vs, name="drawn")


@settings(max_examples=150, deadline=None)
@given(sparse_bipartite())
def test_very_sparse_graphs_match_the_oracle(B):
    want = _pairs(cpu.maximal_bicliques(B))
    assert _pairs(cpu_engine.maximal_bicliques(B)) == want
    assert cpu_engine.count_maximal_bicliques(B, threads=2) == len(want)


@pytest.mark.parametrize("name", ["MovieLens", "marvel", "dbpedia-writer"])
def test_bundled_graphs_on_one_thread_match_the_references(name):
    B = datasets.load(name)
    assert cpu_engine.count_maximal_bicliques(B, threads=1) == references.expected("mbe", name)


def test_movielens_lists_from_u_roots_with_the_sides_in_place():
    B = datasets.load("MovieLens")
    assert cpu_engine.roots_in_u(B) and B.n_u > B.n_v
    blocks = list(cpu_engine.maximal_biclique_blocks(B))
    assert sum(len(loff) - 1 for loff, *_ in blocks) == references.expected("mbe", "MovieLens")
    assert max(lv.max() for _, lv, _, _ in blocks) < B.n_u and max(rv.max() for *_, rv in blocks) < B.n_v
    loff, lv, roff, rv = blocks[0]
    for i in range(min(200, len(loff) - 1)):  # bicliques of B, both sides ascending
        L, R = lv[loff[i]:loff[i + 1]], rv[roff[i]:roff[i + 1]]
        assert (np.diff(L) > 0).all() and (np.diff(R) > 0).all()
        assert all(np.isin(R, B.u_neighbors(u)).all() for u in L)
