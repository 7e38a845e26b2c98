"""Maximum cliques through the complement (mce_kit.vertex_cover) against the CPU oracle: random graphs
of every family, dense graphs, complements of sparse graphs, the bundled DIMACS graphs; the density
rule, the node cap's fallback, and the route both public calls report."""

import itertools

import networkx as nx
import numpy as np
import pytest
from graph_families import complete, empty, erdos_renyi, from_networkx, graphs, powerlaw_cluster
from hypothesis import given, settings
from hypothesis import strategies as st

import mce_kit as mk
from mce_kit import cpu, datasets
from mce_kit import maxclique_engine as engine
from mce_kit import vertex_cover as vc
from mce_kit.bounds import clique_bounds, is_clique
from mce_kit.experiments.geil import reference


def _check(G, above=0):
    omega = cpu.clique_number(G)
    found = vc.complement_clique(G, above=above)
    assert found is not None
    size, clique = found
    if omega > above:
        assert size == omega and len(clique) == omega and is_clique(G, clique)
    else:
        assert size == above and clique is None


def _nx(G):
    H = nx.Graph()
    H.add_nodes_from(range(G.n))
    H.add_edges_from(G.edges().tolist())
    return H


def _complement(G):
    return from_networkx(nx.complement(_nx(G)))  # nodes keep their order 0..n-1


@settings(max_examples=120, deadline=None)
@given(graphs(max_n=20), st.integers(0, 4))
def test_random_graphs_match_the_oracle(G, below):
    _check(G)
    _check(G, above=max(0, cpu.clique_number(G) - below))  # only larger cliques are sought


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 40), st.sampled_from([0.8, 0.9, 0.95, 0.99]), st.integers(0, 2**31))
def test_dense_graphs_match_the_oracle(n, p, seed):
    _check(erdos_renyi(n, p, seed=seed))


SPARSE = [erdos_renyi(60, 0.05, seed=1), erdos_renyi(80, 0.08, seed=2), powerlaw_cluster(70, 2, 0.5, seed=3),
          from_networkx(nx.cycle_graph(31)), from_networkx(nx.petersen_graph()),
          from_networkx(nx.grid_2d_graph(6, 7))]


@pytest.mark.parametrize("sparse", SPARSE, ids=lambda G: G.name or "graph")
def test_complements_of_sparse_graphs(sparse):
    G = _complement(sparse)
    H = _nx(sparse)
    size, clique = vc.complement_clique(G)
    assert size == cpu.clique_number(G) and is_clique(G, clique)
    assert all(b not in H[a] for a, b in itertools.combinations(clique.tolist(), 2))  # independent in H


@pytest.mark.parametrize("name", sorted(n for n in datasets.names("dimacs") if n in reference()))
def test_every_dimacs_graph_with_a_known_omega(name):
    """Every bundled DIMACS graph with omega in the references, through the route and the engine."""
    omega = reference()[name][0]
    G = datasets.load(name)
    b = clique_bounds(G)
    got = vc.omega_above_bounds(G, b)
    if got is not None:
        assert got[0] == omega and is_clique(G, got[1])
    assert engine.clique_number(G) == omega
    size, clique = engine.omega_and_clique(G)
    assert size == omega and is_clique(G, clique)


def test_mann_a27_goes_through_the_complement():
    G = datasets.load("MANN_a27")
    assert vc.use_complement(G)
    n = mk.clique_number(G, device="cpu")
    assert n == 126 and n.params["route"] == "complement"


def test_the_density_rule():
    assert not vc.use_complement(erdos_renyi(100, 0.5, seed=1))
    assert vc.use_complement(erdos_renyi(100, 0.99, seed=1))
    assert not vc.use_complement(complete(1)) and not vc.use_complement(empty(0))


def test_node_cap_falls_back_to_the_search(monkeypatch):
    G = datasets.load("MANN_a27")
    assert vc.complement_clique(G, node_cap=0) is None
    b = clique_bounds(G)
    assert not b.exact and vc.omega_above_bounds(G, b) is not None
    monkeypatch.setattr(vc, "NODE_CAP", 0)
    assert vc.omega_above_bounds(G, b) is None  # gave up: the callers search instead
    H = erdos_renyi(120, 0.99, seed=1)
    assert not clique_bounds(H).exact and vc.use_complement(H)
    omega, route = engine.clique_number(H, with_route=True)
    assert omega == cpu.clique_number(H) and route == "search"


def test_routes_reported_by_the_public_call():
    assert mk.clique_number(complete(6), device="cpu").params["route"] == "bounds"
    G = erdos_renyi(80, 0.4, seed=2)
    assert mk.clique_number(G, device="cpu").params["route"] == "search"


def test_complement_bit_rows():
    G = erdos_renyi(70, 0.9, seed=5)
    indptr, indices, bits = vc.complement(G)
    A = np.ones((G.n, G.n), bool)
    np.fill_diagonal(A, False)
    e = G.edges()
    A[e[:, 0], e[:, 1]] = A[e[:, 1], e[:, 0]] = False
    for v in range(G.n):
        assert sorted(indices[indptr[v]:indptr[v + 1]].tolist()) == np.flatnonzero(A[v]).tolist()
        got = [u for u in range(G.n) if (int(bits[v, u >> 6]) >> (u & 63)) & 1]
        assert got == np.flatnonzero(A[v]).tolist()


def test_the_density_rule_is_the_measured_one():
    import pandas as pd

    from mce_kit.experiments.maxclique import density_threshold
    from mce_kit.references import RESULTS

    df = pd.read_csv(RESULTS / "maxclique_density.csv")
    assert vc.DENSITY == density_threshold(df)
    mann = df[(df["graph"] == "MANN_a27")].set_index("route")["median_ms"]
    assert mann["complement"] < mann["search"]


@settings(max_examples=80, deadline=None)
@given(graphs(max_n=20))
def test_both_public_paths_through_the_route_on_every_family(G):
    """With the rule opened to every density, the CPU engine and Geil's calls (NumPy twins) take the
    route wherever the bounds do not meet, and still match the oracle."""
    from mce_kit.gpu import geil

    omega, cliques = cpu.max_cliques(G)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(vc, "DENSITY", 0.0)
        route = engine.clique_number(G, with_route=True)
        assert route[0] == omega and (route[1] == "complement") == (G.n > 1 and not clique_bounds(G).exact)
        assert engine.max_cliques(G) == (omega, cliques)
        size, clique = engine.omega_and_clique(G)
        assert size == omega and (G.n == 0 or is_clique(G, clique))
        assert geil.clique_number(G, device="cpu") == omega
        assert geil.max_cliques(G, device="cpu") == (omega, cliques)


@pytest.mark.parametrize("sparse", SPARSE[:4], ids=lambda G: G.name or "graph")
def test_both_public_paths_on_complements_of_sparse_graphs(sparse):
    from mce_kit.gpu import geil

    G = _complement(sparse)
    omega = cpu.clique_number(G)
    assert engine.clique_number(G) == omega and geil.clique_number(G, device="cpu") == omega
    size, clique = engine.omega_and_clique(G)
    assert size == omega and is_clique(G, clique)
