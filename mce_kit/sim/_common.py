"""Helpers shared by the models: vertex orders, Python-int bitsets, labels.

Inside a model, vertex ``i`` is the vertex at position ``i`` of the chosen
order, so walking a bitset from the lowest bit up walks the order. Sets
are mapped back to the input graph's ids only when they are recorded.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..graph import is_permutation, positions


def bits(mask: int) -> Iterator[int]:
    """Positions of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def mask_of(items) -> int:
    m = 0
    for i in items:
        m |= 1 << int(i)
    return m


def words(nbits: int) -> int:
    """32-bit words needed for an ``nbits``-bit row (at least one)."""
    return max(1, -(-nbits // 32))


def resolve_order(G, order) -> np.ndarray:
    """``order[i]`` = vertex at position i. Accepts "natural", "degeneracy", "degree" or an array."""
    if isinstance(order, str):
        if order == "natural":
            return np.arange(G.n, dtype=np.int64)
        if order == "degeneracy":
            from ..order import degeneracy_order

            return np.asarray(degeneracy_order(G), dtype=np.int64)
        if order == "degree":
            return np.lexsort((np.arange(G.n), G.degrees())).astype(np.int64)
        raise ValueError(f"unknown order {order!r}")
    order = np.asarray(order, dtype=np.int64)
    if not is_permutation(order, G.n):
        raise ValueError("order must be a permutation of 0..n-1")
    return order


def adjacency(G, order: np.ndarray) -> list[int]:
    """N[i]: bitset of the positions of the neighbours of vertex order[i]."""
    rank = positions(order)
    N = [0] * G.n
    for i, v in enumerate(order.tolist()):
        m = 0
        for u in rank[G.neighbors(v)].tolist():
            m |= 1 << u
        N[i] = m
    return N


def labels(G) -> list[str]:
    return [str(G.label(v)) for v in range(G.n)]


def bip_labels(B) -> dict:
    """Display names of both sides: U as given (or u1..), V as given (or v1..)."""
    u = [str(x) for x in B.u_labels] if B.u_labels is not None else [f"u{i + 1}" for i in range(B.n_u)]
    v = [str(x) for x in B.v_labels] if B.v_labels is not None else [f"v{i + 1}" for i in range(B.n_v)]
    return {"U": u, "V": v}


class Positions:
    """Maps bitsets over positions back to the input graph's vertex ids."""

    def __init__(self, order: np.ndarray):
        self.order = order.tolist()

    def ids(self, mask: int) -> tuple[int, ...]:
        o = self.order
        return tuple(sorted(o[i] for i in bits(mask)))

    def id(self, i: int | None) -> int | None:
        return None if i is None else self.order[i]
