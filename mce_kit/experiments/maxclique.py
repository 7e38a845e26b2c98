"""Maximum cliques, our public calls beside MC-BRB (the best CPU code found, one thread), on one host.

    python -m mce_kit.experiments.maxclique --out data/results                 # CPU rows
    python -m mce_kit.experiments.maxclique --out DIR --device gpu             # GPU rows (on a GPU host)
    python -m mce_kit.experiments.maxclique --out DIR --peers ../shared/peers  # MC-BRB from there
    python -m mce_kit.experiments.maxclique --out data/results --density       # the complement's rule

Per graph and call (``mk.clique_number``, ``mk.max_cliques``): the cold call (the first on a freshly
loaded graph, kernels already compiled), then ``--repeats`` warm calls (every time kept in
``times_ms``), each answer checked against ``data/results/maxclique_reference.csv`` (omega and the
number of maximum cliques) or the DIMACS graphs' known omega. ``max_cliques`` on a graph whose list
does not fit in memory (MANN_a27) is expected to refuse with MemoryError: that row says ``refused``
with the time the refusal took (a GPU call past ``GPU_TIME_LIMIT_S`` says ``timeout``). MC-BRB
(``cpu-bin/mcbrb`` of the peers folder) gives omega and one
maximum clique; its row keeps the time it prints (its own clock, file reading excluded), ``--repeats``
runs. Writes ``maxclique_cpu.csv`` or ``maxclique_gpu.csv``, each row as measured, with provenance.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd

from .. import datasets
from ..measure import names, write_rows
from .geil import reference

# the graphs of the peers' run_all.sh
GRAPHS = ["CA-GrQc", "email-Eu-core", "socfb-MIT", "brock200_2", "brock200_4", "keller4", "hamming8-4",
          "MANN_a27"]
CALLS = ("clique_number", "max_cliques")
ROOT = Path(__file__).resolve().parents[2]
# a git-ignored copy in the checkout (as carried to a GPU host), else ../shared/peers beside it
PEER_DIRS = [ROOT / "peers", ROOT.parent / "shared" / "peers", ROOT.parent.parent / "shared" / "peers"]
PEERS = next((p for p in PEER_DIRS if (p / "cpu-bin" / "mcbrb").exists()), PEER_DIRS[0])


GPU_TIME_LIMIT_S = 60.0  # time_limit_s of the GPU calls: past it a row says "timeout"


def _call(G, call: str, device: str):
    """(omega, number of maximum cliques or None, status, route) of one public call; the route is
    clique_number's ("bounds", "complement", "roots" or "search"), "" for max_cliques."""
    import mce_kit as mk

    kw = {"time_limit_s": GPU_TIME_LIMIT_S} if device == "gpu" else {}
    try:
        if call == "clique_number":
            omega = mk.clique_number(G, device=device, **kw)
            return int(omega), None, "exact", omega.params["route"]
        omega, cliques = mk.max_cliques(G, device=device, **kw)
    except MemoryError:
        return None, None, "refused", ""
    except TimeoutError:
        return None, None, "timeout", ""
    return omega, len(cliques), "exact", ""


def _check(name: str, omega, count, status: str) -> str:
    ref = reference().get(name)
    if ref is None:
        return "unchecked"
    if status in ("refused", "timeout"):
        return status
    if omega != ref[0] or (count is not None and ref[1] is not None and count != ref[1]):
        raise AssertionError(f"{name}: got omega {omega}, count {count}; reference {ref}")
    return "reference"


def _spread(times: list[float]) -> dict:
    """Median, min, max, repeats and every time (ms) of a row."""
    return dict(median_ms=round(statistics.median(times), 4), min_ms=round(min(times), 4),
                max_ms=round(max(times), 4), repeats=len(times), times_ms=" ".join(f"{x:.4f}" for x in times))


def _load(name: str):
    from ..io import load_graph

    with warnings.catch_warnings():  # the SNAP files' self-loops, reported once by the datasets' README
        warnings.simplefilter("ignore")
        return load_graph(datasets.path(name))


def warm_up(device: str) -> None:
    """Compile or load every kernel once, on graphs that need a search or the complement."""
    from ..io import load_graph

    for G in (load_graph(nx.gnp_random_graph(40, 0.5, seed=1)),  # a search
              load_graph(nx.gnp_random_graph(120, 0.99, seed=1))):  # the complement route (Numba)
        for call in CALLS:
            _call(G, call, device)


def ours(graphs, device: str, repeats: int):
    """One row per graph and call: cold and warm times of the public call."""
    for name in graphs:
        for call in CALLS:
            G = _load(name)
            t = time.perf_counter()
            got = _call(G, call, device)
            cold = (time.perf_counter() - t) * 1e3
            times = []
            for _ in range(repeats):
                t = time.perf_counter()
                again = _call(G, call, device)
                times.append((time.perf_counter() - t) * 1e3)
                if again != got:
                    raise AssertionError(f"{name} {call}: {again} after {got}")
            omega, count, status, route = got
            checked = _check(name, omega, count, status)
            row = dict(graph=name, n=G.n, m=G.m, code="mce_kit", call=f"mk.{call}", device=device,
                       omega=omega, n_maximum=count, status=status, checked=checked, route=route,
                       cold_ms=round(cold, 4), **_spread(times))
            print(row, flush=True)
            yield pd.DataFrame([row])


def write_mcbrb_graph(G, folder: Path) -> None:
    """MC-BRB's binary graph: b_degree.bin (int32 4, n, 2m, degrees) and b_adj.bin (sorted neighbours)."""
    folder.mkdir(parents=True, exist_ok=True)
    head = np.array([4, G.n, len(G.indices)], np.int32)
    np.concatenate([head, G.degrees().astype(np.int32)]).tofile(folder / "b_degree.bin")
    np.asarray(G.indices, np.int32).tofile(folder / "b_adj.bin")


def parse_mcbrb(text: str) -> tuple[int, float]:
    """(omega, the time MC-BRB prints in ms) from its output."""
    m = re.search(r"Maximum Clique Size: (\d+).*Total Time: ([\d,]+)", text)
    if not m:
        raise ValueError(f"no 'Maximum Clique Size ... Total Time' in MC-BRB's output: {text[-300:]!r}")
    return int(m.group(1)), int(m.group(2).replace(",", "")) / 1e3  # microseconds -> ms


def mcbrb(graphs, peers: Path, repeats: int):
    """One row per graph: MC-BRB's printed times (omega checked against the reference)."""
    binary = peers / "cpu-bin" / "mcbrb"
    env = {**os.environ, "LD_LIBRARY_PATH": str(peers / "cpu-bin" / "lib")}
    with tempfile.TemporaryDirectory() as tmp:
        for name in graphs:
            G = _load(name)
            folder = Path(tmp) / name
            write_mcbrb_graph(G, folder)
            times, wall, omega = [], [], None
            for _ in range(repeats):
                t = time.perf_counter()
                out = subprocess.run([str(binary), "MC-BRB", f"{folder}/"], capture_output=True,
                                     text=True, env=env, timeout=600)
                wall.append(time.perf_counter() - t)
                omega, ms = parse_mcbrb(out.stdout + out.stderr)
                times.append(ms)
            checked = _check(name, omega, None, "exact")
            row = dict(graph=name, n=G.n, m=G.m, code="MC-BRB", call="mcbrb MC-BRB (one maximum clique)",
                       device="cpu", omega=omega, n_maximum=None, status="exact", checked=checked,
                       route="", cold_ms=None, **_spread(times))
            print(row, f"(whole process {statistics.median(wall):.3f} s)", flush=True)
            yield pd.DataFrame([row])


DENSITIES = (0.95, 0.96, 0.97, 0.98, 0.99)  # G(n, p) of the density rule
DENSE_DIMACS = ["hamming6-2", "C125.9", "gen200_p0.9_44", "MANN_a27"]


def density_rows(repeats: int, n: int = 150, seeds=(1, 2)):
    """The density rule's measurement: omega by the complement's vertex cover against the search,
    both from the same (kept) bounds, on G(n, p) for each of ``DENSITIES`` and the dense DIMACS graphs.
    One row per graph and route; a complement search past its node cap says ``gave up``."""
    import networkx as nx

    from .. import maxclique_engine as engine
    from .. import vertex_cover as vc
    from ..bounds import clique_bounds, core_subgraph
    from ..io import load_graph

    def complement(G, b):  # the route without the rule that gates it
        H, _ = core_subgraph(G, b.core, b.lower)
        found = vc.complement_clique(H, above=b.lower)
        return None if found is None else found[0]

    def search(G, b):
        return engine._Search(G, b, b.lower, False, "").run(b.lower + 1, False)[0] or b.lower

    cases = [(f"G({n},{p})#{s}", nx.gnp_random_graph(n, p, seed=s)) for p in DENSITIES for s in seeds]
    cases = [(name, load_graph(H)) for name, H in cases] + [(name, _load(name)) for name in DENSE_DIMACS]
    for name, G in cases:
        b = clique_bounds(G)
        for route, fn in (("complement", complement), ("search", search)):
            times = []
            for _ in range(repeats):
                t = time.perf_counter()
                omega = fn(G, b)
                times.append((time.perf_counter() - t) * 1e3)
            row = dict(graph=name, n=G.n, m=G.m, density=round(2 * G.m / (G.n * (G.n - 1)), 4), route=route,
                       omega=omega, status="gave up" if omega is None else "exact", bounds_exact=b.exact,
                       **_spread(times))
            print(row, flush=True)
            yield pd.DataFrame([row])


def density_threshold(df: pd.DataFrame) -> float:
    """The lowest measured density from which the complement's median time is at most the search's
    on every random graph at least as dense (the rule ``vertex_cover.DENSITY``)."""
    rnd = df[df["graph"].str.startswith("G(")]
    piv = rnd.pivot_table(index=["graph", "density"], columns="route", values="median_ms").reset_index()
    piv["wins"] = piv["complement"].fillna(float("inf")) <= piv["search"]
    p = piv["graph"].str.extract(r",([\d.]+)\)")[0].astype(float)
    ok = [q for q in sorted(p.unique()) if piv.loc[p >= q, "wins"].all()]
    return min(ok) if ok else float("inf")


def table(df: pd.DataFrame) -> pd.DataFrame:
    """Ours beside MC-BRB per graph: warm medians and the ratio ours / MC-BRB (below 1: ours faster)."""
    piv = df.pivot_table(index="graph", columns="call", values="median_ms", aggfunc="first")
    peer = [c for c in piv.columns if c.startswith("mcbrb")]
    out = piv.rename(columns={c: "mcbrb" for c in peer})
    for c in CALLS:
        col = f"mk.{c}"
        if col in out and "mcbrb" in out:
            out[f"{c} / mcbrb"] = (out[col] / out["mcbrb"]).round(2)
    return out.reindex([g for g in df["graph"].unique()])


def provenance(device: str) -> dict:
    import numba

    if device == "gpu":
        from ..measure import provenance as gpu_provenance

        prov = gpu_provenance()
    else:
        from .nxbackend import cpu_provenance

        prov = cpu_provenance()
    from ..config import usable_cores

    return {**prov, "usable_cores": usable_cores(), "numba": numba.__version__}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="folder for maxclique_<device>.csv")
    ap.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
    ap.add_argument("--graphs", nargs="*", help=f"default: {' '.join(GRAPHS)}")
    ap.add_argument("--repeats", type=int, default=5, help="warm calls (and MC-BRB runs) per row")
    ap.add_argument("--peers", type=Path, default=PEERS, help="peers folder with cpu-bin/mcbrb ('' to skip)")
    ap.add_argument("--density", action="store_true",
                    help="measure the density rule instead (maxclique_density.csv; CPU)")
    a = ap.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    if a.density:
        prov = {**provenance("cpu"), "params": f"repeats={a.repeats}"}
        df = write_rows(density_rows(a.repeats), a.out / "maxclique_density.csv", prov)
        print("complement route from density", density_threshold(df))
        return
    graphs = names(a.graphs) or GRAPHS
    a.out.mkdir(parents=True, exist_ok=True)

    peer = str(a.peers) and (a.peers / "cpu-bin" / "mcbrb").exists()
    if not peer:
        print(f"MC-BRB not found under {a.peers}: its rows are left out", file=sys.stderr)

    def parts():  # ours and MC-BRB graph by graph, so both see the same load on a shared machine
        warm_up(a.device)
        for name in graphs:
            yield from ours([name], a.device, a.repeats)
            if peer:
                yield from mcbrb([name], a.peers, a.repeats)

    prov = {**provenance(a.device), "params": f"repeats={a.repeats}"}
    df = write_rows(parts(), a.out / f"maxclique_{a.device}.csv", prov)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table(df))


if __name__ == "__main__":
    main()
