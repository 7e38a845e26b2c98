"""The simulated workers visit every node once and account for all their time."""

import numpy as np
import pytest
from graph_families import graphs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mce_kit import sim
from mce_kit.cpu import mce
from mce_kit.sim import examples, mcegpu, workers

SCHEMES = workers.SCHEMES


def planted(n=60, core=18, seed=1):
    """A sparse G(n, p) with one dense core: a few seeds hold most of the work."""
    G = examples.random_graph(n, 0.05, seed=seed)
    rng = np.random.default_rng(seed)
    e = G.edges()
    iu, ju = np.triu_indices(core, 1)
    keep = rng.random(len(iu)) < 0.75
    u = np.concatenate([e[:, 0], iu[keep]])
    v = np.concatenate([e[:, 1], ju[keep]])
    return type(G).from_edges(n, u, v)


@pytest.fixture(scope="module")
def trees():
    G = planted()
    return {s: sim.bron_kerbosch(G, order="degeneracy", seeds=s) for s in ("vertex", "edge")}


def check_invariants(t, r):
    real = [i for i in range(len(t)) if t.kind[i] != "forest" and t.status[i] != "skipped"]
    assert (r.owner[real] >= 0).all()  # every search node visited
    assert r.nodes.sum() == len(real)  # ... exactly once
    assert r.busy.sum() == pytest.approx(sum(max(1.0, t.work[i]) for i in real))
    assert np.allclose(r.busy + r.overhead + r.idle, r.makespan)
    assert (r.idle >= -1e-9).all()
    assert r.makespan >= r.busy.sum() / r.p - 1e-9


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("seeds", ["vertex", "edge"])
@pytest.mark.parametrize("p", [1, 3, 16])
def test_invariants(trees, scheme, seeds, p):
    t = trees[seeds]
    r = workers.simulate(t, scheme, p, tau=3, min_donate=2, bound_height=2, bound_size=4)
    check_invariants(t, r)
    if p == 1:
        assert r.handoffs == 0 or scheme == "tasks"
        assert r.idle.sum() == pytest.approx(0)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), p=st.integers(1, 12), scheme=st.sampled_from(SCHEMES),
       tau=st.integers(0, 5))
def test_invariants_random(seed, p, scheme, tau):
    G = examples.random_graph(14, 0.5, seed=seed)
    t = sim.bron_kerbosch(G, order="degeneracy", seeds="vertex")
    check_invariants(t, workers.simulate(t, scheme, p, tau=tau, min_donate=1, bound_height=1, bound_size=1))


def test_deterministic(trees):
    a = workers.simulate(trees["vertex"], "rdmce", 8, tau=2)
    b = workers.simulate(trees["vertex"], "rdmce", 8, tau=2)
    assert a.segments == b.segments and (a.owner == b.owner).all()


def test_balancing_beats_a_static_split(trees):
    t = trees["vertex"]
    static = workers.simulate(t, "static", 16)
    wl = workers.simulate(t, "worklist", 16, min_donate=3)
    rd = workers.simulate(t, "rdmce", 16, tau=3)
    assert wl.handoffs > 0 and rd.handoffs > 0
    assert wl.makespan < static.makespan and rd.makespan < static.makespan
    assert wl.load_ratio < static.load_ratio


def test_rdmce_never_pulls_at_or_below_tau(trees):
    t = trees["vertex"]
    r = workers.simulate(t, "rdmce", 16, tau=5)
    for _, src, dst, x in r.arrows:
        assert t.cand[t.parent[x]] > 5 and src != dst


def test_tau_above_every_P_turns_exposure_off(trees):
    t = trees["vertex"]
    r = workers.simulate(t, "rdmce", 16, tau=10**6)
    assert r.handoffs == 0
    assert r.makespan == workers.simulate(t, "static", 16).makespan


def test_worklist_donations_follow_the_rule(trees):
    t = trees["edge"]
    r = workers.simulate(t, "worklist", 16, min_donate=4)
    assert all(t.cand[x] >= 4 for _, _, _, x in r.arrows)


def test_gmbe_task_splitting_spreads_a_big_seed():
    B = examples.random_bipartite(40, 30, 0.3, seed=2)
    t = sim.gmbe_plus(B)
    warp = workers.simulate(t, "static", 32)
    split = workers.simulate(t, "tasks", 32, bound_height=2, bound_size=20)
    assert split.handoffs > 0
    assert split.makespan < warp.makespan
    check_invariants(t, split)


def test_dataframe_helpers(trees):
    df = workers.load_balance_table(trees, p=8)
    assert set(df["worker_list"]) == {False, True} and len(df) == 4
    assert len(workers.tau_sweep(trees["vertex"], taus=(2, 4), p=8)) == 2
    assert set(workers.exposure_table(trees["vertex"], p=8)["exposure"]) == {False, True}
    runs = {"a": workers.simulate(trees["vertex"], "static", 4)}
    act = workers.active_workers(runs, bins=10)
    assert len(act) == 10 and act["active"].max() <= 4 + 1e-9


# ---- mce-gpu's worker list, modelled (sim.mcegpu.worker_list) ----------------------


def _check_donations(t, r, min_donate):
    """Each donation: seeds gone, |P| >= min_donate, the receiver waiting in the list, never itself."""
    last_seed = max((e[0] for e in r.events if e[2] == "seed"), default=0.0)
    waiting = set()
    donations = 0
    for time, w, ev, x, other in r.events:
        if ev == "wait":
            waiting.add(w)
        elif ev == "donate":
            donations += 1
            assert time >= last_seed and t.cand[x] >= min_donate
            assert other in waiting and other != w
            waiting.discard(other)
    assert donations == r.handoffs == len(r.arrows)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(G=graphs(12), p=st.integers(1, 10), min_donate=st.integers(1, 4), enabled=st.booleans(),
       seeds=st.sampled_from(["vertex", "edge"]))
def test_worker_list_blocks_find_exactly_the_oracles_cliques(G, p, min_donate, enabled, seeds):
    t, r = mcegpu.worker_list(G, p, min_donate=min_donate, enabled=enabled, seeds=seeds)
    found = [c for cs in r.outputs(t).values() for c in cs]
    assert sorted(found) == sorted(tuple(sorted(int(v) for v in c)) for c in mce.maximal_cliques(G))
    check_invariants(t, r)
    _check_donations(t, r, min_donate)
    if not enabled:
        assert r.handoffs == 0 and not any(e[2] in ("donate", "wait") for e in r.events)


def test_worker_list_donates_on_the_cocktail_party():
    G = examples.cocktail_party(5)
    t, on = mcegpu.worker_list(G, 8, min_donate=3)
    _, off = mcegpu.worker_list(G, 8, min_donate=3, enabled=False)
    assert on.handoffs > 0 and off.handoffs == 0
    assert on.makespan < off.makespan
    _check_donations(t, on, 3)
    steps = on.steps(t)
    assert list(steps["time"]) == sorted(steps["time"])
    assert set(steps["event"]) >= {"takes seed", "joins the worker list", "donates branch to"}
    # the paper's rule |P| >= 10: no branch of this graph is that large, so nothing is donated
    assert mcegpu.worker_list(G, 8)[1].handoffs == 0
