"""The host side of the RDMCE launcher (no GPU needed): seeds, buffer bounds, pass planning."""

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
    assert rdmce.PARAMS.itemsize == 8 * 24 + 4 * 10  # no padding: the C layout is the same



# ---- size statistics and streaming: the host side of the kernel's protocol ----


def _write_ring(cliques_by_warp, workers, chunk_words, soft, hard):
    """Python model of rdmce.cu's stream_clique: warps take turns reporting one clique each,
    each appends the clique's vertices from its chunk's start and its size from the chunk's end
    down, and takes a new chunk (one atomic) when it is full; a warp stops once it holds a chunk past
    the soft mark. Returns the ring and what is left."""
    ring = np.full(hard * chunk_words, -7, dtype=np.int32)
    chunk_len = np.zeros(hard, np.int32)
    chunk_recs = np.zeros(hard, np.int32)
    nxt, cur = 0, [[-1, 0, 0] for _ in range(workers)]
    queues = [list(q) for q in cliques_by_warp]
    stopped = [False] * workers
    while any(q and not stopped[w] for w, q in enumerate(queues)):
        for w in range(workers):
            if not queues[w] or stopped[w]:
                continue
            R = queues[w].pop(0)
            ch, used, recs = cur[w]
            if ch < 0 or used + len(R) + recs + 1 > chunk_words:
                if ch >= 0:
                    chunk_len[ch], chunk_recs[ch] = used, recs
                ch, used, recs = nxt, 0, 0
                nxt += 1
                assert ch < hard, "ring overflow"
            base = ch * chunk_words
            ring[base + chunk_words - 1 - recs] = len(R)
            ring[base + used: base + used + len(R)] = R
            cur[w] = [ch, used + len(R), recs + 1]
            stopped[w] = ch >= soft
    for ch, used, recs in cur:
        if ch >= 0:
            chunk_len[ch], chunk_recs[ch] = used, recs
    return ring, chunk_len[:nxt], chunk_recs[:nxt], queues


@pytest.mark.parametrize("seed", range(20))
def test_ring_unpacks_into_the_cliques_written_and_blocks_cover_them(seed):
    rng = np.random.default_rng(seed)
    d, workers = int(rng.integers(1, 12)), int(rng.integers(1, 9))
    cw, soft, hard = rdmce.ring_layout(d, workers, ring_words=int(rng.integers(1, 4000)),
                                       chunk_words=2 * (d + 2) + int(rng.integers(0, 20)))
    assert hard - soft == workers and soft >= 1 and cw >= 2 * (d + 2)
    order = rng.permutation(1000).astype(np.int32)
    todo = [[rng.choice(1000, size=int(rng.integers(1, d + 2)), replace=False).astype(np.int32)
             for _ in range(int(rng.integers(0, 60)))] for _ in range(workers)]
    want = sorted(tuple(order[c].tolist()) for q in todo for c in q)
    got = []
    while any(todo):  # relaunch until every warp has reported everything (as the host does)
        ring, clen, crecs, todo = _write_ring(todo, workers, cw, soft, hard)
        offsets, vertices = rdmce.unpack_host(ring, clen, crecs, cw, order)
        assert offsets[0] == 0 and offsets[-1] == len(vertices) and (np.diff(offsets) >= 1).all()
        for bs in (1, 3, 1000):
            parts = list(rdmce.split_blocks(offsets, vertices, bs))
            assert all(len(o) - 1 <= bs and o[0] == 0 and o[-1] == len(v) for o, v in parts)
            assert sum(len(o) - 1 for o, _ in parts) == len(offsets) - 1
            if parts:
                assert np.array_equal(np.concatenate([v for _, v in parts]), vertices)
        got += [tuple(vertices[a:b].tolist()) for a, b in zip(offsets[:-1], offsets[1:], strict=True)]
    assert sorted(got) == want


def test_ring_round_trip_keeps_every_clique_once():
    rng = np.random.default_rng(1)
    workers, d = 5, 6
    cw, soft, hard = rdmce.ring_layout(d, workers, ring_words=200, chunk_words=2 * (d + 2))
    order = rng.permutation(500).astype(np.int32)
    cliques = [[np.array([w, 100 + i, 200 + (i % 7)][: 1 + i % 3], np.int32) for i in range(40)]
               for w in range(workers)]
    want = sorted(tuple(order[c].tolist()) for q in cliques for c in q)
    todo, got, launches = cliques, [], 0
    while any(todo):
        ring, clen, crecs, todo = _write_ring(todo, workers, cw, soft, hard)
        off, ver = rdmce.unpack_host(ring, clen, crecs, cw, order)
        got += [tuple(ver[a:b].tolist()) for a, b in zip(off[:-1], off[1:], strict=True)]
        launches += 1
    assert sorted(got) == want
    assert launches > 3  # the ring wrapped


def test_chunk_bases_are_exclusive_prefix_sums():
    rb, vb, nr, nv = rdmce.chunk_bases(np, np.array([7, 0, 5]), np.array([3, 0, 2]))
    assert rb.tolist() == [0, 3, 3] and vb.tolist() == [0, 7, 7] and (nr, nv) == (5, 12)
    rb2, vb2 = rdmce.chunk_bases(np, np.array([7, 0, 5]), np.array([3, 0, 2]), totals=False)
    assert rb2.tolist() == rb.tolist() and vb2.tolist() == vb.tolist()
    assert rdmce.launch_totals([0, 0, 0, 1, 9, 5, 12, 0], hard=4) == (True, 4, 5, 12)
    assert rdmce.chunk_bases(np, np.zeros(0, int), np.zeros(0, int))[2:] == (0, 0)


def test_ring_layout_bounds():
    cw, soft, hard = rdmce.ring_layout(d=115, workers=4224)
    assert cw == max(rdmce.MIN_CHUNK_WORDS, 2 * 117) and hard - soft == 4224 and soft > 0
    assert rdmce.ring_layout(3, 2, ring_words=1, chunk_words=10) == (10, 1, 3)
    with pytest.raises(ValueError, match="chunk_words must be >= 2"):
        rdmce.ring_layout(10, 4, chunk_words=8)


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
