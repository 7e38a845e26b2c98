"""Where the front door's time goes on a GPU host: a whole ``mce_kit count`` process (start-up
pieces, import times, cProfile) and cold public calls (cProfile of the first call on a freshly
loaded graph, kernels compiled). Run from the checkout: python3 scripts/profile_frontdoor.py OUT_DIR
[--process-only | --calls-only]. An installed package has its bytecode compiled (pip does it): on a host whose
site-packages lack it, run ``python3 -m compileall`` on them first and unset PYTHONDONTWRITEBYTECODE."""
import cProfile
import pstats
import subprocess
import sys
import time
from pathlib import Path

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
py = sys.executable
COUNTS = [["data/snap/wiki-Vote.txt.gz"], ["data/snap/soc-Slashdot0902.txt.gz"],
          ["data/snap/wiki-Vote.txt.gz", "--problem", "kclique", "--k", "8"],
          ["MovieLens", "--problem", "mbe"], ["email-Eu-core", "--problem", "maxclique"]]


def wall(cmd) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - t0


import os  # noqa: E402

calls_only = "--calls-only" in sys.argv
print("== environment:", {k: v for k, v in os.environ.items() if k.startswith("PYTHON")})
import numpy  # noqa: E402

cache = Path(numpy.__file__).parent / "__pycache__"
print("numpy bytecode cache:", cache, "present" if cache.exists() else "absent",
      "writable" if os.access(cache.parent, os.W_OK) else "read-only")
print("== process pieces (min of 3, s)")
PIECES = [("python", "pass"), ("numpy", "import numpy"), ("scipy.sparse", "import scipy.sparse"),
          ("cupy", "import cupy"), ("cupy + context", "import cupy; cupy.zeros(1).sum().item()"),
          ("mce_kit", "import mce_kit"), ("mce_kit.cli", "import mce_kit.cli")]
for label, code in [] if calls_only else PIECES:
    print(f"{label:16s} {min(wall([py, '-c', code]) for _ in range(3)):.3f}")
for f in [] if calls_only else COUNTS:
    cmd = [py, "-m", "mce_kit", "count", *f, "--device", "gpu"]
    wall(cmd)  # CuPy's kernel cache
    print(f"count {f}: {min(wall(cmd) for _ in range(5)):.3f}")
    serial = [py, "-c", "import sys, mce_kit.cli as c; c._gpu_probe_behind = lambda d: None; "
              f"sys.exit(c.main({['count'] + f + ['--device', 'gpu']!r}))"]
    print(f"count {f}, CUDA started after the load: {min(wall(serial) for _ in range(5)):.3f}")

print("== import times of `count wiki-Vote` (cumulative us, top 25)")
count = [py, "-X", "importtime", "-m", "mce_kit", "count", *COUNTS[0], "--device", "gpu"]
res = subprocess.run(["true"] if calls_only else count, capture_output=True, text=True)
rows = []
for line in res.stderr.splitlines():
    if line.startswith("import time:") and "|" in line and "cumulative" not in line:
        _, cum, name = (s.strip() for s in line[len("import time:"):].split("|"))
        rows.append((int(cum), name))
for cum, name in sorted(rows, reverse=True)[:25]:
    print(f"{cum:9d} {name}")

for i, f in enumerate([] if calls_only else COUNTS):
    prof = out / f"count{i}_cli.prof"
    subprocess.run([py, "-m", "cProfile", "-o", str(prof), "-m", "mce_kit", "count", *f, "--device", "gpu"],
                   check=True, capture_output=True)
    print(f"== cProfile of `count {f}`")
    pstats.Stats(str(prof)).sort_stats("cumulative").print_stats(45)

if "--process-only" in sys.argv:
    sys.exit(0)
print("== cold public calls")
import mce_kit as mk  # noqa: E402
from mce_kit import datasets, prepared  # noqa: E402

CALLS = [("mce", "soc-Slashdot0902", lambda G: mk.count_maximal_cliques(G, device="gpu")),
         ("mce", "Email-Enron", lambda G: mk.count_maximal_cliques(G, device="gpu")),
         ("k=4", "soc-Slashdot0902", lambda G: mk.count_k_cliques(G, 4, device="gpu")),
         ("k=6", "soc-Slashdot0902", lambda G: mk.count_k_cliques(G, 6, device="gpu")),
         ("k=6", "socfb-MIT", lambda G: mk.count_k_cliques(G, 6, device="gpu")),
         ("k=8", "soc-Slashdot0902", lambda G: mk.count_k_cliques(G, 8, device="gpu")),
         ("k=6", "Email-Enron", lambda G: mk.count_k_cliques(G, 6, device="gpu")),
         ("mbe", "dbpedia-writer", lambda B: mk.count_maximal_bicliques(B, device="gpu")),
         ("mbe", "MovieLens", lambda B: mk.count_maximal_bicliques(B, device="gpu")),
         ("omega", "socfb-MIT", lambda G: mk.clique_number(G, device="gpu")),
         ("omega", "wiki-Vote", lambda G: mk.clique_number(G, device="gpu"))]
for what, name, call in CALLS:
    call(datasets.load(name))  # compiles
    prepared.release()
    G = datasets.load(name)
    pr = cProfile.Profile()
    t0 = time.perf_counter()
    pr.enable()
    call(G)
    pr.disable()
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    call(G)
    warm = time.perf_counter() - t0
    print(f"== {what} {name}: cold {1e3 * cold:.1f} ms, warm {1e3 * warm:.1f} ms")
    pstats.Stats(pr).sort_stats("tottime").print_stats(14)
    pr = cProfile.Profile()
    pr.enable()
    call(G)
    pr.disable()
    print(f"== {what} {name}: a warm call")
    pstats.Stats(pr).sort_stats("tottime").print_stats(12)
