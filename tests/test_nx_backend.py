"""mce_kit as a networkx backend: registration, the three ways in, networkx's return types,
answers against networkx on random graphs, and networkx's own clique tests run on our backend."""

import inspect
import json
import os
import re
import subprocess
import sys
import tomllib
from collections import defaultdict
from pathlib import Path

import networkx as nx
import pytest
from nx_shim import ENTRY_POINTS, ensure_registered

import mce_kit as mk
from mce_kit import datasets, nx_backend
from mce_kit.nx_backend import CALLS, FUNCTIONS, BackendGraph, as_backend_graph

REPO = Path(__file__).resolve().parents[1]
NX_TESTS = (
    "algorithms/tests/test_clique.py",
    "algorithms/tests/test_max_weight_clique.py",
    "algorithms/approximation/tests/test_clique.py",
    "algorithms/community/tests/test_kclique.py",
)


@pytest.fixture(scope="module", autouse=True)
def registered():
    ensure_registered()


@pytest.fixture
def priority():
    """Automatic dispatch to mce_kit for the duration of a test."""
    old = (list(nx.config.backend_priority.algos), list(nx.config.backend_priority.generators))
    nx.config.backend_priority.algos = ["mce_kit"]
    nx.config.backend_priority.generators = ["mce_kit"]
    yield
    nx.config.backend_priority.algos, nx.config.backend_priority.generators = old


def canon(cliques):
    return sorted(sorted(map(str, c)) for c in cliques)


def test_registered_and_claims_only_dispatchable_functions():
    assert "mce_kit" in nx.utils.backends.backends
    info = nx.utils.backends.backend_info["mce_kit"]
    assert set(info["functions"]) == set(FUNCTIONS)
    assert info["default_config"]["min_edges"] == nx_backend.MIN_EDGES
    registered = nx.utils.backends._registered_algorithms
    assert all(name in registered for name in FUNCTIONS)
    assert "number_of_cliques" not in registered  # not dispatchable: on mk's API instead
    for name in FUNCTIONS:
        ours = inspect.signature(getattr(nx_backend.BackendInterface, name))
        theirs = inspect.signature(registered[name].orig_func)
        assert list(ours.parameters) == list(theirs.parameters), name


def test_pyproject_declares_the_entry_points():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    eps = project["entry-points"]
    assert eps["networkx.backends"] == {"mce_kit": "mce_kit.nx_backend:BackendInterface"}
    assert eps["networkx.backend_info"] == {"mce_kit": "mce_kit.nx_backend:backend_info"}
    for group, table in eps.items():
        assert f"[{group}]" in ENTRY_POINTS and f"mce_kit = {table['mce_kit']}" in ENTRY_POINTS
    assert any(d.startswith("igraph") for d in project["dependencies"])


def test_conversions_keep_labels_and_never_copy_our_graph():
    H = nx.les_miserables_graph()
    H.add_edge("Valjean", "Valjean")  # a self-loop: ignored, as networkx's clique functions do
    Hb = nx_backend.convert_from_nx(H)
    assert isinstance(Hb, BackendGraph) and Hb.__networkx_backend__ == "mce_kit"
    assert nx_backend.convert_from_nx(Hb) is Hb and as_backend_graph(Hb) is Hb
    assert set(Hb) == set(H) and len(Hb) == len(H) and "Valjean" in Hb and ["x"] not in Hb
    back = nx_backend.convert_to_nx(Hb)
    assert set(back) == set(H) and {frozenset(e) for e in back.edges} == {
        frozenset(e) for e in H.edges if e[0] != e[1]}
    assert nx_backend.convert_to_nx(42) == 42
    kinds = ([10**12, -5, 7, 3, 0], [4, 0, 2, 1, 3], ["b", "a", "c", "e", "d"],
             [("t", 1), 2, "s", 3.5, frozenset({1})])
    for labels in kinds:
        S = nx.relabel_nodes(nx.house_x_graph(), dict(enumerate(labels)))
        assert canon(nx.find_cliques(S, backend="mce_kit")) == canon(nx.find_cliques(S)), labels
        back = nx_backend.convert_to_nx(nx_backend.convert_from_nx(S))
        assert list(back) == list(S) and nx.utils.edges_equal(back.edges, S.edges)
    D = nx_backend.convert_to_nx(nx_backend.convert_from_nx(nx.MultiGraph([(1, 2), (1, 2)])))
    assert type(D) is nx.MultiGraph and D.number_of_edges() == 1


def test_three_ways_in(priority):
    H = nx.karate_club_graph()
    want = canon(nx.find_cliques(H, backend="networkx"))
    before = CALLS["find_cliques"]
    assert canon(nx.find_cliques(H, backend="mce_kit")) == want  # 1. by name
    assert canon(nx.find_cliques(as_backend_graph(H))) == want  # 2. a graph of ours
    assert CALLS["find_cliques"] == before + 2
    assert canon(nx.find_cliques(H)) == want  # 3. automatic: 78 edges stay in networkx
    assert CALLS["find_cliques"] == before + 2
    big = datasets.load("CA-GrQc").to_networkx()
    assert big.number_of_edges() > nx_backend.MIN_EDGES
    assert sum(1 for _ in nx.find_cliques(big)) == mk.count_maximal_cliques(big)
    assert CALLS["find_cliques"] == before + 3
    assert nx_backend.should_run("enumerate_all_cliques", (big,), {}) is not True  # only by name
    assert nx_backend.should_run("find_cliques", (H,), {}) is not True


def test_can_run_is_honest():
    H = nx.karate_club_graph()
    assert nx_backend.can_run("find_cliques", (H,), {"nodes": [0]}) is True
    assert isinstance(nx_backend.can_run("max_weight_clique", (H,), {}), str)  # weight="weight"
    assert nx_backend.can_run("max_weight_clique", (H,), {"weight": None}) is True
    assert isinstance(nx_backend.can_run("k_clique_communities", (H.to_directed(), 3), {}), str)
    assert isinstance(nx_backend.can_run("pagerank", (H,), {}), str)
    with pytest.raises(NotImplementedError):
        nx.max_weight_clique(H, backend="mce_kit")


def test_return_types_are_networkx_types():
    H = nx.karate_club_graph()
    gen = nx.find_cliques(H, [0, 33], backend="mce_kit")
    assert inspect.isgenerator(gen)
    with pytest.raises(ValueError, match="do not form a clique"):
        next(gen)  # lazy, as networkx's generator
    with pytest.raises(ValueError):
        nx.find_cliques_recursive(H, [0, 33], backend="mce_kit")
    assert inspect.isgenerator(nx.enumerate_all_cliques(H, backend="mce_kit"))
    assert inspect.isgenerator(nx.community.k_clique_communities(H, 3, backend="mce_kit"))
    ncn = nx.node_clique_number(H, backend="mce_kit")
    assert type(ncn) is defaultdict and ncn == nx.node_clique_number(H)
    assert nx.node_clique_number(H, 0, backend="mce_kit") == nx.node_clique_number(H, 0)
    assert type(nx.node_clique_number(H, 0, backend="mce_kit")) is int
    assert nx.node_clique_number(H, [0, 5], backend="mce_kit") == nx.node_clique_number(H, [0, 5])
    clique, weight = nx.max_weight_clique(H, weight=None, backend="mce_kit")
    assert type(clique) is list and type(weight) is int and weight == len(clique) == 5
    assert all(H.has_edge(u, v) for u in clique for v in clique if u != v)
    mc = nx.approximation.max_clique(H, backend="mce_kit")
    assert type(mc) is set and len(mc) == 5
    assert nx.approximation.large_clique_size(H, backend="mce_kit") == 5
    C = nx.make_max_clique_graph(H, backend="mce_kit")
    assert type(C) is nx.Graph and nx.is_isomorphic(C, nx.make_max_clique_graph(H))
    for c in nx.find_cliques(H, backend="mce_kit"):
        assert type(c) is list and all(type(v) is int for v in c)


@pytest.mark.parametrize("seed", range(20))
def test_answers_match_networkx_on_random_graphs(seed):
    n, p = (25, 0.3) if seed % 2 else (60, 0.12)
    H = nx.gnp_random_graph(n, p, seed=seed)
    H.add_nodes_from(["iso", ("tuple", 1)])
    kw = {"backend": "mce_kit"}
    assert canon(nx.find_cliques(H, **kw)) == canon(nx.find_cliques(H))
    assert canon(nx.find_cliques_recursive(H, **kw)) == canon(nx.find_cliques(H))
    ours = list(nx.enumerate_all_cliques(H, **kw))
    assert [len(c) for c in ours] == sorted(len(c) for c in ours)
    assert canon(ours) == canon(nx.enumerate_all_cliques(H))
    assert nx.node_clique_number(H, **kw) == nx.node_clique_number(H)
    assert nx.node_clique_number(H, ("tuple", 1), **kw) == 1
    for k in (2, 3, 4):
        assert set(nx.community.k_clique_communities(H, k, **kw)) == set(
            nx.community.k_clique_communities(H, k))
    omega = max(map(len, nx.find_cliques(H)))
    assert nx.max_weight_clique(H, weight=None, **kw)[1] == omega
    assert nx.approximation.large_clique_size(H, **kw) == omega
    assert nx.is_isomorphic(nx.make_max_clique_graph(H, **kw), nx.make_max_clique_graph(H))
    clique = max(nx.find_cliques(H), key=len)
    assert canon(nx.find_cliques(H, clique[:2], **kw)) == canon(nx.find_cliques(H, clique[:2]))


# ---- networkx's own clique tests, run with --backend mce_kit ----


def run_networkx_tests(device: str, tmp_path: Path) -> dict:
    """Run networkx's clique test modules on our backend in a fresh interpreter; returns the
    pytest outcome counts and what dispatched to us (saved to build/nx_backend_tests_DEVICE.json)."""
    root = Path(nx.__file__).parent
    log = tmp_path / "dispatch.json"
    shim = ensure_registered()
    path = [str(REPO), *([str(shim)] if shim else []), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, path)), "MCE_KIT_NX_LOG": str(log),
           "MCE_KIT_NX_DEVICE": device}
    cmd = [sys.executable, "-m", "pytest", f"--rootdir={root}", *(str(root / t) for t in NX_TESTS),
           "--backend", "mce_kit", "--fallback-to-nx", "-p", "no:cacheprovider", "-q", "-rfEX",
           "--log-level=WARNING", "-o", "addopts="]
    done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    out = done.stdout + done.stderr
    summary = out.strip().splitlines()[-1] if out.strip() else ""
    outcomes = r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed)"
    counts = {word: int(num) for num, word in re.findall(outcomes, summary)}
    record = {"device": device, "returncode": done.returncode, "summary": summary, "counts": counts,
              **(json.loads(log.read_text()) if log.exists() else {})}
    (REPO / "build").mkdir(exist_ok=True)
    (REPO / "build" / f"nx_backend_tests_{device}.json").write_text(json.dumps(record, indent=1))
    assert done.returncode == 0, out[-4000:]
    return record


def check_dispatch(record: dict) -> None:
    counts = record["counts"]
    assert counts.get("passed", 0) + counts.get("xpassed", 0) >= 30 and not counts.get("failed")
    assert not counts.get("error") and not counts.get("errors")
    # every function we claim ran here, and none fell back except where can_run said why
    assert {name for name, c in record["calls"].items() if c} == set(FUNCTIONS)
    refused: dict = {}
    for name, _, c in record["refused"]:
        refused[name] = refused.get(name, 0) + c
    for name in FUNCTIONS:
        assert record["fallbacks"].get(name, 0) == refused.get(name, 0), name
    assert set(refused) <= {"max_weight_clique"}  # weighted calls only: weight=None is ours


def test_networkx_clique_tests_pass_on_the_cpu_path(tmp_path):
    check_dispatch(run_networkx_tests("cpu", tmp_path))


@pytest.mark.gpu
@pytest.mark.skipif(not mk.has_gpu(), reason="needs a CUDA GPU")
def test_networkx_clique_tests_pass_on_the_gpu(tmp_path):
    check_dispatch(run_networkx_tests("gpu", tmp_path))


class StandInKernel:
    """The RDMCE module's shape with CPU answers: checks the backend's GPU path without a GPU."""

    DEFAULTS = {"tau": 24}
    calls = 0  # streams started (module-level calls from the API and Prepared.blocks from the backend)
    prepares = 0

    @classmethod
    def maximal_clique_blocks(cls, G, block_size=1 << 20, *, min_size=None, max_size=None, **params):
        from mce_kit import api, cpu

        cls.calls += 1
        return api._pack_blocks(cpu.maximal_cliques(G, min_size=min_size, max_size=max_size), block_size)

    @classmethod
    def prepare(cls, G):
        cls.prepares += 1
        return StandInPrepared(G)


class StandInPrepared:
    def __init__(self, G):
        self.G = G

    def blocks(self, block_size=1 << 20, sizes_first=False, **kw):
        import numpy as np

        from mce_kit.gpu.rdmce import sizes_first as reorder

        found = StandInKernel.maximal_clique_blocks(self.G, block_size, **kw)
        return (reorder(np, off, ver) for off, ver in found) if sizes_first else found


@pytest.fixture
def stand_in_gpu(monkeypatch):
    import mce_kit.api as api

    monkeypatch.setattr("mce_kit.gpu.has_gpu", lambda: True)
    monkeypatch.setattr(api, "_rdmce", lambda: StandInKernel)
    monkeypatch.setattr(nx.config.backends.mce_kit, "device", "gpu")
    monkeypatch.setattr(nx_backend, "BLOCK", 7)  # several blocks even on small graphs
    StandInKernel.calls = StandInKernel.prepares = 0
    return StandInKernel


def test_gpu_device_setting_uses_the_kernel(stand_in_gpu):
    H = nx.karate_club_graph()
    H.add_nodes_from(["iso", "lone"])
    kw = {"backend": "mce_kit"}
    assert canon(nx.find_cliques(H, **kw)) == canon(nx.find_cliques(H))
    assert canon(nx.find_cliques(H, [0, 1], **kw)) == canon(nx.find_cliques(H, [0, 1]))
    assert nx.node_clique_number(H, **kw) == nx.node_clique_number(H)
    assert set(nx.community.k_clique_communities(H, 4, **kw)) == set(nx.community.k_clique_communities(H, 4))
    assert nx.is_isomorphic(nx.make_max_clique_graph(H, **kw), nx.make_max_clique_graph(H))
    assert StandInKernel.calls == 5
    assert canon(nx.find_cliques(nx.empty_graph(4), **kw)) == [["0"], ["1"], ["2"], ["3"]]  # no launch
    assert StandInKernel.calls == 5


def random_graph(seed: int, labels: str):
    n, p = (40, 0.25) if seed % 2 else (70, 0.1)
    H = nx.gnp_random_graph(n, p, seed=seed)
    H.add_nodes_from([n, n + 1])  # isolated vertices: cliques of size 1 the kernel never sees
    if labels == "str":
        H = nx.relabel_nodes(H, {v: f"v{v}" for v in H})
    elif labels == "mixed":
        H = nx.relabel_nodes(H, {v: (v if v % 3 else ("t", v)) for v in H})
    elif labels == "shifted":
        H = nx.relabel_nodes(H, {v: 10**12 - 7 * v for v in H})
    return H


@pytest.mark.parametrize("labels", ["int", "str", "mixed", "shifted"])
@pytest.mark.parametrize("seed", range(4))
def test_prepared_graph_is_built_once_per_converted_graph(stand_in_gpu, seed, labels):
    H = random_graph(seed, labels)
    want = canon(nx.find_cliques(H))
    Hb = as_backend_graph(H)
    gens = [nx.find_cliques(Hb) for _ in range(3)]
    assert stand_in_gpu.prepares == 0 and all(inspect.isgenerator(g) for g in gens)  # lazy: nothing ran
    for g in gens:
        got = list(g)
        assert canon(got) == want and all(type(c) is list for c in got)
        assert len(got) == len(want)
    assert canon(nx.find_cliques_recursive(Hb)) == want
    assert stand_in_gpu.prepares == 1 and stand_in_gpu.calls == 4  # one preparation, four streams
    for c in want[:3]:  # nodes= is answered exactly (the subgraph of common neighbours, not the cache)
        node = next(v for v in H if str(v) == c[0])
        assert canon(nx.find_cliques(Hb, [node])) == canon(nx.find_cliques(H, [node]))
    assert stand_in_gpu.prepares == 1
    # a second conversion is a new graph: its own preparation, the same answers
    assert canon(nx.find_cliques(as_backend_graph(H))) == want and stand_in_gpu.prepares == 2


def test_cached_preparation_never_outlives_its_graph(stand_in_gpu):
    H = random_graph(1, "int")
    Hb = as_backend_graph(H)
    assert canon(nx.find_cliques(Hb)) == canon(nx.find_cliques(H))
    with pytest.raises(AttributeError, match="immutable"):
        Hb.G = as_backend_graph(nx.complete_graph(3)).G
    with pytest.raises(ValueError):
        Hb.G.indices[0] = 1  # the wrapped Graph's arrays are read-only
    # the memo is keyed by the Graph object: a swap that got past the guard still rebuilds
    other = as_backend_graph(nx.complete_graph(5)).G
    object.__setattr__(Hb, "_G", other)
    assert canon(nx.find_cliques(Hb)) == [[str(v) for v in range(5)]]
    assert stand_in_gpu.prepares == 2
    # end to end from an nx.Graph: networkx caches the converted graph (and with it our
    # preparation) until H changes; a change converts again and the answer follows it
    nx.config.cache_converted_graphs, old = True, nx.config.cache_converted_graphs
    try:
        H = random_graph(2, "int")
        first = canon(nx.find_cliques(H, backend="mce_kit"))
        assert canon(nx.find_cliques(H, backend="mce_kit")) == first == canon(nx.find_cliques(H))
        assert stand_in_gpu.prepares == 3
        u, v = next((u, v) for u in H for v in H if u < v and not H.has_edge(u, v) and H.degree(u) > 2)
        H.add_edge(u, v)
        after = canon(nx.find_cliques(H, backend="mce_kit"))
        assert after == canon(nx.find_cliques(H)) and after != first and stand_in_gpu.prepares == 4
    finally:
        nx.config.cache_converted_graphs = old


def random_blocks(rng, k: int, start: int = 0):
    """A CSR block of ``k`` cliques of random sizes 1..12 in random order; its offsets start at
    ``start`` (a view into a launch's CSR), its vertices at the block's first vertex."""
    import numpy as np

    sizes = rng.integers(1, 13, size=k)
    off = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64) + start
    return off, rng.integers(0, 10**6, size=int(sizes.sum())).astype(np.int32)


@pytest.mark.parametrize("seed", range(6))
def test_sizes_first_reorders_whole_cliques_smallest_first(seed):
    import numpy as np

    from mce_kit.gpu.rdmce import sizes_first

    rng = np.random.default_rng(seed)
    for k, start in ((0, 0), (1, 0), (1, 5), (200, 0), (200, 3), (3000, 0)):
        off, ver = random_blocks(rng, k, start)
        new_off, new_ver = sizes_first(np, off, ver)
        sizes, new_sizes = np.diff(off), np.diff(new_off)
        assert new_off[0] == 0 and new_off[-1] == len(new_ver) == len(ver) and (np.diff(new_sizes) >= 0).all()
        before = [ver[a:b].tolist() for a, b in zip(off[:-1] - start, off[1:] - start, strict=True)]
        after = [new_ver[a:b].tolist() for a, b in zip(new_off[:-1], new_off[1:], strict=True)]
        # the same cliques, each with its vertices in their order; equal sizes keep their order
        assert after == [before[i] for i in np.argsort(sizes, kind="stable")]


@pytest.mark.parametrize("sort", [False, True])
def test_block_lists_cut_a_block_exactly(sort):
    import numpy as np

    from mce_kit.gpu.rdmce import sizes_first

    rng = np.random.default_rng(7)
    for k in (0, 1, 2, 50, 2000):
        off, ver = random_blocks(rng, k)
        if sort:
            off, ver = sizes_first(np, off, ver)
        vals = [f"v{x}" for x in ver.tolist()]
        runs = nx_backend._runs(off)
        assert sum(c for _, c in runs) == k and sum(s * c for s, c in runs) == len(vals)
        if sort:
            assert len(runs) == len(set(np.diff(off).tolist()))  # one run per size
        got = list(nx_backend._block_lists(vals, runs))
        assert got == [vals[a:b] for a, b in zip(off[:-1], off[1:], strict=True)]
        assert all(type(c) is list for c in got)


def test_cpu_path_never_prepares_for_the_gpu(monkeypatch):
    import mce_kit.api as api

    monkeypatch.setattr(api, "_rdmce", lambda: StandInKernel)
    monkeypatch.setattr(nx.config.backends.mce_kit, "device", "cpu")
    StandInKernel.calls = StandInKernel.prepares = 0
    H = random_graph(3, "str")
    assert canon(nx.find_cliques(as_backend_graph(H))) == canon(nx.find_cliques(H))
    assert StandInKernel.prepares == StandInKernel.calls == 0


# ---- the real GPU path with the prepared graph kept on the backend graph ----


@pytest.mark.gpu
@pytest.mark.skipif(not mk.has_gpu(), reason="needs a CUDA GPU")
def test_gpu_cached_path_matches_networkx_on_random_graphs(monkeypatch):
    from graph_families import random_nx_graphs

    monkeypatch.setattr(nx.config.backends.mce_kit, "device", "gpu")
    for i, H in enumerate(random_nx_graphs(96, seed=18)):
        if i % 3 == 1:  # string labels; every third graph also gets isolated vertices
            H = nx.relabel_nodes(H, {v: f"v{v}" for v in H})
        if i % 3 == 2:
            H.add_nodes_from(["iso", ("t", 1)])
        want = canon(nx.find_cliques(H))
        Hb = as_backend_graph(H)
        for _ in range(2):  # the second call runs on the kept preparation
            assert canon(nx.find_cliques(Hb)) == want, (i, H)
        if H.number_of_edges():
            node = max(H, key=H.degree)
            assert canon(nx.find_cliques(Hb, [node])) == canon(nx.find_cliques(H, [node])), i


@pytest.mark.gpu
@pytest.mark.skipif(not mk.has_gpu(), reason="needs a CUDA GPU")
def test_gpu_sizes_first_blocks_hold_the_same_cliques():
    import numpy as np
    from graph_families import random_nx_graphs

    from mce_kit.api import as_graph
    from mce_kit.gpu import rdmce

    def cliques(blocks, sorted_sizes):
        out = []
        for off, ver in blocks:
            assert off[0] == 0 and not (sorted_sizes and (np.diff(np.diff(off)) < 0).any())
            out += [tuple(ver[a:b].tolist()) for a, b in zip(off[:-1], off[1:], strict=True)]
        return sorted(out)

    prep = rdmce.prepare(datasets.load("CA-GrQc"))  # one launch, blocks of 1000 cliques
    want = cliques(prep.blocks(1000), False)
    assert cliques(prep.blocks(1000, sizes_first=True), True) == want
    for H in random_nx_graphs(16, seed=5):  # a tiny ring: many launches, many blocks
        if not H.number_of_edges():  # the backend launches nothing for these
            continue
        prep = rdmce.prepare(as_graph(H))
        small = {"ring_words": 1, "chunk_words": rdmce.min_chunk_words(prep.d)}
        want = cliques(prep.blocks(7, **small), False)
        assert cliques(prep.blocks(7, sizes_first=True, **small), True) == want
        assert cliques(prep.blocks(1 << 20, sizes_first=True), True) == want
        got = [(o.get(), v.get()) for o, v in prep.blocks(7, sizes_first=True, as_cupy=True, **small)]
        assert cliques(got, True) == want


@pytest.mark.gpu
@pytest.mark.skipif(not mk.has_gpu(), reason="needs a CUDA GPU")
def test_gpu_cached_path_exact_on_bundled_graphs_ten_runs(monkeypatch):
    from mce_kit import engine, references

    monkeypatch.setattr(nx.config.backends.mce_kit, "device", "gpu")
    for name in ("CA-GrQc", "email-Eu-core", "wiki-Vote"):
        G = datasets.load(name)
        Hb = as_backend_graph(G.to_networkx())
        want = references.expected("mce", name)
        counts = [sum(1 for _ in nx.find_cliques(Hb)) for _ in range(10)]
        assert counts == [want] * 10, (name, counts)
        label = G.labels.tolist()
        oracle = {frozenset(label[v] for v in c) for c in engine.maximal_cliques(G, None, None)}
        assert {frozenset(c) for c in nx.find_cliques(Hb)} == oracle, name
