"""Host side of the k-clique launchers (no GPU needed): Params layouts, orientation, planning."""

import types

import networkx as nx
import numpy as np
import pytest
from graph_families import complete, erdos_renyi, powerlaw_cluster, star

from mce_kit.gpu import cliquecount, kclique
from mce_kit.gpu.launch import kernel_struct_fields, plan_passes, shared_task_queue
from mce_kit.gpu.loader import read_source


@pytest.mark.parametrize("module, source", [(kclique, "kclique.cu"), (cliquecount, "cliquecount.cu")])
def test_launch_parameters_match_the_kernel_struct(module, source):
    fields = kernel_struct_fields(read_source(source))
    assert fields == [(name, module.PARAMS[name].str[1:]) for name in module.PARAMS.names]


@pytest.mark.parametrize("order", ["degree", "degeneracy"])
@pytest.mark.parametrize("G", [erdos_renyi(60, 0.3, 1), powerlaw_cluster(120, 4, 0.5, 2), complete(20),
                               star(9)], ids=range(4))
def test_orientation_covers_every_edge_once_and_bounds_the_tasks(G, order):
    ori = kclique.orient(G, order)
    assert len(ori.u) == G.m and (ori.u < ori.v).all()
    o = ori.order
    assert sorted(map(tuple, np.sort(np.stack([o[ori.u], o[ori.v]], 1), 1).tolist())) == \
        sorted(map(tuple, G.edges().tolist()))
    out = [set(ori.out_idx[ori.out_ptr[i]:ori.out_ptr[i + 1]].tolist()) for i in range(G.n)]
    for a, b, s in zip(ori.u.tolist(), ori.v.tolist(), ori.bound.tolist(), strict=True):
        assert len(out[a] & out[b]) <= s
        assert kclique.work_words(s, 8) >= kclique.work_words(len(out[a] & out[b]), 8)
    if order == "degree":
        deg = G.degrees()[o]
        assert (np.diff(deg) >= 0).all()
    else:
        core = max(nx.core_number(G.to_networkx()).values(), default=0)
        assert np.diff(ori.out_ptr).max(initial=0) <= core


def test_unknown_and_bad_parameters_are_refused():
    prep = kclique.prepare(complete(5))
    with pytest.raises(TypeError, match="unknown KCMiner parameter.*tau"):
        prep.run(k=4, tau=3)
    with pytest.raises(ValueError, match="k must be in 3"):
        prep.run(k=2)
    with pytest.raises(ValueError, match="rows must be 'flat' or 'by_row'"):
        prep.run(k=4, rows="diagonal")
    with pytest.raises(ValueError, match="order must be"):
        kclique.prepare(complete(5), order="random")
    with pytest.raises(TypeError, match="unknown clique-count parameter.*k"):
        cliquecount.prepare(complete(5)).run(k=4)


def test_default_lambda_follows_the_paper():
    assert kclique.default_lam(5) < 0 and kclique.default_lam(6) == 0.25 and kclique.default_lam(7) >= 0.5


def test_planning_never_drops_a_task_and_names_an_oversize_one():
    need = kclique.work_words(np.array([5, 40, 3000, 10, 2000]), 8)
    passes = plan_passes({"work": need}, 64, budget=int(need[2]) * 4 * 3, label="KCMiner")
    assert sorted(np.concatenate([i for i, *_ in passes]).tolist()) == list(range(5))
    assert passes[-1][2] < 64  # the big tasks run later with fewer workers
    with pytest.raises(MemoryError, match=r"KCMiner: edge \(1, 2\) needs .* MiB"):
        plan_passes({"work": need}, 64, budget=1000, label="KCMiner", describe=lambda i: "edge (1, 2)")


def test_gpu_run_without_gpu_says_so(monkeypatch):
    import mce_kit.gpu as gpu

    monkeypatch.setattr(gpu, "_probe", lambda: (False, "no CUDA device found"))
    with pytest.raises(RuntimeError, match="no usable CUDA GPU"):
        kclique.prepare(complete(4)).run(k=3)
    with pytest.raises(RuntimeError, match="no usable CUDA GPU"):
        cliquecount.prepare(complete(4)).run(k_max=4)


def test_tasks_are_sorted_largest_first_and_kept_tasks_are_a_prefix():
    G = powerlaw_cluster(300, 5, 0.5, 4)
    ori = kclique.orient(G, "degree")
    assert (np.diff(ori.bound) <= 0).all()
    for least in range(0, int(ori.bound[0]) + 3):
        n = ori.n_tasks(least)
        assert (ori.bound[:n] >= least).all() and (ori.bound[n:] < least).all()
    a, b = len(ori.out_ptr), len(ori.out_ptr) + len(ori.out_idx)
    blob = ori.out_blob
    assert blob.dtype == np.int32 and (blob[:a] == ori.out_ptr).all() and (blob[a:b] == ori.out_idx).all()
    assert (blob[b::2] == ori.u).all() and (blob[b + 1::2] == ori.v).all()
    a, b = len(ori.indptr), len(ori.indptr) + len(ori.indices)
    assert (ori.all_blob[a:b] == ori.indices).all() and (ori.all_blob[b::2] == ori.u).all()


def test_128_bit_sums_are_exact():
    rng = np.random.default_rng(1)
    lo = rng.integers(0, 2**63, 5000, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    hi = rng.integers(0, 2**40, 5000, dtype=np.uint64)
    want = sum(int(a) + (int(b) << 64) for a, b in zip(lo, hi, strict=True))
    assert kclique.sum128(lo, hi) == want
    zero = np.zeros_like(hi)   # high words all 0: one u64 sum where it cannot wrap, else the split sums
    for top in (2**64 - 1, (2**64 - 1) // 5000, (2**64 - 1) // 5000 + 1, 3):
        lo = np.minimum(rng.integers(0, 2**63, 5000, dtype=np.uint64) * np.uint64(2), np.uint64(top))
        lo[0] = np.uint64(top)
        assert kclique.sum128(lo, zero) == sum(int(a) for a in lo)
    assert kclique.sum128(np.zeros(0, np.uint64), np.zeros(0, np.uint64)) == 0


def test_one_pass_plan_equals_the_general_plan():
    need = kclique.work_words(np.array([5, 40, 300, 10, 200]), 8)
    fast = plan_passes({"work": need}, 64, budget=10**9, label="KCMiner")
    assert len(fast) == 1 and fast[0][0].tolist() == list(range(5)) and fast[0][2] == 64
    assert fast[0][1]["work"] >= need.max() and fast[0][1]["work"] % 4 == 0


def test_heavy_tasks_are_split_into_pieces_that_cover_each_task_once():
    from mce_kit.gpu.launch import expand_pieces, split_heavy

    cost = np.array([1000.0, 50.0] + [1.0] * 98)
    pieces = split_heavy(cost, n_workers=10, most=np.full(100, 64))
    assert pieces[0] > pieces[1] > 1 and (pieces[2:] == 1).all()
    assert split_heavy(cost, 10, most=3)[0] == 3                      # capped
    assert (split_heavy(np.ones(100), 10, 64) == 1).all()            # even tasks stay whole
    task, code = expand_pieces(pieces)
    assert (np.diff(task) >= 0).all() and np.bincount(task).tolist() == pieces.tolist()
    part, count = code & 0xFFFF, code >> 16
    assert (count == pieces[task]).all()
    for t in range(len(pieces)):                                     # pieces 0..n-1 of each task once
        assert sorted(part[task == t].tolist()) == list(range(pieces[t]))


def test_pieces_expand_as_written_out_one_task_at_a_time():
    from mce_kit.gpu.launch import expand_pieces

    rng = np.random.default_rng(11)
    for _ in range(200):
        pieces = rng.choice([0, 1, 1, 1, 2, 5, 40], size=int(rng.integers(0, 60)))
        task, code = expand_pieces(pieces)
        want = [(t, q | int(c) << 16) for t, c in enumerate(pieces) for q in range(c)]
        assert list(zip(task.tolist(), code.tolist(), strict=True)) == want


def test_split_sizing_reads_a_run_of_tasks_as_a_slice():
    a = np.arange(100) * 3
    run = kclique.take_ascending(a, np.arange(10, 40))
    assert run.base is a and run.tolist() == a[10:40].tolist()
    picked = np.array([2, 5, 6, 90])
    assert kclique.take_ascending(a, picked).tolist() == a[picked].tolist()
    assert kclique.is_run(np.arange(4, 9)) and not kclique.is_run(picked) and not kclique.is_run(picked[:0])
    pairs = np.arange(200)   # a run's task pairs are a slice of the uploaded ones
    assert kclique.tasks_of(pairs, np.arange(3, 7), ascending=True).tolist() == list(range(6, 14))
    assert kclique.tasks_of(pairs, np.arange(3, 7)).tolist() == list(range(6, 14))
    ori = types.SimpleNamespace(u=None, v=None)   # a pass of every entry, or of some: no split, no gather
    got, split = kclique.pass_tasks(pairs, ori, np.arange(3, 7), None, np.arange(4))
    assert got.tolist() == list(range(6, 14)) and split == 0
    got, split = kclique.pass_tasks(pairs, ori, np.arange(3, 9), None, np.arange(2, 5))
    assert got.tolist() == list(range(10, 16)) and split == 0
    assert kclique.listing_cost(np.array([0, 3, 40]), 9).tolist() == [1.0, 4.0 ** 6, 41.0 ** 6]


def test_a_chunk_sized_against_its_whole_list_gets_the_whole_lists_pieces():
    from mce_kit.gpu.launch import split_heavy

    rng = np.random.default_rng(3)
    cost = rng.pareto(1.2, 400) * 100
    whole = split_heavy(cost, n_workers=16, most=64)
    assert whole.max() > 1
    for chunk in np.array_split(rng.permutation(400), 3):
        same = split_heavy(cost[chunk], 16, 64, total=cost.sum())
        assert same.tolist() == whole[chunk].tolist()
        own = split_heavy(cost[chunk], 16, 64)                      # sized on the chunk alone: finer
        assert (own >= same).all() and (own > same).any()


def test_split_tasks_keep_small_edges_whole_and_never_exceed_the_candidates():
    bound = np.array([200, 40, 17, 15, 3])
    tasks = np.arange(10, 15)
    at, code = kclique.split_tasks(np.zeros(5), bound, 100, 32, tasks)
    count = code >> 16
    got = dict(zip(*np.unique(at, return_counts=True), strict=True))
    assert got == {10: 32, 11: 32, 12: 17, 13: 1, 14: 1}
    assert (count[at >= 13] == 1).all()
    assert kclique.split_tasks(np.ones(5), bound, 100, 1, tasks)[1] is None


def test_task_subsets_are_checked_before_a_launch():
    from mce_kit.gpu.launch import pick_tasks

    assert pick_tasks(None, 5, "X") is None
    assert pick_tasks([4, 0, 2], 5, "X").tolist() == [4, 0, 2]
    with pytest.raises(ValueError, match="repeated"):
        pick_tasks([1, 3, 1], 5, "X")
    with pytest.raises(ValueError, match=r"0\.\.4"):
        pick_tasks([5], 5, "X")
    with pytest.raises(ValueError, match="1-D"):
        pick_tasks([[1]], 5, "X")


def test_the_pivot_counters_sizing_rule_follows_the_committed_measurement():
    """Where ``sizing_for`` takes the deep sizing it won on one GPU, and over the launches of
    1 ms or more the rule comes closer to the faster sizing than either sizing alone."""
    import numpy as np

    from mce_kit.experiments import kcminer as exp
    from mce_kit.gpu import cliquecount as cc

    t = exp.load("pivot_deep").pivot_table(index=["graph", "k", "est_work_per_worker"], columns="sizing",
                                           values="gpu_ms").reset_index()
    deep = np.array([cc.sizing_for(k, w) == (cc.PIVOT_SPLIT_SHARE, cc.PIVOT_DEEP_PIECES)
                     for k, w in zip(t["k"], t["est_work_per_worker"], strict=True)])
    assert deep.any() and (t["deep"][deep] < t["coarse"][deep]).all()
    assert cc.sizing_for(cc.PIVOT_DEEP_K - 1, 1e12) == cc.sizing_for(cc.PIVOT_DEEP_K, 0.0) == (
        cc.SPLIT_SHARE, cc.MAX_PIECES)
    long = t["coarse"] >= 1.0
    best = np.minimum(t["deep"], t["coarse"])[long]
    chosen = np.where(deep, t["deep"], t["coarse"])[long]

    def excess(times):
        return float(np.exp(np.log(times / best).mean()))

    assert excess(chosen) < min(excess(t["deep"][long]), excess(t["coarse"][long]))


def test_the_pivot_counters_uncapped_chunks_follow_the_committed_measurement():
    """A chunk's pieces are uncapped from PIVOT_UNCAP_K on: there the slower half was faster
    uncapped (within 3%, and clearly at the deepest k); below it, capped."""
    from mce_kit.experiments import kcminer as exp
    from mce_kit.gpu import cliquecount as cc

    t = exp.load("pivot_uncap")
    assert t["exact"].all()
    t = t[t["tasks"] != "all"].groupby(["k", "cap_by_bound"])["gpu_ms"].max().unstack()
    uncap = t.index >= cc.PIVOT_UNCAP_K
    assert uncap.any() and (~uncap).any()
    assert (t[False][uncap] <= 1.03 * t[True][uncap]).all()
    assert (t[True][~uncap] <= 1.03 * t[False][~uncap]).all()
    assert t[False].iloc[-1] < 0.95 * t[True].iloc[-1]


def test_a_subsets_launch_entries_are_kept_while_recent_and_dropped_with_their_device_arrays():
    from mce_kit.io import load_graph

    ori = kclique._orient(load_graph(nx.Graph([(0, 1), (1, 2), (0, 2), (2, 3)])), "degree")
    calls = []

    def run(tasks):
        key = ("entries", kclique.subset_key(tasks))
        got = ori.remember(key, lambda: calls.append(key) or len(calls))
        if tasks is not None:
            ori.device[((key, "pairs"), 0)] = got   # what pass_tasks keeps under the key
        return got

    assert kclique.subset_key(None) is None
    assert kclique.subset_key(np.array([1, 2])) == kclique.subset_key(np.array([1, 2], np.int32))
    assert run(None) == run(None) == 1
    subsets = [np.array([i, i + 1]) for i in range(kclique.SUBSETS_KEPT + 1)]
    first = run(subsets[0])
    assert run(subsets[0]) == first and len(calls) == 2          # kept: computed once
    for s in subsets[1:]:
        run(s)
    kept = [k for k in ori.memo if isinstance(k, tuple) and k[-1] is not None]
    assert len(kept) == kclique.SUBSETS_KEPT and len(ori.device) == kclique.SUBSETS_KEPT
    assert run(subsets[0]) != first                              # the oldest was dropped
    assert run(None) == 1                                        # every task's entries stay


def test_measured_order_takes_the_most_nodes_first_and_leaves_the_whole_tail():
    from mce_kit.gpu import cliquecount as cc

    part = np.array([0, 0, 0, 1, 2, 3, 4, 5])
    code = np.array([0 | 3 << 16, 1 | 3 << 16, 2 | 3 << 16] + [kclique.WHOLE] * 5, dtype=np.int32)
    nodes = np.array([5, 9, 5, 1, 7, 2, 8, 0])         # the tail (last 3) is never reordered
    got_part, got_code = cc.by_measured_nodes(part, code, 3, nodes)
    assert got_part.tolist() == [0, 2, 0, 0, 1, 3, 4, 5]  # 9, 7, 5, 5 (ties in launch order), 1
    assert got_code.tolist() == [code[1], code[4], code[0], code[2], code[3]] + code[5:].tolist()
    assert cc.by_measured_nodes(part, code, 0, nodes)[0].tolist() == [0, 4, 2, 0, 0, 3, 1, 5]


@pytest.mark.parametrize("cost_of", [lambda c: kclique.listing_cost(c, 7), cliquecount.tree_cost],
                         ids=["listing", "tree"])
def test_the_gpus_split_of_every_task_gives_the_hosts_entries(cost_of, monkeypatch):
    """``split_entries``' GPU route (``split_every_task``: the device's candidates, only the cut tasks
    brought back) run with NumPy equals the host route, entry for entry, capped or not."""
    from mce_kit.io import load_graph

    for seed, (n, m) in enumerate([(80, 3), (300, 30), (500, 20)]):
        G = load_graph(nx.powerlaw_cluster_graph(n, m, 0.6, seed=seed))
        ori = kclique._orient(G, "degeneracy")
        n_big = ori.n_tasks(kclique.SPLIT_MIN_SIZE)
        rows = [ori.out_idx[ori.out_ptr[x]: ori.out_ptr[x + 1]] for x in range(G.n)]
        common = np.array([len(np.intersect1d(rows[ori.u[t]], rows[ori.v[t]])) for t in range(n_big)])
        cut = False
        for n_tasks in (len(ori.u), ori.n_tasks(5), n_big // 2):
            tasks = np.arange(n_tasks)
            for n_workers, cap, total in [(8, True, None), (64, False, None), (512, True, None),
                                          (64, True, 1e30)]:
                args = (ori, tasks, kclique.SPLIT_MIN_SIZE, cost_of, n_workers, True, lambda total: (4, 64),
                        total, cap)
                ori.memo["common"] = common
                want = kclique.split_entries(*args)
                del ori.memo["common"]
                with monkeypatch.context() as mp:
                    mp.setattr(kclique, "_on_gpu", lambda ori: True)
                    mp.setattr(kclique.Oriented, "common_on_device", lambda self, k, c=common: c[:k])
                    got = kclique.split_entries(*args)
                assert np.array_equal(got[0], want[0]) and got[2] == want[2], (seed, n_tasks, n_workers)
                assert (got[1] is None and want[1] is None) or np.array_equal(got[1], want[1])
                cut |= want[1] is not None
        assert cut or seed == 0   # something was split (not on the small graph)


def test_gpus_sharing_a_queue_plan_their_split_on_the_host(monkeypatch):
    """Each GPU of a shared queue must launch the same entries: their split is planned on the host."""
    import sys

    from mce_kit import gpu

    ori = kclique._orient(complete(8), "degree")
    monkeypatch.setattr(gpu, "has_gpu", lambda: True)
    monkeypatch.setitem(sys.modules, "cupy", types.ModuleType("cupy"))   # (only asked whether imported)
    assert kclique._on_gpu(ori)
    with shared_task_queue(0, 1):
        assert not kclique._on_gpu(ori)
    ori.memo["common"] = np.zeros(0, np.int64)   # exact candidates on the host already: the host's route
    assert not kclique._on_gpu(ori)


@pytest.mark.parametrize("min_size", [4, 16])
def test_split_entries_cost_only_the_splittable_prefix_and_equal_a_cost_per_task(min_size):
    """``split_entries`` (the tasks that may be split costed one by one, the rest counted per bound
    value) gives ``split_tasks``' entries from a cost per task, with the tail of whole tasks marked."""
    from mce_kit.io import load_graph

    G = load_graph(nx.powerlaw_cluster_graph(600, 12, 0.6, seed=5))
    ori = kclique._orient(G, "degeneracy")
    n_big = ori.n_tasks(min_size)
    out = lambda x: ori.out_idx[ori.out_ptr[x]: ori.out_ptr[x + 1]]  # noqa: E731 (the GPU's common_sizes)
    ori.memo["common"] = np.array([len(np.intersect1d(out(ori.u[t]), out(ori.v[t]))) for t in range(n_big)])
    cost_of = lambda c: kclique.listing_cost(c, 7)  # noqa: E731
    rng = np.random.default_rng(1)
    everything = np.arange(len(ori.u))
    for tasks in (everything, np.sort(rng.choice(everything, len(everything) // 3, replace=False))):
        cost = cost_of(kclique.split_sizes(ori, tasks, min_size))
        for n_workers in (8, 64, 512):
            want = kclique.split_tasks(cost, ori.bound[tasks], n_workers, True, tasks, min_size, 4, 64,
                                       total=float(cost.sum()))
            part, code, tail = kclique.split_entries(ori, tasks, min_size, cost_of, n_workers, True,
                                                     lambda total: (4, 64))
            assert np.array_equal(part, want[0]) and (code is None) == (want[1] is None), n_workers
            if code is not None:
                assert np.array_equal(code, want[1])
                assert code.max() > kclique.WHOLE   # something was split
            n_rest = len(tasks) - int(np.searchsorted(tasks, n_big))
            assert tail == (n_rest if tasks is everything and code is not None else 0)
            if tail:
                assert kclique.is_run(part[-tail:]) and (code[-tail:] == kclique.WHOLE).all()
    total = kclique.task_costs(ori, everything, min_size, cost_of)[2]
    per_task = float(cost_of(kclique.split_sizes(ori, everything, min_size)).sum())
    assert total == pytest.approx(per_task, rel=1e-12)


def test_blobs_left_on_a_gpu_come_to_the_host_when_asked_and_when_pickled(monkeypatch):
    """An orientation whose blobs stay on a GPU (``Oriented.blob``): the host's arrays are made on the
    first read, and a pickled copy (a Dask worker's, whose device arrays do not travel) carries them.
    A host array stands in for the device's here (``.get()``); the GPU tests run the real one."""
    import pickle

    G = powerlaw_cluster(300, 4, 0.3, seed=3)
    want = kclique._orient(G, "degree")

    class OnGpu:
        def __init__(self, a):
            self.a = a

        def get(self):
            fetched.append(1)
            return self.a.copy()

    fetched = []
    got = kclique._orient(G, "degree")
    moved = {name: OnGpu(got.blobs.pop(name)) for name in ("out_blob", "all_blob")}
    got.blobs.clear()
    monkeypatch.setattr(got.device, "find", moved.get, raising=False)
    assert got.n1 == G.n + 1 and not fetched            # sizes from order and bound alone
    copy = pickle.loads(pickle.dumps(got))
    assert fetched == [1, 1] and set(copy.blobs) >= {"out_blob", "all_blob"}
    for name in ("indptr", "indices", "out_ptr", "out_idx", "u", "v", "out_blob", "all_blob"):
        assert np.array_equal(getattr(copy, name), getattr(want, name)), name
        assert np.array_equal(getattr(got, name), getattr(want, name)), name
    assert fetched == [1, 1]                            # each blob copied once
    empty = kclique._orient(G, "degree")
    empty.blobs.clear()
    monkeypatch.setattr(empty.device, "find", lambda name: None, raising=False)
    with pytest.raises(RuntimeError, match="neither on the host nor on a GPU"):
        empty.blob("all_blob")
