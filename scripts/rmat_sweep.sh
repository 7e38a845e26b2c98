#!/usr/bin/env bash
# Issue 8, item 4: RDMCE on R-MAT scales 10..24 on one GPU (run from the repository root).
#   scripts/rmat_sweep.sh OUT        # about 290 s at most; CSVs and a log in OUT (run 2026-11-23 on an H200)
# 1. GPU preparation equals the host's (tests/test_gpu_prep.py, with RDMCE counts and 10-run exactness);
# 2. edge factor 16 at scale 24 alone (issue 8's target: prepare <= 10 s), then scales 10..23
#    (counted up to 15, the planner's passes and device bytes at every scale);
# 3. edge factors 2 and 4 (counted while the projected time fits), every count checked against
#    data/results/rdmce_rmat_oracle.csv (CPU oracle) where it has the graph.
# Fold the results in: for d in OUT/ef16 OUT/ef16-24 OUT/ef2 OUT/ef4; do
#   python -m mce_kit.experiments.rdmce --merge $d; done
set -o pipefail
OUT=${1:?usage: scripts/rmat_sweep.sh OUT}
mkdir -p "$OUT"/ef16-24 "$OUT"/ef16 "$OUT"/ef2 "$OUT"/ef4
export PYTHONUNBUFFERED=1
PY=${PYTHON:-python3}
ALL="10 11 12 13 14 15 16 17 18 19 20 21 22 23 24"
X="-m mce_kit.experiments.rdmce --only scale --oracle-max 0"
nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv,noheader
nproc; free -g | head -2
timeout 40 $PY -m pytest tests/test_gpu_prep.py -q -x -p no:cacheprovider 2>&1 | tail -25
timeout 80 $PY $X --scales 24 --edge-factors 16 --scale-budget 75 --out "$OUT"/ef16-24
timeout 90 $PY $X --scales 10 11 12 13 14 15 16 17 18 19 20 21 22 23 --edge-factors 16 --scale-budget 80 \
    --out "$OUT"/ef16
timeout 50 $PY $X --scales $ALL --edge-factors 2 --scale-budget 45 --out "$OUT"/ef2
timeout 25 $PY $X --scales $ALL --edge-factors 4 --scale-budget 20 --out "$OUT"/ef4
for f in "$OUT"/*/rdmce_scale.csv; do echo "== $f"; cut -d, -f1-12 "$f"; done
