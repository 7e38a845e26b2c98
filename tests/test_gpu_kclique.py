"""KCMiner and the all-k pivot counter on a real GPU against the CPU oracles: same counts, every run.

Run with ``pytest -m gpu``; every test here skips cleanly without a GPU.
"""

import functools
import itertools
import math
from collections import Counter

import pytest
from graph_families import complete, planted_cliques
from kclique_cases import random_graph

import mce_kit as mk
from mce_kit import cpu
from mce_kit.gpu import has_gpu

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not has_gpu(), reason="needs a CUDA GPU")]

N_RANDOM = 300
# every switch of the ablation on its own, together, and with the other orientation;
# lam=1.0 forces the bitmap one level deeper (gamma <= 1 always), lam=-1 never
SWITCHES = {
    "thread": dict(scheduling=False, dynamic=False, size=False),
    "sched": dict(scheduling=True, dynamic=False, size=False),
    "level3": dict(scheduling=False, dynamic=True, lam=1.0, size=False),
    "size": dict(scheduling=False, dynamic=False, size=True),
    "all-level3": dict(scheduling=True, dynamic=True, lam=1.0, size=True),
    "default-degeneracy": dict(order="degeneracy"),
    "rows-by-row": dict(rows="by_row"),
    "rows-by-row-level3": dict(rows="by_row", lam=1.0),
    # block_min=0: every task on a whole block (the path of tasks over 1024 candidates)
    "block": dict(block_min=0),
    "block-level3-thread": dict(block_min=0, lam=1.0, scheduling=False),
}


@functools.cache
def _case(seed):
    G = random_graph(seed)
    return G, cpu.clique_counts(G, 8)  # equal to the ordered oracle on these seeds (test_cpu_kclique)


@functools.cache
def _prep(seed, order):
    from mce_kit.gpu import kclique

    return kclique.prepare(_case(seed)[0], order)


@pytest.mark.parametrize("switches", list(SWITCHES), ids=list(SWITCHES))
def test_random_graphs_every_k_and_switch_set(switches):
    params = dict(SWITCHES[switches])
    order = params.pop("order", "degree")
    bad = []
    for seed in range(N_RANDOM):
        G, ref = _case(seed)
        prep = _prep(seed, order)
        for k in range(3, 9):
            got = prep.run(k=k, **params).answer
            if got != ref[k]:
                bad.append((seed, G.name, k, got, ref[k]))
    assert not bad, bad[:10]


def test_clique_counts_on_random_graphs():
    from mce_kit.gpu import cliquecount

    bad = []
    for seed in range(N_RANDOM):
        G, _ = _case(seed)
        for k_max in (None, 5, 8):
            got = cliquecount.clique_counts(G, k_max)
            want = cpu.clique_counts(G, k_max)
            if got != want:
                bad.append((seed, k_max, got, want))
    assert not bad, bad[:5]


def test_listing_matches_the_oracle_and_grows_its_buffer(monkeypatch):
    from mce_kit.gpu import kclique

    monkeypatch.setattr(kclique, "LIST_CAP", 8)
    for seed in range(0, 120, 3):
        G, ref = _case(seed)
        for k in (3, 4, 5, 6):
            want = sorted(tuple(sorted(c)) for c in cpu.k_cliques(G, k))
            for params in (dict(), dict(block_min=0)):
                rows = kclique.k_cliques(G, k, **params)
                assert len(rows) == ref[k]
                assert sorted(tuple(sorted(c)) for c in rows.tolist()) == want


@pytest.mark.parametrize("switches", ["default", "thread", "level3", "block"])
def test_split_tasks_count_every_clique_once(monkeypatch, switches):
    # every edge with 1+ candidates cut into n pieces: the pieces of an edge share out its
    # first-level vertices (KCMiner) or the sub-trees below its tree's large top (pivot counter)
    from mce_kit.gpu import cliquecount, kclique

    monkeypatch.setattr(kclique, "SPLIT_MIN_SIZE", 1)
    monkeypatch.setattr(cliquecount, "SPLIT_MIN_SIZE", 1)
    params = {} if switches == "default" else dict(SWITCHES.get(switches, SWITCHES["all-level3"]))
    bad = []
    for seed in range(0, N_RANDOM, 3):
        G, ref = _case(seed)
        prep = _prep(seed, "degree")
        for n in (2, 3, 7):
            for k in range(5, 9):
                res = prep.run(k=k, split=n, **params)
                if res.answer != ref[k]:
                    bad.append((seed, k, n, res.answer, ref[k]))
            if switches == "default" and cliquecount.clique_counts(G, 8, split=n) != ref:
                bad.append((seed, "pivot", n))
    assert not bad, bad[:10]


def test_exact_candidates_counted_on_the_gpu_equal_the_host():
    from mce_kit.distributed import common_later_neighbours
    from mce_kit.gpu import kclique

    for seed in range(0, N_RANDOM, 10):
        G, _ = _case(seed)
        for order in ("degree", "degeneracy"):
            ori = kclique.orient(G, order)
            want = common_later_neighbours(ori.indptr, ori.indices, ori.u, ori.v)
            assert ori.common(len(ori.u) // 2).tolist() == want[: len(ori.u) // 2].tolist()
            assert ori.common(len(ori.u)).tolist() == want.tolist()   # grows the kept prefix


def test_split_listing_gives_each_clique_once(monkeypatch):
    from mce_kit.gpu import kclique

    monkeypatch.setattr(kclique, "SPLIT_MIN_SIZE", 1)
    for seed in range(0, 120, 5):
        G, ref = _case(seed)
        for k in (5, 6):
            want = sorted(tuple(sorted(c)) for c in cpu.k_cliques(G, k))
            rows = kclique.k_cliques(G, k, split=4)
            assert sorted(tuple(sorted(c)) for c in rows.tolist()) == want


def test_heavy_edges_split_on_their_own_and_answers_stay_exact():
    from mce_kit.gpu import cliquecount, kclique

    G = planted_cliques(400, 0.02, [60, 45], seed=11)
    want = cpu.clique_counts(G, 8)
    for k in (5, 7, 8):
        on, off = kclique.prepare(G).run(k=k), kclique.prepare(G).run(k=k, split=False)
        assert on.pieces > on.tasks and off.pieces == off.tasks
        assert on.answer == off.answer == want[k]
    on = cliquecount.prepare(G).run(k_max=8)
    assert on.answer == cliquecount.prepare(G).run(k_max=8, split=False).answer == want
    # the timeline: every entry once, each edge's pieces all there, its nodes those counted
    tl = cliquecount.prepare(G).run(k_max=8, timeline=True, max_buffer_bytes=1 << 20)
    assert tl.answer == want and len(tl.timeline["edge"]) == tl.pieces
    assert tl.timeline["nodes"].sum() == tl.nodes and (tl.timeline["end_ms"] >= tl.timeline["start_ms"]).all()
    edge, piece, pieces = (tl.timeline[c].tolist() for c in ("edge", "piece", "pieces"))
    got = Counter(zip(edge, piece, strict=True))
    assert max(got.values()) == 1
    assert all(got[e, j] for e, n in zip(edge, pieces, strict=True) for j in range(n))


@pytest.mark.parametrize("learn", [True, False])
def test_a_split_launch_takes_its_entries_by_the_nodes_it_measured(monkeypatch, learn):
    # after one launch, the next takes the split entries by that launch's tree nodes, most first
    # (LEARN_FROM_MS: only after a long launch); the counts stay exact on every run
    from mce_kit.gpu import cliquecount

    monkeypatch.setattr(cliquecount, "LEARN_FROM_MS", 0.0 if learn else 1e9)
    G = planted_cliques(400, 0.02, [60, 45], seed=11)
    want = cpu.clique_counts(G, 8)
    prep = cliquecount.prepare(G)
    runs = [prep.run(k_max=8, timeline=True) for _ in range(3)]
    assert all(r.answer == want for r in runs)
    first, later = runs[0].timeline, runs[1].timeline
    entry = [list(zip(t["edge"].tolist(), t["piece"].tolist(), strict=True)) for t in (first, later)]
    nodes = [dict(zip(e, t["nodes"].tolist(), strict=True))
             for e, t in zip(entry, (first, later), strict=True)]
    assert sorted(entry[0]) == sorted(entry[1]) and nodes[0] == nodes[1]   # the same trees
    head = int((later["bound"] >= cliquecount.SPLIT_MIN_SIZE).sum())   # the splittable prefix
    assert (later["bound"][:head] >= cliquecount.SPLIT_MIN_SIZE).all() and (later["pieces"] > 1).any()
    assert entry[1][head:] == entry[0][head:]                             # the whole tail unmoved
    if learn:
        assert entry[1] != entry[0]
        assert all(a >= b for a, b in itertools.pairwise(later["nodes"][:head].tolist()))
    else:
        assert entry[1] == entry[0]
    assert runs[2].timeline["edge"].tolist() == later["edge"].tolist()


def test_launches_from_a_shared_queue_keep_the_bounds_order(monkeypatch):
    # every GPU on a shared queue must launch the same entries in the same order, so a launch there
    # neither learns an order nor takes a learned one; outside, the next launch learns as usual
    import cupy

    from mce_kit.gpu import cliquecount, launch

    monkeypatch.setattr(cliquecount, "LEARN_FROM_MS", 0.0)
    G = planted_cliques(400, 0.02, [60, 45], seed=11)
    want = cpu.clique_counts(G, 8)
    prep = cliquecount.prepare(G)
    orders = []
    for shared in (True, True, False, True, False):
        if shared:
            counters = cupy.zeros(4 * launch.QUEUE_SLOT_BYTES // 4, dtype=cupy.int32)
            with launch.shared_task_queue(counters.data.ptr, 4):
                r = prep.run(k_max=8, timeline=True)
        else:
            r = prep.run(k_max=8, timeline=True)
        assert r.answer == want
        orders.append(list(zip(r.timeline["edge"].tolist(), r.timeline["piece"].tolist(), strict=True)))
    assert orders[0] == orders[1] == orders[2] == orders[3]   # the first launch outside only learns
    assert orders[4] != orders[0]                             # the next one takes the measured order


def test_chunks_take_the_whole_launchs_pieces_and_add_up_exactly():
    # split_of="all": a chunk's heavy edges run as the same pieces as in the whole launch, so the
    # chunks' pieces add up to the whole's; "tasks" (the default) sizes them on the chunk alone
    from mce_kit import distributed as md
    from mce_kit.gpu import cliquecount, kclique

    G = planted_cliques(400, 0.02, [60, 45], seed=11)
    want = cpu.clique_counts(G, 8)
    for algo, prep, params, answer in (("kcminer", kclique.prepare(G), dict(k=7), want[7]),
                                       ("cliquecount", cliquecount.prepare(G), dict(k_max=8), want)):
        whole = prep.run(**params)
        chunks = md.chunk_tasks(md.prepare(G, algo, **params).costs, 3)
        same = [prep.run(tasks=c, split_of="all", **params) for c in chunks]
        own = [prep.run(tasks=c, **params) for c in chunks]
        if algo == "kcminer":
            assert sum(r.answer for r in same) == sum(r.answer for r in own) == answer
        else:
            total = Counter()
            for r in same:
                total.update(r.answer)
            assert {k: total[k] for k in range(3, 9)} == {k: want[k] for k in range(3, 9)}
        assert whole.pieces > whole.tasks
        assert sum(r.pieces for r in same) == whole.pieces
        assert sum(r.pieces for r in own) >= whole.pieces   # finer, or capped at the candidates
        with pytest.raises(ValueError, match="split_of"):
            prep.run(split_of="chunk", **params)


def test_chunks_of_deep_counts_cut_edges_finer_than_their_candidates_and_add_up():
    # a chunk (tasks given) of counts past PIVOT_UNCAP_K is not capped at an edge's candidates
    from mce_kit import distributed as md
    from mce_kit.gpu import cliquecount

    G = planted_cliques(400, 0.02, [60, 45], seed=11)
    want = {k: c for k, c in cpu.clique_counts(G).items() if k >= 3}
    prep = cliquecount.prepare(G)
    total, finer = Counter(), False
    for chunk in md.chunk_tasks(md.prepare(G, "cliquecount").costs, 3):
        r = prep.run(tasks=chunk, split_share=10 ** 6, max_pieces=200, timeline=True)
        total.update(r.answer)
        finer |= bool((r.timeline["pieces"] > r.timeline["bound"]).any())
    assert finer and {k: total[k] for k in want} == want


def test_split_pivot_trees_with_a_large_shared_top_stay_exact():
    # dense graphs: the pieces share nodes of 40+ candidates several levels deep
    from graph_families import erdos_renyi

    from mce_kit.gpu import cliquecount

    for seed, (n, p) in enumerate([(130, 0.8), (160, 0.7), (110, 0.9)]):
        prep = cliquecount.prepare(erdos_renyi(n, p, seed))
        for k_max in (6, 8):   # (k_max=None took minutes here, unsplit)
            whole = prep.run(k_max=k_max, split=False).answer
            for split in (3, 16, 64):
                assert prep.run(k_max=k_max, split=split).answer == whole, (n, p, k_max, split)


@pytest.mark.parametrize("size", [33, 64, 65, 200])
def test_planted_cliques_wider_than_a_word(size):
    G = planted_cliques(size + 150, 0.03, [size], seed=size)
    want = cpu.clique_counts(G, 8)
    for k in range(3, 9 if size < 200 else 7):
        for params in (dict(), dict(scheduling=False, dynamic=False, size=False), dict(lam=1.0)):
            assert mk.count_k_cliques(G, k, device="gpu", **params) == want[k], (k, params)
    assert mk.clique_counts(G, device="gpu") == cpu.clique_counts(G)


def star_of_cliques(m, c):
    """A hub joined to every vertex of m disjoint c-cliques: m * C(c + 1, k) k-cliques (k >= 2)."""
    import numpy as np

    from mce_kit.graph import Graph

    e = [(0, 1 + q * c + a) for q in range(m) for a in range(c)]
    e += [(1 + q * c + a, 1 + q * c + b) for q in range(m) for a in range(c) for b in range(a + 1, c)]
    e = np.array(e)
    return Graph.from_edges(1 + m * c, e[:, 0], e[:, 1], name=f"star-of-cliques({m},{c})")


def test_tasks_over_1024_candidates_on_a_block_and_a_star_of_cliques():
    from graph_families import disjoint_union, erdos_renyi

    from mce_kit.gpu import kclique

    small = erdos_renyi(120, 0.1, 7)
    G = disjoint_union(complete(1100), star_of_cliques(30, 40), small)  # hub degree 1200
    ref = cpu.clique_counts(small, 5)
    want = {k: math.comb(1100, k) + 30 * math.comb(41, k) + ref[k] for k in range(3, 6)}
    for order in ("degree", "degeneracy"):
        prep = kclique.prepare(G, order)
        for k in (3, 4, 5):
            res = prep.run(k=k)
            assert res.block_tasks > 0 and res.answer == want[k], (order, k)
        assert prep.run(k=4, block_min=-1).answer == want[4]       # one warp per task, C in global memory
        assert prep.run(k=4, rows="by_row").answer == want[4]
    H = star_of_cliques(30, 40)
    for k in range(3, 9):
        assert mk.count_k_cliques(H, k, device="gpu") == 30 * math.comb(41, k)
        got = mk.count_k_cliques(H, k, device="gpu", block_min=0, order="degeneracy")
        assert got == 30 * math.comb(41, k)
    allk = mk.clique_counts(G, device="gpu")
    assert all(allk[k] == want[k] for k in (3, 4, 5)) and allk[1100] == 1


def test_complete_graph_counts_past_2_to_the_64():
    # K_200 at k = 30 has C(200, 30) ~ 4e35 cliques: far past 64 bits, one pivot-tree leaf
    got = mk.clique_counts(complete(200), device="gpu")
    assert got == {k: math.comb(200, k) for k in range(1, 201)}


def test_passes_with_fewer_workers_give_the_same_count():
    from mce_kit.gpu import kclique

    G = planted_cliques(300, 0.05, [70, 40], seed=3)
    want = cpu.clique_counts(G, 6)[6]
    res = kclique.prepare(G).run(k=6, max_buffer_bytes=2_000_000)
    assert res.passes > 1 and res.answer == want
    with pytest.raises(MemoryError, match=r"KCMiner: edge \(\d+, \d+\) needs"):
        kclique.prepare(G).run(k=6, max_buffer_bytes=1000)


def test_a_warm_run_keeps_its_plan_and_plans_again_when_memory_runs_short(monkeypatch):
    import cupy

    from mce_kit.gpu import kclique

    G = planted_cliques(300, 0.05, [70, 40], seed=4)
    want = cpu.clique_counts(G, 6)[6]
    prep = kclique.prepare(G)
    assert prep.run(k=6).answer == want
    plans = []
    plan = kclique._plan
    monkeypatch.setattr(kclique, "_plan", lambda *a: plans.append(1) or plan(*a))
    assert prep.run(k=6).answer == want and plans == []          # warm: the kept plan
    assert prep.run(k=6, split=False).answer == want and plans == [1]   # other parameters: planned

    launch = kclique._launch

    def short(*args):
        monkeypatch.setattr(kclique, "_launch", launch)
        raise cupy.cuda.memory.OutOfMemoryError(1 << 40, 0, 0)

    monkeypatch.setattr(kclique, "_launch", short)
    assert prep.run(k=6).answer == want and plans == [1, 1]   # planned again, from free memory
    monkeypatch.setattr(kclique, "_launch", short)
    with pytest.raises(cupy.cuda.memory.OutOfMemoryError):   # a fresh plan's shortage is the caller's
        prep.run(k=6, split=False, max_buffer_bytes=1 << 26)


def test_the_pivot_counter_keeps_one_pass_and_plans_again_when_memory_runs_short(monkeypatch):
    import cupy

    from mce_kit.gpu import cliquecount

    G = planted_cliques(300, 0.05, [70, 40], seed=5)
    want = cpu.clique_counts(G, 8)
    prep = cliquecount.prepare(G)
    assert prep.run(k_max=8).answer == want
    asked = []
    free = cliquecount.free_bytes
    monkeypatch.setattr(cliquecount, "free_bytes", lambda: asked.append(1) or free())
    assert prep.run(k_max=8).answer == want and asked == []   # warm: the kept pass
    empty = cupy.empty

    def short(n, dtype=float, *a, **kw):
        if dtype == cupy.uint32:   # the workers' buffer, once
            monkeypatch.setattr(cupy, "empty", empty)
            raise cupy.cuda.memory.OutOfMemoryError(1 << 40, 0, 0)
        return empty(n, dtype, *a, **kw)

    monkeypatch.setattr(cupy, "empty", short)
    assert prep.run(k_max=8).answer == want and asked == [1]   # planned again from free memory


def test_load_paths_with_isolated_vertices_self_loops_and_duplicates(tmp_path):
    f = tmp_path / "g.txt"
    lines = ["# a 5-clique twice over, a loop, a repeated edge, and isolated vertices via DIMACS below"]
    lines += [f"{a} {b}" for a in range(5) for b in range(5) if a != b]
    lines += ["3 3", "7 8", "8 7", "7 8", "8 9", "7 9"]
    f.write_text("\n".join(lines) + "\n")
    d = tmp_path / "g.clq"
    d.write_text("p edge 12 4\ne 1 2\ne 2 3\ne 1 3\ne 3 3\n")
    for path in (f, d):
        for k in (3, 4, 5, 6):
            assert mk.count_k_cliques(path, k, device="gpu") == mk.count_k_cliques(path, k, device="cpu")
        assert mk.clique_counts(path, device="gpu") == mk.clique_counts(path, device="cpu")
    want = sorted(map(sorted, mk.k_cliques(f, 4, device="cpu")))
    assert sorted(map(sorted, mk.k_cliques(f, 4, device="gpu"))) == want


@pytest.mark.parametrize("name", ["CA-GrQc", "email-Eu-core", "wiki-Vote", "CA-HepTh"])
def test_bundled_graphs_all_k(name):
    G = mk.datasets.load(name)
    want = cpu.clique_counts(G, 8)
    for k in range(3, 9):
        assert mk.count_k_cliques(G, k, device="gpu") == want[k], k
    assert mk.clique_counts(G, 8, device="gpu") == want


def test_auto_picks_the_gpu():
    c = mk.count_k_cliques(complete(10), 4)
    assert c.device == "gpu" and c == 210
