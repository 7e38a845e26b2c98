#!/usr/bin/env bash
# Issue 8, item 4: is loading a big graph from text the bottleneck? R-MAT scale 24, edge factor 16
# (mce_kit's seeded generator, seed 1: 16.8 M vertices, 260 M edges) written as a SNAP text edge
# list (about 4.3 GB), then load_graph and prepare (device auto) timed in a fresh process, with its
# peak RSS; the loaded graph is checked against the generated one. One CSV row per scale in
# OUT/rdmce_load_text.csv, a log in OUT/load_text_log.txt. Run from the repository root; takes
# about 2 minutes on a 16-core host (time-boxed by BUDGET, 240 s). Needs ~5 GB free in WORKDIR.
#   SCALE="22 24" scripts/load_scale_final.sh OUT      # other scales (default 24)
# Set MCE_KIT_COMMIT=<short sha> where the checkout has no .git (the row's commit column).
# Fold the row into the committed table: python -m mce_kit.experiments.load_text --merge OUT
set -o pipefail
OUT=${1:?usage: scripts/load_scale_final.sh OUT}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
PY=${PYTHON:-python3}
WORK=$(mktemp -d "${WORKDIR:-${TMPDIR:-/tmp}}/load_text.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
df -h "$WORK" | tail -1
nproc; free -g | head -2
# shellcheck disable=SC2086
timeout "${BUDGET:-240}" $PY -m mce_kit.experiments.load_text --scale ${SCALE:-24} --out "$OUT" --dir "$WORK" \
    --note "scripts/load_scale_final.sh" 2>&1 | tee "$OUT/load_text_log.txt"
rc=$?
[ -f "$OUT/rdmce_load_text.csv" ] && cut -d, -f1-3,6-17 "$OUT/rdmce_load_text.csv"
exit $rc
