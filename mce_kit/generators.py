"""Seeded synthetic graphs for workloads larger than the bundled ones.

    G = rmat(scale=16, edge_factor=16, seed=1)         # Graph500 R-MAT / Kronecker
    B = bipartite_chung_lu(20_000, 5_000, 200_000, seed=1)   # heavy tails on both sides

Same arguments, same graph, on every machine (NumPy's PCG64). Vectorised:
scale 24 (16.7 M vertices, 268 M edge draws) needs a few GiB and tens of seconds.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .config import usable_cores
from .graph import BipartiteGraph, Graph

GRAPH500 = (0.57, 0.19, 0.19)  # a, b, c; d = 1 - a - b - c


def rmat_edges(scale: int, edge_factor: int = 16, abc=GRAPH500, seed: int = 0, chunk: int = 1 << 24,
               threads: int | None = None):
    """Endpoint arrays of ``edge_factor * 2**scale`` R-MAT draws, vertex ids permuted at random.

    Each draw picks one quadrant per bit of the vertex ids with probabilities
    a, b, c, d (Graph500). Self-loops and repeats are left in; ``rmat`` removes them.

    The stream is that of one ``default_rng(seed)``: the edges in chunks of
    ``chunk``, for each chunk one uniform per edge and bit (bit-major), then a
    permutation of the ids. Every piece of it is drawn by its own PCG64
    advanced to the piece's place in that stream, so ``threads`` workers
    (default: the usable cores) give the same arrays as one.
    """
    if not 1 <= scale <= 31:
        raise ValueError(f"scale must be in 1..31, got {scale}")
    a, b, c = abc
    if min(a, b, c) < 0 or a + b + c > 1:
        raise ValueError(f"R-MAT probabilities must be >= 0 with a+b+c <= 1, got {abc}")
    if chunk < 1:
        raise ValueError(f"chunk must be >= 1, got {chunk}")
    m = edge_factor << scale
    perm = _generator(seed, m * scale).permutation(1 << scale)  # drawn after every edge bit
    u = np.empty(m, dtype=np.int64)
    v = np.empty(m, dtype=np.int64)
    cuts = (a, a + b, a + b + c)
    pieces = [(s, min(m, s + chunk), t, min(m, s + chunk, t + PIECE))
              for s in range(0, m, chunk) for t in range(s, min(m, s + chunk), PIECE)]

    def work(piece):
        _rmat_piece(seed, scale, cuts, *piece, perm, u, v)

    threads = threads or usable_cores()
    if threads > 1 and len(pieces) > 1:
        with ThreadPoolExecutor(min(threads, len(pieces))) as ex:
            list(ex.map(work, pieces))  # NumPy drops the GIL in the draws and the array loops
    else:
        for piece in pieces:
            work(piece)
    return u, v


PIECE = 1 << 20  # edges per work item of rmat_edges
BLOCK = 1 << 17  # edges per block inside a work item (fewer NumPy calls: less time holding the GIL)


def _generator(seed: int, offset: int) -> np.random.Generator:
    """``default_rng(seed)`` after ``offset`` 64-bit draws (one per ``random()`` double)."""
    bits = np.random.PCG64(seed)
    bits.advance(offset)
    return np.random.Generator(bits)


def _rmat_piece(seed, scale, cuts, s, e, t0, t1, perm, u_out, v_out):
    """Edges ``t0..t1`` of the chunk ``s..e``: the uniform of bit ``b`` of edge ``t`` is draw
    ``s * scale + b * (e - s) + (t - s)`` of the stream."""
    a, ab, abc = cuts
    gens = [_generator(seed, s * scale + bit * (e - s) + (t0 - s)) for bit in range(scale)]
    for b0 in range(t0, t1, BLOCK):
        k = min(t1, b0 + BLOCK) - b0
        u = np.zeros(k, dtype=np.int32)
        v = np.zeros(k, dtype=np.int32)
        for bit, g in enumerate(gens):
            r = g.random(k)
            hi = r >= ab
            # quadrant: a -> (0,0), b -> (0,1), c -> (1,0), d -> (1,1); v's bit is [r>=a]^[r>=a+b]^[r>=a+b+c]
            u |= np.left_shift(hi.view(np.uint8), bit, dtype=np.int32)
            v |= np.left_shift(((r >= a) ^ hi ^ (r >= abc)).view(np.uint8), bit, dtype=np.int32)
        u_out[b0 : b0 + k] = perm[u]
        v_out[b0 : b0 + k] = perm[v]


def rmat(scale: int, edge_factor: int = 16, abc=GRAPH500, seed: int = 0, device: str = "auto") -> Graph:
    """The simple undirected R-MAT graph on ``2**scale`` vertices (isolated vertices kept). ``device``:
    where ``Graph.from_edges`` builds it ("auto": the GPU for long lists when one is there)."""
    u, v = rmat_edges(scale, edge_factor, abc, seed)
    return Graph.from_edges(1 << scale, u, v, device=device, name=f"rmat-s{scale}-ef{edge_factor}-seed{seed}")


def bipartite_chung_lu(n_u: int, n_v: int, m: int, exponent: float = 2.1, seed: int = 0) -> BipartiteGraph:
    """About ``m`` distinct edges between U and V, both sides with power-law expected degrees.

    Endpoints are drawn independently with probability proportional to
    ``(i + 1) ** (-1 / (exponent - 1))`` on each side (Chung-Lu), so both sides
    have heavy tails; repeats are merged.
    """
    if n_u < 1 or n_v < 1 or m < 0:
        raise ValueError(f"need n_u, n_v >= 1 and m >= 0, got {n_u}, {n_v}, {m}")
    rng = np.random.default_rng(seed)

    def side(n):
        w = (np.arange(n) + 1.0) ** (-1.0 / (exponent - 1.0))
        return rng.permutation(n)[np.searchsorted(np.cumsum(w / w.sum()), rng.random(m), side="right")
                                  .clip(0, n - 1)]

    u, v = side(n_u), side(n_v)
    return BipartiteGraph.from_edges(n_u, n_v, u, v, name=f"chung-lu-{n_u}x{n_v}-m{m}-seed{seed}")
