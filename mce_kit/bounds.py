"""Bounds on the clique number, computed before any search (shared by the CPU engine and Geil).

    b = clique_bounds(G)
    b.lower, b.clique    # a real clique (vertex ids of G) and its size: omega >= lower
    b.upper              # min(core number + 1, colours of a greedy colouring, ego pass): omega <= upper
    b.open_roots         # roots whose ego bound passes lower (None where the pass did not finish)
    b.exact              # lower == upper: omega is known without a search

Lower bound: peel the graph in degeneracy order (Batagelj-Zaversnik buckets); when what is left
is a clique (its minimum degree is its size - 1) that clique is kept. Then, from the vertices of
highest core number down, a clique is grown greedily inside each vertex's later neighbours
(always the latest candidate in the order, the deepest in the core), and the best one is improved
by (1,2)-swaps: drop one member x, add two adjacent vertices that see every member but x.

Upper bounds: a clique of size t lies in the (t-1)-core, so omega <= max core + 1; and a clique
uses each colour of a proper colouring once, so omega <= the colours of a greedy colouring in
reverse degeneracy order (never more than max core + 1, often fewer on dense graphs).

Where they do not meet, the ego pass looks at each root v (reverse degeneracy order, core + 1 above
the lower bound): its later neighbours with core >= lower, peeled to those with lower - 1 of them
left, are what a larger clique through v as its earliest vertex can use. First (work-capped) a
clique is grown greedily in each, always the candidate with most candidate neighbours; then each is
coloured first-fit in smallest-last order, and 1 + colours bounds v's cliques (``root_bound``; the
greedy runs again where that passes lower). omega <= the largest root bound when every root was
seen (``upper_ego``), and a search need only visit the roots whose bound passes its target
(``open_roots`` of them for a larger clique).

A clique through v lies in the core[v]-core, so a search for cliques of size t keeps only the
vertices with core >= t - 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .graph import Graph, induced_csr

SWAP_ROUNDS = 16  # (1,2)-swap rounds tried on the best greedy clique
GREEDY_WORK = 2   # the greedy cliques may touch at most this many times 2m + n adjacency entries
EGO_WORK = 32     # the ego pass stops past this many times 2m + n steps (its root bounds are then unused)
EGO_ENTRIES_PER_THREAD = 1 << 13  # the colour pass takes a thread per this many oriented entries
# what a list of maximum cliques costs (the CPU engine's and Geil's refusals)
PY_BYTES_PER_ID = 44       # a vertex id in a Python list of lists (8-byte pointer, int object) + buffer
PY_BYTES_PER_CLIQUE = 120  # a list object and its row in the sorted list
MEMORY_SHARE = 0.5         # share of the available memory the list of cliques may take


@dataclass(frozen=True)
class CliqueBounds:
    lower: int               # size of ``clique``
    clique: np.ndarray       # a clique of G (sorted vertex ids)
    upper: int               # min(upper_core, upper_colour)
    upper_core: int          # max core number + 1
    upper_colour: int        # colours used by a greedy colouring
    order: np.ndarray        # a degeneracy order (int32)
    core: np.ndarray         # core numbers (int32)
    upper_ego: int = 0       # the ego pass's bound (upper_colour where the pass did not finish)
    root_bound: np.ndarray | None = None  # per vertex v: no clique whose earliest vertex is v is larger

    @property
    def exact(self) -> bool:
        return self.lower == self.upper

    @property
    def open_roots(self) -> int | None:
        """Roots the ego pass left open (their bound passes lower); None where it did not finish."""
        if self.root_bound is None:
            return None
        return int(np.count_nonzero(self.root_bound > self.lower))

    def as_dict(self) -> dict:
        return {"lower": self.lower, "upper": self.upper, "upper_core": self.upper_core,
                "upper_colour": self.upper_colour, "upper_ego": self.upper_ego}


def _ego_pass(optr, oidx, order, core, best, colour_bound, work_cap, threads: int = 1):
    """(best clique, bound per vertex as a root, whether every root was seen) of the ego pass (module
    doc); ``optr, oidx``: the later neighbours of ``orient``. Without ``colour_bound`` every root only
    grows a greedy clique (the bounds returned are then unset). On ``threads`` threads (each up to
    ``work_cap`` steps) thread t takes roots t, t + T, ... from the last in order on, raising its own
    lower bound only: a root's bound is valid with any lower bound below omega, so each is, and the
    best clique of any thread is returned."""
    from .bound_steps import ego_part
    from .threads import strided

    bound = (core + 1).astype(np.int32)
    runs = strided(ego_part, max(1, threads), (optr, oidx, order, core, best, colour_bound, work_cap, bound),
                   0, len(order))
    best = max((c for c, _ in runs), key=len)     # the first thread's on a tie
    return best, bound, all(whole for _, whole in runs)


def clique_bounds(G: Graph, swap_rounds: int = SWAP_ROUNDS) -> CliqueBounds:
    """Lower and upper bounds on omega (and the clique behind the lower one); see the module doc.
    Kept with G (``mce_kit.prepared``: graphs are immutable) until it is collected or released.
    ``gpu.bounds.clique_bounds`` takes them on the GPU, without Numba."""
    if swap_rounds != SWAP_ROUNDS:
        return _clique_bounds(G, swap_rounds)
    from .prepared import kept

    return kept(G, ("clique_bounds",), lambda: _clique_bounds(G, swap_rounds))


def _clique_bounds(G: Graph, swap_rounds: int) -> CliqueBounds:
    from .bound_steps import greedy_clique, greedy_colours, orient, peel, swap_once

    indptr, indices = G.indptr, G.indices
    if G.n == 0:
        return empty_bounds()
    order, core, tail = peel(indptr, indices)
    upper_core = int(core.max()) + 1
    C = greedy_clique(indptr, indices, order, core, tail, GREEDY_WORK * (len(indices) + G.n))
    if len(C) == 0:
        C = order[-1:].copy()

    def swap(C):
        return swap_once(indptr, indices, C)

    C = swaps(swap, C, upper_core, swap_rounds)
    upper_colour = upper_core if len(C) >= upper_core else int(greedy_colours(indptr, indices, order))
    upper = min(upper_core, upper_colour)
    upper_ego, root_bound = upper, None
    if len(C) < upper:  # the ego pass: greedy cliques first, then the roots' colour bounds
        optr, oidx = orient(indptr, indices, order, core, len(C))
        cap = EGO_WORK * (len(indices) + G.n)
        C = _ego_pass(optr, oidx, order, core, C, False, GREEDY_WORK * (len(indices) + G.n))[0]
        C = swaps(swap, C, upper, swap_rounds)
        if len(C) < upper:   # the colour bounds, on threads (each root's walk is its own)
            C, bound, whole = _ego_pass(optr, oidx, order, core, C, True, cap, ego_threads(len(oidx)))
            if whole:
                root_bound = bound
                upper_ego = max(len(C), int(bound.max()))
                upper = min(upper, upper_ego)
    C = np.sort(C).astype(np.int32)
    return CliqueBounds(len(C), C, upper, upper_core, upper_colour, order, core, upper_ego, root_bound)


def ego_threads(entries: int) -> int:
    """Threads for the colour pass over ``entries`` oriented entries: one per EGO_ENTRIES_PER_THREAD
    of them, up to every usable core."""
    from .config import usable_cores

    return max(1, min(usable_cores(), entries // EGO_ENTRIES_PER_THREAD))


def bytes_per_clique(omega: int) -> int:
    """Memory one maximum clique takes as the Python list returned (and its buffer row)."""
    return PY_BYTES_PER_CLIQUE + PY_BYTES_PER_ID * omega


def empty_bounds() -> CliqueBounds:
    """The bounds of a graph without vertices."""
    z = np.zeros(0, np.int32)
    return CliqueBounds(0, z, 0, 0, 0, z, z, 0)


def swaps(swap_once, C, upper: int, rounds: int):
    """C grown by up to ``rounds`` of ``swap_once`` (a (1,2)-swap or an addition, else C itself),
    stopping at ``upper``."""
    for _ in range(rounds):
        if len(C) >= upper:
            break
        D = swap_once(C)
        if len(D) == len(C):
            break
        C = D
    return C


def core_subgraph(G: Graph, core: np.ndarray, min_core: int) -> tuple[Graph, np.ndarray]:
    """(the subgraph induced by the vertices with core >= min_core, their ids in G); G itself (and
    every id) when that is all of G. Every clique of size min_core + 1 or more lies in it."""
    ids = np.flatnonzero(core >= min_core).astype(np.int64)
    if len(ids) == G.n:
        return G, ids
    return Graph(*induced_csr(G.indptr, G.indices, ids), name=G.name), ids


def is_clique(G: Graph, vertices) -> bool:
    """True when ``vertices`` are distinct and pairwise adjacent in G."""
    vs = np.unique(np.asarray(vertices, dtype=np.int64))
    if len(vs) != len(np.asarray(vertices)):
        return False
    return all(np.isin(np.delete(vs, i), G.neighbors(int(v))).all() for i, v in enumerate(vs))
