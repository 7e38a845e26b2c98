"""Instrumented models: every algorithm records its search tree; simulated workers share it.

    from mce_kit import sim
    t = sim.bron_kerbosch(G, pivot=True, order="degeneracy", seeds="vertex")
    t.summary()                       # node counts, outputs, pruned branches
    r = sim.simulate(t, "rdmce", p=64, tau=24)   # a CPU model of GPU load balance
"""

from .bk import bron_kerbosch
from .examples import figure1_graph, g0_bipartite, random_bipartite, random_graph
from .geil import geil_bfs, greedy_bound
from .gmbe import gmbe_plus
from .kclique import kcminer
from .mcegpu import mce_gpu
from .rdmce import rdmce_bitmap
from .tree import Grid, Node, SearchTree
from .workers import Costs, SimResult, simulate

__all__ = [
    "bron_kerbosch", "rdmce_bitmap", "mce_gpu", "gmbe_plus", "kcminer", "geil_bfs", "greedy_bound",
    "SearchTree", "Node", "Grid", "simulate", "SimResult", "Costs",
    "figure1_graph", "g0_bipartite", "random_graph", "random_bipartite",
]
