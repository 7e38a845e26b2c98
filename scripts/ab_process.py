"""A/B of whole one-call processes (``mce-kit count FILE --device gpu``), two trees run
alternately, 5 rounds after an untimed first process each; one line per side and case: median and
minimum wall time of the process, and its answer.

    PYTHONPATH=. python3 scripts/ab_process.py trees OLD_TREE  # another commit's checkout against this one
    PYTHONPATH=. python3 scripts/ab_process.py trees OLD_TREE maxclique   # the max-clique cases

The logs are data/results/logs/ab_process_* (their first line names the commits). The ab_rent_buy_*
logs ran this script's rent-buy mode of their commits, which left with the rule in accel.
"""
import os
import statistics
import subprocess
import sys
import time

import mce_kit.datasets as d

TREE_CASES = [("wiki-Vote", "mce"), ("soc-Slashdot0902", "mce"), ("socfb-MIT", "mce"),
              ("socfb-MIT", "kclique"), ("soc-Slashdot0902", "kclique"), ("MovieLens", "mbe"),
              ("dbpedia-writer", "mbe")]
MAXCLIQUE_CASES = [(g, "maxclique") for g in ("CA-GrQc", "email-Eu-core", "socfb-MIT", "brock200_4",
                                             "keller4")]


def count_args(graph: str, problem: str) -> list[str]:
    return (["count", str(d.path(graph)), "--format", d.info(graph)["format"], "--problem", problem,
             "--device", "gpu"] + (["--k", "8"] if problem == "kclique" else []))


def module_argv(args: list[str]) -> list[str]:
    return [sys.executable, "-m", "mce_kit", *args]


def main(mode: str, old_tree: str, cases: str = "default") -> None:
    if mode != "trees" or cases not in ("default", "maxclique"):
        raise SystemExit("usage: ab_process.py trees OLD_TREE [maxclique]")
    runs = {"old": (module_argv, old_tree), "new": (module_argv, ".")}
    env = {**os.environ, "PYTHONPATH": ".:" + os.environ.get("PYTHONPATH", "")}
    for graph, problem in TREE_CASES if cases == "default" else MAXCLIQUE_CASES:
        args = count_args(graph, problem)
        times, outs = {s: [] for s in runs}, {}
        for argv, cwd in runs.values():   # a first process each (kernels compiled and cached), not timed
            subprocess.run(argv(args), cwd=cwd, env=env, capture_output=True)
        for _ in range(5):
            for side, (argv, cwd) in runs.items():
                t = time.perf_counter()
                r = subprocess.run(argv(args), cwd=cwd, env=env, capture_output=True, text=True)
                times[side].append(time.perf_counter() - t)
                outs[side] = r.stdout.strip() or r.stderr.strip()[-200:]
        for side in runs:
            print(f"{side:4s} {graph:18s} {problem:8s} median {statistics.median(times[side]):.3f} s "
                  f"min {min(times[side]):.3f}  {outs[side]}", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
