"""The GPU bounds' steps without a GPU: the ego pass of cuda/bounds.cu on CPU fibers
(tests/emulated.py) against a plain-Python statement of the same procedure and against the
cliques themselves, and ``gpu.bounds.swap_once`` (NumPy) against the host's compiled swap."""

import networkx as nx
import numpy as np
import pytest
from emulated import HAVE_GXX, build, launch_args
from graph_families import erdos_renyi, moon_moser, planted_cliques, powerlaw_cluster

from mce_kit.bound_steps import swap_once as host_swap_once
from mce_kit.bounds import is_clique
from mce_kit.gpu import bounds as gb
from mce_kit.graph import rows_of
from mce_kit.order import peel_arrays

DENSITIES = [(30, 0.3), (60, 0.15), (45, 0.6), (32, 0.8)]
GRAPHS = ([erdos_renyi(n, p, seed=s) for s, (n, p) in enumerate(DENSITIES)]
          + [planted_cliques(80, 0.08, [9, 7, 7], seed=3), powerlaw_cluster(120, 4, 0.6, seed=5),
             moon_moser(12)])


def oriented(G):
    """(optr, oidx, core) as gpu.bounds builds them: later neighbours in the batch-peeling order."""
    order, core = peel_arrays(G.indptr, G.indices)
    rank = np.empty(G.n, np.int64)
    rank[order] = np.arange(G.n)
    src = rows_of(G.indptr)
    later = rank[G.indices] > rank[src]
    optr = np.concatenate([[0], np.cumsum(np.bincount(src[later], minlength=G.n))]).astype(np.int64)
    return optr, G.indices[later].astype(np.int32), core.astype(np.int32), rank


def ego_reference(optr, oidx, core, v, lower, colour):
    """(bound, greedy clique size or 0) of root v: the kernel's procedure in plain Python."""
    S = [int(u) for u in oidx[optr[v]:optr[v + 1]] if core[u] >= lower]
    s, bound = len(S), min(int(core[v]) + 1, len(S) + 1)
    if s < lower:
        return bound, 0
    pos = {u: i for i, u in enumerate(S)}
    adj = [set() for _ in range(s)]
    for k, u in enumerate(S):
        for x in oidx[optr[u]:optr[u + 1]]:
            if int(x) in pos:
                adj[k].add(pos[int(x)])
                adj[pos[int(x)]].add(k)
    A = set(range(s))
    while True:   # the (lower - 1)-core of the ego net
        drop = {k for k in A if len(adj[k] & A) < lower - 1}
        if not drop:
            break
        A -= drop
    if len(A) < lower:
        return lower, 0
    if colour:
        deg = {k: len(adj[k] & A) for k in A}
        cand, stack = set(A), []
        while cand:
            m = min(cand, key=lambda k: (deg[k], k))
            stack.append(m)
            cand.remove(m)
            for p in adj[m] & cand:
                deg[p] -= 1
        colour_of = {}
        for m in reversed(stack):
            used = {colour_of[p] for p in adj[m] if p in colour_of}
            colour_of[m] = min(set(range(len(used) + 1)) - used)
        colours = max(colour_of.values()) + 1
        bound = max(colours + 1, lower)
        if colours + 1 <= lower:
            return bound, 0
    cand, size = set(A), 0
    while cand:
        m = max(sorted(cand), key=lambda k: len(adj[k] & cand))   # the first of the most connected
        cand &= adj[m]
        size += 1
    return bound, size + 1 if size + 1 > lower else 0


def largest_by_root(G, rank):
    """The largest clique with each vertex as its earliest (in ``rank``)."""
    best = np.ones(G.n, np.int64)
    H = nx.Graph(list(zip(rows_of(G.indptr).tolist(), G.indices.tolist(), strict=True)))
    for Q in nx.find_cliques(H):
        Q = sorted(Q, key=lambda u: rank[u])
        for i, u in enumerate(Q):
            best[u] = max(best[u], len(Q) - i)
    return best


pytestmark = pytest.mark.skipif(not HAVE_GXX, reason="needs g++ (C++20)")


@pytest.fixture(scope="module")
def exe(tmp_path_factory):
    return build("bounds.cu", "ego_bounds", tmp_path_factory.mktemp("ego") / "ego", main="args_main.cpp")


def run_ego(exe, optr, oidx, core, roots, lower, colour, warps=3, record=False):
    s_max = max(1, int((optr[roots + 1] - optr[roots]).max()))
    words = gb.scratch_words(s_max)
    args = launch_args(exe, warps, 32, optr, oidx, core, roots.astype(np.int32), np.int32(len(roots)),
                       np.int32(lower), np.int32(colour), np.int32(s_max), np.zeros(warps * words, np.uint32),
                       np.int64(words), np.zeros(len(roots), np.int32), np.zeros(len(roots), np.int32),
                       np.zeros(s_max + 1, np.int32) if record else None, np.zeros(1, np.int32))
    return args[10], args[11], args[12]


@pytest.mark.parametrize("G", GRAPHS, ids=lambda G: f"n{G.n}m{G.m}")
def test_emulated_ego_pass_equals_the_reference_and_bounds_every_root(exe, G):
    optr, oidx, core, rank = oriented(G)
    truth = largest_by_root(G, rank)
    omega = int(truth.max())
    for lower in sorted({1, max(1, omega - 2), omega}):
        roots = np.flatnonzero(core + 1 > lower)
        if not len(roots):
            continue
        for colour in (0, 1):
            bound, size = run_ego(exe, optr, oidx, core, roots, lower, colour)[:2]
            want = [ego_reference(optr, oidx, core, v, lower, colour) for v in roots]
            assert bound.tolist() == [b for b, _ in want] and size.tolist() == [g for _, g in want]
            # a root's bound holds for its cliques above lower (the pass's promise)
            assert np.all(np.maximum(bound, lower) >= truth[roots])
            assert np.all(size <= truth[roots])


def test_emulated_record_is_the_roots_clique(exe):
    G = planted_cliques(80, 0.08, [9, 7, 7], seed=3)
    optr, oidx, core, _ = oriented(G)
    roots = np.flatnonzero(core + 1 > 2)
    _, size, _ = run_ego(exe, optr, oidx, core, roots, 2, 0)
    top = int(np.argmax(size))
    _, again, record = run_ego(exe, optr, oidx, core, roots[top: top + 1], 2, 0, warps=1, record=True)
    clique = record[:int(again[0])]
    assert again[0] == size[top] == 9 and clique[0] == roots[top] and is_clique(G, clique)


@pytest.mark.parametrize("G", GRAPHS, ids=lambda G: f"n{G.n}m{G.m}")
def test_array_swap_equals_the_host_swap(G):
    src = rows_of(G.indptr)
    rng = np.random.default_rng(G.n)
    H = nx.Graph(list(zip(src.tolist(), G.indices.tolist(), strict=True)))
    cliques = [sorted(Q) for Q in nx.find_cliques(H)]
    for Q in [cliques[i] for i in rng.choice(len(cliques), min(25, len(cliques)), replace=False)]:
        C = np.array(Q[: max(1, len(Q) - int(rng.integers(0, 3)))], np.int32)   # some are not maximal
        want = host_swap_once(G.indptr, G.indices, C)
        got = gb.swap_once(G.indptr, G.indices, C)
        assert sorted(got.tolist()) == sorted(want.tolist())
