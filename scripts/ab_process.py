"""A/B of whole one-call processes (``mce-kit count FILE --device gpu``), two sides run alternately,
5 rounds after an untimed first process each; one line per side and case: median and minimum wall time of the process, and its answer.

    PYTHONPATH=. python3 scripts/ab_process.py trees OLD_TREE  # another commit's checkout against this one
    PYTHONPATH=. python3 scripts/ab_process.py rent-buy        # as shipped against buy_gpu_prep() first

The logs are data/results/logs/ab_process_* and ab_rent_buy_* (their first line names the commits).
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
RENT_BUY_CASES = [("Email-Enron", "mce"), ("socfb-MIT", "mce"), ("Email-Enron", "kclique"),
                  ("socfb-MIT", "kclique")]
BUY = "from mce_kit.accel import buy_gpu_prep; buy_gpu_prep(); "


def count_args(graph: str, problem: str) -> list[str]:
    return (["count", str(d.path(graph)), "--format", d.info(graph)["format"], "--problem", problem,
             "--device", "gpu"] + (["--k", "8"] if problem == "kclique" else []))


def module_argv(args: list[str]) -> list[str]:
    return [sys.executable, "-m", "mce_kit", *args]


def entry_argv(pre: str):
    """The CLI's entry in ``python -c``, after the statements ``pre``."""
    def argv(args: list[str]) -> list[str]:
        code = f"import sys; {pre}from mce_kit.cli import entry; sys.argv = ['mce-kit', *{args!r}]; entry()"
        return [sys.executable, "-c", code]

    return argv


def sides(mode: str, old_tree: str | None) -> dict:
    """{side: (argv of the process for count arguments, its working folder)}."""
    if mode == "trees":
        return {"old": (module_argv, old_tree), "new": (module_argv, ".")}
    return {"rent": (entry_argv(""), "."), "buy": (entry_argv(BUY), ".")}


def main(mode: str, old_tree: str | None = None) -> None:
    runs = sides(mode, old_tree)
    env = {**os.environ, "PYTHONPATH": ".:" + os.environ.get("PYTHONPATH", "")}
    for graph, problem in TREE_CASES if mode == "trees" else RENT_BUY_CASES:
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
