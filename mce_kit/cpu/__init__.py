"""CPU oracles: short reference algorithms on internal vertex ids (0..n-1).

The public, label-aware versions are in ``mce_kit.api``.
"""

from .kclique import count_k_cliques, count_k_cliques_range, k_cliques
from .maxclique import clique_number, max_cliques
from .mbe import count_maximal_bicliques, maximal_bicliques
from .mce import clique_size_histogram, count_maximal_cliques, maximal_cliques
from .pivot import clique_counts

__all__ = [
    "clique_counts",
    "clique_number",
    "clique_size_histogram",
    "count_k_cliques",
    "count_k_cliques_range",
    "count_maximal_bicliques",
    "count_maximal_cliques",
    "k_cliques",
    "max_cliques",
    "maximal_bicliques",
    "maximal_cliques",
]
