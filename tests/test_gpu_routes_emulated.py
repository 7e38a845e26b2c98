"""The public calls' GPU route, run without a GPU: tests/fake_cupy.py stands in for CuPy and runs the
kernels on the CUDA emulator, so the launchers' own host code (kept state, planning, passes,
streaming, the Watch, the preparation on the GPU) is checked here against the CPU route on every
CI run, as the GPU tests check it on a device. The emulation runs a block's warps in a fixed
interleaving: it finds logic errors, not races. Each script runs in a fresh interpreter (the
stand-in replaces ``cupy`` for good).
"""

import json

import pytest
from emulated import HAVE_GXX
from fake_cupy import run_script

from mce_kit.gpu import kclique

pytestmark = pytest.mark.skipif(not HAVE_GXX, reason="needs g++ (C++20)")

COMPARE = """
import json
import numpy as np
import networkx as nx
import mce_kit as mk
from mce_kit import accel
from graph_families import from_networkx, random_bipartite, random_nx_graphs

if GPU_PREP:   # the first call's preparation (order, seeds, orientation) on the GPU, as large graphs take it
    accel.PREP_GPU_MIN_ENTRIES = accel.GPU_MIN_ENTRIES = 0

bad = []
def same(what, gpu, cpu):
    if gpu != cpu:
        bad.append(f"{what}: gpu {gpu!r:.200} cpu {cpu!r:.200}")

def cliques(G, **kw):
    return sorted(sorted(c) for c in mk.find_cliques(G, **kw))

for i, H in enumerate(random_nx_graphs(count=COUNT, seed=SEED)):
    G = from_networkx(H, f"graph {i}")
    same(f"{G.name} mce", int(mk.count_maximal_cliques(G, device="gpu")),
         int(mk.count_maximal_cliques(G, device="cpu")))
    same(f"{G.name} mce-gpu", int(mk.count_maximal_cliques(G, device="gpu", algorithm="mce-gpu")),
         int(mk.count_maximal_cliques(G, device="cpu")))
    same(f"{G.name} find_cliques", cliques(G, device="gpu"), cliques(G, device="cpu"))
    for k in (3, 4, 5):
        same(f"{G.name} k={k}", int(mk.count_k_cliques(G, k, device="gpu", algorithm="listing")),
             int(mk.count_k_cliques(G, k, device="cpu")))
    for k in (3, 6, 9):
        same(f"{G.name} k={k} pivot", int(mk.count_k_cliques(G, k, device="gpu", algorithm="pivot")),
             int(mk.count_k_cliques(G, k, device="cpu")))
    same(f"{G.name} clique_counts", mk.clique_counts(G, device="gpu"), mk.clique_counts(G, device="cpu"))
    w, top = mk.max_cliques(G, device="gpu")
    w_cpu, top_cpu = mk.max_cliques(G, device="cpu")
    same(f"{G.name} max_cliques", (w, sorted(sorted(c) for c in top)),
         (w_cpu, sorted(sorted(c) for c in top_cpu)))
    same(f"{G.name} clique_number", int(mk.clique_number(G, device="gpu")), w_cpu)
for i in range(COUNT // 2):
    B = random_bipartite(8 + 5 * i, 6 + 3 * i, 0.15 + 0.05 * (i % 4), seed=SEED + i)
    same(f"bipartite {i}", int(mk.count_maximal_bicliques(B, device="gpu")),
         int(mk.count_maximal_bicliques(B, device="cpu")))
print(json.dumps(bad))
"""


@pytest.mark.parametrize("seed,gpu_prep", [(11, False), (12, True)])
def test_public_gpu_route_matches_the_cpu_route(tmp_path_factory, seed, gpu_prep):
    script = COMPARE.replace("COUNT", "8").replace("SEED", str(seed)).replace("GPU_PREP", str(gpu_prep))
    out = run_script(script, tmp_path_factory.getbasetemp() / "fake_cupy")
    assert json.loads(out.splitlines()[-1]) == []


WARM = """
import json
import mce_kit as mk
import fake_cupy

import networkx as nx
from graph_families import from_networkx, random_bipartite

G = from_networkx(nx.powerlaw_cluster_graph(400, 6, 0.6, seed=3), "power-law cluster")
B = random_bipartite(60, 40, 0.15, seed=5)
asked = {}
for what, call, want in [
        ("listing", lambda: mk.count_k_cliques(G, 4, device="gpu", algorithm="listing"),
         mk.count_k_cliques(G, 4, device="cpu")),
        ("pivot", lambda: mk.count_k_cliques(G, 5, device="gpu", algorithm="pivot"),
         mk.count_k_cliques(G, 5, device="cpu")),
        ("mce", lambda: mk.count_maximal_cliques(G, device="gpu"),
         mk.count_maximal_cliques(G, device="cpu")),
        ("mce-gpu", lambda: mk.count_maximal_cliques(G, device="gpu", algorithm="mce-gpu"),
         mk.count_maximal_cliques(G, device="cpu")),
        ("mbe", lambda: mk.count_maximal_bicliques(B, device="gpu"),
         mk.count_maximal_bicliques(B, device="cpu"))]:
    answers = [int(call()) for _ in range(2)]   # cold, then warm
    fake_cupy.calls.clear()
    answers.append(int(call()))
    asked[what] = {"answers": answers, "want": int(want), "calls": dict(fake_cupy.calls)}
from mce_kit.gpu import cliquecount, kclique   # a timed run reads back its workers' words as well
for what, run in [("listing", lambda: kclique.prepared(G).run(k=4)),
                  ("pivot", lambda: cliquecount.prepare(G).run(k_max=5))]:
    fake_cupy.calls.clear()
    run()
    asked[what]["timed get bytes"] = fake_cupy.calls["get bytes"]
print(json.dumps(asked))
"""


def test_a_warm_call_copies_no_graph_and_launches_once(tmp_path_factory):
    """What a warm call asks of CuPy (issue 24: its host work): one launch, no host-to-device copy of
    the graph or tasks, one read of the result, no question of free memory (its one-pass plan is kept),
    no timing events (an answer-only call is untimed), and the same answer as the cold call."""
    asked = json.loads(run_script(WARM, tmp_path_factory.getbasetemp() / "fake_cupy").splitlines()[-1])
    for what, got in asked.items():
        assert got["answers"] == [got["want"]] * 3 and got["want"] > 0, what
        calls = got["calls"]
        launches = {name: n for name, n in calls.items() if name.startswith("launch ")}
        assert sum(launches.values()) == 1, (what, calls)
        assert calls.get("asarray", 0) == 0, (what, calls)   # nothing copied to the device
        assert calls.get("get", 0) <= (2 if what == "mce-gpu" else 1), (what, calls)   # (its statistics)
        assert calls.get("memGetInfo", 0) == 0, (what, calls)
        assert calls.get("event record", 0) <= 1, (what, calls)   # the wait's, no timing events
        if what == "listing":   # the answer-only k-clique calls read back the launch's fixed words
            assert calls["get bytes"] == 8 * kclique._S_FIXED, calls
        if what in ("listing", "pivot"):
            assert calls["get bytes"] < got["timed get bytes"] / 2, (what, calls, got)


EDGES = """
import json
import time
import networkx as nx
import mce_kit as mk
import fake_cupy
from graph_families import from_networkx, planted_cliques
from mce_kit.gpu import geil, loader

out = {}
H = nx.gnp_random_graph(30, 0.4, seed=5)
clique = max(nx.find_cliques(H), key=len)
def cliques(**kw):
    return sorted(map(sorted, mk.find_cliques(H, clique[:2], **kw)))
out["nodes with a floor below them"] = cliques(min_size=1, device="gpu") == cliques(min_size=1, device="cpu")
out["nodes through mce-gpu"] = (cliques(device="gpu", algorithm="mce-gpu", subtree="L2")
                               == cliques(device="cpu"))
for name, call in [("rdmce", lambda: mk.count_maximal_cliques(H, device="gpu", warps_per_sm=0)),
                   ("kcminer", lambda: mk.count_k_cliques(H, 4, device="gpu", algorithm="listing",
                                                          warps_per_sm=0)),
                   ("pivot", lambda: mk.clique_counts(H, 6, device="gpu", warps_per_sm=0))]:
    try:
        call()
        out[f"{name} warps_per_sm=0"] = "answered"
    except ValueError as e:
        out[f"{name} warps_per_sm=0"] = "warps_per_sm must be a positive int" in str(e)
K = from_networkx(nx.complete_graph(10))
out["fewer warps than a block"] = all(
    int(mk.count_k_cliques(K, k, device="gpu", algorithm="listing", warps_per_sm=1, block_min=1)) == want
    for k, want in ((4, 210), (6, 210)))
out["k past the GPU's listing, auto"] = len(list(mk.k_cliques(nx.complete_graph(34), 33))) == 34
P = planted_cliques(40, 0.55, [12], seed=0)   # the bounds meet (12 = 12), density 0.6
want = mk.max_cliques(P, device="cpu")
out["omega known, half dense"] = mk.max_cliques(P, device="gpu") == want   # (builds the emulated kernels)
M = from_networkx(nx.complete_multipartite_graph(5, 5, 5, 5))   # density 0.79, omega 4: 625 ties
out["omega known, many ties"] = (mk.max_cliques(M, device="gpu") == mk.max_cliques(M, device="cpu")
                                 and len(mk.max_cliques(M, device="gpu")[1]) == 625)
S = planted_cliques(200, 0.03, [8, 8], seed=1)   # the bounds meet (8 = 8) on a sparse core
fake_cupy.calls.clear()
got = mk.max_cliques(S, device="gpu")
launched = {c for c in fake_cupy.calls if c.startswith("launch ")}
out["omega known, sparse: KCMiner lists the ties"] = (
    got == mk.max_cliques(S, device="cpu") and len(got[1]) == 2 and "launch kclique_kernel" in launched
    and not launched & {"launch level_count", "launch bnb_kernel", "launch greedy_kernel"})
S = planted_cliques(150, 0.02, [32, 32, 32], seed=4)   # omega 32 = kclique.KMAX, core density 0.46
out["omega known, sparse: KCMiner's largest k"] = (mk.max_cliques(S, device="gpu")
                                                  == mk.max_cliques(S, device="cpu"))
first_load, loaded = loader._load, set()

def slow_first_load(name, *args):   # a first compile slower than the time limit below
    if name == "geil.cu" and name not in loaded:
        loaded.add(name)
        time.sleep(3.0)
    return first_load(name, *args)

loader._load = slow_first_load
try:
    out["a first compile is not search time"] = mk.max_cliques(P, device="gpu", time_limit_s=2.5) == want
except TimeoutError:
    out["a first compile is not search time"] = False
b, prep, ids, start = geil._prepared(P, "gpu")
out["omega known, half dense: the ties depth first"] = (
    prep.run(listing=True, lower_clique=start, upper=b.upper).method == "dfs")
R = from_networkx(nx.gnp_random_graph(60, 0.4, seed=2))   # bounds 6 < 7: Geil searches
answers, called = [], []
for _ in range(2):   # cold, then warm
    fake_cupy.calls.clear()
    answers.append(mk.max_cliques(R, device="gpu"))
    called.append(set(fake_cupy.calls))
derive = {"launch greedy_kernel", "greater_equal", "cumsum", "flatnonzero"}   # start, pruning, level 2
out["a warm search keeps its start, pruning and first levels"] = (
    answers == [mk.max_cliques(R, device="cpu")] * 2 and "launch level_count" in called[1]
    and derive <= called[0] and not derive & called[1])
nx.config.backends.mce_kit.device = "cpu"
fake_cupy.calls.clear()
w = nx.max_weight_clique(H, weight=None, backend="mce_kit")[1]
out["backend's device for max_weight_clique"] = (w == len(clique)
                                                 and not any(c.startswith("launch") for c in fake_cupy.calls))
print(json.dumps(out))
"""


def test_edge_cases_of_the_gpu_route(tmp_path_factory):
    """Inputs the GPU route once took differently from the CPU route (found on the emulator or a device),
    and the max-clique ties rule."""
    out = json.loads(run_script(EDGES, tmp_path_factory.getbasetemp() / "fake_cupy").splitlines()[-1])
    assert out == {k: True for k in out} and len(out) == 15, out


SUBSETS = """
import json
import numpy as np
import networkx as nx
import mce_kit as mk
from mce_kit.gpu import cliquecount
from mce_kit.prepared import kept
from graph_families import from_networkx, random_bipartite

G = from_networkx(nx.powerlaw_cluster_graph(120, 5, 0.5, seed=4), "power-law cluster")
prep = kept(G, ("cliquecount",), lambda: cliquecount.Prepared(G))
n = len(prep.orient("degeneracy").u)
odd, even = np.arange(1, n, 2), np.arange(0, n, 2)
got = [prep.run(k_max=6, tasks=t).answer for t in (even, odd, even)]
whole = mk.clique_counts(G, 6, device="cpu")
twice = [mk.clique_counts(G, 6, device="gpu") for _ in range(2)]
print(json.dumps({"halves add up": all(got[0].get(k, 0) + got[1].get(k, 0) == whole[k] for k in range(3, 7)),
                  "a half again": got[2] == got[0], "every task, twice": twice == [whole] * 2}))
"""


def test_pivot_counts_of_task_subsets_in_turn(tmp_path_factory):
    """The pivot counter keeps its last leaf table's counts: subsets of one graph's tasks in turn (the
    tables differ) each get their own, and the two halves add up to the CPU's counts."""
    out = json.loads(run_script(SUBSETS, tmp_path_factory.getbasetemp() / "fake_cupy").splitlines()[-1])
    assert out == {k: True for k in out}, out


MIXED_GMBE = """
import json
import mce_kit as mk
from graph_families import random_bipartite

bad = []
for seed in range(3):
    B = random_bipartite(20 + 7 * seed, 12 + 5 * seed, 0.2 + 0.05 * seed, seed=seed)
    count = int(mk.count_maximal_bicliques(B, device="cpu"))
    listed = sorted((tuple(sorted(L)), tuple(sorted(R))) for L, R in mk.maximal_bicliques(B, device="cpu"))
    large = int(mk.count_maximal_bicliques(B, device="cpu", min_left=2, min_right=2))
    for kw in [{}, {}, "list", {"tau": 8}, {}, {"level": "gmbe+"}, "large",
               {"level": "warp", "union": "merge"}, "list", {"max_buffer_bytes": 4096}, {}]:
        if kw == "list":
            got, want = sorted((tuple(sorted(L)), tuple(sorted(R)))
                               for L, R in mk.maximal_bicliques(B, device="gpu")), listed
        elif kw == "large":
            got, want = int(mk.count_maximal_bicliques(B, device="gpu", min_left=2, min_right=2)), large
        else:
            got, want = int(mk.count_maximal_bicliques(B, device="gpu", **kw)), count
        if got != want:
            bad.append(f"seed {seed} {kw}: {str(got):.80} != {str(want):.80}")
print(json.dumps(bad))
"""


def test_kept_gmbe_plans_under_settings_that_differ(tmp_path_factory):
    """One bipartite graph's kept GMBE+ plans (one per setting) under public calls in turn: counts,
    listing, size floors, other levels and unions, a buffer cap that takes several passes."""
    out = run_script(MIXED_GMBE, tmp_path_factory.getbasetemp() / "fake_cupy")
    assert json.loads(out.splitlines()[-1]) == []


PICKLED = """
import io
import json
import pickle
import networkx as nx
import mce_kit as mk
import fake_cupy
from graph_families import from_networkx, random_bipartite

G = from_networkx(nx.powerlaw_cluster_graph(200, 5, 0.6, seed=3), "power-law cluster")
B = random_bipartite(40, 30, 0.15, seed=5)
calls = {"mce": lambda G: int(mk.count_maximal_cliques(G, device="gpu")),
         "listing": lambda G: int(mk.count_k_cliques(G, 4, device="gpu", algorithm="listing")),
         "pivot": lambda G: int(mk.count_k_cliques(G, 5, device="gpu", algorithm="pivot")),
         "maxclique": lambda G: mk.max_cliques(G, device="gpu")[0]}
answers = {what: [call(G), call(G)] for what, call in calls.items()}   # cold, then warm: plans kept
answers["mbe"] = [int(mk.count_maximal_bicliques(B, device="gpu")) for _ in range(2)]


class NoKernels(pickle.Pickler):
    def reducer_override(self, obj):
        if isinstance(obj, (fake_cupy._Function, fake_cupy._Module)):
            raise TypeError(f"a compiled {type(obj).__name__} in the pickle")
        return NotImplemented


found = []
for x in (G, B):
    try:
        NoKernels(io.BytesIO()).dump(x)
    except TypeError as e:
        found.append(str(e))
G2, B2 = pickle.loads(pickle.dumps(G)), pickle.loads(pickle.dumps(B))
for what, call in calls.items():
    answers[what].append(call(G2))
answers["mbe"].append(int(mk.count_maximal_bicliques(B2, device="gpu")))
print(json.dumps({"found": found, "answers": answers}))
"""


def test_a_pickled_graph_takes_no_compiled_kernel(tmp_path_factory):
    """A graph pickled after warm calls (a Dask worker's copy, or one saved for another process)
    carries its kept host state but no kept launch plan naming this process's compiled kernels (in
    another process their addresses mean nothing); the copy answers as the original."""
    got = json.loads(run_script(PICKLED, tmp_path_factory.getbasetemp() / "fake_cupy").splitlines()[-1])
    assert got["found"] == []
    for what, answers in got["answers"].items():
        assert len(set(answers)) == 1, (what, answers)
