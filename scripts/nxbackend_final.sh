#!/usr/bin/env bash
# Issue #18 (networkx backend): the GPU rows again, within 120 s, for a run on another machine than
# the committed rows' (those are from an H200): nx.find_cliques drained by networkx, on a converted
# graph and end to end, soc-Slashdot0902 first (the target graph). Rows land in OUT as they come.
#   MCE_KIT_COMMIT=<sha> bash scripts/nxbackend_final.sh "$OUT"
set -o pipefail
export PYTHONUNBUFFERED=1
OUT=${1:?usage: scripts/nxbackend_final.sh OUT}
mkdir -p "$OUT"
nvidia-smi -L | tee "$OUT/log.txt"
timeout 112 python3 -m mce_kit.experiments.nxbackend --gpu --nx-repeats 3 \
    --graphs soc-Slashdot0902 wiki-Vote Email-Enron --out "$OUT" 2>&1 | tail -12 | tee -a "$OUT/log.txt"
