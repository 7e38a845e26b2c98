"""Load graphs from files and in-memory objects into the canonical CSR types.

``load_graph`` reads (gzip is detected from the file's magic bytes):

* ``"snap"`` / ``"edgelist"``: one edge ``u v`` per line, ``#`` or ``%``
  comment lines; a third column (a weight) is allowed and ignored, but every
  line must have as many columns as the first edge line.
* ``"konect"``: KONECT ``out.*`` files, ``%`` comments, 2 to 4 columns (ids,
  weight, timestamp). A ``% bip`` header makes a bipartite file: its two
  columns are kept apart (right-side labels are offset by the largest left id).
* ``"mtx"``: MatrixMarket coordinate files; ``symmetric`` ones store one
  triangle. All N vertices are kept, labels 1..N.
* ``"dimacs"``: ``c`` comments, one ``p edge N M`` line, ``e u v`` edges.
  All N vertices are kept, labels 1..N. The p line's edge count is ignored.

Edge-list ids are compacted to 0..n-1 in sorted order of the original ids,
which become ``G.labels``. Also accepted: a networkx graph (node labels kept)
and a square SciPy sparse or NumPy array (its nonzero pattern).

Text is read with NumPy over whole-file arrays, no Python loop per line: the
file is cut at line ends into pieces scanned on threads, and each id of up to
eight digits is read as one 64-bit word (R-MAT scale 22, 64 M edge lines, 1 GB:
18 s on two cores, building the graph included; 91 s before). Every error
names the file and, when there is one, the line. ``write_edge_list`` writes
big edge lists as text just as fast.
"""

from __future__ import annotations

import dataclasses
import gzip
import os
import sys
import time
import warnings
import zlib
from pathlib import Path

import numpy as np

from .config import usable_cores, write_text_atomic
from .graph import BipartiteGraph, CleaningReport, Graph, _unique

GRAPH_FORMATS = ("snap", "edgelist", "konect", "mtx", "dimacs")
BIPARTITE_FORMATS = ("konect", "oombe", "edgelist", "gmbe", "offset", "mtx")


class GraphFormatError(ValueError):
    """A graph file that cannot be read; ``path`` and 1-based ``line`` (or None) say where."""

    def __init__(self, path, line: int | None, msg: str):
        super().__init__(path, line, msg)
        self.path, self.line, self.msg = path, line, msg

    def __str__(self) -> str:
        where = str(self.path) if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.msg}"


# --------------------------------------------------------------------------- text scanning


STAGES: dict = {}  # seconds of the last text file's stages: read_s, scan_s (tokens), parse_s (ids)
_PIECE = 1 << 25  # bytes of text scanned per work item of _Text
_PARSE_BLOCK = 1 << 17  # lines parsed per work item of _Text.table


def _pmap(fn, items, threads: int | None = None) -> list:
    """``[fn(x) for x in items]`` on ``threads`` threads (default: the usable cores); NumPy
    releases the GIL inside its loops, so array work on separate pieces runs side by side."""
    items = list(items)
    threads = min(threads or usable_cores(), len(items))
    if threads <= 1:
        return [fn(x) for x in items]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(threads) as ex:
        return list(ex.map(fn, items))


def _scan(b: np.ndarray) -> dict:
    """A piece of text cut into tokens: ``start``, ``stop`` (offsets in the piece) and, per line,
    ``count`` (tokens), ``first`` (index of its first token), ``lead`` (that token's first byte,
    0 on a blank line) and ``lead_len`` (its length). The lines are the runs between newlines, the
    last one after the last newline (empty when the piece ends with one). Offsets and counts are
    int32 in pieces under 2 GiB (half the memory while the pieces wait to be placed)."""
    it = np.int32 if len(b) < 2**31 else np.int64
    word = np.zeros(len(b) + 2, bool)  # word[i + 1]: byte i is inside a token (above ' ')
    np.greater(b, 32, out=word[1:-1])
    edge = np.flatnonzero(word[1:] != word[:-1]).astype(it, copy=False)  # a start, its stop, a start...
    del word
    start, stop = edge[0::2], edge[1::2]
    lines = int(np.count_nonzero(b == 10)) + 1
    if len(start) == 0:
        count = np.zeros(lines, it)
    else:
        # a token's line: the newlines in the gaps before it, summed. Most gaps are one byte (a tab,
        # a space or a newline) or two (CRLF); longer ones (blank lines, runs of blanks) use a binary
        # search
        gap = stop[:-1]  # gap i lies between token i and token i + 1
        step = np.zeros(len(start), it)
        step[1:] = b[gap] == 10
        width = start[1:] - gap
        two = np.flatnonzero(width == 2)
        step[two + 1] += b[gap[two] + 1] == 10
        long = np.flatnonzero(width > 2)
        if len(long) or start[0] > 0:
            at = np.flatnonzero(b == 10)
            step[0] = np.searchsorted(at, start[0])
            step[long + 1] = np.searchsorted(at, start[long + 1]) - np.searchsorted(at, gap[long])
        count = np.bincount(np.cumsum(step, out=step), minlength=lines).astype(it)
        del step
    first = np.cumsum(count, dtype=it) - count
    has = np.flatnonzero(count)
    lead = np.zeros(lines, np.uint8)
    lead_len = np.zeros(lines, it)
    if len(has):
        head = first[has]
        lead[has] = b[start[head]]
        lead_len[has] = stop[head] - start[head]
    return dict(start=start, stop=stop, count=count, first=first, lead=lead, lead_len=lead_len)


class _Text:
    """A text file cut into whitespace-separated tokens, all at once with NumPy.

    Files longer than ``piece`` bytes are cut after newlines into pieces scanned on ``threads``
    threads (default: the usable cores)."""

    def __init__(self, data: bytes, path, piece: int | None = None, threads: int | None = None):
        self.data, self.path, self.threads = data, path, threads
        piece = piece or _PIECE
        b = self.b = np.frombuffer(data, np.uint8)
        cuts = [0]
        while cuts[-1] + piece < len(b) and (nl := data.find(b"\n", cuts[-1] + piece)) >= 0:
            cuts.append(nl + 1)
        cuts.append(len(b))
        parts = _pmap(lambda ab: _scan(b[ab[0] : ab[1]]), zip(cuts[:-1], cuts[1:], strict=True), threads)
        if len(parts) == 1:
            for name, x in parts[0].items():
                setattr(self, name, x)
            return
        # a piece ends with a newline: its last line is empty and the next piece starts a line
        tokens = np.concatenate([[0], np.cumsum([len(p["start"]) for p in parts])])
        lines = np.concatenate([[0], np.cumsum([len(p["count"]) - 1 for p in parts])])
        lines[-1] += 1  # the last piece's last line is the file's
        for name in ("start", "stop", "count", "first", "lead", "lead_len"):
            size = tokens[-1] if name in ("start", "stop") else lines[-1]
            setattr(self, name, np.empty(size, np.uint8 if name == "lead" else np.int64))

        def place(i):  # piece i's arrays at the whole file's tokens, lines and offsets
            p, t, ln = parts[i], slice(tokens[i], tokens[i + 1]), slice(lines[i], lines[i + 1])
            np.add(p["start"], np.int64(cuts[i]), out=self.start[t])  # int64: past 2 GiB of text
            np.add(p["stop"], np.int64(cuts[i]), out=self.stop[t])
            k = ln.stop - ln.start
            self.count[ln] = p["count"][:k]
            np.add(p["first"][:k], np.int64(tokens[i]), out=self.first[ln])
            self.lead[ln] = p["lead"][:k]
            self.lead_len[ln] = p["lead_len"][:k]
            parts[i] = None

        _pmap(place, range(len(parts)), threads)

    def tokens(self, i: int) -> list[str]:
        """The tokens of line ``i`` (0-based)."""
        k = range(self.first[i], self.first[i] + self.count[i])
        return [self.data[self.start[j] : self.stop[j]].decode(errors="replace") for j in k]

    def ints(self, i: int, k: int, form: str) -> list[int]:
        """Line ``i`` read as ``k`` non-negative integers (a header line)."""
        words = self.tokens(i)
        if len(words) != k or not all(w.isdigit() for w in words):
            raise self.error(i, f"expected {form!r}")
        return [int(w) for w in words]

    def error(self, i: int | None, msg: str) -> GraphFormatError:
        return GraphFormatError(self.path, None if i is None else int(i) + 1, msg)

    def lines_with(self, chars: str) -> np.ndarray:
        return np.isin(self.lead, np.frombuffer(chars.encode(), np.uint8))

    def table(self, keep: np.ndarray, ncols=(2,), skip_first=False):
        """The two integer ids on each non-blank line where ``keep`` is set.

        Every such line must have the same number of columns, one of ``ncols``
        (after dropping its first token if ``skip_first``); columns after the
        second are ignored. Returns an (k, 2) int64 array and each row's line.
        """
        t0 = time.perf_counter()
        lines = np.flatnonzero(keep & (self.count > 0))
        if len(lines) == 0:
            return np.empty((0, 2), np.int64), lines
        k = self.count[lines[0]] - skip_first
        if k not in ncols:
            raise self.error(lines[0], f"expected {_columns(ncols)}, got {k}")
        vals = np.empty(2 * len(lines), np.int64)

        def parse(r):  # lines r..r + block: their column counts, their first two tokens' ids
            ln = lines[r : r + block]
            if (self.count[ln] != k + skip_first).any():
                return "columns"
            tok = (self.first[ln, None] + skip_first + np.arange(2)).ravel()
            s, e = self.start[tok], self.stop[tok]
            got = _integers(self.data, self.b, s, e, out=vals[2 * r : 2 * r + len(tok)])
            return "ids" if got is None else "ok"

        block = _PARSE_BLOCK
        done = set(_pmap(parse, range(0, len(lines), block), self.threads))
        if "columns" in done:  # name the first line with another number of columns
            cols = self.count[lines] - skip_first
            i = np.argmax(cols != k)
            raise self.error(lines[i], f"expected {_columns((k,))}, got {cols[i]}")
        if "ids" in done:  # a token that is no integer of at most 18 digits: find it, name its line
            tok = (self.first[lines, None] + skip_first + np.arange(2)).ravel()
            s, e = self.start[tok], self.stop[tok]
            self._check_integers(s, e, lines)
            vals = np.fromstring(self._only(s, e)[0].tobytes(), np.int64, sep=" ")
        rows = vals.reshape(-1, 2)
        STAGES["parse_s"] = STAGES.get("parse_s", 0.0) + time.perf_counter() - t0
        if (rows < 0).any():
            i = np.argmax((rows < 0).any(axis=1))
            raise self.error(lines[i], f"negative vertex id {rows[i].min()}")
        return rows, lines

    def _only(self, s, e) -> tuple:
        """The bytes of the tokens ``s:e``, every other byte blanked, and a mask of the kept bytes."""
        d = np.zeros(len(self.b) + 1, np.int8)
        d[s], d[e] = 1, -1
        inside = np.cumsum(d[:-1], dtype=np.int8).view(bool)
        return np.where(inside, self.b, 32).astype(np.uint8), inside

    def _check_integers(self, s, e, lines) -> None:
        """Raise naming the first token of ``s:e`` that is not an integer, else the first too long."""
        _, inside = self._only(s, e)
        sign = (self.b[s] == ord("-")) | (self.b[s] == ord("+"))
        bad = inside & ((self.b < ord("0")) | (self.b > ord("9")))
        bad[s[sign & (e - s > 1)]] = False
        long = e - s - sign > 18
        if bad.any() or long.any():
            j = np.searchsorted(s, np.argmax(bad), "right") - 1 if bad.any() else np.argmax(long)
            word = self.data[s[j] : e[j]].decode(errors="replace")
            msg = f"{word!r} is not an integer" if bad.any() else f"id {word} is too large"
            raise self.error(lines[j // 2], msg)


_U8 = [np.uint64(x) for x in (0x3030303030303030, 0xF0F0F0F0F0F0F0F0, 0x0606060606060606,
                              0x3333333333333333, 0x000000FF000000FF, 0x000F424000000064,
                              0x0000271000000001, 10, 8, 16, 32, 4)]


def _integers(data: bytes, b: np.ndarray, s: np.ndarray, e: np.ndarray, block: int = 1 << 18, out=None):
    """The tokens ``data[s[i]:e[i]]`` as int64 (in ``out`` if given), or None if one is not an
    integer (digits after an optional sign) of at most 18 digits.

    Tokens of 1 to 8 digits (every vertex id below 10**8) are read eight bytes at a time, as one
    little-endian 64-bit word each, and turned into numbers with a few word operations (the
    "eight digits at once" trick: checks that all eight bytes are digits, then pairs, quads,
    the whole); the others (signs, longer ids, tokens near the end of the file) digit by digit.
    Works on blocks of ``block`` tokens so that the temporaries stay in the cache."""
    zero, hi, six, threes, mask, mul1, mul2, ten, b8, b16, b32, b4 = _U8
    n = len(b)
    out = np.empty(len(s), np.int64) if out is None else out
    if n >= 8:
        words = np.ndarray((n - 7,), "<u8", data, 0, (1,))  # words[i]: bytes i..i+7, unaligned
    rest = []
    for a in range(0, len(s), block):
        ss, ee = s[a : a + block], e[a : a + block]
        k = (ee - ss).astype(np.uint64)
        every = n >= 8 and k.max() <= 8 and ss.max() + 8 <= n
        if not every:
            fast = (k <= 8) & (ss + 8 <= n) if n >= 8 else np.zeros(len(ss), bool)
        w = words[ss if every else ss[fast]] if n >= 8 else np.zeros(0, np.uint64)
        kf = k if every else k[fast]
        w <<= b8 * (b8 - kf)  # the token's bytes at the top of the word, the padding shifted out
        w |= (zero >> (b8 * kf - np.uint64(1))) >> np.uint64(1)  # and '0's in front of it
        ok = (w & hi) | (((w + six) & hi) >> b4) == threes  # every byte in '0'..'9'
        w -= zero
        w = w * ten + (w >> b8)
        w = ((w & mask) * mul1 + ((w >> b16) & mask) * mul2) >> b32
        if every and ok.all():
            out[a : a + len(ss)] = w.view(np.int64)
            continue
        idx = np.arange(len(ss)) if every else np.flatnonzero(fast)
        out[a + idx[ok]] = w[ok].view(np.int64)
        rest.append(a + (idx[~ok] if every else np.concatenate([idx[~ok], np.flatnonzero(~fast)])))
    rest = np.concatenate(rest) if rest else np.zeros(0, np.int64)
    if len(rest):
        vals = _integers_slow(b, s[rest], e[rest])
        if vals is None:
            return None
        out[rest] = vals
    return out


def _integers_slow(b, s, e):
    """``_integers`` digit by digit: one pass per digit position."""
    k = e - s
    sign = ((b[s] == ord("-")) | (b[s] == ord("+"))) & (k > 1)
    digits = k - sign
    if digits.max(initial=0) > 18:
        return None
    val = np.zeros(len(s), np.int64)
    for p in range(int(digits.max(initial=0))):
        live = digits > p
        d = b[np.where(live, s + sign + p, 0)].astype(np.int64) - 48
        if (live & ((d < 0) | (d > 9))).any():
            return None
        val = np.where(live, val * 10 + d, val)
    return np.where(sign & (b[s] == ord("-")), -val, val)


def _columns(ncols) -> str:
    if ncols == (2,):
        return "2 integer columns"
    return (
        " or ".join(map(str, ncols)) + " columns" if len(ncols) < 3 else f"{ncols[0]} to {ncols[-1]} columns"
    )


def _read(path) -> bytes:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise GraphFormatError(path, None, e.strerror or str(e)) from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as e:
            raise GraphFormatError(path, None, f"corrupt gzip data ({e})") from None
    return data


def _stem(path) -> str:
    name = Path(path).name.removesuffix(".gz")
    if name.startswith("out."):
        return name[4:]
    return name.rsplit(".", 1)[0] if "." in name else name


def _sniff(path, txt: _Text) -> str:
    name = Path(path).name.lower().removesuffix(".gz")
    if name.endswith(".mtx"):
        return "mtx"
    if name.endswith((".clq", ".col", ".dimacs")):
        return "dimacs"
    if name.startswith("out."):
        return "konect"
    used = np.flatnonzero(txt.count)
    head = txt.tokens(used[0]) if len(used) else [""]
    if head[0].lower() == "%%matrixmarket":
        return "mtx"
    if head[0] in ("c", "p"):
        return "dimacs"
    return "konect" if head[0].startswith("%") else "snap"


def _no_edges(txt: _Text, rows) -> None:
    if len(rows) == 0:
        raise txt.error(None, "no edges found")


# --------------------------------------------------------------------------- formats


def _edge_list(txt: _Text, ncols, skip_line=None):
    keep = ~txt.lines_with("#%")
    if skip_line is not None:
        keep[skip_line] = False
    rows, lines = txt.table(keep, ncols)
    _no_edges(txt, rows)
    return rows, lines


def _konect_is_bipartite(txt: _Text) -> bool:
    if txt.lead[0] != ord("%"):
        return False
    head = txt.tokens(0)
    word = head[0][1:] or (head[1:] or [""])[0]
    return word.lower() == "bip"


def _dimacs(txt: _Text):
    """(N, edges (k, 2) 0-based) of a DIMACS file, with every id checked against N."""
    edge = (txt.lead == ord("e")) & (txt.lead_len == 1)
    p = np.flatnonzero(txt.lead == ord("p"))
    other = ~(edge | txt.lines_with("cp") | (txt.count == 0))
    if other.any():
        raise txt.error(np.argmax(other), "expected a 'c', 'p' or 'e' line")
    e = np.flatnonzero(edge)
    if len(p) == 0:
        raise txt.error(None, "no 'p edge N M' line")
    if len(p) > 1:
        raise txt.error(p[1], "second 'p' line")
    if len(e) and e[0] < p[0]:
        raise txt.error(e[0], "edge line before the 'p' line")
    head = txt.tokens(p[0])
    if len(head) != 4 or head[0] != "p" or not head[2].isdigit():
        raise txt.error(p[0], "expected 'p edge N M'")
    n = int(head[2])
    rows, lines = txt.table(edge, (2,), skip_first=True)
    _no_edges(txt, rows)
    out = ((rows < 1) | (rows > n)).any(axis=1)
    if out.any():
        i = np.argmax(out)
        raise txt.error(lines[i], f"vertex id outside 1..{n} (the p line says {n} vertices)")
    return n, rows - 1


_MTX_COLUMNS = {"pattern": 2, "integer": 3, "real": 3, "complex": 4}


def _mtx(txt: _Text):
    """(n_rows, n_cols, entries (k, 2) 0-based, symmetric) of a MatrixMarket file."""
    banner = [w.lower() for w in txt.tokens(0)] if txt.count[0] else []
    if len(banner) != 5 or banner[:2] != ["%%matrixmarket", "matrix"]:
        raise txt.error(0, "expected '%%MatrixMarket matrix coordinate <field> <symmetry>'")
    _, _, layout, field, symmetry = banner
    if layout != "coordinate":
        raise txt.error(0, f"'{layout}' MatrixMarket files hold no graph; expected 'coordinate'")
    if field not in _MTX_COLUMNS or symmetry not in ("general", "symmetric", "skew-symmetric", "hermitian"):
        raise txt.error(0, f"unknown field or symmetry '{field} {symmetry}'")
    data = np.flatnonzero(~txt.lines_with("%") & (txt.count > 0))
    if len(data) == 0:
        raise txt.error(None, "no size line")
    n_rows, n_cols, nnz = txt.ints(data[0], 3, "rows columns entries")
    body = ~txt.lines_with("%")
    body[data[0]] = False
    rows, lines = txt.table(body, (_MTX_COLUMNS[field],))
    if len(rows) != nnz:
        raise txt.error(data[0], f"size line says {nnz} entries, the file has {len(rows)}")
    _no_edges(txt, rows)
    out = (rows[:, 0] < 1) | (rows[:, 0] > n_rows) | (rows[:, 1] < 1) | (rows[:, 1] > n_cols)
    if out.any():
        i = np.argmax(out)
        raise txt.error(lines[i], f"entry ({rows[i, 0]}, {rows[i, 1]}) outside the {n_rows}x{n_cols} matrix")
    return n_rows, n_cols, rows - 1, symmetry != "general", data[0]


# --------------------------------------------------------------------------- building


def _report(n: int, u, v, mode: str, pairs: int | None = None) -> CleaningReport:
    """Count what building a simple undirected graph changes.

    ``mode``: "undirected" (each edge once; a reverse copy is a duplicate),
    "directed" (arcs), or "auto": arcs if the input holds any reciprocal
    pair, else an undirected list. ``pairs``: the number of distinct pairs
    without self-loops when known (the built graph's ``m``), else counted here.
    """
    loop = u == v
    loops = int(np.count_nonzero(loop))
    if loops:
        u, v = u[~loop], v[~loop]
    del loop
    if pairs is None:
        pairs = _distinct(_keys(u, v, lambda a, b: np.minimum(a, b) * n + np.maximum(a, b)))
    if mode == "undirected":
        return CleaningReport(loops, len(u) - pairs, 0)
    arcs = _distinct(_keys(u, v, lambda a, b: a * n + b))
    # each pair is one arc or two: arcs = pairs + two-way pairs, so one-way arcs = 2 pairs - arcs
    one_way = 2 * pairs - arcs
    if mode == "auto" and arcs == pairs:  # no reciprocal pair: an undirected list
        one_way = 0
    return CleaningReport(loops, len(u) - arcs, one_way)


def _keys(u, v, fn) -> np.ndarray:
    """``fn(u, v)`` (int64 keys) computed in blocks on threads."""
    key = np.empty(len(u), np.int64)

    def fill(s):
        key[s] = fn(u[s], v[s])

    _pmap(fill, _blocks(len(u)))
    return key


def _distinct(key: np.ndarray) -> int:
    """The number of distinct values of ``key``: one pass when it is already sorted (edge lists
    often are), else a sort (``_unique``: on the GPU for long arrays when there is one)."""
    if len(key) < 2:
        return len(key)
    steps = _pmap(lambda s: np.diff(key[s.start : s.stop + 1]), _blocks(len(key) - 1))
    if all((d >= 0).all() for d in steps):
        return 1 + sum(int(np.count_nonzero(d)) for d in steps)
    return len(_unique(key))


def _warn(message: str) -> None:
    """A warning pointing at the first line outside this module (the user's call)."""
    level, frame = 2, sys._getframe(1)
    while frame is not None and frame.f_code.co_filename == __file__:
        level, frame = level + 1, frame.f_back
    warnings.warn(message, stacklevel=level)


# ---- the graph cache: a file read once, its graph kept as arrays ----

GRAPH_CACHE_VERSION = 1   # bump when a loader's output for the same file changes


def graph_cache_dir() -> Path | None:
    """Where files' graphs are kept: $MCE_KIT_GRAPH_CACHE ("" or "0": nowhere, nothing kept), else
    ~/.cache/mce_kit/graphs. An entry is keyed by a hash of the file's bytes and the loader's
    arguments, so an edited file is read again (a modification time can repeat within a tick). The
    hash is remembered by the file's stat once the file has settled (``_file_digest``)."""
    env = os.environ.get("MCE_KIT_GRAPH_CACHE")
    if env is not None:
        return Path(env) if env not in ("", "0") else None
    return Path.home() / ".cache" / "mce_kit" / "graphs"


def graph_cache_bytes() -> int:
    """The most the graph cache keeps on disk ($MCE_KIT_GRAPH_CACHE_BYTES, default 4 GiB); the
    entries used longest ago go first, and a graph larger than this is not kept."""
    return int(os.environ.get("MCE_KIT_GRAPH_CACHE_BYTES", 4 << 30))


def _cached(kind: str, source, fmt, name, cache: bool | None, load):
    """``load()``'s graph of the file ``source``, from the cache when it holds it (the same warning
    as a first read gives), else loaded and kept there. A cache entry that cannot be read, or a
    cache that cannot be written, is passed by: the file is read."""
    import hashlib

    root = graph_cache_dir() if cache is not False else None
    if root is None:   # no cache: the file is not hashed either
        return load()
    try:
        digest = _file_digest(source, root)
    except OSError:
        return load()   # _read names the file in its error
    key = (GRAPH_CACHE_VERSION, kind, digest, fmt, _stem(source) if name is None else name)
    path = root / (hashlib.sha1(repr(key).encode()).hexdigest() + ".npz")
    G = _cache_read(path, Graph if kind == "graph" else BipartiteGraph)
    if G is not None:
        if G.report.self_loops or G.report.symmetrized:
            _warn(f"{G.name or 'graph'}: {G.report}")
        return G
    G = load()
    _cache_write(path, G)
    return G


SETTLED_NS = 2_000_000_000   # a stat older than this when seen stands for the file's bytes
DIGEST_MEMOS = 4096           # remembered hashes kept; the oldest half goes past it


def _file_digest(source, root: Path) -> str:
    """blake2b of the file's bytes (streamed, ~1 GB/s), remembered under ``root/digests`` by the
    file's path and stat (device, inode, size, modification and change times), so a later process
    skips the hashing. As git's racy-clean rule: a hash is remembered only when the file was last
    changed SETTLED_NS before its stat was taken, so a file changed again within a clock tick of
    being hashed never matches a remembered stat."""
    import hashlib

    st = os.stat(source)
    ident = repr((os.path.abspath(source), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    memo = root / "digests" / (hashlib.sha1(ident.encode()).hexdigest() + ".txt")
    try:
        digest = memo.read_text()
        if len(digest) == 40:
            return digest
    except OSError:
        pass
    with open(source, "rb") as f:
        digest = hashlib.file_digest(f, lambda: hashlib.blake2b(digest_size=20)).hexdigest()
    if time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) > SETTLED_NS:
        try:
            write_text_atomic(memo, digest)
            memos = list(memo.parent.glob("*.txt"))
            if len(memos) > DIGEST_MEMOS:
                for old in sorted(memos, key=lambda p: p.stat().st_mtime)[: len(memos) // 2]:
                    old.unlink(missing_ok=True)
        except OSError:   # nowhere to keep it: hashed again next time
            pass
    return digest


def _cache_read(path: Path, cls):
    import json

    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            arrays = {k: z[k] for k in z.files if k != "meta"}
        G = cls(**arrays, **{k: v for k, v in meta.items() if k != "report"},
                report=CleaningReport(**meta["report"]))
        os.utime(path)   # used now: the last to go when the cache is pruned
        return G
    except Exception:   # missing, half written by another thread, from another version: read the file
        return None


def _cache_write(path: Path, G) -> None:
    import json
    import threading

    arrays = {f.name: getattr(G, f.name) for f in dataclasses.fields(G)
              if isinstance(getattr(G, f.name), np.ndarray)}
    too_big = sum(a.nbytes for a in arrays.values()) > graph_cache_bytes()
    if too_big or any(a.dtype.hasobject for a in arrays.values()):   # object arrays would need pickle
        return
    meta = {f.name: getattr(G, f.name) for f in dataclasses.fields(G)
            if f.name not in arrays and f.name != "report" and getattr(G, f.name) is not None}
    meta["report"] = dataclasses.asdict(G.report)
    tmp = path.with_name(f"{path.stem}.{os.getpid()}.{threading.get_ident()}.tmp.npz")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(tmp, meta=np.array(json.dumps(meta)), **arrays)
        os.replace(tmp, path)
        _cache_prune(path.parent, graph_cache_bytes())
    except OSError:   # a read-only or full disk: the graph stands, not kept
        tmp.unlink(missing_ok=True)


def _cache_prune(root: Path, budget: int) -> None:
    """Remove the entries used longest ago until the cache holds at most ``budget`` bytes."""
    entries = []
    for entry in root.glob("*.npz"):
        try:
            st = entry.stat()
        except OSError:   # removed by another process meanwhile
            continue
        entries.append((st.st_mtime, st.st_size, entry))
    total = sum(size for _, size, _ in entries)
    for _, size, entry in sorted(entries, key=lambda e: e[0]):
        if total <= budget:
            break
        entry.unlink(missing_ok=True)
        total -= size


def _build(n, u, v, mode, labels, name) -> Graph:
    u, v = np.asarray(u, np.int64), np.asarray(v, np.int64)
    G = Graph.from_edges(n, u, v, labels=labels, name=name)
    report = _report(n, u, v, mode, pairs=G.m)  # the graph's edges are the distinct pairs
    if report.self_loops or report.symmetrized:
        _warn(f"{name or 'graph'}: {report}")
    return dataclasses.replace(G, report=report)


def _blocks(n: int, size: int = 1 << 22) -> list[slice]:
    return [slice(a, a + size) for a in range(0, n, size)]


def _compact(ids):
    """Sorted distinct ids and each id's index among them (a lookup table, filled and read in
    blocks on threads, when the ids are dense enough)."""
    top = int(ids.max()) if ids.size else 0
    if ids.size and top < 8 * ids.size:
        flat = ids.reshape(-1)
        seen = np.zeros(top + 1, bool)

        def mark(s):
            seen[flat[s]] = True

        _pmap(mark, _blocks(len(flat)))
        index = np.cumsum(seen, dtype=np.int32 if top < 2**31 else np.int64)
        index -= 1
        out = np.empty(flat.shape, np.int64)

        def look(s):
            out[s] = index[flat[s]]

        _pmap(look, _blocks(len(flat)))
        return np.flatnonzero(seen), out.reshape(ids.shape)
    labels, inv = np.unique(ids.ravel(), return_inverse=True)
    return labels, inv.reshape(ids.shape)


def _label_array(nodes: list) -> np.ndarray:
    """Node labels as an int or str array when they all are ints or all strs, else as objects."""
    if all(isinstance(x, int | np.integer) for x in nodes):
        return np.array(nodes, np.int64)
    if all(isinstance(x, str) for x in nodes):
        return np.array(nodes, str)
    return np.fromiter(nodes, dtype=object, count=len(nodes))


def _is_networkx(obj) -> bool:
    return type(obj).__module__.startswith("networkx")


def _as_sparse(obj):
    if isinstance(obj, str | bytes | Path) or not (
            isinstance(obj, np.ndarray) or type(obj).__module__.startswith("scipy")):
        return None  # a file: no SciPy import (half a second of a fresh `mce-kit count` process)
    import scipy.sparse as sp

    if sp.issparse(obj) or (isinstance(obj, np.ndarray) and obj.ndim == 2):
        A = sp.csr_array(obj)
        A.eliminate_zeros()
        return A
    return None


def _check_fmt(fmt, allowed):
    if fmt is not None and fmt not in allowed:
        raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(allowed)}")


# --------------------------------------------------------------------------- public API


def load_graph(source, fmt: str | None = None, *, name: str | None = None,
               cache: bool | None = None) -> Graph:
    """Load a simple undirected graph from a file, a networkx graph or a square sparse matrix.

    ``fmt`` is one of "snap", "edgelist", "konect", "mtx", "dimacs"; ``None``
    guesses from the file name and first line. Self-loops are dropped,
    duplicates merged and directed arcs symmetrized (``G.report`` counts them;
    a warning is issued when loops were dropped or arcs symmetrized).
    Raises ``GraphFormatError`` naming the file and line on bad input.
    A file's graph is kept in the graph cache (``graph_cache_dir``; ``cache=False``: read the text).
    """
    _check_fmt(fmt, GRAPH_FORMATS)
    if _is_networkx(source):
        nodes = list(source.nodes)
        index = {x: i for i, x in enumerate(nodes)}
        e = np.array([(index[a], index[b]) for a, b, *_ in source.edges], np.int64).reshape(-1, 2)
        mode = "directed" if source.is_directed() else "undirected"
        name = source.name if name is None else name
        return _build(len(nodes), e[:, 0], e[:, 1], mode, _label_array(nodes), name or "")
    A = _as_sparse(source)
    if A is not None:
        if A.shape[0] != A.shape[1]:
            raise ValueError(f"adjacency matrix must be square, got shape {A.shape}")
        u, v = A.nonzero()
        return _build(A.shape[0], u, v, "auto", None, name or "")
    if not isinstance(source, str | os.PathLike):
        raise TypeError(f"cannot load a graph from {type(source).__name__}")
    return _cached("graph", source, fmt, name, cache, lambda: _load_graph_file(source, fmt, name))


def _load_graph_file(source, fmt, name) -> Graph:
    t0 = time.perf_counter()
    data = _read(source)
    t1 = time.perf_counter()
    txt = _Text(data, source)
    del data  # txt holds it; the text and its token arrays are dropped before the graph is built
    STAGES.update(read_s=t1 - t0, scan_s=time.perf_counter() - t1, parse_s=0.0)
    fmt = fmt or _sniff(source, txt)
    name = _stem(source) if name is None else name
    if fmt == "dimacs":
        n, e = _dimacs(txt)
        del txt
        return _build(n, e[:, 0], e[:, 1], "undirected", np.arange(1, n + 1), name)
    if fmt == "mtx":
        n_rows, n_cols, e, symmetric, size_line = _mtx(txt)
        if n_rows != n_cols:
            raise txt.error(size_line, f"a {n_rows}x{n_cols} matrix is not an adjacency matrix")
        del txt
        mode = "undirected" if symmetric else "auto"
        return _build(n_rows, e[:, 0], e[:, 1], mode, np.arange(1, n_rows + 1), name)
    rows, _ = _edge_list(txt, (2, 3, 4) if fmt == "konect" else (2, 3))
    bipartite = fmt == "konect" and _konect_is_bipartite(txt)
    del txt
    if bipartite:
        left, u = _compact(rows[:, 0])
        right, v = _compact(rows[:, 1])
        labels = np.concatenate([left, right + left.max()])
        return _build(len(left) + len(right), u, v + len(left), "undirected", labels, name)
    labels, e = _compact(rows)
    del rows
    return _build(len(labels), e[:, 0], e[:, 1], "auto", labels, name)


def load_bipartite(source, fmt: str | None = None, *, name: str | None = None,
                   cache: bool | None = None) -> BipartiteGraph:
    """Load a bipartite graph; the first column (or matrix row) is one side, the second the other.

    Text forms (``fmt``): "konect" / "oombe" / "edgelist": no header, each
    column's ids compacted on their own (KONECT ``out.*``, 1-based; ooMBE's
    right ids continuing after the left ones); "gmbe": a first line
    ``n_left n_right``, then 0-based ids numbered per side; "offset": a first
    line ``n_left n_right m``, right ids offset by ``n_left``; "mtx": rows x
    columns. With ``fmt=None`` a 3-number first line means "offset", and a
    2-number first line above every id of its column means "gmbe".
    Also accepts a networkx graph with node attribute ``bipartite`` (0 or 1)
    and a SciPy sparse / NumPy biadjacency matrix. V ends up the smaller side. A file's graph is
    kept in the graph cache, as ``load_graph``'s.
    """
    _check_fmt(fmt, BIPARTITE_FORMATS)
    if _is_networkx(source):
        return _bipartite_from_networkx(source, name)
    A = _as_sparse(source)
    if A is not None:
        u, v = A.nonzero()
        return _bipartite(A.shape[0], A.shape[1], u, v, None, None, name or "")
    if not isinstance(source, str | os.PathLike):
        raise TypeError(f"cannot load a bipartite graph from {type(source).__name__}")
    return _cached("bipartite", source, fmt, name, cache, lambda: _load_bipartite_file(source, fmt, name))


def _load_bipartite_file(source, fmt, name) -> BipartiteGraph:
    txt = _Text(_read(source), source)
    name = _stem(source) if name is None else name
    if fmt == "mtx" or (fmt is None and _sniff(source, txt) == "mtx"):
        n_rows, n_cols, e, _, _ = _mtx(txt)
        labels = np.arange(1, n_rows + 1), np.arange(1, n_cols + 1)
        return _bipartite(n_rows, n_cols, e[:, 0], e[:, 1], *labels, name)
    used = np.flatnonzero(~txt.lines_with("#%") & (txt.count > 0))
    if len(used) == 0:
        raise txt.error(None, "no edges found")
    head = used[0]
    if fmt is None and len(used) > 1 and txt.count[head] == 3 and txt.count[used[1]] == 2:
        fmt = "offset"
    if fmt in ("gmbe", "offset"):
        header = txt.ints(head, *(2, "n_left n_right") if fmt == "gmbe" else (3, "n_left n_right m"))
        rows, lines = _edge_list(txt, (2,), skip_line=head)
        return _bipartite_with_header(txt, fmt, header, head, rows, lines, name)
    rows, lines = _edge_list(txt, (2, 3, 4))
    if fmt is None and len(rows) > 1 and _looks_like_gmbe_header(rows):
        return _bipartite_with_header(txt, "gmbe", rows[0], head, rows[1:], lines[1:], name)
    left, u = _compact(rows[:, 0])
    right, v = _compact(rows[:, 1])
    return _bipartite(len(left), len(right), u, v, left, right, name)


def _looks_like_gmbe_header(rows) -> bool:
    """A first row ``n_left n_right`` above every 0-based id of its column."""
    head, body = rows[0], rows[1:]
    return bool((body >= 0).all() and (body.max(axis=0) < head).all())


def _bipartite_with_header(txt, fmt, header, head_line, rows, lines, name) -> BipartiteGraph:
    """GMBE (``n_left n_right``) or offset (``n_left n_right m``) form, ids checked against the header."""
    n_left, n_right = int(header[0]), int(header[1])
    if fmt == "offset" and header[2] != len(rows):
        raise txt.error(head_line, f"header says {header[2]} edges, the file has {len(rows)}")
    first_right = n_left if fmt == "offset" else 0
    u, v = rows[:, 0], rows[:, 1] - first_right
    out = (u >= n_left) | (v < 0) | (v >= n_right)
    if out.any():
        i = np.argmax(out)
        sides = f"0..{n_left - 1} x {first_right}..{first_right + n_right - 1}"
        raise txt.error(lines[i], f"edge {rows[i, 0]} {rows[i, 1]} outside the header's sides {sides}")
    ids = np.arange(n_left + n_right)
    return _bipartite(n_left, n_right, u, v, ids[:n_left], ids[first_right : first_right + n_right], name)


def _bipartite(n_left, n_right, u, v, left_labels, right_labels, name) -> BipartiteGraph:
    u, v = np.asarray(u, np.int64), np.asarray(v, np.int64)
    unique = len(_unique(u * n_right + v))
    report = CleaningReport(duplicates=len(u) - unique)
    return BipartiteGraph.from_edges(
        n_left, n_right, u, v, u_labels=left_labels, v_labels=right_labels, name=name, report=report
    )


def _bipartite_from_networkx(H, name) -> BipartiteGraph:
    side = dict(H.nodes(data="bipartite"))
    if any(s not in (0, 1) for s in side.values()):
        raise ValueError("every node needs the attribute bipartite=0 or bipartite=1")
    sides = [[x for x in H.nodes if side[x] == s] for s in (0, 1)]
    index = {x: i for nodes in sides for i, x in enumerate(nodes)}
    e = []
    for a, b, *_ in H.edges:
        if side[a] == side[b]:
            raise ValueError(f"edge ({a!r}, {b!r}) joins two nodes of the same side")
        e.append((index[a], index[b]) if side[a] == 0 else (index[b], index[a]))
    e = np.array(e, np.int64).reshape(-1, 2)
    name = H.name if name is None else name
    labels = [_label_array(nodes) for nodes in sides]
    return _bipartite(len(sides[0]), len(sides[1]), e[:, 0], e[:, 1], *labels, name or "")


def as_general_graph(B: BipartiteGraph) -> Graph:
    """The bipartite graph as a general graph: U is vertices 0..n_u-1, V follows."""
    u = np.repeat(np.arange(B.n_u), np.diff(B.u_indptr))
    return Graph.from_edges(
        B.n_u + B.n_v, u, B.u_indices.astype(np.int64) + B.n_u, name=B.name, report=B.report
    )


# --------------------------------------------------------------------------- writing


def _ascii_lines(cols: list[np.ndarray], sep: bytes = b"\t") -> np.ndarray:
    """The rows of non-negative integer columns as ASCII lines (``a<sep>b\\n``), one uint8 array.

    Every number is written right-aligned into a fixed-width table (one pass of ``// 10`` per
    digit position over whole columns), then the leading blanks are dropped with one boolean
    selection; no Python loop per row. Call it on blocks of about 64 K rows: the passes then
    stay in the cache."""
    cols = [np.asarray(c) for c in cols]
    dtype = np.uint32 if all(c.max(initial=0) < 2**32 for c in cols) else np.uint64
    widths = [len(str(int(c.max(initial=0)))) for c in cols]
    table = np.empty((len(cols[0]), sum(widths) + len(cols)), np.uint8)
    keep = np.empty(table.shape, bool)
    at = 0
    for j, (c, w) in enumerate(zip(cols, widths, strict=True)):
        x = c.astype(dtype)
        for p in range(at + w - 1, at - 1, -1):  # the last digit first
            keep[:, p] = x > 0  # the number has a digit here
            q = x // 10
            table[:, p] = x - q * 10 + 48
            x = q
        keep[:, at + w - 1] = True  # 0 is written "0"
        table[:, at + w] = sep[0] if j + 1 < len(cols) else 10
        keep[:, at + w] = True
        at += w + 1
    return table[keep]


def write_edge_list(path, u, v, *, header: str | None = None, block: int = 1 << 16,
                    threads: int | None = None) -> int:
    """Write edges ``u[i] v[i]`` (non-negative integers) as a SNAP-style text edge list:
    ``u<TAB>v`` lines after an optional ``# header`` (one ``#`` line per line of it), which
    ``load_graph`` reads back. Returns the bytes written.

    Vectorised: NumPy digit arithmetic on blocks of ``block`` edges, ``threads`` workers
    (default: the usable cores; NumPy releases the GIL in its loops), blocks written in order."""
    u, v = np.asarray(u), np.asarray(v)
    if u.shape != v.shape or u.ndim != 1:
        raise ValueError(f"u and v must be 1-d arrays of one length, got shapes {u.shape} and {v.shape}")
    if u.dtype.kind not in "iu" or v.dtype.kind not in "iu":
        raise TypeError(f"vertex ids must be integers, got {u.dtype} and {v.dtype}")
    if len(u) and min(u.min(), v.min()) < 0:
        raise ValueError("vertex ids must be non-negative")
    if block < 1:
        raise ValueError(f"block must be >= 1, got {block}")
    starts = range(0, len(u), block)
    threads = max(1, min(threads or usable_cores(), len(starts)))

    def text(s):
        return _ascii_lines([u[s : s + block], v[s : s + block]])

    written = 0
    with open(path, "wb") as f:
        if header is not None:
            written += f.write(b"".join(b"# " + s.encode() + b"\n" for s in header.splitlines() or [""]))
        if threads == 1:
            for s in starts:
                written += f.write(text(s).data)
            return written
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(threads) as ex:
            ahead = 4 * threads  # blocks in flight: bounded memory, whatever the list's length
            pending = [ex.submit(text, s) for s in starts[:ahead]]
            for i in range(len(starts)):
                written += f.write(pending[i].result().data)
                pending[i] = None
                if i + ahead < len(starts):
                    pending.append(ex.submit(text, starts[i + ahead]))
    return written
