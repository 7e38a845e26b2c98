"""The networkx backend, timed: draining ``find_cliques`` with networkx, igraph and mce_kit.

Each row times one library draining every maximal clique of one graph
(wall clock, median of ``repeats`` runs, every run's count checked against
``data/results/mce_reference.csv``). Building each library's graph from an
``nx.Graph`` is timed on its own (``convert_s``), so a row says both what a
converted graph costs and what a user starting from networkx pays.

    python -m mce_kit.experiments.nxbackend --out data/results            # CPU rows here
    python -m mce_kit.experiments.nxbackend --out DIR --gpu               # GPU rows (on a device)

CPU rows (``nxbackend_cpu.csv``): networkx ``find_cliques``; igraph
``maximal_cliques`` on an igraph graph; ``mk.find_cliques(G, device="cpu")`` on
a mce_kit Graph (the engine's own igraph graph rebuilt on every run, so it is
paid for); ``nx.find_cliques(H, backend="mce_kit")`` from an ``nx.Graph`` with
networkx's conversion cache off (end to end). GPU rows (``nxbackend_gpu.csv``):
networkx on the device's CPU, ``nx.find_cliques`` on a converted backend graph
with the GPU path, and end to end from an ``nx.Graph``. ``--split`` adds
``nxbackend_split.csv``: the converted-graph time taken apart stage by stage
(GPU stream, device to host, label lists, one list per clique, networkx's dispatch).
"""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

from .. import datasets, references
from ..measure import WrongAnswer, measure, write_rows
from ..references import RESULTS

GRAPHS = ["wiki-Vote", "Email-Enron", "soc-Slashdot0902"]
QUICK_GRAPHS = ["CA-GrQc"]
TARGETS = {"cpu_vs_igraph": 1.2, "gpu_converted_vs_networkx": 25.0, "gpu_end_to_end_vs_networkx": 10.0}


class _Result:
    def __init__(self, answer: int, seconds: float):
        self.answer, self.gpu_ms, self.params = answer, seconds * 1e3, {}

    def row(self) -> dict:
        return {}


class Drain:
    """``measure``'s protocol for a CPU call: ``run()`` drains ``make()`` and times it (wall clock)."""

    def __init__(self, make, before=None):
        self.make, self.before, self.prep_s = make, before, 0.0

    def run(self) -> _Result:
        if self.before is not None:
            self.before()
        t = time.perf_counter()
        count = collections.deque(enumerate(self.make(), 1), maxlen=1)
        return _Result(count[0][0] if count else 0, time.perf_counter() - t)


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo (else platform.processor())."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def cpu_provenance() -> dict:
    """measure.provenance() for a machine without a GPU: CPU model and cores instead of GPU and SMs."""
    import igraph
    import networkx

    commit = os.environ.get("MCE_KIT_COMMIT", "")
    if not commit:
        try:
            commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                    cwd=Path(__file__).parent, timeout=5).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            commit = ""
    return {"device": "cpu", "cpu": cpu_model(), "cores": os.cpu_count(), "python": platform.python_version(),
            "networkx": networkx.__version__, "igraph": igraph.__version__, "commit": commit or "unknown",
            "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}


def _timed(fn) -> tuple[float, object]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def _row(graph, G, library, call, device, convert_s, t: dict) -> pd.DataFrame:
    return pd.DataFrame([{"graph": graph, "n": G.n, "m": G.m, "library": library, "call": call,
                          "device": device, "convert_s": round(convert_s, 4), **t}])


def _seconds(m: dict) -> dict:
    """measure()'s row in seconds."""
    return {"median_s": m["median_ms"] / 1e3, "min_s": m["min_ms"] / 1e3, "max_s": m["max_ms"] / 1e3,
            "repeats": m["repeats"], "count": m["count"], "checked": m["checked"]}


def interleaved(runs: dict, expect: int, repeats: int) -> dict[str, dict]:
    """``repeats`` rounds of one run of each ``Drain`` in ``runs``, every count checked against
    ``expect``. On a shared CPU the load changes by the minute; taking turns spreads that over
    every library alike (``measure`` would time one library's runs back to back)."""
    times: dict[str, list[float]] = {key: [] for key in runs}
    for _ in range(repeats):
        for key, prep in runs.items():
            res = prep.run()
            if res.answer != expect:
                raise WrongAnswer(f"{key}: {res.answer} maximal cliques, expected {expect}")
            times[key].append(res.gpu_ms / 1e3)
    return {key: {"median_s": statistics.median(t), "min_s": min(t), "max_s": max(t), "repeats": repeats,
                  "count": expect, "checked": "reference"} for key, t in times.items()}


CPU_CALLS = {  # library, what is timed
    "networkx": ("networkx", "nx.find_cliques(H)"),
    "igraph": ("igraph", "g.maximal_cliques()"),
    "mk": ("mce_kit", "mk.find_cliques(G, device='cpu'), engine graph built in the run"),
    "mk_warm": ("mce_kit", "mk.find_cliques(G, device='cpu'), engine graph cached"),
    "backend": ("mce_kit", "nx.find_cliques(H, backend='mce_kit') end to end"),
}


def cpu_rows(graphs, repeats: int = 5):
    """networkx, igraph, mk and the backend (end to end) draining find_cliques on this CPU."""
    import igraph
    import networkx as nx

    from .. import engine, nx_backend
    from ..api import find_cliques

    nx.config.cache_converted_graphs = False  # the end-to-end row converts on every call
    for name in graphs:
        G = datasets.load(name)
        H = G.to_networkx()
        ig_s, g = _timed(lambda H=H: igraph.Graph.from_networkx(H))
        mk_s, _ = _timed(lambda H=H: nx_backend.convert_from_nx(H))
        runs = {
            "networkx": Drain(lambda H=H: nx.find_cliques(H, backend="networkx")),
            "igraph": Drain(lambda g=g: g.maximal_cliques()),
            "mk": Drain(lambda G=G: find_cliques(G, device="cpu"), before=engine.clear_cache),
            "mk_warm": Drain(lambda G=G: find_cliques(G, device="cpu")),
            "backend": Drain(lambda H=H: nx.find_cliques(H, backend="mce_kit")),
        }
        find_cliques(G, device="cpu", max_size=1)  # builds the warm row's cached igraph graph
        timed = interleaved(runs, references.expected("mce", name), repeats)
        for key, (library, call) in CPU_CALLS.items():
            convert = {"networkx": 0.0, "igraph": ig_s}.get(key, mk_s)
            yield _row(name, G, library, call, "cpu", convert, timed[key])


def gpu_rows(graphs, repeats: int = 5, nx_repeats: int | None = None):
    """networkx on the device's CPU; the backend's GPU path on a converted graph and end to end.
    networkx runs ``nx_repeats`` times without warm-up (seconds a run, pure Python: nothing to warm)."""
    import networkx as nx

    from .. import nx_backend

    nx.config.backends.mce_kit.device = "gpu"
    nx.config.cache_converted_graphs = False
    for name in graphs:
        G = datasets.load(name)
        expect = references.expected("mce", name)
        H = G.to_networkx()

        def run(prep, expect=expect, repeats=repeats, warmup=1):
            return _seconds(measure(prep, "mce", repeats=repeats, warmup=warmup, expect=expect))

        yield _row(name, G, "networkx", "nx.find_cliques(H)", "cpu", 0.0,
                   run(Drain(lambda H=H: nx.find_cliques(H, backend="networkx")),
                       repeats=nx_repeats or repeats, warmup=0))
        conv, Hb = _timed(lambda H=H: nx_backend.convert_from_nx(H))
        yield _row(name, G, "mce_kit", "nx.find_cliques(Hb) on a converted graph", "gpu", conv,
                   run(Drain(lambda Hb=Hb: nx.find_cliques(Hb))))
        yield _row(name, G, "mce_kit", "nx.find_cliques(H, backend='mce_kit') end to end", "gpu", conv,
                   run(Drain(lambda H=H: nx.find_cliques(H, backend="mce_kit"))))


class Counted(Drain):
    """A Drain whose ``make()`` returns the clique count itself (stages that yield blocks)."""

    def run(self) -> _Result:
        t = time.perf_counter()
        count = self.make()
        return _Result(count, time.perf_counter() - t)


SPLIT_STAGES = (  # cumulative: each stage does the one before and one more step
    ("prepare", "kernel.prepare(G): degeneracy order, CSR, seeds (once per converted graph, then kept)"),
    ("gpu", "stream on the GPU: launch, kernel, unpack to CSR (blocks left on the device, synchronized)"),
    ("to_host", "+ each block's cliques reordered smallest first on the device, then to the host as NumPy"),
    ("label_lists", "+ per block: labels[ids].tolist() and the runs of equal clique sizes"),
    ("clique_lists", "+ one list per clique: zip and list over each run, in C (the backend's generator)"),
    ("dispatch", "nx.find_cliques(Hb): + networkx's dispatch (the converted-graph row)"),
)


def split_rows(graphs, repeats: int = 5):
    """Where the converted-graph time goes on the GPU: each stage of ``SPLIT_STAGES`` timed on
    its own (median of ``repeats``, every run's clique count checked); the differences between
    consecutive stages are the costs of the steps (``step_s``)."""
    import cupy
    import networkx as nx

    from .. import api, nx_backend

    nx.config.backends.mce_kit.device = "gpu"
    kernel = api._rdmce()
    sync = cupy.cuda.Device().synchronize
    for name in graphs:
        G = datasets.load(name)
        expect = references.expected("mce", name)
        Hb = nx_backend.convert_from_nx(G.to_networkx())
        prep_s, prep = _timed(lambda G=Hb.G: kernel.prepare(G))
        prep_s += _timed(lambda prep=prep: prep.seed_arrays(kernel.DEFAULTS["seeding"]))[0]
        Hb.memo(("prepared", kernel), lambda G, prep=prep: prep)

        def on_device(prep=prep):
            n = sum(len(off) - 1 for off, _ in prep.blocks(nx_backend.BLOCK, as_cupy=True))
            sync()
            return n

        def to_host(prep=prep):
            return sum(len(off) - 1 for off, _ in prep.blocks(nx_backend.BLOCK, sizes_first=True))

        def label_lists(Hb=Hb):
            return sum(c for _, runs in nx_backend._gpu_blocks(Hb, kernel) for _, c in runs)

        stages = {
            "gpu": Counted(on_device),
            "to_host": Counted(to_host),
            "label_lists": Counted(label_lists),
            "clique_lists": Drain(lambda Hb=Hb: nx_backend._cliques(Hb, None)),
            "dispatch": Drain(lambda Hb=Hb: nx.find_cliques(Hb)),
        }
        t = {"prepare": {"median_s": prep_s, "min_s": prep_s, "max_s": prep_s, "repeats": 1,
                         "count": expect, "checked": "reference"}}
        for key, stage in stages.items():
            t[key] = _seconds(measure(stage, "mce", repeats=repeats, warmup=1, expect=expect))
        before = 0.0  # the prepare stage stands alone; the others add one step each to the last
        for key, what in SPLIT_STAGES:
            step = t[key]["median_s"] - before
            before = 0.0 if key == "prepare" else t[key]["median_s"]
            row = {"stage": key, **t[key], "step_s": round(step, 4)}
            yield _row(name, G, "mce_kit", what, "gpu", 0.0, row)


def with_ratios(df: pd.DataFrame) -> pd.DataFrame:
    """Add speedup over networkx and time relative to igraph (same graph, same table)."""
    df = df.copy()
    base = df[df["library"] == "networkx"].set_index("graph")["median_s"]
    df["speedup_vs_networkx"] = (df["graph"].map(base) / df["median_s"]).round(2)
    ig = df[df["library"] == "igraph"].set_index("graph")["median_s"]
    if len(ig):
        df["time_vs_igraph"] = (df["median_s"] / df["graph"].map(ig)).round(3)
    return df


def targets(results: Path = RESULTS, graph: str = "soc-Slashdot0902") -> pd.DataFrame:
    """Issue #18's three speed targets against the committed rows: GPU on a converted graph and end
    to end (speedup over networkx on ``graph``), and mk's CPU path against igraph (worst graph)."""
    gpu, cpu = load("gpu", results), load("cpu", results)
    row = gpu[(gpu["graph"] == graph) & (gpu["library"] == "mce_kit")].set_index("call")
    conv = row.loc["nx.find_cliques(Hb) on a converted graph"]
    e2e = row.loc["nx.find_cliques(H, backend='mce_kit') end to end"]
    mk_cpu = cpu[cpu["call"] == CPU_CALLS["mk"][1]]
    worst = mk_cpu.loc[mk_cpu["time_vs_igraph"].idxmax()]
    out = [("GPU, converted graph", graph, ">= 25x networkx", conv["speedup_vs_networkx"],
            TARGETS["gpu_converted_vs_networkx"], conv["gpu"], conv["date"]),
           ("GPU, end to end", graph, ">= 10x networkx", e2e["speedup_vs_networkx"],
            TARGETS["gpu_end_to_end_vs_networkx"], e2e["gpu"], e2e["date"]),
           ("CPU, mk.find_cliques vs igraph", worst["graph"], "<= 1.2x igraph's time",
            worst["time_vs_igraph"], TARGETS["cpu_vs_igraph"], worst["cpu"], worst["date"])]
    df = pd.DataFrame(out, columns=["target", "graph", "goal", "ours", "bound", "device", "date"])
    ratio = df["ours"] / df["bound"]
    df["met"] = [r >= 1 if i < 2 else r <= 1 for i, r in enumerate(ratio)]
    df["date"] = df["date"].str[:10]
    return df


def load(name: str = "cpu", results: Path = RESULTS) -> pd.DataFrame:
    """A committed table (``nxbackend_cpu.csv`` / ``nxbackend_gpu.csv``) with ratio columns."""
    return with_ratios(pd.read_csv(results / f"nxbackend_{name}.csv"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--gpu", action="store_true", help="measure the GPU rows (needs a CUDA GPU)")
    ap.add_argument("--split", action="store_true",
                    help="with --gpu: also the converted-graph time split by stage (nxbackend_split.csv)")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--nx-repeats", type=int,
                    help="with --gpu: runs of networkx's baseline (default --repeats)")
    ap.add_argument("--graphs", nargs="*")
    a = ap.parse_args(argv)
    from ..nx_backend import register

    register()  # a no-op where `pip install -e .` registered the entry points
    graphs = a.graphs or (QUICK_GRAPHS if a.quick else GRAPHS)
    a.out.mkdir(parents=True, exist_ok=True)
    if a.gpu:
        from ..measure import provenance

        df = write_rows(gpu_rows(graphs, a.repeats, a.nx_repeats), a.out / "nxbackend_gpu.csv", provenance())
        if a.split:
            split = write_rows(split_rows(graphs, a.repeats), a.out / "nxbackend_split.csv", provenance())
            print(split[["graph", "stage", "median_s", "step_s"]].to_string())
    else:
        df = write_rows(cpu_rows(graphs, a.repeats), a.out / "nxbackend_cpu.csv", cpu_provenance())
    print(with_ratios(df)[["graph", "library", "call", "device", "convert_s", "median_s", "min_s",
                           "speedup_vs_networkx", *(["time_vs_igraph"] if not a.gpu else [])]].to_string())
    return 0


if __name__ == "__main__":
    sys.exit(main())
