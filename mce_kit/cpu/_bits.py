"""Small helpers shared by the oracles: CSR gathers and Python-int bitsets.

A bitset is a Python int; bit ``i`` stands for local vertex ``i``. The
oracles re-index each root's neighbourhood to 0..s-1 so that the ints stay
short (``s`` is at most the maximum degree).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

import numpy as np

Progress = Callable[[Iterable], Iterable] | None


def gather(indptr: np.ndarray, indices: np.ndarray, S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All CSR pairs (i, w) with w a neighbour of S[i], as two arrays."""
    S = np.asarray(S, dtype=np.int64)
    starts = indptr[S].astype(np.int64)
    lens = indptr[S + 1] - starts
    rows = np.repeat(np.arange(len(S)), lens)
    # index of each pair inside its row, then shift by the row's start
    offsets = np.arange(len(rows)) - np.repeat(np.cumsum(lens) - lens, lens)
    return rows, indices[np.repeat(starts, lens) + offsets]


def row_masks(rows: np.ndarray, cols: np.ndarray, n_rows: int, n_cols: int) -> list[int]:
    """``masks[r]`` has bit ``c`` set for every (distinct) pair (r, c)."""
    nbytes = (n_cols + 7) // 8
    if n_rows == 0:
        return []
    if nbytes == 0:
        return [0] * n_rows
    # pairs are distinct, so summing the bit values of a byte is an OR
    flat = np.bincount(
        rows * nbytes + (cols >> 3), weights=1 << (cols & 7), minlength=n_rows * nbytes
    ).astype(np.uint8)
    buf = flat.tobytes()
    return [int.from_bytes(buf[i : i + nbytes], "little") for i in range(0, n_rows * nbytes, nbytes)]


def mask_of(idx: np.ndarray) -> int:
    """The bitset with the bits ``idx`` (distinct) set."""
    idx = np.asarray(idx, dtype=np.int64)
    n = int(idx.max()) + 1 if len(idx) else 0
    return row_masks(np.zeros(len(idx), dtype=np.int64), idx, 1, n)[0] if n else 0


def local_masks(G, S: np.ndarray, pos: np.ndarray) -> list[int]:
    """Adjacency of G[S] as bitsets over positions in S.

    ``pos`` is a scratch array of -1s (length n); it is left as found.
    """
    return masks_within(G.indptr, G.indices, S, pos)


def masks_within(indptr: np.ndarray, indices: np.ndarray, S: np.ndarray, pos: np.ndarray) -> list[int]:
    """``local_masks`` on a CSR (all neighbours, or only the later ones for an oriented graph)."""
    pos[S] = np.arange(len(S))
    rows, w = gather(indptr, indices, S)
    cols = pos[w]
    keep = cols >= 0
    masks = row_masks(rows[keep], cols[keep], len(S), len(S))
    pos[S] = -1
    return masks


def bits(mask: int) -> Iterator[int]:
    """Positions of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low
