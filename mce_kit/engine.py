"""The fast CPU path behind the public CPU calls: the compiled engine (``mce_kit.cpu_engine``)
for maximal cliques, k-cliques and maximal bicliques; igraph's C routines for maximum cliques.

The Python oracles in ``mce_kit.cpu`` stay the reference (short, obviously correct); this
module is what ``mk.find_cliques`` and friends run on a machine without a GPU. The engine
(Numba) is faster than igraph's ``maximal_cliques`` on every graph measured (the igraph rows of
``data/results/cpu_engine.csv``), so igraph stays only where the engine has no routine of its
own: the maximum-clique calls below and the networkx backend's k-clique listing (``CAP``).

Every call takes ``progress`` (True: a tqdm bar on stderr; or the oracles' iterable wrapper)
and stops on Ctrl-C between chunks of roots. Semantics match the oracles exactly (checked in
tests/test_engine.py and tests/test_cpu_engine.py): isolated vertices are maximal cliques of
size 1, size filters are inclusive, ``max_cliques`` returns every maximum clique, sorted.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Iterator

from .graph import BipartiteGraph, Graph

CAP = 4_000_000  # results listed in one igraph call (the networkx backend's k-cliques)

_IGRAPH: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@functools.cache
def available() -> bool:
    """True when igraph imports (else the oracles answer the maximum-clique calls)."""
    try:
        import igraph  # noqa: F401
    except ImportError:
        return False
    return True


def igraph_graph(G: Graph):
    """G as an ``igraph.Graph`` on the same vertex ids (built once per Graph, then cached)."""
    g = _IGRAPH.get(G)
    if g is None:
        import igraph

        g = igraph.Graph(n=G.n)
        g.add_edges(G.edges())
        _IGRAPH[G] = g
    return g


def clear_cache() -> None:
    """Forget the igraph graphs and the engine's relabelled graphs (benchmarks time building them)."""
    from . import cpu_engine

    _IGRAPH.clear()
    cpu_engine.clear_cache()


# ---- maximal cliques, k-cliques, maximal bicliques: the compiled engine ----


def maximal_clique_blocks(G: Graph, min_size=None, max_size=None, *, block_size: int = 1 << 16,
                          progress=None) -> Iterator[tuple]:
    """CSR blocks (offsets int64, vertex ids int32) of at most ``block_size`` maximal cliques."""
    from . import cpu_engine

    if isinstance(block_size, bool) or not isinstance(block_size, int) or block_size < 1:
        raise ValueError(f"block_size must be a positive int (cliques per block), got {block_size!r}")
    for offsets, vertices in cpu_engine.maximal_clique_blocks(G, min_size, max_size, progress=progress,
                                                              block_size=block_size):
        for i in range(0, len(offsets) - 1, block_size):  # a root with more cliques than a block
            part = offsets[i:i + block_size + 1]
            yield part - part[0], vertices[part[0]:part[-1]]


def maximal_cliques(G: Graph, min_size=None, max_size=None, progress=None) -> Iterator[list[int]]:
    """Iterator over the maximal cliques (lists of vertex ids) with size in [min_size, max_size]."""
    from . import cpu_engine

    return cpu_engine.maximal_cliques(G, min_size, max_size, progress=progress)


def clique_size_histogram(G: Graph, min_size=None, max_size=None, progress=None) -> dict[int, int]:
    """{size: number of maximal cliques}, ascending sizes, as the oracle returns it."""
    from . import cpu_engine

    return cpu_engine.clique_size_histogram(G, min_size, max_size, progress=progress)


def count_maximal_cliques(G: Graph, min_size=None, max_size=None, progress=None) -> int:
    from . import cpu_engine

    return cpu_engine.count_maximal_cliques(G, min_size, max_size, progress=progress)


def count_k_cliques(G: Graph, k: int, algorithm: str = "auto", progress=None) -> int:
    """k-cliques by listing or pivoting (``cpu_engine.pick_algorithm`` for "auto")."""
    from . import cpu_engine

    return cpu_engine.count_k_cliques(G, k, algorithm=algorithm, progress=progress)


def clique_counts(G: Graph, k_max=None, progress=None) -> dict[int, int]:
    from . import cpu_engine

    return cpu_engine.clique_counts(G, k_max, progress=progress)


def count_maximal_bicliques(B: BipartiteGraph, progress=None) -> int:
    from . import cpu_engine

    return cpu_engine.count_maximal_bicliques(B, progress=progress)


def maximal_bicliques(B: BipartiteGraph, progress=None) -> Iterator[tuple[list[int], list[int]]]:
    from . import cpu_engine

    return cpu_engine.maximal_bicliques(B, progress=progress)


# ---- maximum cliques: igraph ----


def max_cliques(G: Graph, progress=None) -> tuple[int, list[list[int]]]:
    """(omega, every maximum clique sorted, each ascending), like ``cpu.max_cliques``: bounds, then
    the Numba branch and bound of ``mce_kit.maxclique_engine`` (MemoryError when the list cannot fit)."""
    from . import maxclique_engine

    return maxclique_engine.max_cliques(G, progress=progress)


def clique_number(G: Graph, progress=None, with_route: bool = False):
    """omega (no search where the bounds meet; the complement on dense graphs); ``with_route``:
    (omega, "bounds" | "complement" | "search")."""
    from . import maxclique_engine

    return maxclique_engine.clique_number(G, progress=progress, with_route=with_route)
