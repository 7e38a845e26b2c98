"""The public API: networkx/igraph-style calls on original labels, on CPU or GPU.

Every function takes a ``Graph`` or anything ``load_graph`` accepts (a path,
a networkx graph, a SciPy sparse matrix); the biclique functions take a
``BipartiteGraph`` or anything ``load_bipartite`` accepts. Results use the
original vertex labels. Counts come back as ``Count``: an int that also
records which device ran, how long it took and with which parameters.

``device`` is "auto" (the GPU when there is one and the problem has a GPU
kernel, else the CPU), "cpu" or "gpu". Extra keyword ``params`` are the GPU
kernel's tuning knobs (e.g. ``tau``): an unknown name raises TypeError, and a
knob given where the CPU runs gives one warning naming it. On the CPU the
maximal-clique calls run igraph's C routines (``mce_kit.engine``); the Python
oracles (``mce_kit.cpu``) check them. ``progress=True`` runs the oracle instead
and shows a tqdm bar on stderr over its roots (or pass a wrapper).
"""

from __future__ import annotations

import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from . import cpu, engine
from .graph import BipartiteGraph, Graph

DEVICES = ("auto", "cpu", "gpu")


class Count(int):
    """An int that remembers where it came from: ``.device``, ``.seconds``, ``.params``.

    It compares, hashes and computes like the plain int; arithmetic returns plain ints.
    """

    def __new__(cls, value: int, device: str = "cpu", seconds: float = 0.0, params: dict | None = None):
        self = super().__new__(cls, value)
        self.device, self.seconds, self.params = device, float(seconds), dict(params or {})
        return self

    def __repr__(self) -> str:
        return f"Count({int(self)}, device={self.device!r}, seconds={self.seconds:.3g})"

    __str__ = int.__repr__


# ---- inputs, labels, devices ----


def as_graph(x) -> Graph:
    """x itself if it is a Graph, the Graph inside a networkx backend graph of ours,
    an ``igraph.Graph`` (vertex names, else ids, as labels), else ``load_graph(x)``."""
    if isinstance(x, Graph):
        return x
    if isinstance(x, BipartiteGraph):
        raise TypeError("got a BipartiteGraph; use the biclique functions or mce_kit.io.as_general_graph")
    backend = getattr(x, "__networkx_backend__", None)
    if backend == "mce_kit":
        return x.G
    if backend not in (None, "networkx"):
        raise TypeError(f"cannot use a graph of networkx backend {backend!r}; convert it to networkx first")
    if type(x).__module__.split(".")[0] == "igraph":
        from .nx_backend import from_igraph

        return from_igraph(x)
    from .io import load_graph

    return load_graph(x)


def as_bipartite(x) -> BipartiteGraph:
    """x itself if it is a BipartiteGraph, else ``load_bipartite(x)``."""
    if isinstance(x, BipartiteGraph):
        return x
    from .io import load_bipartite

    return load_bipartite(x)


def _labeler(labels) -> Callable[[Iterable[int]], list]:
    if labels is None:
        return lambda c: [int(v) for v in c]
    if labels.dtype.kind in "iu" and len(labels) and labels[0] == 0 and labels[-1] == len(labels) - 1 \
            and (labels == range(len(labels))).all():
        return list  # labels are the ids themselves (the engine and oracle give Python ints)
    get = labels.tolist().__getitem__
    return lambda c: list(map(get, c))


def _rdmce():
    """The RDMCE GPU module, or None while it cannot be imported."""
    try:
        from .gpu import rdmce
    except ImportError:
        return None
    return rdmce


def _device(device: str, problem: str, kernel: Callable | None = None) -> str:
    """'cpu' or 'gpu' for ``problem``. ``kernel`` returns the GPU module (None while it
    cannot be imported); it is None itself for problems without a GPU kernel."""
    if device not in DEVICES:
        raise ValueError(f"device must be 'auto', 'cpu' or 'gpu', got {device!r}")
    if device == "cpu":
        return "cpu"
    if kernel is None:
        if device == "gpu":
            raise NotImplementedError(f"no GPU kernel for {problem} yet; use device='cpu'")
        return "cpu"
    from . import gpu

    if gpu.has_gpu() and kernel() is not None:
        return "gpu"
    if device == "auto":
        return "cpu"
    if not gpu.has_gpu():
        gpu.require_gpu()  # raises, naming the reason
        why = "has_gpu() is False"
    else:
        why = f"the {problem} kernel cannot be imported"
    raise RuntimeError(f"device='gpu' but no usable CUDA GPU: {why}")


def _knobs(kernel: Callable | None) -> tuple:
    """The tuning knobs (``DEFAULTS``) of a GPU kernel module; none without a kernel."""
    module = kernel() if kernel is not None else None
    return tuple(getattr(module, "DEFAULTS", ()))


def _check_params(params: dict, knobs, device: str, where: str) -> dict:
    """The kernel parameters to pass on: TypeError for a name that is no knob of the kernel;
    on the CPU one warning naming the knobs given (they change nothing there) and none passed."""
    unknown = sorted(set(params) - set(knobs))
    if unknown:
        names = ", ".join(map(repr, unknown))
        raise TypeError(f"{where}() got an unexpected keyword argument{'s' * (len(unknown) > 1)} {names}")
    if device == "cpu" and params:
        names = ", ".join(map(repr, params))
        warnings.warn(f"{where}: GPU-only parameter{'s' * (len(params) > 1)} {names} ignored: "
                      "running on the CPU", UserWarning, stacklevel=3)
        return {}
    return params


def _progress(progress, desc: str):
    """None, the caller's wrapper, or a tqdm bar on stderr for ``progress=True``."""
    if progress is True:
        from tqdm.auto import tqdm

        return lambda roots: tqdm(roots, desc=desc, unit="root", file=sys.stderr, leave=False)
    return progress or None


def _in_range(size: int, min_size, max_size) -> bool:
    return (min_size is None or size >= min_size) and (max_size is None or size <= max_size)


def _timed(fn, device: str, params: dict) -> Count:
    t = time.perf_counter()
    value = fn()
    return Count(value, device, time.perf_counter() - t, {k: v for k, v in params.items() if v is not None})


# ---- maximal cliques ----


def find_cliques(
    G, nodes=None, *, min_size=None, max_size=None, device="auto", progress=False, **params
) -> Iterator[list]:
    """Maximal cliques as lists of labels (like ``networkx.find_cliques``), optionally
    only those with ``min_size <= size <= max_size`` (like igraph's ``min``/``max``).

    ``nodes``: only the maximal cliques containing all these labels, which come first
    in each list; ValueError (networkx's) when they do not form a clique."""
    G = as_graph(G)
    dev = _device(device, "maximal cliques", _rdmce)
    params = _check_params(params, _knobs(_rdmce), dev, "find_cliques")
    if nodes is not None and len(nodes):
        return _cliques_through(G, list(nodes), min_size, max_size, dev, progress, params)
    if G.n == 0:
        return iter(())
    label = _labeler(G.labels)
    if G.m == 0:  # no edges: every vertex is a maximal clique (no kernel launch for that)
        return iter([label([v]) for v in range(G.n)] if _in_range(1, min_size, max_size) else [])
    if dev == "gpu":
        found = _rdmce().maximal_cliques(G, **params)
        return (label(c.tolist()) for c in found if _in_range(len(c), min_size, max_size))
    if progress:
        cliques = cpu.maximal_cliques(
            G, min_size=min_size, max_size=max_size, progress=_progress(progress, "maximal cliques")
        )
    else:
        labelled = engine.maximal_cliques_labelled(G, min_size, max_size)
        if labelled is not None:
            return map(list, labelled)
        cliques = engine.maximal_cliques(G, min_size, max_size)
    return map(label, cliques)


def _ids(G: Graph, nodes) -> list[int]:
    """Vertex ids of labels (KeyError naming the first unknown one)."""
    if G.labels is None:
        index = range(G.n)
        return [index.index(v) if isinstance(v, int) and 0 <= v < G.n else _missing(v) for v in nodes]
    table = {x: i for i, x in enumerate(G.labels.tolist())}
    return [table[v] if v in table else _missing(v) for v in nodes]


def _missing(v):
    raise KeyError(v)


def subgraph(G: Graph, ids) -> Graph:
    """The subgraph induced by vertex ids ``ids`` (in that order), original labels kept."""
    ids = np.asarray(ids, dtype=np.int64)
    rank = np.full(G.n, -1, dtype=np.int64)
    rank[ids] = np.arange(len(ids))
    e = G.edges()
    e = e[(rank[e[:, 0]] >= 0) & (rank[e[:, 1]] >= 0)]
    labels = ids if G.labels is None else G.labels[ids]
    return Graph.from_edges(len(ids), rank[e[:, 0]], rank[e[:, 1]], labels=labels, name=G.name)


def _cliques_through(G, nodes, min_size, max_size, dev, progress, params):
    """Maximal cliques containing every label in ``nodes``: ``nodes`` + each maximal clique
    of the subgraph on their common neighbours (networkx's order: the given nodes first)."""
    if G.n == 0:
        return iter(())  # networkx yields nothing for the empty graph, whatever ``nodes`` is
    try:
        ids = _ids(G, nodes)
    except (KeyError, TypeError):
        ids = None
    nbrs = [set(G.neighbors(v).tolist()) for v in ids or ()]
    if ids is None or any(set(ids) - {u} - N for u, N in zip(ids, nbrs, strict=True)) \
            or len(set(ids)) < len(ids):
        raise ValueError(f"The given `nodes` {nodes} do not form a clique")
    common = set.intersection(*nbrs)
    if not common:
        return iter([list(nodes)] if _in_range(len(nodes), min_size, max_size) else [])
    lo = None if min_size is None else min_size - len(nodes)
    hi = None if max_size is None else max_size - len(nodes)
    if hi is not None and hi < 1:
        return iter(())
    rest = find_cliques(subgraph(G, sorted(common)), min_size=lo, max_size=hi, device=dev,
                        progress=progress, **params)
    return ([*nodes, *c] for c in rest)


def count_maximal_cliques(
    G, *, min_size=None, max_size=None, device="auto", progress=False, **params
) -> Count:
    """Number of maximal cliques (with size in [min_size, max_size]), without listing them on CPU."""
    G = as_graph(G)
    dev = _device(device, "maximal cliques", _rdmce)
    params = _check_params(params, _knobs(_rdmce), dev, "count_maximal_cliques")
    bar = _progress(progress, "maximal cliques")

    def run() -> int:
        if dev == "cpu":
            if bar is not None:
                return cpu.count_maximal_cliques(G, min_size=min_size, max_size=max_size, progress=bar)
            return engine.count_maximal_cliques(G, min_size, max_size)
        if min_size is None and max_size is None:
            return _rdmce().count_maximal_cliques(G, **params)
        # the GPU kernel counts every size at once: list and filter instead
        return sum(_in_range(len(c), min_size, max_size) for c in _rdmce().maximal_cliques(G, **params))

    return _timed(run, dev, {"min_size": min_size, "max_size": max_size, **params})


def clique_size_histogram(G, *, device="auto", progress=False, **params) -> dict[int, int]:
    """{size: number of maximal cliques of that size}, ascending sizes."""
    G = as_graph(G)
    dev = _device(device, "maximal cliques", _rdmce)
    params = _check_params(params, _knobs(_rdmce), dev, "clique_size_histogram")
    if dev == "gpu":
        hist = Counter(len(c) for c in _rdmce().maximal_cliques(G, **params))
        return dict(sorted(hist.items()))
    if progress:
        return cpu.clique_size_histogram(G, progress=_progress(progress, "maximal cliques"))
    return engine.clique_size_histogram(G)


def _membership(G: Graph, device: str, params: dict) -> tuple[np.ndarray, np.ndarray]:
    """Per vertex id: (number of maximal cliques containing it, size of the largest one)."""
    sizes: list[int] = []
    flat: list[int] = []
    if G.m == 0:  # isolated vertices only: each its own clique of size 1
        return np.ones(G.n, dtype=np.int64), np.ones(G.n, dtype=np.int64)
    if device == "gpu":
        for c in _rdmce().maximal_cliques(G, **params):
            sizes.append(len(c))
            flat.extend(c.tolist())
    else:
        for c in engine.maximal_cliques(G):
            sizes.append(len(c))
            flat.extend(c)
    flat_a = np.asarray(flat, dtype=np.int64)
    per = np.repeat(np.asarray(sizes, dtype=np.int64), sizes)
    best = np.zeros(G.n, dtype=np.int64)
    np.maximum.at(best, flat_a, per)
    return np.bincount(flat_a, minlength=G.n), best


def _per_node(G: Graph, nodes, values) -> int | dict:
    """networkx's shapes: one value for a single node, else {label: value}."""
    labels = range(G.n) if G.labels is None else G.labels.tolist()
    if nodes is None:
        return {x: int(v) for x, v in zip(labels, values.tolist(), strict=True)}
    if not isinstance(nodes, list | tuple | set | frozenset):
        return int(values[_ids(G, [nodes])[0]])
    return {x: int(values[i]) for x, i in zip(nodes, _ids(G, list(nodes)), strict=True)}


def number_of_cliques(G, nodes=None, *, device="auto", **params) -> int | dict:
    """Number of maximal cliques each node lies in (like ``networkx.number_of_cliques``):
    an int for one node, else {label: count} (every node when ``nodes`` is None)."""
    G = as_graph(G)
    dev = _device(device, "maximal cliques", _rdmce)
    params = _check_params(params, _knobs(_rdmce), dev, "number_of_cliques")
    return _per_node(G, nodes, _membership(G, dev, params)[0])


def node_clique_number(G, nodes=None, *, device="auto", **params) -> int | dict:
    """Size of the largest clique containing each node (like ``networkx.node_clique_number``):
    an int for one node, else {label: size} (every node when ``nodes`` is None)."""
    G = as_graph(G)
    dev = _device(device, "maximal cliques", _rdmce)
    params = _check_params(params, _knobs(_rdmce), dev, "node_clique_number")
    few = nodes is not None and (not isinstance(nodes, list | tuple | set | frozenset) or len(nodes) <= 32)
    if not few:
        return _per_node(G, nodes, _membership(G, dev, params)[1])
    many = isinstance(nodes, list | tuple | set | frozenset)
    ids = _ids(G, list(nodes) if many else [nodes])
    best = np.zeros(G.n, dtype=np.int64)
    for v in ids:  # 1 + the clique number of v's neighbourhood
        best[v] = 1 + engine.clique_number(subgraph(G, G.neighbors(v)))
    return _per_node(G, nodes, best)


# ---- k-cliques, maximum cliques ----


def k_cliques(G, k: int, *, progress=False) -> Iterator[list]:
    """Every clique of exactly k vertices, once, as a list of labels."""
    G = as_graph(G)
    return map(_labeler(G.labels), cpu.k_cliques(G, k, progress=_progress(progress, f"{k}-cliques")))


def count_k_cliques(G, k: int, *, device="auto", progress=False, **params) -> Count:
    """Number of k-cliques (k=1: vertices, k=2: edges)."""
    G = as_graph(G)
    dev = _device(device, "k-cliques")
    params = _check_params(params, (), dev, "count_k_cliques")
    bar = _progress(progress, f"{k}-cliques")
    return _timed(lambda: cpu.count_k_cliques(G, k, progress=bar), dev, {"k": k, **params})


def max_cliques(G, *, device="auto", progress=False, **params) -> tuple[int, list[list]]:
    """(omega, every maximum clique as a list of labels)."""
    G = as_graph(G)
    dev = _device(device, "maximum cliques")
    _check_params(params, (), dev, "max_cliques")
    if progress:
        omega, cliques = cpu.max_cliques(G, progress=_progress(progress, "maximum cliques"))
    else:
        omega, cliques = engine.max_cliques(G)
    label = _labeler(G.labels)
    return omega, [label(c) for c in cliques]


# ---- maximal bicliques ----


def maximal_bicliques(B, *, progress=False) -> Iterator[tuple[list, list]]:
    """Maximal bicliques (L, R), both non-empty: L labels of side U, R of side V
    (``B.v_labels``; V is the smaller side, ``B.swapped`` says whether it was the file's first column)."""
    B = as_bipartite(B)
    left, right = _labeler(B.u_labels), _labeler(B.v_labels)
    pairs = cpu.maximal_bicliques(B, progress=_progress(progress, "maximal bicliques"))
    return ((left(L), right(R)) for L, R in pairs)


def count_maximal_bicliques(B, *, device="auto", progress=False, **params) -> Count:
    """Number of maximal bicliques with both sides non-empty (the GMBE+ convention)."""
    B = as_bipartite(B)
    dev = _device(device, "maximal bicliques")
    params = _check_params(params, (), dev, "count_maximal_bicliques")
    bar = _progress(progress, "maximal bicliques")
    return _timed(lambda: cpu.count_maximal_bicliques(B, progress=bar), dev, params)
