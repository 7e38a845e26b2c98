"""The bounds on the GPU (gpu/bounds.py) against the oracles: a real clique below omega, every
upper bound above it, every root's bound above its cliques, the host's core numbers and a
degeneracy order; the same bounds on every run; and a max-clique process that takes them needs
no Numba. Run with ``pytest -m gpu``; every test here skips cleanly without a GPU."""

import subprocess
import sys

import numpy as np
import pytest
from graph_families import complete, disjoint_union, empty, erdos_renyi, graphs, moon_moser, planted_cliques
from hypothesis import given, settings

from mce_kit import cpu, datasets
from mce_kit.bounds import is_clique
from mce_kit.gpu import has_gpu
from mce_kit.graph import rows_of
from mce_kit.order import core_numbers

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not has_gpu(), reason="needs a CUDA GPU")]


def gpu_bounds(G):
    from mce_kit.gpu.bounds import _clique_bounds

    return _clique_bounds(G)


def summary(b):
    return b.lower, b.upper, b.clique.tolist(), None if b.root_bound is None else b.root_bound.tolist()


def check(G, b, omega, cliques=None):
    assert b.lower <= omega <= b.upper
    assert len(b.clique) == b.lower and is_clique(G, b.clique)
    assert b.upper == min(b.upper_core, b.upper_ego) and b.upper_core == int(b.core.max()) + 1
    assert b.core.tolist() == core_numbers(G).tolist()
    rank = np.empty(G.n, np.int64)
    rank[b.order] = np.arange(G.n)
    assert sorted(b.order.tolist()) == list(range(G.n))
    src = rows_of(G.indptr)
    later = rank[G.indices] > rank[src]
    assert np.all(np.bincount(src[later], minlength=G.n) <= b.core)
    if b.root_bound is not None and cliques is not None:   # no clique beats its earliest vertex's bound
        assert b.root_bound.max() <= b.upper_ego
        for c in cliques:
            assert b.root_bound[min(c, key=lambda v: rank[v])] >= omega


@settings(max_examples=200, deadline=None)
@given(graphs(max_n=24))
def test_gpu_bounds_hold_on_random_graphs(G):
    if G.n == 0:
        assert gpu_bounds(G).lower == 0
        return
    omega, cliques = cpu.max_cliques(G)
    check(G, gpu_bounds(G), omega, cliques)


@pytest.mark.parametrize("G", [complete(7), empty(3), moon_moser(9), erdos_renyi(120, 0.3, seed=4),
                               planted_cliques(300, 0.05, [14, 12, 12], seed=2),
                               disjoint_union(complete(6), erdos_renyi(40, 0.2, seed=1))],
                         ids=lambda G: f"n{G.n}m{G.m}")
def test_gpu_bounds_on_families(G):
    omega, cliques = cpu.max_cliques(G)
    check(G, gpu_bounds(G), omega, cliques)


@pytest.mark.parametrize("name", ["CA-GrQc", "email-Eu-core", "wiki-Vote", "socfb-MIT", "brock200_2",
                                  "keller4", "hamming8-4", "MANN_a27", "c-fat200-1", "san200_0.7_1"])
def test_gpu_bounds_on_bundled_graphs_every_run(name):
    from mce_kit.experiments.geil import reference

    G = datasets.load(name)
    omega = reference()[name][0]
    runs = [gpu_bounds(G) for _ in range(3)]
    for b in runs:
        check(G, b, omega)
        assert summary(b) == summary(runs[0])
    if name == "CA-GrQc":   # the greedy clique meets the core bound: no search
        assert runs[0].exact and runs[0].lower == 44


def test_max_cliques_on_the_gpu_imports_no_numba():
    code = ("import sys, mce_kit as mk; G = mk.datasets.load('email-Eu-core'); "
            "omega, cl = mk.max_cliques(G, device='gpu'); "
            "print(omega, len(cl), 'numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["18", "56", "False"]


def test_one_warp_takes_every_root_and_no_room_falls_back_to_the_host(monkeypatch):
    from mce_kit import bounds
    from mce_kit.gpu import bounds as gb

    G = planted_cliques(300, 0.05, [14, 12, 12], seed=2)
    want = summary(gpu_bounds(G))
    monkeypatch.setattr(gb, "WARPS_PER_SM", 0)   # one warp: every root from the queue in turn
    assert summary(gpu_bounds(G)) == want
    monkeypatch.setattr(gb, "SCRATCH_BYTES", 16)   # not one warp's rows: the host's bounds
    assert summary(gpu_bounds(G)) == summary(bounds._clique_bounds(G, bounds.SWAP_ROUNDS))
