"""Kept preparation (mce_kit.prepared): built once per graph and key, shared across problems,
bounded by the budget, dropped by release() and with the graph."""

import gc

import numpy as np
import pytest

from mce_kit import datasets, prepared
from mce_kit.generators import bipartite_chung_lu
from mce_kit.gpu import gmbe, kclique, mcegpu, rdmce, seeds


@pytest.fixture(autouse=True)
def fresh_budget():
    old = prepared.budget()
    prepared.release()
    yield
    prepared.set_budget(old)
    prepared.release()


def test_built_once_then_returned():
    G = datasets.load("johnson8-4-4")
    calls = []
    a = prepared.kept(G, ("x",), lambda: calls.append(1) or np.arange(10))
    b = prepared.kept(G, ("x",), lambda: calls.append(1) or np.arange(10))
    assert a is b and calls == [1]
    assert prepared.kept_state(G) == [{"graph": G.name, "key": ("x",), "bytes": a.nbytes}]


def test_the_degeneracy_csr_is_shared_by_rdmce_and_mcegpu():
    G = datasets.load("CA-GrQc")
    r, m = rdmce.prepared(G), mcegpu.prepared(G)
    assert r.indices is m.indices and r.order is m.order
    assert rdmce.prepared(G) is r
    keys = {row["key"] for row in prepared.kept_state(G)}
    assert keys == {("ordered_csr",), ("rdmce",), ("mcegpu",)}


def test_the_orientation_is_shared_by_kcminer_and_the_pivot_counter():
    from mce_kit.gpu import cliquecount

    G = datasets.load("CA-GrQc")
    a = kclique.prepared(G).orient("degeneracy")
    b = cliquecount.prepare(G).orient("degeneracy")
    assert a is b


def test_explicit_devices_are_computed_afresh():
    G = datasets.load("CA-GrQc")
    a = seeds.ordered_csr(G)
    b = seeds.ordered_csr(G, "cpu")
    assert a[2] is not b[2] and np.array_equal(a[3], b[3])


def test_over_budget_the_oldest_entries_go():
    G, H = datasets.load("CA-GrQc"), datasets.load("CA-HepTh")
    prepared.kept(G, ("a",), lambda: np.zeros(1000, np.int64))
    prepared.kept(H, ("b",), lambda: np.zeros(1000, np.int64))
    prepared.set_budget(20_000)
    prepared.kept(G, ("c",), lambda: np.zeros(1000, np.int64))
    keys = [row["key"] for row in prepared.kept_state()]
    assert keys == [("b",), ("c",)] and prepared.kept_bytes() <= 16_000
    prepared.set_budget(0)
    assert prepared.kept_state() == []


def test_release_and_collection_drop_the_state():
    G = datasets.load("CA-GrQc")
    rdmce.prepared(G)
    assert prepared.kept_bytes() > 0
    assert prepared.release(G) > 0 and prepared.kept_state(G) == [] and prepared.kept_bytes() == 0
    H = datasets.load("CA-HepTh")
    kclique.prepared(H).orient("degree")
    assert prepared.kept_bytes() > 0
    del H
    gc.collect()
    assert prepared.kept_bytes() == 0


def test_many_calls_over_many_graphs_stay_under_the_budget():
    prepared.set_budget(4 << 20)
    peak = 0
    for i in range(200):
        B = bipartite_chung_lu(300, 120, 900, seed=i % 50)
        gmbe.prepared(B)
        peak = max(peak, prepared.kept_bytes())
    assert peak <= 4 << 20


def test_the_k_clique_rule_follows_the_committed_measurement():
    from mce_kit import api
    from mce_kit.experiments import frontdoor

    assert api.PIVOT_FROM_K == frontdoor.pivot_from_k(frontdoor.load())
    assert api.k_clique_algorithm(api.PIVOT_FROM_K) == "pivot"
    assert api.k_clique_algorithm(api.PIVOT_FROM_K - 1) == "listing"
    assert api.k_clique_algorithm(3, "pivot") == "pivot"
    with pytest.raises(ValueError, match="algorithm must be"):
        api.k_clique_algorithm(4, "fast")


def test_a_pickled_graph_brings_its_state_and_joins_the_budget():
    import pickle

    G = datasets.load("CA-GrQc")
    first = kclique.prepared(G).orient("degree")
    H = pickle.loads(pickle.dumps(G))
    again = kclique.prepared(H).orient("degree")
    assert np.array_equal(first.u, again.u) and again is not first
    assert {row["key"] for row in prepared.kept_state(H)} == {("kclique",), ("oriented", "degree")}


def test_seeds_built_later_count_against_the_budget():
    G = datasets.load("CA-GrQc")
    prep = rdmce.prepared(G)
    before = prepared.kept_bytes()
    u = prep.seed_arrays("vertex")[0]
    assert prepared.kept_bytes() >= before + u.nbytes


def test_release_when_a_kept_value_holds_another_kept_graph():
    """The biclique engine keeps a side-swapped copy of a graph with the graph, and that copy keeps
    state of its own; dropping the copy drops its entries mid-release (once a KeyError)."""
    import mce_kit as mk
    from mce_kit import datasets, prepared

    B = datasets.load("MovieLens")  # its roots go to the U side: a swapped copy is kept
    want = mk.count_maximal_bicliques(B, device="cpu")
    assert prepared.release() > 0
    assert mk.count_maximal_bicliques(B, device="cpu") == want
    assert prepared.release(B) > 0 and prepared.release() == 0


def test_a_graph_past_the_int32_csr_is_refused_not_wrapped(monkeypatch):
    """The prepared CSRs and the kernels index entries with int32: a graph with more entries is
    refused with its count, by every preparation that casts (the ordered CSR that RDMCE, mce-gpu and
    the CPU engine share, KCMiner's orientation, Geil, GMBE+); the limit is lowered here to a small graph."""
    import mce_kit.graph as graph
    from mce_kit import api, cpu_engine
    from mce_kit.gpu import geil

    monkeypatch.setattr(graph, "CSR32_MAX_ENTRIES", 10)
    G = graph.Graph.from_edges(4, [0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3], device="cpu")   # K4: 12 entries
    B = graph.BipartiteGraph.from_edges(3, 5, [0, 0, 1, 1, 2] * 2 + [2], [0, 1, 2, 3, 4] * 2 + [0])  # m 6
    monkeypatch.setattr(graph, "CSR32_MAX_ENTRIES", 5)
    with pytest.raises(ValueError, match=r"GMBE\+: 6 entries; its int32 CSR holds at most 5$"):
        gmbe.prepare(B, device="cpu")
    monkeypatch.setattr(graph, "CSR32_MAX_ENTRIES", 10)
    calls = [lambda: prepared.ordered_csr(G, "cpu"), lambda: cpu_engine.count_maximal_cliques(G),
             lambda: kclique._orient(G, "degree"), lambda: geil.prepare(G, device="cpu")]
    for call in calls:
        with pytest.raises(ValueError, match=r"entries; its int32 CSR holds at most 10$"):
            call()
    monkeypatch.setattr(graph, "CSR32_MAX_ENTRIES", 12)
    assert api.count_maximal_cliques(G, device="cpu") == 1   # at the limit: answered


def test_a_graph_collected_during_a_loop_over_the_kept_entries_goes_at_the_next_step():
    """The collector can run between any two bytecodes, so inside a loop over the kept entries (the
    budget's sum, kept_state): a graph collected there is only noted, and its entries are dropped at
    the next step; with the entries dropped at once the loop raised "OrderedDict mutated"."""
    graphs = {name: datasets.load(name) for name in ("johnson8-4-4", "keller4", "hamming6-4")}
    for G in graphs.values():
        prepared.kept(G, ("x",), lambda: np.arange(10))
    gone = id(graphs["keller4"])
    seen = 0
    for _ in prepared._lru:   # as kept_bytes and _evict iterate it
        seen += 1
        if seen == 1:
            del graphs["keller4"]   # collected here: its weakref callback runs inside the loop
            gc.collect()
    assert seen == 3
    assert sorted(row["graph"] for row in prepared.kept_state()) == ["hamming6-4", "johnson8-4-4"]
    assert all(gid != gone for gid, _ in prepared._lru)
