"""Host preparation shared by the maximal-clique kernels (RDMCE, mce-gpu).

    order, indptr, indices, isolated = degeneracy_csr(G)
    u, v, p, x = seed_sets(indptr, indices, "edge")   # or "vertex"

Vertices are relabelled in degeneracy order, so a vertex has at most d later
neighbours. A seed is a vertex (v = -1: P = later neighbours, X = earlier ones)
or an edge u < v (P = common neighbours after v, X = those before v); ``p`` and
``x`` bound |P| and |X| of each seed without computing the intersections, which
is what the launchers size their per-worker buffers from.
"""

from __future__ import annotations

import sys

import numpy as np

from ..graph import Graph
from ..prepared import ordered_csr


def degeneracy_csr(G: Graph, device: str = "auto"):
    """(order, indptr, indices, isolated) of ``G`` relabelled in degeneracy order (int32 CSR)."""
    order, _, indptr, indices, isolated = ordered_csr(G, device)
    return order, indptr, indices, isolated


def seed_sets(indptr, indices, seeding: str, device: str = "auto"):
    """(u, v, p, x): every seed and upper bounds on its |P| and |X| (int64 bounds). Long graphs
    are done on the GPU when one is there (``prep.use_gpu``; same arrays)."""
    from . import prep

    if seeding not in ("edge", "vertex"):
        raise ValueError(f"seeding must be 'edge' or 'vertex', got {seeding!r}")
    if prep.use_gpu_for_prep(len(indices), device):
        return prep.seed_sets(indptr, indices, seeding)
    from ..order import compiled_twin

    fast = compiled_twin("seed_bounds", len(indices))  # the same arrays, without NumPy's passes
    return fast(indptr, indices, seeding) if fast else seed_bounds(indptr, indices, seeding)


def later_counts(indptr, indices) -> np.ndarray:
    """How many neighbours of each vertex have a larger id (int64): its later neighbours."""
    from ..graph import rows_of
    from ..order import compiled_twin

    fast = compiled_twin("later", len(indices))
    if fast:
        return fast(indptr, indices)
    src = rows_of(indptr)
    return np.bincount(src[indices > src], minlength=len(indptr) - 1)


def seed_bounds(indptr, indices, seeding: str, xp=np):
    """seed_sets on NumPy or CuPy arrays (``xp``)."""
    from ..graph import rows_of, sorted_ptr

    n = len(indptr) - 1
    deg = (indptr[1:] - indptr[:-1]).astype(xp.int64)
    src = rows_of(indptr, xp)
    later = xp.diff(sorted_ptr(src[indices > src], n, xp))
    if seeding == "edge":
        keep = src < indices
        u, v = src[keep], indices[keep].astype(xp.int64)
        del src, keep
        p = xp.minimum(later[u], later[v])
        x = xp.minimum(deg[v] - later[v], deg[u])
    elif seeding == "vertex":
        u = xp.flatnonzero(deg)
        v = xp.full(len(u), -1, dtype=xp.int64)
        p, x = later[u], deg[u] - later[u]
    else:
        raise ValueError(f"seeding must be 'edge' or 'vertex', got {seeding!r}")
    return u.astype(xp.int32), v.astype(xp.int32), p.astype(xp.int64), x.astype(xp.int64)


def per_seed(p, x, *fns) -> tuple:
    """``fn(p, x)`` of every seed for each of ``fns`` (int64 formulas of the bounds, e.g. a launcher's
    buffer words). On the GPU each formula runs elementwise on the device (``Ufuncs``: a few
    launches, where evaluating a table on the host took soc-Slashdot0902's cold call 4.7 ms); on the
    host it is read from a table over the (p, x) grid when the grid is smaller than the seeds (the
    same values for a fraction of the arithmetic), else computed elementwise."""
    if not isinstance(p, np.ndarray):
        xp = sys.modules["cupy"]
        p, x = xp.asarray(p, dtype=xp.int64), xp.asarray(x, dtype=xp.int64)
        return tuple(xp.asarray(Ufuncs.of(fn(Ufuncs(p), Ufuncs(x))), dtype=xp.int64) for fn in fns)
    cols = int(x.max()) + 1 if len(p) else 0
    cells = (int(p.max()) + 1) * cols if len(p) else 0
    if cells > len(p) or not len(p):
        return tuple(np.asarray(fn(p, x), dtype=np.int64) for fn in fns)
    grid_p, grid_x = np.divmod(np.arange(cells, dtype=np.int64), cols)
    at = p * cols + x
    return tuple(np.asarray(fn(grid_p, grid_x), dtype=np.int64)[at] for fn in fns)


class Ufuncs:
    """A CuPy array whose arithmetic operators call CuPy's functions (``a + 31`` is
    ``cupy.add(a, 31)``), so a formula written with operators runs on the device without CuPy 14's
    ``__array_ufunc__`` path, which imports SciPy (``graph.py``). ``Ufuncs.of`` unwraps a result."""

    __slots__ = ("a",)
    __array_ufunc__ = None   # a NumPy operand defers to the operators below

    def __init__(self, a):
        self.a = a

    @staticmethod
    def of(v):
        return v.a if isinstance(v, Ufuncs) else v

    def _op(name, swap=False):  # noqa: N805 (builds the operator methods below)
        def op(self, other):
            f = getattr(sys.modules["cupy"], name)
            a, b = self.a, Ufuncs.of(other)
            return Ufuncs(f(b, a) if swap else f(a, b))
        return op

    __add__, __radd__ = _op("add"), _op("add", True)
    __sub__, __rsub__ = _op("subtract"), _op("subtract", True)
    __mul__, __rmul__ = _op("multiply"), _op("multiply", True)
    __floordiv__, __rfloordiv__ = _op("floor_divide"), _op("floor_divide", True)
    __gt__, __lt__ = _op("greater"), _op("less")
    __ge__, __le__ = _op("greater_equal"), _op("less_equal")
    del _op
