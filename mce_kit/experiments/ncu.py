"""What bounds a kernel: one run under Nsight Compute, summarised per kernel.

    python -m mce_kit.experiments.ncu ALGORITHM GRAPH [--param NAME=VALUE ...] --out DIR

The graph is prepared and the kernel warmed up (compiled) outside the profiled
range; then one run is profiled (``cudaProfilerStart``/``Stop`` around it) with
``ncu --clock-control none`` and the SpeedOfLight, Occupancy, LaunchStats,
SchedulerStats and WarpStateStats sections. One row per kernel name (launches
summed) goes to ``DIR/ncu_profile.csv`` (appended), with provenance:

- ``warp_inst`` and ``warp_inst_per_result`` (per maximal clique, k-clique...),
- ``lanes_active`` (thread instructions per warp instruction, out of 32),
- ``issue_active_pct`` (issue-slot use), ``occupancy_pct``, ``sm_pct`` and
  ``memory_pct`` (speed of light), ``registers``,
- the stall reasons, cycles per issued instruction, largest first.

Profiled times are longer than the bench's (ncu replays each kernel once per
metric pass); the bench's median is what the targets compare with.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

from ..bench import ALGORITHMS, _parse_value, load
from ..measure import append_rows, provenance

SECTIONS = ["SpeedOfLight", "Occupancy", "LaunchStats", "SchedulerStats", "WarpStateStats"]
EXTRA_METRICS = ["smsp__inst_executed.sum", "smsp__thread_inst_executed.sum"]
STALL = re.compile(r"smsp__average_warps?_issue_stalled_(\w+?)_per_issue_active\.ratio$")
COLUMNS = {  # our name -> ncu raw metric
    "duration_ms": "gpu__time_duration.sum",
    "issue_active_pct": "smsp__issue_active.avg.pct_of_peak_sustained_active",
    "occupancy_pct": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "sm_pct": "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "memory_pct": "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "registers": "launch__registers_per_thread",
}


def parse_params(pairs: list[str], defaults: dict) -> dict:
    """``NAME=VALUE`` pairs typed like the launcher's DEFAULTS; unknown names are an error."""
    params = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or name not in defaults:
            raise SystemExit(f"--param {pair!r}: expected NAME=VALUE with NAME one of {sorted(defaults)}")
        params[name] = _parse_value(defaults[name])(text)
    return params


def _number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def read_raw_csv(path: Path) -> list[dict]:
    """ncu's ``--csv --page raw`` log: a header, a units line, then one line per launch."""
    lines = [ln for ln in path.read_text().splitlines() if ln.startswith('"')]
    if not lines:
        raise RuntimeError(f"{path}: ncu wrote no kernel rows:\n{path.read_text()[-2000:]}")
    rows = list(csv.DictReader(lines))
    return [r for r in rows if r.get("ID", "").isdigit()]  # drops the units line


def _weighted(rows: list[dict], weights: list[float], metric: str) -> float | None:
    """Mean of ``metric`` over launches, weighted by their durations (launches lacking it left out)."""
    values = [_number(r.get(metric, "")) for r in rows]
    pairs = [(v, w) for v, w in zip(values, weights, strict=True) if v is not None]
    wsum = sum(w for _, w in pairs)
    return sum(v * w for v, w in pairs) / wsum if wsum else None


def summarise(launches: list[dict], results: float | None) -> pd.DataFrame:
    """One row per kernel name: instructions summed, ratios weighted by duration."""
    out = []
    by_kernel: dict[str, list[dict]] = {}
    for launch in launches:
        name = re.split(r"[<(]", launch["Kernel Name"].removeprefix("void "))[0]
        by_kernel.setdefault(name, []).append(launch)
    for name, group in by_kernel.items():
        def total(metric, rows=group):
            return sum(_number(r.get(metric, "")) or 0.0 for r in rows)

        weights = [_number(r.get(COLUMNS["duration_ms"], "")) or 0.0 for r in group]  # ns
        inst = total("smsp__inst_executed.sum")
        row = {"kernel": name, "launches": len(group), "duration_ms": sum(weights) / 1e6,
               "warp_inst": inst,
               "warp_inst_per_result": inst / results if results else None,
               "lanes_active": total("smsp__thread_inst_executed.sum") / inst if inst else None}
        for ours, metric in COLUMNS.items():
            if ours != "duration_ms":
                row[ours] = _weighted(group, weights, metric)
        stalls = {m.group(1): _weighted(group, weights, col) for col in group[0] if (m := STALL.match(col))}
        stalls = sorted(((k, v) for k, v in stalls.items() if v), key=lambda kv: -kv[1])
        row.update({f"stall_{reason}": cycles for reason, cycles in stalls})
        row["top_stalls"] = " ".join(f"{k}={v:.2f}" for k, v in stalls[:4])
        out.append(row)
    return pd.DataFrame(out).sort_values("duration_ms", ascending=False)


def bounds(path: Path | None = None) -> pd.DataFrame:
    """The longest kernel of each profiled run, with the columns that say what bounds it."""
    from ..references import RESULTS

    table = pd.read_csv(path or RESULTS / "ncu_profile.csv")
    main = table.sort_values("duration_ms").groupby(["algorithm", "graph", "params", "date"]).tail(1)
    cols = ["algorithm", "graph", "params", "kernel", "duration_ms", "warp_inst_per_result", "lanes_active",
            "issue_active_pct", "occupancy_pct", "memory_pct", "registers", "top_stalls", "gpu", "date"]
    return main[[c for c in cols if c in main.columns]].sort_values(["algorithm", "graph"], ignore_index=True)


def child(algo_name: str, graph: str, params: dict, answer_file: Path) -> None:
    """Inside ncu: prepare and warm up unprofiled, then profile exactly one run."""
    import cupy

    algo = ALGORITHMS[algo_name]
    G, _ = load(graph, algo.bipartite)
    prep = algo.launcher().prepare(G)
    prep.run(**params)
    cupy.cuda.runtime.deviceSynchronize()
    cupy.cuda.runtime.profilerStart()
    result = prep.run(**params)
    cupy.cuda.runtime.deviceSynchronize()
    cupy.cuda.runtime.profilerStop()
    answer = result.answer[-1] if isinstance(result.answer, tuple) else result.answer
    answer_file.write_text(json.dumps({"answer": int(answer)}))


def profile(algo_name: str, graph: str, params: dict, ncu: str = "ncu") -> pd.DataFrame:
    if shutil.which(ncu) is None:
        raise SystemExit(f"{ncu}: Nsight Compute is not on PATH (it is on the lent H100/H200 machines)")
    with tempfile.TemporaryDirectory() as tmp:
        log, answer_file = Path(tmp) / "ncu.csv", Path(tmp) / "answer.json"
        cmd = [ncu, "--clock-control", "none", "--profile-from-start", "off", "--csv", "--page", "raw",
               "--log-file", str(log), "--metrics", ",".join(EXTRA_METRICS)]
        for section in SECTIONS:
            cmd += ["--section", section]
        cmd += [sys.executable, "-m", "mce_kit.experiments.ncu", "--child", str(answer_file),
                algo_name, graph, *(f"--param={k}={v}" for k, v in params.items())]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0 or not answer_file.exists():
            raise RuntimeError(f"ncu failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n"
                               f"{proc.stderr[-3000:]}")
        answer = json.loads(answer_file.read_text())
        table = summarise(read_raw_csv(log), answer["answer"])
    return table.assign(algorithm=algo_name, graph=graph, params=json.dumps(params, sort_keys=True),
                        answer=answer["answer"])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mce_kit.experiments.ncu", description=__doc__.split("\n")[0])
    ap.add_argument("algorithm", choices=sorted(ALGORITHMS))
    ap.add_argument("graph")
    ap.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--out", type=Path, default=Path("."))
    ap.add_argument("--ncu", default="ncu", help="the Nsight Compute command")
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    params = parse_params(a.param, ALGORITHMS[a.algorithm].launcher().DEFAULTS)
    if a.child:
        child(a.algorithm, a.graph, params, a.child)
        return 0
    new = profile(a.algorithm, a.graph, params, a.ncu).assign(**provenance())
    append_rows(new, a.out / "ncu_profile.csv")
    show = ["kernel", "launches", "duration_ms", "warp_inst_per_result", "lanes_active", "issue_active_pct",
            "occupancy_pct", "registers", "top_stalls"]
    print(f"{a.algorithm} {a.graph} {params}\n{new[show].to_string(index=False)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
