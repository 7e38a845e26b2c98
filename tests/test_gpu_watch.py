"""Progress bars and Ctrl-C on the GPU (gpu/watch.py) for RDMCE, mce-gpu, KCMiner and the pivot
counter: the bar changes no count, and a stopped launch ends with exactly the cliques of the seeds
it took.

Run with ``pytest -m gpu``; every test here skips cleanly without a GPU.
"""

import networkx as nx
import numpy as np
import pytest
from graph_families import from_networkx, random_nx_graphs

import mce_kit as mk
from mce_kit.gpu import has_gpu

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not has_gpu(), reason="needs a CUDA GPU")]

ALGORITHMS = ["rdmce", "mce-gpu"]
# edge seeds for both: mce-gpu's vertex seeds (4,039 on ego-Facebook) are all taken at the launch's
# first instant by its 4,224 warps, so neither a bar nor a stop could land between two of them
EDGE_SEEDS = {"rdmce": {}, "mce-gpu": {"subtree": "L2"}}
LONG = "ego-Facebook"  # RDMCE about 0.15 s, mce-gpu about 1.5 s on an H100: long enough to stop mid-run


def _reference(name):
    from mce_kit.experiments.rdmce import reference_counts

    return reference_counts()[name]


def _load(name):
    from mce_kit import datasets

    return datasets.load(name)


def _launcher(algorithm):
    from mce_kit.gpu import mcegpu, rdmce

    return rdmce if algorithm == "rdmce" else mcegpu


class Recorder:
    """A tqdm-like bar that keeps every update, and the tasks in flight each read saw."""

    def __init__(self):
        self.steps, self.in_flight = [], []

    def update(self, n):
        self.steps.append(n)

    def set_postfix(self, in_flight=None, refresh=False):
        self.in_flight.append(in_flight)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_progress_changes_no_count_on_random_graphs(algorithm):
    for i, H in enumerate(random_nx_graphs(40, seed=11)):
        G = from_networkx(H)
        want = sum(1 for _ in nx.find_cliques(H))
        got = [mk.count_maximal_cliques(G, device="gpu", algorithm=algorithm, progress=p)
               for p in (False, True, True, True)]
        assert got == [want] * 4, f"graph {i} ({G.n} vertices, {G.m} edges)"


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_progress_changes_no_count_on_a_bundled_graph(algorithm):
    G, want = _load("wiki-Vote"), _reference("wiki-Vote")
    got = [mk.count_maximal_cliques(G, device="gpu", algorithm=algorithm, progress=p)
           for p in (False, True, True, True)]
    assert got == [want] * 4
    hist = mk.clique_size_histogram(G, device="gpu", algorithm=algorithm, progress=True)
    assert sum(hist.values()) == want


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_the_bar_reaches_every_seed_on_a_long_run(algorithm, monkeypatch):
    from mce_kit.gpu import watch

    monkeypatch.setattr(watch, "POLL_S", 0.01)  # many reads even in RDMCE's 0.15 s
    G = _load(LONG)
    prep = _launcher(algorithm).prepared(G)
    bar = Recorder()
    res = prep.run(progress=bar, **EDGE_SEEDS[algorithm])
    n_seeds = len(prep.seed_arrays("edge" if algorithm == "rdmce" else "L2")[0])
    assert res.count == _reference(LONG)
    assert all(s > 0 for s in bar.steps) and sum(bar.steps) == n_seeds
    # read while the kernel ran, then the end: two steps, or (on a GPU shared with other processes, whose
    # time slices may let every seed be taken between two reads) a read that saw seeds still in flight
    seen_running = max((f or 0 for f in bar.in_flight), default=0) > 0
    assert len(bar.steps) >= 2 or seen_running, (bar.steps, bar.in_flight)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_stop_right_after_launch_names_the_seeds_and_the_next_call_is_exact(algorithm):
    from mce_kit.gpu import watch

    G, want = _load("wiki-Vote"), _reference("wiki-Vote")
    with watch.interrupt_after(0.0), pytest.raises(KeyboardInterrupt) as info:
        mk.count_maximal_cliques(G, device="gpu", algorithm=algorithm)
    s = info.value
    assert isinstance(s, watch.Stopped) and 0 <= s.done <= s.total and 0 <= s.found <= want
    assert f"{s.done:,} of {s.total:,} seeds finished" in str(s) and "lower bound" in str(s)
    assert mk.count_maximal_cliques(G, device="gpu", algorithm=algorithm) == want


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_stopped_launch_counts_exactly_the_seeds_it_took(algorithm):
    # seeds are taken in order, so the seeds finished are the first `done` ones: their count,
    # from a run of those seeds alone, is what the stopped call found (plus the isolated vertices)
    from mce_kit.gpu import watch

    G, want = _load(LONG), _reference(LONG)
    prep = _launcher(algorithm).prepared(G)
    edge = EDGE_SEEDS[algorithm]
    res = prep.run(**edge)
    assert res.count == want and res.passes == 1  # one pass: seeds in index order
    done = []
    # a host starved of CPU (the GPU tests of every file at once) can see each stop only after the
    # launch ended: up to three rounds, until one stop lands mid-run; every stop is checked exactly
    for _ in range(3):
        for delay_s in (0.0, 0.005, 0.02, 0.1):
            with watch.interrupt_after(delay_s), pytest.raises(watch.Stopped) as info:
                prep.run(**edge)
            s = info.value
            first = prep.run(seeds=np.arange(s.done), **edge).count if s.done else 0
            assert s.found == first + len(prep.isolated), f"stopped after {delay_s} s, {s.done} seeds done"
            done.append(s.done)
        if any(0 < d < s.total for d in done):
            break
    assert any(0 < d < s.total for d in done), done  # at least one stop landed mid-run
    assert prep.run(**edge).count == want


def test_kcminer_and_the_pivot_counter_show_a_bar_and_count_the_same():
    from mce_kit.gpu import cliquecount, kclique

    G = _load("wiki-Vote")
    bar = Recorder()
    res = kclique.prepare(G).run(k=6, progress=bar)
    assert res.answer == kclique.prepare(G).run(k=6).answer
    assert sum(bar.steps) == res.pieces and all(s > 0 for s in bar.steps)
    bar = Recorder()
    got = cliquecount.prepare(G).run(k_max=6, progress=bar)
    assert got.answer == cliquecount.prepare(G).run(k_max=6).answer and sum(bar.steps) == got.pieces
    assert got.answer[6] == res.answer
    assert mk.count_k_cliques(G, 6, device="gpu", progress=True) == res.answer


def test_a_stopped_kcminer_launch_counts_exactly_the_tasks_it_took():
    # tasks are taken in order (one pass): the first `done` entries of the launch finished, and
    # what the stopped launch found is their count
    from mce_kit.gpu import kclique, watch

    G = _load(LONG)
    prep = kclique.prepare(G)
    whole = prep.run(k=7, split=False)
    assert whole.passes == 1
    done = []
    for delay_s in (0.0, 0.005, 0.02):
        with watch.interrupt_after(delay_s), pytest.raises(watch.Stopped) as info:
            prep.run(k=7, split=False)
        s = info.value
        assert s.total == whole.pieces and "7-cliques found" in str(s)
        first = prep.run(k=7, split=False, tasks=np.arange(s.done)).answer if s.done else 0
        assert s.found == first, f"stopped after {delay_s} s, {s.done} tasks done"
        done.append(s.done)
    assert any(0 < d < whole.pieces for d in done), done
    assert prep.run(k=7, split=False).answer == whole.answer
    with watch.interrupt_after(0.0), pytest.raises(watch.Stopped):
        mk.clique_counts(G, 8, device="gpu")
    assert mk.clique_counts(G, 5, device="gpu")[5] == prep.run(k=5).answer
