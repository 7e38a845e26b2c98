#!/usr/bin/env bash
# On a lent host of 2 or more GPUs: the Dask path's GPU test, then every kernel on 1, 2 (and 4, 8)
# GPUs through Dask, long workloads and small ones; a killed worker and a failing chunk on the most
# GPUs, and a worker lost during a shared-queue run. Run from the checkout's root
# (about 9 minutes):
#   MCE_KIT_COMMIT=<short sha> bash scripts/multigpu_device.sh OUT_DIR
# Needs the Dask wheels in .whl/ (dask and distributed 2026.8.0, partd, locket, tblib, tornado, zict;
# igraph and texttable for mce_kit's CPU engine: the device has the rest); installed under /tmp/site. dask-cuda is not needed: without it
# mce_kit.distributed.local_cuda_cluster starts one plain Dask worker per GPU (pinned_cluster).
# Writes OUT_DIR/gpu_subsets.log, multigpu_scaling.csv, multigpu_busy.csv, multigpu_faults.csv and
# multigpu.log.
set -uo pipefail
out=${1:?usage: scripts/multigpu_device.sh OUT_DIR}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export MCE_KIT_COMMIT=${MCE_KIT_COMMIT:-unknown}
ls .whl/*.whl >/dev/null 2>&1 || { echo "no wheels in .whl/: see mce_kit/distributed.py"; exit 2; }
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
    .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
python3 -c "import distributed, cupy; print('distributed', distributed.__version__, '| GPUs',
            cupy.cuda.runtime.getDeviceCount())" || exit 1
nvidia-smi -L

gpus=$(nvidia-smi -L | wc -l)
counts="1 2"; [ "$gpus" -ge 4 ] && counts="1 2 4"; [ "$gpus" -ge 8 ] && counts="1 2 4 8"

# 0. the Dask path on this GPU: two workers, every kernel, dealt and from a shared queue, 5 times
timeout 100 python3 -m pytest -q -x -m gpu -p no:cacheprovider tests/test_gpu_subsets.py -k "dask_workers" 2>&1 \
    | tail -4 | tee "$out/gpu_subsets.log"

# 1. strong scaling on 1, 2 (and 4, 8) GPUs, every kernel, tasks dealt by cost (--queue shared dealt
#    measures both ways); rows are written as they are measured
timeout ${MULTIGPU_LIMIT:-460} python3 -m mce_kit.experiments.multigpu --out "$out" --gpus $counts \
    --faults ego-Facebook --queue dealt --algo rdmce mce-gpu kcminer cliquecount gmbe 2>&1 \
    | grep -v "^INFO\|distributed\.\(scheduler\|nanny\|core\|worker\)" | tee "$out/multigpu.log"
echo "experiment exit: ${PIPESTATUS[0]}"
