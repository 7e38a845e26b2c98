#!/usr/bin/env bash
# One device batch for issue #9 (mce-gpu speed), in order of need, within LIMIT seconds:
# bench timings (modes), the GPU tests, the A/B variants, an ncu row. Run on the device:
#   LIMIT=280 MCE_KIT_COMMIT=<sha> bash scripts/device_mcegpu_batch.sh
set -o pipefail
export PYTHONUNBUFFERED=1
LIMIT=${LIMIT:-280}
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
budget() { local left=$(( LIMIT - $(el) )); echo $(( left < $1 ? left : $1 )); }
log=$OUT/log.txt
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee "$log"
echo "== modes $(el) s" | tee -a "$log"
timeout "$(budget 90)" python3 -m mce_kit.experiments.mcegpu --only modes \
    --graphs ego-Facebook wiki-Vote Email-Enron soc-Slashdot0902 CA-GrQc CA-HepTh email-Eu-core socfb-MIT --out "$OUT" 2>&1 | tail -5 | tee -a "$log"
echo "== tests $(el) s" | tee -a "$log"
t=$(budget 140); [ "$t" -gt 20 ] && timeout "$t" python3 -m pytest tests/test_gpu_mcegpu.py -q \
    -p no:cacheprovider --durations=12 2>&1 | tail -30 | tee -a "$log"
echo "== variants $(el) s" | tee -a "$log"
t=$(budget 60); [ "$t" -gt 20 ] && timeout "$t" python3 -m mce_kit.experiments.mcegpu --quick --only variants \
    --graphs ego-Facebook wiki-Vote --out "$OUT" 2>&1 | tail -5 | tee -a "$log"
echo "== ncu $(el) s" | tee -a "$log"
t=$(budget 120); [ "$t" -gt 40 ] && timeout "$t" python3 -m mce_kit.experiments.ncu mce-gpu ego-Facebook \
    --param subtree=L2 --param induced=IPX --out "$OUT" 2>&1 | tail -8 | tee -a "$log"
echo "== done $(el) s" | tee -a "$log"
