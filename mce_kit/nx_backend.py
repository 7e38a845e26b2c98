"""mce_kit as a networkx backend: ``nx.find_cliques(G, backend="mce_kit")``.

Three ways in (networkx >= 3.2 finds us through the ``networkx.backends``
entry point in pyproject.toml):

    nx.find_cliques(H, backend="mce_kit")           # ask by name: converts H, runs here
    Hb = mk.nx_backend.as_backend_graph(H)          # a graph of ours: every call on it runs here
    nx.config.backend_priority.algos = ["mce_kit"]  # automatic: runs here where should_run says so

The backend graph wraps a ``mce_kit.Graph`` (the labels of H are kept), so a
converted graph goes to the GPU kernels or to the CPU engine (igraph's C
routines) without another copy. Both are immutable, so a converted graph keeps
what the GPU path derives from it (the launcher's prepared graph, the labels as
Python objects): the second ``nx.find_cliques(Hb)`` only launches and drains.
``can_run`` says what we implement (undirected graphs; ``max_weight_clique``
only with ``weight=None``); ``should_run`` keeps graphs with fewer than
``min_edges`` edges in networkx, and ``enumerate_all_cliques`` and
``large_clique_size`` (where networkx is not slower) unless asked by name.
Configuration: ``nx.config.backends.mce_kit.device`` ("auto", "cpu", "gpu";
default from ``$MCE_KIT_NX_DEVICE``) and ``.min_edges``.

Results have networkx's types: generators stay generators (lists of nodes),
``node_clique_number`` an int or dict, ``max_weight_clique`` (list, int),
``approximation.max_clique`` a set (an exact maximum clique is a valid answer),
``make_max_clique_graph`` a networkx graph, ``k_clique_communities`` frozensets.
"""

from __future__ import annotations

import inspect
import os
from collections import Counter, defaultdict
from itertools import chain, islice

import numpy as np

from .graph import Graph

NAME = "mce_kit"

# What networkx (3.2 .. 3.6) marks dispatchable and we implement; number_of_cliques is not dispatchable.
FUNCTIONS = (
    "find_cliques",
    "find_cliques_recursive",
    "enumerate_all_cliques",
    "node_clique_number",
    "max_weight_clique",
    "max_clique",
    "large_clique_size",
    "make_max_clique_graph",
    "k_clique_communities",
)
_ONLY_BY_NAME = {"enumerate_all_cliques", "large_clique_size"}
MIN_EDGES = 2000  # smaller graphs stay in networkx unless the backend is asked for by name

CALLS: Counter = Counter()  # implementation calls, by function name (see tests/test_nx_backend.py)
REFUSED: Counter = Counter()  # can_run said no, by (function, reason)


class BackendGraph:
    """A ``mce_kit.Graph`` dressed for networkx's dispatcher (``G.G`` is the Graph).

    Immutable, like the Graph it wraps (frozen, read-only arrays): ``G`` cannot be
    reassigned, so what is derived from it once (the GPU launcher's prepared graph, the
    labels as Python objects, the label index) is kept here and reused by every later
    call. The memo is keyed by the Graph object itself as well, so even a wrapper whose
    Graph were swapped behind our back would rebuild rather than answer from stale data."""

    __networkx_backend__ = NAME

    def __init__(self, G: Graph, *, nx_class=None, graph_attrs=None):
        if not isinstance(G, Graph):
            raise TypeError(f"BackendGraph wraps a mce_kit.Graph, got {type(G).__name__}")
        object.__setattr__(self, "_G", G)
        self.nx_class = nx_class  # the networkx class it came from (make_max_clique_graph's default)
        self.graph = dict(graph_attrs or {})
        self._memo_of, self._memo = None, {}

    @property
    def G(self) -> Graph:
        return self._G

    def __setattr__(self, name, value):
        if name in ("_G", "G"):
            raise AttributeError("a BackendGraph is immutable: convert the changed graph again")
        object.__setattr__(self, name, value)

    def memo(self, key, build):
        """``build(G)`` once per key for this graph's ``G`` (then the kept value)."""
        G = self._G
        if self._memo_of is not G:
            self._memo_of, self._memo = G, {}
        if key not in self._memo:
            self._memo[key] = build(G)
        return self._memo[key]

    # the little of networkx's graph API that decorators and our functions need
    def is_directed(self) -> bool:
        return False

    def is_multigraph(self) -> bool:
        return False

    def labels(self) -> list:
        G = self.G
        return list(range(G.n)) if G.labels is None else G.labels.tolist()

    def label_objects(self) -> np.ndarray:
        """The labels as a NumPy object array (``[ids].tolist()`` gives label lists without
        making a Python int per vertex of every clique)."""
        return self.memo("label objects", lambda G: _object_array(self.labels()))

    def index(self) -> dict:
        return self.memo("index", lambda G: {x: i for i, x in enumerate(self.labels())})

    def __contains__(self, node) -> bool:
        try:
            return node in self.index()
        except TypeError:
            return False

    def __iter__(self):
        return iter(self.labels())

    def __len__(self) -> int:
        return self.G.n

    def number_of_nodes(self) -> int:
        return self.G.n

    def number_of_edges(self) -> int:
        return self.G.m

    def __repr__(self) -> str:
        return f"BackendGraph({self.G!r})"


def _object_array(values: list) -> np.ndarray:
    return np.fromiter(values, dtype=object, count=len(values))  # one element per label, tuples too


# ---- conversions ----


def _graph_from_networkx(H) -> Graph:
    """CSR straight from H's adjacency dicts (self-loops and parallel edges dropped silently:
    cliques ignore them, as networkx's clique functions do)."""
    from .io import _label_array

    nodes = list(H)
    adj = getattr(H, "_adj", None) or H.adj
    deg = np.fromiter(map(len, adj.values()), np.int64, len(nodes))
    labels = _label_array(nodes) if nodes else None
    if labels is not None and labels.dtype == np.int64:  # int labels: map them with NumPy
        raw = np.fromiter(chain.from_iterable(adj.values()), np.int64, int(deg.sum()))
        dst = _positions_of(labels, raw)
    else:
        index = {x: i for i, x in enumerate(nodes)}
        dst = np.fromiter(map(index.__getitem__, chain.from_iterable(adj.values())), np.int64, int(deg.sum()))
    src = np.repeat(np.arange(len(nodes), dtype=np.int64), deg)
    return Graph.from_edges(len(nodes), src, dst, labels=labels, name=str(H.graph.get("name", "")))


def _positions_of(labels: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Index in ``labels`` (distinct ints) of each of ``values`` (all present)."""
    lo, hi = int(labels.min()), int(labels.max())
    if hi - lo < 4 * len(labels) + 1024:  # dense ids: a lookup table
        table = np.empty(hi - lo + 1, dtype=np.int64)
        table[labels - lo] = np.arange(len(labels))
        return table[values - lo]
    order = np.argsort(labels, kind="stable")
    return order[np.searchsorted(labels, values, sorter=order)]


def from_igraph(g) -> Graph:
    """An ``igraph.Graph`` as a Graph: vertex names (else ids) as labels, directed edges symmetrized."""
    from .io import _build, _label_array

    names = g.vs["name"] if "name" in g.vs.attributes() else list(range(g.vcount()))
    e = np.asarray(g.get_edgelist(), dtype=np.int64).reshape(-1, 2)
    mode = "directed" if g.is_directed() else "undirected"
    return _build(g.vcount(), e[:, 0], e[:, 1], mode, _label_array(names), "")


def convert_from_nx(G, *args, preserve_graph_attrs=False, **kwargs) -> BackendGraph:
    """A networkx graph as a BackendGraph (labels kept); a graph already ours is returned as is."""
    if isinstance(G, BackendGraph):
        return G
    graph_attrs = G.graph if preserve_graph_attrs else None
    return BackendGraph(_graph_from_networkx(G), nx_class=type(G), graph_attrs=graph_attrs)


def convert_to_nx(obj, *, name: str | None = None):
    """A BackendGraph as a networkx graph of the class it came from; other results unchanged."""
    if not isinstance(obj, BackendGraph):
        return obj
    import networkx as nx

    H = (obj.nx_class or nx.Graph)()
    H.graph.update(obj.graph)
    labels = obj.labels()
    H.add_nodes_from(labels)
    H.add_edges_from((labels[a], labels[b]) for a, b in obj.G.edges().tolist())
    return H


def as_backend_graph(x) -> BackendGraph:
    """Anything ``mce_kit.as_graph`` takes (a networkx or igraph graph, a file, a Graph) as a
    graph networkx dispatches to this backend by itself."""
    from .api import as_graph

    if isinstance(x, BackendGraph):
        return x
    if type(x).__module__.startswith("networkx"):
        return convert_from_nx(x, preserve_graph_attrs=True)
    return BackendGraph(as_graph(x))


# ---- configuration, can_run / should_run ----


def _config():
    import networkx as nx

    return nx.config.backends.get(NAME) or {}


def _device() -> str:
    return _config().get("device", "auto")


def _bound(name: str, args, kwargs):
    import networkx as nx

    func = nx.utils.backends._registered_algorithms[name].orig_func
    bound = inspect.signature(func).bind(*args, **kwargs)
    bound.apply_defaults()
    return bound.arguments


def can_run(name: str, args, kwargs):
    """True when we implement ``name`` for these arguments, else the reason (a string)."""
    if name not in FUNCTIONS:
        return f"mce_kit does not implement {name}"
    try:
        arguments = _bound(name, args, kwargs)
    except TypeError as e:
        return str(e)
    G = next(iter(arguments.values()))
    reason = None
    if not isinstance(G, BackendGraph) and getattr(G, "is_directed", lambda: False)():
        reason = "directed graphs: networkx's own semantics apply"
    elif name == "max_weight_clique" and arguments.get("weight") is not None:
        reason = "only weight=None (the maximum clique) is implemented"
    if reason:
        REFUSED[name, reason] += 1
        return reason
    return True


def should_run(name: str, args, kwargs):
    """Whether running here is worth a conversion: a graph of ours always; otherwise enough
    edges (``min_edges``) and a function where we beat networkx."""
    arguments = _bound(name, args, kwargs)
    G = next(iter(arguments.values()))
    if isinstance(G, BackendGraph):
        return True
    if name in _ONLY_BY_NAME:
        return f"networkx is not slower at {name}; ask for backend='mce_kit' by name"
    m = G.number_of_edges()
    least = _config().get("min_edges", MIN_EDGES)
    if m < least:
        return f"{m} edges: under min_edges={least}, networkx is as fast without the conversion"
    return True


# ---- the implementations ----


def _labels_of(Gb: BackendGraph):
    from .api import _labeler

    return _labeler(Gb.G.labels)


def _find(Gb: BackendGraph, nodes):
    from .api import find_cliques

    return find_cliques(Gb.G, None if nodes is None else list(nodes), device=_device())


BLOCK = 1 << 20  # cliques per block from the GPU


def _gpu_kernel(Gb: BackendGraph):
    """The RDMCE module when every maximal clique of ``Gb`` is asked for on the GPU, else None
    (no GPU under device="auto", device="cpu", or a graph without edges: no launch for that)."""
    from . import api

    if Gb.G.m == 0 or api._device(_device(), "maximal cliques", api._rdmce) != "gpu":
        return None
    return api._rdmce()


def _gpu_blocks(Gb: BackendGraph, kernel):
    """Per CSR block of the GPU's stream, reordered smallest clique first on the device: (the labels
    of its cliques end to end as one Python list, its runs ``[(size, count), ...]``), made with one
    NumPy take and one ``tolist``.

    The launcher's prepared graph (degeneracy order, CSR, seeds) is kept on ``Gb``, so a
    converted graph pays for it once, not once per call."""
    prep = Gb.memo(("prepared", kernel), kernel.prepare)
    labels = Gb.label_objects()
    for off, ver in prep.blocks(BLOCK, sizes_first=True):
        yield labels[ver].tolist(), _runs(off)


def _runs(offsets: np.ndarray) -> list[tuple[int, int]]:
    """(size, count) of each run of consecutive cliques of one size in a CSR block: one run per
    size when the block comes smallest first; right, if slower, in any order."""
    sizes = np.diff(offsets)
    if not len(sizes):
        return []
    starts = np.flatnonzero(np.concatenate(([True], sizes[1:] != sizes[:-1])))
    counts = np.diff(np.append(starts, len(sizes)))
    return list(zip(sizes[starts].tolist(), counts.tolist(), strict=True))


def _block_lists(vals: list, runs):
    """One list per clique of a block, in C: per run of size ``s``, ``zip`` over one iterator of
    ``vals`` groups ``s`` labels into a tuple and ``list`` makes it the clique (no Python code runs
    per clique; a run costs one step of this generator expression)."""
    it = iter(vals)
    return chain.from_iterable(map(list, islice(zip(*[it] * s, strict=False), c)) for s, c in runs)


def _cliques(Gb: BackendGraph, nodes):
    """The one generator behind find_cliques: on the GPU, the block lists of ``_block_lists``;
    else the API's iterator. Nothing runs (no check of ``nodes``, no launch) until the first
    clique is asked for."""
    kernel = _gpu_kernel(Gb) if nodes is None else None
    if kernel is None:
        yield from _find(Gb, nodes)
        return
    for vals, runs in _gpu_blocks(Gb, kernel):
        yield from _block_lists(vals, runs)


def find_cliques(G, nodes=None):
    """Maximal cliques, lazily, as networkx's generator (a bad ``nodes`` raises on first use)."""
    CALLS["find_cliques"] += 1
    return _cliques(G, nodes)


def find_cliques_recursive(G, nodes=None):
    """Maximal cliques (a bad ``nodes`` raises at once, as networkx's recursive version does)."""
    CALLS["find_cliques_recursive"] += 1
    if nodes is None:
        return _cliques(G, None)
    return iter(_find(G, nodes))


def enumerate_all_cliques(G):
    """Every clique, smallest first (size 1, then 2, ...), each size read off igraph's C
    routine one size at a time (the streaming oracle for a size with too many cliques)."""
    from . import cpu, engine

    CALLS["enumerate_all_cliques"] += 1
    g, label = G.G, _labels_of(G)
    for k in range(1, g.n + 1):
        found = engine.igraph_graph(g).cliques(min=k, max=k, max_results=engine.CAP) \
            if engine.available() else None
        if found is None or len(found) >= engine.CAP:
            found = cpu.k_cliques(g, k)
        empty = True
        for c in found:
            empty = False
            yield label(sorted(c))
        if empty:
            return


def node_clique_number(G, nodes=None, cliques=None, separate_nodes=False):
    """Size of the largest clique containing each node: an int for one node, else a dict."""
    from . import api

    CALLS["node_clique_number"] += 1
    if cliques is not None:  # networkx's own bookkeeping over the cliques given
        if nodes in G:
            return max(len(c) for c in cliques if nodes in c)
        size_for_n = defaultdict(int)
        for c in cliques:
            for n in c:
                size_for_n[n] = max(size_for_n[n], len(c))
        return size_for_n if nodes is None else {n: size_for_n[n] for n in nodes}
    if nodes is None:
        return defaultdict(int, api.node_clique_number(G.G, device=_device()))
    if nodes in G:
        return api.node_clique_number(G.G, [nodes], device=_device())[nodes]
    return api.node_clique_number(G.G, list(nodes), device=_device())


def _maximum_clique(G) -> list:
    from .api import max_cliques

    omega, found = max_cliques(G.G, device=_device())
    return list(found[0]) if found else []


def max_weight_clique(G, weight="weight"):
    """(a maximum clique, its size) for ``weight=None``; can_run refuses other weights."""
    CALLS["max_weight_clique"] += 1
    if weight is not None:
        raise NotImplementedError("mce_kit's max_weight_clique supports weight=None only")
    clique = _maximum_clique(G)
    return clique, len(clique)


def max_clique(G):
    """A maximum clique as a set (exact: at least as good as any approximation)."""
    CALLS["max_clique"] += 1
    return set(_maximum_clique(G))


def large_clique_size(G):
    """The clique number (exact: a valid 'large clique' size)."""
    from .api import clique_number

    CALLS["large_clique_size"] += 1
    return int(clique_number(G.G, device=_device()))


def _clique_incidence(cliques: list[list[int]], n: int):
    import scipy.sparse as sp

    sizes = np.fromiter(map(len, cliques), np.int64, len(cliques))
    cols = np.fromiter(chain.from_iterable(cliques), np.int64, int(sizes.sum()))
    rows = np.repeat(np.arange(len(cliques)), sizes)
    return sp.csr_array((np.ones(len(cols), np.int32), (rows, cols)), shape=(len(cliques), n))


def make_max_clique_graph(G, create_using=None):
    """Cliques as nodes 0..k-1 (in our enumeration order), joined when they share a node."""
    import networkx as nx

    CALLS["make_max_clique_graph"] += 1
    index = G.index()
    cliques = [[index[v] for v in c] for c in _cliques(G, None)]
    B = (G.nx_class or nx.Graph)() if create_using is None else nx.empty_graph(0, create_using)
    B.add_nodes_from(range(len(cliques)))
    if cliques:
        M = _clique_incidence(cliques, G.G.n)
        shared = (M @ M.T).tocoo()
        keep = shared.row < shared.col
        B.add_edges_from(zip(shared.row[keep].tolist(), shared.col[keep].tolist(), strict=True))
    return B


def k_clique_communities(G, k, cliques=None):
    """Clique percolation: unions of the maximal cliques with >= k nodes that chain through
    overlaps of >= k-1 nodes (the cliques come from our engine, filtered by size in C)."""
    import networkx as nx

    CALLS["k_clique_communities"] += 1
    if k < 2:
        raise nx.NetworkXError(f"k={k}, k must be greater than 1.")
    if cliques is None:
        from .api import find_cliques

        cliques = find_cliques(G.G, min_size=k, device=_device())
    cliques = [frozenset(c) for c in cliques if len(c) >= k]
    parent = list(range(len(cliques)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    members = defaultdict(list)
    for i, c in enumerate(cliques):
        for v in c:
            members[v].append(i)
    for i, c in enumerate(cliques):
        for j in {j for v in c for j in members[v] if j > i}:
            if len(c & cliques[j]) >= k - 1:
                parent[root(j)] = root(i)
    groups = defaultdict(list)
    for i in range(len(cliques)):
        groups[root(i)].append(cliques[i])
    for comp in groups.values():
        yield frozenset.union(*comp)


# ---- networkx's test-suite hook ----


def on_start_tests(items):
    """Called by networkx's conftest under ``--backend mce_kit``: record calls and fallbacks
    (to ``$MCE_KIT_NX_LOG``) and mark the tests that compare node numbering we do not share."""
    import pytest

    order_bound = {"test_make_max_clique_graph", "test_make_max_clique_graph_create_using"}
    for item in items:
        if item.name in order_bound and item.module.__name__.endswith("tests.test_clique"):
            item.add_marker(pytest.mark.xfail(
                reason="the clique graph numbers cliques in enumeration order; networkx's "
                       "test harness compares node ids exactly", strict=False))
    path = os.environ.get("MCE_KIT_NX_LOG")
    if path:
        _record_to(path)


def _record_to(path: str) -> None:
    import atexit
    import json
    import logging
    import re

    fallbacks: Counter = Counter()

    class Fallbacks(logging.Handler):
        def emit(self, record):
            msg = record.getMessage()
            if "falling back" in msg.lower():
                hit = re.search(r"(?:for call to|when calling) '(\w+)'", msg)
                fallbacks[hit.group(1) if hit else msg[:80]] += 1

    log = logging.getLogger("networkx.utils.backends")
    log.setLevel(logging.DEBUG)
    log.addHandler(Fallbacks(logging.DEBUG))

    def dump():
        with open(path, "w") as f:
            json.dump({"calls": dict(CALLS), "fallbacks": dict(fallbacks),
                       "refused": [[n, r, c] for (n, r), c in REFUSED.items()]}, f, indent=1)

    atexit.register(dump)


ENTRY_POINTS = f"""[networkx.backends]
{NAME} = mce_kit.nx_backend:BackendInterface

[networkx.backend_info]
{NAME} = mce_kit.nx_backend:backend_info
"""
_SHIM: list = []


def register():
    """Make networkx list this backend where the installed metadata predates its entry points
    (an old editable install, or a checkout copied to a GPU box without pip).

    Writes a minimal ``*.dist-info`` holding our two entry points to a temporary folder on
    ``sys.path`` and tells an already imported networkx, as networkx's conftest does for its
    test backend. A no-op when ``pip install`` registered us. Returns that folder (for a
    subprocess's PYTHONPATH), or None."""
    import importlib
    import sys
    import tempfile
    from importlib.metadata import entry_points
    from pathlib import Path

    if not _SHIM and not entry_points(group="networkx.backends", name=NAME):
        root = Path(tempfile.mkdtemp(prefix="mce_kit_nx_entry_points_"))
        info = root / "mce_kit_nx_entry_points-0.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mce_kit_nx_entry_points\nVersion: 0.0\n")
        (info / "entry_points.txt").write_text(ENTRY_POINTS)
        sys.path.append(str(root))
        importlib.invalidate_caches()
        _SHIM.append(root)
    import networkx as nx
    from networkx.utils import backends

    if NAME not in backends.backends:
        backends.backends.update(backends._get_backends("networkx.backends"))
        info = backends._get_backends("networkx.backend_info", load_and_call=True)
        backends.backend_info.update(info)
        config = nx.utils.Config(**info[NAME]["default_config"])
        nx.config.backends = nx.utils.Config(**{NAME: config}, **nx.config.backends)
        backends._dispatchable.__call__ = backends._dispatchable._call_if_any_backends_installed
    return _SHIM[0] if _SHIM else None


def backend_info() -> dict:
    """The ``networkx.backend_info`` entry point: what networkx shows in its docs and config."""
    summary = "Maximal, maximum and k-clique algorithms on the GPU (CuPy) or igraph's C routines"
    return {
        "backend_name": NAME,
        "project": "mce_kit",
        "package": "mce_kit",
        "url": "https://github.com/mce-kit/mce_kit",
        "short_summary": summary,
        "default_config": {"device": os.environ.get("MCE_KIT_NX_DEVICE", "auto"), "min_edges": MIN_EDGES},
        "functions": {name: {} for name in FUNCTIONS},
    }


class BackendInterface:
    """The object the ``networkx.backends`` entry point names: conversions, can_run/should_run,
    the test hook and one attribute per implemented function (nothing else, so networkx's
    ``hasattr`` checks see exactly what we implement)."""

    convert_from_nx = staticmethod(convert_from_nx)
    convert_to_nx = staticmethod(convert_to_nx)
    can_run = staticmethod(can_run)
    should_run = staticmethod(should_run)
    on_start_tests = staticmethod(on_start_tests)
    find_cliques = staticmethod(find_cliques)
    find_cliques_recursive = staticmethod(find_cliques_recursive)
    enumerate_all_cliques = staticmethod(enumerate_all_cliques)
    node_clique_number = staticmethod(node_clique_number)
    max_weight_clique = staticmethod(max_weight_clique)
    max_clique = staticmethod(max_clique)
    large_clique_size = staticmethod(large_clique_size)
    make_max_clique_graph = staticmethod(make_max_clique_graph)
    k_clique_communities = staticmethod(k_clique_communities)
