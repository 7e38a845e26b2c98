"""The floor under a whole ``mce-kit count`` process on this host: what a Python process costs before
it has read a file, beside which the processes of ``peers.csv`` (clock "process") are read.

    python -m mce_kit.experiments.process_floor --out data/results [--repeats 5]

Each step is a fresh interpreter, timed from its spawn to its exit (``os._exit``, as ``cli.entry``
leaves), the steps taken in turn ``--repeats`` times:

- ``python``: the interpreter alone;
- ``driver``: and the CUDA driver started (``gpu.start_driver``: cuInit and the primary context);
- ``imports``: and NumPy and CuPy imported, no driver;
- ``driver beside imports``: both, the driver on a thread, as ``mce-kit count`` starts them.

Rows are added to ``OUT/process_floor.csv`` with the host's provenance (``peers.host_info``); the
rows of earlier runs stay.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

from ..measure import append_rows
from ..references import RESULTS
from .peers import REPO, _env, host_info

CSV = "process_floor.csv"
EXIT = "import os; os._exit(0)"
STEPS = {
    "python": EXIT,
    "driver": f"from mce_kit.gpu import start_driver; start_driver(); {EXIT}",
    "imports": f"import numpy, cupy; {EXIT}",
    "driver beside imports": ("import threading; from mce_kit.gpu import start_driver; "
                              "t = threading.Thread(target=start_driver); t.start(); "
                              f"import numpy, cupy; t.join(); {EXIT}"),
}


def measure(repeats: int = 5, steps: dict = STEPS) -> pd.DataFrame:
    """One row per step: median, min and max wall seconds of ``repeats`` processes, and every time."""
    times = {name: [] for name in steps}
    for _ in range(repeats):
        for name, code in steps.items():
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO, env=_env(),
                           capture_output=True)
            times[name].append(time.perf_counter() - t)
    return pd.DataFrame([{"step": name, "median_s": statistics.median(t), "min_s": min(t), "max_s": max(t),
                          "runs": len(t), "times_s": " ".join(f"{x:.4f}" for x in t)}
                         for name, t in times.items()])


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=RESULTS)
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args(argv)
    table = measure(args.repeats).assign(**host_info())
    print(table[["step", "median_s", "min_s", "max_s"]].to_string(index=False))
    append_rows(table, args.out / CSV)


if __name__ == "__main__":
    main()
