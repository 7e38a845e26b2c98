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
maximal-clique, k-clique and biclique calls run the compiled engine
(``mce_kit.engine``, Numba, all cores); the Python oracles (``mce_kit.cpu``)
check it. ``progress=True`` shows a tqdm bar on stderr over the roots (or pass
a wrapper); Ctrl-C stops a CPU call between chunks of roots. On the GPU the maximal-clique
counts show a bar over the kernel's seeds (``"auto"``: once a launch has run a second), and
Ctrl-C stops the kernel cleanly: KeyboardInterrupt says how many seeds finished and the count
so far, a lower bound (``mce_kit.gpu.watch``).

Vertices without neighbours (also those whose only edge was a self-loop,
dropped by ``load_graph``) are maximal cliques of size 1, as in networkx;
``isolated=False`` leaves them out, as the RDMCE authors' codes do. A maximal
clique of size 1 is always such a vertex, so this is the same as ``min_size=2``.
"""

from __future__ import annotations

import functools
import importlib
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from . import cpu, engine, gpu
from .graph import BipartiteGraph, Graph, check_size_bounds, induced_csr

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


def _ids_are_labels(labels) -> bool:
    return bool(labels.dtype.kind in "iu" and len(labels) and labels[0] == 0 and labels[-1] == len(labels) - 1
                and (labels == range(len(labels))).all())


def _labeler(labels) -> Callable[[Iterable[int]], list]:
    if labels is None:
        return lambda c: [int(v) for v in c]
    if _ids_are_labels(labels):
        return list  # labels are the ids themselves (the engine and oracle give Python ints)
    get = labels.tolist().__getitem__
    return lambda c: list(map(get, c))


def _labelled_rows(labels, rows: np.ndarray) -> list[list]:
    """Rows of vertex ids (an int array) as lists of labels: one gather, one ``tolist``."""
    if labels is None or _ids_are_labels(labels):
        return rows.tolist()
    return np.asarray(labels)[rows].tolist()


@functools.cache
def _gpu_module(name: str):
    """The GPU module ``mce_kit.gpu.<name>``, or None where it cannot be imported; looked up once
    (a warm k-clique call asked three times through the import system: 12 of its 31 us before the
    launch on the 2-core development machine)."""
    try:
        return importlib.import_module(f"{__package__}.gpu.{name}")
    except ImportError:
        return None


def _rdmce():
    return _gpu_module("rdmce")


# GPU algorithms for maximal cliques, by name; the first is the default (the fastest).
MCE_ALGORITHMS = ("rdmce", "mce-gpu")


def _mcegpu():
    return _gpu_module("mcegpu")


def _algorithm(algorithm: str) -> Callable:
    """The kernel getter for ``algorithm``; ValueError listing the choices for an unknown name."""
    if algorithm not in MCE_ALGORITHMS:
        choices = ", ".join(map(repr, MCE_ALGORITHMS))
        raise ValueError(f"algorithm must be one of {choices}, got {algorithm!r}")
    return (lambda: _rdmce()) if algorithm == "rdmce" else (lambda: _mcegpu())


def _listed(G, kernel, min_size, max_size, params, progress=None) -> Iterator[list]:
    """Cliques from a listing-mode kernel (mce-gpu), filtered by size, as label lists."""
    label = _labeler(G.labels)
    found = kernel().maximal_cliques(G, **_bar(progress), **params)
    return (label(c.tolist()) for c in found if _in_range(len(c), min_size, max_size))


def _geil():
    return _gpu_module("geil")


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


@functools.cache
def _knobs(kernel: Callable | None) -> tuple:
    """The tuning knobs (``DEFAULTS``) of a GPU kernel module; none without a kernel."""
    module = kernel() if kernel is not None else None
    return tuple(getattr(module, "DEFAULTS", ()))


_STREAM_OPTIONS = ("ring_words", "chunk_words")  # RDMCE's listing (its cliques stream through a ring)


def _mce_knobs(algorithm: str = "rdmce", streaming: bool = False) -> tuple:
    """The parameters a maximal-clique call passes to its GPU kernel: the kernel's ``DEFAULTS`` and
    ``max_buffer_bytes``, plus the ring's sizes where RDMCE streams the cliques it lists."""
    if algorithm != MCE_ALGORITHMS[0]:
        return (*_knobs(_algorithm(algorithm)), "max_buffer_bytes")
    return (*_knobs(_rdmce), "max_buffer_bytes", *(_STREAM_OPTIONS if streaming else ()))


def _check_params(params: dict, knobs, device: str, where: str) -> dict:
    """The kernel parameters to pass on: TypeError for a name that is no knob of the kernel;
    on the CPU one warning naming the knobs given (they change nothing there) and none passed."""
    if not params:
        return params
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


def _bar(progress) -> dict:
    """A GPU kernel's ``progress`` keyword, given only when asked: a bar over its seeds, and its
    Ctrl-C message either way (``mce_kit.gpu.watch``)."""
    return {"progress": progress} if progress else {}


def _in_range(size: int, min_size, max_size) -> bool:
    return (min_size is None or size >= min_size) and (max_size is None or size <= max_size)


def _floor(min_size, isolated: bool):
    """min_size with ``isolated=False`` applied (size-1 maximal cliques are isolated vertices)."""
    if isolated:
        return min_size
    return 2 if min_size is None or min_size < 2 else min_size


def _timed(fn, device: str, params: dict) -> Count:
    t = time.perf_counter()
    value = fn()
    return Count(value, device, time.perf_counter() - t, {k: v for k, v in params.items() if v is not None})


# ---- maximal cliques ----


def find_cliques(
    G, nodes=None, *, min_size=None, max_size=None, isolated=True, device="auto", algorithm="rdmce",
    progress=False, **params
) -> Iterator[list]:
    """Maximal cliques as lists of labels (like ``networkx.find_cliques``), optionally
    only those with ``min_size <= size <= max_size`` (like igraph's ``min``/``max``).

    ``nodes``: only the maximal cliques containing all these labels, which come first
    in each list; ValueError (networkx's) when they do not form a clique.
    Lazy on the GPU: built on ``maximal_clique_blocks``, so memory stays bounded by one block
    whatever the number of cliques. ``algorithm`` picks the GPU kernel: "rdmce" (default) or
    "mce-gpu" (which lists everything at once, then filters)."""
    G = as_graph(G)
    kernel = _algorithm(algorithm)
    dev = _device(device, "maximal cliques", kernel)
    params = _check_params(params, _mce_knobs(algorithm, streaming=True), dev, "find_cliques")
    check_size_bounds(min_size, max_size)
    min_size = _floor(min_size, isolated)
    if nodes is not None and len(nodes):
        return _cliques_through(G, list(nodes), min_size, max_size, dev, algorithm, progress, params)
    if G.n == 0:
        return iter(())
    label = _labeler(G.labels)
    if G.m == 0:  # no edges: every vertex is a maximal clique (no kernel launch for that)
        return iter([label([v]) for v in range(G.n)] if _in_range(1, min_size, max_size) else [])
    if dev == "gpu" and algorithm != MCE_ALGORITHMS[0]:
        return _listed(G, kernel, min_size, max_size, params, progress)
    if dev == "gpu":
        blocks = maximal_clique_blocks(G, min_size=min_size, max_size=max_size, device="gpu", **params)
        other = G.labels is not None and G.labels.dtype.kind not in "iu"
        return _cliques_of_blocks(blocks, G.labels if other else None)
    blocks = engine.maximal_clique_blocks(G, min_size, max_size, progress=progress)
    return _cliques_of_blocks(blocks, G.labels)


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
    labels = ids if G.labels is None else G.labels[ids]
    return Graph(*induced_csr(G.indptr, G.indices, ids), labels=labels, name=G.name)


def _cliques_through(G, nodes, min_size, max_size, dev, algorithm, progress, params):
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
    lo = None if min_size is None or min_size <= len(nodes) else min_size - len(nodes)
    hi = None if max_size is None else max_size - len(nodes)
    if hi is not None and hi < 1:
        return iter(())
    rest = find_cliques(subgraph(G, sorted(common)), min_size=lo, max_size=hi, device=dev,
                        algorithm=algorithm, progress=progress, **params)
    return ([*nodes, *c] for c in rest)


def _cliques_of_blocks(blocks, labels=None) -> Iterator[list]:
    """One list per clique from CSR blocks: one tolist per block, then slices."""
    for offsets, vertices in blocks:
        offs = offsets.tolist()
        vals = (labels[vertices] if labels is not None else vertices).tolist()
        for i in range(len(offs) - 1):
            yield vals[offs[i]:offs[i + 1]]


def maximal_clique_blocks(
    G, block_size: int = 1 << 20, *, min_size=None, max_size=None, isolated=True, as_cupy=False,
    device="auto", **params
) -> Iterator[tuple]:
    """Maximal cliques as CSR blocks ``(offsets, vertices)`` of at most ``block_size`` cliques:
    clique i of a block is ``vertices[offsets[i]:offsets[i + 1]]``, with ``offsets[0] == 0``.

    Vertices are the original labels when they are integers (int32 ids as they are
    when the labels are 0..n-1, no gather), else vertex ids (index ``G.labels`` with
    them). NumPy arrays, or CuPy arrays on the GPU with ``as_cupy=True``. On the GPU
    the kernel streams the cliques through a fixed ring (``mce_kit.gpu.rdmce``), so
    memory stays bounded by the block size; on the CPU the engine lists them root range
    by root range.
    """
    G = as_graph(G)
    check_size_bounds(min_size, max_size)
    min_size = _floor(min_size, isolated)
    dev = _device(device, "maximal cliques", _rdmce)
    params = _check_params(params, _mce_knobs(streaming=True), dev, "maximal_clique_blocks")
    numeric = G.labels is not None and G.labels.dtype.kind in "iu"
    if numeric and np.array_equal(G.labels, np.arange(len(G.labels))):
        numeric = False                         # labels 0..n-1: the ids are the labels, no gather
    if dev == "gpu":
        blocks = _rdmce().maximal_clique_blocks(G, block_size, min_size=min_size, max_size=max_size,
                                                as_cupy=as_cupy, **params)
        if not numeric:
            return blocks
        if as_cupy:
            import cupy

            table = cupy.asarray(G.labels)
            return ((off, table[ver]) for off, ver in blocks)
        return ((off, G.labels[ver]) for off, ver in blocks)
    if as_cupy:
        raise ValueError("as_cupy=True needs the GPU (device='gpu' or 'auto' with a GPU)")
    blocks = engine.maximal_clique_blocks(G, min_size, max_size, block_size=block_size)
    return ((off, G.labels[ver]) for off, ver in blocks) if numeric else blocks


def _pack_blocks(cliques, block_size: int, labels=None):
    import numpy as np

    if isinstance(block_size, bool) or not isinstance(block_size, int) or block_size < 1:
        raise ValueError(f"block_size must be a positive int (cliques per block), got {block_size!r}")
    batch = []
    for c in cliques:
        batch.append(c)
        if len(batch) == block_size:
            yield _csr(np, batch, labels)
            batch = []
    if batch:
        yield _csr(np, batch, labels)


def _csr(np, batch, labels):
    offsets = np.zeros(len(batch) + 1, dtype=np.int64)
    np.cumsum([len(c) for c in batch], out=offsets[1:])
    vertices = np.fromiter((v for c in batch for v in c), dtype=np.int32, count=int(offsets[-1]))
    return offsets, (labels[vertices] if labels is not None else vertices)


def count_maximal_cliques(
    G, *, min_size=None, max_size=None, isolated=True, device="auto", algorithm="rdmce", progress=False,
    client=None, gpus=None, **params
) -> Count:
    """Number of maximal cliques (with size in [min_size, max_size]), never listing them
    (mce-gpu lists them on the GPU when a size filter is given).

    ``algorithm`` picks the GPU kernel: "rdmce" (default) or "mce-gpu".

    ``client`` (a ``dask.distributed.Client``) or ``gpus=N`` spreads the work over several
    GPUs (``mce_kit.distributed``); with ``device="cpu"`` the cluster's workers run the CPU oracle.
    """
    G = as_graph(G)
    kernel = _algorithm(algorithm)
    check_size_bounds(min_size, max_size)
    if client is not None or gpus is not None:
        if min_size is not None or max_size is not None or not isolated:
            raise NotImplementedError("size filters are not distributed yet; drop client=/gpus=")
        return _distributed("count_maximal_cliques", G, client, gpus, device, algorithm=algorithm, **params)
    dev = _device(device, "maximal cliques", kernel)
    params = _check_params(params, _mce_knobs(algorithm), dev, "count_maximal_cliques")
    lo = _floor(min_size, isolated)
    bar = _bar(progress)

    def run() -> int:
        if dev == "cpu":
            return engine.count_maximal_cliques(G, lo, max_size, progress=progress)
        if algorithm != MCE_ALGORITHMS[0]:
            if lo is None and max_size is None:
                return kernel().count_maximal_cliques(G, **bar, **params)
            return sum(1 for _ in _listed(G, kernel, lo, max_size, params, progress))
        if lo is None and max_size is None:
            return _rdmce().count_maximal_cliques(G, **bar, **params)
        return _rdmce().count_maximal_cliques(G, min_size=lo, max_size=max_size, **bar, **params)

    extra = {"algorithm": algorithm} if dev == "gpu" and algorithm != MCE_ALGORITHMS[0] else {}
    return _timed(run, dev, {"min_size": min_size, "max_size": max_size,
                             "isolated": None if isolated else False, **extra, **params})


def clique_size_histogram(G, *, isolated=True, device="auto", algorithm="rdmce", progress=False,
                          **params) -> dict[int, int]:
    """{size: number of maximal cliques of that size}, ascending sizes (counted in the GPU kernel;
    mce-gpu lists the cliques instead)."""
    G = as_graph(G)
    kernel = _algorithm(algorithm)
    dev = _device(device, "maximal cliques", kernel)
    params = _check_params(params, _mce_knobs(algorithm), dev, "clique_size_histogram")
    if dev == "gpu" and algorithm != MCE_ALGORITHMS[0]:
        hist = Counter(len(c) for c in kernel().maximal_cliques(G, **_bar(progress), **params))
    elif dev == "gpu":
        hist = _rdmce().clique_size_histogram(G, **_bar(progress), **params)
    else:
        hist = engine.clique_size_histogram(G, progress=progress)
    return {k: v for k, v in sorted(hist.items()) if isolated or k >= 2}


def _membership(G: Graph, device: str, params: dict) -> tuple[np.ndarray, np.ndarray]:
    """Per vertex id: (number of maximal cliques containing it, size of the largest one),
    accumulated block by block (GPU blocks, or the engine's cliques packed into blocks)."""
    count = np.zeros(G.n, dtype=np.int64)
    best = np.zeros(G.n, dtype=np.int64)
    if G.m == 0:  # isolated vertices only: each its own clique of size 1
        return count + 1, best + 1
    if device == "gpu":
        blocks = _rdmce().maximal_clique_blocks(G, 1 << 20, **params)  # vertex ids
    else:
        blocks = engine.maximal_clique_blocks(G, block_size=1 << 20)
    for offsets, vertices in blocks:
        sizes = np.diff(np.asarray(offsets, dtype=np.int64))
        ids = np.asarray(vertices, dtype=np.int64)
        count += np.bincount(ids, minlength=G.n)
        np.maximum.at(best, ids, np.repeat(sizes, sizes))
    return count, best


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
    params = _check_params(params, _mce_knobs(streaming=True), dev, "number_of_cliques")
    return _per_node(G, nodes, _membership(G, dev, params)[0])


def node_clique_number(G, nodes=None, *, device="auto", **params) -> int | dict:
    """Size of the largest clique containing each node (like ``networkx.node_clique_number``):
    an int for one node, else {label: size} (every node when ``nodes`` is None)."""
    G = as_graph(G)
    dev = _device(device, "maximal cliques", _rdmce)
    params = _check_params(params, _mce_knobs(streaming=True), dev, "node_clique_number")
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


def _kclique():
    return _gpu_module("kclique")


def _cliquecount():
    return _gpu_module("cliquecount")


def k_cliques(G, k: int, *, device="auto", progress=False, **params) -> Iterator[list]:
    """Every clique of exactly k vertices, once, as a list of labels (GPU: listing mode, small outputs)."""
    G = as_graph(G)
    label = _labeler(G.labels)
    dev = _device(device, "k-cliques", _kclique)
    if dev == "gpu" and device == "auto" and not 3 <= k <= _kclique().KMAX:
        dev = "cpu"   # the GPU lists 3..KMAX vertices; "auto" answers the rest on the CPU
    if dev == "gpu":
        return (label(c) for c in _kclique().k_cliques(G, k, **params).tolist())
    _no_params(params, "k_cliques on the CPU")
    return map(label, cpu.k_cliques(G, k, progress=_progress(progress, f"{k}-cliques")))


def _distributed(call: str, graph, client, gpus, device, **params) -> Count:
    """``mce_kit.distributed.<call>`` on a Dask ``client`` or ``gpus`` local GPUs (device="cpu": the
    workers run the kernel's CPU twin on the same tasks)."""
    from . import distributed

    dev = "cpu" if device == "cpu" else "gpu"
    return _timed(lambda: getattr(distributed, call)(graph, client=client, gpus=gpus, device=dev, **params),
                  dev, {"gpus": gpus, "client": client is not None, **params})


K_ALGORITHMS = ("auto", "listing", "pivot")
# GPU: from this k on, pivoting beat listing over the bundled graphs, by the geometric mean of the
# kernels' ratios (frontdoor.pivot_from_k, on frontdoor.csv's latest run). At k = 8 the graphs split:
# pivoting won CA-GrQc by 9x, CA-HepTh by 2.2x and socfb-MIT by 1.4x on one H200, listing the four
# others by 1.6-2.3x (on one H100 the run before, pivoting had won five). Listing wins below k = 8.
PIVOT_FROM_K = 8


def k_clique_algorithm(k: int, algorithm: str = "auto") -> str:
    """Which GPU counter answers ``count_k_cliques``: "listing" (KCMiner: every k-clique visited)
    or "pivot" (the all-k counter, one k read off). ``auto``: pivoting from ``PIVOT_FROM_K`` on, the
    rule measured by ``python -m mce_kit.experiments.frontdoor`` (notebook 30 shows it)."""
    if algorithm not in K_ALGORITHMS:
        raise ValueError(f"algorithm must be one of {', '.join(K_ALGORITHMS)}, got {algorithm!r}")
    if algorithm != "auto":
        return algorithm
    return "pivot" if int(k) >= PIVOT_FROM_K else "listing"


def count_k_cliques(G, k: int, *, device="auto", progress=False, client=None, gpus=None, algorithm="auto",
                    **params) -> Count:
    """Number of k-cliques (k=1: vertices, k=2: edges); on the GPU with KCMiner (``params``: its switches)
    or the pivot counter, as ``algorithm`` says ("auto": ``k_clique_algorithm``'s measured rule); on the
    CPU the engine's counters, "auto" being ``mce_kit.cpu_engine.pick_algorithm``'s measured rule.
    ``client`` (a ``dask.distributed.Client``) or ``gpus=N`` splits KCMiner's edge tasks over several GPUs."""
    G = as_graph(G)
    if (client is not None or gpus is not None) and int(k) >= 3:
        return _distributed("count_k_cliques", G, client, gpus, device, k=int(k), **params)
    dev = _device(device, "k-cliques", _kclique)
    params = _check_params(params, _knobs(_kclique), dev, "count_k_cliques")
    if dev == "gpu":
        # KCMiner's switches given: its listing answers (auto picks by k only when free to)
        auto = "listing" if params and algorithm == "auto" else algorithm
        how = k_clique_algorithm(k, auto) if int(k) >= 3 else "listing"
        if how == "pivot":
            if params:
                raise TypeError(f"count_k_cliques(algorithm='pivot') takes no KCMiner parameter(s): "
                                f"{', '.join(sorted(params))}")
            return _timed(lambda: _cliquecount().clique_counts(G, int(k), **_bar(progress))[int(k)], dev,
                          {"k": k, "algorithm": how})
        return _timed(lambda: _kclique().count_k_cliques(G, k, **_bar(progress), **params), dev,
                      {"k": k, "algorithm": how, **params})
    return _timed(lambda: engine.count_k_cliques(G, k, algorithm, progress=progress), dev,
                  {"k": k, "algorithm": None if algorithm == "auto" else algorithm})


def clique_counts(G, k_max: int | None = None, *, device="auto", progress=False, client=None, gpus=None,
                  **params) -> dict[int, int]:
    """{k: number of k-cliques} for k = 1..k_max (None: up to the clique number), every k at once
    and without listing (pivoting, as in Pivoter); exact ints. ``client`` (a Dask client) or
    ``gpus=N`` splits the counter's edge tasks over several GPUs."""
    G = as_graph(G)
    if client is not None or gpus is not None:
        from . import distributed

        dev = "cpu" if device == "cpu" else "gpu"
        return distributed.clique_counts(G, k_max, client=client, gpus=gpus, device=dev, **params)
    if _device(device, "clique counts", _cliquecount) == "gpu":
        return _cliquecount().clique_counts(G, k_max, **_bar(progress), **params)
    _no_params(params, "clique_counts on the CPU")
    return engine.clique_counts(G, k_max, progress=progress)


def _no_params(params: dict, what: str) -> None:
    if params:
        raise TypeError(f"{what} takes no parameter(s): {', '.join(sorted(params))}")


def max_cliques(G, *, device="auto", progress=False, **params) -> tuple[int, list[list]]:
    """(omega, every maximum clique as a list of labels).

    On the GPU (Geil et al.'s breadth-first search with a branch-and-bound fallback; where the
    bounds give omega on a sparse core and no parameter is given, KCMiner lists the omega-cliques)
    ``params`` go to ``mce_kit.gpu.geil`` (heuristic, window, time_limit_s, ...); past
    ``time_limit_s`` it raises TimeoutError naming the bounds found. Both devices start from
    ``mce_kit.bounds`` (greedy clique, core and colouring bounds); on the CPU the Numba branch
    and bound of ``mce_kit.maxclique_engine`` answers, and refuses with MemoryError, naming the
    memory needed, a list of maximum cliques that would not fit. ``progress``: a bar over the
    roots (CPU) or the search's windows (GPU); Ctrl-C stops either and names the best clique found."""
    G = as_graph(G)
    dev = _device(device, "maximum cliques", _geil)
    params = _check_params(params, _knobs(_geil), dev, "max_cliques")
    if dev == "gpu":
        omega, rows = _geil().max_clique_rows(G, progress=progress, **params)
        return omega, _labelled_rows(G.labels, rows)
    omega, cliques = engine.max_cliques(G, progress=_progress(progress, "maximum cliques"))
    return omega, list(map(_labeler(G.labels), cliques))


def clique_number(G, *, device="auto", progress=False, **params) -> Count:
    """omega, the size of a maximum clique, as a Count: no search where the greedy clique meets the
    core or colouring bound (``mce_kit.bounds``); on a dense graph the complement's vertex cover
    (``mce_kit.vertex_cover``, no kernel); else the branch and bound of ``max_cliques``. The Count's
    ``params["route"]`` says which ("bounds", "complement" or "search")."""
    G = as_graph(G)
    dev = _device(device, "maximum cliques", _geil)
    params = _check_params(params, _knobs(_geil), dev, "clique_number")
    t = time.perf_counter()
    if dev == "gpu":
        omega, route = _geil().clique_number(G, progress=progress, with_route=True, **params)
    else:
        bar = _progress(progress, "maximum cliques")
        omega, route = engine.clique_number(G, progress=bar, with_route=True)
    kept = {k: v for k, v in params.items() if v is not None}
    return Count(omega, dev, time.perf_counter() - t, {**kept, "route": route})


# ---- maximal bicliques ----


def _gmbe_knobs() -> tuple:
    return (*_knobs(_gmbe), "max_buffer_bytes", "queue_cap")


def _gmbe():
    return _gpu_module("gmbe")


def _biclique_filter(min_left, min_right) -> Callable[[tuple], bool]:
    for name, x in (("min_left", min_left), ("min_right", min_right)):
        if x is not None and (not isinstance(x, int) or x < 1):
            raise ValueError(f"{name} must be an int >= 1, got {x!r}")
    lo_l, lo_r = min_left or 1, min_right or 1
    return lambda pair: len(pair[0]) >= lo_l and len(pair[1]) >= lo_r


def maximal_bicliques(
    B, *, min_left=None, min_right=None, device="auto", progress=False, **params
) -> Iterator[tuple[list, list]]:
    """Maximal bicliques (L, R), both non-empty: L labels of side U, R of side V
    (``B.v_labels``; V is the smaller side, ``B.swapped`` says whether it was the file's first column).
    ``min_left``/``min_right``: only those with at least that many vertices in L / R."""
    B = as_bipartite(B)
    keep = _biclique_filter(min_left, min_right)
    left, right = _labeler(B.u_labels), _labeler(B.v_labels)
    dev = _device(device, "maximal bicliques", _gmbe)
    params = _check_params(params, _gmbe_knobs(), dev, "maximal_bicliques")
    if dev == "gpu":
        sizes = {k: v for k, v in (("min_left", min_left), ("min_right", min_right)) if v is not None}
        pairs = ((L.tolist(), R.tolist()) for L, R in _gmbe().maximal_bicliques(B, **sizes, **params))
    else:
        pairs = filter(keep, engine.maximal_bicliques(B, progress=progress))
    return ((left(L), right(R)) for L, R in pairs)


def count_maximal_bicliques(
    B, *, min_left=None, min_right=None, device="auto", progress=False, client=None, gpus=None, **params
) -> Count:
    """Number of maximal bicliques with both sides non-empty (the GMBE+ convention),
    optionally only those with at least ``min_left`` / ``min_right`` vertices in L / R.
    ``client`` (a ``dask.distributed.Client``) or ``gpus=N`` splits GMBE+'s roots over several GPUs."""
    B = as_bipartite(B)
    if client is not None or gpus is not None:
        if min_left is not None or min_right is not None:
            raise NotImplementedError("min_left/min_right are not distributed yet; drop client=/gpus=")
        return _distributed("count_maximal_bicliques", B, client, gpus, device, **params)
    keep = _biclique_filter(min_left, min_right)
    dev = _device(device, "maximal bicliques", _gmbe)
    params = _check_params(params, _gmbe_knobs(), dev, "count_maximal_bicliques")

    def run() -> int:
        if dev == "gpu":
            sizes = {k: v for k, v in (("min_left", min_left), ("min_right", min_right)) if v is not None}
            return _gmbe().count_maximal_bicliques(B, **sizes, **params)
        if min_left is None and min_right is None:
            return engine.count_maximal_bicliques(B, progress=progress)
        return sum(1 for pair in engine.maximal_bicliques(B, progress=progress) if keep(pair))

    return _timed(run, dev, {"min_left": min_left, "min_right": min_right, **params})
