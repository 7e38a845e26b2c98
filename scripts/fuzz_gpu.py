"""Every public GPU call against an oracle on random graphs, each GPU call made twice (a race shows as
two answers): networkx for small graphs, the CPU engine (itself tested against networkx) for larger
ones. Families: G(n, p) sparse to dense, a planted clique, tied cliques planted in a sparse graph,
Barabasi-Albert hubs, caveman, complete multipartite, stars, isolated vertices, disjoint cliques,
random bipartite. Some calls force the
launchers' other paths (tiny buffers: several passes; few warps; the other algorithm). From the
checkout on a GPU host:
    python3 scripts/fuzz_gpu.py SECONDS [FIRST_SEED] > fuzz.log
Each mismatch prints one line starting with BAD (family, seed, call, got, want); each graph a line
(its checks and seconds); the last line counts the checks."""
import faulthandler
import random
import re
import sys
import time

import networkx as nx
import numpy as np

import mce_kit as mk
from mce_kit.gpu import geil
from mce_kit.gpu.kclique import KMAX

faulthandler.enable()   # a crash prints every thread's Python stack (one run at 470119a ended in SIGSEGV)
geil.ARENA_MIN_ENTRIES = 64   # Geil's levels pass their first arena: the growth moves to larger ones

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 60
seed0 = int(sys.argv[2]) if len(sys.argv) > 2 else 0
checks = bad = 0
LISTED_MAX = 200_000   # maximal cliques a graph's listings are compared up to (else counts only)


def graph(H: nx.Graph) -> mk.Graph:
    H = nx.convert_node_labels_to_integers(H)
    e = np.array(list(H.edges()), dtype=np.int64).reshape(-1, 2)
    return mk.Graph.from_edges(H.number_of_nodes(), e[:, 0], e[:, 1])


def families(r: random.Random, seed: int):
    small = r.randint(0, 40)
    yield "gnp", nx.gnp_random_graph(small, r.random(), seed=seed)
    yield "gnp-dense", nx.gnp_random_graph(r.randint(1, 70), 0.6 + 0.4 * r.random(), seed=seed)
    planted = nx.gnp_random_graph(r.randint(20, 50), 0.5 + 0.3 * r.random(), seed=seed)
    planted.add_edges_from(nx.complete_graph(r.sample(range(planted.number_of_nodes()), 18)).edges())
    yield "planted", planted   # omega often known from the bounds: max_cliques' ties rule
    sparse = nx.gnp_random_graph(r.randint(60, 300), 0.01 + 0.07 * r.random(), seed=seed)
    size = r.randint(5, KMAX)
    for _ in range(r.randint(2, 3)):   # tied cliques, maybe overlapping: KCMiner lists them (omega known)
        sparse.add_edges_from(nx.complete_graph(r.sample(range(sparse.number_of_nodes()), size)).edges())
    yield "planted-sparse", sparse
    yield "ba-hubs", nx.barabasi_albert_graph(r.randint(50, 600), r.randint(1, 6), seed=seed)
    yield "powerlaw-cluster", nx.powerlaw_cluster_graph(r.randint(50, 600), r.randint(2, 8), r.random(),
                                                        seed=seed)
    yield "caveman", nx.relaxed_caveman_graph(r.randint(1, 12), r.randint(2, 20), 0.3 * r.random(), seed=seed)
    yield "multipartite", nx.complete_multipartite_graph(*[r.randint(1, 5) for _ in range(r.randint(1, 7))])
    yield "star", nx.star_graph(r.randint(0, 2000))
    yield "cliques", nx.disjoint_union_all([nx.complete_graph(r.randint(1, 40))
                                            for _ in range(r.randint(1, 6))])
    g = nx.gnp_random_graph(r.randint(2, 300), 0.05 + 0.2 * r.random(), seed=seed)
    g.add_nodes_from(range(g.number_of_nodes(), g.number_of_nodes() + r.randint(1, 20)))
    yield "isolated", g


def check(fam: str, seed: int, what: str, gpu, want) -> None:
    """``gpu()`` twice against ``want``."""
    global checks, bad
    for _ in range(2):
        checks += 1
        try:
            got = gpu()
        except Exception as e:   # (an error is a mismatch too, named)
            got = f"{type(e).__name__}: {e}"[:160]
        if got != want:
            bad += 1
            print(f"BAD {fam} seed={seed} {what}: got {got!r:.200} want {want!r:.200}", flush=True)
            return


def refused_or(call, want):
    """``call()``, or ``want`` where a capped buffer refuses a seed that needs more than the cap (the
    refusal must name bytes over the cap: a seed that fits and is refused stays a mismatch)."""
    try:
        return call()
    except MemoryError as e:
        need, cap = (int(x.replace(",", "")) for x in re.findall(r"\(([\d,]+) bytes\)", str(e))[:2])
        if need > cap:
            return want
        raise


def sorted_cliques(cliques) -> list:
    return sorted(sorted(c) for c in cliques)


def general(fam: str, seed: int, r: random.Random, H: nx.Graph) -> None:
    G = graph(H)
    small = G.n <= 60
    if not small:
        count = int(mk.count_maximal_cliques(G, device="cpu"))
        if count > LISTED_MAX:   # (a dense G(70, p))
            return many_cliques(fam, seed, G, count)
    maximal = sorted_cliques(nx.find_cliques(H) if small else mk.find_cliques(G, device="cpu"))
    omega = max((len(c) for c in maximal), default=0)
    check(fam, seed, "count_maximal_cliques", lambda: int(mk.count_maximal_cliques(G, device="gpu")),
          len(maximal))
    check(fam, seed, "count_maximal_cliques mce-gpu",
          lambda: int(mk.count_maximal_cliques(G, device="gpu", algorithm="mce-gpu")), len(maximal))
    tiny = r.choice([1 << 16, 1 << 20])
    check(fam, seed, f"count_maximal_cliques buffer={tiny}",
          lambda: int(mk.count_maximal_cliques(G, device="gpu", max_buffer_bytes=tiny)), len(maximal))
    lo = r.randint(1, max(1, omega))
    check(fam, seed, f"count_maximal_cliques min_size={lo}",
          lambda: int(mk.count_maximal_cliques(G, device="gpu", min_size=lo)),
          sum(len(c) >= lo for c in maximal))
    check(fam, seed, "find_cliques", lambda: sorted_cliques(mk.find_cliques(G, device="gpu")), maximal)
    check(fam, seed, "clique_number", lambda: int(mk.clique_number(G, device="gpu")), omega)
    check(fam, seed, "max_cliques",
          lambda: (lambda o, cs: (o, sorted_cliques(cs)))(*mk.max_cliques(G, device="gpu")),
          (omega, [c for c in maximal if len(c) == omega]))
    ties = (omega, [c for c in maximal if len(c) == omega])
    for kw in ({"window": r.choice([4, 64])}, {"level_bytes": r.choice([1 << 10, 1 << 14])},
               {"heuristic": "none"}):
        run = geil.prepare(G).run
        check(fam, seed, f"geil run {kw}", lambda kw=kw, run=run: (lambda res: (res.omega, sorted_cliques(
              res.cliques)))(run(listing=True, **kw)), ties)
    # the public call's kept state under switches that differ (not drawn from r: seeds keep their graphs)
    for kw in ({"window": (4, 64)[seed % 2]}, {"level_bytes": (1 << 10, 1 << 14)[seed % 2]}):
        check(fam, seed, f"max_cliques {kw}", lambda kw=kw: (lambda o, cs: (o, sorted_cliques(cs)))(
              *mk.max_cliques(G, device="gpu", **kw)), ties)
    counts = mk.clique_counts(G, device="cpu")
    check(fam, seed, "clique_counts", lambda: mk.clique_counts(G, device="gpu"), counts)
    for k in sorted({3, 4, r.randint(3, max(3, omega + 1)), r.randint(5, 12)}):
        want = counts.get(k, 0)
        check(fam, seed, f"count_k_cliques k={k} pivot",
              lambda k=k: int(mk.count_k_cliques(G, k, device="gpu", algorithm="pivot")), want)
        if want > 10**7 or k > KMAX:   # listing visits every clique (dense graphs' deep counts take
            continue                   # minutes); KCMiner refuses k past KMAX by name
        check(fam, seed, f"count_k_cliques k={k} listing",
              lambda k=k: int(mk.count_k_cliques(G, k, device="gpu", algorithm="listing")), want)
        check(fam, seed, f"count_k_cliques k={k} warps_per_sm=1",
              lambda k=k: int(mk.count_k_cliques(G, k, device="gpu", warps_per_sm=1)), want)
        if want <= 20000:
            check(fam, seed, f"k_cliques k={k}", lambda k=k: len({tuple(sorted(c)) for c in
                                                                   mk.k_cliques(G, k, device="gpu")}), want)


def many_cliques(fam: str, seed: int, G: mk.Graph, want: int) -> None:
    """Counts and the maximum cliques only, against the CPU engine (``want`` maximal cliques): past
    ``LISTED_MAX`` of them, sorting every listing in Python takes minutes."""
    check(fam, seed, "count_maximal_cliques", lambda: int(mk.count_maximal_cliques(G, device="gpu")), want)
    check(fam, seed, "count_maximal_cliques mce-gpu",
          lambda: int(mk.count_maximal_cliques(G, device="gpu", algorithm="mce-gpu")), want)
    omega, ties = mk.max_cliques(G, device="cpu")
    check(fam, seed, "clique_number", lambda: int(mk.clique_number(G, device="gpu")), omega)
    check(fam, seed, "max_cliques", lambda: (lambda o, cs: (o, sorted_cliques(cs)))(
          *mk.max_cliques(G, device="gpu")), (omega, sorted_cliques(ties)))
    counts = mk.clique_counts(G, device="cpu")
    check(fam, seed, "clique_counts", lambda: mk.clique_counts(G, device="gpu"), counts)


def bipartite(seed: int, r: random.Random) -> None:
    a, b = r.randint(0, 60), r.randint(0, 60)
    p = r.random() * (0.6 if r.random() < 0.5 else 0.15)
    pairs = [(u, v) for u in range(a) for v in range(b) if r.random() < p]
    eu = np.array([u for u, _ in pairs], dtype=np.int64)
    ev = np.array([v for _, v in pairs], dtype=np.int64)
    B = mk.BipartiteGraph.from_edges(a, b, eu, ev)
    want = int(mk.count_maximal_bicliques(B, device="cpu"))
    check("bipartite", seed, "count_maximal_bicliques",
          lambda: int(mk.count_maximal_bicliques(B, device="gpu")), want)
    listed = sorted((sorted(x), sorted(y)) for x, y in mk.maximal_bicliques(B, device="cpu"))
    check("bipartite", seed, "maximal_bicliques",
          lambda: sorted((sorted(x), sorted(y)) for x, y in mk.maximal_bicliques(B, device="gpu")), listed)
    # other settings on the same graph: each keeps a plan of its own beside the default's
    setting = r.choice([{"level": "gmbe+"}, {"level": "warp", "union": "merge"}, {"tau": 8},
                        {"donate": "always"}, {"max_buffer_bytes": 4096}])
    check("bipartite", seed, f"count_maximal_bicliques {setting}",
          lambda: refused_or(lambda: int(mk.count_maximal_bicliques(B, device="gpu", **setting)), want), want)
    check("bipartite", seed, "count_maximal_bicliques again",
          lambda: int(mk.count_maximal_bicliques(B, device="gpu")), want)


start = time.perf_counter()
seed = seed0
while time.perf_counter() - start < seconds:
    r = random.Random(seed)
    for fam, H in families(r, seed):
        t0, before = time.perf_counter(), checks
        general(fam, seed, r, H)
        print(f"{fam} seed={seed} n={H.number_of_nodes()} m={H.number_of_edges()}: {checks - before} checks, "
              f"{time.perf_counter() - t0:.1f} s", flush=True)
    bipartite(seed, r)
    seed += 1
print(f"seeds {seed0}..{seed - 1}: {checks} checks, {bad} mismatches, {time.perf_counter() - start:.0f} s")
