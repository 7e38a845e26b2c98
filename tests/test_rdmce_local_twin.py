"""A Python twin of rdmce.cu's solve_local (the register sub-trees), with the listing build's
suspension: the sub-tree stops at the top of its branch loop whenever the ring is full and goes on
from exactly what the kernel saves in resume[] (deepest level d, r0, the local vertices, and each
lane's level P, X, branches left, R as lane masks). Checked against networkx on random sub-problems,
suspended after every clique or at random: every maximal clique once, none lost or duplicated.
"""

import itertools

import networkx as nx
import numpy as np
import pytest


def _popc(x: int) -> int:
    return bin(x).count("1")


def _ffs(x: int) -> int:
    return (x & -x).bit_length() - 1


def _adj(H, ids, in_p):
    """Lane masks as solve_local builds them: pairs of X vertices are left out (no step reads them)."""
    n = len(ids)
    adj = [0] * 32
    for i, j in itertools.combinations(range(n), 2):
        if (in_p[i] or in_p[j]) and H.has_edge(ids[i], ids[j]):
            adj[i] |= 1 << j
            adj[j] |= 1 << i
    return adj


def solve_local_twin(H, ids, in_p, r0, aggressive, agg_on, out, stop_after, saved=None):
    """One call of solve_local: appends (size, R as a set of ids) per maximal clique of the sub-tree to
    ``out``; ``stop_after(k)`` says whether the k-th clique of this call fills the ring. Returns the saved
    state (a dict of exactly the kernel's resume[] fields) when suspended, else None."""
    lvP, lvX, lvV, lvR, lvRm = [0] * 32, [0] * 32, [0] * 32, [0] * 32, [0] * 32
    d = -1
    if saved is not None:                      # resumed: reload what the kernel saved
        d, r0, ids, in_p = saved["d"], saved["r0"], saved["ids"], saved["in_p"]
        for lane in range(32):
            lvP[lane], lvX[lane], lvV[lane], lvRm[lane] = saved["lanes"][lane]
            lvR[lane] = r0 + _popc(lvRm[lane])
    n = len(ids)
    adj = _adj(H, ids, in_p)
    Pl = sum(1 << i for i in range(n) if in_p[i])
    Xl = sum(1 << i for i in range(n) if not in_p[i])
    Rm, r, agg, stop, skip, emitted = 0, r0, aggressive, False, saved is not None, 0

    def emit(size):
        nonlocal stop, emitted
        assert size == r0 + _popc(Rm)
        out.append((size, frozenset(ids[i] for i in range(n) if Rm >> i & 1)))
        emitted += 1
        stop = stop or stop_after(emitted)

    while True:
        while not skip:                        # expand the node (Pl, Xl, r)
            np_ = _popc(Pl)
            c = [_popc(adj[lane] & Pl) for lane in range(32)]
            if any(Xl >> lane & 1 and c[lane] == np_ for lane in range(32)):
                break
            if agg:
                A = sum(1 << lane for lane in range(32) if Pl >> lane & 1 and c[lane] == np_ - 1)
                if A:
                    for lane in range(32):
                        if A >> lane & 1:
                            Xl &= adj[lane]
                    Pl &= ~A
                    r += _popc(A)
                    Rm |= A
                    agg = False
                    if Pl == 0:
                        if Xl == 0:
                            emit(r)
                        break
                    continue
            val = [c[lane] if (Pl | Xl) >> lane & 1 else -1 for lane in range(32)]
            piv = val.index(max(val))
            V = Pl & ~adj[piv]
            d += 1
            lvP[d], lvX[d], lvV[d], lvR[d], lvRm[d] = Pl, Xl, V, r, Rm
            break
        skip = False
        child = False
        while d >= 0:
            if stop:                           # suspend: exactly the fields the kernel saves
                return {"d": d, "r0": r0, "ids": ids, "in_p": in_p,
                        "lanes": [(lvP[i], lvX[i], lvV[i], lvRm[i]) for i in range(32)]}
            V = lvV[d]
            if V == 0:
                d -= 1
                continue
            v = _ffs(V)
            bit = 1 << v
            Rm = lvRm[d] | bit
            Pd, Xd, rd = lvP[d], lvX[d], lvR[d]
            lvV[d], lvP[d], lvX[d] = V & ~bit, Pd & ~bit, Xd | bit
            Pl, Xl, r = Pd & adj[v], Xd & adj[v], rd + 1
            if Pl == 0:
                if Xl == 0:
                    emit(r)
                continue
            agg = agg_on
            child = True
            break
        if not child:
            return None


def _subproblem(rng):
    """A random sub-problem: up to 32 local vertices split into P (>= 1) and X, and its graph."""
    n = int(rng.integers(1, 33))
    kind = rng.choice(["gnp", "dense", "moon", "complete"])
    if kind == "gnp":
        H = nx.gnp_random_graph(n, float(rng.choice([0.2, 0.5, 0.8])), seed=int(rng.integers(1 << 30)))
    elif kind == "dense":
        H = nx.gnp_random_graph(n, 0.95, seed=int(rng.integers(1 << 30)))
    elif kind == "moon":                       # complement of disjoint triangles: 3^(n/3) maximal cliques
        H = nx.complement(nx.disjoint_union_all([nx.complete_graph(3)] * max(1, n // 3)))
        n = H.number_of_nodes()
    else:
        H = nx.complete_graph(n)
    ids = [int(v) for v in rng.permutation(n)]
    n_p = int(rng.integers(1, n + 1))
    in_p = [True] * n_p + [False] * (n - n_p)
    perm = rng.permutation(n)                  # P and X vertices interleaved over the lanes
    return H, [ids[i] for i in perm], [in_p[i] for i in perm]


def _want(H, ids, in_p):
    P = {v for v, p in zip(ids, in_p, strict=True) if p}
    sub = H.subgraph(ids)
    return sorted(sorted(c) for c in nx.find_cliques(sub) if set(c) <= P)


@pytest.mark.parametrize("seed", range(6))
def test_register_subtree_twin_suspended_anywhere_keeps_every_clique_once(seed):
    rng = np.random.default_rng(seed)
    suspensions = 0
    for _ in range(60):
        H, ids, in_p = _subproblem(rng)
        want = _want(H, ids, in_p)
        agg_on = bool(rng.random() < 0.7)
        r0 = int(rng.integers(0, 40))
        policy = rng.choice(["every", "random", "never"])
        p_stop = float(rng.uniform(0.05, 0.9))
        stop_after = {"every": lambda k: True, "never": lambda k: False,
                      "random": lambda k, p=p_stop: bool(rng.random() < p)}[policy]
        out = []
        state = solve_local_twin(H, ids, in_p, r0, agg_on, agg_on, out, stop_after)
        calls = 1
        while state is not None:               # one relaunch per suspension
            state = solve_local_twin(H, None, None, None, False, agg_on, out, stop_after, saved=state)
            calls += 1
            assert calls <= 4 * len(want) + 2, "a resumed sub-tree made no progress"
        suspensions += calls - 1
        got = sorted(sorted(R) for _, R in out)
        assert got == want, (ids, in_p)
        assert all(size == r0 + len(R) for size, R in out)
        if policy == "every":                  # a suspension after every clique but the last ones
            assert calls >= len(want)
    assert suspensions > 100
