"""Benchmarks on a GPU: ``python -m mce_kit.bench ALGORITHM GRAPH... [--PARAM V1 V2 ...]``.

Every kernel joins by one entry in ``ALGORITHMS`` (its launcher module, the
problem it solves, the graph kind it reads); its run-time parameters come from
the module's ``DEFAULTS`` and become options, so ``--tau 16 24`` sweeps
``tau``. Each configuration is timed with CUDA events after a warm-up (median
of ``--repeats``), every run's answer is checked against the graph's reference
(``mce_kit.references``) and one JSON line with provenance is printed per
configuration. ``--define NAME=VALUE`` probes a compile-time variant.
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from . import references
from .measure import measure, provenance


@dataclass(frozen=True)
class Algorithm:
    name: str
    problem: str  # a key of references.PROBLEMS
    module: str  # the launcher: DEFAULTS, prepare(G) -> .run(**params) (see mce_kit.measure)
    doc: str
    bipartite: bool = False

    def launcher(self):
        return importlib.import_module(self.module)


ALGORITHMS = {a.name: a for a in [
    Algorithm("rdmce", "mce", "mce_kit.gpu.rdmce", "maximal cliques, RDMCE (root-down exposure)"),
    Algorithm("kcminer", "kclique", "mce_kit.gpu.kclique", "k-cliques, KCMiner (bitmaps, lane scheduling)"),
    Algorithm("geil", "maxclique", "mce_kit.gpu.geil", "maximum cliques, Geil et al. (breadth first + B&B)"),
    Algorithm("gmbe", "mbe", "mce_kit.gpu.gmbe", "maximal bicliques, GMBE+ (node reuse, load-aware split)",
              bipartite=True),
]}


def load(name_or_path: str, bipartite: bool = False):
    """A bundled graph by name, or a graph file; returns (graph, seconds)."""
    from . import datasets
    from .io import load_bipartite, load_graph

    t0 = time.perf_counter()
    if name_or_path in datasets.names():
        G = datasets.load(name_or_path)
    else:
        G = (load_bipartite if bipartite else load_graph)(name_or_path)
    return G, time.perf_counter() - t0


def _parse_value(default):
    """An argparse ``type`` turning text into the type of ``default``."""
    if isinstance(default, bool):
        table = {"1": True, "true": True, "on": True, "yes": True,
                 "0": False, "false": False, "off": False, "no": False}

        def parse_bool(text):
            if text.lower() not in table:
                raise argparse.ArgumentTypeError(f"expected on/off, got {text!r}")
            return table[text.lower()]
        return parse_bool
    return type(default) if default is not None else str


def parser_for(algo: Algorithm) -> argparse.ArgumentParser:
    """Options of one algorithm: its DEFAULTS as sweepable lists, plus the common ones."""
    ap = argparse.ArgumentParser(prog=f"python -m mce_kit.bench {algo.name}", description=algo.doc)
    ap.add_argument("graph", nargs="+", help="bundled dataset names or graph files")
    for name, default in algo.launcher().DEFAULTS.items():
        ap.add_argument(f"--{name.replace('_', '-')}", dest=name, nargs="+", type=_parse_value(default),
                        default=[default], metavar="V", help=f"values to sweep (default {default})")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--expect", type=int, default=None,
                    help="the count every run must give (default: a bundled graph's reference)")
    ap.add_argument("--out", type=Path, help="append JSON lines here")
    ap.add_argument("--define", nargs="+", default=[], metavar="NAME=VALUE",
                    help="compile-time kernel settings to probe (e.g. MIN_BLOCKS=7)")
    return ap


def grid(a: argparse.Namespace, defaults: dict) -> list[dict]:
    """Every combination of the swept parameter values."""
    names = list(defaults)
    combos = itertools.product(*(getattr(a, n) for n in names))
    return [dict(zip(names, combo, strict=True)) for combo in combos]


def run(algo: Algorithm, a: argparse.Namespace):
    """Yield one row per graph x configuration."""
    mod = algo.launcher()
    if a.define:
        if not hasattr(mod, "_DEFINES"):
            raise SystemExit(f"{algo.name} has no compile-time settings to --define")
        mod._DEFINES.update(d.split("=", 1) for d in a.define)
    prov = provenance()
    spec = references.problem(algo.problem)
    for name in a.graph:
        G, load_s = load(name, algo.bipartite)
        prep = mod.prepare(G)
        for params in grid(a, mod.DEFAULTS):
            expect = a.expect
            if expect is None:
                expect = references.expected(algo.problem, name, **{k: params[k] for k in spec.keys})
            row = measure(prep, algo.problem, a.repeats, a.warmup, expect, **params)
            n = G.n_u + G.n_v if algo.bipartite else G.n
            yield {"algorithm": algo.name, "graph": name, "n": n, "m": G.m, "load_s": round(load_s, 3),
                   **row, **prov}


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in ALGORITHMS:
        names = "\n".join(f"  {a.name:10s} {a.doc}" for a in ALGORITHMS.values())
        print(f"usage: python -m mce_kit.bench ALGORITHM GRAPH... [options]\n\nalgorithms:\n{names}\n\n"
              "`python -m mce_kit.bench ALGORITHM --help` lists its parameters.", file=sys.stderr)
        return 0 if argv[:1] in (["-h"], ["--help"]) else 2
    algo = ALGORITHMS[argv[0]]
    a = parser_for(algo).parse_args(argv[1:])
    for row in run(algo, a):
        line = json.dumps(row, default=str)
        print(line, flush=True)
        if a.out:
            with a.out.open("a") as f:
                f.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
