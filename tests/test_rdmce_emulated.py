"""RDMCE's counting kernel run on CPU fibers (tests/emulated.py) against networkx.

No GPU needed: the seeds, their buffer bounds and the passes come from the launcher's own host
code (``rdmce.prepare``, ``rdmce._plan``); one emulated block's four warps share the seeds and
steal exposed branches from each other. Counts, size filters and histograms under every switch
(exposure, aggressive exposure, register sub-trees, tau, vertex or edge seeds) are compared with
networkx. Logic errors, not races: the GPU tests' repeated runs look for those.
"""

import itertools
from collections import Counter
from typing import NamedTuple

import networkx as nx
import numpy as np
import pytest
from emulated import HAVE_GXX, build, launch
from graph_families import boundary_nx_graphs, from_networkx, moon_moser_nx, random_nx_graphs

from mce_kit.gpu import rdmce

pytestmark = pytest.mark.skipif(not HAVE_GXX, reason="needs g++ (C++20)")
WARPS = rdmce.WARPS_PER_BLOCK
MAX_LAUNCHES = 500  # of one streaming pass (a ring of 4,096 words lists these graphs in far fewer)


@pytest.fixture(scope="module")
def exe(tmp_path_factory):
    return build("rdmce.cu", "rdmce_kernel", tmp_path_factory.mktemp("emu"), defines={"STREAMING": 0})


@pytest.fixture(scope="module")
def stream_exe(tmp_path_factory):
    return build("rdmce.cu", "rdmce_kernel", tmp_path_factory.mktemp("emu"), defines={"STREAMING": 1})


class Counted(NamedTuple):
    count: int
    histogram: dict | None
    steals: int
    passes: int


class Run(NamedTuple):
    """A run's set-up as ``rdmce._Device`` makes it."""
    prep: rdmce.Prepared
    params: dict
    lo: int
    hi: int
    flags: int


def setup(G, params, min_size, max_size) -> Run:
    p = {**rdmce.DEFAULTS, **params}
    on, lo, hi = rdmce.size_range(min_size, max_size)
    flags = (rdmce.FLAG_EXPOSE * p["exposure"] | rdmce.FLAG_AGGRESSIVE * p["aggressive"]
             | rdmce.FLAG_LOCAL * p["local"] | rdmce.FLAG_SIZES * on)
    return Run(rdmce.prepare(G, device="cpu"), p, lo, hi, flags)


def passes(run: Run, budget: int):
    """Per pass (workers, fields): the launch fields fixed for the pass (graph, seeds, fresh worker
    buffers, caps, switches)."""
    prep, p = run.prep, run.params
    u, v, rows_need, stack_need = prep.seed_arrays(p["seeding"])
    for idx, rows_cap, stack_cap, workers in rdmce._plan(rows_need, stack_need, WARPS, budget):
        yield workers, dict(indptr=prep.indptr.astype(np.int32), indices=prep.indices.astype(np.int32),
                            seed_u=u[idx].astype(np.int32), seed_v=v[idx].astype(np.int32),
                            rows_buf=np.zeros(workers * rows_cap, np.uint32),
                            stack_buf=np.zeros(workers * stack_cap, np.uint32),
                            expo=np.zeros(workers, np.uint64), copying=np.zeros(workers, np.int32),
                            rows_users=np.zeros(workers, np.int32), task_info=np.zeros(8 * workers, np.int32),
                            rows_cap=rows_cap, stack_cap=stack_cap, n_seeds=len(idx), tau=p["tau"],
                            n_workers=workers, min_size=run.lo, max_size=run.hi)


def launch_pass(exe, workers, fields, ctrl=None, **more) -> dict:
    """One emulated launch of a pass: its fields, fresh per-launch statistics and the control words
    ``ctrl`` (fresh when None; ``more`` gives the rest); the error flags must stay clear."""
    ctrl = np.zeros(rdmce.STOP_AT + 1, np.int32) if ctrl is None else ctrl
    stats = dict(zip(("worker_count", "worker_nodes", "worker_cycles", "worker_seeds", "worker_steals"),
                     (np.zeros(workers, dt) for dt in ("u8", "u8", "u8", "i4", "i4")), strict=True))
    out = launch(exe, rdmce.PARAMS, -(-workers // WARPS), 32 * WARPS, **fields, **stats, ctrl=ctrl,
                 chunk_next=(ctrl, 16), stop=(ctrl, 4 * rdmce.STOP_AT), **more)
    assert out["ctrl"][2] == 0, "error flags"
    return out


def run_rdmce(exe, G, *, min_size=None, max_size=None, histogram=False, budget=1 << 26, **params) -> Counted:
    """An emulated counting run, isolated vertices included."""
    run = setup(G, params, min_size, max_size)
    hist = np.zeros(run.prep.d + 3 if histogram else 1, np.uint64)
    count = steals = n_passes = 0
    for workers, fields in passes(run, budget):
        out = launch_pass(exe, workers, fields, flags=run.flags | rdmce.FLAG_HIST * histogram, hist=hist,
                          hist_len=len(hist), ring=None, chunk_len=None, chunk_recs=None, resume=None,
                          vert_soft=0, chunk_words=0, chunk_soft=0, chunk_hard=0)
        assert out["worker_seeds"].sum() == fields["n_seeds"]
        count += int(out["worker_count"].sum())
        steals += int(out["worker_steals"].sum())
        n_passes += 1
        hist = out["hist"]
    singles = len(rdmce.extra_singletons(run.prep, True, run.lo, run.hi))
    return Counted(count + singles, rdmce.histogram_dict(hist, singles) if histogram else None, steals,
                   n_passes)


def list_rdmce(exe, G, *, ring_words, min_size=None, max_size=None, chunk_words=None, **params):
    """(every maximal clique as a sorted tuple of G's ids, launches) of an emulated streaming run:
    ``rdmce._stream_gen``'s loop, a launch relaunched (FLAG_RESUME) while its ring fills, each ring
    read by ``rdmce.unpack_host`` (the ``rdmce_unpack`` kernel's twin). Isolated vertices left out."""
    run = setup(G, params, min_size, max_size)
    cliques, launches = [], 0
    for workers, fields in passes(run, 1 << 26):
        cw, soft, hard = rdmce.ring_layout(run.prep.d, workers, ring_words, chunk_words)
        fields["resume"] = np.zeros(rdmce.RESUME_INTS * workers, np.int32)
        kept = ("rows_buf", "stack_buf", "expo", "copying", "rows_users", "task_info", "resume")
        resume, ctrl = 0, None
        while True:
            out = launch_pass(exe, workers, fields, ctrl, flags=run.flags | rdmce.FLAG_STREAM | resume,
                              hist=np.zeros(1, np.uint64), hist_len=1, ring=np.zeros(hard * cw, np.int32),
                              chunk_len=np.zeros(hard, np.int32), chunk_recs=np.zeros(hard, np.int32),
                              vert_soft=rdmce.vert_soft(hard * cw), chunk_words=cw, chunk_soft=soft,
                              chunk_hard=hard)
            launches += 1
            assert launches < MAX_LAUNCHES, "the ring keeps filling: a relaunch makes no progress"
            fields.update({k: out[k] for k in kept})   # the walks a stopped launch suspended
            stopped, n_chunks, n_recs, n_verts = rdmce.launch_totals(out["ctrl"], hard)
            offsets, vertices = rdmce.unpack_host(out["ring"], out["chunk_len"][:n_chunks],
                                                  out["chunk_recs"][:n_chunks], cw, run.prep.order)
            assert len(offsets) == n_recs + 1 and offsets[-1] == n_verts
            cliques += [tuple(sorted(vertices[a:b].tolist()))
                        for a, b in zip(offsets[:-1], offsets[1:], strict=True)]
            if not stopped:
                break
            ctrl = out["ctrl"]   # seeds taken and tasks active carry over; the launch's own words restart
            ctrl[3:] = 0
            resume = rdmce.FLAG_RESUME
    return sorted(cliques), launches


def nx_sizes(G, lo=1, hi=10**9) -> Counter:
    return Counter(len(c) for c in nx.find_cliques(G.to_networkx()) if lo <= len(c) <= hi)


def graphs():
    small = [H for H in random_nx_graphs(30, seed=13) if H.number_of_edges() <= 700]
    big = nx.complete_graph(70)   # rows of three words: 2^7 cliques of 63 vertices, beside a G(n, p)
    big.remove_edges_from((2 * i, 2 * i + 1) for i in range(7))
    more = [moon_moser_nx(5), nx.disjoint_union(big, nx.gnp_random_graph(40, 0.3, seed=4))]
    return [from_networkx(H) for H in small + more]


SWITCHES = [dict(exposure=e, aggressive=a, local=loc, tau=t, seeding=s)
            for (e, a, loc), t, s in zip([(True, True, True), (True, False, True), (False, False, True),
                                          (True, True, False), (False, False, False)],
                                         itertools.cycle((24, 4, 64)), itertools.cycle(("edge", "vertex")))]


@pytest.mark.parametrize("switches", SWITCHES, ids=lambda s: "-".join(str(v) for v in s.values()))
def test_emulated_rdmce_counts_every_family(exe, switches):
    all_graphs = graphs()
    assert len(all_graphs) >= 20
    for i, G in enumerate(all_graphs):
        got = run_rdmce(exe, G, **switches).count
        assert got == sum(nx_sizes(G).values()), f"graph {i} ({G.n} vertices, {G.m} edges)"


def test_emulated_rdmce_filters_and_histograms(exe):
    for i, G in enumerate(graphs()[::3]):
        want = nx_sizes(G)
        got, hist, _, _ = run_rdmce(exe, G, histogram=True)
        assert hist == dict(sorted(want.items())) and got == sum(want.values()), f"graph {i}"
        for lo, hi in ((3, None), (None, 2), (4, 5)):
            got = run_rdmce(exe, G, min_size=lo, max_size=hi).count
            assert got == sum(nx_sizes(G, lo or 1, hi or 10**9).values()), f"graph {i} [{lo}, {hi}]"


def test_emulated_rdmce_passes_that_split_the_seeds(exe):
    # a small budget: several passes, each with its own buffers, still every clique once
    G = from_networkx(nx.gnp_random_graph(80, 0.25, seed=9))
    run = run_rdmce(exe, G, budget=1 << 11)
    assert run.count == sum(nx_sizes(G).values()) and run.passes >= 2


@pytest.mark.parametrize("local", [True, False])
@pytest.mark.parametrize("tau", [2, 4])  # nodes with more than tau candidates are exposed
def test_emulated_rdmce_warps_steal_exposed_branches_exactly(exe, local, tau):
    # vertex seeds of Moon-Moser graphs: few seeds, deep trees, so idle warps steal exposed branches
    stolen = 0
    for k in (6, 7):
        G = from_networkx(moon_moser_nx(k))
        got, _, steals, _ = run_rdmce(exe, G, seeding="vertex", local=local, tau=tau)
        assert got == 3**k
        stolen += steals
    assert stolen > 0


@pytest.mark.parametrize("seeding", ["edge", "vertex"])
def test_emulated_rdmce_boundary_graphs(exe, seeding):
    for name, H in boundary_nx_graphs().items():
        got = run_rdmce(exe, from_networkx(H), seeding=seeding).count
        assert got == sum(1 for _ in nx.find_cliques(H)), name


@pytest.mark.parametrize("switches", SWITCHES[:3], ids=lambda s: "-".join(str(v) for v in s.values()))
def test_emulated_rdmce_lists_every_clique_once_across_relaunches(stream_exe, switches):
    # a ring of a few chunks: launches stop when it fills and resume the suspended walks
    relaunched = 0
    for i, G in enumerate(graphs()[::2]):
        H = G.to_networkx()
        want = sorted(tuple(sorted(c)) for c in nx.find_cliques(H) if len(c) > 1 or H.degree(c[0]))
        got, launches = list_rdmce(stream_exe, G, ring_words=4096, **switches)
        assert got == want, f"graph {i} ({G.n} vertices, {G.m} edges)"
        relaunched += launches > 1
    assert relaunched


def test_emulated_rdmce_lists_within_size_bounds(stream_exe):
    for i, G in enumerate(graphs()[1::4]):
        for lo, hi in ((3, None), (2, 4)):
            got, _ = list_rdmce(stream_exe, G, ring_words=1 << 16, min_size=lo, max_size=hi)
            want = sorted(tuple(sorted(c)) for c in nx.find_cliques(G.to_networkx())
                          if (lo or 1) <= len(c) <= (hi or 10**9) and len(c) > 1)
            assert got == want, f"graph {i} [{lo}, {hi}]"
