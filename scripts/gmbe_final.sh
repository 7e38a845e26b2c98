#!/usr/bin/env bash
# One device run for issue 11: choose the build (GMBE_XFIRST) and default level by timing, then the
# full GPU tests, every experiment table, the CPU oracle (in the background) and ncu profiles.
# Usage (device): bash scripts/gmbe_final.sh OUT_DIR
set -u
out=$1; r=$out/r; mkdir -p $r
export PYTHONUNBUFFERED=1 PYTHONPATH=.
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -m mce_kit.experiments.gmbe --only cpu_oracle --out $r > $r/cpu_oracle.log 2>&1 &
oracle=$!
choice=$(timeout 60 python3 scripts/gmbe_choose.py $r 2> >(tee $r/choose.log >&2) | tail -1)
xf=${choice% *}; lv=${choice#* }
if [ -z "$choice" ]; then xf=0; lv=gmbe+; fi
echo "== chosen: GMBE_XFIRST=$xf level=$lv"
sed -i "s/^#define GMBE_XFIRST 0 /#define GMBE_XFIRST $xf /" mce_kit/gpu/cuda/gmbe.cu
sed -i "s/^DEFAULTS = dict(level=\"gmbe+\"/DEFAULTS = dict(level=\"$lv\"/" mce_kit/gpu/gmbe.py
grep -n "^#define GMBE_XFIRST\|^DEFAULTS" mce_kit/gpu/cuda/gmbe.cu mce_kit/gpu/gmbe.py
timeout 150 python3 -m pytest tests/test_gpu_gmbe.py -q -p no:cacheprovider 2>&1 | tail -15 | tee $r/tests.txt
timeout 150 python3 -m mce_kit.experiments.gmbe --out $r --only table1 exactness ablations memory sm_activity warps bounds tau large 2>&1 | tee $r/exp.log
# the CPU oracle gets what is left of the run
( sleep 5; kill $oracle 2>/dev/null ) & wait $oracle
tail -3 $r/cpu_oracle.log
tar czf $out/results.tgz -C $r .
ls -la $r
