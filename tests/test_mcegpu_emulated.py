"""mce-gpu's CUDA kernel run on CPU threads (tests/cuda_emu/emu.h) against networkx.

No GPU needed: the kernel source is compiled with g++ against a small emulation
of the CUDA features it uses (every CUDA thread a fiber, every block at once,
warp collectives through barriers; OS threads where the host raises the stop
word mid-run). This checks the kernel's logic
(layout, barriers, the X_X partition, pivoting, the worker list and its
termination) with the launcher's own host planning; timings mean nothing here.
"""

import itertools
import subprocess

import networkx as nx
import numpy as np
import pytest
from emulated import HAVE_GXX, build
from graph_families import from_networkx, moon_moser_nx, random_nx_graphs

from mce_kit.gpu import mcegpu

pytestmark = pytest.mark.skipif(not HAVE_GXX, reason="needs g++ (C++20)")


@pytest.fixture(scope="module")
def binary(tmp_path_factory):
    return build("mcegpu.cu", "mcegpu_kernel", tmp_path_factory.mktemp("emu"), main="mcegpu_main.cpp")


def run_emulated(exe, G, *, subtree="L1", induced="IPX", worker_list=True, donate_min_p=10, blocks=4,
                 warps_per_block=1, lane_words=4, ip_search="branch", stop_us=-1, taken=None):
    """(count, donations, cliques in original labels) from the emulated kernel, one pass.
    ``stop_us``: when the host raises the stop word (-1 never, 0 before the launch); ``taken``: a
    list that gets the number of seeds the blocks took."""
    prep = mcegpu.prepare(G)
    u, v, p, x = prep.seed_arrays(subtree)
    ipx = prep.induced_mode(induced) == "IPX"
    passes = mcegpu.plan(prep, subtree, ipx, blocks, 1 << 40)
    if not passes:  # no seeds: only isolated vertices
        return len(prep.isolated), 0, sorted((int(prep.order[i]),) for i in prep.isolated)
    (idx, cap, workers), = passes
    flags = (mcegpu.FLAG_IPX * ipx | mcegpu.FLAG_WL * worker_list | mcegpu.FLAG_LIST
             | mcegpu.FLAG_EDGE * (subtree == "L2") | mcegpu.FLAG_LANE4 * (lane_words == 4)
             | mcegpu.IP_SEARCH[ip_search] * (not ipx))
    list_cap = 64 + 4 * sum(1 for _ in nx.find_cliques(G.to_networkx())) * (G.n + 1)

    def vec(a):
        return f"{len(a)} " + " ".join(map(str, np.asarray(a).tolist()))

    text = "\n".join([vec(prep.indptr), vec(prep.indices), vec(u[idx]), vec(v[idx]),
                      f"{cap} {list_cap} {flags} {workers} {32 * warps_per_block} {donate_min_p} {stop_us}"])
    res = subprocess.run([str(exe)], input=text, capture_output=True, text=True, timeout=120, check=True)
    head, *lines = res.stdout.splitlines()
    f = head.split()
    count, donations, overflow, error = int(f[1]), int(f[3]), int(f[5]), int(f[7])
    if taken is not None:
        taken.append(int(f[9]))
    assert overflow == 0 and error == 0
    cliques = [tuple(sorted(prep.order[int(t)] for t in ln.split()[1:])) for ln in lines]
    cliques += [(int(prep.order[i]),) for i in prep.isolated]
    return count + len(prep.isolated), donations, sorted(cliques)


SWITCHES = [dict(subtree=s, induced=i, worker_list=w, donate_min_p=2 if w else 10, warps_per_block=b,
                 lane_words=k)
            for (s, i, w), b, k in zip(itertools.product(("L1", "L2"), ("IP", "IPX"), (True, False)),
                                       itertools.cycle((1, 2)), itertools.cycle((4, 4, 1)))]


@pytest.mark.parametrize("switches", SWITCHES, ids=lambda s: "-".join(str(v) for v in s.values()))
def test_emulated_kernel_lists_the_networkx_cliques(binary, switches):
    # every family, kept small: each emulated warp collective is three OS-thread barriers
    graphs = [H for H in random_nx_graphs(40, seed=5) if H.number_of_edges() <= 800
              and sum(1 for _ in nx.find_cliques(H)) <= 600]
    assert len(graphs) >= 30
    for i, H in enumerate(graphs):
        G = from_networkx(H)
        count, _, got = run_emulated(binary, G, **switches)
        want = sorted(tuple(sorted(c)) for c in nx.find_cliques(G.to_networkx()))
        assert got == want, f"graph {i} ({G.n} vertices, {G.m} edges)"
        assert count == len(want)


@pytest.mark.parametrize("subtree", ["L1", "L2"])
def test_emulated_worker_list_donates_and_stays_exact(binary, subtree):
    G = from_networkx(moon_moser_nx(5))  # 3^5 cliques, 15 vertices: few seeds, idle blocks waiting
    count, donations, got = run_emulated(binary, G, subtree=subtree, induced="IPX", donate_min_p=2, blocks=6)
    assert count == 3**5 and len(set(got)) == 3**5
    if subtree == "L1":  # 15 deep seeds for 6 blocks; L2's 90 shallow seeds need not donate
        assert donations > 0


@pytest.mark.parametrize("lane_words", [1, 4])
@pytest.mark.parametrize("induced", ["IP", "IPX"])
def test_emulated_wide_rows_split_across_lanes(binary, induced, lane_words):
    # rows of 3 words (|P*| up to 69): groups of 4 lanes (lane_words=1) or of 1 lane taking 3 words
    H = nx.complete_graph(70)
    H.remove_edges_from((2 * i, 2 * i + 1) for i in range(7))  # 2^7 maximal cliques of 63 vertices
    H = nx.disjoint_union(H, nx.gnp_random_graph(40, 0.3, seed=4))
    G = from_networkx(H)
    count, _, got = run_emulated(binary, G, subtree="L1", induced=induced, donate_min_p=2, blocks=3,
                                 lane_words=lane_words)
    want = sorted(tuple(sorted(c)) for c in nx.find_cliques(H))
    assert got == want and count == len(want)


@pytest.mark.parametrize("ip_search", ["excluded", "shorter"])
def test_emulated_ip_searches_agree(binary, ip_search):
    # IP with the other two places to search: in N(x), or in the shorter of N(v) and N(x)
    graphs = [H for H in random_nx_graphs(24, seed=8) if H.number_of_edges() <= 800
              and sum(1 for _ in nx.find_cliques(H)) <= 600]
    for i, H in enumerate(graphs):
        G = from_networkx(H)
        for subtree in ("L1", "L2"):
            count, _, got = run_emulated(binary, G, subtree=subtree, induced="IP", donate_min_p=2,
                                         ip_search=ip_search)
            want = sorted(tuple(sorted(c)) for c in nx.find_cliques(H))
            assert got == want and count == len(want), f"graph {i} {subtree}"


def _cliques_of_first_seeds(G, subtree, k):
    """The maximal cliques (labels, sorted) that seeds 0..k-1 of ``subtree`` hold, with the isolated
    vertices: a clique belongs to the seed of its lowest vertex (L1) or lowest two (L2), in
    degeneracy positions."""
    prep = mcegpu.prepare(G)
    u, v, _, _ = prep.seed_arrays(subtree)
    pos = np.empty(G.n, dtype=np.int64)
    pos[prep.order] = np.arange(G.n)
    first = {(int(a), int(b)) if subtree == "L2" else int(a) for a, b in zip(u[:k], v[:k], strict=True)}
    out = [(int(prep.order[i]),) for i in prep.isolated]
    for c in nx.find_cliques(G.to_networkx()):
        if len(c) < 2:
            continue
        low = sorted(pos[c].tolist())
        if ((low[0], low[1]) if subtree == "L2" else low[0]) in first:
            out.append(tuple(sorted(c)))
    return sorted(out)


@pytest.mark.parametrize("subtree", ["L1", "L2"])
def test_emulated_stop_word_ends_the_launch_with_the_first_seeds_exact(binary, subtree):
    # Ctrl-C (gpu/watch.py): once the host raises the stop word no block takes a seed; the seeds
    # taken finish (blocks that wait in the worker list may get branches of them) and the launch
    # ends with exactly their cliques. Raised before the launch: no seed at all.
    G = from_networkx(nx.disjoint_union(moon_moser_nx(4), nx.gnp_random_graph(30, 0.3, seed=2)))
    n_seeds = len(mcegpu.prepare(G).seed_arrays(subtree)[0])
    partial = 0
    for stop_us in (0, 300, 1000, 3000, 10_000, 30_000):
        taken = []
        count, _, got = run_emulated(binary, G, subtree=subtree, induced="IPX", donate_min_p=2, blocks=6,
                                     stop_us=stop_us, taken=taken)
        k = taken[0]
        want = _cliques_of_first_seeds(G, subtree, k)
        assert got == want and count == len(want), f"stop after {stop_us} us, {k} seeds taken"
        if stop_us == 0:
            assert k == 0
        partial += 0 < k < n_seeds
    assert partial, "no stop landed mid-run: the delays need retuning"
