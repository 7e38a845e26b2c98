"""The Numba maximum-clique engine (mce_kit.maxclique_engine) against the CPU oracle: omega and
every maximum clique on random graphs of every family and on the bundled DIMACS graphs; the memory
refusal, the growing clique buffer, the progress bar and Ctrl-C."""

import networkx as nx
import numpy as np
import pytest
from graph_families import (
    complete,
    empty,
    erdos_renyi,
    from_networkx,
    graphs,
    planted_cliques,
    random_nx_graphs,
)
from hypothesis import given, settings

import mce_kit as mk
from mce_kit import cpu, datasets
from mce_kit import maxclique_engine as engine
from mce_kit.bounds import clique_bounds, is_clique
from mce_kit.experiments.geil import reference


@settings(max_examples=150, deadline=None)
@given(graphs(max_n=22))
def test_matches_the_oracle(G):
    omega, cliques = engine.max_cliques(G)
    assert (omega, cliques) == cpu.max_cliques(G)
    assert engine.clique_number(G) == omega
    size, clique = engine.omega_and_clique(G)
    assert size == omega and (G.n == 0 or is_clique(G, clique))


def test_random_families_match_the_oracle():
    for H in random_nx_graphs(120, seed=11):
        G = from_networkx(H)
        assert engine.max_cliques(G) == cpu.max_cliques(G), H


@pytest.mark.parametrize("name", ["brock200_2", "keller4", "hamming6-2", "hamming6-4", "johnson8-4-4",
                                  "c-fat200-1", "p_hat300-1", "san200_0.7_1", "C125.9", "email-Eu-core",
                                  "CA-GrQc"])
def test_bundled_graphs_known_omega_and_count(name):
    omega, count = reference()[name]
    G = datasets.load(name)
    assert engine.clique_number(G) == omega
    got, cliques = engine.max_cliques(G)
    assert got == omega and all(len(c) == omega for c in cliques)
    assert count is None or len(cliques) == count
    assert len({tuple(c) for c in cliques}) == len(cliques)
    assert all(is_clique(G, c) for c in cliques[:50])


def test_refuses_a_list_that_would_not_fit():
    G = from_networkx(nx.complete_multipartite_graph(*[3] * 8))  # 3^8 = 6561 maximum cliques of size 8
    need = engine.bytes_per_clique(8)
    with pytest.raises(MemoryError, match=r"more than 1,000 maximum cliques of size 8.*clique_number"):
        engine.max_cliques(G, memory_bytes=1000 * need)
    assert engine.clique_number(G) == 8  # omega alone is never refused
    omega, cliques = engine.max_cliques(G, memory_bytes=6561 * need)
    assert omega == 8 and len(cliques) == 6561


def test_buffer_grows_and_searches_a_root_again(monkeypatch):
    monkeypatch.setattr(engine, "FIRST_ROWS", 3)
    G = from_networkx(nx.complete_multipartite_graph(*[3] * 5))
    assert engine.max_cliques(G) == cpu.max_cliques(G)


def test_progress_wrapper_sees_every_root():
    seen = []

    def wrap(roots):
        for r in roots:
            seen.append(r)
            yield r

    G = erdos_renyi(80, 0.4, seed=2)
    assert not clique_bounds(G).exact  # so the search runs
    assert engine.clique_number(G, progress=wrap) == cpu.clique_number(G)
    assert seen == list(range(len(seen))) and seen


def test_ctrl_c_names_the_best_clique(monkeypatch):
    monkeypatch.setattr(engine, "NODES_PER_CALL", 1)  # return to Python after every root

    def wrap(roots):
        for i, r in enumerate(roots):
            if i == 3:
                raise KeyboardInterrupt
            yield r

    G = planted_cliques(120, 0.5, [12], seed=3)
    with pytest.raises(KeyboardInterrupt, match=r"omega >= \d+ \(clique \[.*\]\), omega <= \d+"):
        engine.clique_number(G, progress=wrap)


@pytest.mark.parametrize("G", [empty(0), empty(5), complete(1), complete(6)], ids=lambda G: G.name)
def test_trivial_graphs(G):
    assert engine.max_cliques(G) == cpu.max_cliques(G)
    assert engine.clique_number(G) == cpu.clique_number(G)


def test_public_calls_use_the_engine_and_labels():
    H = nx.relabel_nodes(nx.complete_multipartite_graph(2, 3, 1), {i: f"v{i}" for i in range(6)})
    omega, cliques = mk.max_cliques(H, device="cpu", progress=lambda roots: roots)
    assert omega == 3
    assert sorted(map(sorted, cliques)) == sorted(sorted(c) for c in nx.find_cliques(H) if len(c) == 3)
    n = mk.clique_number(H, device="cpu", progress=True)
    assert n == 3 and n.device == "cpu"
    assert np.isfinite(n.seconds)


def test_many_interim_ties_fall_back_to_two_passes(monkeypatch):
    monkeypatch.setattr(engine, "FIRST_ROWS", 2)
    monkeypatch.setattr(engine, "ONE_PASS_BYTES", 0)  # the one-pass search gives up at its first full buffer
    calls = []
    real = engine.omega_and_clique
    monkeypatch.setattr(engine, "omega_and_clique", lambda *a, **k: calls.append(1) or real(*a, **k))
    graphs_ = [G for G in (erdos_renyi(50, 0.5, seed=s) for s in range(40)) if not clique_bounds(G).exact]
    assert len(graphs_) >= 6  # the one-pass search runs first on these
    for G in graphs_[:6]:
        assert engine.max_cliques(G) == cpu.max_cliques(G)
    assert len(calls) >= 3  # and most of the time left the work to the two passes
