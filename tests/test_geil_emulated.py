"""Geil's maximum-clique kernels (geil.cu) run on CPU fibers (tests/emulated.py) inside geil.py's own
search: ``EmuOps`` is ``_GpuOps`` with every launch emulated (NumPy arrays for device buffers), so
the greedy bound, pruning, windows, levels, the fallback to branch and bound and its tie pass are
the launcher's. Every maximum clique and omega are compared with the CPU oracle (mce_kit.cpu) and
networkx, under switches that reach each path: heuristics, windows, a small level budget (BFS+DFS),
dense graphs (DFS alone), no bit matrix (binary-search adjacency). No GPU needed.
"""

from concurrent.futures import ThreadPoolExecutor

import networkx as nx
import numpy as np
import pytest
from emulated import HAVE_GXX, build, launch, launch_args
from graph_families import boundary_nx_graphs, from_networkx, moon_moser_nx, random_nx_graphs

from mce_kit.cpu import maxclique
from mce_kit.gpu import geil
from mce_kit.gpu.launch import plan_passes

pytestmark = pytest.mark.skipif(not HAVE_GXX, reason="needs g++ (C++20)")
WARPS = geil.WARPS_PER_BLOCK
ARGS_KERNELS = ("build_adj", "level_count", "level_write", "stamp_clock")
NUMPY_OPS = geil._CpuOps  # the kernels' NumPy twins (the fixture routes device="cpu" to EmuOps)


class EmuOps:
    """geil._GpuOps with emulated launches (one 'SM', so few fibers); ``exe``: kernel -> executable."""

    xp = np
    exe: dict = {}

    def __init__(self, prep, p):
        self.prep, self.sms = prep, 1
        n = len(prep.degree)
        self.nw = (n + 31) // 32 if 0 < n <= int(p["bitmap_max_n"]) else 0
        self.adj = np.zeros(max(1, n * self.nw), np.uint32)
        if self.nw:
            self.adj = launch_args(self.exe["build_adj"], (n + 127) // 128, 128, prep.indptr, prep.indices,
                                   np.int32(n), np.int32(self.nw), self.adj)[-1]
        self.base_bytes = prep.indptr.nbytes * 2 + prep.indices.nbytes + self.adj.nbytes
        self.indptr, self.indices, self.outptr = prep.indptr, prep.indices, prep.outptr

    def asarray(self, a):
        return np.asarray(a)

    def kept(self, name, host):
        return host

    derived = geil._CpuOps.derived

    def cliques(self, levels, parents):
        return geil._parent_cliques(levels, parents, np)

    def get(self, a):
        return np.asarray(a)

    def _graph(self):
        return self.adj, np.int32(self.nw), self.prep.indptr, self.prep.indices, self.prep.outptr

    def greedy(self, score, seeds, record=False):
        cap = int(self.prep.degree.max()) + 1
        workers = min(len(seeds), self.sms * 32)
        out = launch(self.exe["greedy_kernel"], geil.HPARAMS, -(-workers // WARPS), 32 * WARPS,
                     indptr=self.prep.indptr, indices=self.prep.indices, score=score.astype(np.int32),
                     seeds=seeds.astype(np.int32), scratch=np.zeros(workers * 2 * cap, np.int32),
                     sizes=np.zeros(len(seeds), np.int32),
                     record=np.zeros(cap + 1, np.int32) if record else None,
                     cap=cap, n_seeds=len(seeds), n_workers=workers)
        if record:
            size = int(out["sizes"][0])
            return size, out["record"][:size]
        return out["sizes"]

    def launch(self, name, grid, args):
        """As _GpuOps.launch: the arrays passed come back as the kernel left them, in place."""
        for a, back in zip(args, launch_args(self.exe[name], grid, geil.THREADS, *args), strict=True):
            if isinstance(a, np.ndarray) and a.flags.writeable:   # the graph's arrays are frozen
                a[...] = back

    def extend(self, vid, sid, k, w, max_new, room, entries=0):
        return geil._extend_levels(self, vid, sid, k, w, max_new, room, entries)

    def bnb(self, R, r_len, cand, cand_ptr, best, mode, budget_ns, out_cap, warps_per_sm, budget_bytes):
        """As _GpuOps.bnb; ``best`` (a NumPy array) is updated in place as the device array is."""
        ptr = np.asarray(cand_ptr, np.int64)
        sizes = np.diff(ptr)
        if len(sizes) == 0:
            return None, None, 0, False, 0, 0
        live = np.flatnonzero(sizes + r_len >= int(best[0]) + (1 if mode == 0 else 0))
        if len(live) == 0:
            return None, None, 0, False, 0, 0
        workers = self.sms * int(warps_per_sm)
        passes = plan_passes({"scratch": geil.scratch_words(sizes[live])}, workers, budget_bytes, "Geil DFS",
                             lambda i: f"sub-problem {i}")
        slot_words = r_len + int(sizes.max()) + 2
        flags, out_pos, nodes = np.zeros(2, np.int32), np.zeros(1, np.uint64), np.zeros(1, np.uint64)
        size_rec = int(best[0]) if mode == 1 else 1
        out = np.zeros(max(1, out_cap * size_rec), np.int32)
        best_slot = None
        for idx, caps, nwork in passes:
            tasks = live[idx]
            tasks = tasks[np.argsort(-sizes[tasks], kind="stable")].astype(np.int32)
            clock0 = launch_args(self.exe["stamp_clock"], 1, 1, np.zeros(1, np.uint64))[0]
            o = launch(self.exe["bnb_kernel"], geil.PARAMS, -(-nwork // WARPS), 32 * WARPS,
                       indptr=self.prep.indptr, indices=self.prep.indices, outptr=self.prep.outptr,
                       adj=self.adj, R=np.asarray(R, np.int32), cand=np.asarray(cand, np.int32), cand_ptr=ptr,
                       tasks=tasks, scratch=np.zeros(nwork * caps["scratch"], np.uint32), best=best,
                       next_task=np.zeros(1, np.int32), flags=flags, out=out, out_pos=out_pos,
                       slots=np.zeros(nwork * slot_words, np.int32), nodes=nodes, clock0=clock0,
                       scratch_cap=caps["scratch"], out_cap=out_cap, budget_ns=budget_ns, n_tasks=len(tasks),
                       r_len=r_len, mode=mode, n_workers=nwork, nw=self.nw, slot_words=slot_words)
            best[:], flags, out_pos, nodes, out = o["best"], o["flags"], o["out_pos"], o["nodes"], o["out"]
            assert o["flags"][0] or o["next_task"][0] >= len(tasks), "tasks left undone"
            if mode == 0:
                s = o["slots"].reshape(nwork, slot_words)
                i = int(s[:, 0].argmax())
                size = int(s[i, 0])
                if size and (best_slot is None or size > len(best_slot)):
                    best_slot = s[i, 1:1 + size].copy()
            if flags[0]:
                break
        assert not flags[1], "a tie pass found a clique above omega"
        n_rec = int(out_pos[0])
        rec = out[: min(n_rec, out_cap) * size_rec].reshape(-1, size_rec) if mode == 1 else None
        return best_slot, rec, n_rec, bool(flags[0]), 0, int(nodes[0])


@pytest.fixture(scope="module")
def emu(tmp_path_factory, monkeypatch_module):
    out = tmp_path_factory.mktemp("emu")
    jobs = {k: dict(main="args_main.cpp") for k in ARGS_KERNELS}
    jobs.update(greedy_kernel=dict(defines={"SYMBOL": "H"}), bnb_kernel={})
    with ThreadPoolExecutor(2) as pool:
        built = {k: pool.submit(build, "geil.cu", k, out / k, **kw) for k, kw in jobs.items()}
        EmuOps.exe = {k: f.result() for k, f in built.items()}
    monkeypatch_module.setattr(geil, "_CpuOps", EmuOps)  # device="cpu" runs the emulated kernels
    return EmuOps


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


def oracle(H: nx.Graph):
    """(omega, sorted maximum cliques) by networkx, checked against mce_kit.cpu (ids of from_networkx)."""
    H = nx.convert_node_labels_to_integers(H)
    cl = [sorted(c) for c in nx.find_cliques(H)] if H.number_of_nodes() else []
    omega = max(map(len, cl), default=0)
    want = sorted(c for c in cl if len(c) == omega)
    if H.number_of_nodes():
        assert maxclique.max_cliques(from_networkx(H)) == (omega, want)
    return omega, want


def check(H: nx.Graph, **params):
    G = from_networkx(H)
    omega, want = oracle(H)
    prep = geil.prepare(G, device="cpu")
    res = prep.run(listing=True, **params)
    assert res.exact and res.answer == (omega, len(want)), (res.answer, omega, len(want), params)
    assert res.cliques == want, params
    if omega:
        assert len(res.best_clique) == omega
    assert prep.run(omega_only=True, **params).omega == omega
    return res


def test_build_adj_bit_rows(emu):
    H = nx.gnp_random_graph(70, 0.2, seed=3)
    prep = geil.prepare(from_networkx(H), device="cpu")
    ops = EmuOps(prep, geil.DEFAULTS)
    n = len(prep.degree)
    rows = np.unpackbits(ops.adj.view(np.uint8).reshape(n, -1), axis=1, bitorder="little")[:, :n]
    dense = np.zeros((n, n), np.uint8)
    dense[np.repeat(np.arange(n), np.diff(prep.indptr)), prep.indices] = 1
    assert (rows == dense).all()


def test_greedy_grows_real_cliques(emu):
    H = _planted_graph(60, 0.15, 9, seed=4)
    prep = geil.prepare(from_networkx(H), device="cpu")
    ops = EmuOps(prep, geil.DEFAULTS)
    nbr = [set(prep.indices[prep.indptr[v]:prep.indptr[v + 1]].tolist()) for v in range(len(prep.degree))]
    for by in ("degree", "core"):
        score = prep.degree if by == "degree" else prep.core
        seeds = prep.by_score[by]
        sizes = ops.greedy(score, seeds)
        assert (sizes == NUMPY_OPS(prep, geil.DEFAULTS).greedy(score, seeds)).all()
        for s in seeds[:5]:
            size, clique = ops.greedy(score, np.array([s], np.int32), record=True)
            assert clique[0] == s and len(set(clique.tolist())) == size
            assert all(b in nbr[a] for i, a in enumerate(clique.tolist()) for b in clique[i + 1:].tolist())


def _planted_graph(n, p, k, seed):
    H = nx.gnp_random_graph(n, p, seed=seed)
    nodes = np.random.default_rng(seed).choice(n, size=k, replace=False).tolist()
    H.add_edges_from((a, b) for i, a in enumerate(nodes) for b in nodes[i + 1:])
    return H


def _grow(ops, vid, sid, k, w, max_new=64, room=1 << 40):
    """Every level ``ops.extend`` yields, as NumPy arrays, and its last (need, done)."""
    levels, step = [], ([], 0, False)
    for step in ops.extend(vid, sid, k, w, max_new, room):
        levels += [(np.array(v), np.array(s)) for v, s in step[0]]
    return levels, step[1], step[2]


def _level2(prep):
    return prep.o_dst.astype(np.int32), prep.o_src.astype(np.int32)


@pytest.mark.parametrize("bitmap", [True, False])
def test_levels_match_numpy_twins(emu, bitmap):
    """The level kernels, a batch of levels a sync, against the NumPy twins, with a bound that prunes."""
    H = _planted_graph(45, 0.3, 8, seed=5)
    prep = geil.prepare(from_networkx(H), device="cpu")
    p = {**geil.DEFAULTS, "bitmap_max_n": 1 << 15 if bitmap else 0}
    ops, twin = EmuOps(prep, p), NUMPY_OPS(prep, p)
    assert (ops.nw > 0) == bitmap
    got, need, done = _grow(ops, *_level2(prep), 2, 6)
    want, want_need, want_done = _grow(twin, *_level2(prep), 2, 6)
    assert done and want_done and need == want_need == 0
    assert len(got) == len(want) >= 6  # the planted 8-clique survives the bound to the last level
    for (v, s), (tv, ts) in zip(got, want, strict=True):
        assert (v == tv).all() and (s == ts).all()


def test_levels_go_on_in_a_larger_arena_and_stop_at_the_room_given(emu, monkeypatch):
    """Long levels over several tiles of each block's chunk, an arena far too small (every level
    passes it: the growth moves on to a larger one) and batches of one level; then a room that ends
    the growth: both back ends name the entries of the first level past it. Blocks of 32 threads:
    level 4 has over 10 tiles a thread for the last block's scan of the tiles' sums."""
    monkeypatch.setattr(geil, "ARENA_MIN_ENTRIES", 16)
    monkeypatch.setattr(geil, "LEVEL_BATCH", 1)
    monkeypatch.setattr(geil, "THREADS", 32)
    H = nx.gnp_random_graph(70, 0.5, seed=3)
    prep = geil.prepare(from_networkx(H), device="cpu")
    p = {**geil.DEFAULTS, "bitmap_max_n": 1 << 15}
    ops, twin = EmuOps(prep, p), NUMPY_OPS(prep, p)
    want, _, _ = _grow(twin, *_level2(prep), 2, 0, max_new=3)
    assert len(want[1][0]) > 32 * 32 * 10
    got, need, done = _grow(ops, *_level2(prep), 2, 0, max_new=3)
    assert need == 0 and not done and len(got) == 3
    for (v, s), (tv, ts) in zip(got, want, strict=True):
        assert (v == tv).all() and (s == ts).all()
    room = 8 * (len(want[0][0]) + len(want[1][0]) + 1)
    for o in (ops, twin):
        levels, need, done = _grow(o, *_level2(prep), 2, 0, max_new=3, room=room)
        assert len(levels) == 2 and need == len(want[2][0]) and not done


FAMILIES = [H for H in random_nx_graphs(16, seed=11) if H.number_of_edges() <= 1500]


@pytest.mark.parametrize("i", range(len(FAMILIES)))
def test_random_families(emu, i):
    # a 64 KiB level budget: breadth first would list every clique of a dense graph (w = 1)
    check(FAMILIES[i], heuristic=geil.HEURISTICS[i % len(geil.HEURISTICS)], window=(0, 20)[i % 2],
          level_bytes=1 << 16)


@pytest.mark.parametrize("i", range(0, len(FAMILIES), 3))
def test_random_families_in_tiny_arenas(emu, i, monkeypatch):
    """The whole search when every level passes its arena (the growth moves on from its counts) and
    batches are of two levels, windows and fallbacks as above."""
    monkeypatch.setattr(geil, "ARENA_MIN_ENTRIES", 8)
    monkeypatch.setattr(geil, "LEVEL_BATCH", 2)
    check(FAMILIES[i], heuristic=geil.HEURISTICS[i % len(geil.HEURISTICS)], window=(0, 20)[i % 2],
          level_bytes=1 << 16)


def test_a_kept_search_starts_at_level_3_in_one_arena(emu, monkeypatch):
    """run(keep=True) twice, arenas of 8 entries, w = 1 (every clique is a level entry): the first run
    uploads its sources and moves its levels through several arenas (a level table each); the second
    derives no pruning or first levels again and grows every level in one arena, sized by the first
    run's entries (one table uploaded)."""
    monkeypatch.setattr(geil, "ARENA_MIN_ENTRIES", 8)
    H = nx.gnp_random_graph(40, 0.5, seed=2)
    omega, want = oracle(H)
    prep = geil.prepare(from_networkx(H), device="cpu")
    uploads = []
    monkeypatch.setattr(EmuOps, "asarray", lambda self, a: uploads.append(len(a)) or np.asarray(a))
    runs = []
    for _ in range(2):
        uploads.clear()
        res = prep.run(listing=True, keep=True, heuristic="none")
        assert res.answer == (omega, len(want)) and res.cliques == want and res.method == "bfs"
        assert sum(res.levels[2:]) > 4 * res.levels[1]   # past the first arena's 4 entries a source
        runs.append(len(uploads))
    assert runs[0] >= 3 and runs[1] == 1, runs


@pytest.mark.parametrize("name", sorted(boundary_nx_graphs()))
def test_boundary_graphs(emu, name):
    check(boundary_nx_graphs()[name])


@pytest.mark.parametrize("switches", [
    dict(level_bytes=64),                                   # BFS then branch and bound (ties too)
    dict(level_bytes=64, window=30, heuristic="none"),      # windowed, later windows as DFS sources
    dict(strategy="dfs", bitmap_max_n=0),                   # DFS alone, binary-search adjacency
    dict(strategy="bfs", heuristic="single-core", seeds=3),
    dict(strategy="dfs", dfs_depth=4, max_tasks=5),         # sub-problems from a shallower level
])
def test_planted_cliques_under_switches(emu, switches):
    for seed in range(2):
        H = _planted_graph(50, 0.25, 7, seed=seed)
        H.add_edges_from((a, b) for a in range(40, 46) for b in range(a + 1, 47))  # a tie or a larger one
        res = check(H, **switches)
        if switches.get("strategy") == "dfs":
            assert res.method == "dfs"


@pytest.mark.parametrize("k", [2, 3, 4])
def test_moon_moser(emu, k):
    res = check(moon_moser_nx(k), heuristic="none", level_bytes=256)
    assert res.count == 3 ** k


@pytest.mark.parametrize("n, p, seed", [(36, 0.9, 1), (44, 0.8, 2), (60, 0.6, 3)])
def test_dimacs_like_dense(emu, n, p, seed):
    """Small brock/p_hat-like graphs: dense ones go straight to branch and bound."""
    res = check(nx.gnp_random_graph(n, p, seed=seed))
    assert res.method == ("dfs" if p >= geil.DEFAULTS["dense"] else res.method)


def test_public_calls(emu):
    """max_cliques / clique_number on the bounds' reduced core (device="cpu" runs the emulation)."""
    H = _planted_graph(70, 0.3, 9, seed=8)
    omega, want = oracle(H)
    G = from_networkx(H)
    assert geil.max_cliques(G, device="cpu") == (omega, want)
    assert geil.clique_number(G, device="cpu") == omega


def test_public_calls_with_other_switches_on_one_graph(emu, monkeypatch):
    """The kept start, pruning, first levels and arena sizes of one graph under calls whose switches
    differ (heuristic, windows, a level budget that falls back, tiny arenas): every answer exact."""
    monkeypatch.setattr(geil, "ARENA_MIN_ENTRIES", 8)
    H = _planted_graph(60, 0.3, 8, seed=9)
    omega, want = oracle(H)
    G = from_networkx(H)
    searched = []
    monkeypatch.setattr(geil, "_search", lambda *a, _search=geil._search, **kw: searched.append(kw["keep"])
                        or _search(*a, **kw))
    for switches in ({}, {"window": 20}, {"level_bytes": 1 << 10}, {"heuristic": "none"},
                     {"heuristic": "single-core"}, {"level_bytes": 1 << 10}, {}):
        assert geil.max_cliques(G, device="cpu", **switches) == (omega, want), switches
        assert geil.clique_number(G, device="cpu", **switches) == omega, switches
    assert len(searched) >= 7 and all(searched)   # Geil's search answered, keeping


def test_branch_and_bound_direct(emu):
    """bnb_kernel alone, one sub-problem per source (R = [s], C = its later neighbours) of a
    Moon-Moser graph: mode 0 raises the bound from 1 to omega with a real clique, mode 1 counts
    all 3^k ties, and the smallest time budget stops it cleanly (emu.h's clock ticks per read)."""
    k = 7
    H = moon_moser_nx(k)
    prep = geil.prepare(from_networkx(H), device="cpu")
    ops = EmuOps(prep, geil.DEFAULTS)
    n = len(prep.degree)
    R, ptr = np.arange(n, dtype=np.int32), np.searchsorted(prep.o_src, np.arange(n + 1)).astype(np.int64)
    best = np.array([1], np.int32)
    slot, _, _, stop, _, _ = ops.bnb(R, 1, prep.o_dst, ptr, best, 0, 0, 0, 4, 1 << 40)
    clique = prep.order[slot].tolist()
    assert not stop and best[0] == len(clique) == k
    assert all(H.has_edge(a, b) for i, a in enumerate(clique) for b in clique[i + 1:])
    for budget_ns, stopped in ((0, False), (1, True)):
        _, rec, n_rec, stop, _, _ = ops.bnb(R, 1, prep.o_dst, ptr, best, 1, budget_ns, 0, 1, 1 << 40)
        assert stop == stopped and best[0] == k
        if not stopped:
            assert n_rec == 3 ** k and rec.shape == (0, k)


def test_launch_args_checks_the_signature(emu):
    exe, a = EmuOps.exe["build_adj"], np.zeros(2, np.int32)
    with pytest.raises(TypeError, match="5 arguments"):
        launch_args(exe, 1, 32, a, a)
    with pytest.raises(TypeError, match="int32"):  # int n given as long long
        launch_args(exe, 1, 32, a, a, np.int64(1), np.int32(1), np.zeros(1, np.uint32))
