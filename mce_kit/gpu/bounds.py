"""``mce_kit.bounds`` on the GPU: the same ``CliqueBounds``, without Numba in the process.

    b = clique_bounds(G)      # kept with G, like the host's (``mce_kit.prepared``)

The steps: the batch peeling of ``gpu.prep.peel`` (order, core numbers); the clique the peeling
ends in (the longest suffix of the order whose later degrees sum to a clique's edges); the ego
pass of ``cuda/bounds.cu`` over every root at once, first growing greedy cliques from the tail's
clique, then (1,2)-swaps (``swap_once``, NumPy on the host), then the roots' colour bounds with greedy
cliques where those pass the lower bound. Two of the host's steps are left out: its first greedy
(the ego pass's greedy covers every root) and its colouring of the whole graph, so
``upper_colour`` is reported as ``upper_core``; the roots' colourings bound omega instead
(``upper_ego``), always over every root (there is no work cap). The host's pass raises its lower
bound root by root, this one per launch, so the two may find other cliques and bounds: both are
valid, and the tests check each against the oracles.

A root's ego net takes a warp's scratch of bitset rows, (later degree)^2 bits; the launch takes as
many warps as ``SCRATCH_BYTES`` holds. Should one warp's need pass it, the host's bounds are taken.
"""

from __future__ import annotations

import numpy as np

from ..bounds import SWAP_ROUNDS, CliqueBounds, empty_bounds, swaps
from ..graph import Graph, is_permutation, neighbours_of, rows_of

SCRATCH_BYTES = 1 << 30   # device bytes of the ego pass's scratch at most
WARPS_PER_SM = 8          # ego-pass warps per SM (when the scratch allows)
THREADS = 256


def scratch_words(s_max: int) -> int:
    """u32 words of one warp's scratch (``ego_scratch`` in cuda/bounds.cu) for ego nets of up to
    ``s_max`` vertices: four int arrays of s_max, three bitsets (one a word longer) and the rows."""
    w = (s_max + 31) // 32
    return 4 * s_max + 3 * w + 1 + s_max * w


def clique_bounds(G: Graph) -> CliqueBounds:
    """Lower and upper bounds on omega (``mce_kit.bounds``), taken on the GPU; kept with G."""
    from ..prepared import kept

    return kept(G, ("clique_bounds", "gpu"), lambda: _clique_bounds(G))


def _clique_bounds(G: Graph) -> CliqueBounds:
    import cupy

    from ..accel import to_host
    from .prep import peel

    if G.n == 0:
        return empty_bounds()
    n = G.n
    ptr = cupy.asarray(G.indptr, dtype=cupy.int64)
    idx = cupy.asarray(G.indices, dtype=cupy.int32)
    order, core = peel(ptr, idx)
    rank = cupy.empty(n, dtype=cupy.int32)
    rank[order] = cupy.arange(n, dtype=cupy.int32)
    later = cupy.greater(rank[idx], rank[rows_of(ptr, cupy)])
    before = cupy.concatenate([cupy.zeros(1, dtype=cupy.int64), cupy.cumsum(later)])
    optr = before[ptr]                    # later entries before each row
    oidx = idx[later]                     # each row ascending, as G's
    if max_scratch_words(optr) * 4 > SCRATCH_BYTES:
        from ..bounds import clique_bounds as on_host

        return on_host(G)
    upper_core = int(core.max()) + 1
    # the tail: order[i:] is a clique when its vertices' later degrees sum to (n - i)(n - i - 1) / 2
    # (CuPy code here writes operators with a scalar as functions: see graph.py)
    left = cupy.arange(n, 0, -1, dtype=cupy.int64)
    edges_left = cupy.cumsum(cupy.diff(optr)[order][::-1])[::-1]
    clique_left = cupy.equal(cupy.multiply(edges_left, 2), cupy.multiply(left, cupy.subtract(left, 1)))
    first = int(cupy.argmax(clique_left))   # true at i = n - 1 at the latest
    C = order[first:]

    def ego(C, colour):
        return ego_pass(optr, oidx, core, len(C), colour, C)

    def swap(C):
        return swap_once(G.indptr, G.indices, C)

    C = ego(C, False)[1].get()
    C = swaps(swap, C, upper_core, SWAP_ROUNDS)
    upper = upper_ego = upper_core
    root_bound = None
    if len(C) < upper:
        root_bound, C = ego(C, True)
        upper_ego = max(len(C), int(root_bound.max()))
        upper = min(upper, upper_ego)
    C = np.sort(cupy.asnumpy(C)).astype(np.int32)   # (CuPy's sort would load Thrust: 0.1-0.2 s of a process)
    order, core = to_host(order, core)
    if not is_permutation(order, n):   # the host's search indexes arrays by it, unchecked
        raise RuntimeError(f"gpu.bounds: the GPU's degeneracy order of {G.name or 'the graph'} is not a "
                           "permutation of its vertices (internal error)")
    root_bound = None if root_bound is None else root_bound.get()
    return CliqueBounds(len(C), C, upper, upper_core, upper_core, order, core, upper_ego, root_bound)


def max_scratch_words(optr) -> int:
    """One warp's scratch words for the largest ego net (the most later neighbours)."""
    import cupy

    return scratch_words(max(1, int(cupy.diff(optr).max())))


def ego_pass(optr, oidx, core, lower: int, colour: bool, best):
    """(bound per vertex as a root, the best clique: ``best`` or a larger greedy one) of one launch of
    ``ego_bounds`` over the roots whose core + 1 passes ``lower``; the others keep core + 1."""
    import cupy

    from .launch import sm_count
    from .loader import load_module

    bound = cupy.add(core, 1)
    roots = cupy.flatnonzero(cupy.greater(bound, lower)).astype(cupy.int32)
    if len(roots) == 0:
        return bound, best
    s_max = max(1, int(cupy.subtract(optr[cupy.add(roots, 1)], optr[roots]).max()))
    words = scratch_words(s_max)
    warps = max(1, min(len(roots), sm_count() * WARPS_PER_SM, SCRATCH_BYTES // (4 * words)))
    threads = min(THREADS, 32 * warps)
    blocks = -(-32 * warps // threads)
    scratch = cupy.zeros(blocks * threads // 32 * words, dtype=cupy.uint32)
    kernel = load_module("bounds.cu").get_function("ego_bounds")

    def launch(roots, record=None):
        out_bound = cupy.empty(len(roots), dtype=cupy.int32)
        size = cupy.empty(len(roots), dtype=cupy.int32)
        grid = (blocks, threads) if record is None else (1, 32)
        kernel((grid[0],), (grid[1],), (optr, oidx, core, roots, np.int32(len(roots)), np.int32(lower),
                                        np.int32(colour), np.int32(s_max), scratch, np.int64(words),
                                        out_bound, size, record, cupy.zeros(1, dtype=cupy.int32)))
        return out_bound, size

    root_bounds, size = launch(roots)
    bound[roots] = root_bounds
    top = int(cupy.argmax(size))
    grown = int(size[top])
    if grown > len(best):   # the best root once more, writing its clique
        record = cupy.empty(s_max + 1, dtype=cupy.int32)
        launch(roots[top: top + 1], record)
        best = record[:grown]
    return bound, best


def swap_once(indptr, indices, C):
    """C grown by one through an addition or a (1,2)-swap, else C itself: ``bound_steps.swap_once``
    (the same choice: the least vertex seeing all of C, else the first edge (u, w), u < w, in CSR
    order whose ends both see all of C but the same member x, giving C - x + u + w) in NumPy over
    the rows of C and of the vertices that miss one member, where Numba's walks all of them."""
    n, k = len(indptr) - 1, len(C)
    C = np.asarray(C, dtype=np.int64)
    nb = neighbours_of(indptr, indices, C).astype(np.int64)
    seen = np.bincount(nb, minlength=n)
    # the member a vertex misses, where it misses one: the members' id sum less its neighbours' (exact
    # in float64: below 2^53)
    owner = np.repeat(C, indptr[C + 1] - indptr[C])
    missing = C.sum() - np.bincount(nb, weights=owner.astype(np.float64), minlength=n).astype(np.int64)
    outside = np.ones(n, dtype=bool)
    outside[C] = False
    add = np.flatnonzero(outside & (seen == k))
    if len(add):
        return np.append(C, add[0]).astype(np.int32)
    near = outside & (seen == k - 1)
    u = np.flatnonzero(near)
    src = np.repeat(u, indptr[u + 1] - indptr[u])
    dst = neighbours_of(indptr, indices, u).astype(np.int64)
    first = np.flatnonzero(near[dst] & (dst > src) & (missing[src] == missing[dst]))[:1]
    if not len(first):
        return C.astype(np.int32)
    return np.concatenate([C[C != missing[src[first]]], src[first], dst[first]]).astype(np.int32)
