"""Clique listings on disk: CSR blocks streamed into one ``.npz``, block by block.

    n = write_blocks(mk.maximal_clique_blocks(G), "cliques.npz")   # peak memory: one block
    for sizes, vertices in read_blocks("cliques.npz"): ...

Format (a standard NumPy ``.npz``, deflate level 1): members ``sizes_K``
(uint8, or uint16 when a clique has 256+ vertices) and ``vertices_K`` (int32,
or int64 labels) for blocks K = 0, 1, ..., and ``count`` (total cliques).
Clique i of block K is ``vertices_K[o[i]:o[i + 1]]`` with
``o = concatenate([[0], cumsum(sizes_K)])``. Each block is written as its own
member, so nothing larger than one block is ever held in memory.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np


def _write_npy(z: zipfile.ZipFile, name: str, a: np.ndarray) -> None:
    """``a`` as the .npy member ``name``, written straight into the zip (NumPy writes a file-like object
    in 16 MiB pieces): no whole-array copy beside the block itself."""
    with z.open(name, "w", force_zip64=True) as f:
        np.lib.format.write_array(f, np.ascontiguousarray(a), allow_pickle=False)


def write_blocks(blocks: Iterable[tuple], path, progress=None) -> int:
    """Write CSR blocks ``(offsets, vertices)`` to ``path`` (.npz); returns the number of cliques.

    ``progress`` is called with the number of cliques of each block written (e.g. a tqdm ``update``).
    """
    path = Path(path)
    if path.suffix != ".npz":
        raise ValueError(f"{path}: clique files are .npz")
    count = 0
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1,
                         allowZip64=True) as z:
        for k, block in enumerate(blocks):
            offsets, vertices = block
            del block                          # hold one block at a time, not also the one before
            sizes = np.diff(np.asarray(offsets))
            del offsets
            sizes = sizes.astype(np.uint8 if sizes.max(initial=0) < 256 else np.uint16)
            _write_npy(z, f"sizes_{k}.npy", sizes)
            _write_npy(z, f"vertices_{k}.npy", np.asarray(vertices))
            del vertices
            count += len(sizes)
            if progress:
                progress(len(sizes))
        _write_npy(z, "count.npy", np.array(count, dtype=np.int64))
    return count


def read_blocks(path) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Blocks ``(offsets, vertices)`` of a file written by ``write_blocks``, in order."""
    with np.load(path) as f:
        k = 0
        while f"sizes_{k}" in f.files:
            sizes = f[f"sizes_{k}"]
            offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
            np.cumsum(sizes, out=offsets[1:])
            yield offsets, f[f"vertices_{k}"]
            k += 1
