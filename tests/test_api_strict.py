"""Strict keywords on every public call, find_cliques(nodes=), per-node answers, other inputs."""

import warnings

import igraph as ig
import networkx as nx
import numpy as np
import pytest
from graph_families import erdos_renyi, moon_moser, planted_cliques, powerlaw_cluster

import mce_kit as mk
import mce_kit.api as api
from mce_kit import cpu, datasets

MAXIMAL = ("find_cliques", "count_maximal_cliques", "clique_size_histogram", "number_of_cliques",
           "node_clique_number")


def _calls(G, B):
    """Every public call that takes keyword parameters, as (name, function of **kw)."""
    return [
        *((name, _maximal_call(name, G)) for name in MAXIMAL),
        ("count_k_cliques", lambda kw: mk.count_k_cliques(G, 3, **kw)),
        ("max_cliques", lambda kw: mk.max_cliques(G, **kw)),
        ("clique_number", lambda kw: mk.clique_number(G, **kw)),
        ("count_maximal_bicliques", lambda kw: mk.count_maximal_bicliques(B, **kw)),
        ("maximal_bicliques", lambda kw: _drain(mk.maximal_bicliques(B, **kw))),
        ("maximal_clique_blocks", lambda kw: _drain(mk.maximal_clique_blocks(G, **kw))),
    ]


def _maximal_call(name, G):
    f = getattr(mk, name)
    return lambda kw: _drain(f(G, **kw))


def _drain(x):
    return list(x) if hasattr(x, "__next__") else x


@pytest.mark.parametrize("device", ["auto", "cpu"])
def test_unknown_keywords_raise_naming_them(device):
    G, B = moon_moser(6), datasets.load("MovieLens")
    for name, call in _calls(G, B):
        with pytest.raises(TypeError, match=rf"{name}\(\) got an unexpected keyword argument 'bogus'"):
            call({"device": device, "bogus": 1})
    with pytest.raises(TypeError, match="'whatever'"):
        mk.count_k_cliques(G, 3, whatever=7)
    with pytest.raises(TypeError, match="arguments 'a', 'b'"):
        mk.count_maximal_cliques(G, device="cpu", a=1, b=2)


def test_unknown_keywords_raise_on_the_gpu_path_too(monkeypatch):
    monkeypatch.setattr("mce_kit.gpu.has_gpu", lambda: True)

    class Kernel:
        DEFAULTS = {"tau": 24}

    monkeypatch.setattr(api, "_rdmce", lambda: Kernel)
    for name in MAXIMAL:
        with pytest.raises(TypeError, match="'bogus'"):
            _drain(getattr(mk, name)(moon_moser(6), device="gpu", bogus=1))


def test_gpu_knobs_on_the_cpu_warn_once_and_change_nothing():
    G = planted_cliques(50, 0.1, (6,), seed=3)
    for name in MAXIMAL:
        f = getattr(mk, name)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            got = _drain(f(G, device="cpu", tau=8, warps_per_sm=4))
        assert len(w) == 1 and "'tau', 'warps_per_sm'" in str(w[0].message) and "CPU" in str(w[0].message)
        assert w[0].filename == __file__  # points at the caller
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            plain = _drain(f(G, device="cpu"))
        assert sorted(map(str, got)) == sorted(map(str, plain)) if name == "find_cliques" else got == plain
    with pytest.warns(UserWarning, match="tau"):
        c = mk.count_maximal_cliques(G, device="cpu", tau=8)
    assert c.params == {}  # nothing the CPU did not use


def _nx_cliques(H, nodes):
    return sorted(map(sorted, nx.find_cliques(H, nodes)))


@pytest.mark.parametrize("seed", range(12))
def test_find_cliques_through_nodes_matches_networkx(seed):
    H = nx.gnp_random_graph(30, 0.3, seed=seed)
    H.add_node(99)
    rng = np.random.default_rng(seed)
    for clique in list(nx.find_cliques(H))[:8]:
        nodes = list(rng.permutation(clique)[: rng.integers(1, len(clique) + 1)].tolist())
        got = list(mk.find_cliques(H, nodes))
        assert all(c[: len(nodes)] == nodes for c in got)  # the given nodes first, as networkx
        assert sorted(map(sorted, got)) == _nx_cliques(H, nodes)
        assert sorted(map(sorted, mk.find_cliques(H, nodes=nodes, min_size=4))) == [
            c for c in _nx_cliques(H, nodes) if len(c) >= 4]
    assert list(mk.find_cliques(H, [99])) == [[99]]
    assert sorted(map(sorted, mk.find_cliques(H, []))) == _nx_cliques(H, None)


def test_find_cliques_nodes_not_a_clique():
    H = nx.path_graph(5)
    for bad in ([0, 2], [0, 0], [7], [0, 1, 2], ["x"]):
        with pytest.raises(ValueError, match="do not form a clique"):
            list(mk.find_cliques(H, bad))
        with pytest.raises(ValueError):
            list(nx.find_cliques(H, bad))
    assert list(mk.find_cliques(nx.Graph(), [1])) == list(nx.find_cliques(nx.Graph(), [1])) == []


@pytest.mark.parametrize("seed", range(8))
def test_per_node_answers_match_networkx(seed):
    H = nx.relabel_nodes(nx.powerlaw_cluster_graph(60, 3, 0.5, seed=seed), lambda v: f"v{v}")
    H.add_node("alone")
    assert mk.number_of_cliques(H) == nx.number_of_cliques(H)
    assert mk.node_clique_number(H) == dict(nx.node_clique_number(H))
    some = ["v0", "v5", "alone"]
    assert mk.number_of_cliques(H, some) == nx.number_of_cliques(H, some)
    assert mk.node_clique_number(H, some) == nx.node_clique_number(H, some)
    assert mk.number_of_cliques(H, "v3") == nx.number_of_cliques(H, "v3")
    assert mk.node_clique_number(H, "v3") == nx.node_clique_number(H, "v3")
    assert isinstance(mk.node_clique_number(H, "v3"), int)
    assert mk.node_clique_number(H, list(H)) == dict(nx.node_clique_number(H))  # many nodes: one pass
    with pytest.raises(KeyError):
        mk.node_clique_number(H, "nope")


def test_per_node_answers_on_graphs_of_ours():
    for G in (erdos_renyi(40, 0.3, seed=1), powerlaw_cluster(80, 3, 0.5, seed=2)):
        counts = np.zeros(G.n, int)
        best = np.zeros(G.n, int)
        for c in cpu.maximal_cliques(G):
            counts[c] += 1
            best[c] = np.maximum(best[c], len(c))
        assert mk.number_of_cliques(G) == dict(enumerate(counts.tolist()))
        assert mk.node_clique_number(G) == dict(enumerate(best.tolist()))


def test_igraph_and_backend_graphs_are_inputs():
    g = ig.Graph.Famous("Zachary")
    H = nx.karate_club_graph()
    assert mk.count_maximal_cliques(g) == sum(1 for _ in nx.find_cliques(H))
    g.vs["name"] = [f"m{i}" for i in range(g.vcount())]
    assert {x for c in mk.find_cliques(g) for x in c} == set(g.vs["name"])
    Hb = mk.nx_backend.as_backend_graph(H)
    assert api.as_graph(Hb) is Hb.G
    assert mk.count_maximal_cliques(Hb) == mk.count_maximal_cliques(H)
    with pytest.raises(TypeError, match="^cannot load a graph from object$"):
        api.as_graph(object())

    class Other:
        __networkx_backend__ = "cugraph"

    with pytest.raises(TypeError, match="networkx backend 'cugraph'"):
        mk.count_maximal_cliques(Other())


def test_engine_is_the_cpu_path_and_the_oracle_agrees():
    G = datasets.load("CA-GrQc")
    assert mk.count_maximal_cliques(G, device="cpu") == cpu.count_maximal_cliques(G)
    assert mk.clique_size_histogram(G, device="cpu") == cpu.clique_size_histogram(G)
    assert mk.max_cliques(G)[0] == cpu.clique_number(G)


@pytest.mark.parametrize("bounds", [dict(min_size=2.5), dict(max_size=-1), dict(min_size=True),
                                    dict(max_size="3")])
def test_size_bounds_are_checked_the_same_way_on_every_route(bounds):
    """A bound that is not a non-negative int is refused up front (the GPU kernels and the CPU
    engine once read 2.5 or -1 each their own way)."""
    G = erdos_renyi(30, 0.3, seed=3)
    for call in (lambda: mk.count_maximal_cliques(G, device="cpu", **bounds),
                 lambda: list(mk.find_cliques(G, device="cpu", **bounds)),
                 lambda: list(mk.maximal_clique_blocks(G, device="cpu", **bounds))):
        with pytest.raises(ValueError, match="must be a non-negative int or None"):
            call()


def test_find_cliques_through_nodes_with_a_floor_below_them():
    """min_size at or below the given nodes' count filters nothing below them (no negative bound is
    passed on to the subgraph's search)."""
    H = nx.gnp_random_graph(30, 0.4, seed=5)
    clique = max(nx.find_cliques(H), key=len)
    nodes = clique[:2]
    for floor in (0, 1, 2, 3):
        got = sorted(map(sorted, mk.find_cliques(H, nodes, min_size=floor, device="cpu")))
        assert got == [c for c in _nx_cliques(H, nodes) if len(c) >= floor]


def test_ring_sizes_are_for_listing_only():
    """ring_words and chunk_words size RDMCE's listing ring: a count refuses them by name."""
    G = erdos_renyi(30, 0.3, seed=3)
    for call in (mk.count_maximal_cliques, mk.clique_size_histogram):
        with pytest.raises(TypeError, match="ring_words"):
            call(G, device="cpu", ring_words=4096)
    with pytest.warns(UserWarning, match="ring_words"):
        assert len(list(mk.find_cliques(G, device="cpu", ring_words=4096))) == mk.count_maximal_cliques(G)


def test_warps_per_sm_is_checked_before_any_launch():
    from mce_kit.gpu import cliquecount, kclique, launch

    for bad in (0, -2, 1.5, True, "8"):
        with pytest.raises(ValueError, match="warps_per_sm must be a positive int"):
            kclique.check_params({"warps_per_sm": bad}, kclique.DEFAULTS, "KCMiner")
        with pytest.raises(ValueError, match="warps_per_sm must be a positive int"):
            kclique.check_params({"warps_per_sm": bad}, cliquecount.DEFAULTS, "clique-count")
    assert launch.check_warps_per_sm(np.int64(3)) == 3


def test_memory_in_refusals_is_readable():
    from mce_kit.gpu import launch

    assert launch.memory_text(4 * 2**20) == "4.0 MiB"
    assert launch.memory_text(6000) == "0.0057 MiB (6,000 bytes)"
    with pytest.raises(MemoryError, match=r"task 1 needs 0\.0038 MiB \(4,016 bytes\) of GPU buffers; only "
                                          r"0\.0038 MiB \(4,000 bytes\) are available"):
        launch.plan_passes({"work": np.array([10, 1001])}, 1, 4000, "T")   # 1004 words once rounded
    assert len(launch.plan_passes({"work": np.array([10, 1000])}, 1, 4000, "T")) == 1   # exactly fits
