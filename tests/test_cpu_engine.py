"""The compiled CPU engine (mce_kit.cpu_engine) against the Python oracles: maximal cliques,
k-cliques (listing and pivoting), maximal bicliques, on the random-graph families and the
bundled graphs; threads, progress bars, Ctrl-C between chunks, memory refusal.

The kernels compile once per session (a few seconds each, then Numba's cache)."""

import itertools
from math import comb

import numpy as np
import pytest
from graph_families import (
    bipartite_graphs,
    brute_force_bicliques,
    complete,
    complete_bipartite,
    crown,
    disjoint_union,
    empty,
    erdos_renyi,
    graphs,
    moon_moser,
    planted_cliques,
    powerlaw_cluster,
    random_bipartite,
    star,
)
from hypothesis import given, settings

import mce_kit as mk
from mce_kit import cpu, cpu_engine, datasets, references
from mce_kit import threads as launch_threads
from mce_kit.cpu_engine import _run
from mce_kit.threads import on_threads, strided


def family():
    grid = [*itertools.product((12, 40), (0.05, 0.3, 0.6, 0.9)), (70, 0.05), (70, 0.3)]
    out = [erdos_renyi(n, p, seed=n + int(10 * p)) for n, p in grid]
    out += [powerlaw_cluster(n, 3, 0.6, seed=n) for n in (30, 150)]
    out += [planted_cliques(90, 0.08, (9, 70, 5), seed=3)]  # P wider than one 64-bit word
    out += [complete(1), complete(9), complete(66), empty(0), empty(4), star(70), moon_moser(12)]
    out += [disjoint_union(complete(4), empty(3), star(3), erdos_renyi(20, 0.4, seed=9))]
    return out


def _same(a, b):
    return sorted(map(sorted, a)) == sorted(map(sorted, b))


@pytest.mark.parametrize("G", family(), ids=lambda G: f"n{G.n}m{G.m}")
def test_maximal_cliques_match_the_oracle(G):
    for lo, hi in [(None, None), (1, 1), (2, None), (None, 3), (3, 5), (5, 2)]:
        want = list(cpu.maximal_cliques(G, min_size=lo, max_size=hi))
        hist = cpu.clique_size_histogram(G, min_size=lo, max_size=hi)
        assert _same(cpu_engine.maximal_cliques(G, lo, hi), want), (lo, hi)
        for threads in (1, 3):
            assert cpu_engine.clique_size_histogram(G, lo, hi, threads=threads) == hist, (lo, hi, threads)


@pytest.mark.parametrize("G", family(), ids=lambda G: f"n{G.n}m{G.m}")
def test_k_cliques_match_the_oracle(G):
    want = cpu.clique_counts(G, 7)  # the pivot oracle (the listing one takes minutes on the dense graphs)
    if G.n <= 40:
        assert want == cpu.count_k_cliques_range(G, range(1, 8))
    for k in range(1, 8):
        for algorithm in ("listing", "pivot", "auto"):
            got = cpu_engine.count_k_cliques(G, k, algorithm=algorithm, threads=2)
            assert got == want.get(k, 0), (k, algorithm)
    for k_max in (None, 1, 2, 4):
        assert cpu_engine.clique_counts(G, k_max, threads=3) == cpu.clique_counts(G, k_max)


@pytest.mark.parametrize("G", family()[::3] + [datasets.load("CA-GrQc")], ids=lambda G: f"n{G.n}m{G.m}")
def test_numba_threads_give_the_python_threads_results(G):
    """The k-clique kernels' parallel twins (Numba's threads) return, per stride, what the serial
    kernel returns on Python threads, at thread counts above, at and below the cores and the roots."""
    from mce_kit.cpu_engine import kclique, oriented

    indptr, indices, _, d = oriented(G)
    width = d + 3
    for T in (2, 3, 4, 7, 16, G.n + 2):
        for a, b in [(0, G.n), (G.n // 3, G.n), (0, min(G.n, 5))]:
            want = strided(kclique.leaves_range, T, (indptr, indices), a, b, 0, width, width)
            got = on_threads(kclique.leaves_threads, kclique.leaves_range, T, (indptr, indices), a, b, 0,
                             width, width)
            assert sum(map(np.asarray, want)).tolist() == sum(map(np.asarray, got)).tolist(), (T, a, b)
            for k in (3, 5):
                want = strided(kclique.count_range, T, (indptr, indices), a, b, k)
                got = on_threads(kclique.count_threads, kclique.count_range, T, (indptr, indices), a, b, k)
                assert sum(map(int, want)) == sum(map(int, got)), (T, a, b, k)
    assert launch_threads.threadsafe_layer()   # this machine's Numba has OpenMP: the twins ran


@pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(), reason="no fork")
def test_a_forked_child_counts_on_python_threads():
    """GNU OpenMP ends a child forked from a process that used it, and a fork has none of the
    parent's pool threads: after the parent ran both, a forked child takes ``strided`` on a pool of
    its own (the child's count, and its exit, checked)."""
    import multiprocessing as mp

    from mce_kit.cpu_engine import kclique, oriented

    G = datasets.load("CA-GrQc")
    want = cpu_engine.count_k_cliques(G, 5, algorithm="pivot", threads=2)   # the parent's Numba threads
    indptr, indices, _, _ = oriented(G)
    assert sum(strided(kclique.count_range, 3, (indptr, indices), 0, G.n, 3)) > 0   # and its thread pool
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    child = ctx.Process(target=_count_into, args=(q, G))
    child.start()
    child.join(120)
    assert child.exitcode == 0 and q.get(timeout=5) == want


def _count_into(q, G):
    q.put(cpu_engine.count_k_cliques(G, 5, algorithm="pivot", threads=2))


def test_python_threads_where_numba_layer_is_not_thread_safe(monkeypatch):
    """A workqueue layer (unsafe for concurrent callers) or MCE_KIT_PYTHON_THREADS=1: ``strided``."""
    from numba import config

    for layer, env, want in [("workqueue", "0", False), ("omp", "1", False), ("default", "0", True)]:
        monkeypatch.setattr(launch_threads, "_THREADSAFE", [])
        monkeypatch.setattr(config, "THREADING_LAYER", layer)
        monkeypatch.setenv("MCE_KIT_PYTHON_THREADS", env)
        assert launch_threads.threadsafe_layer() is want, layer
    monkeypatch.setattr(launch_threads, "_THREADSAFE", [False])

    def twin(*args):
        raise AssertionError("the parallel twin ran on an unsafe layer")

    G = datasets.load("CA-GrQc")
    assert cpu_engine.clique_counts(G, 6, threads=4) == cpu.clique_counts(G, 6)
    from mce_kit.cpu_engine import kclique, oriented

    indptr, indices, _, _ = oriented(G)
    got = on_threads(twin, kclique.count_range, 4, (indptr, indices), 0, G.n, 4)
    assert sum(got) == cpu.count_k_cliques(G, 4)


@settings(max_examples=120, deadline=None)
@given(graphs(max_n=14))
def test_every_family_matches_the_oracle(G):
    assert _same(cpu_engine.maximal_cliques(G), cpu.maximal_cliques(G))
    assert cpu_engine.clique_size_histogram(G, threads=2) == cpu.clique_size_histogram(G)
    assert cpu_engine.clique_counts(G) == cpu.clique_counts(G)
    assert cpu_engine.count_k_cliques(G, 4, algorithm="listing") == cpu.count_k_cliques(G, 4)


def test_counts_past_two_to_the_63_are_exact():
    G = complete(70)
    counts = cpu_engine.clique_counts(G)
    assert counts[35] == comb(70, 35) > 2**63
    assert counts == {k: comb(70, k) for k in range(1, 71)}
    assert cpu_engine.count_k_cliques(G, 35, algorithm="pivot") == comb(70, 35)


def _pairs(found):
    return sorted((tuple(sorted(L)), tuple(sorted(R))) for L, R in found)


BIPARTITE = [random_bipartite(40, 25, p, seed=s) for p in (0.1, 0.3, 0.7) for s in (1, 2)] + [
    random_bipartite(150, 90, 0.05, seed=3), complete_bipartite(5, 70), crown(9)]


@pytest.mark.parametrize("B", BIPARTITE, ids=lambda B: B.name)
def test_bicliques_match_the_oracle(B):
    want = _pairs(cpu.maximal_bicliques(B))
    assert _pairs(cpu_engine.maximal_bicliques(B)) == want
    for threads in (1, 3):
        assert cpu_engine.count_maximal_bicliques(B, threads=threads) == len(want)


@settings(max_examples=80, deadline=None)
@given(bipartite_graphs(max_side=8))
def test_bicliques_match_brute_force(B):
    want = sorted((tuple(sorted(L)), tuple(sorted(R))) for L, R in brute_force_bicliques(B))
    assert _pairs(cpu_engine.maximal_bicliques(B)) == want
    assert cpu_engine.count_maximal_bicliques(B) == len(want)


def test_bundled_graphs_match_the_references():
    G = mk.datasets.load("CA-GrQc")
    assert cpu_engine.count_maximal_cliques(G) == references.expected("mce", "CA-GrQc")
    for k in (4, 8):
        want = references.expected("kclique", "CA-GrQc", k=k)
        assert cpu_engine.count_k_cliques(G, k, algorithm="pivot") == want
    want = references.expected("kclique", "CA-GrQc", k=4)
    assert cpu_engine.count_k_cliques(G, 4, algorithm="listing") == want
    B = mk.datasets.load("dbpedia-writer")
    assert cpu_engine.count_maximal_bicliques(B) == references.expected("mbe", "dbpedia-writer")


def test_api_cpu_calls_use_the_engine_and_match_the_oracle():
    G = planted_cliques(60, 0.1, (8, 6), seed=5)
    assert mk.count_maximal_cliques(G, device="cpu") == cpu.count_maximal_cliques(G)
    assert mk.count_k_cliques(G, 5, device="cpu", algorithm="pivot") == cpu.count_k_cliques(G, 5)
    assert mk.count_k_cliques(G, 5, device="cpu", algorithm="listing").params["algorithm"] == "listing"
    assert mk.clique_counts(G, 6, device="cpu") == cpu.clique_counts(G, 6)
    with pytest.raises(ValueError, match="algorithm"):
        mk.count_k_cliques(G, 5, device="cpu", algorithm="fast")
    B = random_bipartite(30, 20, 0.3, seed=4)
    assert mk.count_maximal_bicliques(B, device="cpu") == cpu.count_maximal_bicliques(B)
    assert mk.count_maximal_bicliques(B, device="cpu", min_left=2) == sum(
        1 for L, _ in cpu.maximal_bicliques(B) if len(L) >= 2)


def test_auto_rule_picks_by_k_and_degeneracy():
    sparse, dense = erdos_renyi(40, 0.1, seed=1), complete(cpu_engine.LISTING_MAX_D + 5)
    assert cpu_engine.pick_algorithm(sparse, 3) == "listing"
    assert cpu_engine.pick_algorithm(sparse, cpu_engine.LISTING_MAX_K + 1) == "pivot"
    assert cpu_engine.pick_algorithm(dense, 3) == "pivot"


def test_progress_bars_and_wrappers_cover_every_root(monkeypatch):
    monkeypatch.setattr(_run, "FIRST_CHUNK", 7)
    G = powerlaw_cluster(150, 3, 0.6, seed=2)
    seen = []

    def wrapper(roots):
        for v in roots:
            seen.append(v)
            yield v

    assert cpu_engine.count_maximal_cliques(G, progress=wrapper) == cpu.count_maximal_cliques(G)
    assert seen == list(range(G.n))

    class Bar:
        n = 0

        def update(self, k):
            self.n += k

    bar = Bar()
    assert cpu_engine.clique_counts(G, 5, progress=bar) == cpu.clique_counts(G, 5)
    assert bar.n == G.n
    assert cpu_engine.count_maximal_cliques(G, progress=True) == cpu.count_maximal_cliques(G)


def test_ctrl_c_lands_between_chunks(monkeypatch):
    monkeypatch.setattr(_run, "FIRST_CHUNK", 5)
    G = powerlaw_cluster(150, 3, 0.6, seed=2)

    class Interrupting:
        calls = roots = 0

        def update(self, k):
            self.calls, self.roots = self.calls + 1, self.roots + k
            raise KeyboardInterrupt

    bar = Interrupting()
    with pytest.raises(KeyboardInterrupt):
        cpu_engine.count_k_cliques(G, 4, algorithm="listing", progress=bar, threads=2)
    assert bar.calls == 1 and bar.roots == 2 * 5 < G.n  # stopped after the first chunk, not at the end


def test_listing_more_than_memory_is_refused(monkeypatch):
    monkeypatch.setattr(_run, "available_bytes", lambda: 1000)
    G = moon_moser(15)  # 243 maximal cliques of 5 vertices, most from the first roots
    with pytest.raises(MemoryError, match="needs .* GiB"):
        list(cpu_engine.maximal_clique_blocks(G, block_size=4))
    B = crown(12)
    with pytest.raises(MemoryError, match="needs .* GiB"):
        list(cpu_engine.maximal_biclique_blocks(B, block_size=2))


def test_versus_compares_on_the_peers_clock():
    import pandas as pd

    from mce_kit.viz import cpu_engine_figures as v

    cols = ["problem", "graph", "code", "threads", "clock", "median_ms", "cpu_median_ms", "cpu", "cores"]
    rows = pd.DataFrame([
        ("mce", "g", v.OURS, 1, "wall", 30.0, 6.0, "A", 2),
        ("mce", "g", "HBBMC", 1, "cpu", 4.0, 90.0, "A", 2),  # prints CPU time: compared with our CPU time
        ("mce", "g", "igraph", 1, "wall", 1.0, 1.0, "A", 2),  # not one of the peers
        ("mbe", "b", v.OURS, 2, "wall", 5.0, 9.0, "A", 2),
        ("mbe", "b", "ParAdaMBE", 2, "wall", 2.0, 3.0, "A", 2),
        ("mbe", "b", v.OURS, 2, "wall", 1.0, 2.0, "B", 16),  # another machine: its own pair
        ("mbe", "b", "ParAdaMBE", 2, "wall", 4.0, 3.0, "B", 16),
        ("mce", "h", v.OURS, 1, "wall", 3.0, 3.0, "B", 16),
        ("mce", "h", "HBBMC", 1, "cpu", 0.0, 3.0, "B", 16)], columns=cols)  # under HBBMC's clock tick
    t = v.versus(rows).set_index(["machine", "graph"])
    assert t.loc[("A, 2 cores", "g"), "peer"] == "HBBMC" and t.loc[("A, 2 cores", "g"), "ours / peer"] == 1.5
    assert t.loc[("A, 2 cores", "g"), "within 2x"]
    assert t.loc[("A, 2 cores", "b"), "ours / peer"] == 2.5 and not t.loc[("A, 2 cores", "b"), "within 2x"]
    assert t.loc[("B, 16 cores", "b"), "ours / peer"] == 0.25
    assert t.loc[("B, 16 cores", "h"), "within 2x"] is None  # no ratio to judge
    assert v.igraph_view(rows[rows["cpu"] == "A"])["igraph / ours"].tolist() == [0.2]


def test_a_root_too_big_for_memory_is_refused_up_front(monkeypatch):
    B = complete_bipartite(70, 5)  # V: the 5 vertices, each row 70 bits (2 words)
    need = cpu_engine.root_bytes(B)
    assert need >= 8 * 5 * 2
    monkeypatch.setattr(_run, "available_bytes", lambda: 2 * need)  # fits on one thread, not on three
    assert cpu_engine.count_maximal_bicliques(B, threads=1) == 1
    with pytest.raises(MemoryError, match="needs .* GiB"):
        cpu_engine.count_maximal_bicliques(B, threads=3)
