"""The explorer's catalog: its graphs by name, its algorithms and their options, and the one call that
builds a tree from them (shared by the widget and the static step tables; needs no widget library)."""

from __future__ import annotations

from .. import sim
from ..sim import examples


def _graphs():
    from .. import datasets
    from ..graph import Graph

    def karate():
        import networkx as nx

        H = nx.karate_club_graph()
        e = list(H.edges())
        return Graph.from_edges(H.number_of_nodes(), [a for a, _ in e], [b for _, b in e], name="karate club")

    return {
        "mce-gpu Figure 1": examples.figure1_graph,
        "GMBE+ G0 (bipartite)": examples.g0_bipartite,
        "G0 + v5 (bipartite)": examples.g0_plus_v5,
        "4-clique with a fringe": examples.fringe_graph,
        "cocktail party K(2,2,2,2,2)": examples.cocktail_party,
        "random G(10, 0.5)": lambda: examples.random_graph(10, 0.5, seed=4),
        "random G(16, 0.45)": lambda: examples.random_graph(16, 0.45, seed=7),
        "karate club": karate,
        "hamming6-4 (DIMACS)": lambda: datasets.load("hamming6-4"),
        "random bipartite 8x6": lambda: examples.random_bipartite(8, 6, 0.45, seed=3),
    }


GRAPHS = _graphs()

ALGORITHMS = {
    "Bron–Kerbosch": ("pivot", "order", "seeds", "aggressive"),
    "RDMCE bitmap": ("order", "seeds", "aggressive"),
    "mce-gpu": ("order", "seeds", "induced"),
    "KCMiner k-cliques": ("k", "lam"),
    "Geil maximum cliques": ("window", "bound"),
    "GMBE+ bicliques": ("prune", "tau", "gseeds"),
}

DEFAULTS = {"pivot": True, "order": "natural", "seeds": "root", "aggressive": False, "induced": "IPX",
            "k": 3, "lam": 0.3, "window": 0, "bound": True, "prune": True, "tau": 32, "gseeds": "vertex"}


def build_tree(G, algorithm: str, **o):
    """Run one model with the explorer's option names."""
    o = {**DEFAULTS, **o}
    seeds = o["seeds"] if o["seeds"] != "root" else "vertex"
    if algorithm == "Bron–Kerbosch":
        return sim.bron_kerbosch(G, pivot=o["pivot"], order=o["order"], seeds=o["seeds"],
                                 aggressive=o["aggressive"])
    if algorithm == "RDMCE bitmap":
        return sim.rdmce_bitmap(G, seeds=seeds, aggressive=o["aggressive"], order=o["order"])
    if algorithm == "mce-gpu":
        return sim.mce_gpu(G, seeds=seeds, induced=o["induced"], order=o["order"])
    if algorithm == "KCMiner k-cliques":
        return sim.kcminer(G, o["k"], lam=o["lam"])
    if algorithm == "Geil maximum cliques":
        return sim.geil_bfs(G, window=o["window"] or None, bound=o["bound"])
    if algorithm == "GMBE+ bicliques":
        return sim.gmbe_plus(G, prune=o["prune"], tau=o["tau"], seeds=o["gseeds"])
    raise ValueError(f"unknown algorithm {algorithm!r}")
