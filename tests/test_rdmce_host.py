"""The host side of the RDMCE launcher (no GPU needed): seeds, buffer bounds, pass planning."""

import itertools

import networkx as nx
import numpy as np
import pytest

from mce_kit.gpu import rdmce
from mce_kit.graph import Graph


def _graph(H) -> Graph:
    H = nx.convert_node_labels_to_integers(H)
    e = np.array(H.edges(), dtype=np.int64).reshape(-1, 2)
    return Graph.from_edges(H.number_of_nodes(), e[:, 0], e[:, 1])


GRAPHS = [
    nx.gnp_random_graph(80, 0.2, seed=1),
    nx.powerlaw_cluster_graph(150, 4, 0.5, seed=2),
    nx.complete_graph(40),
    nx.star_graph(30),
    nx.empty_graph(5),
]


@pytest.mark.parametrize("H", GRAPHS, ids=range(len(GRAPHS)))
@pytest.mark.parametrize("seeding", ["edge", "vertex"])
def test_seed_bounds_cover_the_real_sets(H, seeding):
    prep = rdmce.prepare(_graph(H))
    u, v, rows_need, stack_need = prep.seed_arrays(seeding)
    adj = [set(prep.indices[prep.indptr[i]:prep.indptr[i + 1]].tolist()) for i in range(len(prep.indptr) - 1)]
    for a, b, rn, sn in zip(u.tolist(), v.tolist(), rows_need, stack_need, strict=True):
        common = adj[a] & adj[b] if b >= 0 else adj[a]
        last = b if b >= 0 else a
        p = sum(1 for z in common if z > last)
        x = sum(1 for z in common if z < last)
        assert rdmce.rows_words(p, x) <= rn
        assert rdmce.stack_words(p, x) <= sn
    n_seeds = prep.G.m if seeding == "edge" else int((np.diff(prep.indptr) > 0).sum())
    assert len(u) == n_seeds


def test_relabelled_graph_is_in_degeneracy_order():
    G = _graph(nx.powerlaw_cluster_graph(200, 5, 0.3, seed=3))
    prep = rdmce.prepare(G)
    src = np.repeat(np.arange(G.n), np.diff(prep.indptr))
    later = np.bincount(src[prep.indices > src], minlength=G.n)
    core = max(nx.core_number(G.to_networkx()).values())
    assert later.max() <= core  # at most d neighbours later in the order
    assert set(map(int, prep.isolated)) == set(np.flatnonzero(G.degrees() == 0))


def test_plan_splits_seeds_without_dropping_any():
    rng = np.random.default_rng(0)
    rows = rng.integers(10, 1000, size=500)
    stack = rng.integers(10, 1000, size=500)
    rows[:3] = 50_000  # three seeds far larger than the rest
    budget = 4 * 100 * 2000  # 100 workers with room for ordinary seeds only
    passes = rdmce._plan(rows, stack, n_workers=100, budget=budget)
    assert len(passes) >= 2
    seen = np.sort(np.concatenate([idx for idx, *_ in passes]))
    assert np.array_equal(seen, np.arange(500))
    for idx, rows_cap, stack_cap, workers in passes:
        assert (rows[idx] <= rows_cap).all() and (stack[idx] <= stack_cap).all()
        assert rows_cap % 4 == 0
        assert workers * (rows_cap + stack_cap) * 4 <= budget


def test_plan_refuses_a_seed_larger_than_the_whole_budget():
    with pytest.raises(MemoryError, match=r"needs .* MiB .* only .* MiB"):
        rdmce._plan(np.array([10, 10**7]), np.array([10, 10]), n_workers=8, budget=10**6)


def test_gpu_run_without_gpu_says_so(monkeypatch):
    import mce_kit.gpu as gpu

    gpu._probe.cache_clear()
    monkeypatch.setattr(gpu, "_probe", lambda: (False, "no CUDA device found"))
    with pytest.raises(RuntimeError, match="no usable CUDA GPU"):
        rdmce.prepare(_graph(nx.complete_graph(4))).run()


def test_launch_parameters_match_the_kernel_struct():
    from mce_kit.gpu.launch import kernel_struct_fields
    from mce_kit.gpu.loader import read_source

    want = kernel_struct_fields(read_source("rdmce.cu"))
    assert len(want) > 20
    assert [(n, rdmce.PARAMS[n].str[1:]) for n in rdmce.PARAMS.names] == want
    assert rdmce.PARAMS.itemsize == 8 * 27 + 4 * 10  # no padding: the C layout is the same



# ---- size statistics and streaming: the host side of the kernel's protocol ----


def _popc(m: int) -> int:
    return bin(m & 0xFFFFFFFF).count("1")


def _as_i32(m: int) -> int:
    return m - (1 << 32) if m >= 1 << 31 else m


def _write_ring(reports_by_warp, workers, chunk_words, soft, hard, vert_soft=1 << 62):
    """Python model of rdmce.cu's stream_clique_body. A report is ("start",): a register sub-tree begins
    (its group is not in the ring yet); ("local", prefix, ids, mask): a clique of that sub-tree, the
    prefix plus the ids of the mask's lanes; ("plain", clique): a clique of the bitmap path. Warps take
    turns, one report each; a warp writes a sub-tree's group [r0, prefix, ids] at the sub-tree's first
    clique in a chunk, then a descriptor (group offset, mask) per clique from the chunk's end down, and
    takes a new chunk (one atomic) when the next record does not fit. A warp stops once it holds a chunk
    past the soft mark or the launch's published vertices reach ``vert_soft``; a stopped warp's
    sub-tree goes on in the next launch with its group written again. Returns the ring, per chunk its
    expanded vertices and records, what is left, and the launch's vertex total."""
    ring = np.full(hard * chunk_words, -7, dtype=np.int32)
    chunk_len = np.zeros(hard, np.int32)
    chunk_recs = np.zeros(hard, np.int32)
    nxt, cur = 0, [[-1, 0, 0, 0, -1] for _ in range(workers)]  # ch, front, recs, verts, group
    queues = [list(q) for q in reports_by_warp]
    for q in queues:  # a sub-tree suspended last launch: its group is not in this ring
        if q and q[0][0] == "local":
            q.insert(0, ("start",))
    stopped, flag, total = [False] * workers, False, 0

    def publish(ch, verts, recs):
        nonlocal flag, total
        if ch >= 0:
            chunk_len[ch], chunk_recs[ch] = verts, recs
            total += verts
            flag |= total >= vert_soft

    while any(q and not stopped[w] for w, q in enumerate(queues)):
        for w in range(workers):
            if not queues[w] or stopped[w]:
                continue
            if flag:  # another warp raised the stop flag: we stop at our next check
                stopped[w] = True
                continue
            rep = queues[w].pop(0)
            if rep[0] == "start":
                cur[w][4] = -1
                continue
            if rep[0] == "plain":
                prefix, ids, mask = list(rep[1]), [], 0
            else:
                _, prefix, ids, mask = rep
            r0, n = len(prefix), len(ids)
            ch, front, recs, verts, grp = cur[w]
            grp = grp if n else -1
            if ch < 0 or front + (1 + r0 + n if grp < 0 else 0) + 2 * (recs + 1) > chunk_words:
                publish(ch, verts, recs)
                ch, front, recs, verts, grp = nxt, 0, 0, 0, -1
                cur[w][4] = -1
                nxt += 1
                assert ch < hard, "ring overflow"
            base = ch * chunk_words
            if grp < 0:
                grp = front
                ring[base + grp] = r0
                ring[base + grp + 1:base + grp + 1 + r0] = prefix
                ring[base + grp + 1 + r0:base + grp + 1 + r0 + n] = ids
                front += 1 + r0 + n
                if n:
                    cur[w][4] = grp
            at = base + chunk_words - 2 - 2 * recs
            ring[at], ring[at + 1] = grp, _as_i32(mask)
            cur[w][:4] = [ch, front, recs + 1, verts + r0 + _popc(mask)]
            stopped[w] = ch >= soft
    for ch, _, recs, verts, _ in cur:
        publish(ch, verts, recs)
    return ring, chunk_len[:nxt], chunk_recs[:nxt], queues, total


def _clique_of(rep):
    if rep[0] == "plain":
        return list(rep[1])
    _, prefix, ids, mask = rep
    return list(prefix) + [ids[k] for k in range(32) if mask >> k & 1]


def _reports(rng, d, count, n_vertices=1000):
    """A warp's reports: register sub-trees (a prefix of r0 <= d vertices, n <= 32 local ids, cliques as
    lane masks of at most d + 1 - r0 lanes, 32-lane masks included) and plain cliques of 1..d + 1."""
    out = []
    while len(out) < count:
        if rng.random() < 0.3:
            out.append(("plain", rng.choice(n_vertices, size=int(rng.integers(1, d + 2)), replace=False)))
            continue
        r0 = int(rng.integers(0, d + 1))
        n = int(rng.choice([1, 5, 32])) if rng.random() < 0.5 else int(rng.integers(1, 33))
        vs = rng.choice(n_vertices, size=r0 + n, replace=False).tolist()
        prefix, ids = vs[:r0], vs[r0:]
        out.append(("start",))
        most = min(n, d + 1 - r0)
        for _ in range(int(rng.integers(1, 40))):
            if most >= 1:
                lanes = rng.choice(n, size=int(rng.integers(1, most + 1)), replace=False)
            else:
                lanes = []
            out.append(("local", prefix, ids, sum(1 << int(k) for k in lanes)))
    return out


def _round_trip(todo, workers, cw, soft, hard, order, vert_soft=1 << 62):
    """Relaunch until every warp has reported everything (as the host does); every clique listed."""
    got, launches = [], 0
    while any(any(r[0] != "start" for r in q) for q in todo):
        ring, clen, crecs, todo, total = _write_ring(todo, workers, cw, soft, hard, vert_soft)
        offsets, vertices = rdmce.unpack_host(ring, clen, crecs, cw, order)
        assert offsets[0] == 0 and offsets[-1] == len(vertices) == total and (np.diff(offsets) >= 0).all()
        for bs in (1, 3, 1000):
            parts = list(rdmce.split_blocks(offsets, vertices, bs))
            assert all(len(o) - 1 <= bs and o[0] == 0 and o[-1] == len(v) for o, v in parts)
            assert sum(len(o) - 1 for o, _ in parts) == len(offsets) - 1
            if parts:
                assert np.array_equal(np.concatenate([v for _, v in parts]), vertices)
        got += [tuple(vertices[a:b].tolist()) for a, b in zip(offsets[:-1], offsets[1:], strict=True)]
        launches += 1
    return got, launches


@pytest.mark.parametrize("seed", range(20))
def test_ring_unpacks_into_the_cliques_written_and_blocks_cover_them(seed):
    rng = np.random.default_rng(seed)
    d, workers = int(rng.integers(1, 40)), int(rng.integers(1, 9))
    least = rdmce.min_chunk_words(d)
    cw, soft, hard = rdmce.ring_layout(d, workers, ring_words=int(rng.integers(1, 4000)),
                                       chunk_words=least + int(rng.integers(0, 200)))
    assert hard - soft == workers and soft >= 1 and cw >= least and cw % 2 == 0
    order = rng.permutation(1000).astype(np.int32)
    todo = [_reports(rng, d, int(rng.integers(0, 80))) for _ in range(workers)]
    want = sorted(tuple(order[_clique_of(r)].tolist()) for q in todo for r in q if r[0] != "start")
    vert_soft = int(rng.choice([1, 50, 1 << 62]))  # the vertex cap stops launches early too
    got, _ = _round_trip(todo, workers, cw, soft, hard, order, vert_soft)
    assert sorted(got) == want


def test_ring_round_trip_keeps_every_clique_once():
    """Small chunks: a sub-tree's group is written again in each chunk its cliques reach, and again
    in the next launch when the ring fills in the middle of it."""
    rng = np.random.default_rng(1)
    workers, d = 5, 6
    cw, soft, hard = rdmce.ring_layout(d, workers, ring_words=600, chunk_words=rdmce.min_chunk_words(d))
    order = rng.permutation(500).astype(np.int32)
    ids = list(range(100, 132))
    pairs = list(itertools.combinations(range(32), 2))[:150]  # distinct 2-lane masks
    reps = [[("start",)] + [("local", [w, 200 + w], ids, (1 << a) | (1 << b)) for a, b in pairs]
            + [("plain", [w, 300 + i]) for i in range(3)] for w in range(workers)]
    want = sorted(tuple(order[_clique_of(r)].tolist()) for q in reps for r in q if r[0] != "start")
    got, launches = _round_trip(reps, workers, cw, soft, hard, order)
    assert sorted(got) == want and len(got) == len(set(got))
    assert launches > 3  # the ring wrapped
    ring, clen, crecs, _, _ = _write_ring(reps, workers, cw, soft, hard)
    groups = {int(g) for ch in range(len(crecs)) for g, _ in rdmce.descriptors(ring, crecs, cw, ch).tolist()}
    assert len(groups) >= 1 and crecs.max() > 1  # cliques share a group


def test_unpack_of_a_hand_made_ring():
    """Two chunks of 16 words: a group with a 32-lane mask and a 1-lane mask, a plain clique, and a
    group whose sub-tree went on in the next chunk (written again there)."""
    cw = 16
    ring = np.full(2 * cw, -7, np.int32)
    ids = np.arange(100, 132, dtype=np.int32)
    # chunk 0: group at 0 = [r0=1, 7, 32 ids] does not fit in 16 words; use 3 local ids instead
    ring[0:6] = [1, 7, 100, 101, 102, 0]      # group 0: r0 = 1, prefix [7], ids 100, 101, 102 (lane 3 unused)
    ring[6:9] = [2, 40, 41]                   # group 6: a plain clique [40, 41]
    ring[cw - 2:cw] = [0, 0b101]              # clique 0: [7, 100, 102]
    ring[cw - 4:cw - 2] = [6, 0]              # clique 1: [40, 41]
    ring[cw - 6:cw - 4] = [0, 0b010]          # clique 2: [7, 101]
    # chunk 1: the same sub-tree's group again, then its last clique
    ring[cw:cw + 5] = [1, 7, 100, 101, 102]
    ring[2 * cw - 2:2 * cw] = [0, 0b111]      # clique 3: [7, 100, 101, 102]
    order = np.arange(200, dtype=np.int32)[::-1].copy()
    off, ver = rdmce.unpack_host(ring, np.array([3 + 2 + 2, 4]), np.array([3, 1]), cw, order)
    cliques = [order[v].tolist() for v in np.split(ver, off[1:-1])]
    assert [sorted(c) for c in cliques] == [[7, 100, 102], [40, 41], [7, 101], [7, 100, 101, 102]]
    # a full 32-lane group (its mask is -1 as int32) with an empty prefix
    big = np.full(40, -7, np.int32)
    big[0] = 0
    big[1:33] = ids
    big[38:40] = [0, -1]
    off, ver = rdmce.unpack_host(big, np.array([32]), np.array([1]), 40, np.arange(200, dtype=np.int32))
    assert off.tolist() == [0, 32] and ver.tolist() == ids.tolist()
    with pytest.raises(ValueError, match="chunk_len says"):
        rdmce.unpack_host(big, np.array([31]), np.array([1]), 40, np.arange(200, dtype=np.int32))


def test_chunk_bases_are_exclusive_prefix_sums():
    rb, vb, nr, nv = rdmce.chunk_bases(np, np.array([7, 0, 5]), np.array([3, 0, 2]))
    assert rb.tolist() == [0, 3, 3] and vb.tolist() == [0, 7, 7] and (nr, nv) == (5, 12)
    rb2, vb2 = rdmce.chunk_bases(np, np.array([7, 0, 5]), np.array([3, 0, 2]), totals=False)
    assert rb2.tolist() == rb.tolist() and vb2.tolist() == vb.tolist()
    assert rdmce.launch_totals([0, 0, 0, 1, 9, 5, 12, 0], hard=4) == (True, 4, 5, 12)
    assert rdmce.launch_totals([0, 0, 0, 0, 2, 5, -2, 1], hard=4) == (False, 2, 5, (1 << 33) - 2)  # 64-bit
    assert rdmce.chunk_bases(np, np.zeros(0, int), np.zeros(0, int))[2:] == (0, 0)


def test_ring_layout_bounds():
    cw, soft, hard = rdmce.ring_layout(d=115, workers=4224)
    assert cw == max(rdmce.MIN_CHUNK_WORDS, 2 * (115 + 35)) and hard - soft == 4224 and soft > 0
    assert rdmce.min_chunk_words(3) == 76
    assert rdmce.ring_layout(3, 2, ring_words=1, chunk_words=76) == (76, 1, 3)
    assert rdmce.ring_layout(3, 2, ring_words=1, chunk_words=77)[0] == 78  # even: 8-byte descriptors
    with pytest.raises(ValueError, match="chunk_words must be >= 2"):
        rdmce.ring_layout(10, 4, chunk_words=89)
    assert rdmce.csr_bytes(1000, 4000) == 5 * 4000 + 8 * 501


def test_ring_grows_from_its_first_size_to_the_cap():
    from itertools import islice

    assert list(islice(rdmce.ring_sizes(16, 100), 5)) == [16, 32, 64, 100, 100]
    assert list(islice(rdmce.ring_sizes(100, 100), 3)) == [100, 100, 100]  # a given ring stays
    assert list(islice(rdmce.ring_sizes(500, 100), 2)) == [100, 100]
    assert rdmce.default_ring_bytes(1 << 40) == rdmce.RING_BYTES
    assert rdmce.default_ring_bytes(0) == rdmce.MIN_RING_BYTES
    assert rdmce.FIRST_RING_BYTES <= rdmce.RING_BYTES


def test_size_range_and_histogram_reduction():
    assert rdmce.size_range() == (False, 0, 2**31 - 1)
    assert rdmce.size_range(3, None) == (True, 3, 2**31 - 1)
    assert rdmce.size_range(None, 5) == (True, 0, 5)
    for bad in (-1, 2.5, "3", True):
        with pytest.raises(ValueError, match="min_size must be a non-negative int"):
            rdmce.size_range(bad, None)
    h = np.zeros(8, np.uint64)
    h[2], h[5] = 10, 2**63  # 64-bit bins
    assert rdmce.histogram_dict(h, 3) == {1: 3, 2: 10, 5: 2**63}
    assert rdmce.histogram_dict(h, 0) == {2: 10, 5: 2**63}


def test_isolated_vertices_are_reported_by_the_host_within_the_filter():
    H = nx.Graph([(0, 1), (1, 2)])
    H.add_nodes_from([3, 4])
    prep = rdmce.prepare(_graph(H))
    assert len(rdmce.extra_singletons(prep, True, 0, 10)) == 2
    assert len(rdmce.extra_singletons(prep, False, 0, 10)) == 0
    assert len(rdmce.extra_singletons(prep, True, 2, 10)) == 0
    assert prep.d == 1


def test_block_size_must_be_positive():
    prep = rdmce.prepare(_graph(nx.complete_graph(3)))
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="block_size must be a positive int"):
            prep.blocks(bad)


def test_streaming_build_compiles_without_a_gpu():
    from mce_kit.gpu.loader import compile_ptx

    ptx, _ = compile_ptx("rdmce.cu", "sm_90", defines={"STREAMING": 1})
    assert ".entry rdmce_kernel" in ptx and ".entry rdmce_unpack" in ptx
    assert "stream_clique_local" in ptx      # a sub-tree's full append is a call, off the hot loop


def test_compile_time_settings_from_the_environment():
    assert rdmce.env_defines(None) == {} and rdmce.env_defines("") == {}
    assert rdmce.env_defines("MIN_BLOCKS=6, KEEP=-1") == {"MIN_BLOCKS": 6, "KEEP": -1}
    for bad in ("MIN_BLOCKS", "MIN_BLOCKS=yes", "1X=2"):
        with pytest.raises(ValueError, match="MCE_KIT_RDMCE_DEFINES"):
            rdmce.env_defines(bad)


def test_the_statistics_are_disjoint_views_of_one_buffer_in_the_kernels_order():
    w = 5
    state = np.zeros(4 * w + 3, np.uint64)
    count, nodes, cycles, seeds, steals = rdmce._stats_views(state, w)
    count[:], nodes[:], cycles[:], seeds[:], steals[:] = 1, 2, 3, 4, 5
    assert [a.dtype for a in (count, nodes, cycles, seeds, steals)] == [np.uint64] * 3 + [np.int32] * 2
    assert state[:3 * w].tolist() == [1] * w + [2] * w + [3] * w
    assert state[3 * w: 4 * w].view(np.int32).tolist() == [4] * w + [5] * w
    assert not state[4 * w:].any()   # the histogram after them is left alone


def test_the_largest_seed_needs_are_kept_and_plan_as_the_arrays_do():
    from mce_kit.io import load_graph

    prep = rdmce.prepare(load_graph(nx.powerlaw_cluster_graph(300, 6, 0.5, seed=2)), device="cpu")
    _, _, rows, stack = prep.seed_arrays("edge")
    assert prep.seed_most("edge") == {"rows": int(rows.max()), "stack": int(stack.max())}
    for budget in (1 << 30, 1 << 16):   # one pass, and a budget that splits
        with_most = rdmce._plan(rows, stack, 64, budget, most=prep.seed_most("edge"))
        plain = rdmce._plan(rows, stack, 64, budget)
        assert [(i.tolist(), *rest) for i, *rest in with_most] == [(i.tolist(), *rest) for i, *rest in plain]
