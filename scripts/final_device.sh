#!/usr/bin/env bash
# The session's last device call on the 2-GPU host (about 4 minutes): GPU tests of what changed,
# the added long multi-GPU workloads, and where the whole `mce-kit count` process spends its time.
#   MCE_KIT_COMMIT=<sha> bash scripts/final_device.sh OUT_DIR      (carry .whl: Dask and igraph wheels)
set -uo pipefail
out=${1:?usage: scripts/final_device.sh OUT_DIR}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 MCE_KIT_COMMIT=${MCE_KIT_COMMIT:-unknown}
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
    .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site
timeout 75 python3 -m pytest -q -x -m gpu -p no:cacheprovider tests/test_gpu_prepared.py \
    tests/test_gpu_geil.py tests/test_gpu_subsets.py -k "not bundled_graphs_split" 2>&1 | tail -8 \
    | tee "$out/gpu_tests.log"
echo "tests exit: ${PIPESTATUS[0]}"
timeout 40 python3 -m mce_kit.experiments.maxclique --out "$out" --device gpu --peers '' \
    --graphs CA-GrQc email-Eu-core socfb-MIT MANN_a27 2>&1 | tail -3
f=data/snap/soc-Slashdot0902.txt.gz
python3 -m mce_kit count $f --device gpu 2>&1 | tail -1      # compiles the kernel into CuPy's cache
python3 -X importtime -m mce_kit count $f --device gpu 2> "$out/importtime.txt" | tail -1
python3 -m cProfile -s cumtime -m mce_kit count $f --device gpu 2>&1 | head -45 > "$out/count_profile.txt"
( time python3 -m mce_kit count $f --device gpu ) 2>&1 | tail -4
timeout 40 python3 -m mce_kit.experiments.multigpu --out "$out/a" --gpus 1 2 --algo mce-gpu \
    --only ego-Facebook 2>&1 | grep -v "^20..-..-.. \|^INFO\|distributed\." | tail -6
for a in "kcminer rmat-15-16 30" "cliquecount rmat-15-16 30" "gmbe chung-lu-60000x20000-m151875-seed1 40"; do
    set -- $a
    timeout $3 python3 -m mce_kit.experiments.multigpu --out "$out/$1" --gpus 1 2 --algo $1 --only $2 2>&1 \
        | grep -v "^20..-..-.. \|^INFO\|distributed\." | tail -4
done
python3 - "$out" <<'PY'
import sys
from pathlib import Path

import pandas as pd

out = Path(sys.argv[1])
for name in ("scaling", "busy"):
    parts = [pd.read_csv(f) for f in sorted(out.glob(f"*/multigpu_{name}.csv"))]
    if parts:
        pd.concat(parts, ignore_index=True).to_csv(out / f"multigpu_{name}_new.csv", index=False)
for f in out.glob("*/multigpu_*.csv"):
    f.unlink()
PY
