#!/usr/bin/env bash
# The front door on one lent GPU host (about 9 minutes): the GPU tests of what changed (kept
# preparation, Geil's bounds and Ctrl-C, the k-clique rule, the API), then warm / cold / kernel
# times of every bundled graph and problem (experiments.frontdoor), then the peers beside ours
# (experiments.peers; needs a copy of ../shared/peers at ./peers, carried). Run from the checkout:
#   MCE_KIT_COMMIT=<sha> bash scripts/frontdoor_device.sh OUT_DIR
# Needs igraph and texttable wheels in .whl/ (the device has numba, cupy, pandas, ...).
set -uo pipefail
out=${1:?usage: scripts/frontdoor_device.sh OUT_DIR}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 MCE_KIT_COMMIT=${MCE_KIT_COMMIT:-unknown}
if ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
        .whl/*.whl || exit 1
    export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
nvidia-smi -L

# 1. GPU tests (each file stops at its first failure)
timeout 170 python3 -m pytest -q -x -m gpu -p no:cacheprovider tests/test_gpu_prepared.py tests/test_gpu_geil.py \
    tests/test_api.py tests/test_nx_backend.py 2>&1 | tail -15 | tee "$out/gpu_tests.log"
echo "tests exit: ${PIPESTATUS[0]}"

# 2. the call against the kernel, every bundled graph and problem
timeout 150 python3 -m mce_kit.experiments.frontdoor --out "$out" 2>&1 | tail -5
echo "frontdoor exit: ${PIPESTATUS[0]}"

# 3. the peers and ours on the same pairs
[ -d peers ] && timeout 230 python3 -m mce_kit.experiments.peers --peers peers --out "$out" --quick 2>&1 \
    | tail -30 | tee "$out/peers.log"
echo "peers exit: ${PIPESTATUS[0]}"
