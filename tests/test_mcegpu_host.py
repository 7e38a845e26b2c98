"""The host side of the mce-gpu launcher (no GPU needed): Params layout, seeds, memory planning."""

import networkx as nx
import numpy as np
import pytest
from graph_families import from_networkx

import mce_kit as mk
from mce_kit.gpu import launch, mcegpu, rdmce
from mce_kit.gpu.loader import compile_ptx, read_source


def test_launch_parameters_match_the_kernel_struct():
    want = launch.kernel_struct_fields(read_source("mcegpu.cu"))
    assert [(n, mcegpu.PARAMS[n].str[1:]) for n in mcegpu.PARAMS.names] == want
    assert mcegpu.PARAMS.itemsize == 8 * 25 + 4 * 4  # no padding: the C layout is the same


def test_profile_build_is_separate_and_reads_more_clocks():
    pytest.importorskip("cupy_backends.cuda.libs.nvrtc")
    plain, _ = compile_ptx("mcegpu.cu", "sm_90")
    prof, _ = compile_ptx("mcegpu.cu", "sm_90", defines={"MCEGPU_PROFILE": 1})
    assert ".entry mcegpu_kernel" in plain and ".entry mcegpu_kernel" in prof
    assert prof.count("%clock64") > plain.count("%clock64")


def test_buffer_words_match_the_kernel_formula():
    src = read_source("mcegpu.cu")
    assert "(p + x) + (p + (ipx ? x : 0)) * W + 2 * x + (p + 2) * 3 * W + 3 * (p + 2) + p + 4" in src
    assert int(mcegpu.buffer_words(40, 100, True)) == 140 + 140 * 2 + 200 + 42 * 6 + 126 + 44
    assert mcegpu.buffer_words(40, 100, False) < mcegpu.buffer_words(40, 100, True)


@pytest.mark.parametrize("subtree", ["L1", "L2"])
def test_seeds_are_rdmces_seeds(subtree):
    G = from_networkx(nx.powerlaw_cluster_graph(150, 4, 0.5, seed=2))
    a, b = mcegpu.prepare(G), rdmce.prepare(G)
    u, v, _, _ = a.seed_arrays(subtree)
    ru, rv, _, _ = b.seed_arrays("vertex" if subtree == "L1" else "edge")
    assert np.array_equal(u, ru) and np.array_equal(v, rv)
    assert np.array_equal(a.order, b.order)


def test_auto_mode_is_the_papers_heuristic():
    star = mcegpu.prepare(from_networkx(nx.star_graph(500)))  # delta 500, d 1
    dense = mcegpu.prepare(from_networkx(nx.complete_graph(30)))
    assert (star.delta, star.d) == (500, 1)
    assert star.induced_mode("auto") == "IP" and dense.induced_mode("auto") == "IPX"
    with pytest.raises(ValueError, match="induced"):
        dense.induced_mode("PX")


def test_degeneracy_above_2048_is_split_or_refused_never_skipped():
    # A seed with |P| = d = 3000 (the authors' kernel overflows a shared array past 2048).
    prep = mcegpu.prepare(from_networkx(nx.star_graph(5)))
    p = np.array([3000] + [10] * 50, dtype=np.int64)
    x = np.array([5000] + [10] * 50, dtype=np.int64)
    prep.seeds["L1"] = (np.arange(51, dtype=np.int32), np.full(51, -1, np.int32), p, x)
    prep.order = np.arange(51)
    need = int(mcegpu.buffer_words(3000, 5000, True)) * 4
    passes = mcegpu.plan(prep, "L1", True, n_workers=1000, budget=need * 4)
    seen = np.sort(np.concatenate([idx for idx, *_ in passes]))
    assert np.array_equal(seen, np.arange(51)) and len(passes) == 2
    big = [w for idx, cap, w in passes if 0 in idx][0]
    assert big < 1000 and big * need <= need * 4  # fewer, larger workers
    with pytest.raises(MemoryError, match=r"mce-gpu: seed vertex 0 needs .* MiB"):
        mcegpu.plan(prep, "L1", True, n_workers=1000, budget=need // 2)


def test_bad_parameters_are_named():
    prep = mcegpu.prepare(from_networkx(nx.complete_graph(4)))
    with pytest.raises(TypeError, match="tau"):
        prep.run(tau=3)
    with pytest.raises(ValueError, match="subtree"):
        prep.run(subtree="L3")


def test_unknown_algorithm_lists_the_choices():
    with pytest.raises(ValueError, match="'rdmce', 'mce-gpu'"):
        mk.count_maximal_cliques(nx.complete_graph(3), algorithm="bk")


def test_cpu_device_ignores_the_gpu_algorithm():
    assert mk.count_maximal_cliques(nx.complete_graph(4), device="cpu", algorithm="mce-gpu") == 1
