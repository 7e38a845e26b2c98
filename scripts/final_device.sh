#!/usr/bin/env bash
# The session's last device call on a one-GPU host (16 cores): GPU tests of what changed, the
# front door (warm, cold, kernel per bundled graph and problem), the maximum-clique rows beside
# MC-BRB, and the whole `python -m mce_kit count` process.
#   MCE_KIT_COMMIT=<sha> bash scripts/final_device.sh OUT_DIR [cpu]   (carry peers/ and .whl/)
# With "cpu", only the CPU engine against the CPU peers on this host's cores (issue 27).
set -uo pipefail
out=${1:?usage: scripts/final_device.sh OUT_DIR [cpu]}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 MCE_KIT_COMMIT=${MCE_KIT_COMMIT:-unknown}
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
    .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site
nvidia-smi -L; nproc
if [ "${2:-}" = cpu ]; then
    timeout 300 python3 -m mce_kit.experiments.cpu_engine --out "$out" --peers peers 2>&1 | tail -5
    exit 0
fi
timeout 200 python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_gpu_watch.py tests/test_gpu_prep.py \
    tests/test_gpu_prepared.py tests/test_gpu_geil.py tests/test_gpu_kclique.py \
    -k "not random_graphs_every_k and not listing_matches and not load_paths" 2>&1 | tail -12 \
    | tee "$out/gpu_tests.log"
echo "tests exit: ${PIPESTATUS[0]}"
timeout 60 python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_gpu_subsets.py \
    -k "clique_count or kcminer" 2>&1 | tail -3 | tee -a "$out/gpu_tests.log"
timeout 200 python3 -m mce_kit.experiments.frontdoor --out "$out" 2>&1 | tail -2
timeout 60 python3 -m mce_kit.experiments.maxclique --out "$out" --device gpu --peers peers \
    --graphs CA-GrQc email-Eu-core socfb-MIT MANN_a27 brock200_4 keller4 hamming8-4 2>&1 | tail -3
for f in data/snap/wiki-Vote.txt.gz data/snap/soc-Slashdot0902.txt.gz; do
    python3 -m mce_kit count $f --device gpu > /dev/null 2>&1      # CuPy's kernel cache
    for i in 1 2 3; do /usr/bin/time -f "$f %e s" python3 -m mce_kit count $f --device gpu 2>&1 | tail -1; done
done | tee "$out/process.log"
