"""The peers beside ours on one host: the papers' own GPU codes, the best CPU codes found, and our calls.

    python -m mce_kit.experiments.peers --peers peers --out data/results            # medians of 5
    python -m mce_kit.experiments.peers --peers peers --out data/results --quick    # 3 runs, no slow pairs

``--peers DIR`` is a copy of ``shared/peers`` in a git-ignored folder of the
checkout (``/peers/``): the authors' GPU sources with ``build_gpu.sh``, the
prebuilt CPU binaries in ``cpu-bin/``, ``convert.py`` and ``to_bin.py`` for
their input files. With a GPU the authors' codes are built first (once per
machine: ``--work`` keeps the binaries and the converted graphs). Each peer
runs on the pairs of ``run_all.sh`` (``PAIRS``) ``--repeats`` times; its
printed answer and time are parsed (``PEERS``: one parser per peer) and the
answer is checked against ``mce_kit.references``. A wrong answer makes the
row's ``answer_ok`` False; its times stay in the row but never count as a
result (``mce_kit.viz.peers`` flags it).

Ours on the same pairs, each answer checked, in a fresh interpreter per pair:

- ``ours-cold``: the first public call on a freshly loaded graph, kernels already compiled;
- ``ours-warm``: later calls on that graph (the graph loaded, the call repeated);
- ``ours-kernel``: on a GPU the launcher timed with CUDA events (``mce_kit.measure``, as
  ``mce_kit.bench``); on a CPU the engine call under the public one;
- ``ours-process``: ``python -m mce_kit count FILE ...`` from a fresh interpreter, wall clock.

Peers get two rows per pair: ``clock=printed`` (the time the program prints, its
own clock, file reading excluded) and ``clock=process`` (the whole process,
file to answer). Without a GPU only the CPU peers and our CPU paths run.
This process never starts CUDA itself (its host's details come from a child,
``host_info_of_child``): a process started beside one that holds a CUDA context
starts the driver faster (a C program: 0.19 s against 0.32 s on one H200 host,
2026-11-27), so the process rows, ours and the peers', are what a process
started from a shell takes.

Rows go to ``OUT/peers.csv`` as they are measured, with provenance and a
``host`` label; rows of other hosts already there are kept, so one file holds
the CPU box and the GPU host side by side.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .. import datasets, references
from ..config import usable_cores
from ..measure import warm_clocks, write_rows
from ..references import RESULTS

REPO = Path(__file__).resolve().parents[2]
CSV = "peers.csv"
WORK = Path("/tmp/mce-kit-peers")  # short: GMBE reads its input path into a char[80]
COLUMNS = ["problem", "graph", "params", "who", "role", "clock", "device", "threads", "median_s", "min_s",
           "max_s", "runs", "times_s", "answer", "expected", "answer_ok", "note", "host", "gpu", "sms",
           "driver", "cpu", "cores", "commit", "date"]
ROLES = {"ours": "ours", "gpu": "authors' GPU code", "cpu": "best CPU code"}
OURS = ("ours-warm", "ours-cold", "ours-kernel", "ours-process")
# the launcher behind each public GPU call (mce_kit.bench.ALGORITHMS)
KERNEL = {"mce": "rdmce", "kclique": "kcminer", "mbe": "gmbe", "maxclique": "geil"}
CONVERT_KIND = {"gmbe": "gmbe", "offset": "offset", "konect": "konect"}  # registry format -> convert.py


# ---- what is run ----


@dataclass(frozen=True)
class Pair:
    """One problem on one bundled graph; ``omega_only`` asks for the clique number alone."""

    problem: str
    graph: str
    k: int | None = None
    omega_only: bool = False
    slow: bool = False  # some peer or ours takes over 20 s on it: left out by --quick

    @property
    def params(self) -> str:
        return f"k={self.k}" if self.k else "omega only" if self.omega_only else ""

    @property
    def key(self) -> tuple:
        return (self.problem, self.graph, self.params)


_MCE = ["CA-GrQc", "wiki-Vote", "Email-Enron", "soc-Slashdot0902", "socfb-MIT"]
_MAXC = ["CA-GrQc", "socfb-MIT", "email-Eu-core", "brock200_2", "brock200_4", "keller4", "hamming8-4"]
# the pairs of shared/peers/run_all.sh (issue 24's table)
PAIRS = ([Pair("mce", g) for g in _MCE] + [Pair("mce", "ego-Facebook", slow=True)]
         + [Pair("kclique", g, k=8) for g in ["CA-GrQc", "wiki-Vote", "soc-Slashdot0902", "socfb-MIT"]]
         + [Pair("kclique", "ego-Facebook", k=8, slow=True)]
         + [Pair("mbe", g) for g in ["MovieLens", "dbpedia-writer"]]
         + [Pair("maxclique", g) for g in _MAXC] + [Pair("maxclique", "MANN_a27", omega_only=True)])


def _num(text: str) -> float:
    return float(text.replace(",", ""))


def _last(pattern: str, text: str, flags=re.M):
    found = re.findall(pattern, text, flags)
    return found[-1] if found else None


def parse_rdmce(text: str, pair: Pair):
    a, t = re.search(r"MC numbers:\s*(\d+)", text), re.search(r"MCE GPU Time:\s*([\d.eE+-]+)", text)
    return (int(a[1]) if a else None), (float(t[1]) if t else None)


def parse_mcegpu(text: str, pair: Pair):
    a, t = re.search(r"Found\s+(\d+)\s+maximal cliques", text), re.search(r"count time\s+([\d.]+)\s*s", text)
    return (int(a[1]) if a else None), (float(t[1]) if t else None)


def parse_hbbmc(text: str, pair: Pair):
    m = re.search(r"#mc\s*=\s*(\d+),\s*runtime\s*=\s*([\d.]+)\s*ms", text)
    return (int(m[1]), float(m[2]) / 1e3) if m else (None, None)


def parse_kcgpu(text: str, pair: Pair):
    """The last ``Counter = N`` (the counter adds up over the level loop) and ``count time T s``."""
    a, t = _last(r"Counter\s*=\s*([\d,]+)", text), _last(r"count time\s+([\d.]+)\s*s", text)
    return (int(_num(a)) if a else None), (float(t) if t else None)


def parse_pivotscale(text: str, pair: Pair):
    counts = {int(k): int(n) for k, n in re.findall(r"^k:\s*(\d+)\s+(\d+)\s*$", text, re.M)}
    t = re.search(r"Counting Time:\s*([\d.eE+-]+)", text)
    return counts.get(pair.k), (float(t[1]) if t else None)


def parse_gmbe(text: str, pair: Pair):
    """GMBE ends its report with ``, COUNT, SECONDS`` (the header line before it has no decimal point)."""
    m = _last(r",\s*(\d+),\s*(\d+\.\d+)\s*$", text)
    return (int(m[0]), float(m[1])) if m else (None, None)


def parse_adambe(text: str, pair: Pair):
    """``name, [Par]AdaMBEFinder, SECONDS, MEMORY_MB, COUNT, ...``"""
    m = re.search(r"AdaMBEFinder,\s*([\d.]+),\s*[\d.]+,\s*(\d+)", text)
    return (int(m[2]), float(m[1])) if m else (None, None)


def parse_mcbrb(text: str, pair: Pair):
    """omega and ``Total Time`` (microseconds, with thousands separators)."""
    a = re.search(r"Maximum Clique Size:\s*(\d+)", text)
    t = re.search(r"Total Time:\s*([\d,]+)", text)
    return ((int(a[1]),) if a else None), (_num(t[1]) / 1e6 if t else None)


@dataclass(frozen=True)
class Peer:
    """A peer program: how to call it (``{bin}``: built GPU codes, ``{cpu}``: cpu-bin, ``{g}``: the
    converted graph without suffix, ``{k}``, ``{nt}``: cores) and how to read its answer and time."""

    name: str
    problem: str
    role: str  # "gpu" (a paper's own code) or "cpu"
    argv: tuple[str, ...]
    parse: Callable
    threads: str = "1"  # "1" or "all"
    skip: frozenset = field(default_factory=frozenset)  # graphs it is not run on (why: in PEER_NOTES)

    @property
    def gpu(self) -> bool:
        return self.role == "gpu"


PEERS = {p.name: p for p in [
    Peer("rdmce", "mce", "gpu", ("{bin}/rdmce", "-i", "{g}.txt", "-d", "0"), parse_rdmce),
    Peer("mce-gpu", "mce", "gpu", ("{bin}/mcegpu", "-m", "mce", "-g", "{g}.bel", "-d", "0", "-p", "l2", "-i",
                                    "px", "-w", "wl"), parse_mcegpu),
    Peer("hbbmc", "mce", "cpu", ("{cpu}/hbbmc", "{g}.txt", "3"), parse_hbbmc,
         skip=frozenset({"ego-Facebook"})),
    Peer("kcgpu", "kclique", "gpu", ("{bin}/kcgpu", "-g", "{g}.mtx", "-d", "0", "-m", "kc", "-o", "degree",
                                     "-k", "{k}", "-p", "edge", "-q", "p8b", "-w", "0"), parse_kcgpu),
    Peer("pivotscale", "kclique", "cpu", ("{cpu}/pivotscale", "-f", "{g}.el", "-s", "-c", "{k}"),
         parse_pivotscale, threads="all"),
    Peer("gmbe", "mbe", "gpu", ("{bin}/gmbe", "-i", "{g}.adj", "-s", "2", "-t", "1", "-o", "1", "-f"),
         parse_gmbe),
    Peer("adambe", "mbe", "cpu", ("{cpu}/adambe", "-i", "{g}.adj", "-s", "7", "-t", "1", "-o", "2"),
         parse_adambe),
    Peer("paradambe", "mbe", "cpu", ("{cpu}/adambe", "-i", "{g}.adj", "-s", "8", "-t", "{nt}", "-o", "3"),
         parse_adambe, threads="all"),
    Peer("mc-brb", "maxclique", "cpu", ("{cpu}/mcbrb", "MC-BRB", "{g}.bin"), parse_mcbrb),
]}
PEER_NOTES = {
    "hbbmc": "HBBMC (ICDE'25), one thread; not run on ego-Facebook (over 300 s, issue 24)",
    "pivotscale": "PivotScale (IPDPS'25): k-clique counts by pivoting, every core",
    "adambe": "AdaMBE, one thread, order 2 (orders 1 and 3 give other counts)",
    "paradambe": "ParAdaMBE, every core",
    "mc-brb": "MC-BRB (KDD'19), one thread: omega and one maximum clique (stands in for PMC)",
    "kcgpu": "KCGPU edge-parallel + pivot (its edge + orientation mode miscounts CA-GrQc)",
}


# ---- the host, the work folder, the peers' inputs ----


def cpu_model() -> str:
    from .nxbackend import cpu_model as model

    return model()


def host_info() -> dict:
    """Provenance of this host: GPU (``measure.provenance``) when there is one, CPU model and cores always."""
    from ..gpu import has_gpu
    from ..measure import provenance

    cores = usable_cores()
    if has_gpu():
        prov = provenance()
        gpu = {"gpu": prov["gpu"], "sms": prov["sms"], "driver": prov["driver"]}
        commit, date = prov["commit"], prov["date"]
    else:
        from .nxbackend import cpu_provenance

        prov = cpu_provenance()
        gpu = {"gpu": "none", "sms": "", "driver": ""}
        commit, date = prov["commit"], prov["date"]
    cpu = cpu_model()
    host = f"{cpu} ({cores} cores), " + (gpu["gpu"] if gpu["gpu"] != "none" else "no GPU")
    return {"host": host, **gpu, "cpu": cpu, "cores": cores, "commit": commit, "date": date}


def host_info_of_child() -> dict:
    """``host_info`` as a fresh interpreter finds it, so that this process starts no CUDA context."""
    code = "import json; from mce_kit.experiments.peers import host_info; print(json.dumps(host_info()))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=_env(),
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _stem(graph: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", graph)


def build_gpu(peers_dir: Path, work: Path, rebuild: bool = False) -> dict[str, bool]:
    """Build the authors' codes with ``build_gpu.sh`` into ``work/bin`` (skipped when built already);
    {program: built}."""
    names = ("rdmce", "mcegpu", "kcgpu", "gmbe")
    bin_dir, ncr = work / "bin", Path("/tmp/peers/nCr.txt")  # build_gpu.sh writes KCGPU's table there
    if rebuild or not ncr.exists() or not all((bin_dir / n).exists() for n in names):
        src = work / "src"
        shutil.rmtree(src, ignore_errors=True)
        shutil.copytree(peers_dir / "gpu-src", src)
        ncr.parent.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        with open(work / "build.log", "w") as log:
            subprocess.run(["bash", str(peers_dir / "build_gpu.sh"), str(src), str(bin_dir)], stdout=log,
                           stderr=subprocess.STDOUT, timeout=900)
        print(f"built the authors' codes in {time.perf_counter() - t0:.0f} s (log: {work / 'build.log'})",
              flush=True)
    return {n: os.access(bin_dir / n, os.X_OK) for n in names}


def convert(peers_dir: Path, work: Path, graphs, mcegpu: Path | None = None) -> dict[str, int]:
    """The peers' input files for ``graphs`` under ``work/g`` (convert.py, to_bin.py, mce-gpu's .bel),
    made once; {graph: vertices with an edge} (convert.py drops isolated vertices)."""
    g_dir = work / "g"
    g_dir.mkdir(parents=True, exist_ok=True)
    kept = {}
    for name in graphs:
        stem, info = g_dir / _stem(name), datasets.info(name)
        rel = str(Path(info["file"]))
        done = stem.with_suffix(".n")
        if not done.exists():
            bip = info["kind"] == "bipartite"
            spec = f"{stem.name}={rel}" + (f":{CONVERT_KIND[info['format']]}" if bip else "")
            out = subprocess.run([sys.executable, str(peers_dir / "convert.py"), str(datasets.data_dir()),
                                  str(g_dir), spec], capture_output=True, text=True, check=True).stdout
            if not bip:
                subprocess.run([sys.executable, str(peers_dir / "to_bin.py"), f"{stem}.txt", f"{stem}.bin"],
                               check=True)
                Path(f"{stem}.el").unlink(missing_ok=True)
                Path(f"{stem}.el").symlink_to(f"{stem.name}.txt")
            m = re.search(r"\bn=(\d+)", out)
            done.write_text(m[1] if m else "")
        if mcegpu is not None and info["kind"] != "bipartite" and not Path(f"{stem}.bel").exists():
            subprocess.run([str(mcegpu), "-m", "convert", "-g", f"{stem}.txt", "-r", f"{stem}.bel"],
                           capture_output=True, timeout=300)
        text = done.read_text().strip()
        kept[name] = int(text) if text else -1
    return kept


def expected(pair: Pair, kept: dict[str, int] | None = None, who: str = "ours"):
    """The reference answer of ``pair`` for ``who`` (``mce_kit.references``; for a maximum clique
    without one, the registry's published omega). Ours counts isolated vertices as maximal cliques
    of size 1, the peers never see them (convert.py drops them), so their count is that much lower;
    MC-BRB gives omega alone."""
    keys = {"k": pair.k} if pair.k else {}
    want = references.expected(pair.problem, pair.graph, **keys)
    if want is None and pair.problem == "maxclique" and datasets.info(pair.graph)["known_omega"]:
        want = (datasets.info(pair.graph)["known_omega"],)  # DIMACS graphs with a published omega
    if want is None:
        return None
    if pair.problem == "maxclique":
        return want[:1] if pair.omega_only or who != "ours" else want
    if pair.problem == "mce" and who != "ours" and kept and kept.get(pair.graph, -1) >= 0:
        want -= datasets.info(pair.graph)["n_vertices"] - kept[pair.graph]
    return want


# ---- rows ----


def _canon(answer):
    """An answer as an int, or a tuple of ints (omega[, number of maximum cliques])."""
    if isinstance(answer, list | tuple):
        return tuple(int(x) for x in answer)
    return None if answer is None else int(answer)


def check(answers: list, want) -> tuple[bool | None, str]:
    """(answer_ok, note): None when there is no answer or no reference; False when any run differs
    (on the columns both sides give: MC-BRB's omega against our (omega, n_maximum))."""
    answers = [_canon(a) for a in answers if a is not None]
    if not answers:
        return None, "no answer"
    if want is None:
        return None, "no reference answer"
    want = _canon(want)

    def same(a):
        if isinstance(want, tuple):
            a = a if isinstance(a, tuple) else (a,)
            return a[:len(want)] == want[:len(a)]
        return a == want
    wrong = [a for a in answers if not same(a)]
    if not wrong:
        return True, ""
    shown = ", ".join(sorted({str(_first(a)) for a in wrong}))
    return False, f"WRONG: {len(wrong)} of {len(answers)} runs gave {shown} (reference {_first(want)})"


def _first(a):
    return a[0] if isinstance(a, tuple) else a


TICK_S = 1e-6   # a printed time at or below this is a clock that did not tick during the run


def _typical(times: list) -> tuple[float, str]:
    """(the typical time, a note): the median; but where some runs printed 0 and others a tick of a
    coarse clock (HBBMC reads CA-GrQc as 0 or 4 ms), the median is 0 or one tick, and the mean of
    the runs is the estimate (a run of t seconds counts t / tick ticks on average)."""
    if not times:
        return math.nan, ""
    if min(times) <= TICK_S < max(times):
        return statistics.fmean(times), "printed clock coarser than the run (runs read 0): mean of the runs"
    return statistics.median(times), ""


def make_row(pair: Pair, who: str, role: str, clock: str, device: str, threads, times: list, answers: list,
             want, host: dict, note: str = "") -> dict:
    """One row of peers.csv: the spread of ``times`` (seconds), the answer checked against ``want``."""
    ok, why = check(answers, want)
    times = [float(t) for t in times if t is not None and math.isfinite(t)]
    typical, coarse = _typical(times)
    if coarse:
        note = "; ".join(x for x in (note, coarse) if x)
    given = [_canon(a) for a in answers if a is not None]
    row = dict.fromkeys(COLUMNS, "")
    row.update(problem=pair.problem, graph=pair.graph, params=pair.params, who=who, role=ROLES[role],
               clock=clock, device=device, threads=threads, runs=len(times),
               times_s=json.dumps([round(t, 6) for t in times]),
               median_s=typical,
               min_s=min(times) if times else math.nan, max_s=max(times) if times else math.nan,
               answer=_first(statistics.mode(given)) if given else "",
               expected="" if want is None else _first(_canon(want)), answer_ok="" if ok is None else ok,
               note="; ".join(x for x in ("" if why == "no answer" and note else why, note) if x))
    row.update({k: v for k, v in host.items() if k in COLUMNS})
    return row


# ---- running a peer ----


def run_peer(peer: Peer, pair: Pair, argv: list[str], env: dict, repeats: int, timeout_s: float,
             budget_s: float) -> tuple[list, list, list, str]:
    """Run ``argv`` up to ``repeats`` times (fewer once ``budget_s`` is spent): (answers, printed times,
    process wall times, note)."""
    answers, printed, wall, note = [], [], [], ""
    t_start = time.perf_counter()
    for _ in range(repeats):
        t0 = time.perf_counter()
        try:
            out = subprocess.run(argv, capture_output=True, text=True, errors="replace", env=env,
                                 timeout=timeout_s)
        except subprocess.TimeoutExpired:
            note = f"timed out after {timeout_s:.0f} s"
            break
        dt = time.perf_counter() - t0
        text = re.sub(r"\x1b\[[0-9;]*m", "", out.stdout + out.stderr)
        answer, secs = peer.parse(text, pair)
        if out.returncode != 0 or answer is None:
            tail = " | ".join(text.strip().splitlines()[-2:])[:200]
            note = f"exit {out.returncode}" + ("" if answer is not None else f", no answer: {tail}")
            if answer is None:
                break
        answers.append(answer)
        printed.append(secs)
        wall.append(dt)
        if time.perf_counter() - t_start > budget_s:
            break
    return answers, printed, wall, note


# ---- ours ----


def _our_call(pair: Pair, dev: str) -> Callable:
    import mce_kit as mk

    if pair.problem == "mce":
        return lambda G: int(mk.count_maximal_cliques(G, device=dev))
    if pair.problem == "kclique":
        return lambda G: int(mk.count_k_cliques(G, pair.k, device=dev))
    if pair.problem == "mbe":
        return lambda B: int(mk.count_maximal_bicliques(B, device=dev))
    if pair.omega_only:
        return lambda G: (int(mk.clique_number(G, device=dev)),)

    def max_cliques(G):
        omega, cliques = mk.max_cliques(G, device=dev)
        return (int(omega), len(cliques))
    return max_cliques


def _cpu_kernel(pair: Pair) -> Callable:
    """The CPU routine under the public call (igraph's C engine where it answers, else the oracle)."""
    from .. import cpu, engine

    if pair.problem == "mce":
        return engine.count_maximal_cliques
    if pair.problem == "kclique":
        return lambda G: cpu.count_k_cliques(G, pair.k)
    if pair.problem == "mbe":
        return cpu.count_maximal_bicliques
    if pair.omega_only:
        return lambda G: (engine.clique_number(G),)
    return lambda G: (lambda r: (r[0], len(r[1])))(engine.max_cliques(G))


def _gpu_kernel(pair: Pair, G, repeats: int) -> tuple[list, str]:
    """([(seconds, answer)], note): CUDA-event times of the launcher behind the public GPU call (for
    k-cliques the one the call chose: KCMiner's listing or the pivot counter, as its Count says)."""
    import mce_kit as mk

    from ..bench import ALGORITHMS
    from ..measure import WrongAnswer, measure

    how = "listing"
    if pair.problem == "kclique":
        how = (getattr(mk.count_k_cliques(G, pair.k, device="gpu"), "params", None) or {}).get("algorithm",
                                                                                              "listing")
    if how == "pivot":
        from ..gpu import cliquecount

        prep = cliquecount.prepare(G)
        prep.run(k_max=pair.k)  # warm-up
        runs = [prep.run(k_max=pair.k) for _ in range(repeats)]
        return [(r.gpu_ms / 1e3, r.answer[pair.k]) for r in runs], "cliquecount (pivot) launcher, CUDA events"
    mod = ALGORITHMS[KERNEL[pair.problem]].launcher()
    params = {**mod.DEFAULTS, **({"k": pair.k} if pair.k else {})}
    try:
        row = measure(mod.prepare(G), pair.problem, repeats, 1, None, **params)
    except WrongAnswer as e:
        return [], f"WRONG: runs disagree: {e}"
    answer = (row["omega"], row["n_maximum"]) if pair.problem == "maxclique" else row["count"]
    return [(t / 1e3, answer) for t in row["times_ms"]], f"{KERNEL[pair.problem]} launcher, CUDA events"


def ours_worker(pair: Pair, dev: str, repeats: int, budget_s: float) -> None:
    """In a fresh interpreter: print one JSON line per measurement (who, times_s, answers, note).

    Each kind gets at least one run and takes more (up to ``repeats``) while its share of
    ``budget_s`` lasts: warm calls up to 40% (after ``warm_clocks``), the kernel up to 70%, further
    cold calls the rest."""
    def emit(who, runs, note=""):
        print(json.dumps({"who": who, "times_s": [t for t, _ in runs], "answers": [a for _, a in runs],
                          "note": note}), flush=True)

    def timed(fn, G):
        t = time.perf_counter()
        a = fn(G)
        return time.perf_counter() - t, a

    def repeat(fn, G, share, runs=None):
        runs = [] if runs is None else runs
        while len(runs) < repeats and (not runs or time.perf_counter() - t_start < share * budget_s):
            runs.append(timed(fn, G))
        return runs

    call = _our_call(pair, dev)
    call(datasets.load(pair.graph))  # compiles the kernels (GPU), imports the engine (CPU)
    t_start = time.perf_counter()
    G = datasets.load(pair.graph)
    cold = [timed(call, G)]
    emit("ours-cold", cold)
    warm_clocks(lambda: call(G))   # (not timed: the GPU's clocks rise from idle, as in frontdoor)
    emit("ours-warm", repeat(call, G, 0.4))
    if dev == "gpu" and not pair.omega_only:  # the launcher answers the full maximum-clique question
        try:
            emit("ours-kernel", *_gpu_kernel(pair, G, repeats))
        except Exception as e:  # the call's rows above stand; say why this one is missing
            emit("ours-kernel", [], f"kernel not timed: {type(e).__name__}: {e}"[:300])
    elif dev == "cpu":
        fn = _cpu_kernel(pair)
        fn(G)  # warm-up
        emit("ours-kernel", repeat(fn, G, 0.7), "the CPU engine call")
    while len(cold) < repeats and time.perf_counter() - t_start < budget_s:
        del G
        G = datasets.load(pair.graph)
        cold.append(timed(call, G))
        emit("ours-cold", cold)


def _env() -> dict:
    env = dict(os.environ)
    env.setdefault("MCE_KIT_COMMIT", _commit())
    env["PYTHONPATH"] = os.pathsep.join(x for x in (str(REPO), env.get("PYTHONPATH", "")) if x)
    return env


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=REPO, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def run_ours(pair: Pair, dev: str, repeats: int, timeout_s: float, budget_s: float) -> dict[str, dict]:
    """The worker in a fresh interpreter, killed after ``budget_s + timeout_s``: {who: its last line}."""
    spec = json.dumps({"pair": pair.__dict__, "dev": dev, "repeats": repeats, "budget_s": budget_s})
    proc = subprocess.Popen([sys.executable, "-m", "mce_kit.experiments.peers", "--ours-worker", spec],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO, env=_env())
    note = ""
    try:
        out, err = proc.communicate(timeout=budget_s + timeout_s)
        if proc.returncode != 0:
            note = f"exit {proc.returncode}: " + (err.strip().splitlines() or [""])[-1][:200]
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        note = f"timed out after {budget_s + timeout_s:.0f} s"
    got = {}
    for line in out.splitlines():
        if line.startswith("{"):
            rec = json.loads(line)
            got[rec["who"]] = rec
    for who in OURS[:3]:
        got.setdefault(who, {"who": who, "times_s": [], "answers": [], "note": ""})
        if note and not got[who]["times_s"]:
            got[who]["note"] = note
    return got


_CLI_ANSWER = re.compile(r"^(?:maximal cliques|\d+-cliques|maximal bicliques):\s*(\d+)|"
                         r"^omega:\s*(\d+),\s*maximum cliques:\s*(\d+)", re.M)


def parse_cli(text: str):
    """The answer ``python -m mce_kit count`` prints: a count, or (omega, number of maximum cliques)."""
    m = _CLI_ANSWER.search(text)
    if not m:
        return None
    return int(m[1]) if m[1] else (int(m[2]), int(m[3]))


def cli_argv(pair: Pair, dev: str) -> list[str]:
    info = datasets.info(pair.graph)
    argv = [sys.executable, "-m", "mce_kit", "count", str(datasets.path(pair.graph)), "--format",
            info["format"], "--problem", pair.problem, "--device", dev]
    return argv + (["--k", str(pair.k)] if pair.k else [])


def run_process(pair: Pair, dev: str, repeats: int, timeout_s: float, budget_s: float):
    """``python -m mce_kit count FILE`` from a fresh interpreter: (answers, wall times, note)."""
    answers, wall, note = [], [], ""
    t_start = time.perf_counter()
    for _ in range(repeats):
        t0 = time.perf_counter()
        try:
            out = subprocess.run(cli_argv(pair, dev), capture_output=True, text=True, timeout=timeout_s,
                                 cwd=REPO, env=_env())
        except subprocess.TimeoutExpired:
            note = f"timed out after {timeout_s:.0f} s"
            break
        answer = parse_cli(out.stdout)
        if answer is None:
            note = f"exit {out.returncode}: " + (out.stderr.strip().splitlines() or [""])[-1][:200]
            break
        answers.append(answer)
        wall.append(time.perf_counter() - t0)
        if time.perf_counter() - t_start > budget_s:
            break
    return answers, wall, note


# ---- the whole run ----


@dataclass
class Settings:
    peers: Path | None
    out: Path = RESULTS
    work: Path = WORK
    repeats: int = 5
    quick: bool = False
    timeout_s: float = 150.0
    budget_s: float = 60.0
    problems: tuple = ()
    graphs: tuple = ()
    run_peers: bool = True
    run_ours: bool = True
    rebuild: bool = False


def pairs_for(s: Settings) -> list[Pair]:
    return [p for p in PAIRS if (not s.problems or p.problem in s.problems)
            and (not s.graphs or p.graph in s.graphs) and not (s.quick and p.slow)]


def measure_rows(s: Settings, host: dict) -> Iterator[dict]:
    """Every row of this run, yielded as soon as it is measured (``host``: ``host_info``'s)."""
    gpu = host["gpu"] != "none"
    dev = "gpu" if gpu else "cpu"
    pairs = pairs_for(s)
    built, kept, env = {}, {}, dict(os.environ)
    if s.run_peers and s.peers is not None:
        s.work.mkdir(parents=True, exist_ok=True)
        if gpu:
            built = build_gpu(s.peers, s.work, s.rebuild)
            print("built:", ", ".join(f"{k} {'ok' if v else 'FAILED'}" for k, v in built.items()), flush=True)
        mcegpu = s.work / "bin" / "mcegpu" if built.get("mcegpu") else None
        kept = convert(s.peers, s.work, sorted({p.graph for p in pairs}), mcegpu)
        env.update(LD_LIBRARY_PATH=os.pathsep.join(
            x for x in (str(s.peers / "cpu-bin" / "lib"), env.get("LD_LIBRARY_PATH", "")) if x), LC_ALL="C")
    nt = usable_cores()
    cpu = host["cpu"]
    gpu_name = host["gpu"] if gpu else ""
    for pair in pairs:
        if s.run_peers and s.peers is not None:
            for peer in PEERS.values():
                if peer.problem != pair.problem or pair.graph in peer.skip or (peer.gpu and not gpu):
                    continue
                threads = "" if peer.gpu else nt if peer.threads == "all" else 1
                device = gpu_name if peer.gpu else cpu
                want = expected(pair, kept, peer.name)
                if peer.gpu and not built.get(Path(peer.argv[0]).name):
                    yield make_row(pair, peer.name, peer.role, "printed", device, "", [], [], want, host,
                                   "not built here (see build.log)")
                    continue
                files = {"bin": s.work / "bin", "cpu": s.peers / "cpu-bin",
                         "g": s.work / "g" / _stem(pair.graph)}
                argv = [a.format(**files, k=pair.k, nt=nt) for a in peer.argv]
                answers, printed, wall, note = run_peer(peer, pair, argv, env, s.repeats, s.timeout_s,
                                                        s.budget_s)
                for clock, times in (("printed", printed), ("process", wall)):
                    yield make_row(pair, peer.name, peer.role, clock, device, threads, times, answers, want,
                                   host, note)
        if s.run_ours:
            device = gpu_name if gpu else cpu
            threads = "" if gpu else 1
            want = expected(pair)
            got = run_ours(pair, dev, s.repeats, s.timeout_s, s.budget_s)
            clocks = {"ours-warm": "call", "ours-cold": "call", "ours-kernel": "kernel"}
            for who in ("ours-warm", "ours-cold", "ours-kernel"):
                rec = got[who]
                if who == "ours-kernel" and not rec["times_s"] and not rec["note"]:
                    continue  # the GPU kernel of an omega-only pair: not measured
                yield make_row(pair, who, "ours", clocks[who], device, threads, rec["times_s"],
                               rec["answers"], want, host, rec["note"])
            if not pair.omega_only:  # the command line has no omega-only mode
                answers, wall, note = run_process(pair, dev, s.repeats, s.timeout_s, s.budget_s)
                yield make_row(pair, "ours-process", "ours", "process", device, threads, wall, answers, want,
                               host, note)


def _kept_rows(path: Path, host: str, pairs: list[Pair], sides: set[str]) -> pd.DataFrame:
    """Rows already in ``path`` that this run does not re-measure (other hosts, other pairs or sides)."""
    if not path.exists():
        return pd.DataFrame(columns=COLUMNS)
    old = pd.read_csv(path, dtype=str, keep_default_na=False).reindex(columns=COLUMNS, fill_value="")
    keys = {p.key for p in pairs}
    side = old["role"].map(lambda r: "ours" if r == ROLES["ours"] else "peers")
    same_pair = pd.Series([k in keys for k in zip(old["problem"], old["graph"], old["params"], strict=True)],
                          index=old.index, dtype=bool)
    again = (old["host"] == host) & same_pair
    return old[~(again & side.isin(sides))]


def run(s: Settings) -> pd.DataFrame:
    """Measure every pair and write ``s.out/peers.csv`` row by row; returns the whole table."""
    host = host_info_of_child()
    path = s.out / CSV
    s.out.mkdir(parents=True, exist_ok=True)
    sides = {x for x, on in (("peers", s.run_peers and s.peers is not None), ("ours", s.run_ours)) if on}
    kept = _kept_rows(path, host["host"], pairs_for(s), sides)
    print(f"host: {host['host']}; {len(kept)} rows kept from {path}", flush=True)

    def parts():
        if len(kept):
            yield kept
        for row in measure_rows(s, host):
            ok = {True: "ok", False: "WRONG", "": "-"}[row["answer_ok"]]
            print(f"{row['problem']:9s} {row['graph']:17s} {row['who']:12s} {row['clock']:7s} "
                  f"median {row['median_s']:.4g} s over {row['runs']} runs, answer {row['answer']} {ok} "
                  f"{row['note']}", flush=True)
            yield pd.DataFrame([row], columns=COLUMNS)
    return write_rows(parts(), path, {})


def load(results: Path = RESULTS) -> pd.DataFrame:
    """The committed ``peers.csv`` (empty, with its columns, when there is none)."""
    path = results / CSV
    if not path.exists():
        return pd.DataFrame(columns=COLUMNS)
    df = pd.read_csv(path, keep_default_na=False, na_values={c: [""] for c in
                                                             ("median_s", "min_s", "max_s", "sms")})
    df["answer_ok"] = df["answer_ok"].map({True: True, False: False, "True": True, "False": False})
    return df.reindex(columns=COLUMNS)


# ---- ours beside the peers, per graph (what the notebooks and status() show) ----


def _has_gpu(gpu) -> bool:
    return isinstance(gpu, str) and gpu not in ("", "none")


def pick_host(df: pd.DataFrame, problem: str, gpu: bool | None = None) -> str | None:
    """The host whose rows for ``problem`` to show: the latest GPU host, else the latest other one
    (``gpu=True``: GPU hosts only); None when no host measured it."""
    rows = df[df["problem"] == problem]
    if rows.empty:
        return None
    last = rows.groupby("host")["date"].max()
    with_gpu = [h for h in last.index if _has_gpu(rows.loc[rows["host"] == h, "gpu"].iloc[0])]
    if with_gpu:
        return last[with_gpu].idxmax()
    return None if gpu else last.idxmax()


def _fastest(rows: pd.DataFrame) -> pd.Series | None:
    """The fastest row with a right answer, else (to show it, flagged) the fastest wrong one."""
    timed = rows.dropna(subset=["median_s"])
    for good in (timed[timed["answer_ok"] == True], timed):  # noqa: E712
        if len(good):
            return good.loc[good["median_s"].idxmin()]
    return None


def latest_runs(rows: pd.DataFrame) -> pd.DataFrame:
    """Each code's row from its latest run, per graph, parameters and clock (in their first order)."""
    by_date = rows.sort_values("date", kind="stable")
    return by_date.groupby(["graph", "params", "who", "clock"], sort=False, dropna=False).tail(1).sort_index()


def comparison(df: pd.DataFrame, problem: str, host: str) -> pd.DataFrame:
    """One row per graph of ``problem`` on ``host``: our times (warm, cold, kernel, process), the
    fastest authors' GPU code and the fastest CPU code (printed clocks), the ratios peer / ours
    (> 1: ours faster; only between right answers; the whole process against the same peer's),
    and every wrong answer named. Where a host measured a pair more than once, each code's latest
    run counts (a code changed between runs; the best of several runs would flatter either side)."""
    part = latest_runs(df[(df["host"] == host) & (df["problem"] == problem)])
    out = []
    for (graph, params), g in part.groupby(["graph", "params"], sort=False):
        def ours(who, g=g):
            r = g[g["who"] == who]
            return r.iloc[0] if len(r) else None
        row = {"graph": graph, "params": params}
        for who in OURS:
            r = ours(who)
            row[who.replace("-", "_") + "_s"] = r["median_s"] if r is not None else math.nan
        warm = ours("ours-warm")
        ours_ok = warm is not None and warm["answer_ok"] == True  # noqa: E712
        for role, col in (("gpu", "gpu_code"), ("cpu", "cpu_code")):
            peers = g[(g["role"] == ROLES[role]) & (g["clock"] == "printed")]
            best = _fastest(peers)
            row[col] = best["who"] if best is not None else ""
            row[col + "_threads"] = best["threads"] if best is not None else ""
            row[col + "_s"] = best["median_s"] if best is not None else math.nan
            right = best is not None and best["answer_ok"] == True  # noqa: E712
            # a printed time of 0 is under the peer's clock tick (HBBMC's 4 ms on CA-GrQc): no ratio
            row[col + "_vs_ours"] = (best["median_s"] / warm["median_s"] if right and ours_ok
                                     and warm["median_s"] > 0 and best["median_s"] > 0 else math.nan)
            proc = g[(g["who"] == row[col]) & (g["clock"] == "process")]
            row[col + "_process_s"] = proc["median_s"].iloc[0] if len(proc) else math.nan
            mine = ours("ours-process")
            right = right and mine is not None and mine["answer_ok"] == True  # noqa: E712
            row[col + "_process_vs_ours"] = (row[col + "_process_s"] / mine["median_s"] if right
                                             else math.nan)
        bad = g[(g["answer_ok"] == False) & (g["clock"] != "process")]  # noqa: E712
        row["wrong"] = "; ".join(f"{r.who}: {r.note}" for r in bad.itertuples())
        failed = g[g["answer_ok"].isna() & (g["clock"] != "process")]
        row["not_answered"] = "; ".join(f"{r.who}: {r.note}" for r in failed.itertuples())
        out.append(row)
    return pd.DataFrame(out)


# ---- the papers' items fed by it ----

# (paper module, item): (problem, the CPU codes standing in, what the paper compared with, caveat)
# the ratio each item's claim is about: over the CPU code (a stand-in) or over the authors' GPU code
CLAIM = {("mcegpu", "Table 1"): "cpu_code_vs_ours", ("gmbe", "Fig 9"): "gpu_code_vs_ours",
         ("kcminer", "Table 2"): "gpu_code_vs_ours", ("geil", "Fig 4"): "cpu_code_vs_ours"}
ITEMS = {
    ("mcegpu", "Table 1"): ("mce", "HBBMC", "the paper's multi-core CPU code", "HBBMC runs on one thread"),
    ("gmbe", "Fig 9"): ("mbe", "AdaMBE/ParAdaMBE", "the paper's other biclique codes", ""),
    ("kcminer", "Table 2"): ("kclique", "PivotScale", "the paper's CPU baseline", "k = 8 only"),
    ("geil", "Fig 4"): ("maxclique", "MC-BRB", "PMC",
                        "MC-BRB finds omega and one maximum clique, ours every maximum clique"),
}


def _geomean(r: pd.Series) -> float:
    return math.exp(sum(math.log(x) for x in r) / len(r))


def status(results: Path = RESULTS) -> dict:
    """{(paper module, item): reproduction.Status} for the four items the peers feed, each marked as
    measured with a substitute code. An item appears once a GPU host has measured its problem and
    adds to the paper module's own status: where that one measured the claim's number, it stands;
    else the peers' ratio in the claim's terms (``CLAIM``) is the value the rule compares."""
    from ..reproduction import Status, judge, paper_status

    df = load(results)
    out = {}
    for (paper, item), (problem, cpu_codes, theirs, caveat) in ITEMS.items():
        host = pick_host(df, problem, gpu=True)
        if host is None:
            continue
        t = comparison(df, problem, host)
        rows = df[(df["host"] == host) & (df["problem"] == problem)]
        gpu, date = str(rows["gpu"].iloc[0]), str(rows["date"].max())[:10]
        parts = []
        for col, label in (("cpu_code_vs_ours", f"{cpu_codes} / ours"),
                           ("gpu_code_vs_ours", "authors' GPU code / ours")):
            r = t[col].dropna()
            if len(r):
                parts.append(f"{label} (warm call, {gpu}): geomean {_geomean(r):.2f}x, "
                             f"{r.min():.2f}-{r.max():.2f}x over {len(r)} graphs")
        wrong = int(rows["answer_ok"].eq(False).sum())
        reason = "; ".join(x for x in (
            f"with a substitute CPU code: {cpu_codes} on the same host in place of {theirs}", caveat,
            "bundled graphs, not the paper's", f"{wrong} rows with wrong answers" if wrong else "") if x)
        claim = t[CLAIM[(paper, item)]].dropna()
        value = _geomean(claim) if len(claim) else None
        complete = CLAIM[(paper, item)] == "gpu_code_vs_ours"  # a CPU stand-in: at most partial
        own = paper_status(paper).get(item)
        if own is not None and own.value is not None:
            value, complete = own.value, own.complete
        mine = [own.ours] if own is not None and own.ours else []
        ours = "; ".join(mine + parts) or "no comparable rows"
        out[(paper, item)] = Status(ours, value, noise=own.noise if own is not None else False,
                                    complete=complete,
                                    reason="; ".join(x for x in (own.reason if own else "", reason) if x),
                                    device=gpu, date=date)
    return judge(out)


# ---- command line ----


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mce_kit.experiments.peers",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--peers", type=Path, help="a copy of shared/peers (without it: ours only)")
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--work", type=Path, default=WORK,
                    help=f"built codes and converted graphs (default {WORK})")
    ap.add_argument("--repeats", type=int, default=5, help="runs per measurement (median)")
    ap.add_argument("--quick", action="store_true",
                    help="3 runs, 20 s budget per pair and side, 60 s timeout, no ego-Facebook")
    ap.add_argument("--timeout", type=float, help="seconds before one run is killed (default 150, quick 60)")
    ap.add_argument("--budget", type=float, default=60.0,
                    help="seconds per pair and side after which no further repeat starts")
    ap.add_argument("--problems", nargs="+", choices=sorted({p.problem for p in PAIRS}), default=())
    ap.add_argument("--graphs", nargs="+", default=())
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--no-ours", action="store_true")
    ap.add_argument("--rebuild", action="store_true", help="build the authors' codes again")
    ap.add_argument("--ours-worker", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.ours_worker:
        spec = json.loads(a.ours_worker)
        ours_worker(Pair(**spec["pair"]), spec["dev"], spec["repeats"], spec["budget_s"])
        return 0
    s = Settings(peers=a.peers, out=a.out, work=a.work,
                 repeats=3 if a.quick and a.repeats == 5 else a.repeats, quick=a.quick,
                 timeout_s=a.timeout or (60.0 if a.quick else 150.0),
                 budget_s=min(a.budget, 20.0) if a.quick else a.budget,
                 problems=tuple(a.problems), graphs=tuple(a.graphs), run_peers=not a.no_peers,
                 run_ours=not a.no_ours, rebuild=a.rebuild)
    if s.peers is not None and not (s.peers / "run_all.sh").exists():
        ap.error(f"{s.peers}: not a copy of shared/peers (no run_all.sh)")
    df = run(s)
    print(f"{s.out / CSV}: {len(df)} rows", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
