"""RDMCE on a real GPU against the CPU oracle: same cliques, every run.

Run with ``pytest -m gpu``; every test here skips cleanly without a GPU.
"""

import networkx as nx
import numpy as np
import pytest
from graph_families import moon_moser_nx as _moon_moser
from graph_families import random_nx_graphs as random_graphs

from mce_kit.gpu import has_gpu
from mce_kit.graph import Graph

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not has_gpu(), reason="needs a CUDA GPU")]

# (exposure, aggressive, seeding, tau): tau=0 and 2 make exposure happen on tiny graphs.
SWITCHES = [
    (True, True, "edge", 0),
    (True, False, "edge", 2),
    (False, True, "edge", 24),
    (False, False, "vertex", 24),
    (True, True, "vertex", 1),
    (True, False, "vertex", 0),
]


def _from_nx(H) -> Graph:
    H = nx.convert_node_labels_to_integers(H)
    e = np.array(H.edges(), dtype=np.int64).reshape(-1, 2)
    return Graph.from_edges(H.number_of_nodes(), e[:, 0], e[:, 1])


def _cw(prep):
    """The smallest chunk of the streaming ring (two of the largest records): many chunks, many splits."""
    from mce_kit.gpu import rdmce

    return rdmce.min_chunk_words(prep.d)


def _stream(prep, block_size=7, ring_words=1, **kw):
    """Every clique of a streamed run with a tiny ring (so it wraps), as sorted tuples; run stats."""
    stats = {}
    got = []
    for off, ver in prep.blocks(block_size, ring_words=ring_words, chunk_words=_cw(prep), stats=stats, **kw):
        assert len(off) - 1 <= block_size and off[0] == 0 and off[-1] == len(ver)
        got += [tuple(sorted(ver[a:b].tolist())) for a, b in zip(off[:-1], off[1:], strict=True)]
    return sorted(got), stats


def _cliques_gpu(G, **params):
    from mce_kit.gpu import rdmce

    prep = rdmce.prepare(G)
    got, stats = _stream(prep, **params)
    return got, prep.run(**params), stats


def _cliques_nx(G):
    return sorted(tuple(sorted(c)) for c in nx.find_cliques(G.to_networkx()))


@pytest.mark.parametrize("switches", SWITCHES, ids=lambda s: "-".join(map(str, s)))
def test_listing_matches_oracle_on_random_graphs(switches):
    exposure, aggressive, seeding, tau = switches
    for i, H in enumerate(random_graphs()):
        G = _from_nx(H)
        got, res, stats = _cliques_gpu(G, exposure=exposure, aggressive=aggressive, seeding=seeding, tau=tau,
                                       warps_per_sm=4)
        want = _cliques_nx(G)
        assert got == want, f"graph {i} ({G.n} vertices, {G.m} edges): {len(got)} vs {len(want)} cliques"
        assert res.count == len(want) == stats["count"]


def test_exposure_really_pulls_work():
    from mce_kit.gpu import rdmce

    G = _from_nx(_moon_moser(10))  # few seeds, deep trees: idle workers must pull
    res = rdmce.prepare(G).run(tau=0, warps_per_sm=8)
    assert res.worker_steals.sum() > 0
    assert res.count == sum(1 for _ in nx.find_cliques(G.to_networkx()))


def test_small_buffer_budget_uses_more_passes_and_stays_exact():
    from mce_kit.gpu import rdmce

    G = _from_nx(nx.disjoint_union(nx.gnp_random_graph(200, 0.15, seed=3), _moon_moser(5)))
    prep = rdmce.prepare(G)
    want = sum(1 for _ in nx.find_cliques(G.to_networkx()))
    full = prep.run()
    _, _, rows, stack = prep.seed_arrays("edge")
    budget = int((rows + stack).max()) * 4 * 20  # room for 20 of the largest seeds only
    tight = prep.run(max_buffer_bytes=budget)
    assert full.count == tight.count == want
    assert tight.passes > 1


def test_graph_too_big_for_the_budget_is_refused_with_the_memory_it_needs():
    from mce_kit.gpu import rdmce

    G = _from_nx(nx.complete_graph(200))
    with pytest.raises(MemoryError, match="MiB"):
        rdmce.prepare(G).run(max_buffer_bytes=4096)


def test_counts_are_64_bit_and_deterministic_across_runs():
    from mce_kit.gpu import rdmce

    G = _from_nx(_moon_moser(12))  # 3^12 = 531,441 maximal cliques
    prep = rdmce.prepare(G)
    counts = {prep.run(tau=8).count for _ in range(5)}
    assert counts == {3**12}


def test_degree_kernel_end_to_end():
    from mce_kit.gpu import degree

    G = _from_nx(nx.gnp_random_graph(500, 0.05, seed=0))
    assert np.array_equal(degree.degrees(G), G.degrees())
    words = np.random.default_rng(0).integers(0, 2**32, size=10_000, dtype=np.uint64).astype(np.uint32)
    assert degree.popcount(words) == int(np.unpackbits(words.view(np.uint8)).sum())


def _reference():
    from mce_kit.experiments.rdmce import reference_counts

    return reference_counts()


@pytest.mark.parametrize("name", sorted(_reference()))
def test_bundled_graphs_exact_ten_runs_in_a_row(name):
    from mce_kit import datasets
    from mce_kit.gpu import rdmce

    prep = rdmce.prepare(datasets.load(name))
    counts = [prep.run().count for _ in range(10)]
    assert counts == [_reference()[name]] * 10


def test_public_api_on_the_gpu_matches_the_cpu():
    import mce_kit as mk

    H = nx.relabel_nodes(nx.gnp_random_graph(60, 0.3, seed=5), lambda v: f"v{v}")
    gpu = mk.count_maximal_cliques(H, device="gpu")
    cpu = mk.count_maximal_cliques(H, device="cpu")
    assert (gpu.device, cpu.device) == ("gpu", "cpu")
    assert gpu == cpu
    listed = sorted(sorted(c) for c in mk.find_cliques(H, device="gpu"))
    assert listed == sorted(sorted(c) for c in nx.find_cliques(H))


def test_template_kernel_through_name_expressions():
    from mce_kit.gpu import degree

    assert np.array_equal(degree.fill(1000, 2.5), np.full(1000, 2.5, dtype=np.float32))
    assert np.array_equal(degree.fill(7, 3, dtype=np.int64), np.full(7, 3, dtype=np.int64))


# ---- size statistics and streaming against the oracle ----


def test_histogram_filters_and_streaming_match_oracle_on_300_random_graphs():
    from collections import Counter

    from mce_kit.gpu import rdmce

    rng = np.random.default_rng(11)
    wrapped = 0
    for i, H in enumerate(random_graphs(300, seed=23)):
        G = _from_nx(H)
        prep = rdmce.prepare(G)
        want = _cliques_nx(G)
        sizes = Counter(len(c) for c in want)
        params = dict(tau=int(rng.choice([0, 2, 24])), warps_per_sm=int(rng.choice([2, 4, 8])))
        res = prep.run(histogram=True, **params)
        assert res.histogram == dict(sorted(sizes.items())), f"graph {i}: histogram"
        assert res.count == len(want)
        lo = int(rng.integers(0, 6)) if rng.random() < 0.8 else None
        hi = int(rng.integers(lo or 0, 12)) if rng.random() < 0.7 else None
        keep = [c for c in want if (lo is None or len(c) >= lo) and (hi is None or len(c) <= hi)]
        assert prep.run(min_size=lo, max_size=hi, **params).count == len(keep), f"graph {i}: [{lo}, {hi}]"
        hist = prep.run(min_size=lo, max_size=hi, histogram=True, **params).histogram
        assert hist == dict(sorted(Counter(len(c) for c in keep).items()))
        csr = [None, 1, 40][i % 3]  # launches also stop when their cliques hold csr_words vertices
        got, stats = _stream(prep, block_size=int(rng.integers(1, 9)), min_size=lo, max_size=hi,
                             csr_words=csr, **params)
        assert got == keep, f"graph {i}: streamed [{lo}, {hi}] {len(got)} vs {len(keep)} (csr_words {csr})"
        wrapped += stats["launches"] > 3
        no_iso = [c for c in want if len(c) > 1]
        assert prep.run(isolated=False, **params).count == len(no_iso)
    assert wrapped > 20  # the ring wrapped (many relaunches) on many graphs


def test_streaming_wraps_many_times_and_is_exact_ten_runs_in_a_row():
    from mce_kit.gpu import rdmce

    G = _from_nx(nx.disjoint_union(_moon_moser(9), nx.gnp_random_graph(150, 0.3, seed=4)))
    prep = rdmce.prepare(G)
    want = _cliques_nx(G)
    for _ in range(10):
        got, stats = _stream(prep, block_size=1000, tau=4, warps_per_sm=2)
        assert got == want and stats["launches"] > 3
    big = [prep.blocks(1 << 16, as_cupy=True) for _ in range(10)]  # default ring, on the device
    for blocks in big:
        n = sum(len(off) - 1 for off, _ in blocks)
        assert n == len(want)


def test_histogram_on_bundled_graphs_ten_runs_in_a_row():
    from mce_kit import cpu, datasets
    from mce_kit.gpu import rdmce

    for name in ("CA-GrQc", "email-Eu-core", "CA-HepTh"):
        G = datasets.load(name)
        want = cpu.clique_size_histogram(G)
        prep = rdmce.prepare(G)
        for _ in range(10):
            assert prep.run(histogram=True).histogram == want, name


def test_public_api_streams_on_the_gpu():
    import cupy

    import mce_kit as mk

    H = nx.relabel_nodes(nx.gnp_random_graph(80, 0.3, seed=6), lambda v: v * 3 + 1)
    H.add_node(1000)
    want = sorted(sorted(c) for c in nx.find_cliques(H))
    gen = mk.find_cliques(H, device="gpu")
    assert iter(gen) is gen  # lazy
    assert sorted(sorted(c) for c in gen) == want
    total = 0
    for off, ver in mk.maximal_clique_blocks(H, block_size=5, as_cupy=True, device="gpu"):
        assert isinstance(ver, cupy.ndarray)
        total += int(cupy.diff(off).size)
    assert total == len(want)
    assert mk.clique_size_histogram(H, device="gpu") == mk.clique_size_histogram(H, device="cpu")
    assert mk.count_maximal_cliques(H, min_size=4, device="gpu") == sum(len(c) >= 4 for c in want)
    assert mk.count_maximal_cliques(H, isolated=False, device="gpu") == len(want) - 1


# ---- sub-trees searched in registers (solve_local) against the bitmap path and the oracle ----


def _dense_core(rng):
    """A G(n, p) with a denser core of 20-45 vertices: sub-roots with |P| + |X| near 32 on both sides."""
    n = int(rng.integers(40, 90))
    H = nx.gnp_random_graph(n, float(rng.choice([0.1, 0.25])), seed=int(rng.integers(1 << 30)))
    core = rng.choice(n, size=min(n, int(rng.integers(20, 46))), replace=False)
    q = float(rng.choice([0.6, 0.8, 0.95]))
    for i, a in enumerate(core):
        for b in core[i + 1:]:
            if rng.random() < q:
                H.add_edge(int(a), int(b))
    return H


def test_register_subtrees_match_the_oracle_on_300_random_graphs():
    from collections import Counter

    from mce_kit.gpu import rdmce

    rng = np.random.default_rng(5)
    graphs = random_graphs(200, seed=41) + [_dense_core(rng) for _ in range(100)]
    for i, H in enumerate(graphs):
        G = _from_nx(H)
        prep = rdmce.prepare(G)
        want = _cliques_nx(G)
        sizes = dict(sorted(Counter(len(c) for c in want).items()))
        params = dict(tau=int(rng.choice([1, 4, 12, 24, 31, 32, 64])), exposure=bool(rng.random() < 0.7),
                      aggressive=bool(rng.random() < 0.7), seeding=str(rng.choice(["edge", "vertex"])),
                      warps_per_sm=int(rng.choice([2, 8])))
        res = prep.run(histogram=True, **params)
        assert res.histogram == sizes and res.count == len(want), f"graph {i} {params}"
        assert prep.run(**params).count == len(want), f"graph {i} {params}"
        assert prep.run(local=False, **params).count == len(want), f"graph {i} {params} (bitmap path)"
        lo = int(rng.integers(1, 6))
        assert prep.run(min_size=lo, **params).count == sum(len(c) >= lo for c in want), f"graph {i} >= {lo}"
        # listing on the register path, the ring filling (and sub-trees suspended) many times
        cw = _cw(prep)
        ring = int(rng.choice([1, 3 * cw, 40 * cw]))
        csr = [None, 7, 300][i % 3]
        got, stats = _stream(prep, block_size=int(rng.integers(1, 50)), ring_words=ring, csr_words=csr,
                             **params)
        assert got == want, f"graph {i} {params} listed {len(got)} vs {len(want)} (ring {ring})"
        assert stats["count"] == len(want)


@pytest.mark.parametrize("k", [9, 10, 11, 12])
def test_register_subtrees_on_moon_moser_graphs_at_the_32_vertex_edge(k):
    """3^k maximal cliques on 3k vertices: sub-roots with |P| + |X| just under, at and over 32."""
    from mce_kit.gpu import rdmce

    prep = rdmce.prepare(_from_nx(_moon_moser(k)))
    for params in (dict(exposure=False), dict(tau=32), dict(tau=24), dict(tau=32, aggressive=False)):
        for local in (True, False):
            assert prep.run(local=local, **params).count == 3**k, (params, local)


@pytest.mark.parametrize("k", [9, 10])
def test_listing_in_registers_suspends_and_resumes_exactly_ten_runs_in_a_row(k):
    """3^k cliques whose sub-trees live in registers; a small ring suspends them over and over."""
    from mce_kit.gpu import rdmce

    H = nx.disjoint_union(_moon_moser(k), nx.gnp_random_graph(120, 0.3, seed=k))
    G = _from_nx(H)
    prep = rdmce.prepare(G)
    want = _cliques_nx(G)
    cw = _cw(prep)
    for run in range(10):
        params = [dict(), dict(tau=32), dict(aggressive=False), dict(exposure=False)][run % 4]
        got, stats = _stream(prep, block_size=997, ring_words=[1, 8 * cw, 300 * cw][run % 3], warps_per_sm=4,
                             **params)
        assert got == want, (run, params, len(got), len(want))
        assert stats["launches"] > 10
        on_gpu = sum(int(off.size) - 1 for off, _ in prep.blocks(1 << 12, as_cupy=True, ring_words=20 * cw))
        assert on_gpu == len(want)


def test_ego_facebook_listing_on_the_gpu_matches_the_count():
    """Every block of ego-Facebook consumed on the GPU (the streaming target): as many cliques as the count,
    as many vertices as the histogram's sizes add up to, no block over block_size."""
    import cupy

    from mce_kit import datasets
    from mce_kit.gpu import rdmce

    prep = rdmce.prepare(datasets.load("ego-Facebook"))
    res = prep.run(histogram=True)
    n = cupy.zeros((), cupy.int64)
    words = cupy.zeros((), cupy.int64)
    stats = {}
    for off, ver in prep.blocks(1 << 22, as_cupy=True, stats=stats):
        assert off.size - 1 <= 1 << 22
        n += off.size - 1
        words += ver.size
    assert int(n) == res.count == 869_325_383
    assert int(words) == sum(k * v for k, v in res.histogram.items())


def _fingerprint(prep, **kw):
    """Sorted per-clique hashes (a sum of per-vertex 64-bit hashes) of a streamed run, on the GPU."""
    import cupy

    parts = []
    for off, ver in prep.blocks(1 << 16, as_cupy=True, **kw):
        h = (ver.astype(cupy.uint64) + cupy.uint64(1)) * cupy.uint64(0x9E3779B97F4A7C15)
        h ^= h >> cupy.uint64(29)
        c = cupy.concatenate([cupy.zeros(1, cupy.uint64), cupy.cumsum(h, dtype=cupy.uint64)])
        parts.append(c[off[1:]] - c[off[:-1]])
    return cupy.sort(cupy.concatenate(parts)).get() if parts else np.zeros(0, np.uint64)


@pytest.mark.parametrize("name", sorted(_reference()))
def test_bundled_graphs_listing_exact_ten_runs_in_a_row(name):
    """Every bundled graph listed 10 times (rings of several sizes, so the register sub-trees are suspended
    many times): the same cliques each run, as many as the reference; the small ones clique by clique."""
    from mce_kit import datasets
    from mce_kit.gpu import rdmce

    if name == "ego-Facebook":
        pytest.skip("869 M cliques: test_ego_facebook_listing_on_the_gpu_matches_the_count")
    G = datasets.load(name)
    prep = rdmce.prepare(G)
    cw = _cw(prep)
    if G.n <= 10_000 and _reference()[name] < 50_000:
        H = nx.Graph()  # vertex indices, as the blocks give them (not the file's labels)
        H.add_nodes_from(range(G.n))
        H.add_edges_from(G.edges())
        want = sorted(tuple(sorted(int(v) for v in c)) for c in nx.find_cliques(H))
        for run in range(10):
            got, _ = _stream(prep, block_size=4099, ring_words=[200 * cw, 5000 * cw][run % 2])
            assert got == want, (name, run)
    first = _fingerprint(prep)
    assert len(first) == _reference()[name]
    for run in range(9):
        fp = _fingerprint(prep, ring_words=[1000 * cw, 30000 * cw, None][run % 3])
        assert np.array_equal(fp, first), (name, run)


def test_listing_with_tiny_rings_and_vertex_caps_matches_the_oracle():
    """Groups rewritten in new chunks and launches cut by the vertex cap: 100 random graphs with tiny
    rings and vertex caps against the oracle, and ego-Facebook's 869 M cliques (count and vertices)."""
    from mce_kit import datasets
    from mce_kit.gpu import rdmce

    rng = np.random.default_rng(17)
    for i, H in enumerate(random_graphs(70, seed=71) + [_dense_core(rng) for _ in range(30)]):
        G = _from_nx(H)
        prep = rdmce.prepare(G)
        want = _cliques_nx(G)
        params = dict(tau=int(rng.choice([2, 24, 32])), warps_per_sm=int(rng.choice([2, 8])))
        cw = _cw(prep)
        ring = int(rng.choice([1, 3 * cw, 40 * cw]))
        got, stats = _stream(prep, block_size=int(rng.integers(1, 50)), ring_words=ring,
                             csr_words=[None, 7, 300][i % 3], **params)
        assert got == want, f"graph {i} {params}: listed {len(got)} vs {len(want)}"
        assert stats["launches"] >= (G.m > 0), f"graph {i}: no launch"  # none when edgeless
    prep = rdmce.prepare(datasets.load("ego-Facebook"))
    hist = prep.run(histogram=True).histogram
    n = words = 0
    for off, ver in prep.blocks(1 << 24, as_cupy=True):
        n += int(off.size) - 1
        words += int(ver.size)
    assert n == 869_325_383 == sum(hist.values())
    assert words == sum(k * v for k, v in hist.items())
