"""The canonical graph types: an immutable CSR graph and a bipartite graph.

Every algorithm in mce_kit (cpu, sim, gpu) consumes these. Vertices are
0..n-1; ``labels[i]`` is the original label of vertex ``i``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .accel import to_host, use_gpu

LARGE_EDGE_LIST = 1 << 22  # from_edges sorts row << 32 | column keys (GPU if any) from this many edges
CSR32_MAX_ENTRIES = 2**31 - 1   # the prepared CSRs and the kernels index entries with int32


def check_csr32(entries: int, what: str) -> None:
    """ValueError naming ``what`` when ``entries`` (adjacency entries, or a bipartite graph's edges)
    pass what an int32 CSR holds: refused, where a cast would wrap the offsets."""
    if entries > CSR32_MAX_ENTRIES:
        raise ValueError(f"{what}: {entries} entries; its int32 CSR holds at most {CSR32_MAX_ENTRIES}")


def is_int_at_least(value, least: int) -> bool:
    """Whether ``value`` is an int (Python or NumPy, not a bool) of at least ``least``."""
    return not isinstance(value, bool) and isinstance(value, (int, np.integer)) and value >= least


def check_size_bounds(min_size, max_size) -> None:
    """One-line ValueError unless each clique size bound is None or a non-negative int: every route
    (CPU, RDMCE, mce-gpu) then reads the same bounds the same way."""
    for name, v in (("min_size", min_size), ("max_size", max_size)):
        if v is not None and not is_int_at_least(v, 0):
            raise ValueError(f"{name} must be a non-negative int or None, got {v!r}")


def _unique(x: np.ndarray) -> np.ndarray:
    """Sorted distinct values of non-negative ``x`` (np.unique is ~20x slower in NumPy 2.4); long
    arrays are sorted on the GPU when one is there (the same values)."""
    if len(x) >= LARGE_EDGE_LIST and use_gpu(len(x)):
        import cupy

        return to_host(unique_sorted(cupy.asarray(x), cupy))[0]
    return unique_sorted(x)


def run_starts(x, xp=np):
    """Mask of the entries of sorted ``x`` that differ from the one before (the first is True)."""
    return xp.concatenate([xp.ones(min(1, len(x)), dtype=bool), x[1:] != x[:-1]])


def unique_sorted(x, xp=np):
    """Sorted distinct values of ``x``, NumPy or CuPy (``xp``)."""
    x = xp.sort(x)
    first = run_starts(x, xp)
    return x if bool(first.all()) else x[first]  # no repeat (a simple edge list): no compaction


# CuPy code below writes operators with a scalar operand as functions (xp.left_shift(a, 32), not
# a << 32): CuPy 14 sends `array op scalar` through __array_ufunc__, which imports cupyx.scipy and
# with it SciPy, a quarter of a second in a fresh process.


def sorted_ptr(rows, n: int, xp=np):
    """CSR indptr (int64, n + 1) of the ascending row ids ``rows``: where each row's run starts.
    NumPy counts (a binary search per row took 4x longer on 4 M rows); CuPy searches, all rows at
    once (its bincount syncs twice with the host)."""
    if xp is np:
        ptr = np.zeros(n + 1, np.int64)
        np.cumsum(np.bincount(rows, minlength=n), out=ptr[1:])
        return ptr
    return xp.searchsorted(rows, xp.arange(n + 1, dtype=rows.dtype)).astype(xp.int64)


def csr_from_keys(key, n: int, xp=np) -> tuple:
    """(indptr, indices) from sorted distinct 64-bit keys ``row << 32 | column``."""
    return sorted_ptr(xp.right_shift(key, 32), n, xp), xp.bitwise_and(key, 0xFFFFFFFF).astype(xp.int32)


def is_permutation(a, n: int) -> bool:
    """Whether the host array ``a`` holds each of 0..n-1 exactly once."""
    a = np.asarray(a)
    if len(a) != n or (n and (a.min() < 0 or a.max() >= n)):
        return False
    seen = np.zeros(n, dtype=bool)
    seen[a] = True
    return bool(seen.all())


def rows_of(indptr, xp=np):
    """The row of every CSR entry (int64): ``repeat(arange(n), diff(indptr))`` on NumPy or CuPy."""
    indptr = xp.asarray(indptr).astype(xp.int64)
    if xp is np:
        return np.repeat(np.arange(len(indptr) - 1, dtype=np.int64), np.diff(indptr))
    return xp.searchsorted(indptr[1:], xp.arange(int(indptr[-1]), dtype=xp.int64), side="right")


def neighbours_of(indptr, indices, vs, xp=np):
    """Concatenated neighbour lists (CSR rows) of the vertices ``vs``, in that order."""
    lo = indptr[vs].astype(xp.int64)
    lens = indptr[xp.add(vs, 1)].astype(xp.int64) - lo
    ptr = xp.concatenate([xp.zeros(1, dtype=xp.int64), xp.cumsum(lens)])
    return indices[(lo - ptr[:-1])[rows_of(ptr, xp)] + xp.arange(int(ptr[-1]), dtype=xp.int64)]


def induced_csr(indptr, indices, ids) -> tuple[np.ndarray, np.ndarray]:
    """(indptr, indices) of the subgraph induced by the distinct vertices ``ids``, ``ids[i]`` renamed
    i: their rows, the other vertices left out. Ascending ``ids`` keep every row sorted (renaming by
    rank keeps the order), so no sort; others take one sort of 64-bit keys."""
    ids = np.asarray(ids, dtype=np.int64)
    n = len(indptr) - 1
    rank = np.full(n, -1, dtype=np.int64)
    rank[ids] = np.arange(len(ids))
    lens = (indptr[ids + 1] - indptr[ids]).astype(np.int64)
    col = rank[neighbours_of(indptr, indices, ids)]
    keep = col >= 0
    row = np.repeat(np.arange(len(ids), dtype=np.int64), lens)[keep]
    col = col[keep]
    if len(ids) > 1 and np.any(ids[1:] < ids[:-1]):
        return csr_from_keys(np.sort(row << 32 | col), len(ids))
    return sorted_ptr(row, len(ids)), col


def positions(order) -> np.ndarray:
    """The inverse permutation: ``positions(order)[order[i]] == i``."""
    order = np.asarray(order, dtype=np.int64)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank


def _frozen(a, dtype) -> np.ndarray:
    a = np.ascontiguousarray(a, dtype=dtype)
    a.flags.writeable = False
    return a


def csr_arrays(n: int, u, v, xp=np) -> tuple:
    """(indptr, indices) of the simple undirected graph on endpoints ``u, v`` (n < 2**31): self-loops
    dropped, both directions, one sort of the 64-bit keys ``row << 32 | column``, repeats merged.
    NumPy or CuPy arrays (``xp``); ``Graph.from_edges`` uses it on the GPU for long lists."""
    keep = u != v
    if not bool(keep.all()):
        u, v = u[keep], v[keep]
    key = xp.concatenate([xp.left_shift(u, 32) | v, xp.left_shift(v, 32) | u])
    del u, v, keep
    return csr_from_keys(unique_sorted(key, xp), n, xp)


@dataclass(frozen=True)
class CleaningReport:
    """What load_graph changed while building the simple undirected graph."""

    self_loops: int = 0
    duplicates: int = 0
    symmetrized: int = 0  # directed arcs whose reverse was missing

    def __str__(self) -> str:
        return (
            f"self-loops dropped: {self.self_loops}, duplicates merged: "
            f"{self.duplicates}, arcs symmetrized: {self.symmetrized}"
        )


@dataclass(frozen=True, eq=False)
class Graph:
    """Simple undirected graph in CSR form.

    ``indptr`` (n+1) and ``indices`` (2m) are int32 (indptr int64 past 2^31
    entries), every neighbour list is sorted, symmetric, without self-loops
    or duplicates. Arrays are read-only.
    """

    indptr: np.ndarray
    indices: np.ndarray
    labels: np.ndarray | None = None
    name: str = ""
    report: CleaningReport = field(default_factory=CleaningReport)

    def __post_init__(self):
        ptr_t = np.int64 if len(self.indices) >= 2**31 else np.int32
        object.__setattr__(self, "indptr", _frozen(self.indptr, ptr_t))
        object.__setattr__(self, "indices", _frozen(self.indices, np.int32))
        if self.labels is not None:
            object.__setattr__(self, "labels", _frozen(self.labels, self.labels.dtype))

    @classmethod
    def from_edges(cls, n: int, u, v, device: str = "auto", **kw) -> Graph:
        """Build from arrays of endpoints (any direction, duplicates allowed). Long lists are built on
        the GPU when one is there (``device="auto"``; "cpu" keeps them on the host; same arrays)."""
        u = np.asarray(u, dtype=np.int64)
        v = np.asarray(v, dtype=np.int64)
        if (device != "auto" or (len(u) >= LARGE_EDGE_LIST and n < 2**31)) \
                and use_gpu(2 * len(u), device) and n < 2**31:  # one sort of 64-bit keys, the same arrays
            import cupy

            return cls(*to_host(*csr_arrays(n, cupy.asarray(u), cupy.asarray(v), cupy)), **kw)
        keep = u != v
        if keep.sum() >= LARGE_EDGE_LIST and n < 2**31:  # the same sort of 64-bit keys with NumPy
            return cls(*csr_arrays(n, u, v), **kw)
        a = np.concatenate([u[keep], v[keep]])
        b = np.concatenate([v[keep], u[keep]])
        key = _unique(a * n + b)
        a, b = key // n, key % n
        return cls(sorted_ptr(a, n), b, **kw)

    @property
    def n(self) -> int:
        return len(self.indptr) - 1

    @property
    def m(self) -> int:
        return len(self.indices) // 2

    def degrees(self) -> np.ndarray:
        return np.diff(self.indptr).astype(np.int32)

    def neighbors(self, v: int) -> np.ndarray:
        return self.indices[self.indptr[v] : self.indptr[v + 1]]

    def edges(self) -> np.ndarray:
        """(m, 2) array of edges u < v."""
        src = np.repeat(np.arange(self.n, dtype=np.int32), self.degrees())
        keep = src < self.indices
        return np.stack([src[keep], self.indices[keep]], axis=1)

    def label(self, v: int):
        if self.labels is None:
            return v
        x = self.labels[v]
        return x.item() if isinstance(x, np.generic) else x  # object labels stay as they are

    def to_networkx(self):
        import networkx as nx

        H = nx.Graph()
        H.add_nodes_from(self.label(v) for v in range(self.n))
        H.add_edges_from((self.label(a), self.label(b)) for a, b in self.edges())
        return H

    def relabel(self, order: np.ndarray) -> Graph:
        """The same graph with vertex ``order[i]`` renamed ``i`` (``order.relabel_host``)."""
        from .order import relabel_host

        order = np.asarray(order, dtype=np.int64)
        labels = order if self.labels is None else self.labels[order]
        indptr, indices = relabel_host(self.indptr, self.indices, order)
        return Graph(indptr, indices, labels=labels, name=self.name, report=self.report)

    def __repr__(self) -> str:
        return f"Graph({self.name or 'unnamed'}: n={self.n}, m={self.m})"


@dataclass(frozen=True, eq=False)
class BipartiteGraph:
    """Bipartite graph U x V with CSR for both sides.

    Following GMBE+, ``V`` is the smaller side (the side the enumeration
    tree is built over); ``swapped`` records whether the file's second
    column became U.
    """

    u_indptr: np.ndarray  # neighbours (in V) of each u in U
    u_indices: np.ndarray
    v_indptr: np.ndarray  # neighbours (in U) of each v in V
    v_indices: np.ndarray
    u_labels: np.ndarray | None = None
    v_labels: np.ndarray | None = None
    swapped: bool = False
    name: str = ""
    report: CleaningReport = field(default_factory=CleaningReport)

    def __post_init__(self):
        for f in ("u_indptr", "u_indices", "v_indptr", "v_indices"):
            dt = np.int64 if f.endswith("indptr") and len(self.u_indices) >= 2**31 else np.int32
            object.__setattr__(self, f, _frozen(getattr(self, f), dt))

    @classmethod
    def from_edges(cls, n_u: int, n_v: int, u, v, **kw) -> BipartiteGraph:
        """Build from endpoint arrays; ``u[i]`` in U, ``v[i]`` in V. Puts the smaller side in V."""
        u = np.asarray(u, dtype=np.int64)
        v = np.asarray(v, dtype=np.int64)
        swapped = kw.pop("swapped", False)
        if n_v > n_u:
            n_u, n_v, u, v = n_v, n_u, v, u
            kw["u_labels"], kw["v_labels"] = kw.get("v_labels"), kw.get("u_labels")
            swapped = not swapped
        key = _unique(u * n_v + v)
        u, v = key // n_v, key % n_v

        def csr(src, dst, n_src):
            o = np.lexsort((dst, src))
            ptr = np.zeros(n_src + 1, dtype=np.int64)
            np.cumsum(np.bincount(src, minlength=n_src), out=ptr[1:])
            return ptr, dst[o]

        up, ui = csr(u, v, n_u)
        vp, vi = csr(v, u, n_v)
        return cls(up, ui, vp, vi, swapped=swapped, **kw)

    @property
    def n_u(self) -> int:
        return len(self.u_indptr) - 1

    @property
    def n_v(self) -> int:
        return len(self.v_indptr) - 1

    @property
    def m(self) -> int:
        return len(self.u_indices)

    def u_neighbors(self, u: int) -> np.ndarray:
        return self.u_indices[self.u_indptr[u] : self.u_indptr[u + 1]]

    def v_neighbors(self, v: int) -> np.ndarray:
        return self.v_indices[self.v_indptr[v] : self.v_indptr[v + 1]]

    def __repr__(self) -> str:
        return f"BipartiteGraph({self.name or 'unnamed'}: |U|={self.n_u}, |V|={self.n_v}, m={self.m})"
