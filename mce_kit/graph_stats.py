"""Summary statistics of a graph, as reported in the papers' dataset tables."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .graph import BipartiteGraph, Graph
from .io import as_general_graph
from .order import degeneracy


def stats(G: Graph | BipartiteGraph) -> dict:
    """Size, maximum degree, degeneracy and density of ``G``.

    Graph: ``name, n, m, max_degree`` (delta), ``degeneracy`` (d), ``density``.
    BipartiteGraph (GMBE+ Table I): ``name, n_u, n_v, m``, ``max_degree_u/_v``
    (delta(U), delta(V)), ``max_2hop_u/_v`` (delta_2: the most same-side
    vertices sharing a neighbour with one vertex), ``degeneracy`` of the
    graph with both sides as vertices, and ``density = m / (n_u n_v)``.
    """
    if isinstance(G, BipartiteGraph):
        A = sp.csr_array((np.ones(G.m, np.float32), G.u_indices, G.u_indptr), shape=(G.n_u, G.n_v))
        At = sp.csr_array((np.ones(G.m, np.float32), G.v_indices, G.v_indptr), shape=(G.n_v, G.n_u))
        return {
            "name": G.name,
            "n_u": G.n_u,
            "n_v": G.n_v,
            "m": G.m,
            "max_degree_u": _max(np.diff(G.u_indptr)),
            "max_degree_v": _max(np.diff(G.v_indptr)),
            "max_2hop_u": _max(two_hop_sizes(A, At)),
            "max_2hop_v": _max(two_hop_sizes(At, A)),
            "degeneracy": degeneracy(as_general_graph(G)),
            "density": G.m / (G.n_u * G.n_v) if G.m else 0.0,
        }
    return {
        "name": G.name,
        "n": G.n,
        "m": G.m,
        "max_degree": _max(G.degrees()),
        "degeneracy": degeneracy(G),
        "density": 2 * G.m / (G.n * (G.n - 1)) if G.m else 0.0,
    }


def two_hop_sizes(A, At, block_entries: int = 4_000_000) -> np.ndarray:
    """|N_2(x)| for each row x of the biadjacency ``A``: rows sharing a column with x, x excluded.

    ``At`` is the transpose of ``A`` in CSR form. Rows are done in blocks so
    that a block's product holds about ``block_entries`` entries at most.
    """
    n = A.shape[0]
    step = max(1, block_entries // max(n, 1))
    out = np.zeros(n, np.int64)
    for lo in range(0, n, step):
        C = A[lo : lo + step] @ At
        out[lo : lo + step] = np.diff(C.indptr) - (np.diff(A.indptr[lo : lo + step + 1]) > 0)
    return out


def _max(a) -> int:
    return int(a.max()) if len(a) else 0


def expected_maximal_cliques(n: int, density: float) -> float:
    """Expected number of maximal cliques of G(n, p) with p = ``density``: the sum over k of
    C(n, k) p^(k(k-1)/2) (1 - p^k)^(n-k). A size estimate for a graph before counting it
    (hamming8-4: 7.5e7 estimated, 45,215,840 counted)."""
    from math import exp, lgamma, log, log1p

    if not 0 <= density <= 1:
        raise ValueError(f"density must lie in [0, 1], got {density}")
    if density == 1:
        return 1.0
    if density == 0:
        return float(n)
    lp = log(density)
    total = 0.0
    for k in range(1, n + 1):
        rest = (n - k) * log1p(-exp(k * lp)) if k * lp > -700 else 0.0
        log_term = lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1) + k * (k - 1) / 2 * lp + rest
        total += exp(log_term) if log_term < 700 else float("inf")
    return total
