"""GMBE+ on a real GPU against the CPU oracle: same bicliques, every run, every switch set.

Run with ``pytest -m gpu``; every test here skips cleanly without a GPU.
"""

import numpy as np
import pytest
from graph_families import complete_bipartite, crown, random_bipartite

from mce_kit import datasets, generators, references
from mce_kit.cpu import count_maximal_bicliques, maximal_bicliques
from mce_kit.gpu import has_gpu
from mce_kit.graph import BipartiteGraph

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not has_gpu(), reason="needs a CUDA GPU")]

# the switch sets: the default (BLOCK level, donating when workers idle), full GMBE+, its ablations,
# the task-centric levels, and settings that force splits (bounds 0), donations at every look
# ("always": every snapshot path, at every depth, list and bitmap mode) and bitmap mode at every depth
# (tau 128) or rarely (tau 2)
SWITCHES = {
    "block (default)": {},
    "gmbe+": dict(level="gmbe+"),
    "split all": dict(level="gmbe+", bound_height=0, bound_size=0, warps_per_sm=4),
    "donate always": dict(donate="always", bound_height=0, bound_size=0),
    "donate always, tau 4": dict(donate="always", bound_height=0, bound_size=0, tau=4, warps_per_sm=4),
    "donate always, no prune": dict(donate="always", bound_height=0, bound_size=0, prune=False),
    "gmbe+ split and donate always": dict(level="gmbe+", donate="always", bound_height=0, bound_size=0,
                                          warps_per_sm=2),
    "no donation": dict(donate="off"),
    "no prune": dict(level="gmbe+", prune=False),
    "no bitmap": dict(level="gmbe+", bitmap=False, bound_height=0, bound_size=0),
    "no union": dict(union=False),
    "merge union": dict(level="gmbe+", union="merge"),
    "split all, merge": dict(level="gmbe+", bound_height=0, bound_size=0, union="merge", warps_per_sm=2),
    "warp": dict(level="warp"),
    "tau 2": dict(level="gmbe+", tau=2, bound_height=1, bound_size=1),
    "tau 128": dict(tau=128),
}


def _with_isolated(B, extra_u, extra_v):
    u = np.repeat(np.arange(B.n_u), np.diff(B.u_indptr))
    return BipartiteGraph.from_edges(B.n_u + extra_u, B.n_v + extra_v, u, B.u_indices)


def _duplicated(B, rng):
    u = np.repeat(np.arange(B.n_u), np.diff(B.u_indptr))
    k = rng.integers(0, max(1, B.m), size=B.m // 2 + 1) if B.m else np.zeros(0, int)
    return BipartiteGraph.from_edges(B.n_u, B.n_v, np.concatenate([u, u[k]]),
                                     np.concatenate([B.u_indices, B.u_indices[k]]))


def _block_plus_noise(rng, a, b):
    """K_{a,b} plus a sparse random part on extra vertices and a few edges into the block."""
    nu, nv = a + 30, b + 20
    u, v = np.meshgrid(np.arange(a), np.arange(b), indexing="ij")
    ru, rv = rng.integers(0, nu, 150), rng.integers(0, nv, 150)
    return BipartiteGraph.from_edges(nu, nv, np.concatenate([u.ravel(), ru]), np.concatenate([v.ravel(), rv]))


def random_bipartite_graphs(count=300, seed=11):
    rng = np.random.default_rng(seed)
    r = lambda: int(rng.integers(1 << 30))  # noqa: E731
    makers = [
        lambda: random_bipartite(int(rng.integers(1, 40)), int(rng.integers(1, 40)),
                                 float(rng.choice([0.05, 0.15, 0.3, 0.6, 0.9])), seed=r()),
        lambda: generators.bipartite_chung_lu(int(rng.integers(20, 300)), int(rng.integers(10, 150)),
                                              int(rng.integers(20, 1500)), seed=r()),
        lambda: _with_isolated(random_bipartite(int(rng.integers(2, 25)), int(rng.integers(2, 25)), 0.3,
                                                seed=r()), int(rng.integers(0, 5)), int(rng.integers(0, 5))),
        lambda: _duplicated(random_bipartite(int(rng.integers(2, 30)), int(rng.integers(2, 30)), 0.25,
                                             seed=r()), rng),
        lambda: complete_bipartite(int(rng.integers(1, 70)), int(rng.integers(1, 50))),
        lambda: BipartiteGraph.from_edges(int(rng.integers(1, 6)), int(rng.integers(0, 4)), [], []),
        lambda: crown(int(rng.integers(1, 12))),
        lambda: _block_plus_noise(rng, int(rng.integers(33, 60)), int(rng.integers(3, 40))),
    ]
    return [makers[i % len(makers)]() for i in range(count)]


@pytest.fixture(scope="module")
def graphs():
    from mce_kit.gpu import gmbe

    out = []
    for B in random_bipartite_graphs():
        out.append((B, gmbe.prepare(B), count_maximal_bicliques(B)))
    return out


@pytest.mark.parametrize("name", list(SWITCHES))
def test_random_graphs_match_the_oracle(graphs, name):
    bad = []
    for B, prep, want in graphs:
        got = prep.run(**SWITCHES[name]).answer
        if got != want:
            bad.append((repr(B), got, want))
    assert not bad, f"{len(bad)} of {len(graphs)} wrong, e.g. {bad[:3]}"


def test_complete_blocks_wider_than_1024():
    from mce_kit.gpu import gmbe

    for a, b in [(1030, 2), (1100, 40), (40, 1030)]:
        B = complete_bipartite(a, b)
        for cfg in ({}, {"level": "gmbe+"}, {"bitmap": False}, {"donate": "always", "bound_height": 0}):
            assert gmbe.prepare(B).run(**cfg).answer == 1
    rng = np.random.default_rng(3)
    B = _block_plus_noise(rng, 1050, 12)
    assert gmbe.prepare(B).run().answer == count_maximal_bicliques(B)


@pytest.mark.parametrize("cfg", [{}, {"level": "gmbe+"}, {"tau": 8}, {"min_left": 2, "min_right": 2},
                                 {"donate": "always", "bound_height": 0, "bound_size": 0}])
def test_listing_gives_the_same_bicliques(cfg):
    from mce_kit.gpu import gmbe

    for seed in range(6):
        B = generators.bipartite_chung_lu(150, 80, 900, seed=seed)
        lo_l, lo_r = cfg.get("min_left", 1), cfg.get("min_right", 1)
        want = {(tuple(L), tuple(R)) for L, R in maximal_bicliques(B) if len(L) >= lo_l and len(R) >= lo_r}
        res = gmbe.prepare(B).run(listing=True, **cfg)
        got = [(tuple(L.tolist()), tuple(R.tolist())) for L, R in res.bicliques]
        assert len(got) == len(set(got)) == res.answer
        assert set(got) == want


def test_size_filters_count_on_the_gpu():
    import mce_kit as mk

    B = generators.bipartite_chung_lu(200, 100, 1200, seed=4)
    for lo_l, lo_r in [(None, None), (2, None), (None, 3), (3, 3)]:
        c = mk.count_maximal_bicliques(B, min_left=lo_l, min_right=lo_r)
        assert c.device == "gpu"
        assert c == mk.count_maximal_bicliques(B, min_left=lo_l, min_right=lo_r, device="cpu")


def test_a_tight_budget_runs_more_passes_and_the_same_answer():
    from mce_kit.gpu import gmbe

    B = generators.bipartite_chung_lu(600, 300, 5000, seed=5)
    prep = gmbe.prepare(B)
    want = prep.run().answer
    need = prep.need_words(32)
    res = prep.run(max_buffer_bytes=int(4 * 64 * 4 * np.percentile(need, 70)), warps_per_sm=16)
    assert res.passes >= 2 and res.answer == want == count_maximal_bicliques(B)


def test_a_full_queue_runs_sub_tasks_in_place():
    from mce_kit.gpu import gmbe

    full = []
    for seed in range(8):
        B = generators.bipartite_chung_lu(300, 120, 2500, seed=seed)
        want = count_maximal_bicliques(B)
        res = gmbe.prepare(B).run(queue_cap=3, level="gmbe+", bound_height=0, bound_size=0, warps_per_sm=4)
        assert res.answer == want
        full.append(res.queue_full)
        # donations that find the queue full stop; the donor makes those children itself
        res = gmbe.prepare(B).run(queue_cap=3, donate="always", bound_height=0, bound_size=0)
        assert res.answer == want
    assert any(full)  # the in-place path really ran


def test_unknown_option_is_rejected():
    from mce_kit.gpu import gmbe

    with pytest.raises(TypeError, match="unknown GMBE\\+ parameter"):
        gmbe.prepare(complete_bipartite(2, 2)).run(bound=3)


@pytest.mark.parametrize("name", ["MovieLens", "marvel", "dbpedia-writer"])
def test_bundled_graphs_ten_of_ten(name):
    from mce_kit.gpu import gmbe

    want = references.expected("mbe", name)
    prep = gmbe.prepare(datasets.load(name))
    got = [prep.run().answer for _ in range(10)]
    assert got == [want] * 10
    others = ({"level": "gmbe+"}, {"level": "warp"}, {"prune": False}, {"bitmap": False}, {"union": "merge"},
              {"union": "serial"}, {"level": "gmbe+", "bound_height": 5, "bound_size": 100},
              {"donate": "always"}, {"donate": "off"})
    for cfg in others:
        assert prep.run(**cfg).answer == want, cfg


def test_movielens_is_the_papers_count():
    assert references.expected("mbe", "MovieLens") == 140_266


def test_preparation_on_the_gpu_equals_the_hosts(monkeypatch):
    from mce_kit.gpu import gmbe

    rng = np.random.default_rng(7)
    graphs = [random_bipartite(int(rng.integers(1, 60)), int(rng.integers(1, 60)),
                               float(rng.uniform(0.02, 0.5)), seed=i) for i in range(40)]
    graphs += [complete_bipartite(5, 7), crown(9), _with_isolated(crown(4), 3, 5),
               datasets.load("marvel"), datasets.load("MovieLens")]
    monkeypatch.setattr(gmbe, "TWO_HOP_MARK_BYTES", 4096)   # few warps: each walks many vertices
    for B in graphs:
        host, gpu = gmbe.prepare(B, device="cpu"), gmbe.prepare(B, device="gpu")
        for name in ("order", "u_indptr", "u_indices", "v_indptr", "v_indices", "seeds", "nw", "p2"):
            a, b = getattr(host, name), getattr(gpu, name)
            assert a.dtype == b.dtype and np.array_equal(a, b), name
        for name in ("u_indptr", "u_indices", "v_indptr", "v_indices"):   # kept on the GPU as built
            assert np.array_equal(gpu.device.array(name, None).get(), getattr(host, name)), name
