"""GMBE+'s CUDA kernels (cuda/gmbe.cu) run on CPU fibers (tests/emulated.py) against the CPU oracle.

No GPU needed: each launch is planned by the launcher's own host code (``gmbe.prepare``, ``plan``,
``queue_bound``, ``arena_plan``, ``snap_plan``, the flags of ``gmbe._run``) on a device with FREE
bytes; ``gmbe_warp_kernel`` runs one block of four warps at once (levels gmbe+ and warp: the
warps share the block's queue, the global queue and donated nodes), ``gmbe_block_kernel`` two
blocks one after another (level block). Counts and listings under the switches of ``gmbe.DEFAULTS``
are compared with ``mce_kit.cpu``. Logic errors, not races: the GPU tests' repeated runs look for those.
"""

import numpy as np
import pytest
from emulated import HAVE_GXX, build, launch
from graph_families import complete_bipartite, crown, random_bipartite

from mce_kit import generators
from mce_kit.cpu import count_maximal_bicliques, maximal_bicliques
from mce_kit.gpu import gmbe
from mce_kit.graph import BipartiteGraph

pytestmark = pytest.mark.skipif(not HAVE_GXX, reason="needs g++ (C++20)")
FREE = 1 << 22  # free device bytes the plans see: small buffers, a global queue of 52k entries
BLOCKS = {"block": 2, "gmbe+": 1, "warp": 1}  # emulated blocks per level (block: one worker each)
FILL = 0xA5A5A5A5  # what cupy.empty buffers hold here: a read before a write shows


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    out = tmp_path_factory.mktemp("emu")
    return {k: build("gmbe.cu", k, out / k) for k in ("gmbe_warp_kernel", "gmbe_block_kernel")}


def run_gmbe(kernels, B, *, listing=False, max_buffer_bytes=None, queue_cap=None, list_cap=None, **params):
    """(count, bicliques or None, {stat: total}, ctrl words of each launch) of ``gmbe._run``'s launches,
    emulated; ``list_cap`` starts the listing buffer smaller than the launcher would."""
    prep = gmbe.prepare(B)
    p = gmbe._check(params)
    block = p["level"] == "block"
    n_v = len(prep.v_indptr) - 1
    vmap_words = 2 * (-(-n_v // 32))
    n_blocks = BLOCKS[p["level"]]
    n_workers = n_blocks if block else n_blocks * gmbe.WARPS_PER_BLOCK
    scatter = p["union"] == "scatter" and n_workers * vmap_words * 4 <= 0.05 * FREE
    flags = (gmbe.F_PRUNE * bool(p["prune"]) | gmbe.F_BITMAP * bool(p["bitmap"])
             | gmbe.F_SPLIT * (p["level"] == "gmbe+") | gmbe.F_UNION * (p["union"] != "serial")
             | gmbe.F_LIST * listing | gmbe.F_DONATE * gmbe.donates(p)
             | gmbe.F_DONATE_ALL * (gmbe.donates(p) and p["donate"] == "always") | gmbe.F_SCATTER * scatter)
    vmap_words *= scatter
    budget = int(max_buffer_bytes or 0.4 * FREE)
    exe = kernels["gmbe_block_kernel" if block else "gmbe_warp_kernel"]
    list_cap = list_cap or (max(4096, 16 * len(prep.seeds)) if listing else 1)
    stats = np.zeros((n_workers, gmbe.NSTAT), np.uint64)
    vmap = np.zeros(max(1, n_workers * vmap_words), np.uint32)
    records, ctrls = [], []
    for idx, cap, workers in gmbe.plan(prep, p, n_workers, budget):
        order = idx[np.argsort(-prep.p2[idx], kind="stable")]
        gq_cap = gmbe.queue_bound(prep, order, p)
        if gq_cap * 8 > budget // 4:
            gq_cap = max(1, budget // 32)
        if queue_cap is not None:
            gq_cap = max(1, min(gq_cap, int(queue_cap)))
        a_off, a_words = gmbe.arena_plan(prep, order, p, int(0.1 * FREE))
        snap_cap = gmbe.snap_plan(prep, order, p, int(0.05 * FREE))
        blocks = workers if block else -(-workers // gmbe.WARPS_PER_BLOCK)
        while True:
            ctrl = np.zeros(8, np.int32)
            pos = np.zeros(1, np.uint64)
            out = launch(exe, gmbe.PARAMS, blocks, 32 * gmbe.WARPS_PER_BLOCK,
                         u_indptr=prep.u_indptr, u_indices=prep.u_indices, v_indptr=prep.v_indptr,
                         v_indices=prep.v_indices, seeds=prep.seeds[order], seed_nw=prep.nw[order],
                         seed_p2=prep.p2[order], buf=np.full(workers * cap, FILL, np.uint32),
                         arena=np.full(a_words, FILL, np.uint32), arena_off=a_off, vmap=vmap,
                         gq=np.full(gq_cap, 2**64 - 1, np.uint64), ctrl=ctrl,
                         stats=np.zeros(workers * gmbe.NSTAT, np.uint64),
                         list=np.full(list_cap, FILL, np.uint32).view(np.int32), list_pos=pos,
                         list_overflow=np.zeros(1, np.int32),
                         snap=np.full(max(1, 32 * snap_cap), FILL, np.uint32), buf_cap=cap, gq_cap=gq_cap,
                         list_cap=list_cap, bound_size=p["bound_size"], vmap_words=vmap_words,
                         snap_cap=snap_cap, n_seeds=len(order), tau=p["tau"], tw=gmbe._tw(p["tau"]),
                         flags=flags, n_workers=workers, bound_height=p["bound_height"],
                         min_left=p["min_left"], min_right=p["min_right"])
            if not listing or out["list_overflow"][0] == 0:
                break
            list_cap = int(out["list_pos"][0]) + 1
        vmap = out["vmap"]
        assert not vmap.any(), "a seed left bits of its 2-hop union in the bitmap over V"
        host = out["stats"].reshape(workers, gmbe.NSTAT)
        assert host[:, gmbe.STATS.index("seeds")].sum() == len(order)
        stats[:workers] += host
        ctrls.append(out["ctrl"])
        if listing:
            records.append(out["list"][: int(out["list_pos"][0])])
    bicliques = None
    if listing:
        bicliques = [(tuple(L.tolist()), tuple(R.tolist()))
                     for L, R in gmbe.decode_records(records, prep.order)]
    totals = {k: int(stats[:, i].sum()) for i, k in enumerate(gmbe.STATS)}
    return totals["count"], bicliques, totals, ctrls


def graphs(count=48, seed=5):
    """Small bipartite graphs of every family: random densities, Chung-Lu, complete, crowns,
    isolated vertices, a complete block inside noise, no edges."""
    rng = np.random.default_rng(seed)
    r = lambda: int(rng.integers(1 << 30))  # noqa: E731
    makers = [
        lambda: random_bipartite(int(rng.integers(2, 18)), int(rng.integers(2, 18)),
                                 float(rng.choice([0.1, 0.3, 0.6, 0.9])), seed=r()),
        lambda: generators.bipartite_chung_lu(int(rng.integers(15, 60)), int(rng.integers(8, 30)),
                                              int(rng.integers(20, 150)), seed=r()),
        lambda: complete_bipartite(int(rng.integers(1, 40)), int(rng.integers(1, 12))),
        lambda: crown(int(rng.integers(2, 8))),
        lambda: with_isolated(random_bipartite(int(rng.integers(3, 14)), int(rng.integers(3, 14)), 0.4,
                                               seed=r()), int(rng.integers(1, 4)), int(rng.integers(1, 4))),
        lambda: block_plus_noise(rng, int(rng.integers(8, 36)), int(rng.integers(3, 10))),
    ]
    out = [makers[i % len(makers)]() for i in range(count)]
    return out + [BipartiteGraph.from_edges(3, 2, [], [])]


def with_isolated(B, extra_u, extra_v):
    u = np.repeat(np.arange(B.n_u), np.diff(B.u_indptr))
    return BipartiteGraph.from_edges(B.n_u + extra_u, B.n_v + extra_v, u, B.u_indices)


def block_plus_noise(rng, a, b):
    """K_{a,b} plus random edges on extra vertices and into the block: large seeds that split."""
    nu, nv = a + 12, b + 8
    u, v = np.nonzero(np.ones((a, b), bool))
    ru, rv = rng.integers(0, nu, 40), rng.integers(0, nv, 40)
    return BipartiteGraph.from_edges(nu, nv, np.concatenate([u, ru]), np.concatenate([v, rv]))


@pytest.fixture(scope="module")
def cases():
    return [(B, count_maximal_bicliques(B)) for B in graphs()]


# every level, each technique switched off, unions, tau at both ends, forced splits and donations
SWITCHES = {
    "block (default)": {},
    "gmbe+": dict(level="gmbe+"),
    "warp": dict(level="warp"),
    "gmbe+ split all": dict(level="gmbe+", bound_height=0, bound_size=0),
    "gmbe+ split all, donate always, tau 4": dict(level="gmbe+", bound_height=0, bound_size=0,
                                                  donate="always", tau=4),
    "block donate always": dict(donate="always"),
    "block donate always, no prune, no bitmap": dict(donate="always", prune=False, bitmap=False),
    "gmbe+ donate off, merge union": dict(level="gmbe+", donate="off", union="merge"),
    "block serial union, tau 2": dict(union="serial", tau=2),
    "warp merge union, tau 128": dict(level="warp", union="merge", tau=128),
    "gmbe+ no prune, no bitmap, split": dict(level="gmbe+", prune=False, bitmap=False, bound_height=1,
                                             bound_size=1),
}


@pytest.mark.parametrize("name", list(SWITCHES))
def test_emulated_gmbe_counts_every_family(kernels, cases, name):
    shared = dict.fromkeys(("splits", "subtasks", "donations"), 0)
    for i, (B, want) in enumerate(cases):
        got, _, totals, ctrls = run_gmbe(kernels, B, **SWITCHES[name])
        assert got == want, f"graph {i} {B!r}: {got} != {want}"
        assert all(c[3] == 0 and c[5] == 0 and c[4] == 0 for c in ctrls), ctrls  # nobody left holding
        shared = {k: v + totals[k] for k, v in shared.items()}
    if "split all" in name:
        assert shared["splits"] > 0 and shared["subtasks"] > 0
    if "donate always" in name:
        assert shared["donations"] > 0 and shared["subtasks"] > 0


def test_emulated_gmbe_idle_warps_receive_donations(kernels):
    # crowns: seed 0's tree holds most bicliques; warps done with their seeds idle, so the busy one
    # donates (the default "idle"), and the receivers start from snapshots
    for n in (7, 8, 9):
        got, _, totals, _ = run_gmbe(kernels, crown(n), level="gmbe+", bound_height=100)
        assert got == 2**n - 2 and totals["donations"] > 0 and totals["subtasks"] > 0, n


@pytest.mark.parametrize("cfg", [{}, dict(level="gmbe+", bound_height=0, bound_size=0), dict(tau=4),
                                 dict(min_left=2, min_right=2), dict(donate="always", level="gmbe+"),
                                 dict(donate="always", min_left=3)])
def test_emulated_gmbe_lists_each_biclique_once(kernels, cfg):
    for seed in range(4):
        B = generators.bipartite_chung_lu(40, 20, 120, seed=seed)
        lo_l, lo_r = cfg.get("min_left", 1), cfg.get("min_right", 1)
        want = {(tuple(L), tuple(R)) for L, R in maximal_bicliques(B) if len(L) >= lo_l and len(R) >= lo_r}
        count, got, _, _ = run_gmbe(kernels, B, listing=True, list_cap=64, **cfg)
        assert len(got) == len(set(got)) == count
        assert set(got) == want, (seed, cfg)


def test_emulated_gmbe_passes_and_a_full_queue(kernels):
    # a small budget: several passes; a queue of 3 entries: split seeds and donors keep the children
    full = []
    for seed in range(4):
        B = generators.bipartite_chung_lu(60, 25, 220, seed=seed)
        want = count_maximal_bicliques(B)
        prep = gmbe.prepare(B)
        need = prep.need_words(32)
        got, _, _, ctrls = run_gmbe(kernels, B, max_buffer_bytes=int(4 * 4 * np.percentile(need, 70)),
                                    level="gmbe+")
        assert got == want and len(ctrls) >= 2
        for cfg in (dict(level="gmbe+", bound_height=0, bound_size=0), dict(donate="always")):
            got, _, _, ctrls = run_gmbe(kernels, B, queue_cap=3, **cfg)
            assert got == want, cfg
            full.append(any(c[4] & gmbe.ERR_QUEUE for c in ctrls))
    assert any(full)
