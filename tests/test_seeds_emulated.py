"""RDMCE's edge seeds on the GPU (cuda/seeds.cu) on CPU fibers (tests/emulated.py): later counts,
then one thread per adjacency entry writing its seed, give ``seeds.seed_bounds(..., "edge")``
array for array on the random families and the corner cases (no edge, isolated vertices, a star,
a clique). No GPU needed."""

import networkx as nx
import numpy as np
import pytest
from emulated import HAVE_GXX, build, launch_args
from graph_families import from_networkx, random_nx_graphs

from mce_kit.gpu.seeds import seed_bounds
from mce_kit.order import peel_arrays, relabel_arrays

pytestmark = pytest.mark.skipif(not HAVE_GXX, reason="needs g++ (C++20)")
THREADS = 64


@pytest.fixture(scope="module")
def exes(tmp_path_factory):
    out = tmp_path_factory.mktemp("seeds")
    return {k: build("seeds.cu", k, out / k, main="args_main.cpp") for k in ("later_counts", "edge_seeds")}


def emulated_edge_seeds(exes, ptr, idx):
    """``prep.edge_seeds``'s launches, with NumPy's cumsum for CuPy's."""
    n, entries = len(ptr) - 1, len(idx)
    later = launch_args(exes["later_counts"], -(-max(n, 1) // THREADS), THREADS, ptr, idx, np.int32(n),
                        np.zeros(max(n, 1), np.int64))[3][:n]
    end = np.cumsum(later)
    total = int(end[-1]) if n else 0
    out = [np.zeros(max(total, 1), t) for t in (np.int32, np.int32, np.int64, np.int64)]
    if total:
        out = launch_args(exes["edge_seeds"], -(-entries // THREADS), THREADS, ptr, idx, np.int32(n),
                          np.int64(entries), later, end, *out)[6:]
    return [a[:total] for a in out]


def test_emulated_edge_seeds_equal_the_array_code(exes):
    special = [nx.empty_graph(5), nx.star_graph(200), nx.complete_graph(40),
               nx.disjoint_union(nx.path_graph(30), nx.empty_graph(7))]
    for H in [*random_nx_graphs(10, seed=12), *special]:
        G = from_networkx(H)
        ptr, idx = relabel_arrays(G.indptr, G.indices, peel_arrays(G.indptr, G.indices)[0])
        ptr, idx = ptr.astype(np.int32), idx.astype(np.int32)
        want = seed_bounds(ptr, idx, "edge")
        got = emulated_edge_seeds(exes, ptr, idx)
        assert all(np.array_equal(a, b) for a, b in zip(want, got, strict=True)), G
        assert len(want[0]) == G.m
