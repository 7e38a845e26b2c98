#!/usr/bin/env bash
# One device run for issue 11 (about 150 s): the GPU tests of the donating kernel (10-run exactness
# included), the experiment tables that the change touches (table1, exactness, ablations with and
# without donations, tau and warps for both levels, active SMs, memory), then an ncu profile of marvel
# with what is left. Every step has its own time limit; everything lands in OUT_DIR/results.tgz.
# Usage (device, from the worktree root): MCE_KIT_COMMIT=<sha> bash scripts/gmbe_final.sh OUT_DIR
set -u
out=$1; r=$out/r; mkdir -p $r
export PYTHONUNBUFFERED=1 PYTHONPATH=.
t0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $r/gpu.txt
timeout 55 python3 -m pytest tests/test_gpu_gmbe.py -q -p no:cacheprovider 2>&1 | tail -25 | tee $r/tests.txt
echo "== tests done at $((SECONDS - t0)) s"
timeout 75 python3 -m mce_kit.experiments.gmbe --out $r --only table1 exactness ablations warps tau sm_activity \
    memory 2>&1 | tee $r/exp.log
echo "== tables done at $((SECONDS - t0)) s"
python3 - $r <<'PY' 2>&1 | tee $r/summary.txt
import sys, pandas as pd
r = sys.argv[1]
cols = ["graph", "variant", "level", "median_ms", "count", "nodes", "subtasks", "donations", "max_over_mean_cycles"]
for name in ("table1", "ablations"):
    try:
        df = pd.read_csv(f"{r}/gmbe_{name}.csv")
        print(name); print(df[[c for c in cols if c in df]].to_string())
    except Exception as e:  # a table cut off by its time limit
        print(name, "missing:", e)
PY
left=$((145 - (SECONDS - t0)))
if [ $left -gt 20 ]; then
    timeout $left python3 -m mce_kit.experiments.ncu gmbe marvel --out $r 2>&1 | tail -5 | tee $r/ncu.log
fi
echo "== all done at $((SECONDS - t0)) s"
tar czf $out/results.tgz -C $r .
ls -la $r
