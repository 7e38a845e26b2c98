#!/usr/bin/env bash
# The session's last device calls on a one-GPU host (16 cores), each under 10 minutes:
#   MCE_KIT_COMMIT=<sha> bash scripts/final_device.sh OUT_DIR tests   # GPU tests of what changed,
#       the cold host preparation (coldprep) and the whole `python -m mce_kit count` process
#   MCE_KIT_COMMIT=<sha> bash scripts/final_device.sh OUT_DIR kernels # every task kernel's GPU tests
#   MCE_KIT_COMMIT=<sha> bash scripts/final_device.sh OUT_DIR timing  # the front door and the
#       maximum-clique rows beside MC-BRB on this host
#   MCE_KIT_COMMIT=<sha> bash scripts/final_device.sh OUT_DIR cpu     # the CPU engine against the
#       CPU peers on this host's cores (issue 27)
# Carry peers/ and .whl/ (igraph for the CPU engine's peers).
set -uo pipefail
out=${1:?usage: scripts/final_device.sh OUT_DIR tests|kernels|timing|cpu}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 MCE_KIT_COMMIT=${MCE_KIT_COMMIT:-unknown} PYTHONPATH=.
nvidia-smi -L; nproc
python3 -m compileall -q mce_kit
case "${2:?}" in
tests)
    run() { timeout "$1" python3 -m pytest -q -m gpu -p no:cacheprovider -rfE "${@:2}" 2>&1 | tail -8; }
    { run 260 tests/test_gpu_watch.py tests/test_gpu_kclique.py tests/test_gpu_geil.py tests/test_gpu_prep.py \
          tests/test_gpu_prepared.py -k "not load_paths and not every_k_and_switch"
      run 150 tests/test_gpu_rdmce.py tests/test_gpu_mcegpu.py -k "random_graphs or bundled_graphs_exact"
      run 60 tests/test_gpu_subsets.py -k "kcminer or clique_count"; } | tee "$out/gpu_tests.log"
    timeout 70 python3 -m mce_kit.experiments.coldprep --out "$out" --repeats 3 \
        --only CA-GrQc Email-Enron soc-Slashdot0902 socfb-MIT MovieLens 2>&1 | tail -2
    for f in data/snap/wiki-Vote.txt.gz data/snap/soc-Slashdot0902.txt.gz; do
        python3 -m mce_kit count $f --device gpu > /dev/null 2>&1      # CuPy's kernel cache
        for i in 1 2 3; do /usr/bin/time -f "$f %e s" python3 -m mce_kit count $f --device gpu 2>&1 | tail -1; done
    done | tee "$out/process.log" ;;
kernels)  # every task kernel's GPU tests (after a change to how they take tasks), Dask on one GPU
    run() { timeout "$1" python3 -m pytest -q -m gpu -p no:cacheprovider -rfE "${@:2}" 2>&1 | tail -6; }
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
    export PYTHONPATH=.:/tmp/site
    { run 160 tests/test_gpu_rdmce.py tests/test_gpu_mcegpu.py -k "random_graphs or bundled_graphs_exact"
      run 130 tests/test_gpu_gmbe.py -k "random_graphs or ten_of_ten or papers_count or tight_budget or full_queue"
      run 150 tests/test_gpu_kclique.py
      run 90 tests/test_gpu_subsets.py -k "kcminer or clique_count or dask_workers"; } | tee "$out/gpu_kernels.log" ;;
timing)
    timeout 200 python3 -m mce_kit.experiments.frontdoor --out "$out" 2>&1 | tail -2
    timeout 80 python3 -m mce_kit.experiments.maxclique --out "$out" --device gpu --peers peers \
        --graphs CA-GrQc email-Eu-core socfb-MIT MANN_a27 brock200_4 keller4 hamming8-4 2>&1 | tail -3 ;;
cpu)
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
    PYTHONPATH=.:/tmp/site timeout 500 python3 -m mce_kit.experiments.cpu_engine --out "$out" --peers peers \
        2>&1 | tail -5 ;;
esac
