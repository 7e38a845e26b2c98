"""KCMiner's and the pivot counter's CUDA kernels run on CPU threads (tests/emulated.py).

No GPU needed: the launches are planned by the launchers' own host code (orientation, tasks kept
by bound, split codes, workspace words) and the counts compared with the CPU oracles. Split
edges (every edge in n pieces, or the heavy ones sized by ``launch.split_heavy``), the
block-per-task kernel, the level-3 bitmaps, listing and the stop word are all checked here on
every CI run, as the GPU tests check them on a device. The emulation runs a block's warps in a
fixed interleaving, so it finds logic errors, not races: the GPU tests' repeated runs do that.
"""

import itertools

import networkx as nx
import numpy as np
import pytest
from emulated import HAVE_GXX, build, launch
from graph_families import boundary_nx_graphs, from_networkx, random_nx_graphs

from mce_kit import cpu
from mce_kit.cpu.pivot import combine_leaves
from mce_kit.gpu import cliquecount, kclique

pytestmark = pytest.mark.skipif(not HAVE_GXX, reason="needs g++ (C++20)")
WARPS = 4  # one block of the emulation: its four warps share the tasks
SIZING_WORKERS = 256  # split=True sizes pieces for this many warps (a GPU's thousands split even more)


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    out = tmp_path_factory.mktemp("emu")
    return {name: build(src, name, out / name) for src, name in
            [("kclique.cu", "kclique_kernel"), ("kclique.cu", "kclique_block_kernel"),
             ("cliquecount.cu", "cliquecount_kernel")]}


def common_sizes(ori, tasks) -> np.ndarray:
    """|N+(u) ∩ N+(v)| of each task, on the host (the GPU's ``common_sizes`` kernel)."""
    out = lambda x: ori.out_idx[ori.out_ptr[x]: ori.out_ptr[x + 1]]  # noqa: E731
    return np.array([len(np.intersect1d(out(ori.u[t]), out(ori.v[t]))) for t in tasks], np.int64)


def entries(ori, chosen, split, n_workers, min_size, cost_of, cap_by_bound=True):
    """The launch entries and split codes as the launchers make them (split: None, n pieces for
    every edge with a candidate, or True: the heavy edges of ``min_size`` candidates or more)."""
    if split is None:
        return chosen, None
    if split is not True:
        return kclique.split_tasks(np.zeros(len(chosen)), ori.bound[chosen], n_workers, split, chosen, 1,
                                   cap_by_bound=cap_by_bound)
    cost = cost_of(common_sizes(ori, chosen))
    return kclique.split_tasks(cost, ori.bound[chosen], n_workers, True, chosen, min_size,
                               cap_by_bound=cap_by_bound)


def pairs(ori, part) -> np.ndarray:
    return np.stack([ori.u[part], ori.v[part]], axis=1).ravel().astype(np.int32)


def run_kcminer(kernels, G, k, *, split=None, block=False, listing=False, lam=None, size=True,
                by_row=False, stop=False):
    """(count, listed cliques in G's ids or None, entries launched) of one emulated KCMiner launch."""
    ori = kclique.prepare(G).orient("degree")
    chosen = np.arange(ori.n_tasks(k - 2))
    parts = WARPS if block else 1
    part, code = entries(ori, chosen, split if k >= 5 else None, SIZING_WORKERS // parts,
                         kclique.SPLIT_MIN_SIZE, lambda c: (1.0 + c) ** min(k - 2, 6))
    lam = kclique.default_lam(k) if lam is None else lam
    flags = (kclique.FLAG_SCHED | kclique.FLAG_DYNAMIC | kclique.FLAG_SIZE * size
             | kclique.FLAG_LIST * listing | kclique.FLAG_BYROW * by_row | kclique.FLAG_BLOCK * block)
    workers = WARPS // parts
    cap = int(kclique.work_words(ori.bound[part], k, parts).max(initial=1))
    state = np.zeros(kclique._S_FIXED + 4 * WARPS, np.uint64)
    state[kclique._S_STOP] = stop
    n_list = 1 + (k * int(cpu.count_k_cliques(G, k)) if listing else 0)
    acc = 8 * kclique._S_FIXED
    exe = kernels["kclique_block_kernel" if block else "kclique_kernel"]
    out = launch(exe, kclique.PARAMS, 1, 32 * WARPS,
                 indptr=ori.out_ptr.astype(np.int32), indices=ori.out_idx.astype(np.int32),
                 tasks=pairs(ori, part), split=code, stop=(state, 8 * kclique._S_STOP),
                 work=np.zeros(workers * cap, np.uint32), ctrl=(state, 8 * kclique._S_CTRL),
                 acc=(state, acc), total=(state, 8 * kclique._S_TOTAL),
                 worker_tasks=(state, acc + 24 * WARPS),
                 worker_cycles=(state, acc + 16 * WARPS),
                 bins=(state, 8 * kclique._S_BINS), active=(state, 8 * kclique._S_ACTIVE),
                 list=np.zeros(n_list, np.int32), list_pos=(state, 8 * kclique._S_POS), work_cap=cap,
                 list_cap=n_list, n_tasks=len(part), k=k, flags=flags, lam_milli=int(round(lam * 1000)),
                 n_workers=workers)
    host = out["ctrl"]
    assert not int(host[kclique._S_CTRL]) >> 32 & kclique.ERR_CAPACITY
    per = host[kclique._S_FIXED:]
    count = kclique.sum128(per[0: 2 * WARPS: 2], per[1: 2 * WARPS: 2])
    # the warps' counts and the launch's total (what an answer-only call reads) agree
    assert int(host[kclique._S_TOTAL]) + (int(host[kclique._S_TOTAL + 1]) << 64) == count
    cliques = None
    if listing:
        flat = out["list"][: int(host[kclique._S_POS])]
        cliques = sorted(tuple(sorted(ori.order[c].tolist())) for c in flat.reshape(-1, k))
    return count, cliques, len(part)


def run_pivot(kernels, G, *, split=None, k_max=None, stop=False, cap_by_bound=True):
    """({k: count}, entries launched) of one emulated pivot-counter launch."""
    ori = cliquecount.prepare(G).orient("degeneracy")
    chosen = np.arange(len(ori.u))
    smax = int(ori.bound.max(initial=0))
    K = smax + 2 if k_max is None else min(k_max, smax + 2)
    pc = smax + 1
    if K < 3 or not len(chosen):
        return combine_leaves({}, G.n, G.m, k_max), 0
    part, code = entries(ori, chosen, split, SIZING_WORKERS, cliquecount.SPLIT_MIN_SIZE,
                         lambda c: cliquecount.TREE_GROWTH ** np.minimum(c, 3000), cap_by_bound)
    cap = int(cliquecount.work_words(ori.bound[part]).max())
    n_leaves = (K + 1) * pc
    end = 1 + n_leaves + 2 * WARPS
    state = np.zeros(end + 1, np.uint64)
    state[end] = stop
    out = launch(kernels["cliquecount_kernel"], cliquecount.PARAMS, 1, 32 * WARPS,
                 indptr=ori.indptr.astype(np.int32), indices=ori.indices.astype(np.int32),
                 tasks=pairs(ori, part), split=code, stop=(state, 8 * end),
                 work=np.zeros(WARPS * cap, np.uint32), ctrl=state,
                 leaves=(state, 8), worker_nodes=(state, 8 * (1 + n_leaves)),
                 worker_tasks=(state, 8 * (1 + n_leaves + WARPS)),
                 task_log=np.zeros(3 * len(part), np.uint64), work_cap=cap, n_tasks=len(part), k_max=K,
                 pc=pc, n_workers=WARPS)
    host = out["ctrl"]
    assert not int(host[0]) >> 32 & cliquecount.ERR_CAPACITY
    log = out["task_log"].reshape(-1, 3).astype(np.int64)   # every entry logged, its nodes summing up
    if not stop:
        assert (log[:, 1] >= log[:, 0]).all() and (log[:, 1] > 0).all()
    assert log[:, 2].sum() == host[1 + n_leaves: 1 + n_leaves + WARPS].astype(np.int64).sum()
    leaves = host[1: 1 + n_leaves].astype(np.int64).reshape(K + 1, pc)
    table = {(h, q): int(c) for (h, q), c in np.ndenumerate(leaves) if c and h >= 2}
    return combine_leaves(table, G.n, G.m, k_max), len(part)


def small_graphs(n, seed):
    # every family, kept small: each emulated warp collective is three OS-thread barriers
    return [from_networkx(H) for H in random_nx_graphs(n, seed=seed)
            if H.number_of_edges() <= 600 and 3 <= H.number_of_nodes()]


def dense(n=70, p=0.6, seed=3):
    return from_networkx(nx.gnp_random_graph(n, p, seed=seed))


@pytest.mark.parametrize("split", [None, 2, 3, 7])
def test_emulated_kcminer_counts_with_every_edge_split(kernels, split):
    graphs = small_graphs(14, seed=11)
    assert len(graphs) >= 10
    for i, G in enumerate(graphs):
        for k in (4, 5, 6):
            want = cpu.count_k_cliques(G, k)
            got, _, n = run_kcminer(kernels, G, k, split=split)
            assert got == want, f"graph {i} ({G.n} vertices, {G.m} edges) k={k} split={split}"


@pytest.mark.parametrize("block", [False, True])
@pytest.mark.parametrize("split", [None, 5, True])
def test_emulated_kcminer_dense_graph_split_and_block(kernels, block, split):
    # 70 vertices at p=0.6: rows of three words, level-3 bitmaps at k=7 (lambda = 1), heavy edges
    G = dense()
    for k in (5, 7):
        got, _, n = run_kcminer(kernels, G, k, split=split, block=block)
        assert got == cpu.count_k_cliques(G, k), (k, split, block)
        if split is not None:
            assert n > kclique.prepare(G).orient("degree").n_tasks(k - 2)  # some edge ran as pieces


@pytest.mark.parametrize("switches", [dict(size=False), dict(by_row=True), dict(lam=0.0), dict(lam=1.0)])
def test_emulated_kcminer_switches(kernels, switches):
    G = dense(50, 0.5, seed=7)
    for k in (5, 6):
        got, _, _ = run_kcminer(kernels, G, k, split=3, **switches)
        assert got == cpu.count_k_cliques(G, k), (k, switches)


@pytest.mark.parametrize("split", [None, 3])
def test_emulated_kcminer_lists_each_clique_once(kernels, split):
    G = dense(40, 0.5, seed=2)
    for k in (4, 5, 6):
        count, cliques, _ = run_kcminer(kernels, G, k, split=split, listing=True)
        want = sorted(tuple(sorted(c)) for c in nx.enumerate_all_cliques(G.to_networkx()) if len(c) == k)
        assert cliques == want and count == len(want), (k, split)


@pytest.mark.parametrize("split", [None, 2, 3, 7])
def test_emulated_pivot_counter_counts_every_k_with_every_edge_split(kernels, split):
    for i, G in enumerate(small_graphs(12, seed=21) + [dense(60, 0.6, seed=5)]):
        got, _ = run_pivot(kernels, G, split=split)
        want = cpu.clique_counts(G)
        assert got == want, f"graph {i} ({G.n} vertices, {G.m} edges) split={split}"


def test_emulated_pivot_counter_shares_the_top_of_a_big_tree(kernels):
    # a near-clique: nodes of 40 or more candidates exist, so the pieces walk a shared top
    H = nx.complete_graph(60)
    H.remove_edges_from(itertools.islice(nx.gnp_random_graph(60, 0.08, seed=1).edges(), 80))
    G = from_networkx(H)
    want = cpu.clique_counts(G, 12)
    for split, cap in ((3, True), (True, True), (150, False)):   # 150: more pieces than candidates
        got, n = run_pivot(kernels, G, split=split, k_max=12, cap_by_bound=cap)
        assert got == want and n > len(cliquecount.prepare(G).orient("degeneracy").u), split


def test_emulated_stop_word_takes_no_task(kernels):
    G = dense(30, 0.5)
    assert run_kcminer(kernels, G, 5, stop=True)[0] == 0
    counts, _ = run_pivot(kernels, G, stop=True)
    assert all(c == 0 for k, c in counts.items() if k >= 3)


def test_emulated_boundary_graphs(kernels):
    for name, H in boundary_nx_graphs().items():
        G = from_networkx(H)
        for k in (4, 5):
            assert run_kcminer(kernels, G, k, split=2)[0] == cpu.count_k_cliques(G, k), (name, k)
        assert run_pivot(kernels, G, split=2)[0] == cpu.clique_counts(G), name
