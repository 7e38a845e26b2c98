"""mce-gpu on a real GPU against networkx and RDMCE: same cliques, every run.

Run with ``pytest -m gpu``; every test here skips cleanly without a GPU.
"""

import itertools

import networkx as nx
import pytest
from graph_families import from_networkx, moon_moser_nx, random_nx_graphs

from mce_kit.gpu import has_gpu

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not has_gpu(), reason="needs a CUDA GPU")]

# Every switch set of the issue: L1/L2 x IP/IPX x worker list on/off. With the worker list on,
# donate_min_p=2 makes donations happen on small graphs too; block sizes rotate through 1, 2, 4 warps
# and the sub-warp groups through 4 and 1 words per lane (every pairing over the eight sets).
SWITCHES = [dict(subtree=s, induced=i, worker_list=w, donate_min_p=2 if w else 10, warps_per_block=b,
                 lane_words=k)
            for (s, i, w), b, k in zip(itertools.product(("L1", "L2"), ("IP", "IPX"), (True, False)),
                                       itertools.cycle((1, 2, 4)), itertools.cycle((4, 1)))]
GRAPHS = 300


def _ids(s):
    return (f"{s['subtree']}-{s['induced']}-{'WL' if s['worker_list'] else 'noWL'}-w{s['warps_per_block']}"
            f"-k{s['lane_words']}")


def _cliques_nx(G):
    return sorted(tuple(sorted(c)) for c in nx.find_cliques(G.to_networkx()))


@pytest.fixture(scope="module")
def graphs():
    return [from_networkx(H) for H in random_nx_graphs(GRAPHS, seed=11)]


@pytest.mark.parametrize("switches", SWITCHES, ids=_ids)
def test_listing_matches_networkx_on_random_graphs(switches, graphs):
    from mce_kit.gpu import mcegpu

    donations = 0
    for i, G in enumerate(graphs):
        res = mcegpu.prepare(G).run(listing=True, **switches)
        got = sorted(tuple(sorted(c.tolist())) for c in res.cliques)
        want = _cliques_nx(G)
        assert got == want, f"graph {i} ({G.n} vertices, {G.m} edges): {len(got)} vs {len(want)} cliques"
        assert res.answer == len(want)
        donations += res.donations
    if switches["worker_list"] and switches["subtree"] == "L1":  # deep vertex seeds, idle blocks
        assert donations > 0
    elif not switches["worker_list"]:
        assert donations == 0


@pytest.mark.parametrize("ip_search", ["excluded", "shorter"])
@pytest.mark.parametrize("subtree", ["L1", "L2"])
def test_ip_searches_list_the_networkx_cliques(subtree, ip_search, graphs):
    from mce_kit.gpu import mcegpu

    for i, G in enumerate(graphs):
        res = mcegpu.prepare(G).run(listing=True, subtree=subtree, induced="IP", donate_min_p=2,
                                    ip_search=ip_search)
        got = sorted(tuple(sorted(c.tolist())) for c in res.cliques)
        assert got == _cliques_nx(G), f"graph {i} ({G.n} vertices, {G.m} edges)"


@pytest.mark.parametrize("subtree", ["L1", "L2"])
def test_worker_list_donates_and_counts_are_64_bit(subtree):
    from mce_kit.gpu import mcegpu

    prep = mcegpu.prepare(from_networkx(moon_moser_nx(12)))  # 3^12 = 531,441 cliques, few deep seeds
    counts = set()
    for _ in range(3):
        res = prep.run(subtree=subtree, induced="IPX")
        counts.add(res.answer)
        assert res.donations > 0
    assert counts == {3**12}


def test_small_buffer_budget_uses_more_passes_and_stays_exact():
    from mce_kit.gpu import mcegpu

    G = from_networkx(nx.disjoint_union(nx.gnp_random_graph(200, 0.15, seed=3), moon_moser_nx(5)))
    prep = mcegpu.prepare(G)
    want = sum(1 for _ in nx.find_cliques(G.to_networkx()))
    _, _, p, x = prep.seed_arrays("L1")
    budget = int(mcegpu.buffer_words(p, x, True).max()) * 4 * 20  # room for 20 of the largest seeds
    tight = prep.run(induced="IPX", max_buffer_bytes=budget)
    assert prep.run().answer == tight.answer == want
    assert tight.passes > 1


def test_graph_too_big_for_the_budget_is_refused_with_the_memory_it_needs():
    from mce_kit.gpu import mcegpu

    with pytest.raises(MemoryError, match=r"seed vertex .* MiB"):
        mcegpu.prepare(from_networkx(nx.complete_graph(200))).run(max_buffer_bytes=4096)


def test_profile_build_splits_the_time():
    from mce_kit.gpu import mcegpu

    prep = mcegpu.prepare(from_networkx(nx.gnp_random_graph(300, 0.2, seed=2)))
    res = prep.run(profile=True)
    assert res.answer == prep.run().answer
    assert set(res.phase_cycles) == set(mcegpu.PHASES) and res.phase_cycles["pivot"] > 0
    assert res.params["build"] == "MCEGPU_PROFILE=1"


def _reference():
    from mce_kit.experiments.rdmce import reference_counts

    return reference_counts()


@pytest.mark.parametrize("name", sorted(_reference()))
def test_bundled_graphs_exact_ten_runs_in_a_row(name):
    from mce_kit import datasets
    from mce_kit.gpu import mcegpu

    prep = mcegpu.prepare(datasets.load(name))
    counts = [prep.run().answer for _ in range(10)]
    assert counts == [_reference()[name]] * 10


def test_public_api_on_the_gpu():
    import mce_kit as mk

    H = nx.relabel_nodes(nx.gnp_random_graph(60, 0.3, seed=5), lambda v: f"v{v}")
    gpu = mk.count_maximal_cliques(H, device="gpu", algorithm="mce-gpu", subtree="L2")
    assert gpu == mk.count_maximal_cliques(H, device="cpu")
    assert gpu.params["algorithm"] == "mce-gpu"
    listed = sorted(sorted(c) for c in mk.find_cliques(H, device="gpu", algorithm="mce-gpu"))
    assert listed == sorted(sorted(c) for c in nx.find_cliques(H))
