"""The floor under a whole ``mce-kit count`` process on this host: what a Python process costs before
it has read a file, beside which the processes of ``peers.csv`` (clock "process") are read.

    python -m mce_kit.experiments.process_floor --out data/results [--repeats 5]

Each step is a fresh interpreter, timed from its spawn to its exit (``os._exit``, as ``cli.entry``
leaves), the steps taken in turn ``--repeats`` times:

- ``python``: the interpreter alone;
- ``driver``: and the CUDA driver started (``gpu.start_driver``: cuInit and the primary context);
- ``imports``: and NumPy and CuPy imported, no driver;
- ``driver beside imports``: both, the driver on a thread, as ``mce-kit count`` starts them;
- ``driver from C``: a C program doing only what ``start_driver`` does (dlopen, cuInit, the primary
  context), built here with ``cc``: what any CUDA process pays, the authors' binaries included.
  Without a C compiler the step is left out, and said so.

This process starts no CUDA context while it times (``peers.csv``'s process rows are taken alike).
Then it starts one, and times ``driver`` and ``driver from C`` again as ``... beside a context``: a
process started while another holds a context starts the driver faster (what a process run from a
notebook or a benchmark that has used the GPU sees).
Rows are added to ``OUT/process_floor.csv`` with the host's provenance (``peers.host_info``); the
rows of earlier runs stay.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from ..gpu import start_driver
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

C_DRIVER = r"""
#include <dlfcn.h>
typedef int (*init_t)(unsigned);
typedef int (*get_t)(int *, int);
typedef int (*retain_t)(void **, int);
int main(void) {   /* exits 0 either way, as start_driver returns */
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) return 0;
    int device; void *context;
    init_t init = (init_t)dlsym(lib, "cuInit");
    get_t get = (get_t)dlsym(lib, "cuDeviceGet");
    retain_t retain = (retain_t)dlsym(lib, "cuDevicePrimaryCtxRetain");
    if (init && get && retain && !init(0) && !get(&device, 0)) retain(&context, device);
    return 0;
}
"""


def build_c_driver(folder: Path) -> Path | None:
    """``C_DRIVER`` built in ``folder`` with ``cc``; None (and why, printed) when it cannot be."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        print("process_floor: no C compiler (cc, gcc): step 'driver from C' left out")
        return None
    src, exe = folder / "start_driver.c", folder / "start_driver"
    src.write_text(C_DRIVER)
    done = subprocess.run([cc, "-O2", str(src), "-o", str(exe), "-ldl"], capture_output=True, text=True)
    if done.returncode:
        print(f"process_floor: {cc} failed, step 'driver from C' left out: {done.stderr.strip()[:200]}")
        return None
    return exe


def with_c_driver(folder: Path, steps: dict = STEPS) -> dict:
    """``steps`` and, where a C compiler builds it, "driver from C" (its argv)."""
    exe = build_c_driver(folder)
    return steps if exe is None else {**steps, "driver from C": [str(exe)]}


def measure(repeats: int = 5, steps: dict = STEPS) -> pd.DataFrame:
    """One row per step: median, min and max wall seconds of ``repeats`` processes, and every time.
    A step is Python code for a fresh interpreter, or an argv list (a program of its own)."""
    times = {name: [] for name in steps}
    for _ in range(repeats):
        for name, code in steps.items():
            argv = code if isinstance(code, list) else [sys.executable, "-c", code]
            t = time.perf_counter()
            subprocess.run(argv, check=True, cwd=REPO, env=_env(), capture_output=True)
            times[name].append(time.perf_counter() - t)
    return pd.DataFrame([{"step": name, "median_s": statistics.median(t), "min_s": min(t), "max_s": max(t),
                          "runs": len(t), "times_s": " ".join(f"{x:.4f}" for x in t)}
                         for name, t in times.items()])


BESIDE = ("driver", "driver from C")   # timed again while this process holds a context


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=RESULTS)
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        steps = with_c_driver(Path(folder))
        table = measure(args.repeats, steps)
        if start_driver():   # (this process holds a context from here on)
            again = {f"{name} beside a context": steps[name] for name in BESIDE if name in steps}
            table = pd.concat([table, measure(args.repeats, again)], ignore_index=True)
    table = table.assign(**host_info())
    print(table[["step", "median_s", "min_s", "max_s"]].to_string(index=False))
    append_rows(table, args.out / CSV)


if __name__ == "__main__":
    main()
