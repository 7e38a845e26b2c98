#!/usr/bin/env bash
# The session's last device calls on a one-GPU host (16 cores), each under 10 minutes:
#   MCE_KIT_COMMIT=<sha> bash scripts/final_device.sh OUT_DIR tests   # GPU tests of what changed,
#       the cold host preparation (coldprep) and the whole `python -m mce_kit count` process
#       (scripts/profile_frontdoor.py: its pieces, with and without the CUDA start behind the load)
#   MCE_KIT_COMMIT=<sha> bash scripts/final_device.sh OUT_DIR kernels # every task kernel's GPU tests
#   MCE_KIT_COMMIT=<sha> bash scripts/final_device.sh OUT_DIR timing  # the front door, the
#       peers beside ours (quick) and the process floor on this host
#   MCE_KIT_COMMIT=<sha> bash scripts/final_device.sh OUT_DIR cpu     # the CPU engine against the
#       CPU peers on this host's cores (issue 27)
# Carry peers/ and .whl/ (igraph for the CPU engine's peers).
set -uo pipefail
out=${1:?usage: scripts/final_device.sh OUT_DIR tests|kernels|timing|cpu}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 MCE_KIT_COMMIT=${MCE_KIT_COMMIT:-unknown} PYTHONPATH=.
nvidia-smi -L; nproc
python3 -m compileall -q mce_kit
wheels() {
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
    export PYTHONPATH=.:/tmp/site
}
bytecode() {  # pip compiles a package's bytecode when it installs it; this host's site-packages lack it
    unset PYTHONDONTWRITEBYTECODE
    local sp; sp=$(python3 -c "import numpy, os; print(os.path.dirname(os.path.dirname(numpy.__file__)))")
    for p in numpy cupy cupy_backends cuda tqdm scipy fastrlock numba llvmlite pandas; do
        [ -d "$sp/$p" ] && python3 -m compileall -q -j 16 "$sp/$p" > /dev/null 2>&1
    done
}
case "${2:?}" in
tests)  # the GPU tests of what changed, the cold host preparation, the whole count process
    run() { timeout "$1" python3 -m pytest -q -m gpu -p no:cacheprovider -rfE "${@:2}" 2>&1 | tail -8; }
    wheels
    { run 220 tests/test_gpu_kclique.py tests/test_gpu_prep.py tests/test_gpu_prepared.py
      run 90 tests/test_gpu_subsets.py -k "kcminer or clique_count or dask_workers"; } | tee "$out/gpu_tests.log"
    timeout 80 python3 -m mce_kit.experiments.coldprep --out "$out" --repeats 3 \
        --only CA-GrQc Email-Enron soc-Slashdot0902 socfb-MIT MovieLens 2>&1 | tail -2
    bytecode
    timeout 120 python3 scripts/profile_frontdoor.py "$out" --process-only > "$out/process.log" 2>&1 ;;
kernels)  # every task kernel's GPU tests (after a change to how they take tasks), Dask on one GPU
    run() { timeout "$1" python3 -m pytest -q -m gpu -p no:cacheprovider -rfE "${@:2}" 2>&1 | tail -6; }
    wheels
    { run 160 tests/test_gpu_rdmce.py tests/test_gpu_mcegpu.py -k "random_graphs or bundled_graphs_exact"
      run 130 tests/test_gpu_gmbe.py -k "random_graphs or ten_of_ten or papers_count or tight_budget or full_queue"
      run 150 tests/test_gpu_kclique.py
      run 90 tests/test_gpu_subsets.py -k "kcminer or clique_count or dask_workers"; } | tee "$out/gpu_kernels.log" ;;
timing)  # bytecode compiled as an installed package has it, then the front door and the peers
    bytecode
    timeout 200 python3 -m mce_kit.experiments.frontdoor --out "$out" 2>&1 | tail -2
    timeout 330 python3 -m mce_kit.experiments.peers --peers peers --out "$out" --quick 2>&1 | tail -20 \
        | tee "$out/peers.log"
    timeout 60 python3 -m mce_kit.experiments.process_floor --out "$out" 2>&1 | tail -5 ;;
cpu)
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
    PYTHONPATH=.:/tmp/site timeout 500 python3 -m mce_kit.experiments.cpu_engine --out "$out" --peers peers \
        2>&1 | tail -5 ;;
esac
