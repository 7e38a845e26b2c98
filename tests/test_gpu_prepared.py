"""Kept preparation on a GPU: warm public calls reuse it and stay exact, 1,000 calls over 50 graphs
stay under the budget, and release() gives the device memory back."""

import numpy as np
import pytest
from graph_families import from_networkx, random_nx_graphs

import mce_kit as mk
from mce_kit import accel, cpu, datasets, prepared
from mce_kit.gpu import has_gpu

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not has_gpu(), reason="needs a CUDA GPU")]


def test_warm_calls_are_exact_ten_times_on_the_bundled_graphs():
    from mce_kit import references

    for name in ("CA-GrQc", "wiki-Vote", "email-Eu-core", "socfb-MIT"):
        G = datasets.load(name)
        want = references.expected("mce", name)
        assert [int(mk.count_maximal_cliques(G, device="gpu")) for _ in range(10)] == [want] * 10
        for k in (4, 8):
            want_k = references.expected("kclique", name, k=k)
            got = {int(mk.count_k_cliques(G, k, device="gpu", algorithm=a)) for a in ("listing", "pivot")}
            assert got == {want_k}, (name, k)


def test_a_thousand_calls_over_fifty_graphs_stay_under_the_budget():
    import cupy

    prepared.release()
    prepared.set_budget(8 << 20)
    graphs = [from_networkx(H) for H in random_nx_graphs(50, seed=5)]
    pool = cupy.get_default_memory_pool()
    peak_kept, peak_pool = 0, 0
    for i in range(1000):
        G = graphs[i % 50]
        mce = i % 2
        got = mk.count_maximal_cliques(G, device="gpu") if mce else mk.count_k_cliques(G, 4, device="gpu")
        if i < 100:
            want = cpu.count_maximal_cliques(G) if mce else cpu.count_k_cliques(G, 4)
            assert int(got) == want, i
        peak_kept = max(peak_kept, prepared.kept_bytes())
        peak_pool = max(peak_pool, pool.used_bytes())
    assert peak_kept <= 8 << 20
    prepared.release()
    assert prepared.kept_bytes() == 0 and pool.total_bytes() == 0
    prepared.set_budget(prepared.DEFAULT_BUDGET)


def test_release_frees_a_graphs_device_blocks():
    import cupy

    G = datasets.load("soc-Slashdot0902")
    mk.count_maximal_cliques(G, device="gpu")
    assert prepared.kept_state(G)
    prepared.release(G)
    assert prepared.kept_state(G) == [] and cupy.get_default_memory_pool().total_bytes() == 0
    assert np.all(np.diff(G.indptr) >= 0)  # the graph itself is untouched


def test_device_copies_are_uploaded_once_counted_and_released():
    import cupy

    from mce_kit.gpu import kclique, rdmce

    prepared.release()
    G = datasets.load("wiki-Vote")
    mk.count_maximal_cliques(G, device="gpu")
    mk.count_k_cliques(G, 5, device="gpu", algorithm="listing")
    P, ori = rdmce.prepared(G), kclique.orient(G, "degree")
    on_gpu = {k: a.data.ptr for k, a in (*P.device.items(), *ori.device.items())}
    names = {k[0] for k in on_gpu}
    # the CSR, the later-neighbour blob, and the exact candidates the first call's split plan counted;
    # an orientation built on the GPU keeps its full blob there too, as built
    built_there = {"all_blob"} if accel.use_gpu_for_prep(len(G.indices)) else set()
    want = {"indptr", "indices", "out_blob", "common", *built_there}
    assert {n for n in names if isinstance(n, str)} == want
    assert {n for n in names if n in {("seed u", "edge"), ("seed v", "edge")}} == {("seed u", "edge"),
                                                                                 ("seed v", "edge")}
    others = {n[1] for n in names if not isinstance(n, str) and n[0] not in ("seed u", "seed v")}
    assert others <= {"pairs", "split"}   # split entries, kept
    kept = {r["key"]: r["bytes"] for r in prepared.kept_state(G)}
    u, v, _, _ = P.seed_arrays("edge")
    assert kept[("rdmce",)] >= P.indptr.nbytes + P.indices.nbytes + u.nbytes + v.nbytes   # the host's
    assert kept[("ordered_csr", "device")] == P.indptr.nbytes + P.indices.nbytes + u.nbytes + v.nbytes
    mk.count_maximal_cliques(G, device="gpu")
    mk.count_k_cliques(G, 6, device="gpu", algorithm="listing")
    after = {k: a.data.ptr for k, a in (*P.device.items(), *ori.device.items())}
    assert {k: after[k] for k in on_gpu} == on_gpu   # not again
    mk.count_k_cliques(G, 6, device="gpu", algorithm="listing")
    assert {k: a.data.ptr for k, a in (*P.device.items(), *ori.device.items())} == after   # k = 6's kept
    del P, ori
    prepared.release(G)
    assert prepared.kept_state(G) == [] and cupy.get_default_memory_pool().total_bytes() == 0
