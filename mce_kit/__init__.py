"""mce_kit: clique and biclique enumeration on GPUs, with CPU oracles and models.

    import mce_kit as mk
    G = mk.datasets.load("ego-Facebook")
    mk.stats(G)
    mk.count_maximal_cliques(G)            # device="auto": GPU when there is one
"""

from importlib import import_module

__version__ = "0.1.0"

# Public name -> module that defines it. Imported on first use (PEP 562), so
# `import mce_kit` stays cheap and never imports CuPy.
_EXPORTS = {
    "Graph": "graph",
    "BipartiteGraph": "graph",
    "CleaningReport": "graph",
    "load_graph": "io",
    "load_bipartite": "io",
    "GraphFormatError": "io",
    "degeneracy_order": "order",
    "degree_order": "order",
    "core_numbers": "order",
    "degeneracy": "order",
    "stats": "graph_stats",
    "find_cliques": "api",
    "maximal_clique_blocks": "api",
    "count_maximal_cliques": "api",
    "clique_size_histogram": "api",
    "number_of_cliques": "api",
    "node_clique_number": "api",
    "k_cliques": "api",
    "count_k_cliques": "api",
    "clique_counts": "api",
    "maximal_bicliques": "api",
    "count_maximal_bicliques": "api",
    "max_cliques": "api",
    "clique_number": "api",
    "Count": "api",
    "has_gpu": "gpu",
    "release": "prepared",
    "kept_state": "prepared",
    "quick_mode": "config",
    "figures_dir": "notebooks",
}
_SUBMODULES = {"datasets", "cpu", "gpu", "sim", "viz", "experiments", "io", "order", "api", "config",
               "notebooks", "engine", "nx_backend", "prepared"}

__all__ = sorted(_EXPORTS) + sorted(_SUBMODULES)


def __getattr__(name):
    if name in _EXPORTS:   # kept as a global once imported: a later mk.<name> skips this hook
        value = globals()[name] = getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
        return value
    if name in _SUBMODULES:
        return import_module(f".{name}", __name__)
    raise AttributeError(f"module 'mce_kit' has no attribute {name!r}")


def __dir__():
    return __all__
