#!/usr/bin/env bash
# Issue 8 round two, one device run (from the checkout's root):
#   MCE_KIT_COMMIT=<short sha> bash scripts/rdmce2_device.sh OUT_DIR [TEST_SECONDS] [EXP_SECONDS]
# 1. the GPU tests of listing on the register path (suspended sub-trees, 10-run exactness), most needed first;
# 2. the stream / histogram / variants experiments -> OUT_DIR/rdmce_{stream,histogram,variants}.csv;
# 3. the CLI `list` command's time and peak host memory (socfb-MIT in full, ego-Facebook's cliques of >= 67).
set -uo pipefail
out=${1:?usage: scripts/rdmce2_device.sh OUT_DIR [TEST_SECONDS] [EXP_SECONDS]}
tests_s=${2:-115}; exp_s=${3:-110}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 MCE_KIT_COMMIT=${MCE_KIT_COMMIT:-unknown}
nvidia-smi -L
t=tests/test_gpu_rdmce.py
first=(test_listing_in_registers_suspends_and_resumes_exactly_ten_runs_in_a_row
       test_ego_facebook_listing_on_the_gpu_matches_the_count
       test_bundled_graphs_listing_exact_ten_runs_in_a_row
       test_register_subtrees_match_the_oracle_on_300_random_graphs
       test_histogram_filters_and_streaming_match_oracle_on_300_random_graphs
       test_streaming_wraps_many_times_and_is_exact_ten_runs_in_a_row
       test_histogram_on_bundled_graphs_ten_runs_in_a_row
       test_public_api_streams_on_the_gpu
       test_register_subtrees_on_moon_moser_graphs_at_the_32_vertex_edge)
end=$((SECONDS + tests_s))
py=(python3 -m pytest -q -m gpu -p no:cacheprovider -rfEs -W ignore --durations=8)
timeout "$tests_s" "${py[@]}" "${first[@]/#/$t::}" >"$out/tests.log" 2>&1
echo "tests (changed) rc=$?"; tail -30 "$out/tests.log"
left=$((end - SECONDS))
if [ "$left" -gt 10 ]; then   # the rest of the file, while the time lasts
    timeout "$left" "${py[@]}" "$t" "${first[@]/#/--deselect=$t::}" >"$out/tests_rest.log" 2>&1
    echo "tests (rest) rc=$?"; tail -12 "$out/tests_rest.log"
fi
# one process per group: run_jobs follows its own job order, and the streaming rows matter most
end=$((SECONDS + exp_s))
timeout $((exp_s / 2)) python3 -m mce_kit.experiments.rdmce --only stream histogram --out "$out" 2>&1 | tail -8
echo "experiments (stream, histogram) rc=$?"
timeout $((end - SECONDS)) python3 -m mce_kit.experiments.rdmce --only variants --out "$out" 2>&1 | tail -8
echo "experiments (variants) rc=$?"
for args in "socfb-MIT" "ego-Facebook --min-size 67"; do
    # peak resident memory of the listing process (its own child: RUSAGE_CHILDREN)
    timeout 25 python3 -c '
import resource, subprocess, sys, time
t = time.perf_counter()
rc = subprocess.run([sys.executable, "-m", "mce_kit", "list", *sys.argv[1:]]).returncode
kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(f"cli list {sys.argv[1:]}: rc {rc}, {time.perf_counter() - t:.2f} s, peak RSS {kib / 1024:.0f} MiB")
' $args --out /tmp/cli_out.npz 2>&1 | tail -3
    ls -la /tmp/cli_out.npz 2>/dev/null; rm -f /tmp/cli_out.npz
done
