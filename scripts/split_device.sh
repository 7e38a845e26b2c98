#!/usr/bin/env bash
# On a lent 2-GPU host, in two calls (each under 10 minutes):
#   bash scripts/split_device.sh OUT_DIR tests     # GPU tests of the split tasks, prep and kept state;
#                                                  # then KCMiner / pivot counter with and without split
#   bash scripts/split_device.sh OUT_DIR scaling   # KCMiner, the pivot counter, mce-gpu and the large
#                                                  # GMBE+ workload on 1 and 2 GPUs through Dask
# Needs the Dask wheels in .whl/ (see scripts/multigpu_device.sh).
set -uo pipefail
out=${1:?usage: scripts/split_device.sh OUT_DIR tests|scaling}
what=${2:?usage: scripts/split_device.sh OUT_DIR tests|scaling}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 MCE_KIT_COMMIT=${MCE_KIT_COMMIT:-unknown}
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
    .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
nvidia-smi -L; nproc
if [ "$what" = tests ]; then
    CUDA_VISIBLE_DEVICES=0 timeout 330 python3 -m pytest -q -m gpu -p no:cacheprovider --durations=8 \
        tests/test_gpu_kclique.py tests/test_gpu_prep.py tests/test_gpu_prepared.py 2>&1 \
        | tail -40 | tee "$out/gpu_tests.log"
    echo "tests exit: ${PIPESTATUS[0]}"
    CUDA_VISIBLE_DEVICES=0 timeout 200 python3 -m mce_kit.experiments.kcminer --out "$out" --only split 2>&1 \
        | tail -30 | tee "$out/split.log"
else
    timeout 540 python3 -m mce_kit.experiments.multigpu --out "$out" --gpus 1 2 \
        --algo kcminer cliquecount mce-gpu gmbe --only ego-Facebook wiki-Vote rmat-15-16 \
        chung-lu-60000x20000-m151875-seed1 2>&1 \
        | grep -v "^INFO\|distributed\.\(scheduler\|nanny\|core\|worker\)" | tee "$out/multigpu.log"
    echo "experiment exit: ${PIPESTATUS[0]}"
fi
