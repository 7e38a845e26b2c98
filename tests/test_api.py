"""Public API: inputs, label mapping, size filters, Count, device dispatch."""

import pickle

import igraph as ig
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from graph_families import erdos_renyi, moon_moser

import mce_kit as mk
import mce_kit.api as api
from mce_kit import cpu, datasets


def as_sets(cliques):
    return sorted(sorted(map(str, c)) for c in cliques)


@pytest.fixture
def H():
    """A networkx graph with string labels, and a dangling vertex."""
    H = nx.relabel_nodes(nx.les_miserables_graph(), {v: f"<{v}>" for v in nx.les_miserables_graph()})
    H.add_node("alone")
    return H


def test_labels_follow_networkx(H):
    assert as_sets(mk.find_cliques(H)) == as_sets(nx.find_cliques(H))
    assert mk.count_maximal_cliques(H) == sum(1 for _ in nx.find_cliques(H))
    by_size = {}
    for c in nx.find_cliques(H):
        by_size[len(c)] = by_size.get(len(c), 0) + 1
    assert mk.clique_size_histogram(H) == dict(sorted(by_size.items()))
    assert as_sets(mk.k_cliques(H, 4)) == as_sets(c for c in nx.enumerate_all_cliques(H) if len(c) == 4)
    omega, cliques = mk.max_cliques(H)
    assert omega == nx.max_weight_clique(H, weight=None)[1]
    assert all(set(c) <= set(H) and len(c) == omega for c in cliques)


def test_other_inputs():
    G = datasets.load("johnson8-4-4")
    path = datasets.path("johnson8-4-4")
    A = sp.csr_array((np.ones(2 * G.m), G.indices.copy(), G.indptr.copy()), shape=(G.n, G.n))
    counts = {mk.count_maximal_cliques(x, device="cpu") for x in (G, path, str(path), A)}
    assert len(counts) == 1
    # DIMACS labels are the file's 1-based ids
    assert min(min(c) for c in mk.find_cliques(path)) == 1
    with pytest.raises(TypeError, match="BipartiteGraph"):
        mk.count_maximal_cliques(datasets.load("MovieLens"))


@pytest.mark.parametrize("lo,hi", [(None, None), (3, None), (None, 3), (4, 6), (7, 2), (1, 1)])
def test_size_filters_match_igraph(lo, hi):
    G = erdos_renyi(40, 0.35, seed=5)
    g = ig.Graph(n=G.n, edges=G.edges().tolist())
    theirs = as_sets(g.maximal_cliques(min=lo or 0, max=hi or 0)) if (lo or 0) <= (hi or 99) else []
    assert as_sets(mk.find_cliques(G, min_size=lo, max_size=hi)) == theirs
    assert mk.count_maximal_cliques(G, min_size=lo, max_size=hi) == len(theirs)


def test_count_is_an_int_with_provenance():
    c = mk.count_maximal_cliques(moon_moser(9), device="cpu", min_size=3)
    assert c == 27 and isinstance(c, int) and isinstance(c, mk.Count)
    assert c.device == "cpu" and c.seconds >= 0 and c.params == {"min_size": 3}
    assert str(c) == "27" and f"{c:,}" == "27" and repr(c).startswith("Count(27, device='cpu'")
    assert c + 1 == 28 and type(c + 1) is int and hash(c) == hash(27)
    back = pickle.loads(pickle.dumps(c))
    assert back == 27 and back.device == "cpu" and back.params == {"min_size": 3}
    k = mk.count_k_cliques(moon_moser(9), 3)
    assert k == 27 and k.params == {"k": 3} and k.device == "cpu"


def test_bicliques_use_side_labels():
    H = nx.Graph()
    H.add_nodes_from(["ann", "bob", "cy"], bipartite=0)
    H.add_nodes_from(["x", "y"], bipartite=1)
    H.add_edges_from([("ann", "x"), ("bob", "x"), ("bob", "y"), ("cy", "y")])
    got = sorted((sorted(L), sorted(R)) for L, R in mk.maximal_bicliques(H))
    assert got == [(["ann", "bob"], ["x"]), (["bob"], ["x", "y"]), (["bob", "cy"], ["y"])]
    assert mk.count_maximal_bicliques(H) == 3


def test_biclique_size_filters_on_cpu():
    from graph_families import random_bipartite

    B = random_bipartite(12, 9, 0.4, seed=3)
    every = list(mk.maximal_bicliques(B, device="cpu"))
    for lo_l, lo_r in [(None, None), (2, None), (None, 3), (2, 2), (50, 1)]:
        want = [p for p in every if len(p[0]) >= (lo_l or 1) and len(p[1]) >= (lo_r or 1)]
        got = list(mk.maximal_bicliques(B, device="cpu", min_left=lo_l, min_right=lo_r))
        assert sorted(map(repr, got)) == sorted(map(repr, want))
        c = mk.count_maximal_bicliques(B, device="cpu", min_left=lo_l, min_right=lo_r)
        assert c == len(want) and c.device == "cpu"
    with pytest.raises(ValueError, match="min_left must be an int >= 1"):
        mk.count_maximal_bicliques(B, min_left=0)


class FakeGMBE:
    """Stands in for mce_kit.gpu.gmbe: the CPU oracle in the kernel's types, with its size filters."""

    calls = []
    DEFAULTS = {"tau": 32}  # the knobs strict keyword checking accepts

    @classmethod
    def _pairs(cls, B, min_left=1, min_right=1):
        return [(np.array(L), np.array(R)) for L, R in cpu.maximal_bicliques(B)
                if len(L) >= min_left and len(R) >= min_right]

    @classmethod
    def count_maximal_bicliques(cls, B, **params):
        cls.calls.append(("count", params))
        return len(cls._pairs(B, params.get("min_left", 1), params.get("min_right", 1)))

    @classmethod
    def maximal_bicliques(cls, B, **params):
        cls.calls.append(("list", params))
        return cls._pairs(B, params.get("min_left", 1), params.get("min_right", 1))


def test_biclique_gpu_path_with_a_stand_in_kernel(monkeypatch):
    from graph_families import random_bipartite

    monkeypatch.setattr("mce_kit.gpu.has_gpu", lambda: True)
    monkeypatch.setattr(api, "_gmbe", lambda: FakeGMBE)
    FakeGMBE.calls.clear()
    B = random_bipartite(10, 8, 0.4, seed=5)
    c = mk.count_maximal_bicliques(B, tau=16, min_left=2)
    assert c.device == "gpu" and FakeGMBE.calls == [("count", {"min_left": 2, "tau": 16})]
    assert c == mk.count_maximal_bicliques(B, device="cpu", min_left=2)
    got = sorted(map(repr, mk.maximal_bicliques(B, min_right=2)))
    assert got == sorted(map(repr, mk.maximal_bicliques(B, device="cpu", min_right=2)))


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr("mce_kit.gpu.has_gpu", lambda: False)


def test_device_errors(no_gpu):
    G = moon_moser(6)
    with pytest.raises(ValueError, match="device must be"):
        mk.count_maximal_cliques(G, device="cuda")
    with pytest.raises(ValueError, match="device must be"):
        mk.find_cliques(G, device="GPU")
    with pytest.raises(RuntimeError, match=r"^device='gpu' but no usable CUDA GPU: .+"):
        mk.count_maximal_cliques(G, device="gpu")
    with pytest.raises(RuntimeError, match="no usable CUDA GPU"):
        mk.find_cliques(G, device="gpu")
    with pytest.raises(RuntimeError, match="no usable CUDA GPU"):
        mk.count_k_cliques(G, 3, device="gpu")
    with pytest.raises(RuntimeError, match="no usable CUDA GPU"):
        mk.clique_counts(G, device="gpu")
    with pytest.raises(RuntimeError, match="no usable CUDA GPU"):
        mk.count_maximal_bicliques(datasets.load("MovieLens"), device="gpu")
    assert mk.count_maximal_cliques(G).device == "cpu"  # auto falls back
    assert mk.count_k_cliques(G, 2, device="auto").device == "cpu"


class FakeRDMCE:
    """Stands in for mce_kit.gpu.rdmce: CPU results in the kernel's types."""

    calls = []
    DEFAULTS = {"tau": 24}  # the knobs strict keyword checking accepts

    @classmethod
    def count_maximal_cliques(cls, G, min_size=None, max_size=None, **params):
        cls.calls.append(("count", params))
        return cpu.count_maximal_cliques(G, min_size=min_size, max_size=max_size)

    @classmethod
    def clique_size_histogram(cls, G, **params):
        cls.calls.append(("histogram", params))
        return cpu.clique_size_histogram(G)

    @classmethod
    def maximal_clique_blocks(cls, G, block_size=1 << 20, *, min_size=None, max_size=None, as_cupy=False,
                              **params):
        cls.calls.append(("blocks", params))
        return api._pack_blocks(cpu.maximal_cliques(G, min_size=min_size, max_size=max_size), block_size)


def test_gpu_path_with_a_stand_in_kernel(monkeypatch, H):
    monkeypatch.setattr("mce_kit.gpu.has_gpu", lambda: True)
    monkeypatch.setattr(api, "_rdmce", lambda: FakeRDMCE)
    FakeRDMCE.calls.clear()
    c = mk.count_maximal_cliques(H, tau=24)
    assert c.device == "gpu" and c.params == {"tau": 24} and FakeRDMCE.calls == [("count", {"tau": 24})]
    assert c == mk.count_maximal_cliques(H, device="cpu")
    assert as_sets(mk.find_cliques(H, device="gpu", min_size=3)) == as_sets(
        c for c in nx.find_cliques(H) if len(c) >= 3
    )
    assert mk.count_maximal_cliques(H, max_size=2) == mk.count_maximal_cliques(H, max_size=2, device="cpu")
    assert mk.clique_size_histogram(H) == mk.clique_size_histogram(H, device="cpu")
    # k-cliques: auto picks the GPU kernel
    monkeypatch.setattr(api, "_kclique", lambda: FakeKClique)
    FakeKClique.calls.clear()
    c = mk.count_k_cliques(H, 4, scheduling=False)
    assert c.device == "gpu" and c == mk.count_k_cliques(H, 4, device="cpu")
    assert FakeKClique.calls == [("count", 4, {"scheduling": False})]
    assert as_sets(mk.k_cliques(H, 3)) == as_sets(mk.k_cliques(H, 3, device="cpu"))


class FakeKClique:
    calls = []
    DEFAULTS = {"scheduling": True}  # the knobs strict keyword checking accepts
    KMAX = 32  # the largest k it lists

    @classmethod
    def count_k_cliques(cls, G, k, **params):
        cls.calls.append(("count", k, params))
        return cpu.count_k_cliques(G, k)

    @classmethod
    def k_cliques(cls, G, k, **params):
        return np.array(list(cpu.k_cliques(G, k)), dtype=np.int64).reshape(-1, k)


def test_missing_kernel_on_a_gpu_machine(monkeypatch):
    monkeypatch.setattr("mce_kit.gpu.has_gpu", lambda: True)
    monkeypatch.setattr(api, "_rdmce", lambda: None)
    assert mk.count_maximal_cliques(moon_moser(6)).device == "cpu"
    with pytest.raises(RuntimeError, match="device='gpu' but no usable CUDA GPU"):
        mk.count_maximal_cliques(moon_moser(6), device="gpu")


def test_progress_bar(capsys):
    assert mk.count_maximal_cliques(moon_moser(9), progress=True, device="cpu") == 27
    assert "maximal cliques" in capsys.readouterr().err


def test_blocks_on_the_cpu_and_the_isolated_convention(tmp_path):
    H = nx.gnp_random_graph(40, 0.2, seed=3)
    H.add_nodes_from([100, 101])  # vertices without neighbours: size-1 cliques in networkx
    want = as_sets(nx.find_cliques(H))
    blocks = list(mk.maximal_clique_blocks(H, block_size=7, device="cpu"))
    assert all(len(o) - 1 <= 7 and o[0] == 0 and o[-1] == len(v) for o, v in blocks)
    got = [v[a:b].tolist() for o, v in blocks for a, b in zip(o[:-1], o[1:], strict=True)]
    assert as_sets(got) == want  # integer labels come back as labels
    n = len(list(nx.find_cliques(H)))
    assert mk.count_maximal_cliques(H, device="cpu") == n
    assert mk.count_maximal_cliques(H, device="cpu", isolated=False) == n - 2
    assert len(list(mk.find_cliques(H, device="cpu", isolated=False))) == n - 2
    assert 1 not in mk.clique_size_histogram(H, device="cpu", isolated=False)
    assert mk.clique_size_histogram(H, device="cpu")[1] == 2
    with pytest.raises(ValueError, match="as_cupy=True needs the GPU"):
        next(mk.maximal_clique_blocks(H, device="cpu", as_cupy=True))


def test_clique_file_round_trip_and_cli_list(tmp_path):
    from mce_kit.cli import main
    from mce_kit.clique_io import read_blocks, write_blocks

    H = nx.relabel_nodes(nx.gnp_random_graph(30, 0.3, seed=1), lambda v: v + 10)
    out = tmp_path / "c.npz"
    n = write_blocks(mk.maximal_clique_blocks(H, block_size=5, device="cpu"), out)
    got = [v[a:b].tolist() for o, v in read_blocks(out) for a, b in zip(o[:-1], o[1:], strict=True)]
    assert n == len(got) and as_sets(got) == as_sets(nx.find_cliques(H))
    path = tmp_path / "g.txt"
    nx.write_edgelist(H, path, data=False)
    args = ["list", str(path), "--out", str(tmp_path / "l.npz"), "--device", "cpu", "--min-size", "3"]
    assert main(args) == 0
    assert sum(len(o) - 1 for o, _ in read_blocks(tmp_path / "l.npz")) == sum(
        1 for c in nx.find_cliques(H) if len(c) >= 3)
    assert main(["list", str(path), "--out", str(tmp_path / "l.csv"), "--device", "cpu"]) == 2


@pytest.mark.parametrize("labels", [None, np.arange(6), np.arange(1, 7),
                                    np.array(list("abcdef"), dtype=object)])
def test_rows_of_ids_are_labelled_as_one_clique_at_a_time_would_be(labels):
    rows = np.array([[0, 2, 5], [1, 3, 4], [2, 4, 5]], dtype=np.int64)
    got = api._labelled_rows(labels, rows)
    assert got == [api._labeler(labels)(r) for r in rows.tolist()]
    assert all(type(x) is type(got[0][0]) for r in got for x in r) and not isinstance(got[0][0], np.generic)
