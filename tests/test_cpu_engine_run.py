"""How the CPU engine walks its roots (mce_kit.cpu_engine._run): chunks cover every root once
whatever the rate, a call of a few milliseconds runs in at most two chunks, a chunk's time stays
near TARGET_S, and a call with fewer roots than threads still answers like the oracle.

The chunk tests run on a fake clock: the caller advances it by the simulated cost of each range (a
real clock would make them depend on how busy the machine is)."""

import random

import pytest
from graph_families import complete, empty, planted_cliques, random_bipartite, star

from mce_kit import cpu, cpu_engine
from mce_kit.cpu_engine import _run


class FakeClock:
    now = 0.0

    def __call__(self):
        return self.now


def walk(monkeypatch, total, threads, seconds_per_root):
    """The ranges chunks() yields and their simulated times, root r costing seconds_per_root(r)
    (spread over ``threads`` threads)."""
    clock = FakeClock()
    monkeypatch.setattr(_run, "perf_counter", clock)
    ranges, times = [], []
    for lo, hi in _run.chunks(total, threads=threads):
        dt = sum(seconds_per_root(r) for r in range(lo, hi)) / threads
        clock.now += dt
        ranges.append((lo, hi))
        times.append(dt)
    return ranges, times


COSTS = {
    "1 us": lambda r: 1e-6,
    "1 ms": lambda r: 1e-3,
    "rising": lambda r: 1e-6 * (1 + r / 1000),
    "one heavy root": lambda r: 5.0 if r == 3000 else 1e-6,
    "random": random.Random(5).choices((0.0, 1e-7, 1e-5, 1e-3), k=70_001).__getitem__,
}


@pytest.mark.parametrize("cost", COSTS, ids=str)
def test_chunks_cover_every_root_once(monkeypatch, cost):
    for total in (0, 1, 2, 15, 16, 63, 64, 65, 1000, 5242, 70_001):
        for threads in (1, 2, 3, 16):
            ranges, _ = walk(monkeypatch, total, threads, COSTS[cost])
            assert all(lo < hi for lo, hi in ranges), (total, threads)
            covered = [r for lo, hi in ranges for r in range(lo, hi)]
            assert covered == list(range(total)), (total, threads)


def test_a_fast_call_runs_in_two_chunks(monkeypatch):
    # CA-GrQc's size; 1 us a root: the first chunk shows that the rest fits in one
    ranges, _ = walk(monkeypatch, 5242, 16, COSTS["1 us"])
    assert len(ranges) == 2
    assert ranges[0] == (0, _run.FIRST_CHUNK * 16)  # each thread starts with FIRST_CHUNK roots
    ranges, _ = walk(monkeypatch, 5242, 1, COSTS["1 us"])
    assert len(ranges) <= 3


def test_chunk_times_stay_near_the_target(monkeypatch):
    ranges, times = walk(monkeypatch, 200_000, 2, COSTS["1 ms"])
    assert max(times) <= _run.TARGET_S * 1.01
    assert min(times[2:-1]) >= _run.TARGET_S * 0.99  # sized from the rate, not grown step by step
    _, times = walk(monkeypatch, 500_000, 4, COSTS["rising"])  # a root's cost grows 500-fold
    assert max(times) <= 2 * _run.TARGET_S
    assert len(times) <= 2 * sum(times) / _run.TARGET_S + 10


def test_a_slow_chunk_shrinks_the_next():
    assert _run.next_size(1000, 10 * _run.TARGET_S) == 100
    assert _run.next_size(1000, 1e3, threads=4) == 4  # at least a root per thread
    assert _run.next_size(1000, 0.0) == 1000 * _run.GROWTH
    assert _run.next_size(1000, _run.TARGET_S / 2) == 2000


def test_fewer_roots_than_threads_match_the_oracle():
    for G in (complete(9), star(12), empty(4), planted_cliques(40, 0.1, (7, 5), seed=2)):
        assert cpu_engine.clique_size_histogram(G, threads=16) == cpu.clique_size_histogram(G)
        assert cpu_engine.clique_counts(G, threads=16) == cpu.clique_counts(G)
        for algorithm in ("listing", "pivot"):
            got = cpu_engine.count_k_cliques(G, 4, algorithm=algorithm, threads=16)
            assert got == cpu.count_k_cliques(G, 4), algorithm
    B = random_bipartite(5, 9, 0.5, seed=1)
    assert cpu_engine.count_maximal_bicliques(B, threads=16) == cpu.count_maximal_bicliques(B)
