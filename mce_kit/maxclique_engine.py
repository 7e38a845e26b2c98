"""Maximum cliques on the CPU: bounds first, then branch and bound on bitsets (Numba, one thread).

    omega = clique_number(G)            # stops as soon as the bounds meet
    omega, cliques = max_cliques(G)     # every maximum clique, sorted, each ascending

1. ``mce_kit.bounds.clique_bounds``: greedy cliques (lower) against the core number, a greedy
   colouring and the ego pass's per-root colour bounds (upper). ``clique_number`` returns when they
   meet; on a graph of density >= ``vertex_cover.DENSITY`` it then asks the complement's vertex
   cover (``mce_kit.vertex_cover``), and searches only where that gives up.
2. Roots in reverse degeneracy order (high core first). The cliques whose earliest vertex is v lie
   in v's later neighbours S (only roots whose ego-pass bound reaches the target, where the pass
   finished); only vertices with core >= target - 1 enter S, then S is peeled to
   its (target - 2)-core on bitsets, so a root whose S is too small costs one scan. The first root
   with core + 1 < target ends the search (core numbers only fall along the reversed order).
3. Inside a root, MCQ/BBMC: candidates are bitsets over S relabelled by falling local degree; a
   greedy colouring by independent colour classes gives every candidate u a colour c(u), and a
   branch on u can add at most c(u) vertices. Branches run from the highest colour down; vertices
   whose colour cannot reach the target are never branched on (they stay as candidates below).
4. ``clique_number`` prunes with <= (only larger cliques are sought, the target rises with each
   one found). ``max_cliques`` first finds omega that way (or takes it from the bounds), then a
   second search with the target fixed at omega prunes with < and keeps every clique of size omega,
   visiting only the (omega - 1)-core.

The list of maximum cliques can be huge (MANN_a27). The cliques go into a buffer that grows
(a root that fills it is searched again with a larger one) up to what the memory at hand holds as
Python lists; past that the call raises MemoryError with what it would need, before the machine
runs short. Roots are searched in chunks of about ``NODES_PER_CALL`` branch nodes, so a progress
bar moves and Ctrl-C stops the search between chunks (KeyboardInterrupt names the best clique found).
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from .bound_steps import bitset_peel, bitset_rows, orient
from .bound_steps import popcount as _popcount
from .bounds import MEMORY_SHARE, CliqueBounds, bytes_per_clique, clique_bounds
from .config import available_bytes
from .graph import Graph
from .jit import njit
from .vertex_cover import omega_above_bounds, use_complement

NODES_PER_CALL = 1 << 18   # branch nodes searched between two returns to Python (progress, Ctrl-C)
FIRST_ROWS = 1 << 12       # maximum cliques the first buffer holds
ONE_PASS_BYTES = 1 << 26   # buffer the one-pass search may fill before it leaves the work to two passes


@njit(nogil=True, inline="always")
def _colour(P, adj, W, kmin, U, Q, V, C):
    """Greedy colouring of bitset P by independent classes; (vertex, colour) pairs with colour >= kmin
    go to V, C in ascending colour. Returns how many."""
    left = 0
    for w in range(W):
        U[w] = P[w]
        left += _popcount(P[w])
    k = 0
    nb = 0
    while left > 0:
        k += 1
        for w in range(W):
            Q[w] = U[w]
        for w in range(W):
            while Q[w] != 0:
                b = trailing_zeros(Q[w])
                Q[w] &= Q[w] - np.uint64(1)
                U[w] &= ~(np.uint64(1) << np.uint64(b))
                left -= 1
                i = w * 64 + b
                for x in range(w, W):
                    Q[x] &= ~adj[i, x]
                if k >= kmin:
                    V[nb] = i
                    C[nb] = k
                    nb += 1
    return nb


@njit(nogil=True, inline="always")
def _emit(out, n_out, v, verts, R, depth):
    """Append the clique root ``v`` + ``verts[R[0..depth]]`` as the next row of ``out``."""
    row = n_out[0]
    out[row, 0] = v
    for t in range(depth + 1):
        out[row, t + 1] = verts[R[t]]
    n_out[0] = row + 1


@njit(nogil=True)
def search(optr, oidx, core, roots, start, stop, target, upper, ties, rising, node_budget, out, n_out, best,
           pos, work):
    """Roots roots[start], roots[start + 1], ... up to index ``stop`` (see the module doc); ``roots``
    follow the reversed degeneracy order (core numbers never rise along it).

    Strict (ties False): seeks cliques of size >= target; each one found is written to ``best``
    (best[0] = size, then its vertices) and raises target to size + 1; stops at ``upper``.
    Ties: every clique of size == target becomes a row of ``out`` (n_out[0] rows so far); with
    ``rising`` a larger clique raises the target to its size and the rows start again from it.
    Returns (next start, target, nodes, status): status 0 = go on or done, 1 = ``out`` is full
    (call again with a larger ``out`` holding the same rows: the search goes on where it stopped,
    its state kept in ``work``). ``pos`` (n, all -1) and ``work`` are kept between calls."""
    nodes = 0
    rows = out.shape[0]
    adj, adj2, P, V, C, it, R, deg, S, S2, loc, A, U, Q, verts, state = work
    while start < stop:
        v = roots[start]
        if state[0] != 0:  # back in the root that filled ``out``: first the clique it held back
            depth, W2 = state[1], state[2]
            state[0] = 0
            _emit(out, n_out, v, verts, R, depth)
        else:
            if core[v] + 1 < target or (not ties and target > upper):
                return stop, target, nodes, 0
            s = 0
            for j in range(optr[v], optr[v + 1]):
                u = oidx[j]
                if core[u] + 1 >= target:
                    S[s] = u
                    s += 1
            if s + 1 < target:
                start += 1
                continue
            W = (s + 63) >> 6
            for k in range(s):
                pos[S[k]] = k
            bitset_rows(S, s, pos, optr, oidx, adj)
            for k in range(s):
                pos[S[k]] = -1
            # peel S to the vertices with >= target - 2 neighbours in S
            bitset_peel(adj, s, target - 2, A, deg, loc)
            s2 = 0
            for w in range(W):
                x = A[w]
                while x != 0:
                    S2[s2] = w * 64 + trailing_zeros(x)
                    x &= x - np.uint64(1)
                    s2 += 1
            if s2 + 1 < target:
                start += 1
                continue
            # relabel by falling local degree (ties: rising k): those colour first, the loose ones
            # branch first. A counting sort: no Numba sort inside a cached function (mce_kit.jit)
            top = 0
            for k in range(s2):
                top = max(top, deg[S2[k]])
            first = np.zeros(top + 2, np.int64)   # first[top - d]: where the run of degree d starts
            for k in range(s2):
                first[top - deg[S2[k]] + 1] += 1
            for d in range(1, top + 2):
                first[d] += first[d - 1]
            srt = np.empty(s2, np.int64)
            for k in range(s2):
                run = top - deg[S2[k]]
                srt[first[run]] = k
                first[run] += 1
            W2 = (s2 + 63) >> 6
            for k in range(s2):
                loc[S2[srt[k]]] = k
            for k in range(s2):
                old = S2[srt[k]]
                for w in range(W2):
                    adj2[k, w] = 0
                for w in range(W):
                    x = adj[old, w] & A[w]
                    while x != 0:
                        p = loc[w * 64 + trailing_zeros(x)]
                        x &= x - np.uint64(1)
                        adj2[k, p >> 6] |= np.uint64(1) << np.uint64(p & 63)
            # verts[local id] = vertex of G
            for k in range(s2):
                verts[k] = S[S2[srt[k]]]
            for w in range(W2):
                P[0, w] = 0
            for k in range(s2):
                P[0, k >> 6] |= np.uint64(1) << np.uint64(k & 63)
            cnt = _colour(P[0], adj2, W2, target - 1, U, Q, V[0], C[0])
            it[0] = cnt - 1
            depth = 0
        while depth >= 0:
            j = it[depth]
            if j < 0:
                depth -= 1
                continue
            it[depth] = j - 1
            u = V[depth, j]
            r = 1 + depth  # clique size before u joins: v and R[0..depth-1]
            if r + C[depth, j] < target:
                it[depth] = -1
                continue
            nodes += 1
            nonempty = False
            for w in range(W2):
                x = P[depth, w] & adj2[u, w]
                P[depth + 1, w] = x
                if x != 0:
                    nonempty = True
            P[depth, u >> 6] &= ~(np.uint64(1) << np.uint64(u & 63))
            R[depth] = u
            if not nonempty:
                size = r + 1
                if size >= target:
                    if ties:
                        if rising and size > target:  # the cliques kept so far are not maximum
                            n_out[0] = 0
                            target = size
                        if size > best[0]:
                            best[0] = size
                            best[1] = v
                            for t in range(depth + 1):
                                best[t + 2] = verts[R[t]]
                        if n_out[0] >= rows:  # hold this clique back, come back here after a larger out
                            state[0], state[1], state[2] = 1, depth, W2
                            return start, target, nodes, 1
                        _emit(out, n_out, v, verts, R, depth)
                    else:
                        best[0] = size
                        best[1] = v
                        for t in range(depth + 1):
                            best[t + 2] = verts[R[t]]
                        target = size + 1
                        if target > upper:
                            return stop, target, nodes, 0
                continue
            cnt = _colour(P[depth + 1], adj2, W2, target - r - 1, U, Q, V[depth + 1], C[depth + 1])
            if cnt > 0:
                depth += 1
                it[depth] = cnt - 1
        start += 1
        if nodes >= node_budget:
            return start, target, nodes, 0
    return start, target, nodes, 0


def _work(width: int, depth: int) -> tuple:
    """Scratch arrays for roots with at most ``width`` candidates and cliques up to ``depth`` deep."""
    W = max(1, (width + 63) >> 6)
    i32 = np.int32
    return (np.zeros((width, W), np.uint64), np.zeros((width, W), np.uint64),
            np.zeros((depth + 2, W), np.uint64), np.zeros((depth + 2, width + 1), i32),
            np.zeros((depth + 2, width + 1), i32), np.zeros(depth + 2, np.int64), np.zeros(depth + 2, i32),
            np.zeros(width + 1, np.int64), np.zeros(width + 1, i32), np.zeros(width + 1, i32),
            np.zeros(max(width, 64 * W) + 1, i32), np.zeros(W, np.uint64), np.zeros(W, np.uint64),
            np.zeros(W, np.uint64), np.zeros(width + 1, i32), np.zeros(3, np.int64))


class _Overflow(Exception):
    """More cliques of an interim size than a one-pass search keeps."""


class _Search:
    """The roots of G above a target, searched in chunks (progress bar, Ctrl-C between chunks)."""

    def __init__(self, G: Graph, b: CliqueBounds, min_core: int, progress, what: str):
        self.b, self.progress, self.what = b, progress, what
        self.optr, self.oidx = orient(G.indptr, G.indices, b.order, b.core, min_core)
        out_deg = np.diff(self.optr)
        self.width = int(out_deg.max()) if len(out_deg) else 0
        self.pos = np.full(G.n, -1, np.int32)
        self.work = _work(self.width, b.upper)
        roots = b.order[::-1]
        roots = roots[b.core[roots] >= min_core]  # a prefix of the reversed order
        if b.root_bound is not None:  # the ego pass of the bounds rules the other roots out
            roots = roots[b.root_bound[roots] >= min_core + 1]
        self.root_ids = np.ascontiguousarray(roots)
        self.roots = len(roots)

    def run(self, target: int, ties: bool, out=None, memory_bytes: int | None = None, rising: bool = False,
            max_rows: int | None = None):
        """Strict: (size of the largest clique >= target, its vertices) or (0, None).
        Ties: (rows of ``out`` filled, out, their size); ``out`` grows while the list of cliques fits in
        ``memory_bytes`` (None: ``MEMORY_SHARE`` of the memory available then), else MemoryError;
        ``rising``: the target rises with every larger clique, ``_Overflow`` past ``max_rows``."""
        best = np.zeros(self.b.upper + 2, np.int64)
        n_out = np.zeros(1, np.int64)
        if out is None:
            out = np.zeros((0, max(target, 1)), np.int32)
        start, bar = 0, None
        if self.progress:
            bar = RootBar(self.progress, self.roots, self.what)
        try:
            while start < self.roots:
                nxt, target, _, status = search(self.optr, self.oidx, self.b.core, self.root_ids, start,
                                                self.roots, target, self.b.upper, ties, rising,
                                                NODES_PER_CALL, out, n_out, best, self.pos, self.work)
                if bar is not None:
                    bar.update(nxt - start)
                start = nxt
                if status == 1 and rising:
                    if out.shape[0] >= max_rows:
                        raise _Overflow
                    try:
                        out = self._grow(out, memory_bytes, int(n_out[0]), max_rows)
                    except MemoryError:
                        raise _Overflow from None
                elif status == 1:
                    out = self._grow(out, memory_bytes, int(n_out[0]))
        except KeyboardInterrupt:
            found = best[2:best[0] + 1].tolist() if best[0] else self.b.clique.tolist()
            raise KeyboardInterrupt(f"maximum clique search stopped: omega >= {max(best[0], self.b.lower)} "
                                    f"(clique {sorted(found)}), omega <= {self.b.upper}") from None
        finally:
            if bar is not None:
                bar.close()
        if ties:
            return int(n_out[0]), out[:, :target], target
        size = int(best[0])
        return (size, np.sort(best[1:size + 1]).astype(np.int32)) if size else (0, None)

    @staticmethod
    def _grow(out, memory_bytes: int | None, rows: int, limit: int | None = None):
        omega = out.shape[1]
        budget = int(MEMORY_SHARE * available_bytes()) if memory_bytes is None else int(memory_bytes)
        cap = max(1, budget // bytes_per_clique(omega))
        if out.shape[0] >= cap:
            raise MemoryError(
                f"max_cliques: more than {out.shape[0]:,} maximum cliques of size {omega} (seen so far); "
                f"holding them needs more than {out.shape[0] * bytes_per_clique(omega) / 2**30:.2f} GiB "
                f"and the {budget / 2**30:.2f} GiB allowed ({MEMORY_SHARE:.0%} of what is available unless "
                f"memory_bytes says) hold {cap:,}. clique_number(G) gives omega alone")
        # zeros come from calloc: pages never written cost no memory, so one step to the cap
        bigger = np.zeros((cap if limit is None else min(cap, limit), omega), np.int32)
        bigger[:rows] = out[:rows]
        return bigger


class RootBar:
    """Progress over ``total`` steps (roots, windows): ``progress`` True (a tqdm bar on stderr) or a
    wrapper of an iterable (as the oracles take, e.g. ``lambda roots: tqdm(roots)``), advanced as
    steps finish."""

    def __init__(self, progress, total: int, what: str):
        if progress is True:
            import sys

            from tqdm.auto import tqdm

            progress = lambda roots: tqdm(roots, desc=what, unit="root", file=sys.stderr, leave=False)  # noqa: E731
        self.wrapped = progress(range(total))
        self.it = iter(self.wrapped)

    def update(self, k: int) -> None:
        for _ in range(k):
            next(self.it, None)

    def postfix(self, **what) -> None:
        """Show ``what`` beside the bar (where the wrapper is a tqdm bar)."""
        show = getattr(self.wrapped, "set_postfix", None)
        if show is not None:
            show(what, refresh=False)

    def close(self) -> None:
        for _ in self.it:  # a generator wrapper ends (and a tqdm bar closes) when exhausted
            pass
        getattr(self.wrapped, "close", lambda: None)()


def clique_number(G: Graph, *, progress=False, bounds: CliqueBounds | None = None, with_route: bool = False):
    """omega; no search when the bounds meet (``progress``: True for a tqdm bar over the roots);
    ``with_route``: (omega, how it was found: "bounds", "complement" or "search")."""
    omega, _, route = _omega(G, progress, bounds)
    return (omega, route) if with_route else omega


def omega_and_clique(G: Graph, *, progress=False, bounds: CliqueBounds | None = None):
    """(omega, one maximum clique as sorted vertex ids)."""
    return _omega(G, progress, bounds)[:2]


def _omega(G: Graph, progress, bounds: CliqueBounds | None):
    """(omega, one maximum clique, route): "bounds" where they meet, "complement" where the dense
    graph's complement answered (mce_kit.vertex_cover), else "search"."""
    b = clique_bounds(G) if bounds is None else bounds
    if b.exact:
        return b.lower, b.clique, "bounds"
    found = omega_above_bounds(G, b)
    if found is not None:
        return (*found, "complement")
    size, clique = _Search(G, b, b.lower, progress, "maximum clique").run(b.lower + 1, False)
    return (size, clique, "search") if size else (b.lower, b.clique, "search")


def max_cliques(G: Graph, *, progress=False, bounds: CliqueBounds | None = None,
                memory_bytes: int | None = None) -> tuple[int, list[list[int]]]:
    """(omega, every maximum clique sorted, each ascending); MemoryError, before any shortage, when
    the list would not fit in ``memory_bytes`` (default: half the memory available)."""
    if G.n == 0:
        return 0, []
    b = clique_bounds(G) if bounds is None else bounds
    omega = b.lower
    if b.exact and omega == 1:
        return 1, [[v] for v in range(G.n)]
    if not b.exact and not use_complement(G):  # one pass: the target rises from the greedy clique's size
        try:
            search_ = _Search(G, b, b.lower - 1, progress, "maximum cliques")
            first = np.zeros((FIRST_ROWS, b.upper), np.int32)
            most = max(FIRST_ROWS, ONE_PASS_BYTES // (4 * b.upper))
            rows, out, omega = search_.run(b.lower, True, first, memory_bytes, rising=True, max_rows=most)
            return omega, _sorted_rows(out[:rows])
        except _Overflow:
            pass  # many ties: find omega first, then keep only cliques of that size
    omega, _ = omega_and_clique(G, progress=progress, bounds=b)
    search_ = _Search(G, b, omega - 1, progress, "maximum cliques")
    rows = FIRST_ROWS if memory_bytes is None else min(FIRST_ROWS, memory_bytes // bytes_per_clique(omega))
    rows = max(rows, 1)
    first = np.zeros((rows, omega), np.int32)
    rows, out, _ = search_.run(omega, True, first, memory_bytes)
    return omega, _sorted_rows(out[:rows])


def _sorted_rows(M: np.ndarray) -> list[list[int]]:
    """Each row ascending, rows in lexicographic order, as lists."""
    M = np.sort(M, axis=1)
    return M[np.lexsort(M.T[::-1])].tolist()
