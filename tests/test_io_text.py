"""The vectorised text reader and writer: random edge lists in every layout the reader accepts,
the eight-digits-at-once integer parser against Python's int, and the writer's exact text."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mce_kit.graph import Graph
from mce_kit.io import GraphFormatError, _ascii_lines, _integers, load_graph, write_edge_list


def quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def expected_edges(edges) -> set:
    return {frozenset(e) for e in edges if e[0] != e[1]}


def loaded_edges(G: Graph) -> set:
    return {frozenset((int(G.labels[a]), int(G.labels[b]))) for a, b in G.edges()}


ids = st.one_of(st.integers(0, 30), st.integers(0, 10**9), st.integers(0, 10**18 - 1))
layout = st.fixed_dictionaries({
    "sep": st.sampled_from([" ", "\t", "  ", " \t", "\t\t"]),
    "eol": st.sampled_from(["\n", "\r\n", " \n", "\t\r\n", "  \n"]),
    "lead": st.sampled_from(["", " ", "\t"]),
    "weight": st.booleans(),
    "final_eol": st.booleans(),
})


@settings(max_examples=120, deadline=None)
@given(st.lists(st.tuples(ids, ids), min_size=1, max_size=60), layout,
       st.lists(st.tuples(st.integers(0, 60), st.sampled_from(["# c 12", "% x", "#", ""])), max_size=5))
def test_random_layouts_load_the_same_graph(tmp_path_factory, edges, lay, extra):
    def line(a, b):
        weight = f"{lay['sep']}{len(str(b)) % 7}.5" if lay["weight"] else ""
        return f"{lay['lead']}{a}{lay['sep']}{b}{weight}"

    lines = [line(a, b) for a, b in edges]
    for at, text in sorted(extra, reverse=True):  # comments and blank lines anywhere
        lines.insert(min(at, len(lines)), text)
    body = lay["eol"].join(lines) + (lay["eol"] if lay["final_eol"] else "")
    p = tmp_path_factory.mktemp("lay") / "g.txt"
    p.write_bytes(body.encode())
    if not expected_edges(edges):
        return
    G = quiet(load_graph, p, "snap")
    assert loaded_edges(G) == expected_edges(edges)
    assert G.labels.tolist() == sorted({x for e in edges for x in e if e[0] != e[1]} | set(G.labels.tolist()))
    first = [i for i, line in enumerate(lines) if line.strip() and line.lstrip()[0] not in "#%"]
    bad = list(lines)
    bad[first[-1]] = line(edges[-1][0], f"{edges[-1][1]}x")  # the last edge's second id is no integer
    p.write_bytes(lay["eol"].join(bad).encode())
    with pytest.raises(GraphFormatError, match="is not an integer") as e:
        quiet(load_graph, p, "snap")
    assert e.value.line == first[-1] + 1


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text("0123456789+-x", min_size=1, max_size=21), min_size=1, max_size=40),
       st.integers(0, 9))
def test_integer_tokens_match_python(words, pad):
    data = (" ".join(words) + " " * pad).encode()
    b = np.frombuffer(data, np.uint8)
    s = np.cumsum([0] + [len(w) + 1 for w in words[:-1]])
    e = s + [len(w) for w in words]
    got = _integers(data, b, s, e, block=7)

    def valid(w):
        digits = w[1:] if w[0] in "+-" and len(w) > 1 else w
        return digits.isdigit() and len(digits) <= 18

    if all(map(valid, words)):
        assert got.tolist() == [int(w) for w in words]
    else:
        assert got is None


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(ids, ids), min_size=1, max_size=200), st.integers(1, 50), st.integers(1, 3))
def test_writer_text_is_pythons(tmp_path_factory, edges, block, threads):
    u, v = np.array(edges, np.int64).T
    p = tmp_path_factory.mktemp("w") / "w.txt"
    n = write_edge_list(p, u, v, header="two\nlines", block=block, threads=threads)
    text = "# two\n# lines\n" + "".join(f"{a}\t{b}\n" for a, b in edges)
    assert p.read_bytes() == text.encode() and n == len(text)
    assert _ascii_lines([u, v], b" ").tobytes() == "".join(f"{a} {b}\n" for a, b in edges).encode()


def test_writer_round_trip_of_a_generated_graph(tmp_path):
    from mce_kit.generators import rmat

    G = rmat(10, 8, seed=3, device="cpu")
    e = G.edges()
    p = tmp_path / "r.txt"
    write_edge_list(p, e[:, 0], e[:, 1], header=G.name)
    H = load_graph(p)
    assert H.m == G.m
    assert np.array_equal(np.diff(H.indptr), np.diff(G.indptr)[H.labels])
    assert np.array_equal(H.labels[H.indices], G.indices)  # the same lists, isolated vertices left out


def test_writer_rejects_bad_input(tmp_path):
    with pytest.raises(ValueError, match="non-negative"):
        write_edge_list(tmp_path / "a", np.array([1, -1]), np.array([2, 3]))
    with pytest.raises(ValueError, match="one length"):
        write_edge_list(tmp_path / "a", np.array([1]), np.array([2, 3]))
    with pytest.raises(TypeError, match="integers"):
        write_edge_list(tmp_path / "a", np.array([1.0]), np.array([2.0]))


def test_fast_path_errors_keep_their_line(tmp_path):
    p = tmp_path / "e.txt"
    rows = [f"{i}\t{i + 1}" for i in range(1000)]
    rows[777] = "777\t-3"
    p.write_text("\n".join(rows))
    with pytest.raises(GraphFormatError, match="negative vertex id -3") as e:
        load_graph(p)
    assert e.value.line == 778
    rows[777] = "777\t+3"
    rows[999] = "12345678901\t7"  # a long id in the last line, no newline after it
    p.write_text("\n".join(rows))
    G = quiet(load_graph, p)
    assert 12345678901 in G.labels.tolist() and 3 in G.labels.tolist()
    rows[500] = "500\t1234567890123456789"
    p.write_text("\n".join(rows))
    with pytest.raises(GraphFormatError, match="too large") as e:
        load_graph(p)
    assert e.value.line == 501


@settings(max_examples=60, deadline=None)
@given(st.text(" \t\r\n#%0123456789xe", max_size=300), st.integers(1, 40), st.integers(1, 3))
def test_pieces_scan_like_the_whole(text, piece, threads):
    from mce_kit.io import _Text

    data = text.encode()
    whole, cut = _Text(data, "w", piece=1 << 30), _Text(data, "p", piece=piece, threads=threads)
    for name in ("start", "stop", "count", "first", "lead", "lead_len"):
        assert np.array_equal(getattr(whole, name), getattr(cut, name)), name


def test_parse_blocks_and_pieces_agree_with_one(tmp_path, monkeypatch):
    import mce_kit.io as io

    rng = np.random.default_rng(5)
    e = rng.integers(0, 10**10, (5000, 2))
    p = tmp_path / "b.txt"
    write_edge_list(p, e[:, 0], e[:, 1], header="blocks")
    one = quiet(load_graph, p)
    monkeypatch.setattr(io, "_PARSE_BLOCK", 37)
    monkeypatch.setattr(io, "_PIECE", 1000)
    many = quiet(load_graph, p)
    assert np.array_equal(one.indptr, many.indptr) and np.array_equal(one.indices, many.indices)
    assert np.array_equal(one.labels, many.labels)
    text = p.read_bytes().split(b"\n")
    text[4321] = text[4321] + b"z"  # line 4322 of the file (after the header)
    p.write_bytes(b"\n".join(text))
    with pytest.raises(GraphFormatError, match="is not an integer") as err:
        load_graph(p)
    assert err.value.line == 4322


def test_column_errors_come_before_id_errors_in_any_block(tmp_path, monkeypatch):
    import mce_kit.io as io

    monkeypatch.setattr(io, "_PARSE_BLOCK", 64)
    monkeypatch.setattr(io, "_PIECE", 500)
    rows = [f"{i} {i + 1}" for i in range(3000)]
    rows[100] = "100 1o1"  # an id error in an early block
    rows[2500] = "2500 2501 7"  # a third column in a late one: named first, as before
    p = tmp_path / "c.txt"
    p.write_text("\n".join(rows) + "\n")
    with pytest.raises(GraphFormatError, match="expected 2 integer columns, got 3") as e:
        load_graph(p)
    assert e.value.line == 2501
    rows[2500] = "2500 2501"
    p.write_text("\n".join(rows) + "\n")
    with pytest.raises(GraphFormatError, match="'1o1' is not an integer") as e:
        load_graph(p)
    assert e.value.line == 101


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 12), st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11)), max_size=60),
       st.sampled_from(["auto", "directed", "undirected"]), st.booleans())
def test_cleaning_report_from_the_built_graph_matches_sets(n, edges, mode, presorted):
    from mce_kit.io import _report

    edges = [(a % n, b % n) for a, b in edges]
    if presorted:
        edges.sort()
    u = np.array([a for a, _ in edges], np.int64)
    v = np.array([b for _, b in edges], np.int64)
    loops = sum(a == b for a, b in edges)
    arcs = {(a, b) for a, b in edges if a != b}
    pairs = {frozenset(e) for e in arcs}
    if mode == "undirected":
        want = (loops, len(edges) - loops - len(pairs), 0)
    else:
        one_way = 0 if mode == "auto" and len(arcs) == len(pairs) else 2 * len(pairs) - len(arcs)
        want = (loops, len(edges) - loops - len(arcs), one_way)
    G = Graph.from_edges(n, u, v)
    for r in (_report(n, u, v, mode), _report(n, u, v, mode, pairs=G.m)):
        assert (r.self_loops, r.duplicates, r.symmetrized) == want
