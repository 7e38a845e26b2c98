"""Geil's maximum cliques on a real GPU against the CPU oracle: the same omega and the same
set of maximum cliques, for every heuristic and window size, on random graphs of many kinds.

Run with ``pytest -m gpu``; every test here skips cleanly without a GPU.
"""

import itertools

import networkx as nx
import numpy as np
import pytest
from graph_families import complete, disjoint_union, empty, from_networkx

import mce_kit as mk
from mce_kit import cpu, datasets
from mce_kit.gpu import has_gpu

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not has_gpu(), reason="needs a CUDA GPU")]

N_GRAPHS = 300
WINDOWS = [0, 16, 256]
HEURISTICS = ["none", "single-degree", "single-core", "multi-degree", "multi-core"]


def _random_graph(i):
    """Graph ``i`` of a fixed mix: sparse to dense G(n, p), planted cliques, many ties, power law."""
    rng = np.random.default_rng(1000 + i)
    kind = i % 6
    n = int(rng.integers(4, 64))
    seed = int(rng.integers(1 << 30))
    if kind == 0:
        H = nx.gnp_random_graph(n, float(rng.choice([0.02, 0.05, 0.1, 0.2])), seed=seed)
    elif kind == 1:
        H = nx.gnp_random_graph(min(n, 40), float(rng.choice([0.4, 0.6, 0.8, 0.9])), seed=seed)
    elif kind == 2:
        H = nx.gnp_random_graph(n, float(rng.choice([0.05, 0.2, 0.4])), seed=seed)
        for _ in range(int(rng.integers(1, 4))):
            k = int(rng.integers(3, min(n, 12) + 1))
            H.add_edges_from(itertools.combinations(rng.choice(n, size=k, replace=False).tolist(), 2))
    elif kind == 3:  # ties: equal planted cliques, complete multipartite graphs
        if rng.random() < 0.5:
            H = nx.complete_multipartite_graph(*rng.integers(1, 4, size=int(rng.integers(2, 6))).tolist())
        else:
            H = nx.gnp_random_graph(n, 0.05, seed=seed)
            k = int(rng.integers(3, 7))
            for _ in range(int(rng.integers(2, 6))):
                members = rng.choice(n, size=min(k, n), replace=False).tolist()
                H.add_edges_from(itertools.combinations(members, 2))
    elif kind == 4:
        H = nx.powerlaw_cluster_graph(max(n, 6), int(rng.integers(1, 5)), float(rng.random()), seed=seed)
    else:
        H = nx.disjoint_union(nx.gnp_random_graph(n // 2, 0.5, seed=seed),
                              nx.complete_graph(int(rng.integers(1, 8))))
    return from_networkx(H, f"random-{i}")


@pytest.fixture(scope="module")
def cases():
    from mce_kit.gpu import geil

    out = []
    for i in range(N_GRAPHS):
        G = _random_graph(i)
        out.append((G, geil.prepare(G), cpu.max_cliques(G)))
    return out


def _check(cases, **params):
    bad = []
    for G, prep, (omega, cliques) in cases:
        res = prep.run(listing=True, **params)
        if not (res.exact and res.answer == (omega, len(cliques)) and res.cliques == cliques):
            bad.append((G.name, res.method, res.answer, (omega, len(cliques))))
    assert not bad, f"{len(bad)} of {len(cases)} graphs differ ({params}): {bad[:5]}"


@pytest.mark.parametrize("heuristic", HEURISTICS)
@pytest.mark.parametrize("window", WINDOWS)
def test_random_graphs_match_the_oracle(cases, heuristic, window):
    _check(cases, heuristic=heuristic, window=window)


@pytest.mark.parametrize("params", [
    dict(strategy="dfs", heuristic="none"), dict(strategy="dfs", dfs_depth=2, bitmap_max_n=0, warps_per_sm=1),
    dict(level_bytes=256, window=16, heuristic="none"), dict(bitmap_max_n=0, level_bytes=512, max_tasks=4),
    dict(seeds=3, dense=0.3, dfs_depth=3),
], ids=str)
def test_depth_first_fallback_matches_the_oracle(cases, params):
    _check(cases, **params)


def test_omega_only(cases):
    for _, prep, (omega, _) in cases[:60]:
        assert prep.run(omega_only=True).omega == omega
        assert prep.run(omega_only=True, strategy="dfs", heuristic="none").omega == omega


@pytest.mark.parametrize("G", [empty(0), empty(5), complete(40), complete(600),
                               disjoint_union(complete(33), complete(33), complete(32))], ids=repr)
def test_structured(G):
    from mce_kit.gpu import geil

    omega, cliques = cpu.max_cliques(G) if G.n < 200 else (G.n, [list(range(G.n))])
    prep = geil.prepare(G)
    for params in (dict(), dict(strategy="dfs", heuristic="none"), dict(strategy="dfs", bitmap_max_n=0)):
        res = prep.run(listing=True, **params)
        assert res.answer == (omega, len(cliques)) and res.cliques == cliques, params


def test_many_words_per_bitset():
    """K_1100 depth first: sub-problems of 1099 candidates (35 words a row)."""
    from mce_kit.gpu import geil

    res = geil.prepare(complete(1100)).run(listing=True, strategy="dfs", heuristic="none")
    assert res.answer == (1100, 1) and res.cliques == [list(range(1100))]


def test_dense_graph_goes_depth_first_and_is_right():
    from mce_kit.gpu import geil

    G = datasets.load("C125.9")
    res = geil.prepare(G).run(listing=True)
    assert res.method == "dfs" and res.exact and res.omega == 34 and res.count == len(res.cliques)
    assert all(len(c) == 34 for c in res.cliques)


def test_time_budget_stops_cleanly():
    from mce_kit.gpu import geil

    G = from_networkx(nx.gnp_random_graph(300, 0.9, seed=1))
    res = geil.prepare(G).run(time_limit_s=0.05, heuristic="single-degree")
    assert res.status == "bound only" and res.answer is None
    c = res.best_clique
    assert len(c) == res.omega
    assert all(b in G.neighbors(a) for a, b in itertools.combinations(c, 2))


BUNDLED = ["brock200_2", "brock200_4", "keller4", "hamming8-4", "hamming6-2", "hamming6-4", "johnson8-4-4",
           "c-fat200-1", "p_hat300-1", "san200_0.7_1", "C125.9", "CA-GrQc", "email-Eu-core"]


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_graphs_ten_of_ten(name):
    from mce_kit.experiments.geil import reference
    from mce_kit.gpu import geil

    omega, count = reference()[name]
    prep = geil.prepare(datasets.load(name))
    for _ in range(10):
        res = prep.run(time_limit_s=60)
        assert res.exact and res.omega == omega and (count is None or res.count == count)


# ---- bounds first, progress, Ctrl-C (the public calls on the GPU) ----


@pytest.mark.parametrize("name", ["CA-GrQc", "email-Eu-core", "socfb-MIT", "brock200_2", "keller4",
                                  "hamming8-4", "C125.9"])
def test_public_calls_with_bounds_match_the_reference(name):
    from mce_kit import maxclique_engine
    from mce_kit.experiments.geil import reference
    from mce_kit.gpu import geil

    omega, count = reference()[name]
    G = datasets.load(name)
    assert geil.clique_number(G) == omega
    got, cliques = geil.max_cliques(G)
    assert got == omega and (count is None or len(cliques) == count)
    assert cliques == maxclique_engine.max_cliques(G)[1]  # the CPU engine, itself checked against the oracle
    label = (lambda v: v) if G.labels is None else G.labels.tolist().__getitem__
    labelled = mk.max_cliques(G, device="gpu")             # the public call labels the rows in one gather
    assert labelled == (omega, [[label(v) for v in c] for c in cliques])


def test_public_route_on_random_graphs(cases):
    """The public calls (GPU bounds, then the search from their clique) give the oracle's omega and
    maximum cliques on every random graph."""
    from mce_kit.gpu import geil

    bad = []
    for G, _, (omega, cliques) in cases[:120]:
        got = geil.max_cliques(G)
        if got != (omega, cliques) or geil.clique_number(G) != omega:
            bad.append((G.name, got[0], omega))
    assert not bad, f"{len(bad)} graphs differ: {bad[:5]}"


def test_progress_ticks_and_ctrl_c_frees_the_device():
    import cupy

    from mce_kit.gpu import geil

    seen = []

    def wrap(steps):
        for s in steps:
            seen.append(s)
            yield s

    G = datasets.load("email-Eu-core")
    prep = geil.prepare(G)
    res = prep.run(listing=True, window=2000, progress=wrap)
    assert res.exact and res.windows > 1 and seen == list(range(res.windows))

    def interrupt(steps):
        for i, s in enumerate(steps):
            if i == 1:
                raise KeyboardInterrupt
            yield s

    pool = cupy.get_default_memory_pool()
    before = pool.used_bytes()
    with pytest.raises(KeyboardInterrupt, match=r"omega >= \d+ \(clique \[.*\]\), omega <= \d+"):
        prep.run(listing=True, window=2000, heuristic="none", progress=interrupt)
    assert pool.used_bytes() <= before
    assert prep.run(listing=True).answer == res.answer


def test_routes_on_the_gpu_call():
    """clique_number with no kernel where the complement (MANN_a27) or the bounds' few open roots
    (email-Eu-core) answer; the Count names the route."""
    import mce_kit as mk

    mann = mk.clique_number(datasets.load("MANN_a27"), device="gpu")
    assert mann == 126 and mann.params["route"] == "complement"
    email = mk.clique_number(datasets.load("email-Eu-core"), device="gpu")
    assert email == 18 and email.params["route"] == "roots"
    for name in ("brock200_2", "keller4", "hamming8-4", "C125.9", "socfb-MIT", "CA-GrQc"):
        from mce_kit.experiments.geil import reference

        assert mk.clique_number(datasets.load(name), device="gpu") == reference()[name][0]
