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
    if prep.use_gpu_for_prep(len(indices), device, order=True):
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
    buffer words). On the GPU the formulas run in one fused elementwise kernel, written from the
    Python functions themselves (``Formula``; evaluating a table on the host took
    soc-Slashdot0902's cold call 4.7 ms, one launch per operator 0.8 ms); on the host each is read
    from a table over the (p, x) grid when the grid is smaller than the seeds (the same values for a
    fraction of the arithmetic), else computed elementwise."""
    if not isinstance(p, np.ndarray):
        xp = sys.modules["cupy"]
        p, x = xp.asarray(p, dtype=xp.int64), xp.asarray(x, dtype=xp.int64)
        out = _formula_kernel(fns)(p, x)
        return out if isinstance(out, tuple) else (out,)
    cols = int(x.max()) + 1 if len(p) else 0
    cells = (int(p.max()) + 1) * cols if len(p) else 0
    if cells > len(p) or not len(p):
        return tuple(np.asarray(fn(p, x), dtype=np.int64) for fn in fns)
    grid_p, grid_x = np.divmod(np.arange(cells, dtype=np.int64), cols)
    at = p * cols + x
    return tuple(np.asarray(fn(grid_p, grid_x), dtype=np.int64)[at] for fn in fns)


FLOOR_DIV = """__device__ long long floor_div(long long a, long long b) {
    long long q = a / b;
    return q - (long long)((a % b != 0) && ((a < 0) != (b < 0)));
}
"""
_KERNELS: dict = {}


def _formula_kernel(fns: tuple):
    """A CuPy elementwise kernel (int64 p, x) -> one int64 output per formula, kept per ``fns``."""
    if fns not in _KERNELS:
        import cupy

        body = " ".join(f"out{i} = {Formula.of(fn(Formula('p'), Formula('x')))};" for i, fn in enumerate(fns))
        outs = ", ".join(f"int64 out{i}" for i in range(len(fns)))
        _KERNELS[fns] = cupy.ElementwiseKernel("int64 p, int64 x", outs, body, "mce_kit_per_seed",
                                               preamble=FLOOR_DIV)
    return _KERNELS[fns]


class Formula:
    """A formula's C expression, written by running it: ``fn(Formula("p"), Formula("x"))`` records
    each operator ``fn`` applies (Python's floor division and int comparisons, in 64-bit C), so the
    Python function stays the one place the formula is written. ``Formula.of`` gives the C text."""

    __slots__ = ("c",)
    __array_ufunc__ = None   # a NumPy operand defers to the operators below

    def __init__(self, c: str):
        self.c = c

    @staticmethod
    def of(v) -> str:
        if isinstance(v, Formula):
            return v.c
        if isinstance(v, bool | float) or not isinstance(v, int | np.integer):
            raise TypeError(f"a seed formula may only combine ints, got {v!r}")
        return f"{int(v)}LL"

    def _op(fmt, swap=False):  # noqa: N805 (builds the operator methods below)
        def op(self, other):
            a, b = Formula.of(self), Formula.of(other)
            return Formula(fmt.format(*((b, a) if swap else (a, b))))
        return op

    __add__, __radd__ = _op("({} + {})"), _op("({} + {})", True)
    __sub__, __rsub__ = _op("({} - {})"), _op("({} - {})", True)
    __mul__, __rmul__ = _op("({} * {})"), _op("({} * {})", True)
    __floordiv__, __rfloordiv__ = _op("floor_div({}, {})"), _op("floor_div({}, {})", True)
    __gt__, __lt__ = _op("(long long)({} > {})"), _op("(long long)({} < {})")
    __ge__, __le__ = _op("(long long)({} >= {})"), _op("(long long)({} <= {})")
    del _op
