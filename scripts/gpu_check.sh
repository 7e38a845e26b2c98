#!/usr/bin/env bash
# Every GPU test file at once on one lent GPU, each file its own pytest process (run timings before
# or after it, never beside it). From the checkout's root:
#   MCE_KIT_COMMIT=<short sha> bash scripts/gpu_check.sh OUT_DIR [SECONDS_PER_FILE]
# Wheels in .whl/ (igraph, dask...; see README "Running on a GPU") are installed under /tmp/site first.
# Writes OUT_DIR/tests.log (every file's log, one after another: the device returns few files) and
# OUT_DIR/summary.txt (one line a file).
set -uo pipefail
out=${1:?usage: scripts/gpu_check.sh OUT_DIR [SECONDS_PER_FILE]}; limit=${2:-360}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 MCE_KIT_COMMIT=${MCE_KIT_COMMIT:-unknown}
if ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl || exit 1
    export PYTHONPATH=/tmp/site:$PWD
fi
nvidia-smi -L
logs=$(mktemp -d)
pids=()
for f in $(grep -l "mark.gpu\|pytestmark" tests/test_*.py); do
    name=$(basename "$f" .py)
    timeout "$limit" python3 -m pytest -q -m gpu -p no:cacheprovider -rfEs -W ignore "$f" \
        >"$logs/$name.log" 2>&1 &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
for log in "$logs"/*.log; do
    printf '%-32s %s\n' "$(basename "$log" .log)" \
        "$(grep -E '(passed|failed|error|no tests ran|deselected)' "$log" | tail -1)"
    { echo "=== $(basename "$log" .log)"; cat "$log"; } >> "$out/tests.log"
done | tee "$out/summary.txt"
