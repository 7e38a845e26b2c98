"""Random graph families for the k-clique tests (CPU and GPU share them)."""

from __future__ import annotations

import numpy as np
from graph_families import (
    complete,
    disjoint_union,
    empty,
    erdos_renyi,
    planted_cliques,
    powerlaw_cluster,
    star,
)


def random_graph(seed: int):
    """One graph from a family chosen by ``seed`` (ER at several densities, power-law, planted
    cliques, complete, empty, star, disjoint unions); sizes up to ~90 vertices so bitmaps span words."""
    rng = np.random.default_rng(seed)
    family = seed % 8
    if family == 0:
        return erdos_renyi(int(rng.integers(5, 60)), float(rng.choice([0.1, 0.3, 0.5])), seed)
    if family == 1:
        return erdos_renyi(int(rng.integers(20, 45)), float(rng.choice([0.7, 0.85])), seed)
    if family == 2:
        return powerlaw_cluster(int(rng.integers(20, 90)), int(rng.integers(2, 6)), 0.6, seed)
    if family == 3:
        return planted_cliques(int(rng.integers(40, 90)), 0.05, [int(rng.integers(8, 36))], seed)
    if family == 4:
        return complete(int(rng.integers(1, 16)))
    if family == 5:
        return disjoint_union(empty(int(rng.integers(0, 4))), star(int(rng.integers(0, 9))),
                              erdos_renyi(int(rng.integers(3, 30)), 0.4, seed))
    if family == 6:
        return disjoint_union(complete(int(rng.integers(3, 12))), complete(int(rng.integers(3, 12))),
                              erdos_renyi(20, 0.3, seed))
    return planted_cliques(int(rng.integers(34, 70)), 0.2, [int(rng.integers(5, 20)), 12], seed)
