"""The Geil launcher without a GPU: kernel structs, windows, and the whole search on the
NumPy twins of the kernels (device="cpu") against the CPU oracle."""

import itertools

import networkx as nx
import numpy as np
import pytest
from graph_families import (
    complete,
    disjoint_union,
    empty,
    erdos_renyi,
    from_networkx,
    graphs,
    moon_moser,
    planted_cliques,
    powerlaw_cluster,
    star,
)
from hypothesis import given, settings

import mce_kit as mk
from mce_kit import api, cpu, datasets
from mce_kit.bounds import clique_bounds
from mce_kit.gpu import geil
from mce_kit.gpu.launch import kernel_struct_fields
from mce_kit.gpu.loader import read_source

SETTINGS = [dict(), dict(window=4), dict(level_bytes=64), dict(strategy="dfs"),
            dict(window=6, level_bytes=200), dict(dense=0.3), dict(dense=0.3, dfs_depth=3),
            dict(level_bytes=300, max_tasks=3)]


def test_launch_parameters_match_the_kernel_structs():
    src = read_source("geil.cu")
    for dtype, struct in ((geil.PARAMS, "Params"), (geil.HPARAMS, "HParams")):
        assert kernel_struct_fields(src, struct) == [(n, dtype[n].str[1:]) for n in dtype.names]


def test_scratch_covers_the_kernel_layout():
    for p in (1, 2, 31, 32, 33, 100, 1000):
        W = (p + 31) // 32
        layout = p * W + (p + 1) * W + 2 * W + 3 * (p + 1) + (p + 1) + p * (p + 1) // 2
        assert geil.scratch_words(p) >= layout


def test_windows_cover_every_source_in_whole_sublists():
    rng = np.random.default_rng(0)
    olen = rng.integers(0, 20, size=300)
    ok = olen > 3
    for win in (0, 1, 10, 64, 1000):
        cuts = geil.windows(olen, ok, win)
        assert cuts[0][0] == 0 and cuts[-1][1] == 300
        assert all(a < b for a, b in cuts) and all(b == c for (_, b), (c, _) in itertools.pairwise(cuts))
        if win:
            sizes = [int(olen[a:b][ok[a:b]].sum()) for a, b in cuts]
            assert all(s >= win for s in sizes[:-1])
            last = [max(olen[a:b][ok[a:b]], default=0) for a, b in cuts]
            assert all(s - x < win for s, x in zip(sizes, last, strict=True))
    assert geil.windows(olen[:0], ok[:0], 5) == []


def _same(G, res):
    omega, cliques = cpu.max_cliques(G)
    assert res.exact and res.answer == (omega, len(cliques))
    assert res.cliques == cliques


@settings(max_examples=40, deadline=None)
@given(graphs(max_n=18))
def test_numpy_twin_matches_the_oracle(G):
    prep = geil.prepare(G, device="cpu")
    for h in geil.HEURISTICS:
        for kw in SETTINGS:
            _same(G, prep.run(listing=True, heuristic=h, **kw))


@pytest.mark.parametrize("G", [
    empty(0), empty(4), complete(9), moon_moser(12), disjoint_union(complete(5), complete(5), complete(3)),
    planted_cliques(40, 0.2, [7, 7], seed=1), erdos_renyi(30, 0.8, seed=2),
    powerlaw_cluster(60, 3, 0.4, seed=3),
    from_networkx(nx.complete_multipartite_graph(2, 2, 3, 3)),
], ids=lambda G: G.name or repr(G))
def test_structured_graphs_and_ties(G):
    prep = geil.prepare(G, device="cpu")
    for h, kw in itertools.product(geil.HEURISTICS, SETTINGS):
        res = prep.run(listing=True, heuristic=h, **kw)
        _same(G, res)
        assert prep.run(omega_only=True, heuristic=h, **kw).omega == res.omega


def test_fallback_is_reported():
    G = planted_cliques(40, 0.3, [8], seed=4)
    prep = geil.prepare(G, device="cpu")
    assert prep.run(heuristic="none").method == "bfs"
    assert prep.run(heuristic="none", window=8).method == "windowed"
    assert prep.run(heuristic="none", level_bytes=64).method == "bfs+dfs"
    assert prep.run(strategy="dfs").method == "dfs"
    res = prep.run()
    assert res.levels[0] > 0 and res.peak_bytes > 0 and len(res.levels) == res.omega
    assert set(res.row()) >= {"omega", "count", "method", "levels", "peak_bytes", "status"}


def test_time_budget_gives_a_bound_never_a_wrong_answer():
    G = planted_cliques(60, 0.3, [9], seed=5)
    res = geil.prepare(G, device="cpu").run(heuristic="single-degree", time_limit_s=1e-9)
    assert res.status == "bound only" and res.answer is None and res.count is None
    c = res.best_clique
    assert len(c) == res.omega >= 2
    assert all(b in G.neighbors(a) for a, b in itertools.combinations(c, 2))


def test_bad_parameters():
    prep = geil.prepare(complete(4), device="cpu")
    with pytest.raises(TypeError, match="unknown Geil parameter.*windw"):
        prep.run(windw=3)
    with pytest.raises(ValueError, match="heuristic must be"):
        prep.run(heuristic="multi")
    with pytest.raises(ValueError, match="strategy must be"):
        prep.run(strategy="depth")
    with pytest.raises(ValueError, match="window must be >= 0"):
        prep.run(window=-1)
    with pytest.raises(ValueError, match="device must be"):
        geil.prepare(complete(4), device="tpu")


def test_clique_number_stops_at_the_core_bound():
    res = geil.prepare(complete(12), device="cpu").run(omega_only=True)
    assert res.omega == 12 and res.method == "heuristic" and res.levels == []


class CpuGeil:
    """The GPU module's calls, run on the NumPy twins."""

    DEFAULTS = geil.DEFAULTS  # the knobs strict keyword checking accepts

    @staticmethod
    def max_clique_rows(G, **params):
        return geil.max_clique_rows(G, device="cpu", **params)

    @staticmethod
    def clique_number(G, **params):
        return geil.clique_number(G, device="cpu", **params)


def test_api_gpu_path_uses_labels(monkeypatch):
    monkeypatch.setattr("mce_kit.gpu.has_gpu", lambda: True)
    monkeypatch.setattr(api, "_geil", lambda: CpuGeil)
    H = nx.relabel_nodes(nx.complete_multipartite_graph(2, 3, 1), {i: f"v{i}" for i in range(6)})
    H.add_edge("x", "y")
    omega, cliques = mk.max_cliques(H)
    assert omega == 3
    assert sorted(map(sorted, cliques)) == sorted(sorted(c) for c in nx.find_cliques(H) if len(c) == 3)
    n = mk.clique_number(H, heuristic="none")
    assert n == 3 and n.device == "gpu" and n.params == {"heuristic": "none", "route": "bounds"}
    with pytest.raises(TimeoutError, match="bound only"):
        mk.max_cliques(planted_cliques(60, 0.3, [9], seed=5), time_limit_s=1e-9)


def test_api_cpu_and_errors(monkeypatch):
    monkeypatch.setattr("mce_kit.gpu.has_gpu", lambda: False)
    assert mk.clique_number(complete(5)) == 5 and mk.clique_number(complete(5)).device == "cpu"
    with pytest.raises(RuntimeError, match="no usable CUDA GPU"):
        mk.max_cliques(complete(3), device="gpu")


# ---- the shared bounds, the progress bar, Ctrl-C (host loop on the NumPy twins) ----


@settings(max_examples=40, deadline=None)
@given(graphs(max_n=18))
def test_public_calls_start_from_the_bounds(G):
    assert geil.max_cliques(G, device="cpu") == cpu.max_cliques(G)
    assert geil.clique_number(G, device="cpu") == cpu.clique_number(G)


def test_no_kernel_when_the_bounds_meet(monkeypatch):
    def no_search(*a, **k):
        raise AssertionError("prepare() called although the bounds meet")

    monkeypatch.setattr(geil, "prepare", no_search)
    G = disjoint_union(complete(8), erdos_renyi(30, 0.1, seed=1))
    assert geil.clique_number(G, device="cpu") == 8


def test_known_clique_is_the_starting_bound():
    G = planted_cliques(50, 0.2, [9], seed=7)
    omega, cliques = cpu.max_cliques(G)
    prep = geil.prepare(G, device="cpu")
    res = prep.run(listing=True, heuristic="none", lower_clique=np.array(cliques[0]), upper=omega)
    assert res.exact and res.omega == omega and res.cliques == cliques and res.omega_hat == omega
    assert prep.run(omega_only=True, lower_clique=np.array(cliques[0]), upper=omega).method == "heuristic"


def test_known_omega_on_a_half_dense_graph_lists_the_ties_depth_first():
    G = planted_cliques(60, 0.6, [14], seed=3)
    omega, cliques = cpu.max_cliques(G)
    prep = geil.prepare(G, device="cpu")
    assert geil.TIES_DENSITY <= prep.density < geil.DEFAULTS["dense"]
    known = dict(listing=True, lower_clique=np.array(cliques[0]), upper=omega)
    res = prep.run(**known)
    assert (res.method, res.counters["dfs_level"], res.cliques) == ("dfs", 2, cliques)
    forced = prep.run(**known, strategy="bfs")   # a strategy given is kept
    assert (forced.method, forced.cliques) == ("bfs", cliques)
    assert prep.run(**{**known, "upper": omega + 1}).method == "bfs"   # omega not known: breadth first
    assert prep.run(omega_only=True, lower_clique=np.array(cliques[0]), upper=omega).method == "heuristic"


def test_progress_ticks_per_window():
    seen = []

    def wrap(steps):
        for s in steps:
            seen.append(s)
            yield s

    G = planted_cliques(60, 0.3, [8], seed=4)
    prep = geil.prepare(G, device="cpu")
    res = prep.run(listing=True, heuristic="none", window=8, progress=wrap)
    assert res.windows > 1 and seen == list(range(res.windows))
    assert res.answer == (cpu.max_cliques(G)[0], len(cpu.max_cliques(G)[1]))


def test_ctrl_c_between_windows_names_the_best_clique():
    def wrap(steps):
        for i, s in enumerate(steps):
            if i == 2:
                raise KeyboardInterrupt
            yield s

    G = planted_cliques(60, 0.3, [8], seed=4)
    prep = geil.prepare(G, device="cpu")
    stopped = r"Geil stopped: omega >= \d+ \(clique \[.*\]\), omega <= \d+"
    with pytest.raises(KeyboardInterrupt, match=stopped):
        prep.run(heuristic="single-degree", window=8, progress=wrap)
    assert prep.run(listing=True).exact  # the prepared graph is still usable


def test_time_limit_names_both_bounds():
    G = planted_cliques(60, 0.3, [9], seed=5)
    with pytest.raises(TimeoutError, match=r"omega >= \d+ \(clique \[.*\]\), omega <= \d+"):
        geil.max_cliques(G, device="cpu", time_limit_s=1e-9, heuristic="none")


def test_a_list_that_would_not_fit_is_refused(monkeypatch):
    monkeypatch.setattr("mce_kit.config.available_bytes", lambda: 10_000)
    with pytest.raises(MemoryError, match=r"81 maximum cliques of size 4 need .*clique_number"):
        geil.max_cliques(moon_moser(12), device="cpu")
    assert geil.clique_number(moon_moser(12), device="cpu") == 4


def test_ctrl_c_in_the_public_call_names_vertices_of_g(monkeypatch):
    real = geil.prepare
    seen = {}

    def keep(H, device, **kw):
        seen["prep"] = real(H, device, **kw)
        return seen["prep"]

    def interrupt(steps):
        raise KeyboardInterrupt
        yield from steps

    monkeypatch.setattr(geil, "prepare", keep)
    G = disjoint_union(erdos_renyi(30, 0.05, seed=1), planted_cliques(60, 0.3, [8], seed=4))
    with pytest.raises(KeyboardInterrupt) as info:
        geil.max_cliques(G, device="cpu", progress=interrupt, window=8)
    clique = [int(x) for x in str(info.value).split("clique [")[1].split("]")[0].split(", ")]
    assert seen["prep"].G.n < G.n and len(clique) >= 2  # the search ran on a reduced core
    assert all(b in G.neighbors(a) for a, b in itertools.combinations(clique, 2))  # ids of G
    assert min(clique) >= 30  # the clique lies in the planted part


def test_a_core_that_is_the_clique_needs_no_kernel(monkeypatch):
    monkeypatch.setattr(geil, "prepare", lambda *a, **k: pytest.fail("prepare() called"))
    G = disjoint_union(star(5), complete(7), erdos_renyi(20, 0.1, seed=2))
    assert geil.max_cliques(G, device="cpu") == cpu.max_cliques(G)


def test_routes_without_a_kernel(monkeypatch):
    """MANN_a27 through the complement's vertex cover, email-Eu-core through the few roots its bounds
    leave open (the CPU engine): neither prepares Geil's search."""
    monkeypatch.setattr(geil, "prepare", lambda *a, **k: pytest.fail("prepare() called"))
    assert geil.clique_number(datasets.load("MANN_a27"), device="cpu", with_route=True) == (126, "complement")
    G = datasets.load("email-Eu-core")
    assert 0 < clique_bounds(G).open_roots <= geil.HOST_ROOTS
    assert geil.clique_number(G, device="cpu", with_route=True) == (18, "roots")
