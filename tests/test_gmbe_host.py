"""The host side of the GMBE+ launcher and the kernel's algorithm, without a GPU.

``gmbe_mirror`` runs cuda/gmbe.cu's task logic line by line in Python on the launcher's
arrays, so the node_buf fields, the sub-task split and the buffer bounds are checked against
the CPU oracle here; the GPU tests check the kernel itself.
"""

import gmbe_mirror
import numpy as np
import pytest
from graph_families import bipartite_graphs, complete_bipartite, crown, random_bipartite
from hypothesis import given, settings

from mce_kit import generators
from mce_kit.cpu import count_maximal_bicliques
from mce_kit.gpu import gmbe
from mce_kit.gpu.launch import kernel_struct_fields
from mce_kit.gpu.loader import read_source
from mce_kit.graph import BipartiteGraph

SWITCHES = {
    "gmbe+": dict(),
    "split everything": dict(bound_height=0, bound_size=0),
    "no prune": dict(prune=False),
    "no bitmap": dict(bitmap=False),
    "tau 4": dict(tau=4, bound_height=1, bound_size=1),
    "tau 128": dict(tau=128),
    "warp/block (no split)": dict(split=False),
    "donate at every step": dict(split=False, donate_every=1),
    "donate every 3rd step, tau 4": dict(split=False, donate_every=3, tau=4),
    "split and donate every 2nd step": dict(bound_height=0, bound_size=0, donate_every=2),
    "donate, no prune, no bitmap": dict(split=False, donate_every=2, prune=False, bitmap=False),
}


def test_the_kernel_compiles():
    pytest.importorskip("cupy_backends.cuda.libs.nvrtc")
    from mce_kit.gpu.loader import compile_ptx

    ptx, _ = compile_ptx("gmbe.cu", "sm_90")
    assert ".entry gmbe_warp_kernel" in ptx and ".entry gmbe_block_kernel" in ptx


def test_launch_parameters_match_the_kernel_struct():
    want = [(n, gmbe.PARAMS[n].str[1:]) for n in gmbe.PARAMS.names]
    assert kernel_struct_fields(read_source("gmbe.cu")) == want


def test_stat_columns_match_the_kernel():
    src = read_source("gmbe.cu")
    for i, name in enumerate(gmbe.STATS):
        assert f"#define S_{name.upper() if name != 'sm' else 'SM'} {i}\n" in src
    assert f"#define NSTAT {gmbe.NSTAT}" in src


@settings(max_examples=60, deadline=None)
@given(bipartite_graphs(max_side=9))
def test_mirror_matches_the_oracle_on_every_switch(B):
    want = count_maximal_bicliques(B)
    prep = gmbe.prepare(B)
    for name, cfg in SWITCHES.items():
        assert gmbe_mirror.run(prep, **cfg)[0] == want, name
        assert gmbe_mirror.run(prep, xfirst=True, **cfg)[0] == want, (name, "xfirst")


@pytest.mark.parametrize("seed", range(12))
def test_mirror_on_larger_random_graphs(seed):
    rng = np.random.default_rng(seed)
    n_u, n_v = int(rng.integers(5, 30)), int(rng.integers(5, 30))
    B = random_bipartite(n_u, n_v, float(rng.choice([0.1, 0.3, 0.6])), seed=seed)
    want = count_maximal_bicliques(B)
    prep = gmbe.prepare(B)
    for name, cfg in SWITCHES.items():
        assert gmbe_mirror.run(prep, **cfg)[0] == want, name


def test_mirror_size_filters():
    B = random_bipartite(14, 10, 0.45, seed=9)
    from mce_kit.cpu import maximal_bicliques

    pairs = list(maximal_bicliques(B))
    for lo_l, lo_r in [(1, 1), (2, 1), (1, 3), (3, 2)]:
        want = sum(len(L) >= lo_l and len(R) >= lo_r for L, R in pairs)
        assert gmbe_mirror.run(gmbe.prepare(B), min_left=lo_l, min_right=lo_r)[0] == want


def test_pruning_cuts_non_maximal_nodes():
    B = generators.bipartite_chung_lu(120, 60, 700, seed=2)
    prep = gmbe.prepare(B)
    with_prune = gmbe_mirror.run(prep, split=False)[1]
    without = gmbe_mirror.run(prep, split=False, prune=False)[1]
    assert with_prune["count"] == without["count"] == count_maximal_bicliques(B)
    assert with_prune["failed"] < without["failed"] and with_prune["pruned"] > 0


def test_prepare_numbers_v_by_degree_and_counts_two_hops():
    B = random_bipartite(30, 20, 0.2, seed=1)
    prep = gmbe.prepare(B)
    deg = np.diff(prep.v_indptr)
    assert (np.diff(deg) >= 0).all()
    assert sorted(prep.order.tolist()) == list(range(B.n_v))
    NU = [set(prep.u_indices[prep.u_indptr[u]:prep.u_indptr[u + 1]].tolist()) for u in range(B.n_u)]
    for si, s in enumerate(prep.seeds.tolist()):
        L = prep.v_indices[prep.v_indptr[s]:prep.v_indptr[s + 1]].tolist()
        assert set(L) == set(B.v_neighbors(prep.order[s]).tolist())
        assert prep.nw[si] == len(set().union(*[NU[u] for u in L]))
        assert prep.p2[si] == sum(len(NU[u]) for u in L)
    assert (deg[prep.seeds] > 0).all() and len(prep.seeds) == int((deg > 0).sum())


def test_duplicate_edges_and_empty_sides():
    B = BipartiteGraph.from_edges(4, 3, [0, 0, 1, 1, 1], [0, 0, 1, 1, 2])
    assert B.m == 3 and gmbe_mirror.run(gmbe.prepare(B))[0] == count_maximal_bicliques(B) == 2
    E = BipartiteGraph.from_edges(5, 0, [], [])
    prep = gmbe.prepare(E)
    assert len(prep.seeds) == 0 and gmbe_mirror.run(prep)[0] == 0


def test_wide_complete_blocks():
    for a, b in [(40, 35), (1030, 3)]:
        B = complete_bipartite(a, b)
        assert gmbe_mirror.run(gmbe.prepare(B), bound_height=0, bound_size=0)[0] == 1
    assert gmbe_mirror.run(gmbe.prepare(crown(8)))[0] == count_maximal_bicliques(crown(8))


def test_unknown_and_bad_options_are_rejected():
    with pytest.raises(TypeError, match="unknown GMBE\\+ parameter.*ignored_option"):
        gmbe._check({"ignored_option": 1})
    with pytest.raises(ValueError, match="level must be one of"):
        gmbe._check({"level": "grid"})
    with pytest.raises(ValueError, match="tau must be"):
        gmbe._check({"tau": 0})
    assert gmbe._check({"tau": 0, "bitmap": False})["tau"] == 0


def test_plan_splits_seeds_without_dropping_any():
    B = generators.bipartite_chung_lu(400, 200, 3000, seed=1)
    prep = gmbe.prepare(B)
    p = gmbe._check({})
    need = prep.need_words(p["tau"])
    budget = int(4 * 100 * np.percentile(need, 50))  # 100 workers fit only the lighter half
    passes = gmbe.plan(prep, p, 100, budget)
    assert len(passes) >= 2
    covered = np.sort(np.concatenate([idx for idx, _, _ in passes]))
    assert covered.tolist() == list(range(len(prep.seeds)))
    for idx, cap, workers in passes:
        assert need[idx].max() <= cap and workers * cap * 4 <= budget


def test_an_oversize_seed_is_named():
    B = complete_bipartite(300, 200)
    prep = gmbe.prepare(B)
    with pytest.raises(MemoryError, match=r"GMBE\+: seed v=\d+ \(\|N\(v\)\|=300, \|N2\|=200\) needs .* MiB"):
        gmbe.plan(prep, gmbe._check({}), 64, budget=4096)


def test_queue_bound_covers_every_split():
    B = generators.bipartite_chung_lu(300, 150, 2500, seed=3)
    prep = gmbe.prepare(B)
    p = gmbe._check({"level": "gmbe+", "donate": "off", "bound_height": 2, "bound_size": 10})
    stats = gmbe_mirror.run(prep, bound_height=2, bound_size=10)[1]
    assert stats["subtasks"] > 0
    assert gmbe.queue_bound(prep, np.arange(len(prep.seeds)), p) >= stats["subtasks"]
    assert gmbe.queue_bound(prep, np.arange(len(prep.seeds)), {**p, "level": "warp"}) == 1


def test_union_modes_and_their_booleans():
    assert gmbe._check({})["union"] == "scatter"
    assert gmbe._check({"union": True})["union"] == "scatter"
    assert gmbe._check({"union": False})["union"] == "serial"
    assert gmbe._check({"union": "merge"})["union"] == "merge"
    with pytest.raises(ValueError, match="union must be one of"):
        gmbe._check({"union": "hash"})


def test_arena_slots_are_disjoint_and_cover_the_splittable_seeds():
    B = generators.bipartite_chung_lu(400, 200, 4000, seed=6)
    prep = gmbe.prepare(B)
    p = gmbe._check({"bound_height": 2, "bound_size": 10})
    idx = np.arange(len(prep.seeds))
    may = gmbe.gets_slot(prep, idx, p)
    assert may.any()
    off, total = gmbe.arena_plan(prep, idx, p, budget=1 << 30)
    assert ((off >= 0) == may).all()
    words = gmbe.arena_words(prep.nw, prep.p2)
    spans = sorted((int(off[i]), int(off[i] + words[i])) for i in np.flatnonzero(may))
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False)) and spans[-1][1] == total
    # a small arena keeps the heaviest seeds; the rest simply do not split
    small, tot2 = gmbe.arena_plan(prep, idx, p, budget=int(words[may].max()) * 4 * 3)
    assert 1 <= (small >= 0).sum() <= 3 and tot2 * 4 <= int(words[may].max()) * 4 * 3
    assert gmbe.arena_plan(prep, idx, {**p, "level": "warp"}, 1 << 30)[0].max() == -1
    assert (words % 32 == 0).all() and (off[off >= 0] % 32 == 0).all()  # slots on their own cache lines


def test_donation_option_and_its_plans():
    with pytest.raises(ValueError, match="donate must be one of"):
        gmbe._check({"donate": "sometimes"})
    assert gmbe.donates(gmbe._check({})) and gmbe.donates(gmbe._check({"level": "gmbe+"}))
    assert not gmbe.donates(gmbe._check({"level": "warp"}))
    assert not gmbe.donates(gmbe._check({"donate": "off"}))
    B = generators.bipartite_chung_lu(300, 150, 2500, seed=4)
    prep = gmbe.prepare(B)
    idx = np.arange(len(prep.seeds))
    p = gmbe._check({})
    units = gmbe.snap_plan(prep, idx, p, budget=1 << 30)
    slot = gmbe.gets_slot(prep, idx, p)
    deg = np.diff(prep.v_indptr)[prep.seeds]
    assert units == gmbe.SNAP_SLOTS * int(gmbe.snap_units(deg[slot], prep.nw[slot]).max())
    assert gmbe.snap_plan(prep, idx, p, budget=128 * 7) == 7  # the budget caps the pool
    for off in ({"donate": "off"}, {"level": "warp"}):
        assert gmbe.snap_plan(prep, idx, gmbe._check(off), budget=1 << 30) == 0
    # the donors' 2-hop sets live in the arena: every seed with a tree below its root gets a slot
    assert (slot == ((deg >= 2) & (prep.nw - 1 >= 2))).all()
    assert gmbe.queue_bound(prep, idx, p) == 1 + gmbe.DONATE_QUEUE


def test_two_hop_sizes_are_the_rows_of_the_sparse_product():
    import scipy.sparse as sp
    from graph_families import random_bipartite

    from mce_kit.compiled import two_hop_sizes
    from mce_kit.gpu import gmbe

    for seed in range(12):
        B = random_bipartite(25, 15, (0.05, 0.2, 0.5)[seed % 3], seed=seed)
        prep = gmbe.prepare(B)
        A = sp.csr_matrix((np.ones(B.m), prep.u_indices, prep.u_indptr), shape=(B.n_u, B.n_v))
        want = np.diff((A.T @ A).tocsr().indptr)
        got = two_hop_sizes(prep.v_indptr, prep.v_indices, prep.u_indptr, prep.u_indices)
        assert np.array_equal(got, want) and np.array_equal(prep.nw, want[prep.seeds])
        assert np.array_equal(prep.p2, (A.T @ np.diff(prep.u_indptr))[prep.seeds])
