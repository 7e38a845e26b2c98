"""Clique listings on disk: CSR blocks streamed into one ``.npz``, block by block, deflated on all cores.

    n = write_blocks(mk.maximal_clique_blocks(G), "cliques.npz")   # memory: a few blocks
    for offsets, vertices in read_blocks("cliques.npz"): ...

Format: a standard NumPy ``.npz`` (a zip of ``.npy`` members, deflate level 1,
zip64 records where sizes or offsets pass 4 GiB), read by ``np.load``,
``zipfile`` and ``read_blocks``. Members ``sizes_K`` (uint8; uint16 when a
clique has 256+ vertices, uint32 when one has 65536+) and ``vertices_K`` for blocks K = 0, 1, ..., and
``count`` (int64, total cliques). ``vertices_K`` has the narrowest of uint16,
int32, uint32 that holds every label of block K and is no wider than the
labels given (so blocks of one file may differ; int64 labels past 2^32 stay
int64). Clique i of block K is ``vertices_K[o[i]:o[i + 1]]`` with
``o = concatenate([[0], cumsum(sizes_K)])``.

How it is written (``NpzWriter``): each member's bytes (its .npy header, then
the array) are cut into pieces deflated on a thread pool, each by its own raw
deflate stream ended by a sync flush (the member's last piece by a finish), so
their concatenation is one valid deflate stream (as pigz does); each piece's
CRC-32 is computed beside it and the member's CRC combined in GF(2)
(``crc32_combine``). zlib releases the GIL, so the pool uses every core. The
pieces are written in order as they complete, at most ``2 * threads + 2`` in
flight; the next block is produced (e.g. copied from the GPU) in a thread of
its own while the current one is deflated. Memory: at most three blocks (the
one finishing, the current one, the next one) plus the pieces in flight.
"""

from __future__ import annotations

import io
import struct
import time
import zlib
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path

import numpy as np

from .config import usable_cores

PIECE_BYTES = 4 << 20           # raw bytes a worker deflates at a time
_U32 = 0xFFFFFFFF
_U16 = 0xFFFF
_POLY = 0xEDB88320              # CRC-32 (reflected)
_DEFLATED = 8


# ---- CRC-32 of a concatenation (zlib's crc32_combine, which Python's zlib lacks) ----


def _multmodp(a: int, b: int) -> int:
    """a * b modulo the CRC-32 polynomial (reflected bit order: bit 31 is x^0)."""
    m, p = 1 << 31, 0
    while True:
        if a & m:
            p ^= b
            if not a & (m - 1):
                return p
        m >>= 1
        b = (b >> 1) ^ _POLY if b & 1 else b >> 1


def _x2n_table() -> list[int]:
    p, table = 1 << 30, []      # x^1
    for _ in range(32):
        table.append(p)         # x^(2^k)
        p = _multmodp(p, p)
    return table


_X2N = _x2n_table()
_SHIFT: dict[int, int] = {}     # length in bytes -> x^(8 * length) mod P


def _shift_op(n_bytes: int) -> int:
    op = _SHIFT.get(n_bytes)
    if op is None:
        op, n, k = 1 << 31, n_bytes, 3          # x^(n * 2^3)
        while n:
            if n & 1:
                op = _multmodp(_X2N[k & 31], op)
            n >>= 1
            k += 1
        if len(_SHIFT) < 1024:
            _SHIFT[n_bytes] = op
    return op


def crc32_combine(crc1: int, crc2: int, len2: int) -> int:
    """CRC-32 of ``A + B`` from ``crc1 = crc32(A)``, ``crc2 = crc32(B)`` and ``len2 = len(B)``."""
    if len2 < 0:
        raise ValueError(f"len2 must be >= 0, got {len2}")
    return _multmodp(_shift_op(len2), crc1) ^ crc2 if len2 else crc1


# ---- the zip container ----


def _deflate(parts: tuple, level: int, last: bool) -> tuple[bytes, int, int]:
    """(raw deflate of the parts, CRC-32, bytes in): one piece of a member's stream."""
    c = zlib.compressobj(level, zlib.DEFLATED, -15)
    out, crc, n = [], 0, 0
    for part in parts:
        if isinstance(part, tuple):             # (array slice, dtype): cast here, in the pool
            a, dtype = part
            part = (a if a.dtype == dtype else a.astype(dtype)).view(np.uint8)
        crc = zlib.crc32(part, crc)
        n += len(part)
        out.append(c.compress(part))
    out.append(c.flush(zlib.Z_FINISH if last else zlib.Z_SYNC_FLUSH))
    return b"".join(out), crc, n


def _dos_time(t: float) -> tuple[int, int]:
    y, mo, d, h, mi, s = time.localtime(t)[:6]
    return max(y - 1980, 0) << 9 | mo << 5 | d, h << 11 | mi << 5 | s // 2


class _Member:
    __slots__ = ("name", "offset", "crc", "csize", "usize", "on_done")

    def __init__(self, name: bytes, on_done):
        self.name, self.on_done = name, on_done
        self.offset = self.crc = self.csize = self.usize = 0


class NpzWriter:
    """Write ``.npy`` members into a zip (``.npz``) with ``threads`` deflating in parallel.

        with NpzWriter("x.npz") as w:
            w.add("a", np.arange(10))

    ``force_zip64``: write zip64 fields and end records even when nothing needs them (tests).
    """

    def __init__(self, path, *, threads: int | None = None, level: int = 1, force_zip64: bool = False,
                 piece_bytes: int | None = None):
        threads = usable_cores() if threads is None else threads
        piece_bytes = PIECE_BYTES if piece_bytes is None else piece_bytes
        for name, v, lo in (("threads", threads, 1), ("level", level, 0), ("piece_bytes", piece_bytes, 1)):
            if isinstance(v, bool) or not isinstance(v, int) or v < lo or (name == "level" and v > 9):
                raise ValueError(f"{name} must be an int >= {lo}{' and <= 9' if name == 'level' else ''}, "
                                 f"got {v!r}")
        self.threads, self.level, self.piece_bytes = threads, level, piece_bytes
        self.force_zip64 = force_zip64
        self.pool = ThreadPoolExecutor(threads, thread_name_prefix="mce_kit-deflate")
        self.pending: deque = deque()           # (member, first?, last?, future), in file order
        self.members: list[_Member] = []        # written completely
        self.names: set[str] = set()
        self.date, self.time = _dos_time(time.time())
        self.f = open(path, "wb")               # noqa: SIM115 (closed by close())
        self.closed = False

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        # an interrupt drops the pieces not yet written; an error (e.g. of the blocks' producer) lets
        # them be written first. Either way the file ends with a central directory of what it holds.
        self.close(abort=kind is not None and not issubclass(kind, Exception), failing=kind is not None)

    # -- members --

    def add(self, name: str, a: np.ndarray, dtype=None, on_done=None) -> None:
        """``a`` (cast to ``dtype`` piece by piece in the pool, when given) as member ``name + '.npy'``;
        ``on_done()`` runs once the member is in the file."""
        a = np.asarray(a)
        dtype = np.dtype(a.dtype if dtype is None else dtype)
        if dtype.hasobject or a.dtype.hasobject:
            raise ValueError(f"{name}: object arrays cannot be written")
        if dtype.byteorder == ">":
            dtype = dtype.newbyteorder("<")
        if name in self.names:
            raise ValueError(f"{name}: member written twice")
        self.names.add(name)
        head = io.BytesIO()
        np.lib.format.write_array_header_1_0(head, {"descr": np.lib.format.dtype_to_descr(dtype),
                                                    "fortran_order": False, "shape": a.shape})
        flat = np.ascontiguousarray(a).reshape(-1)
        step = max(1, self.piece_bytes // dtype.itemsize)
        cuts = list(range(0, len(flat), step)) or [0]
        member = _Member(f"{name}.npy".encode(), on_done)
        for i, lo in enumerate(cuts):
            parts = ((flat[lo:lo + step], dtype),)
            if i == 0:
                parts = (head.getvalue(),) + parts
            last = i == len(cuts) - 1
            while len(self.pending) >= 2 * self.threads + 2:
                self._write_next()
            self.pending.append((member, i == 0, last, self.pool.submit(_deflate, parts, self.level, last)))

    def _write_next(self) -> None:
        member, first, last, fut = self.pending.popleft()
        data, crc, n = fut.result()
        if first:
            member.offset = self.f.tell()
            self.f.write(self._local_header(member))
        self.f.write(data)
        member.crc = crc32_combine(member.crc, crc, n)
        member.csize += len(data)
        member.usize += n
        if last:
            end = self.f.tell()                 # the CRC and sizes, now known, into the local header
            self.f.seek(member.offset + 14)
            self.f.write(struct.pack("<L", member.crc))
            self.f.seek(member.offset + 30 + len(member.name) + 4)
            self.f.write(struct.pack("<QQ", member.usize, member.csize))
            self.f.seek(end)
            self.members.append(member)
            if member.on_done:
                member.on_done()

    def _local_header(self, m: _Member) -> bytes:
        # always zip64 (sizes unknown until the end): 0xFFFFFFFF sizes and both 8-byte sizes in the extra
        return (struct.pack("<4s2B4HL2L2H", b"PK\x03\x04", 45, 0, 0, _DEFLATED, self.time, self.date,
                            0, _U32, _U32, len(m.name), 20)
                + m.name + struct.pack("<HHQQ", 1, 16, 0, 0))

    # -- end --

    def close(self, abort: bool = False, failing: bool = False) -> None:
        """Write what is pending, then the central directory. ``abort``: drop what is pending instead.
        ``failing`` (an error is on its way): an error writing what is pending drops the rest."""
        if self.closed:
            return
        self.closed = True
        try:
            if abort:
                for *_, fut in self.pending:
                    fut.cancel()
                self.pending.clear()
            while self.pending:
                try:
                    self._write_next()
                except Exception:
                    if not failing:
                        raise
                    self.pending.clear()
        finally:
            self.pool.shutdown(wait=True, cancel_futures=True)
            try:
                self._central_directory()
            finally:
                self.f.close()

    def _central_directory(self) -> None:
        f, force = self.f, self.force_zip64
        start = f.tell()
        for m in self.members:
            big = [v for v in (m.usize, m.csize, m.offset) if force or v >= _U32]
            extra = struct.pack(f"<HH{len(big)}Q", 1, 8 * len(big), *big) if big else b""
            usize, csize, offset = (_U32 if force or v >= _U32 else v for v in (m.usize, m.csize, m.offset))
            f.write(struct.pack("<4s4B4HL2L5H2L", b"PK\x01\x02", 45, 3, 45, 0, 0, _DEFLATED, self.time,
                                self.date, m.crc, csize, usize, len(m.name), len(extra), 0, 0, 0,
                                0o600 << 16, offset))
            f.write(m.name + extra)
        end = f.tell()
        count, size = len(self.members), end - start
        if force or count >= _U16 or size >= _U32 or start >= _U32:
            f.write(struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, size, start))
            f.write(struct.pack("<4sLQL", b"PK\x06\x07", 0, end, 1))
        f.write(struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, min(count, _U16), min(count, _U16),
                            min(size, _U32), min(start, _U32), 0))


# ---- clique blocks ----


def _label_dtype(v: np.ndarray, pool: ThreadPoolExecutor, piece: int) -> np.dtype:
    """The narrowest of uint16, int32, uint32 holding every value of ``v`` (min and max taken in the
    pool, piece by piece), never wider than ``v``'s dtype; else ``v``'s dtype."""
    if v.dtype.kind not in "iu":
        return v.dtype
    spans = [v[i:i + piece] for i in range(0, len(v), piece)]
    ends = list(pool.map(lambda a: (int(a.min()), int(a.max())), spans)) or [(0, 0)]
    lo, hi = min(e[0] for e in ends), max(e[1] for e in ends)
    for t in (np.uint16, np.int32, np.uint32):
        info = np.iinfo(t)
        if info.min <= lo and hi <= info.max and np.dtype(t).itemsize <= v.dtype.itemsize:
            return np.dtype(t)
    return v.dtype


def _prepared(blocks: Iterable[tuple], pool: ThreadPoolExecutor, piece: int) -> Iterator[tuple]:
    """(sizes, vertices, dtype to store them in) of each block (``_label_dtype``)."""
    for k, block in enumerate(blocks):
        offsets, vertices = block
        del block                               # hold the block through its arrays only
        sizes = np.diff(np.asarray(offsets))
        del offsets
        top = int(sizes.max(initial=0))
        sizes = sizes.astype(np.uint8 if top < 1 << 8 else np.uint16 if top < 1 << 16 else np.uint32)
        vertices = np.ascontiguousarray(vertices).reshape(-1)
        if len(vertices) != int(sizes.sum(dtype=np.int64)):
            raise ValueError(f"block {k}: its offsets end at {int(sizes.sum(dtype=np.int64))}, "
                             f"but it has {len(vertices)} vertices")
        yield sizes, vertices, _label_dtype(vertices, pool, piece)


def _one_ahead(items: Iterator) -> Iterator:
    """The items of ``items``, each next one produced in a thread of its own meanwhile."""
    end = object()
    with ThreadPoolExecutor(1, thread_name_prefix="mce_kit-blocks") as ex:
        fut = ex.submit(next, items, end)
        try:
            while (item := fut.result()) is not end:
                fut = ex.submit(next, items, end)
                yield item
                del item
        finally:
            if not fut.cancel():
                try:
                    fut.result()
                except BaseException:           # noqa: BLE001, S110 (an error already on its way wins)
                    pass
            items.close()


def write_blocks(blocks: Iterable[tuple], path, progress=None, *, threads: int | None = None,
                 force_zip64: bool = False) -> int:
    """Write CSR blocks ``(offsets, vertices)`` to ``path`` (.npz); returns the number of cliques.

    ``progress`` is called with the number of cliques of each block once it is in the file
    (e.g. a tqdm ``update``). ``threads``: deflating threads (default: the cores this process may
    use). ``force_zip64``: zip64 fields even where nothing needs them (tests). On an error or an
    interrupt the file keeps the blocks handed in before it (an interrupt: those already deflated),
    readable, without ``count``.
    """
    path = Path(path)
    if path.suffix != ".npz":
        raise ValueError(f"{path}: clique files are .npz")
    count = 0
    with NpzWriter(path, threads=threads, force_zip64=force_zip64) as w, \
            ThreadPoolExecutor(w.threads, thread_name_prefix="mce_kit-scan") as scan, \
            closing(_one_ahead(_prepared(blocks, scan, w.piece_bytes))) as items:
        # the next block is produced and scanned (min, max) while the pool deflates the current one
        for k, (sizes, vertices, dtype) in enumerate(items):
            n = len(sizes)
            w.add(f"sizes_{k}", sizes)
            w.add(f"vertices_{k}", vertices, dtype, on_done=(lambda n=n: progress(n)) if progress else None)
            del sizes, vertices
            count += n
        w.add("count", np.array(count, dtype=np.int64))
    return count


def read_blocks(path) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Blocks ``(offsets, vertices)`` of a file written by ``write_blocks``, in order (``vertices`` in the
    dtype stored: see the module's docstring)."""
    with np.load(path) as f:
        k = 0
        while f"sizes_{k}" in f.files and f"vertices_{k}" in f.files:   # (an interrupted file)
            sizes = f[f"sizes_{k}"]
            offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
            np.cumsum(sizes, out=offsets[1:])
            yield offsets, f[f"vertices_{k}"]
            k += 1
