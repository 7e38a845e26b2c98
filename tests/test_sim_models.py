"""Every instrumented model outputs exactly what the CPU oracle outputs."""

import pytest
from graph_families import bipartite_graphs, brute_force_bicliques, graphs
from hypothesis import HealthCheck, given, settings

from mce_kit import sim
from mce_kit.cpu import kclique, maxclique, mbe, mce
from mce_kit.sim import examples

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def as_set(cliques):
    return sorted(tuple(sorted(int(x) for x in c)) for c in cliques)


def bicliques(B):
    """The oracle's maximal bicliques as sorted (L, R) tuples."""
    return sorted((tuple(sorted(L)), tuple(sorted(R))) for L, R in mbe.maximal_bicliques(B))


def test_figure1_graph_has_the_papers_cliques():
    G = examples.figure1_graph()
    t = sim.bron_kerbosch(G)
    assert sorted(tuple(t.label_set("R", c)) for c in t.outputs) == [("A", "B", "C", "D"), ("A", "E", "F")]


def test_g0_has_six_maximal_bicliques():
    B = examples.g0_bipartite()
    assert len(brute_force_bicliques(B)) == 6
    assert sorted(sim.gmbe_plus(B).outputs) == bicliques(B)


@pytest.mark.parametrize("pivot", [False, True])
@pytest.mark.parametrize("seeds", ["root", "vertex", "edge"])
@pytest.mark.parametrize("order", ["natural", "degeneracy"])
@pytest.mark.parametrize("aggressive", [False, True])
@SETTINGS
@given(G=graphs(12))
def test_bk_matches_oracle(G, pivot, seeds, order, aggressive):
    t = sim.bron_kerbosch(G, pivot=pivot, seeds=seeds, order=order, aggressive=aggressive)
    assert as_set(t.outputs) == as_set(mce.maximal_cliques(G))
    assert len(set(t.outputs)) == len(t.outputs)  # each clique once


@pytest.mark.parametrize("seeds", ["vertex", "edge"])
@pytest.mark.parametrize("aggressive", [False, True])
@SETTINGS
@given(G=graphs(12))
def test_rdmce_matches_oracle(G, seeds, aggressive):
    t = sim.rdmce_bitmap(G, seeds=seeds, aggressive=aggressive)
    assert as_set(t.outputs) == as_set(mce.maximal_cliques(G))
    # the node's bitmaps agree with its recorded sets
    for i in t.search_nodes():
        node = t.node(int(i))
        if node.grid >= 0:
            cols = t.grids[node.grid].col_labels
            P = tuple(sorted(cols[j] for j in range(len(cols)) if node.bits["P_b"] >> j & 1))
            assert P == node.sets["P"]


@pytest.mark.parametrize("seeds", ["vertex", "edge"])
@pytest.mark.parametrize("induced", ["IP", "IPX"])
@SETTINGS
@given(G=graphs(12))
def test_mce_gpu_matches_oracle(G, seeds, induced):
    t = sim.mce_gpu(G, seeds=seeds, induced=induced)
    assert as_set(t.outputs) == as_set(mce.maximal_cliques(G))
    # compact X: X_P bits plus the X_X prefix named by the level pointer give X
    for i in t.search_nodes():
        node = t.node(int(i))
        if node.kind == "forest":
            continue
        cols = t.grids[node.grid].col_labels
        XP = {cols[j] for j in range(len(cols)) if node.bits["X_P"] >> j & 1}
        XX = set(node.extra["X_X"][: node.extra["lpX"][-1]])
        assert tuple(sorted(XP | XX)) == node.sets["X"]
        assert list(node.extra["lpX"]) == sorted(node.extra["lpX"], reverse=True)  # X_X only shrinks


@pytest.mark.parametrize("prune", [False, True])
@pytest.mark.parametrize("tau", [0, 2, 32])
@pytest.mark.parametrize("seeds", ["vertex", "root"])
@SETTINGS
@given(B=bipartite_graphs(7))
def test_gmbe_matches_oracle(B, prune, tau, seeds):
    t = sim.gmbe_plus(B, prune=prune, tau=tau, seeds=seeds)
    assert sorted(t.outputs) == bicliques(B)
    assert len(set(t.outputs)) == len(t.outputs)


@SETTINGS
@given(B=bipartite_graphs(7))
def test_gmbe_pruning_only_removes_non_maximal_nodes(B):
    a, b = sim.gmbe_plus(B, prune=False).summary(), sim.gmbe_plus(B, prune=True).summary()
    assert a["outputs"] == b["outputs"]
    assert b["failed_checks"] <= a["failed_checks"]
    assert b["nodes"] <= a["nodes"]


@SETTINGS
@given(B=bipartite_graphs(7))
def test_node_buf_depths_give_each_nodes_sets(B):
    t = sim.gmbe_plus(B)
    for i in t.search_nodes():
        node = t.node(int(i))
        D = node.depth - 1  # seeds sit at tree depth 1, node_buf depth 0
        depth = node.extra["depth"]
        L = sorted(x for x, d in depth.items() if x.startswith("u") and d == D)
        assert L == sorted(t.label_set("L", node.sets["L"]))
        R = sorted(x for x, d in depth.items() if x.startswith("v") and d <= D)
        assert R == sorted(t.label_set("R", node.sets["R"]))


@pytest.mark.parametrize("k", [1, 2, 3, 4])
@pytest.mark.parametrize("seeds", ["vertex", "edge"])
@pytest.mark.parametrize("lam", [0.0, 0.3, 1.0])
@SETTINGS
@given(G=graphs(12))
def test_kcminer_matches_oracle(G, k, seeds, lam):
    t = sim.kcminer(G, k, seeds=seeds, lam=lam)
    assert as_set(t.outputs) == as_set(kclique.k_cliques(G, k))


@pytest.mark.parametrize("window", [None, 1, 3])
@pytest.mark.parametrize("by", ["degree", "core"])
@pytest.mark.parametrize("runs", [1, 4])
@SETTINGS
@given(G=graphs(12))
def test_geil_matches_oracle(G, window, by, runs):
    t = sim.geil_bfs(G, window=window, by=by, runs=runs)
    omega, cliques = maxclique.max_cliques(G)
    assert t.meta["omega"] == omega
    assert as_set(t.outputs) == as_set(cliques)
    assert t.meta["omega_hat"] <= omega


def test_geil_clique_list_reads_back_the_clique():
    G = examples.random_graph(14, 0.5, seed=3)
    t = sim.geil_bfs(G)
    levels = t.meta["windows"][0]
    vid, sid = levels[-1]
    # follow sublistID pointers back through the levels, as in Geil's Figure 1
    for j in range(len(vid)):
        clique, x = [vid[j]], sid[j]
        for a, b in reversed(levels[:-1]):
            clique.append(a[x])
            x = b[x]
        clique.append(x)  # level 2 stores the source vertex itself
        assert tuple(sorted(clique)) in t.outputs


# ---- the papers' claims, qualitatively ---------------------------------------


def test_pivoting_shrinks_the_tree():
    for seed in range(5):
        G = examples.random_graph(30, 0.4, seed=seed)
        plain = sim.bron_kerbosch(G, pivot=False).summary()["nodes"]
        pivot = sim.bron_kerbosch(G, pivot=True).summary()["nodes"]
        assert pivot < plain


def test_aggressive_generation_removes_intermediate_nodes():
    off = on = 0
    for seed in range(5):
        G = examples.planted_core(40, 0.1, core=14, q=0.8, seed=seed)
        a = sim.rdmce_bitmap(G, aggressive=False).summary()
        b = sim.rdmce_bitmap(G, aggressive=True).summary()
        assert a["outputs"] == b["outputs"]
        off, on = off + a["inner"], on + b["inner"]
    assert on < 0.8 * off


def test_figure1_aggressive_node_moves_c_and_d_together():
    t = sim.rdmce_bitmap(examples.figure1_graph(), order="natural", seeds="vertex", aggressive=True)
    i = t.output_node[t.outputs.index((0, 1, 2, 3))]
    assert t.depth[i] == 2 and t.node(i).extra["moved"] == (2, 3)  # A, then B with C, D at once


def test_gmbe_pruning_reproduces_the_papers_example():
    """GMBE+ Example 4.1: under node r = ({u1..u4}, {v2}, {v3, v4}), v4 is pruned after v3."""
    t = sim.gmbe_plus(examples.g0_bipartite(), seeds="root", order="natural", prune=True)
    r = next(i for i in range(len(t)) if t.sets(i).get("L") == (0, 1, 2, 3))
    skipped = [c for c in t.children[r] if t.status[c] == "skipped"]
    assert [t.node(c).note for c in skipped] == ["v4"]
    assert t.summary()["failed_checks"] == 0
    assert sim.gmbe_plus(examples.g0_bipartite(), seeds="root", order="natural", prune=False
                         ).summary()["failed_checks"] == 3


def test_ip_may_pick_a_worse_pivot_than_ipx():
    G = examples.figure1_graph()
    ip = sim.mce_gpu(G, induced="IP", order="natural").summary()["nodes"]
    ipx = sim.mce_gpu(G, induced="IPX", order="natural").summary()["nodes"]
    assert ipx < ip  # seed B: the pivot A sits in X_X, which IP cannot see


def test_compact_x_is_smaller_than_one_copy_per_level():
    t = sim.mce_gpu(examples.planted_core(50, 0.1, core=16, q=0.8, seed=1))
    assert t.meta["x_words_compact"] < t.meta["x_words_naive"]


def test_kcminer_bitmap_level_follows_lambda():
    G = examples.random_graph(18, 0.6, seed=2)
    at_once = sim.kcminer(G, 4, seeds="edge", lam=0.0)
    never = sim.kcminer(G, 4, seeds="edge", lam=1.0)
    assert set(at_once.meta["bitmap_levels"]) == {2} and never.meta["bitmap_levels"] == {}
    assert at_once.outputs == never.outputs


def test_geil_windowing_holds_fewer_entries():
    G = examples.planted_core(80, 0.15, core=12, q=0.9, seed=3)
    full, windowed = sim.geil_bfs(G), sim.geil_bfs(G, window=20)
    assert windowed.meta["peak_entries"] < full.meta["peak_entries"]
    assert sorted(windowed.outputs) == sorted(full.outputs)


# ---- the tiny examples' mechanisms -----------------------------------------------


def test_g0_plus_v5_pruning_drops_only_non_maximal_branches():
    B = examples.g0_plus_v5()
    off, on = sim.gmbe_plus(B, prune=False), sim.gmbe_plus(B, prune=True)
    assert sorted(off.outputs) == sorted(on.outputs) == bicliques(B)
    a, b = off.summary(), on.summary()
    assert b["nodes"] < a["nodes"] and b["failed_checks"] < a["failed_checks"]
    assert a["nodes"] - b["nodes"] == a["failed_checks"] - b["failed_checks"]  # each cut node was a dead end
    skipped = [(on.node(c).note, on.reason[c]) for c in range(len(on)) if on.status[c] == "skipped"]
    assert skipped == [("v5", "|N_L| unchanged after v4"), ("v5", "|N_L| unchanged after v4"),
                       ("v2", "|N_L| unchanged after v5")]


@pytest.mark.parametrize("window", [None, 2])
@SETTINGS
@given(G=graphs(10))
def test_geil_without_the_bound_lists_every_clique(G, window):
    from graph_families import brute_force_cliques

    t = sim.geil_bfs(G, bound=False, window=window)
    omega, cliques = maxclique.max_cliques(G)
    assert t.meta["omega"] == omega and as_set(t.outputs) == as_set(cliques)
    assert t.summary()["pruned"] == {} and t.meta["dropped"] == []
    if G.m:  # every clique of two or more vertices is one entry of some level
        entries = sorted(tuple(sorted(t.sets(i)["R"])) for i in range(len(t)) if t.kind[i] == "node")
        assert entries == as_set(c for c in brute_force_cliques(G) if len(c) >= 2)


def test_geil_bound_removes_entries_on_the_fringe_graph():
    G = examples.fringe_graph()
    off, on = sim.geil_bfs(G, bound=False), sim.geil_bfs(G, bound=True)
    assert off.outputs == on.outputs == [(0, 1, 2, 3)]
    assert on.meta["omega_hat"] == on.meta["omega"] == 4  # the greedy pass finds ABCD
    assert on.summary()["nodes"] < off.summary()["nodes"]
    assert sorted(G.label(v) for v in on.meta["dropped"]) == ["G", "H", "I"]  # degree + 1 < 4


@pytest.mark.parametrize("k", [5, 6])
@pytest.mark.parametrize("lanes", [2, 4, 32])
@SETTINGS
@given(G=graphs(13))
def test_lane_queue_counts_every_k_clique_once(G, k, lanes):
    from mce_kit.sim import kclique as model

    q = model.lane_queue(G, k, lanes=lanes)
    assert q.count == sum(1 for _ in kclique.k_cliques(G, k))
    for task in q.tasks:
        fires = [f for f in q.fires if f["task"] == task["task"]]
        assert sum(f["size"] for f in fires) == task["pairs"]  # every pair (i, j) fired once
        assert all(f["size"] == lanes for f in fires if not f["end"])
        ends = [f["size"] for f in fires if f["end"]]
        assert len(ends) <= 1 and all(size < lanes for size in ends)  # one partial group, at the end
    assert all(r["queued"] < 2 * lanes and r["left"] < lanes for r in q.rounds)  # fits the double buffer


def test_lane_queue_tasks_have_distinct_names():
    """Two-digit labels: the task (1, 12) must not share its name with (11, 2) (hypothesis found it)."""
    from graph_families import planted_cliques

    from mce_kit.sim import kclique as model

    q = model.lane_queue(planted_cliques(13, 0.95, [], 450212), 6, lanes=4)
    names = [t["task"] for t in q.tasks]
    assert len(set(names)) == len(names)
    for task in q.tasks:
        assert sum(f["size"] for f in q.fires if f["task"] == task["task"]) == task["pairs"]


def test_lane_queue_fires_on_k11_and_spans_words():
    from mce_kit.sim import kclique as model

    q = model.lane_queue(examples.complete_graph(11), 5)
    ab = [f for f in q.fires if f["task"] == "AB"]
    assert [(f["size"], f["end"]) for f in ab] == [(32, False), (4, True)]  # 36 pairs: 32 + 4
    assert all(f["end"] for f in q.fires if f["task"] != "AB")  # every other task has under 32 pairs
    # two hubs joined to all of a sparse G(36, 0.4): the task (hub, hub) has 36 candidates, two words a row
    H = examples.random_graph(38, 0.4, seed=1)
    e = H.edges()
    hubs = [(h, v) for h in (0, 1) for v in range(h + 1, 38)]
    G = type(H).from_edges(38, list(e[:, 0]) + [a for a, _ in hubs], list(e[:, 1]) + [b for _, b in hubs])
    q = model.lane_queue(G, 5, order="natural")
    assert max(t["candidates"] for t in q.tasks) > 32
    assert q.count == sum(1 for _ in kclique.k_cliques(G, 5))


@SETTINGS
@given(B=bipartite_graphs(7))
def test_every_pruned_branch_would_only_have_found_non_maximal_nodes(B):
    on, off = sim.gmbe_plus(B, prune=True), sim.gmbe_plus(B, prune=False)
    cuts = sim.gmbe.pruned_branches(on, off)
    assert len(cuts) == sum(on.summary()["skipped"].values())
    for row in cuts:
        assert row["maximal"] is False and row["maximal below it"] == 0


def test_geil_levels_list_each_entry_once():
    G = examples.fringe_graph()
    for bound in (False, True):
        t = sim.geil_bfs(G, bound=bound)
        rows = sim.geil.levels(t)
        assert len(rows) == t.summary()["nodes"]
        assert all(len(r["clique"]) == r["level"] for r in rows)
        assert {r["clique"] for r in rows if r["level"] == 4} == {"ABCD"}
    cut = {r["clique"] for r in sim.geil.levels(t) if r["status"] == "pruned"}
    assert {"G", "H", "I", "AC"} <= cut  # dropped vertices, and AC: 2 + |{D}| < 4
