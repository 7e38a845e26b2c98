"""The CPU engine: compiled (Numba) kernels for maximal cliques, k-cliques and maximal bicliques.

Same answers as the oracles in ``mce_kit.cpu`` (on vertex ids; ``mce_kit.api`` maps labels),
much faster: bitset sub-problems per root, in parallel over the roots (``threads=None``: every
usable core). Each call walks the roots in chunks from Python (``_run.chunks``), so
``progress=True`` shows a tqdm bar and Ctrl-C stops it between chunks; listing calls stream
blocks and refuse, with the memory they would need, a root whose output does not fit.

The kernels compile on first use (``mce_kit.jit.njit`` keeps them on disk for the next process).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..cpu.pivot import combine_leaf_table
from ..graph import BipartiteGraph, Graph, positions
from ..threads import on_threads, strided
from . import _run
from ._run import chunks, n_threads

BLOCK = 1 << 16  # cliques per listing block (the buffer grows when one root lists more)
ALGORITHMS = ("auto", "listing", "pivot")
# count_k_cliques(algorithm="auto"): listing up to k = 5, pivoting above. Measured (the
# kclique-rule rows of data/results/cpu_engine.csv, degeneracies 43-72, 2 and 16 cores): listing
# wins for k <= 4 everywhere; at k = 5 it wins by 1.1-2.9x on 2 cores, and on 16 each wins on two
# of four graphs (listing up to 2.3x, pivoting up to 1.9x); k = 6 is split; pivoting wins for
# k >= 7. Listing's work grows like d^(k-1), so past degeneracy 128 (beyond what was measured)
# pivoting is taken for every k.
LISTING_MAX_K = 5
LISTING_MAX_D = 128


def _oriented(G: Graph):
    """(indptr int64, indices int32, order, degeneracy): G relabelled by a degeneracy order."""
    from ..prepared import ordered_csr

    order, _, indptr, indices, _ = ordered_csr(G)  # shared with RDMCE and mce-gpu
    indptr = np.ascontiguousarray(indptr, dtype=np.int64)
    indices = np.ascontiguousarray(indices, dtype=np.int32)
    later = np.diff(indptr) - _earlier_counts(indptr, indices)
    return indptr, indices, np.asarray(order, dtype=np.int64), int(later.max(initial=0))


def _earlier_counts(indptr, indices) -> np.ndarray:
    rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    return np.bincount(rows[indices < rows], minlength=len(indptr) - 1)


def oriented(G: Graph):
    return _run.prepared(G, "oriented", _oriented)


# ---- maximal cliques ----


def _bounds(min_size, max_size) -> tuple[int, int]:
    lo = 1 if min_size is None else max(int(min_size), 1)
    hi = 2**62 if max_size is None else int(max_size)
    return lo, hi


def clique_size_histogram(G: Graph, min_size=None, max_size=None, *, progress=None,
                          threads=None) -> dict[int, int]:
    """{size: number of maximal cliques}, ascending, zeros left out (like the oracle)."""
    from . import mce

    lo, hi = _bounds(min_size, max_size)
    if G.n == 0 or hi < lo:
        return {}
    indptr, indices, _, d = oriented(G)
    T = n_threads(threads)
    hists = [np.zeros(d + 3, dtype=np.int64) for _ in range(T)]
    no_v, no_off = np.zeros(0, np.int32), np.zeros(0, np.int64)
    for a, b in chunks(G.n, progress, "maximal cliques", T):
        strided(mce.run_range, T, (indptr, indices), a, b, lo, hi, own=[(h, no_v, no_off) for h in hists])
    return {s: int(c) for s, c in enumerate(sum(hists).tolist()) if c}


def count_maximal_cliques(G: Graph, min_size=None, max_size=None, *, progress=None, threads=None) -> int:
    return sum(clique_size_histogram(G, min_size, max_size, progress=progress, threads=threads).values())


def maximal_clique_blocks(G: Graph, min_size=None, max_size=None, *, progress=None,
                          block_size: int = BLOCK) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """CSR blocks (offsets int64, vertex ids int32) of the maximal cliques, one root range at a
    time (serial). A block holds at most ``block_size`` cliques unless one root has more."""
    from . import mce

    lo, hi = _bounds(min_size, max_size)
    if G.n == 0 or hi < lo:
        return
    indptr, indices, order, d = oriented(G)
    ids = order.astype(np.int32)
    out_off = np.zeros(block_size + 1, dtype=np.int64)
    out_v = np.zeros(block_size * max(2, min(d + 1, 8)), dtype=np.int32)
    hist = np.zeros(d + 3, dtype=np.int64)
    for a, b in chunks(G.n, progress, "maximal cliques"):
        while a < b:
            nxt, k = mce.run_range(indptr, indices, a, b, 1, lo, hi, hist, out_v, out_off)
            if k:
                yield out_off[:k + 1].copy(), ids[out_v[:out_off[k]]]
            elif nxt == a:  # one root's cliques do not fit: grow the buffers (or refuse)
                out_v = _run.grown(out_v, "listing the maximal cliques of one root")
                out_off = _run.grown(out_off, "listing the maximal cliques of one root")
            a = nxt


def maximal_cliques(G: Graph, min_size=None, max_size=None, *, progress=None) -> Iterator[list[int]]:
    """Every maximal clique with size in [min_size, max_size], as a list of vertex ids."""
    for offsets, vertices in maximal_clique_blocks(G, min_size, max_size, progress=progress):
        offs, vals = offsets.tolist(), vertices.tolist()
        for i in range(len(offs) - 1):
            yield vals[offs[i]:offs[i + 1]]


# ---- k-cliques ----


def pick_algorithm(G: Graph, k: int) -> str:
    """The faster counter for one k (the measured rule at ``LISTING_MAX_K``): listing for k <= 5 on
    graphs of degeneracy <= 128, pivoting otherwise."""
    d = oriented(G)[3]
    return "listing" if k <= LISTING_MAX_K and d <= LISTING_MAX_D else "pivot"


def count_k_cliques(G: Graph, k: int, *, algorithm: str = "auto", progress=None, threads=None) -> int:
    """Number of k-cliques (exact). ``algorithm``: "listing", "pivot" or "auto" (``pick_algorithm``)."""
    from . import kclique

    k = int(k)
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {', '.join(map(repr, ALGORITHMS))}, got {algorithm!r}")
    if k <= 2:
        return G.n if k == 1 else G.m
    if algorithm == "auto":
        algorithm = pick_algorithm(G, k)
    if algorithm == "pivot":
        return _clique_counts(G, k, k, progress, threads)[k]
    indptr, indices, _, d = oriented(G)
    if k > d + 1:
        return 0
    total = 0
    T = n_threads(threads)
    for a, b in chunks(G.n, progress, f"{k}-cliques", T):
        parts = on_threads(kclique.count_threads, kclique.count_range, T, (indptr, indices), a, b, k)
        total += sum(map(int, parts))
    return total


def _clique_counts(G: Graph, k_min: int, k_max: int | None, progress, threads) -> dict[int, int]:
    from . import kclique

    K = 1 << 30 if k_max is None else int(k_max)
    indptr, indices, _, d = oriented(G)
    width = d + 3
    leaves = np.zeros((width, width), dtype=np.int64)  # a count never passes the search's steps
    if K >= 3 and G.n:
        T = n_threads(threads)
        for a, b in chunks(G.n, progress, "clique counts", T):
            parts = on_threads(kclique.leaves_threads, kclique.leaves_range, T, (indptr, indices), a, b,
                               k_min, min(K, width), width)
            leaves += sum(parts)
    leaves[1, 0] = 0   # single vertices: counts[1] is n
    return combine_leaf_table(leaves, G.n, G.m, k_max)


def clique_counts(G: Graph, k_max: int | None = None, *, progress=None, threads=None) -> dict[int, int]:
    """{k: number of k-cliques} for k = 1..k_max (None: up to the clique number), by pivoting."""
    if k_max is not None and int(k_max) < 1:
        raise ValueError(f"k_max must be >= 1, got {k_max}")
    return _clique_counts(G, 0, k_max, progress, threads)


# ---- maximal bicliques ----


def roots_in_u(B: BipartiteGraph) -> bool:
    """Whether the biclique search roots at U's vertices rather than V's: the side whose roots
    together build fewer bit rows. A root's rows are its 2-hop neighbours through the other
    side, so V's roots build the sum over U of deg(u)^2 and U's the sum over V of deg(v)^2.
    (One thread, 2026-11-26: MovieLens takes half the time with U's roots, marvel and
    dbpedia-writer a third and half with V's, each as this rule says.) False on ``transposed(B)``
    when True on B, so ``rooted`` is idempotent."""
    du = np.diff(B.u_indptr).astype(np.int64)
    dv = np.diff(B.v_indptr).astype(np.int64)
    return int((dv * dv).sum()) < int((du * du).sum())


def transposed(B: BipartiteGraph) -> BipartiteGraph:
    """B with U and V swapped (the same arrays)."""
    return BipartiteGraph(B.v_indptr, B.v_indices, B.u_indptr, B.u_indices, name=B.name)


def rooted(B: BipartiteGraph) -> BipartiteGraph:
    """The graph the biclique kernel runs on, its roots being V: B, or ``transposed(B)`` when
    ``roots_in_u(B)`` (both kept with B)."""
    if _run.prepared(B, "roots_in_u", roots_in_u):
        return _run.prepared(B, "transposed", transposed)
    return B


def _by_degree(B: BipartiteGraph):
    """(u_indptr, u_indices, v_indptr, v_indices, order): V relabelled by (degree, id)."""
    deg = np.diff(B.v_indptr)
    order = np.lexsort((np.arange(B.n_v), deg))
    rank = positions(order)
    v_indptr = np.zeros(B.n_v + 1, dtype=np.int64)
    np.cumsum(deg[order], out=v_indptr[1:])
    starts = np.asarray(B.v_indptr[:-1], dtype=np.int64)[order]
    take = np.repeat(starts - v_indptr[:-1], deg[order]) + np.arange(v_indptr[-1])
    v_indices = np.ascontiguousarray(B.v_indices[take], dtype=np.int32)
    rows = np.repeat(np.arange(B.n_u), np.diff(B.u_indptr))
    key = rows.astype(np.int64) << 32 | rank[B.u_indices].astype(np.int64)
    key.sort()
    u_indices = np.ascontiguousarray(key & 0xFFFFFFFF, dtype=np.int32)
    u_indptr = np.asarray(B.u_indptr, dtype=np.int64)
    return u_indptr, u_indices, v_indptr, v_indices, order.astype(np.int64)


def by_degree(B: BipartiteGraph):
    """``_by_degree`` of ``rooted(B)`` (kept with it)."""
    return _run.prepared(rooted(B), "by_degree", _by_degree)


def _root_bytes(B: BipartiteGraph) -> int:
    up, ui, vp, vi, _ = by_degree(B)
    if B.n_v == 0 or len(vi) == 0:
        return 0
    deg_u = np.diff(up)
    reach = np.add.reduceat(deg_u[vi], vp[:-1]) * (np.diff(vp) > 0)  # sum of deg(u) over N(v)
    deg = np.diff(vp)
    words = (deg + 63) // 64
    rows = np.minimum(reach, B.n_v) + 2 * deg  # the rows, and each search level's L and its words
    return int((rows * words).max()) * 8 + 40 * B.n_v + 8 * B.n_u


def root_bytes(B: BipartiteGraph) -> int:
    """An upper bound on the largest root's bit rows (|2-hop of v| x words of N(v), 8 bytes each)
    and search levels, with the vertex lists each thread keeps; of ``rooted(B)``."""
    return _run.prepared(rooted(B), "root_bytes", _root_bytes)


def _check_memory(B: BipartiteGraph, T: int) -> None:
    _run.refuse_beyond_memory(T * root_bytes(B), f"the largest root's bit rows on {T} thread(s)")


def count_maximal_bicliques(B: BipartiteGraph, *, progress=None, threads=None) -> int:
    """Number of maximal bicliques with both sides non-empty (refused up front, with the bytes
    it needs, when the largest root's rows cannot fit on every thread)."""
    from . import mbe

    B = rooted(B)
    up, ui, vp, vi, _ = by_degree(B)
    T = n_threads(threads)
    _check_memory(B, T)
    total = 0
    no_buffers = np.zeros(0, np.int32), np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros(0, np.int64)
    for a, b in chunks(B.n_v, progress, "maximal bicliques", T):
        total += sum(found for _, found in strided(mbe.run_range, T, (up, ui, vp, vi), a, b, *no_buffers))
    return total


def maximal_biclique_blocks(B: BipartiteGraph, *, progress=None, block_size: int = BLOCK):
    """Blocks (L offsets, L ids in U, R offsets, R ids in V) of the maximal bicliques (serial),
    each side's ids ascending."""
    from . import mbe

    on = rooted(B)
    flipped, B = on is not B, on
    up, ui, vp, vi, order = by_degree(B)
    _check_memory(B, 1)
    ids = order.astype(np.int32)
    loff = np.zeros(block_size + 1, dtype=np.int64)
    roff = np.zeros(block_size + 1, dtype=np.int64)
    out_l = np.zeros(8 * block_size, dtype=np.int32)
    out_r = np.zeros(8 * block_size, dtype=np.int32)
    for a, b in chunks(B.n_v, progress, "maximal bicliques"):
        while a < b:
            nxt, k = mbe.run_range(up, ui, vp, vi, a, b, 1, out_l, loff, out_r, roff)
            if k:
                R = _ascending(roff[:k + 1], ids[out_r[:roff[k]]])  # L is ascending already
                block = loff[:k + 1].copy(), out_l[:loff[k]].copy(), roff[:k + 1].copy(), R
                yield block[2:] + block[:2] if flipped else block  # the kernel's V is B's U
            elif nxt == a:
                what = "listing the maximal bicliques of one root"
                out_l, out_r = _run.grown(out_l, what), _run.grown(out_r, what)
                loff, roff = _run.grown(loff, what), _run.grown(roff, what)
            a = nxt


def _ascending(offsets: np.ndarray, values: np.ndarray) -> np.ndarray:
    """values with each CSR segment sorted (as the oracle lists them)."""
    seg = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    return values[np.lexsort((values, seg))]


def maximal_bicliques(B: BipartiteGraph, *, progress=None) -> Iterator[tuple[list[int], list[int]]]:
    """Every maximal biclique (L ids in U, R ids in V), both non-empty."""
    for loff, lv, roff, rv in maximal_biclique_blocks(B, progress=progress):
        lo, ll, ro, rl = loff.tolist(), lv.tolist(), roff.tolist(), rv.tolist()
        for i in range(len(lo) - 1):
            yield ll[lo[i]:lo[i + 1]], rl[ro[i]:ro[i + 1]]


clear_cache = _run.clear_cache
