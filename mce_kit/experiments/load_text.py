"""Reading a big graph from text: an R-MAT edge list written as a SNAP file, then ``load_graph``
and ``prepare`` (RDMCE's degeneracy order), each timed, with the peak memory of the reading
process (issue 8, item 4: loading must not be the bottleneck).

    python -m mce_kit.experiments.load_text --scale 24 --out DIR [--dir TMP] [--note TEXT]
    python -m mce_kit.experiments.load_text --merge DIR     # fold DIR's row into data/results

Two processes, so that each peak is its own: the first generates ``rmat(scale, 16, seed=1)`` and
writes its edges (``u < v``, one per line, ``write_edge_list``); the second reads the file with
``load_graph``, checks the graph against the generator's (edge count and a 64-bit fingerprint of
the edge list), then runs ``rdmce.prepare(G, device="auto")``. One row per (graph, variant,
machine) in ``rdmce_load_text.csv`` (``variant``: "vectorised" for this code; the committed
table also holds "before" rows: the reader of commit cd0cee2, its stages timed one by one): the
stages of the read (``io.STAGES``: read, scan into tokens, parse the ids; ``build_s`` is the
rest: ids compacted, cleaning report, CSR), peak RSS after the load and after ``prepare``, and
where it ran. ``n_loaded`` counts the vertices with an edge (a text
edge list cannot name the others).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ..config import usable_cores
from ..measure import RESULTS
from .rdmce import _rss

TABLE = "rdmce_load_text.csv"
COLUMNS = ["graph", "variant", "scale", "edge_factor", "n_loaded", "m", "file_bytes", "gen_s", "write_s",
           "load_s", "read_s", "scan_s", "parse_s", "build_s", "load_peak_rss_bytes", "prepare_s",
           "prep_device", "d", "peak_rss_bytes", "checked", "machine", "threads", "gpu", "sms", "driver",
           "commit", "date", "note"]


def fingerprint(u, v) -> int:
    """A 64-bit digest of an ordered edge list (wrapping sums of mixed ids)."""
    u, v = np.asarray(u).astype(np.uint64), np.asarray(v).astype(np.uint64)
    with np.errstate(over="ignore"):
        h = u * np.uint64(0x9E3779B97F4A7C15) + v * np.uint64(0xC2B2AE3D27D4EB4F) + np.uint64(1)
        h ^= h >> np.uint64(31)
        return int(h.sum(dtype=np.uint64))


def machine() -> str:
    from ..gpu import has_gpu

    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    where = f"{platform.node()} ({usable_cores()} cores, {mem:.0f} GiB)"
    if has_gpu():
        from ..gpu import device_info

        where += f" with {device_info()['gpu']}"
    return where


def write_phase(scale: int, edge_factor: int, seed: int, path: Path) -> dict:
    """Generate the R-MAT graph and write its edge list to ``path`` (run in its own process)."""
    from ..generators import rmat
    from ..io import write_edge_list

    t0 = time.perf_counter()
    G = rmat(scale, edge_factor, seed=seed)
    e = G.edges()
    t1 = time.perf_counter()
    size = write_edge_list(path, e[:, 0], e[:, 1], header=f"{G.name}: {G.n} vertices, {G.m} edges")
    t2 = time.perf_counter()
    return dict(graph=G.name, scale=scale, edge_factor=edge_factor, m=G.m, file_bytes=size,
                fingerprint=fingerprint(e[:, 0], e[:, 1]), gen_s=round(t1 - t0, 3), write_s=round(t2 - t1, 3))


def load_phase(path: Path, device: str = "auto") -> dict:
    """``load_graph(path)`` then ``rdmce.prepare`` (run in its own process: its peak RSS is theirs)."""
    from .. import io
    from ..gpu import rdmce
    from ..gpu.prep import use_gpu

    t0 = time.perf_counter()
    G = io.load_graph(path, cache=False)   # the text read is what is timed
    load_s = time.perf_counter() - t0
    stages = dict(io.STAGES)
    load_rss = _rss()
    e = G.edges()
    got = dict(n_loaded=G.n, m=G.m, fingerprint=fingerprint(G.labels[e[:, 0]], G.labels[e[:, 1]]))
    del e
    prep = rdmce.prepare(G, device=device)
    rest = load_s - stages["read_s"] - stages["scan_s"] - stages["parse_s"]
    return dict(**got, load_s=round(load_s, 3), **{k: round(v, 3) for k, v in stages.items()},
                build_s=round(rest, 3), load_peak_rss_bytes=load_rss, prepare_s=round(prep.prep_s, 3),
                prep_device="gpu" if use_gpu(len(G.indices), device) else "cpu", d=prep.d,
                peak_rss_bytes=_rss())


def _gpu_columns() -> dict:
    """The GPU's name, SMs and driver (``device_info``) where one is here (it runs ``prepare``)."""
    from ..gpu import device_info, has_gpu

    return {k: device_info()[k] for k in ("gpu", "sms", "driver")} if has_gpu() else {}


def _phase(args: list[str]) -> dict:
    """Run one phase in a fresh interpreter; its last output line is the phase's JSON."""
    out = subprocess.run([sys.executable, "-m", "mce_kit.experiments.load_text", *args], check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def measure(scale: int, edge_factor: int = 16, seed: int = 1, workdir: Path | None = None,
            note: str = "") -> dict:
    """One row of ``rdmce_load_text.csv`` (the text file is deleted afterwards)."""
    from .rdmce import _commit

    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        path = Path(tmp) / f"rmat-s{scale}-ef{edge_factor}-seed{seed}.txt"
        w = _phase(["--phase", "write", "--scale", str(scale), "--edge-factor", str(edge_factor),
                    "--seed", str(seed), "--path", str(path)])
        print(f"wrote {w['file_bytes'] / 1e9:.2f} GB ({w['m']:,} edges) in {w['write_s']:.1f} s "
              f"(generated in {w['gen_s']:.1f} s)", flush=True)
        r = _phase(["--phase", "load", "--path", str(path)])
    checked = r["m"] == w["m"] and r["fingerprint"] == w["fingerprint"]
    if not checked:
        raise AssertionError(f"{path.name}: the loaded graph differs from the generated one (m {r['m']} "
                             f"vs {w['m']}, fingerprint {r['fingerprint']} vs {w['fingerprint']})")
    row = dict.fromkeys(COLUMNS)
    row.update({k: v for k, v in {**w, **r}.items() if k in COLUMNS})
    row.update(_gpu_columns())
    row.update(variant="vectorised", checked=checked, machine=machine(), threads=usable_cores(),
               commit=_commit(), date=pd.Timestamp.now(tz="UTC").isoformat(timespec="seconds"), note=note)
    return row


def write_row(row: dict, out: Path) -> Path:
    path = Path(out) / TABLE
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame([row], columns=COLUMNS).to_csv(path, mode="a", header=not path.exists(), index=False)
    return path


KEYS = ["graph", "variant", "machine"]


def load(results: Path = RESULTS) -> pd.DataFrame:
    """The table ``rdmce_load_text.csv`` (commits kept as text: "16501e6" is no number)."""
    return pd.read_csv(Path(results) / TABLE, dtype={"commit": str})


def merge(new_dir: Path, results: Path = RESULTS) -> tuple[int, int]:
    """Fold ``new_dir/rdmce_load_text.csv`` into the committed table: a row with the same graph,
    variant and machine replaces the old one. Returns (rows before, rows after)."""
    new = load(new_dir)
    target = Path(results) / TABLE
    old = load(results) if target.exists() else new.iloc[:0]
    fresh = set(map(tuple, new[KEYS].values.tolist()))
    keep = old[[tuple(k) not in fresh for k in old[KEYS].values.tolist()]]
    out = pd.concat([keep, new], ignore_index=True)
    out = out.sort_values(["machine", "scale", "variant"], kind="stable")
    target.parent.mkdir(parents=True, exist_ok=True)
    out.to_csv(target, index=False)
    return len(old), len(out)


def summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per machine and scale: text size, load time and rate, its stages, peak memory, ``prepare``,
    the speed-up of the vectorised reader over the one before (same machine and scale) and the
    load time over the generator's (``vs_gen``)."""
    t = df.assign(text_gb=df["file_bytes"] / 1e9, mb_per_s=df["file_bytes"] / 1e6 / df["load_s"],
                  load_peak_gib=df["load_peak_rss_bytes"] / 2**30, vs_gen=df["load_s"] / df["gen_s"])
    before = t[t["variant"] == "before"].set_index(["machine", "scale"])["load_s"]
    t["speedup"] = [before.get((mc, sc), float("nan")) / s for mc, sc, s in zip(t["machine"], t["scale"],
                                                                                  t["load_s"], strict=True)]
    cols = ["machine", "scale", "variant", "m", "text_gb", "load_s", "mb_per_s", "read_s", "scan_s",
            "parse_s", "build_s", "load_peak_gib", "prepare_s", "prep_device", "speedup", "vs_gen", "commit",
            "date"]
    return t[cols].round(2)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mce_kit.experiments.load_text",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, nargs="+", default=[20], help="R-MAT scales (edge factor 16)")
    ap.add_argument("--edge-factor", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--dir", type=Path, help="where the text file is written (default: the temp dir)")
    ap.add_argument("--note", default="")
    ap.add_argument("--merge", type=Path, metavar="DIR", help="fold DIR's rdmce_load_text.csv into --out")
    ap.add_argument("--phase", choices=["write", "load"], help=argparse.SUPPRESS)
    ap.add_argument("--path", type=Path, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.phase == "write":
        print(json.dumps(write_phase(a.scale[0], a.edge_factor, a.seed, a.path)))
        return 0
    if a.phase == "load":
        print(json.dumps(load_phase(a.path)))
        return 0
    if a.merge:
        before, after = merge(a.merge, a.out)
        print(f"{TABLE}: {before} -> {after} rows")
        return 0
    for sc in a.scale:
        row = measure(sc, a.edge_factor, a.seed, a.dir, a.note)
        print(f"{TABLE} in {write_row(row, a.out)}: {json.dumps(row)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
