"""Random and structured test graphs, shared by the test modules.

Every generator returns a ``Graph`` or ``BipartiteGraph`` (vertices 0..n-1),
deterministic for a given seed. ``graphs()`` and ``bipartite_graphs()`` are
hypothesis strategies drawing from all the families.
"""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
from hypothesis import strategies as st

from mce_kit.graph import BipartiteGraph, Graph


def from_networkx(H: nx.Graph, name: str = "") -> Graph:
    """H with its nodes renumbered 0..n-1 in iteration order."""
    H = nx.convert_node_labels_to_integers(H)
    e = np.array(list(H.edges()), dtype=np.int64).reshape(-1, 2)
    return Graph.from_edges(H.number_of_nodes(), e[:, 0], e[:, 1], name=name)


def _from_pairs(n: int, pairs, name: str) -> Graph:
    e = np.array(list(pairs), dtype=np.int64).reshape(-1, 2)
    return Graph.from_edges(n, e[:, 0], e[:, 1], name=name)


# ---- general graphs ----


def erdos_renyi(n: int, p: float, seed: int = 0) -> Graph:
    return from_networkx(nx.gnp_random_graph(n, p, seed=seed), f"G({n},{p})")


def powerlaw_cluster(n: int, m: int = 2, p: float = 0.5, seed: int = 0) -> Graph:
    """Holme–Kim: preferential attachment with triangle closing (needs 1 <= m < n)."""
    return from_networkx(nx.powerlaw_cluster_graph(n, m, p, seed=seed), f"powerlaw({n},{m},{p})")


def planted_cliques(n: int, p: float, sizes, seed: int = 0) -> Graph:
    """G(n, p) plus a clique on a random vertex subset of each given size."""
    rng = np.random.default_rng(seed)
    H = nx.gnp_random_graph(n, p, seed=seed)
    for s in sizes:
        H.add_edges_from(itertools.combinations(rng.choice(n, size=min(s, n), replace=False).tolist(), 2))
    return from_networkx(H, f"planted({n},{p},{list(sizes)})")


def moon_moser_parts(n: int) -> list[int]:
    """Part sizes of the n-vertex complete multipartite graph with the most maximal cliques."""
    if n <= 1:
        return [n] if n else []
    threes, rest = divmod(n, 3)
    if rest == 1:
        return [3] * (threes - 1) + [2, 2]
    return [3] * threes + ([2] if rest == 2 else [])


def moon_moser(n: int) -> Graph:
    """Complete multipartite graph with parts of size 3 (and 2s): 3^(n/3) maximal cliques for 3 | n."""
    part = np.repeat(np.arange(len(moon_moser_parts(n))), moon_moser_parts(n))
    pairs = [(a, b) for a, b in itertools.combinations(range(n), 2) if part[a] != part[b]]
    return _from_pairs(n, pairs, f"moon-moser({n})")


def moon_moser_count(n: int) -> int:
    """Moon and Moser (1965): the most maximal cliques an n-vertex graph can have."""
    return math.prod(moon_moser_parts(n)) if n else 0


def complete(n: int) -> Graph:
    return _from_pairs(n, itertools.combinations(range(n), 2), f"K{n}")


def empty(n: int) -> Graph:
    return _from_pairs(n, [], f"empty({n})")


def star(leaves: int) -> Graph:
    """Vertex 0 joined to 1..leaves."""
    return _from_pairs(leaves + 1, [(0, i) for i in range(1, leaves + 1)], f"star({leaves})")


def disjoint_union(*Gs: Graph) -> Graph:
    offsets = np.cumsum([0] + [G.n for G in Gs])
    e = np.concatenate([G.edges().astype(np.int64) + off for G, off in zip(Gs, offsets, strict=False)])
    return Graph.from_edges(int(offsets[-1]), e[:, 0], e[:, 1], name=" + ".join(G.name for G in Gs))


# ---- networkx families for the GPU property tests ----


def moon_moser_nx(k):
    """Complete multipartite graph with k parts of 3 (networkx): 3^k maximal cliques."""
    return nx.complete_multipartite_graph(*[3] * k)


def _planted(rng, n, p, k):
    H = nx.gnp_random_graph(n, p, seed=int(rng.integers(1 << 30)))
    nodes = rng.choice(n, size=min(k, n), replace=False)
    H.add_edges_from(itertools.combinations(nodes.tolist(), 2))
    return H


def random_nx_graphs(count=200, seed=7):
    """networkx graphs cycling through eight families (ER at four densities, power-law, planted
    cliques, Moon-Moser, complete, empty, star, disjoint unions); deterministic for ``seed``."""
    rng = np.random.default_rng(seed)
    makers = [
        lambda: nx.gnp_random_graph(int(rng.integers(5, 60)), float(rng.choice([0.05, 0.2, 0.5, 0.8])),
                                    seed=int(rng.integers(1 << 30))),
        lambda: nx.powerlaw_cluster_graph(int(rng.integers(10, 120)), int(rng.integers(1, 6)), 0.6,
                                          seed=int(rng.integers(1 << 30))),
        lambda: _planted(rng, int(rng.integers(20, 80)), 0.1, int(rng.integers(5, 40))),
        lambda: moon_moser_nx(int(rng.integers(1, 6))),
        lambda: nx.complete_graph(int(rng.integers(1, 70))),
        lambda: nx.empty_graph(int(rng.integers(1, 5))),
        lambda: nx.star_graph(int(rng.integers(1, 40))),
        lambda: nx.disjoint_union(nx.gnp_random_graph(30, 0.3, seed=int(rng.integers(1 << 30))),
                                  nx.complete_graph(int(rng.integers(2, 40)))),
    ]
    return [makers[i % len(makers)]() for i in range(count)]


def boundary_nx_graphs() -> dict[str, nx.Graph]:
    """Graphs at the kernels' edges: cliques at a 32-bit word's size, a hub of 300 leaves, a book of
    200 pages, a wheel, a perfect matching, a lone vertex and an edge."""
    return {"K32": nx.complete_graph(32), "K33": nx.complete_graph(33), "K34": nx.complete_graph(34),
            "2K32": nx.disjoint_union(nx.complete_graph(32), nx.complete_graph(32)),
            "star300": nx.star_graph(300), "book200": nx.complete_multipartite_graph(1, 1, 200),
            "wheel120": nx.wheel_graph(120), "matching50": nx.from_edgelist((i, i + 50) for i in range(50)),
            "K1": nx.empty_graph(1), "K2": nx.path_graph(2)}


# ---- bipartite graphs ----


def random_bipartite(n_u: int, n_v: int, p: float, seed: int = 0) -> BipartiteGraph:
    rng = np.random.default_rng(seed)
    u, v = np.nonzero(rng.random((n_u, n_v)) < p)
    return BipartiteGraph.from_edges(n_u, n_v, u, v, name=f"B({n_u},{n_v},{p})")


def complete_bipartite(a: int, b: int) -> BipartiteGraph:
    u, v = np.nonzero(np.ones((a, b), bool))
    return BipartiteGraph.from_edges(a, b, u, v, name=f"K{a},{b}")


def crown(n: int) -> BipartiteGraph:
    """K_{n,n} minus a perfect matching: 2^n - 2 maximal bicliques."""
    u, v = np.nonzero(~np.eye(n, dtype=bool))
    return BipartiteGraph.from_edges(n, n, u, v, name=f"crown({n})")


# ---- hypothesis strategies ----

seeds = st.integers(0, 2**32 - 1)
densities = st.sampled_from([0.05, 0.2, 0.5, 0.8, 0.95])


@st.composite
def arbitrary_graphs(draw, max_n: int = 12) -> Graph:
    """Any graph on up to max_n vertices, edges drawn (and shrunk) by hypothesis."""
    n = draw(st.integers(0, max_n))
    pairs = list(itertools.combinations(range(n), 2))
    keep = draw(st.lists(st.booleans(), min_size=len(pairs), max_size=len(pairs)))
    return _from_pairs(n, [e for e, k in zip(pairs, keep, strict=True) if k], f"arbitrary({n})")


def graphs(max_n: int = 14) -> st.SearchStrategy[Graph]:
    """A graph from any family, with up to about max_n vertices."""
    n = st.integers(1, max_n)
    small = st.integers(1, max(1, max_n // 2))
    return st.one_of(
        arbitrary_graphs(max_n),
        st.builds(erdos_renyi, n, densities, seeds),
        st.builds(powerlaw_cluster, st.integers(3, max(3, max_n)), st.integers(1, 2), densities, seeds),
        st.builds(planted_cliques, n, densities, st.lists(st.integers(2, max_n), max_size=3), seeds),
        st.builds(moon_moser, st.integers(0, max_n)),
        st.builds(complete, st.integers(0, max_n)),
        st.builds(empty, st.integers(0, max_n)),
        st.builds(star, st.integers(0, max_n - 1)),
        st.builds(
            disjoint_union, st.builds(erdos_renyi, small, densities, seeds), st.builds(complete, small)
        ),
    )


def bipartite_graphs(max_side: int = 8) -> st.SearchStrategy[BipartiteGraph]:
    """A bipartite graph from any family, each side up to max_side vertices."""
    side = st.integers(1, max_side)
    return st.one_of(
        st.builds(random_bipartite, side, side, densities, seeds),
        st.builds(complete_bipartite, side, side),
        st.builds(crown, side),
    )


# ---- brute force, for tiny graphs ----


def brute_force_cliques(G: Graph) -> list[frozenset[int]]:
    """Every non-empty clique of G, by trying all vertex subsets (n <= ~12)."""
    N = [set(G.neighbors(v).tolist()) for v in range(G.n)]
    return [
        frozenset(S)
        for k in range(1, G.n + 1)
        for S in itertools.combinations(range(G.n), k)
        if all(b in N[a] for a, b in itertools.combinations(S, 2))
    ]


def brute_force_maximal_cliques(G: Graph) -> set[frozenset[int]]:
    cliques = brute_force_cliques(G)
    return {c for c in cliques if not any(c < d for d in cliques)}


def brute_force_bicliques(B: BipartiteGraph) -> set[tuple[frozenset[int], frozenset[int]]]:
    """Maximal bicliques (L, R), both sides non-empty, by trying every R ⊆ V."""
    NV = [set(B.v_neighbors(v).tolist()) for v in range(B.n_v)]
    NU = [set(B.u_neighbors(u).tolist()) for u in range(B.n_u)]
    out = set()
    for k in range(1, B.n_v + 1):
        for R in itertools.combinations(range(B.n_v), k):
            L = set.intersection(*(NV[v] for v in R))
            # maximal iff R is everything adjacent to all of L
            if L and set.intersection(*(NU[u] for u in L)) == set(R):
                out.add((frozenset(L), frozenset(R)))
    return out
