"""The fast CPU engine: igraph's C routines behind the public CPU calls.

The Python oracles in ``mce_kit.cpu`` stay the reference (short, obviously
correct, constant memory); this module is what ``mk.find_cliques`` and friends
run on a machine without a GPU. igraph's ``maximal_cliques`` lists every clique
in one C call, so the engine asks for at most ``CAP`` of them: a graph with more
maximal cliques than that is handed back to the streaming oracle (slow, but it
never holds the whole list in memory).

igraph is a core dependency; where it cannot be imported (a bare GPU box) every
call here quietly runs the oracle instead, which gives the same answers.

Semantics match the oracles exactly (checked in tests/test_engine.py): isolated
vertices are maximal cliques of size 1, size filters are inclusive, and
``max_cliques`` returns every maximum clique, sorted, each ascending.
"""

from __future__ import annotations

import functools
import weakref
from collections import Counter

from . import cpu
from .graph import Graph

CAP = 4_000_000  # maximal cliques listed in one igraph call before falling back to the oracle

_IGRAPH: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@functools.cache
def available() -> bool:
    """True when igraph imports (else the oracles answer)."""
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


_LABELLED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def clear_cache() -> None:
    """Forget the igraph graphs built so far (benchmarks time building them)."""
    _IGRAPH.clear()
    _LABELLED.clear()


def _label_space(G: Graph):
    """(an igraph graph whose vertex ids are G's int labels, the labels of G's isolated vertices),
    or None when the labels are not small non-negative ints (then ids are mapped in Python)."""
    if G in _LABELLED:
        return _LABELLED[G]
    out = None
    L = G.labels
    if L is not None and L.dtype.kind in "iu" and G.n and L.min() >= 0 and L.max() < 2 * G.n + 1024:
        import igraph

        g = igraph.Graph(n=int(L.max()) + 1)  # labels not in G are isolated and never reported
        g.add_edges(L[G.edges()])
        out = g, L[G.degrees() == 0].tolist()
    _LABELLED[G] = out
    return out


def maximal_cliques_labelled(G: Graph, min_size=None, max_size=None) -> list | None:
    """Like ``maximal_cliques_list`` but each clique already in G's labels (as tuples), for graphs
    with small int labels (SNAP ids): no per-vertex relabelling in Python. None when that does
    not apply or there are ``CAP`` or more cliques."""
    lim = _limits(min_size, max_size)
    if lim is None or G.n == 0:
        return []
    space = _label_space(G) if available() else None
    if space is None:
        return None
    g, isolated = space
    lo, hi = lim
    singles = [(x,) for x in isolated] if lo <= 1 else []
    if hi == 1:
        return singles
    found = g.maximal_cliques(min=max(lo, 2), max=hi, max_results=CAP)
    return None if len(found) >= CAP else singles + found if singles else found


def _limits(min_size, max_size) -> tuple[int, int] | None:
    """igraph's (min, max) for our inclusive bounds (0 = unbounded); None when nothing fits."""
    lo = 1 if min_size is None else max(int(min_size), 1)
    if max_size is not None and int(max_size) < lo:
        return None
    return (lo if lo > 1 else 0), (0 if max_size is None else int(max_size))


def maximal_cliques_list(G: Graph, min_size=None, max_size=None) -> list[tuple[int, ...]] | None:
    """Every maximal clique (vertex ids) with size in [min_size, max_size], as igraph's list of
    tuples; None when there are ``CAP`` or more of them or no igraph (use the oracle then)."""
    lim = _limits(min_size, max_size)
    if lim is None or G.n == 0:
        return []
    if not available():
        return None
    found = igraph_graph(G).maximal_cliques(min=lim[0], max=lim[1], max_results=CAP)
    return None if len(found) >= CAP else found


def maximal_cliques(G: Graph, min_size=None, max_size=None, progress=None):
    """Iterator over maximal cliques as tuples or lists of vertex ids (engine, else oracle)."""
    found = maximal_cliques_list(G, min_size, max_size)
    if found is None:
        return cpu.maximal_cliques(G, min_size=min_size, max_size=max_size, progress=progress)
    return iter(found)


def clique_size_histogram(G: Graph, min_size=None, max_size=None, progress=None) -> dict[int, int]:
    """{size: number of maximal cliques}, ascending sizes, as the oracle returns it."""
    found = maximal_cliques_list(G, min_size, max_size)
    if found is None:
        return cpu.clique_size_histogram(G, min_size=min_size, max_size=max_size, progress=progress)
    return dict(sorted(Counter(map(len, found)).items()))


def count_maximal_cliques(G: Graph, min_size=None, max_size=None, progress=None) -> int:
    found = maximal_cliques_list(G, min_size, max_size)
    if found is None:
        return cpu.count_maximal_cliques(G, min_size=min_size, max_size=max_size, progress=progress)
    return len(found)


def max_cliques(G: Graph, progress=None) -> tuple[int, list[list[int]]]:
    """(omega, every maximum clique sorted, each ascending), like ``cpu.max_cliques``: bounds, then
    the Numba branch and bound of ``mce_kit.maxclique_engine`` (MemoryError when the list cannot fit)."""
    from . import maxclique_engine

    return maxclique_engine.max_cliques(G, progress=progress)


def clique_number(G: Graph, progress=None) -> int:
    """omega (no search where the greedy clique meets the core or colouring bound)."""
    from . import maxclique_engine

    return maxclique_engine.clique_number(G, progress=progress)
