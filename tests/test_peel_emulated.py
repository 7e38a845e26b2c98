"""The one-block peel (cuda/peel.cu) on CPU fibers (tests/emulated.py) takes the host's batches
(order.peel_arrays) array for array: short batches put in order by counting, longer ones by the
bitonic sort, long ones by a scan of the live vertices; a batch's edges shared out over the block
or walked a warp per vertex. No GPU needed."""

import networkx as nx
import numpy as np
import pytest
from emulated import HAVE_GXX, build, launch_args
from graph_families import from_networkx, random_nx_graphs

from mce_kit.order import peel_arrays

pytestmark = pytest.mark.skipif(not HAVE_GXX, reason="needs g++ (C++20)")
THREADS = 1024


@pytest.fixture(scope="module", params=["flat", "by_warp"])
def exe(request, tmp_path_factory):
    """The kernel as shipped (a short batch's edges shared out over the block), and with every row
    of 8 or more entries sent to the warp-per-vertex loop (the path of batches with huge rows)."""
    defines = {"PEEL_FLAT_MAX_DEGREE": 8} if request.param == "by_warp" else None
    return build("peel.cu", "peel_kernel", tmp_path_factory.mktemp("peel"), defines, main="args_main.cpp")


def emulated_peel(exe, G):
    n = G.n
    ints = lambda: np.zeros(max(n, 1), np.int32)  # noqa: E731
    deg = np.diff(G.indptr).astype(np.int32)
    core = np.full(max(n, 1), -1, np.int32)
    out = launch_args(exe, 1, THREADS, G.indptr.astype(np.int64), G.indices.astype(np.int32), np.int32(n),
                      deg, core, ints(), ints(), ints(), ints(), ints())
    return out[5][:n], out[4][:n], out[8][:n]


def test_emulated_peel_takes_the_host_batches(exe):
    # disjoint 3-vertex paths: removing the ends hits every middle at once, 1,500 (the sort) or
    # 2,500 of them (the scan); the random families give short hit lists (counting)
    paths = [nx.disjoint_union_all([nx.path_graph(3)] * m) for m in (1500, 2500)]
    special = [*paths, nx.disjoint_union(nx.star_graph(2100), nx.complete_graph(30)), nx.complete_graph(40),
               nx.complete_graph(70), nx.empty_graph(4)]   # K70: one batch of 4,830 edges, 5 per thread
    graphs = [from_networkx(H) for H in [*random_nx_graphs(6, seed=3), *special]]
    for G in graphs:
        order, core, mark = emulated_peel(exe, G)
        want_order, want_core = peel_arrays(G.indptr, G.indices)
        assert np.array_equal(order, want_order) and np.array_equal(core, want_core), G
        assert not mark.any()   # left zeroed for the next call
