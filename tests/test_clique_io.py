"""The parallel .npz writer (mce_kit.clique_io): round trips, the zip container, zip64 fields, CRC combine."""

import struct
import zipfile
import zlib

import numpy as np
import pytest

from mce_kit import clique_io
from mce_kit.clique_io import NpzWriter, crc32_combine, read_blocks, write_blocks


def random_blocks(rng, n_blocks, labels=(0, 5000), dtype=np.int64, max_size=80, max_cliques=60):
    """Random CSR blocks: sizes in 1..max_size (some blocks empty), labels drawn in [lo, hi)."""
    blocks = []
    for _ in range(n_blocks):
        n = int(rng.integers(0, max_cliques + 1)) if rng.random() > 0.15 else 0
        sizes = rng.integers(1, max_size + 1, n)
        offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        blocks.append((offsets, rng.integers(*labels, int(offsets[-1]), dtype=np.int64).astype(dtype)))
    return blocks


def check_file(path, blocks):
    """read_blocks, np.load and zipfile all see ``blocks``; every member's CRC is right."""
    got = list(read_blocks(path))
    assert len(got) == len(blocks)
    for (o, v), (eo, ev) in zip(got, blocks, strict=True):
        assert np.array_equal(o, eo - eo[0]) and np.array_equal(v, ev)
        assert v.dtype.kind in "iu" and v.dtype.itemsize <= ev.dtype.itemsize
    with np.load(path) as f:
        assert int(f["count"]) == sum(len(o) - 1 for o, _ in blocks)
        assert len(f.files) == 2 * len(blocks) + 1
        for k, (o, v) in enumerate(blocks):
            assert np.array_equal(f[f"sizes_{k}"], np.diff(o)) and np.array_equal(f[f"vertices_{k}"], v)
    with zipfile.ZipFile(path) as z:
        assert z.testzip() is None
        for info in z.infolist():
            assert info.compress_type == zipfile.ZIP_DEFLATED
            assert zlib.crc32(z.read(info)) == info.CRC


@pytest.mark.parametrize("seed", range(12))
def test_random_blocks_round_trip(tmp_path, seed, monkeypatch):
    rng = np.random.default_rng(seed)
    # small pieces: every member is many deflate pieces (sync-flushed streams concatenated)
    monkeypatch.setattr(clique_io, "PIECE_BYTES", int(rng.choice([7, 64, 1000, 1 << 20])))
    labels = [(0, 5000), (0, 70000), (-(1 << 40), 1 << 40), (0, 1 << 32), (-5, 5), (0, 1 << 16)][seed % 6]
    dtype = [np.int64, np.int32, np.int64, np.int64, np.int32, np.uint32][seed % 6]
    max_size = int(rng.choice([5, 80, 400]))
    blocks = random_blocks(rng, int(rng.integers(1, 40)), labels, dtype, max_size=max_size)
    path = tmp_path / "c.npz"
    seen = []
    n = write_blocks(iter(blocks), path, seen.append, threads=int(rng.integers(1, 4)),
                     force_zip64=bool(seed % 2))
    assert n == sum(seen) == sum(len(o) - 1 for o, _ in blocks)
    assert seen == [len(o) - 1 for o, _ in blocks]
    check_file(path, blocks)


def test_dtypes_stored(tmp_path):
    """Labels are stored in the narrowest of uint16 / int32 / uint32 that holds them, never wider."""
    cases = [(np.array([0, 65535]), np.uint16), (np.array([0, 65536]), np.int32),
             (np.array([-1, 3]), np.int32),
             (np.array([0, (1 << 32) - 1]), np.uint32), (np.array([-1, 1 << 31]), np.int64),
             (np.array([1 << 40, 0]), np.int64), (np.array([3, 4], dtype=np.uint8), np.uint8),
             (np.array([3, -4], dtype=np.int16), np.int16), (np.array([], dtype=np.int64), np.uint16)]
    for i, (v, want) in enumerate(cases):
        off = np.array([0, len(v)]) if len(v) else np.array([0])
        write_blocks([(off, v)], tmp_path / f"{i}.npz")
        with np.load(tmp_path / f"{i}.npz") as f:
            assert f["vertices_0"].dtype == want and np.array_equal(f["vertices_0"], v), (v, want)
    # a clique of 300 vertices: sizes in uint16
    write_blocks([(np.array([0, 300, 302]), np.arange(302))], tmp_path / "s.npz")
    with np.load(tmp_path / "s.npz") as f:
        assert f["sizes_0"].dtype == np.uint16 and f["sizes_0"].tolist() == [300, 2]
    write_blocks([(np.array([0, 2, 70002]), np.arange(70002))], tmp_path / "t.npz")
    with np.load(tmp_path / "t.npz") as f:
        assert f["sizes_0"].dtype == np.uint32 and f["sizes_0"].tolist() == [2, 70000]
        assert f["vertices_0"].dtype == np.int32


def test_one_clique_and_no_blocks(tmp_path):
    assert write_blocks([(np.array([0, 3]), np.array([7, 8, 9]))], tmp_path / "a.npz") == 1
    check_file(tmp_path / "a.npz", [(np.array([0, 3]), np.array([7, 8, 9]))])
    assert write_blocks(iter([]), tmp_path / "b.npz", force_zip64=True) == 0
    check_file(tmp_path / "b.npz", [])


def test_writer_any_array_and_zip64_fields(tmp_path, monkeypatch):
    """NpzWriter writes any non-object array as np.save would; forced zip64 fields are read by zipfile."""
    monkeypatch.setattr(clique_io, "PIECE_BYTES", 100)
    rng = np.random.default_rng(1)
    arrays = {"a": rng.random((30, 7)), "b": np.array(5), "c": np.zeros(0, np.int8),
              "d": rng.random(99) > 0.5,
              "e": np.arange(1000, dtype=">i4"), "f": np.asfortranarray(rng.integers(0, 9, (13, 11))),
              "g": rng.integers(0, 255, 5000).astype(np.uint8)}
    for force in (False, True):
        path = tmp_path / f"w{force}.npz"
        with NpzWriter(path, threads=3, force_zip64=force) as w:
            for name, a in arrays.items():
                w.add(name, a)
        with np.load(path) as f:
            for name, a in arrays.items():
                assert f[name].dtype == a.dtype.newbyteorder("<") and np.array_equal(f[name], a)
        with zipfile.ZipFile(path) as z:
            assert z.testzip() is None
            for info in z.infolist():           # the zip64 extra (id 1) with sizes and offset, when forced
                has = len(info.extra) >= 4 and struct.unpack("<H", info.extra[:2])[0] == 1
                assert has == force
                if force:
                    want = (24, info.file_size, info.compress_size, info.header_offset)
                    assert struct.unpack("<HH3Q", info.extra[:28])[1:] == want
        data = path.read_bytes()
        assert (b"PK\x06\x06" in data[-200:]) == force and (b"PK\x06\x07" in data[-200:]) == force


def test_crc32_combine_matches_zlib():
    rng = np.random.default_rng(2)
    data = rng.bytes(3_000_000)
    for _ in range(40):
        cut = int(rng.integers(0, len(data)))
        a, b = data[:cut], data[cut:]
        assert crc32_combine(zlib.crc32(a), zlib.crc32(b), len(b)) == zlib.crc32(data)
    crc, start = 0, 0                           # a chain of pieces, some empty, some of one length
    for n in [0, 1, 5, 1 << 16, 1 << 16, 0, 1 << 16, 12345, 1 << 20]:
        crc = crc32_combine(crc, zlib.crc32(data[start:start + n]), n)
        start += n
    assert crc == zlib.crc32(data[:start])
    with pytest.raises(ValueError, match="len2"):
        crc32_combine(0, 0, -1)


def test_pieces_are_one_deflate_stream():
    parts = [clique_io._deflate((np.arange(i * 1000, (i + 1) * 1000),), 1, i == 4) for i in range(5)]
    stream = b"".join(p[0] for p in parts)
    assert zlib.decompress(stream, -15) == np.arange(5000).tobytes()


def test_error_keeps_written_blocks(tmp_path):
    rng = np.random.default_rng(3)
    blocks = random_blocks(rng, 6)

    def failing():
        yield from blocks[:4]
        raise RuntimeError("the GPU went away")

    path = tmp_path / "p.npz"
    with pytest.raises(RuntimeError, match="went away"):
        write_blocks(failing(), path, threads=2)
    with zipfile.ZipFile(path) as z:
        assert z.testzip() is None and "count.npy" not in z.namelist()
    got = list(read_blocks(path))                # every block handed in before the error
    assert len(got) == 4 and all(np.array_equal(v, ev) for (_, v), (_, ev) in zip(got, blocks, strict=False))


def test_bad_input(tmp_path):
    with pytest.raises(ValueError, match="clique files are .npz"):
        write_blocks([], tmp_path / "x.csv")
    with pytest.raises(ValueError, match="block 0: its offsets end at 3, but it has 2 vertices"):
        write_blocks([(np.array([0, 3]), np.array([1, 2]))], tmp_path / "x.npz")
    with pytest.raises(ValueError, match="threads must be an int >= 1"):
        write_blocks([], tmp_path / "x.npz", threads=0)
    with pytest.raises(TypeError, match="level"):
        write_blocks([], tmp_path / "x.npz", level=3)
    with pytest.raises(ValueError, match="object arrays"), NpzWriter(tmp_path / "o.npz") as w:
        w.add("o", np.array([None]))


def test_cli_list_threads(tmp_path):
    import networkx as nx

    from mce_kit.cli import main

    H = nx.gnp_random_graph(40, 0.3, seed=4)
    path = tmp_path / "g.txt"
    nx.write_edgelist(H, path, data=False)
    out = tmp_path / "l.npz"
    assert main(["list", str(path), "--out", str(out), "--device", "cpu", "--threads", "2",
                 "--block-size", "7"]) == 0
    got = {frozenset(v[a:b].tolist()) for o, v in read_blocks(out)
           for a, b in zip(o[:-1], o[1:], strict=True)}
    assert got == {frozenset(c) for c in nx.find_cliques(H)}
    with zipfile.ZipFile(out) as z:
        assert z.testzip() is None
    assert main(["list", str(path), "--out", str(out), "--device", "cpu", "--threads", "0"]) == 2


@pytest.mark.slow
@pytest.mark.skipif(not __import__("os").environ.get("MCE_KIT_BIG_ZIP"),
                    reason="writes ~9.5 GB to a temporary folder: set MCE_KIT_BIG_ZIP=1")
def test_real_zip64_member_and_offsets_past_4_gib(tmp_path):
    """A member of more than 4 GiB, and members starting past 4 GiB, read back by zipfile and np.load.
    Stored (level 0) so that the file really is that long; the zeros cost no memory (calloc)."""
    rng = np.random.default_rng(5)
    path = tmp_path / "big.npz"
    chunks = []
    with NpzWriter(path, level=0) as w:
        for i in range(8):                       # 8 x 600 MB of random bytes: the file passes 4 GiB
            a = rng.integers(0, 256, 600_000_000, dtype=np.uint8)
            chunks.append(zlib.crc32(a))
            w.add(f"r{i}", a)
            del a
        w.add("zeros", np.zeros((1 << 32) + 12345, dtype=np.uint8))   # a member of > 4 GiB
        w.add("tail", np.arange(10))
    with zipfile.ZipFile(path) as z:
        infos = {i.filename: i for i in z.infolist()}
        assert infos["zeros.npy"].file_size > 1 << 32 and infos["tail.npy"].header_offset > 1 << 32
        assert z.testzip() is None
    with np.load(path) as f:
        assert np.array_equal(f["tail"], np.arange(10))
        assert zlib.crc32(f["r7"]) == chunks[7]
