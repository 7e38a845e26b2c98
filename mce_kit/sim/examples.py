"""The papers' own small example graphs, rebuilt from what their text states.

``figure1_graph``: mce-gpu's Figure 1(a). The text gives its two maximal
cliques, ABCD and AEF, and says A has the largest P (five vertices, the
maximum degree); the edges of those two cliques are exactly that graph.

``g0_bipartite``: GMBE+'s G0 (Fig. 1), U = u1..u5, V = v1..v4. The text's
examples give N(v1) = {u1,u2}, N(v2) = L_r = {u1,u2,u3,u4},
N(v3) = {u1,u2,u4}, N(v4) = {u2,u4,u5}; this graph has the 6 maximal
bicliques the caption announces.

Made here to show one mechanism each on a graph small enough to trace by hand:
``g0_plus_v5`` (GMBE+'s pruning fires in the one-task-per-vertex search),
``fringe_graph`` (Geil's bound cuts most of the levels), ``cocktail_party``
(deep, evenly branching trees: mce-gpu's worker list donates) and
``complete_graph`` (one KCMiner edge task with more pairs than a warp has lanes).
"""

from __future__ import annotations

import itertools

import numpy as np

from ..graph import BipartiteGraph, Graph


def figure1_graph() -> Graph:
    """mce-gpu Figure 1(a): maximal cliques ABCD and AEF."""
    names = list("ABCDEF")
    edges = ["AB", "AC", "AD", "BC", "BD", "CD", "AE", "AF", "EF"]
    u = [names.index(e[0]) for e in edges]
    v = [names.index(e[1]) for e in edges]
    return Graph.from_edges(6, u, v, labels=np.array(names), name="mce-gpu Figure 1")


def g0_bipartite() -> BipartiteGraph:
    """GMBE+ Fig. 1 graph G0 with its 6 maximal bicliques."""
    nbrs = {1: [1, 2], 2: [1, 2, 3, 4], 3: [1, 2, 4], 4: [2, 4, 5]}  # v -> its u's
    u = [a - 1 for b in nbrs for a in nbrs[b]]
    v = [b - 1 for b in nbrs for a in nbrs[b]]
    return BipartiteGraph.from_edges(
        5, 4, u, v,
        u_labels=np.array([f"u{i}" for i in range(1, 6)]),
        v_labels=np.array([f"v{i}" for i in range(1, 5)]),
        name="GMBE+ G0",
    )


def g0_plus_v5() -> BipartiteGraph:
    """G0 with a fifth V vertex v5 adjacent to u2, u3, u4 (7 maximal bicliques).

    Under the seed v1 (and again under v3) the child made by v4 leaves |L ∩ N(v5)|
    unchanged, so GMBE+ drops v5 there, and under v4 the child made by v5 drops v2:
    each dropped branch would only have found a non-maximal biclique.
    """
    nbrs = {1: [1, 2], 2: [1, 2, 3, 4], 3: [1, 2, 4], 4: [2, 4, 5], 5: [2, 3, 4]}
    u = [a - 1 for b in nbrs for a in nbrs[b]]
    v = [b - 1 for b in nbrs for a in nbrs[b]]
    return BipartiteGraph.from_edges(
        5, 5, u, v,
        u_labels=np.array([f"u{i}" for i in range(1, 6)]),
        v_labels=np.array([f"v{i}" for i in range(1, 6)]),
        name="G0 + v5",
    )


def _lettered(edges: list[str], name: str) -> Graph:
    """A graph from two-letter edges ("AB"), vertices numbered in alphabetical order."""
    names = sorted({c for e in edges for c in e})
    u = [names.index(e[0]) for e in edges]
    v = [names.index(e[1]) for e in edges]
    return Graph.from_edges(len(names), u, v, labels=np.array(names), name=name)


def fringe_graph() -> Graph:
    """A 4-clique ABCD with a fringe of triangles (ABE, CDF, DFG) and a path E-H-I: omega = 4."""
    return _lettered("AB AC AD BC BD CD AE BE CF DF DG FG EH HI".split(), "4-clique with a fringe")


def cocktail_party(pairs: int = 5) -> Graph:
    """K(2, ..., 2): vertex pairs A/B, C/D, ...; every vertex adjacent to all but its partner.

    Its 2^pairs maximal cliques take one vertex of each pair, so the search tree
    branches in two at every level.
    """
    n = 2 * pairs
    e = [(a, b) for a, b in itertools.combinations(range(n), 2) if a // 2 != b // 2]
    lab = np.array([chr(65 + i) for i in range(n)]) if n <= 26 else None
    return Graph.from_edges(n, [a for a, _ in e], [b for _, b in e], labels=lab,
                            name=f"cocktail party K({', '.join(['2'] * pairs)})")


def complete_graph(n: int) -> Graph:
    """K_n with letters as labels when n <= 26."""
    e = list(itertools.combinations(range(n), 2))
    lab = np.array([chr(65 + i) for i in range(n)]) if n <= 26 else None
    return Graph.from_edges(n, [a for a, _ in e], [b for _, b in e], labels=lab, name=f"K_{n}")


def random_graph(n: int = 12, p: float = 0.4, seed: int = 0) -> Graph:
    """G(n, p) with letters as labels when n <= 26."""
    rng = np.random.default_rng(seed)
    iu, ju = np.triu_indices(n, 1)
    keep = rng.random(len(iu)) < p
    lab = np.array([chr(65 + i) for i in range(n)]) if n <= 26 else None
    return Graph.from_edges(n, iu[keep], ju[keep], labels=lab, name=f"G({n},{p}) seed {seed}")


def random_bipartite(n_u: int = 8, n_v: int = 6, p: float = 0.4, seed: int = 0) -> BipartiteGraph:
    rng = np.random.default_rng(seed)
    a, b = np.nonzero(rng.random((n_u, n_v)) < p)
    return BipartiteGraph.from_edges(n_u, n_v, a, b, name=f"B({n_u},{n_v},{p}) seed {seed}")


def sample_bipartite(B: BipartiteGraph, n_v: int, seed: int = 0) -> BipartiteGraph:
    """The sub-graph induced by ``n_v`` random vertices of V and all their neighbours in U."""
    rng = np.random.default_rng(seed)
    keep = np.sort(rng.choice(B.n_v, size=min(n_v, B.n_v), replace=False))
    vs = np.repeat(np.arange(len(keep)), [len(B.v_neighbors(v)) for v in keep])
    us = np.concatenate([B.v_neighbors(v) for v in keep]) if len(keep) else np.zeros(0, np.int64)
    used, u_new = np.unique(us, return_inverse=True)
    return BipartiteGraph.from_edges(len(used), len(keep), u_new, vs, name=f"{B.name} sample ({n_v} of V)")


def planted_core(n: int = 60, p: float = 0.05, core: int = 16, q: float = 0.8, seed: int = 0) -> Graph:
    """A sparse G(n, p) whose first ``core`` vertices also form a dense G(core, q): a few heavy seeds."""
    rng = np.random.default_rng(seed)
    iu, ju = np.triu_indices(n, 1)
    keep = rng.random(len(iu)) < np.where(ju < core, q, p)
    lab = np.array([chr(65 + i) for i in range(n)]) if n <= 26 else None
    return Graph.from_edges(n, iu[keep], ju[keep], labels=lab, name=f"planted core ({core} of {n})")
