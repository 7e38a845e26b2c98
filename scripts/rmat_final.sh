#!/usr/bin/env bash
# Issue 8, item 4, the counts the sweep (scripts/rmat_sweep.sh) left out for time (run from the
# repository root; at most 85 s; CSVs and a log in OUT): the GPU tests added after the sweep,
#   edge factor 2 at scales 22-24 (the sweep counted up to 23: 371,652,141 in 0.39 s on an H200),
#   and how the R-MAT draws scale with threads (scale 24 took 39 s on the H200 host's 16 cores).
# Edge factor 4 at scale 22 is left out: its count grew 12x from scale 20 to 21 (2.4 s), so three
# runs there would take minutes.
# Fold in: python -m mce_kit.experiments.rdmce --merge OUT/ef2
set -o pipefail
OUT=${1:?usage: scripts/rmat_final.sh OUT}
mkdir -p "$OUT"/ef2
export PYTHONUNBUFFERED=1
PY=${PYTHON:-python3}
X="-m mce_kit.experiments.rdmce --only scale --oracle-max 0"
timeout 15 $PY -m pytest tests/test_gpu_prep.py -q -x -p no:cacheprovider -k "unique or edge_lists" 2>&1 | tail -3
timeout 50 $PY $X --scales 22 23 24 --edge-factors 2 --scale-budget 40 --out "$OUT"/ef2
timeout 20 $PY -c "
import time
from mce_kit.generators import rmat_edges
for t in (1, 4, 16):
    t0 = time.perf_counter(); rmat_edges(20, 16, seed=1, threads=t)
    print(f'rmat_edges scale 20, {t} threads: {time.perf_counter() - t0:.2f} s', flush=True)
"
for f in "$OUT"/*/rdmce_scale.csv; do echo "== $f"; cut -d, -f1-6,14,19 "$f"; done
