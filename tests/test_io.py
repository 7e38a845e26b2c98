import gzip
import pickle
import time
import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from mce_kit.graph import Graph
from mce_kit.io import GraphFormatError, as_general_graph, load_bipartite, load_graph


def write(tmp_path, name, text, gz=False):
    p = tmp_path / name
    data = text.encode()
    p.write_bytes(gzip.compress(data) if gz else data)
    return p


def edge_set(G: Graph) -> set:
    """Edges as sets of original labels."""
    return {frozenset((G.label(a), G.label(b))) for a, b in G.edges()}


def quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


# ----------------------------------------------------------------------------- formats


def test_snap_comments_tabs_crlf_and_compacted_labels(tmp_path):
    p = write(tmp_path, "toy.txt", "# Nodes: 3\r\n# FromNodeId\tToNodeId\r\n10\t30\r\n30\t7\r\n  7 10 \r\n")
    G = load_graph(p)
    assert (G.n, G.m, G.name) == (3, 3, "toy")
    assert G.labels.tolist() == [7, 10, 30]  # sorted original ids
    assert edge_set(G) == {frozenset(e) for e in [(10, 30), (30, 7), (7, 10)]}


def test_edgelist_weight_column_is_ignored(tmp_path):
    p = write(tmp_path, "w.edges", "1 2 0.5\n2 3 1e-3\n3 1 7\n")
    G = load_graph(p, "edgelist")
    assert edge_set(G) == {frozenset(e) for e in [(1, 2), (2, 3), (3, 1)]}


def test_konect_general_file(tmp_path):
    p = write(tmp_path, "out.toy", "% sym unweighted\n% 3 3 3\n1 2\n2 3\n3 1 1 1234\n".replace(" 1 1234", ""))
    G = load_graph(p)
    assert (G.n, G.m, G.name) == (3, 3, "toy")
    assert G.labels.tolist() == [1, 2, 3]


def test_konect_bipartite_file_keeps_sides_apart(tmp_path):
    # left ids 1..2 and right ids 1..3 share numbers but are different vertices
    p = write(tmp_path, "out.bip", "% bip unweighted\n1 1\n1 2\n2 2\n2 3\n")
    G = load_graph(p)
    assert (G.n, G.m) == (5, 4)
    assert len(set(G.labels.tolist())) == 5
    left = set(range(2))
    assert all((a in left) != (b in left) for a, b in G.edges())  # every edge crosses the sides


def test_mtx_symmetric_pattern_keeps_all_vertices(tmp_path):
    p = write(
        tmp_path,
        "g.mtx",
        "%%MatrixMarket matrix coordinate pattern symmetric\n% a comment\n5 5 3\n2 1\n3 1\n3 2\n",
    )
    G = load_graph(p)
    assert (G.n, G.m) == (5, 3)
    assert G.labels.tolist() == [1, 2, 3, 4, 5]
    assert G.degrees().tolist() == [2, 2, 2, 0, 0]
    assert G.report.symmetrized == 0


def test_mtx_general_real_values(tmp_path):
    text = "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 2 0.5\n2 1 -1.5e3\n2 3 2\n3 2 1\n"
    G = load_graph(write(tmp_path, "g.mtx", text))
    assert (G.n, G.m) == (3, 2)
    assert G.report.symmetrized == 0


def test_dimacs_keeps_isolated_vertices_and_ignores_edge_count(tmp_path):
    text = "c toy\np edge 5 99\ne 1 2\ne 2 3\n\ne 1 3\n"
    G = load_graph(write(tmp_path, "toy.clq", text))
    assert (G.n, G.m) == (5, 3)
    assert G.labels.tolist() == [1, 2, 3, 4, 5]
    assert G.degrees().tolist() == [2, 2, 2, 0, 0]


def test_dimacs_p_col_and_sniffing_without_extension(tmp_path):
    G = load_graph(write(tmp_path, "toy", "c x\np col 3 1\ne 3 1\n"))
    assert (G.n, G.m) == (3, 1)
    assert edge_set(G) == {frozenset((1, 3))}


def test_gzip_is_transparent(tmp_path):
    text = "0 1\n1 2\n2 0\n2 3\n"
    plain = load_graph(write(tmp_path, "g.txt", text))
    zipped = load_graph(write(tmp_path, "g.txt.gz", text, gz=True))
    assert zipped.name == "g"
    assert np.array_equal(plain.indptr, zipped.indptr) and np.array_equal(plain.indices, zipped.indices)


@pytest.mark.parametrize(
    "fmt, name, text",
    [
        ("snap", "a.txt", "# c\n1 2\n2 3\n"),
        ("konect", "out.a", "% sym\n1 2\n2 3\n"),
        ("mtx", "a.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3\n"),
        ("dimacs", "a.clq", "p edge 3 2\ne 1 2\ne 2 3\n"),
    ],
)
def test_explicit_format_equals_sniffed(tmp_path, fmt, name, text):
    p = write(tmp_path, name, text)
    G, H = load_graph(p, fmt), load_graph(p)
    assert edge_set(G) == edge_set(H) == {frozenset((1, 2)), frozenset((2, 3))}


def test_unknown_format_name():
    with pytest.raises(ValueError, match="unknown format"):
        load_graph("x.txt", "graphml")


# ----------------------------------------------------------------------------- cleaning report


def test_cleaning_report_counts_and_warns(tmp_path):
    # 1<->2 reciprocal, 2->3 and 3->4 one way, 4->4 a loop, 1->2 repeated
    p = write(tmp_path, "d.txt", "1 2\n2 1\n2 3\n3 4\n4 4\n1 2\n")
    with pytest.warns(UserWarning, match="self-loops dropped: 1"):
        G = load_graph(p)
    assert (G.report.self_loops, G.report.duplicates, G.report.symmetrized) == (1, 1, 2)
    assert (G.n, G.m) == (4, 3)


def test_undirected_list_is_not_reported_as_symmetrized(tmp_path):
    p = write(tmp_path, "u.txt", "1 2\n2 3\n3 1\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        G = load_graph(p)
    assert G.report.symmetrized == 0


def test_dimacs_reverse_copy_is_a_duplicate(tmp_path):
    G = load_graph(write(tmp_path, "r.clq", "p edge 3 3\ne 1 2\ne 2 1\ne 2 3\n"))
    assert (G.m, G.report.duplicates, G.report.symmetrized) == (2, 1, 0)


# ----------------------------------------------------------------------------- in-memory sources


def test_networkx_round_trip_keeps_labels():
    H = nx.Graph([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")])
    H.add_node("e")
    G = load_graph(H)
    assert G.labels.tolist() == ["a", "b", "c", "d", "e"]
    assert nx.utils.graphs_equal(G.to_networkx(), H)


def test_networkx_int_and_tuple_labels():
    H = nx.grid_2d_graph(3, 3)
    assert nx.is_isomorphic(load_graph(H).to_networkx(), H)
    assert set(load_graph(H).to_networkx().nodes) == set(H.nodes)
    K = nx.convert_node_labels_to_integers(H, first_label=100)
    assert load_graph(K).labels.dtype.kind == "i"
    assert nx.utils.graphs_equal(load_graph(K).to_networkx(), K)


def test_networkx_directed_and_multigraph():
    D = nx.DiGraph([(0, 1), (1, 0), (1, 2)])
    with pytest.warns(UserWarning, match="symmetrized: 1"):
        G = load_graph(D)
    assert G.m == 2
    M = nx.MultiGraph([(0, 1), (0, 1), (1, 2)])
    assert load_graph(M).report.duplicates == 1


def test_networkx_empty_graph():
    G = load_graph(nx.empty_graph(3))
    assert (G.n, G.m) == (3, 0)


@pytest.mark.parametrize("kind", [sp.csr_array, sp.coo_matrix, np.asarray])
def test_scipy_and_dense_matrices_give_the_nonzero_pattern(kind):
    # (0,1) both ways, (2,3) one way (an undirected listing), a self-loop, an explicit zero
    rows, cols, vals = [0, 1, 2, 3, 1], [1, 0, 3, 3, 2], [2.0, 2.0, 1.0, 5.0, 0.0]
    M = sp.csr_array((vals, (rows, cols)), shape=(4, 4))
    assert M.nnz == 5
    with pytest.warns(UserWarning, match="self-loops dropped: 1"):
        G = load_graph(kind(M) if kind is not np.asarray else M.toarray())
    assert edge_set(G) == {frozenset((0, 1)), frozenset((2, 3))}


def test_non_square_matrix_is_rejected():
    with pytest.raises(ValueError, match="square"):
        load_graph(sp.csr_array(np.ones((2, 3))))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), min_size=1, max_size=80))
def test_text_round_trip_matches_networkx(tmp_path_factory, edges):
    p = tmp_path_factory.mktemp("rt") / "e.txt"
    p.write_text("".join(f"{a} {b}\n" for a, b in edges))
    G = quiet(load_graph, p)
    H = nx.Graph(edges)
    H.remove_edges_from(nx.selfloop_edges(H))
    assert G.n == H.number_of_nodes() and G.m == H.number_of_edges()
    assert edge_set(G) == {frozenset(e) for e in H.edges}
    assert np.all(np.diff(G.labels) > 0)


def test_million_edge_file_parses_fast(tmp_path):
    rng = np.random.default_rng(0)
    e = rng.integers(0, 200_000, (1_000_000, 2))
    p = tmp_path / "big.txt"
    p.write_text("# big\n" + "\n".join(f"{a}\t{b}" for a, b in e.tolist()) + "\n")
    t = time.perf_counter()
    G = quiet(load_graph, p)
    elapsed = time.perf_counter() - t
    assert G.m > 990_000
    assert elapsed < 4.0, f"parsing 10^6 edges took {elapsed:.2f} s"


# ----------------------------------------------------------------------------- errors


def raises_at(path, line, match, fn=load_graph, *args):
    with pytest.raises(GraphFormatError, match=match) as e:
        quiet(fn, path, *args)
    assert e.value.path == path and e.value.line == line
    prefix = f"{path}:{line}: " if line is not None else f"{path}: "
    assert str(e.value).startswith(prefix)
    return e.value


def test_missing_file(tmp_path):
    raises_at(tmp_path / "nope.txt", None, "No such file")


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n"])
def test_empty_file(tmp_path, text):
    raises_at(write(tmp_path, "e.txt", text), None, "no edges")


def test_corrupt_gzip(tmp_path):
    p = tmp_path / "c.txt.gz"
    data = gzip.compress(bytes(range(256)) * 10)
    p.write_bytes(data[: len(data) // 2])
    raises_at(p, None, "gzip")


def test_token_not_an_integer(tmp_path):
    raises_at(write(tmp_path, "t.txt", "# h\n1 2\n2 x3\n3 4\n"), 3, "'x3' is not an integer")
    raises_at(write(tmp_path, "f.txt", "1 2\n\n2 3.5\n"), 3, "'3.5' is not an integer")
    raises_at(write(tmp_path, "s.txt", "1 2\n- 3\n"), 2, "not an integer")


def test_wrong_number_of_columns(tmp_path):
    lines = [f"{i} {i + 1}" for i in range(20)]
    lines[16] = "16 17 18"
    raises_at(write(tmp_path, "x.txt", "\n".join(lines)), 17, "expected 2 integer columns, got 3")
    raises_at(write(tmp_path, "one.txt", "1\n"), 1, "expected 2 or 3 columns, got 1")
    raises_at(write(tmp_path, "w.txt", "1 2 1.0\n2 3\n"), 2, "expected 3 columns, got 2")


def test_gzipped_error_still_names_the_line(tmp_path):
    raises_at(write(tmp_path, "g.txt.gz", "1 2\n2 3\n3 a\n", gz=True), 3, "not an integer")


def test_negative_and_huge_ids(tmp_path):
    raises_at(write(tmp_path, "n.txt", "1 2\n2 -3\n"), 2, "negative vertex id -3")
    raises_at(write(tmp_path, "h.txt", "1 2\n2 3\n3 12345678901234567890\n"), 3, "too large")


def test_mtx_header_disagrees_with_body(tmp_path):
    head = "%%MatrixMarket matrix coordinate pattern symmetric\n%c\n"
    raises_at(write(tmp_path, "a.mtx", head + "3 3 3\n2 1\n3 1\n"), 3, "says 3 entries, the file has 2")
    raises_at(write(tmp_path, "b.mtx", head + "3 3 2\n2 1\n4 1\n"), 5, "outside the 3x3 matrix")
    raises_at(write(tmp_path, "c.mtx", head + "3 4 2\n2 1\n3 1\n"), 3, "not an adjacency matrix")
    raises_at(write(tmp_path, "d.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n"), 1, "coordinate")
    raises_at(write(tmp_path, "e.mtx", head + "3 3\n2 1\n"), 3, "rows columns entries")
    raises_at(write(tmp_path, "f.mtx", "1 2\n"), 1, "%%MatrixMarket")


def test_dimacs_errors(tmp_path):
    raises_at(write(tmp_path, "a.clq", "c x\ne 1 2\np edge 3 1\n"), 2, "edge line before the 'p' line")
    raises_at(write(tmp_path, "b.clq", "p edge 3 2\ne 1 2\ne 2 4\n"), 3, r"outside 1\.\.3")
    raises_at(write(tmp_path, "c.clq", "p edge 3 2\ne 1 2\ne 0 2\n"), 3, r"outside 1\.\.3")
    raises_at(write(tmp_path, "d.clq", "c x\ne 1 2\n"), None, "no 'p edge N M' line")
    raises_at(write(tmp_path, "e.clq", "p edge 3 1\nedge 1 2\n"), 2, "'c', 'p' or 'e'")
    raises_at(write(tmp_path, "f.clq", "p edge 3 1\ne 1 2\np edge 3 1\n"), 3, "second 'p' line")
    raises_at(write(tmp_path, "g.clq", "p edge 3 1\ne 1 2 3\n"), 2, "expected 2 integer columns, got 3")
    raises_at(write(tmp_path, "h.clq", "p edge x 1\ne 1 2\n"), 1, "expected 'p edge N M'")


# ----------------------------------------------------------------------------- bipartite


def test_bipartite_konect_and_oombe_compact_each_column(tmp_path):
    konect = load_bipartite(write(tmp_path, "out.b", "% bip unweighted\n1 1\n1 2\n2 2\n3 1\n"))
    assert (konect.n_u, konect.n_v, konect.m) == (3, 2, 4)
    assert konect.u_labels.tolist() == [1, 2, 3] and konect.v_labels.tolist() == [1, 2]
    oombe = load_bipartite(write(tmp_path, "o.txt", "1\t4\n1\t5\n2\t5\n3\t4\n"))  # right ids follow left
    assert (oombe.n_u, oombe.n_v, oombe.m) == (3, 2, 4)
    assert oombe.v_labels.tolist() == [4, 5]


def test_bipartite_gmbe_header_keeps_isolated_vertices(tmp_path):
    p = write(tmp_path, "g.graph", "4 3\n0 0\n0 2\n1 2\n")
    for fmt in ("gmbe", None):
        B = load_bipartite(p, fmt)
        assert (B.n_u, B.n_v, B.m, B.swapped) == (4, 3, 3, False)
        assert B.u_neighbors(0).tolist() == [0, 2] and B.v_neighbors(2).tolist() == [0, 1]
    raises_at(write(tmp_path, "h.graph", "2 3\n0 0\n2 1\n"), 3, "outside the header", load_bipartite, "gmbe")


def test_bipartite_offset_header(tmp_path):
    p = write(tmp_path, "w.txt", "2\t3\t4\n0\t2\n0\t3\n1\t4\n1\t2\n")
    B = load_bipartite(p)
    assert (B.n_u, B.n_v, B.m, B.swapped) == (3, 2, 4, True)  # V is the smaller side
    assert B.u_labels.tolist() == [2, 3, 4] and B.v_labels.tolist() == [0, 1]
    raises_at(write(tmp_path, "m.txt", "2 3 5\n0 2\n0 3\n"), 1, "header says 5 edges", load_bipartite)
    raises_at(write(tmp_path, "r.txt", "2 3 2\n0 2\n0 1\n"), 3, "outside the header", load_bipartite)


def test_bipartite_from_networkx():
    H = nx.complete_bipartite_graph(3, 5)
    B = load_bipartite(H)
    assert (B.n_u, B.n_v, B.m, B.swapped) == (5, 3, 15, True)
    assert sorted(B.u_labels.tolist() + B.v_labels.tolist()) == list(range(8))
    H.add_edge(0, 1)
    with pytest.raises(ValueError, match="same side"):
        load_bipartite(H)
    with pytest.raises(ValueError, match="bipartite=0"):
        load_bipartite(nx.path_graph(3))


def test_bipartite_from_matrix_and_mtx(tmp_path):
    A = sp.csr_array(np.array([[1, 0, 1], [0, 1, 1]]))
    B = load_bipartite(A)
    assert (B.n_u, B.n_v, B.m) == (3, 2, 4)
    text = "%%MatrixMarket matrix coordinate integer general\n2 3 4\n1 1 1\n1 3 1\n2 2 1\n2 3 1\n"
    C = load_bipartite(write(tmp_path, "b.mtx", text))
    assert np.array_equal(B.u_indptr, C.u_indptr) and np.array_equal(B.u_indices, C.u_indices)


def test_as_general_graph():
    B = load_bipartite(nx.complete_bipartite_graph(2, 3))
    G = as_general_graph(B)
    assert (G.n, G.m) == (5, 6)
    assert sorted(G.degrees().tolist()) == [2, 2, 2, 3, 3]


def test_format_error_pickles():
    e = pickle.loads(pickle.dumps(GraphFormatError("a.txt", 3, "bad")))
    assert (e.path, e.line, str(e)) == ("a.txt", 3, "a.txt:3: bad")


def _same_graph(G, H) -> bool:
    fields = ("indptr", "indices", "labels") if isinstance(G, Graph) else (
        "u_indptr", "u_indices", "v_indptr", "v_indices", "u_labels", "v_labels", "swapped")
    same = all(np.array_equal(getattr(G, f), getattr(H, f)) if getattr(G, f) is not None
               else getattr(H, f) is None for f in fields)
    return same and G.name == H.name and G.report == H.report


def test_a_file_read_again_comes_from_the_graph_cache(tmp_path, monkeypatch):
    import mce_kit.io as io

    monkeypatch.setenv("MCE_KIT_GRAPH_CACHE", str(tmp_path / "cache"))
    f = tmp_path / "g.txt"
    f.write_text("# a directed list with a loop\n1 2\n2 3\n3 1\n3 3\n5 1\n")
    with pytest.warns(UserWarning, match="self-loops dropped: 1") as first:
        G = load_graph(f)
    with pytest.warns(UserWarning, match="self-loops dropped: 1") as again:   # the same warning
        H = load_graph(f)
    assert _same_graph(G, H) and len(list((tmp_path / "cache").iterdir())) == 1
    assert first[0].filename == again[0].filename == __file__   # both point at the caller
    assert H.indptr.flags.writeable is False
    monkeypatch.setattr(io, "_load_graph_file", lambda *a: pytest.fail("read the text again"))
    with pytest.warns(UserWarning):
        assert _same_graph(load_graph(f), G)   # a hit reads no text
    monkeypatch.undo()
    monkeypatch.setenv("MCE_KIT_GRAPH_CACHE", str(tmp_path / "cache"))
    f.write_text("# a directed list with a loop\n1 2\n2 3\n3 1\n3 3\n5 2\n")   # same size, edited
    with pytest.warns(UserWarning):
        E = load_graph(f)
    pairs = {tuple(sorted(e)) for e in E.labels[E.edges()].tolist()}
    assert (2, 5) in pairs and (1, 5) not in pairs and not _same_graph(E, G)
    with pytest.warns(UserWarning):
        assert _same_graph(load_graph(f, name="g"), E)


def test_bipartite_files_are_cached_too(tmp_path, monkeypatch):
    monkeypatch.setenv("MCE_KIT_GRAPH_CACHE", str(tmp_path / "cache"))
    f = tmp_path / "b.txt"
    f.write_text("1 10\n1 11\n2 11\n3 12\n3 12\n")
    B = load_bipartite(f)
    assert _same_graph(load_bipartite(f), B) and B.report.duplicates == 1
    assert len(list((tmp_path / "cache").iterdir())) == 1


def test_the_graph_cache_can_be_passed_by(tmp_path, monkeypatch):
    f = tmp_path / "g.txt"
    f.write_text("1 2\n2 3\n")
    monkeypatch.setenv("MCE_KIT_GRAPH_CACHE", "0")
    load_graph(f)
    monkeypatch.setenv("MCE_KIT_GRAPH_CACHE", str(tmp_path / "cache"))
    load_graph(f, cache=False)
    assert not (tmp_path / "cache").exists()
    G = load_graph(f)
    for entry in (tmp_path / "cache").iterdir():
        entry.write_bytes(b"not a cache entry")   # a corrupt entry: the file is read again
    assert _same_graph(load_graph(f), G)
    bad = tmp_path / "bad.txt"
    bad.write_text("1 2\n2 x\n")
    for _ in range(2):   # a bad file is never kept: the error names its line each time
        with pytest.raises(GraphFormatError, match=r"bad.txt:2: .x. is not an integer"):
            load_graph(bad)


def test_the_graph_cache_stays_within_its_bytes(tmp_path, monkeypatch):
    monkeypatch.setenv("MCE_KIT_GRAPH_CACHE", str(tmp_path / "cache"))
    files = []
    for i in range(4):
        files.append(tmp_path / f"g{i}.txt")
        files[-1].write_text("".join(f"{a} {a + 1 + i}\n" for a in range(300)))
    load_graph(files[0])
    one = sum(e.stat().st_size for e in (tmp_path / "cache").iterdir())
    monkeypatch.setenv("MCE_KIT_GRAPH_CACHE_BYTES", str(int(2.5 * one)))
    for f in files[1:]:
        load_graph(f)
    assert len(list((tmp_path / "cache").glob("*.npz"))) == 2   # the two used last
    monkeypatch.setenv("MCE_KIT_GRAPH_CACHE_BYTES", "100")   # a graph above the budget is not kept
    load_graph(tmp_path / "g0.txt", name="other")
    assert len(list((tmp_path / "cache").glob("*.npz"))) == 2


def test_a_settled_files_hash_is_remembered_by_its_stat(tmp_path, monkeypatch):
    import hashlib

    import mce_kit.io as io

    hashed = []
    real = hashlib.file_digest
    monkeypatch.setattr(hashlib, "file_digest", lambda f, h: hashed.append(f.name) or real(f, h))
    root = tmp_path / "cache"
    f = tmp_path / "g.txt"
    f.write_text("1 2\n2 3\n")
    monkeypatch.setattr(io, "SETTLED_NS", 1 << 62)   # just written: not remembered
    a = io._file_digest(f, root)
    assert io._file_digest(f, root) == a and len(hashed) == 2 and not (root / "digests").exists()
    monkeypatch.setattr(io, "SETTLED_NS", -1)        # settled: remembered, not hashed again
    io._file_digest(f, root)
    assert io._file_digest(f, root) == a and len(hashed) == 3
    f.write_text("1 2\n2 4\n")                       # same size, edited: its stat changed
    b = io._file_digest(f, root)
    assert b != a and len(hashed) == 4
    monkeypatch.setattr(io, "DIGEST_MEMOS", 3)
    for i in range(5):
        g = tmp_path / f"h{i}.txt"
        g.write_text(str(i))
        io._file_digest(g, root)
    assert len(list((root / "digests").glob("*.txt"))) <= 3
