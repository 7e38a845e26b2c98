"""The CPU engine against the best CPU codes (issue 27): one table, ``cpu_engine.csv``.

    python -m mce_kit.experiments.cpu_engine --out data/results --peers ../shared/peers

For each problem and graph of the peers' ``run_all.sh`` it times our engine (``mce_kit.cpu_engine``)
on 1 thread and on every usable core, and the peers' prebuilt binaries (``PEERS/cpu-bin``:
HBBMC, PivotScale, AdaMBE / ParAdaMBE) with the same thread counts where they take one; every
answer of every run is checked against ``data/results/<problem>_reference.csv``.

What is timed: ours, the engine call on a loaded graph whose ordering and relabelled CSR are
cached (their one-off cost is ``prep_ms``); the peers, the time each program prints for its
search (file reading, and for PivotScale building and orienting the graph, excluded). ``clock``
says which clock a row's ``median_ms`` is: HBBMC prints CPU time (getrusage), the others wall
time; ``cpu_median_ms`` is the process's CPU time (ours: the call, all threads; a peer's: the
whole process, file reading included). Our runs and a peer's take turns, so both see the same
load; a row keeps every run (``times_ms``) and the load average when it started: on a shared
machine the load moves wall-clock medians.
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from .. import cpu_engine, datasets, references
from ..config import usable_cores
from ..measure import write_rows
from .nxbackend import cpu_provenance

# graph name -> (file under data/, the peers' convert.py spec, short name run_all.sh gives it)
GRAPHS = {
    "CA-GrQc": ("snap/CA-GrQc.txt.gz", "grqc"),
    "wiki-Vote": ("snap/wiki-Vote.txt.gz", "wiki"),
    "Email-Enron": ("snap/Email-Enron.txt.gz", "enron"),
    "soc-Slashdot0902": ("snap/soc-Slashdot0902.txt.gz", "slashdot"),
    "socfb-MIT": ("netrepo/socfb-MIT.MIT8.edgelist.gz", "mit"),
    "MovieLens": ("konect/MovieLens_ti.gmbe.graph.gz:gmbe", "movielens"),
    "dbpedia-writer": ("konect/dbpedia-writer.bi_writer.txt.gz:offset", "writer"),
}
MCE_GRAPHS = ["CA-GrQc", "wiki-Vote", "Email-Enron", "soc-Slashdot0902", "socfb-MIT"]
KCLIQUE_GRAPHS = ["CA-GrQc", "wiki-Vote", "soc-Slashdot0902", "socfb-MIT"]
MBE_GRAPHS = ["MovieLens", "dbpedia-writer"]
K = 8  # run_all.sh's k for PivotScale
RULE_KS = (3, 4, 5, 6, 7, 8)  # listing against pivoting, for count_k_cliques' "auto" rule
OURS = "mce_kit engine"

COLUMNS = ["problem", "graph", "k", "code", "threads", "answer", "checked", "clock", "median_ms", "min_ms",
           "max_ms", "times_ms", "cpu_median_ms", "repeats", "prep_ms", "load_avg", "timed"]


def _load_avg() -> float:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return float("nan")


def _row(problem, graph, k, code, threads, answer, want, times, prep_ms, load, timed, clock="wall",
         cpu_times=None) -> pd.DataFrame:
    """One measured row; ValueError when a run's answer is not the reference."""
    if want is not None and answer != want:
        raise ValueError(f"{code} on {graph} (k={k}): answer {answer}, reference {want}")
    times = [round(t, 3) for t in times]
    s = sorted(times)
    return pd.DataFrame([{
        "problem": problem, "graph": graph, "k": k, "code": code, "threads": threads, "answer": str(answer),
        "checked": "reference" if want is not None else "unchecked", "clock": clock,
        "median_ms": statistics.median(s), "min_ms": s[0], "max_ms": s[-1], "times_ms": times,
        "cpu_median_ms": round(statistics.median(cpu_times), 3) if cpu_times else None, "repeats": len(times),
        "prep_ms": prep_ms, "load_avg": load, "timed": timed}], columns=COLUMNS)


def _ours(fn, repeats: int) -> tuple[object, list[float], list[float]]:
    """(answer, wall times in ms, CPU times in ms) of ``repeats`` runs after one warm-up; every
    answer must agree."""
    want = fn()
    times, cpu = [], []
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        got = fn()
        times.append(1e3 * (time.perf_counter() - t))
        cpu.append(1e3 * (time.process_time() - c))
        if got != want:
            raise ValueError(f"answers differ between runs: {got} != {want}")
    return want, times, cpu


def _prep_ms(obj, prepare) -> float:
    cpu_engine.clear_cache()
    t = time.perf_counter()
    prepare(obj)
    return round(1e3 * (time.perf_counter() - t), 3)


# ---- the peers ----


def convert(peers: Path, work: Path, names) -> None:
    """The peers' own converters (convert.py) write each graph's files into ``work``."""
    data = Path(references.RESULTS).parent
    specs = [f"{GRAPHS[g][1]}={GRAPHS[g][0]}" for g in names]
    subprocess.run([sys.executable, str(peers / "convert.py"), str(data), str(work), *specs], check=True,
                   capture_output=True)
    for g in names:
        short = GRAPHS[g][1]
        if (work / f"{short}.txt").exists():
            (work / f"{short}.el").unlink(missing_ok=True)
            (work / f"{short}.el").symlink_to(work / f"{short}.txt")


def _peer(peers: Path, args: list[str], threads: int, parse) -> tuple[int, float, float]:
    """(answer, printed time in ms, the whole process's CPU time in ms) of one run of a peer."""
    env = {**os.environ, "LD_LIBRARY_PATH": str(peers / "cpu-bin" / "lib"), "OMP_NUM_THREADS": str(threads)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([str(peers / "cpu-bin" / args[0]), *args[1:]], capture_output=True, text=True,
                         env=env, timeout=300)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise RuntimeError(f"{args[0]} exited {out.returncode}: {out.stderr[-300:]}")
    cpu = 1e3 * (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return (*parse(out.stdout), cpu)


def parse_hbbmc(text: str) -> tuple[int, float]:
    m = re.search(r"#mc = (\d+), runtime = ([\d.]+) ms", text)
    return int(m[1]), float(m[2])


def parse_pivotscale(text: str) -> tuple[int, float]:
    t = re.search(r"Counting Time:\s*([\d.]+)", text)
    c = re.search(rf"^k:\s*{K}\s+(\d+)", text, re.M)
    return int(c[1]), 1e3 * float(t[1])


def parse_adambe(text: str) -> tuple[int, float]:
    line = next(ln for ln in text.splitlines() if "Finder," in ln)
    parts = [p.strip() for p in line.split(",")]
    return int(parts[4]), 1e3 * float(parts[2])


def _once(fn) -> tuple[object, float, float]:
    """(answer, wall ms, process CPU ms) of one call."""
    t, c = time.perf_counter(), time.process_time()
    got = fn()
    return got, 1e3 * (time.perf_counter() - t), 1e3 * (time.process_time() - c)


def _alternating(ours, peers, args, threads, parse, repeats):
    """Our runs and a peer's taking turns (one each, ``repeats`` times, after a warm-up of both), so
    both see the same load on a shared machine. Returns ours (answer, wall ms, CPU ms) and the
    peer's (answer, printed ms, process CPU ms), each with one entry per run."""
    mine, theirs = [], []
    for _ in range(repeats + 1):
        mine.append(_once(ours))
        theirs.append(_peer(peers, args, threads, parse))
    mine, theirs = mine[1:], theirs[1:]
    for runs, who in ((mine, "mce_kit"), (theirs, args[0])):
        if len({r[0] for r in runs}) != 1:
            raise ValueError(f"{who}: answers differ between runs: {[r[0] for r in runs]}")
    return ([mine[0][0], [r[1] for r in mine], [r[2] for r in mine]],
            [theirs[0][0], [r[1] for r in theirs], [r[2] for r in theirs]])


# ---- the jobs ----


def _pair(problem, name, k, T, ours, peers, args, parse, repeats, want, prep, timed, peer, peer_timed,
          clock="wall", peer_want=None):
    """Rows for ours and one peer on the same graph and threads (alternating runs with a peer)."""
    load = _load_avg()
    if peers is None:
        ans, times, cpu = _ours(ours, repeats)
        return [_row(problem, name, k, OURS, T, ans, want, times, prep, load, timed, cpu_times=cpu)]
    (ans, times, cpu), (p_ans, p_times, p_cpu) = _alternating(ours, peers, args, T, parse, repeats)
    p_want = want if peer_want is None else peer_want
    return [_row(problem, name, k, OURS, T, ans, want, times, prep, load, timed, cpu_times=cpu),
            _row(problem, name, k, peer, T, p_ans, p_want, p_times, None, load, peer_timed, clock=clock,
                 cpu_times=p_cpu)]


def mce_rows(peers, work, repeats, thread_counts):
    for name in MCE_GRAPHS:
        G = datasets.load(name)
        want = references.expected("mce", name)
        prep = _prep_ms(G, cpu_engine.oriented)
        isolated = int((G.degrees() == 0).sum())  # HBBMC drops them (convert.py compacts them away)
        args = ["hbbmc", str(work / f"{GRAPHS[name][1]}.txt"), "3"]
        for T in thread_counts:
            count = functools.partial(cpu_engine.count_maximal_cliques, G, threads=T)
            yield from _pair("mce", name, None, T, count, peers if T == 1 else None, args, parse_hbbmc,
                             repeats, want, prep, "count_maximal_cliques, ordering cached", "HBBMC",
                             "printed runtime (after reading; CPU time, getrusage)", "cpu", want - isolated)


def kclique_rows(peers, work, repeats, thread_counts):
    for name in KCLIQUE_GRAPHS:
        G = datasets.load(name)
        want = references.expected("kclique", name, k=K)
        prep = _prep_ms(G, cpu_engine.oriented)
        args = ["pivotscale", "-f", str(work / f"{GRAPHS[name][1]}.el"), "-s", "-c", str(K)]
        for T in thread_counts:
            count = functools.partial(cpu_engine.count_k_cliques, G, K, algorithm="auto", threads=T)
            yield from _pair("kclique", name, K, T, count,
                             peers, args, parse_pivotscale, repeats, want, prep,
                             f"count_k_cliques auto ({cpu_engine.pick_algorithm(G, K)}), ordering cached",
                             "PivotScale", "printed Counting Time (after reading, building, orienting)")


def rule_rows(peers, work, repeats, thread_counts):
    """Listing against pivoting for one k, all cores: the data behind ``pick_algorithm``."""
    T = max(thread_counts)
    for name in KCLIQUE_GRAPHS:
        G = datasets.load(name)
        cpu_engine.oriented(G)
        for k in RULE_KS:
            want = references.expected("kclique", name, k=k)
            for algorithm in ("listing", "pivot"):
                if algorithm == "listing" and k > 6 and name in ("soc-Slashdot0902", "socfb-MIT"):
                    continue  # seconds to minutes a run: the rule needs no more than k <= 6 here
                load = _load_avg()
                ans, times, cpu = _ours(lambda G=G, k=k, a=algorithm: cpu_engine.count_k_cliques(
                    G, k, algorithm=a, threads=T), max(3, repeats // 2))
                yield _row("kclique-rule", name, k, f"mce_kit {algorithm}", T, ans, want, times, None, load,
                           "count_k_cliques, ordering cached", cpu_times=cpu)


def mbe_rows(peers, work, repeats, thread_counts):
    for name in MBE_GRAPHS:
        B = datasets.load(name)
        want = references.expected("mbe", name)
        prep = _prep_ms(B, cpu_engine.by_degree)
        adj = str(work / f"{GRAPHS[name][1]}.adj")
        for T in thread_counts:
            args = ["adambe", "-i", adj, "-s", "7", "-t", "1", "-o", "2"] if T == 1 else \
                ["adambe", "-i", adj, "-s", "8", "-t", str(T), "-o", "3"]
            count = functools.partial(cpu_engine.count_maximal_bicliques, B, threads=T)
            peer = "AdaMBE" if T == 1 else "ParAdaMBE"
            yield from _pair("mbe", name, None, T, count, peers, args, parse_adambe, repeats, want, prep,
                             "count_maximal_bicliques, degree order cached", peer,
                             "printed time (after reading)")


def igraph_rows(peers, work, repeats, thread_counts):
    """igraph's maximal_cliques (the CPU path before the engine), one thread, on the same graphs."""
    from .. import engine

    for name in MCE_GRAPHS:
        G = datasets.load(name)
        g = engine.igraph_graph(G)
        load = _load_avg()
        ans, times, cpu = _ours(lambda g=g: len(g.maximal_cliques()), repeats)
        yield _row("mce", name, None, "igraph", 1, ans, references.expected("mce", name), times, None, load,
                   "len(igraph.Graph.maximal_cliques()), graph built", cpu_times=cpu)


JOBS = {"mce": mce_rows, "kclique": kclique_rows, "mbe": mbe_rows, "rule": rule_rows, "igraph": igraph_rows}


def run(out: Path, peers: Path | None, repeats: int = 5, only=None) -> pd.DataFrame:
    thread_counts = sorted({1, usable_cores()})
    provenance = {**cpu_provenance(), "numba": _numba_version()}
    with tempfile.TemporaryDirectory(prefix="mce_kit-peers-") as tmp:
        work = Path(tmp)
        if peers is not None:
            convert(peers, work, [g for g in GRAPHS])
        parts = (row for name, job in JOBS.items() if only is None or name in only
                 for row in job(peers, work, repeats, thread_counts))
        return write_rows(parts, Path(out) / "cpu_engine.csv", provenance)


def _numba_version() -> str:
    import numba

    return numba.__version__


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=references.RESULTS)
    ap.add_argument("--peers", type=Path, default=None, help="the peers folder (with cpu-bin/, convert.py)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--only", nargs="*", choices=sorted(JOBS), default=None)
    a = ap.parse_args(argv)
    df = run(a.out, a.peers, a.repeats, a.only)
    print(df[["problem", "graph", "k", "code", "threads", "median_ms", "load_avg"]].to_string(index=False))


if __name__ == "__main__":
    main()
