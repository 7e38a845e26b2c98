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
    assert rdmce.PARAMS.itemsize == 8 * 22 + 4 * 4  # no padding: the C layout is the same
